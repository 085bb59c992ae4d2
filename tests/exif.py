"""Photos as phones write them: a JPEG with an EXIF orientation tag, for the tests of photos a
tag turns (detect, track over a folder)."""

from __future__ import annotations


def with_orientation(jpeg: bytes, tag: int) -> bytes:
    """The JPEG with an EXIF orientation tag (6: held upright)."""
    tiff = b"MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01" + tag.to_bytes(2, "big")
    app1 = b"Exif\x00\x00" + tiff + bytes(6)
    return jpeg[:2] + b"\xff\xe1" + (len(app1) + 2).to_bytes(2, "big") + app1 + jpeg[2:]
