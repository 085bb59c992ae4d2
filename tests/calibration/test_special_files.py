"""Input paths that name no regular file: a named pipe nothing writes into, a device.

A photo or JSON file named so was waited for without end (the pipe) or read without end (a
device like /dev/zero, until memory ran out: a MemoryError traceback); a photo that was a device
was called empty.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import calibration.jsonfile
import calibration.layout
from calibration.imagefile import decode_checked, read_image
from calibration.layout import load_layout
from rules_core.errors import TablesightError


def _error_within(seconds: float, fifo: Path, read: Callable[[], object]) -> TablesightError:
    """The error `read` raises, which must come within `seconds`: where it waits on the pipe
    instead, a writer is let in (so the reader ends) and the test fails."""
    caught: list[BaseException] = []

    def run() -> None:
        try:
            read()
        except BaseException as error:  # handed to the test thread
            caught.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    waited = thread.is_alive()
    if waited:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
    assert not waited, f"still waiting on the pipe after {seconds} s"
    assert caught and isinstance(caught[0], TablesightError), caught
    return caught[0]


def test_a_photo_that_is_a_named_pipe_is_refused_at_once(tmp_path) -> None:
    fifo = tmp_path / "photo.jpg"
    os.mkfifo(fifo)
    error = _error_within(5, fifo, lambda: read_image(fifo))
    assert error.problem == f"image {fifo} is a pipe: photos are not read from pipes or stdin"
    assert error.fix == "save the photo to a file and give its name"


def test_a_photo_that_is_a_device_is_not_called_empty() -> None:
    with pytest.raises(TablesightError) as caught:
        read_image("/dev/zero")
    assert caught.value.problem == "image /dev/zero is a device, not a photo file"
    assert caught.value.fix == "give a JPEG or PNG photo of the table"


def test_a_layout_in_a_named_pipe_nothing_writes_into_is_refused_after_a_wait(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(calibration.jsonfile, "PIPE_WAIT_S", 0.2)
    fifo = tmp_path / "layout.json"
    os.mkfifo(fifo)
    error = _error_within(5, fifo, lambda: load_layout(fifo))
    assert error.problem == f"layout file {fifo} is a pipe nothing wrote into for 0.2 s"
    assert error.fix.startswith("give a layout JSON file")


def test_a_layout_in_a_pipe_written_into_is_read(tmp_path) -> None:
    """`--layout <(cat layout.json)` reads: only a pipe with no writer is refused."""
    text = (Path(calibration.layout.__file__).parent / "layouts" / "183x122.json").read_text()
    read, write = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write, text.encode()), os.close(write)))
    writer.start()
    try:
        layout = load_layout(f"/dev/fd/{read}")
    finally:
        writer.join()
        os.close(read)
    assert layout.table.width_cm == 183


def test_a_layout_that_is_a_device_is_refused_without_reading_it_whole() -> None:
    """/dev/zero was read until memory ran out (a MemoryError traceback)."""
    with pytest.raises(TablesightError) as caught:
        load_layout("/dev/zero")
    assert caught.value.problem == "layout file /dev/zero is over 64 MB: no layout file is that large"


def _png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header claims width x height pixels, with almost no data behind it."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
            + chunk(b"IEND", b""))


def test_a_photo_over_opencvs_pixel_limit_is_named_so(tmp_path) -> None:
    """OpenCV's assertion on the header's size was a traceback (detect, calibrate, rectify)."""
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_claiming(100_000, 100_000))
    with pytest.raises(TablesightError) as caught:
        read_image(bomb)
    assert caught.value.problem == f"image {bomb} claims more pixels than OpenCV reads (2^30)"
    assert caught.value.fix == "give a JPEG or PNG photo of the table"


def test_a_still_over_opencvs_pixel_limit_does_not_decode(tmp_path) -> None:
    """A folder's or recording's frame so large ended track and record with a traceback; now it is
    a frame that does not decode, which they skip and name."""
    image, corrupt = decode_checked(np.frombuffer(_png_claiming(100_000, 100_000), np.uint8))
    assert image is None and not corrupt


def test_a_board_video_that_is_a_named_pipe_is_refused_at_once(tmp_path) -> None:
    """OpenCV waited on it for a writer, deaf to SIGTERM (only kill -9 ended calibrate-lens)."""
    from calibration.lens import calibrate_lens

    fifo = tmp_path / "board.mp4"
    os.mkfifo(fifo)
    error = _error_within(5, fifo, lambda: calibrate_lens([fifo]))
    assert error.problem == f"video {fifo} is a pipe or a device, not a video file"
    assert error.fix == "save the video to a file and give its name"
