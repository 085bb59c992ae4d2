"""Reading the photos users hand to a command (`calibrate`, `rectify`, `detect`) or a folder
of stills (`hardware/folder.py`).

Each fails the same ways (missing, unreadable, a pipe or device, cut off, not a picture, more
pixels than OpenCV reads), and each failure must be one line naming the file and the fix,
without OpenCV's own decoder warnings printed before it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.file_kind import pipe_or_device
from rules_core.errors import TablesightError

if TYPE_CHECKING:
    from calibration.intrinsics import Intrinsics


def read_image(path: str | Path, fix: str = "give a JPEG or PNG photo of the table") -> np.ndarray:
    """A colour image from any file OpenCV reads, or a one-line error.

    A photo given to one command is all that command sees, so one damaged inside its JPEG data is
    refused where a folder's still is used and named (hardware/folder.py): decoded, its lost part
    is grey, and the markers and bases in it come out "not found" with nothing blaming the file.
    `fix` says what photo to give instead of a missing file or one that is no picture; a damaged
    or cut-off one is to be copied again, and a pipe saved to a file, whatever the photo is of.
    """
    again = "copy the photo from the camera again, or take it again"
    if str(path) == "-" and not Path(path).exists():
        raise TablesightError("photos are not read from stdin (-)", _SAVE_IT)
    special = pipe_or_device(path)
    if special == "pipe":  # numpy reads by seeking, which a pipe cannot do; one unwritten, never opens
        raise TablesightError(f"image {path} is a pipe: photos are not read from pipes or stdin", _SAVE_IT)
    if special == "device":  # its size is 0, so it read as an empty photo
        raise TablesightError(f"image {path} is a device, not a photo file", fix)
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except FileNotFoundError:
        raise TablesightError(f"image {path} not found", fix) from None
    except OSError as error:
        raise TablesightError(f"cannot read image {path} ({error.strerror})", fix) from None
    if not data.size:
        raise TablesightError(f"image {path} is empty (0 bytes)", again)
    image, said = _decode(data)
    if _TOO_LARGE in said:
        raise TablesightError(f"image {path} claims more pixels than OpenCV reads (2^30)", fix)
    if image is None:
        kind = _kind(data)
        if kind is None:
            raise TablesightError(f"cannot read image {path}: not a picture OpenCV can decode", fix)
        raise TablesightError(f"image {path} is a {kind} cut off or damaged: it does not decode", again)
    if any(line.startswith(_LIBJPEG_DAMAGE) for line in said):
        raise TablesightError(
            f"image {path} is damaged inside its JPEG data (cut off or garbled by a copy): part of the "
            "picture is lost",
            again,
        )
    return image


class UnfitForLens(TablesightError):
    """A photo of another size than the lens calibration's. `reason` says so in a few words naming
    the file by its name alone, and `turned` whether its EXIF orientation tag is the cause: a
    folder's still so passed over is listed with others at the end of the run, where the whole
    error (its folder's path again, and a fix for a single photo) would bury which file it was."""

    def __init__(self, problem: str, fix: str, reason: str, turned: bool) -> None:
        super().__init__(problem, fix)
        self.reason = reason
        self.turned = turned


def write_image(path: Path, image: np.ndarray) -> bool:
    """The picture encoded as its name's suffix says, and its bytes written here: OpenCV's imwrite
    takes the name as UTF-8 and died of a Latin-1 one (a segmentation fault, no word). False where
    OpenCV cannot encode it; a disk that refuses the bytes raises its OSError."""
    try:
        ok, encoded = cv2.imencode(path.suffix, image)
    except cv2.error:
        return False
    if ok:
        path.write_bytes(encoded.tobytes())
    return bool(ok)


def check_size_for_lens(
    intrinsics: Intrinsics, image: np.ndarray, path: str | Path | None, source: str
) -> None:
    """`intrinsics.check_image`, naming the EXIF orientation tag where that is what turned the photo
    away from the lens calibration's size: OpenCV turns a photo by its tag as it reads it, so a
    camera's landscape pixels tagged "held upright" read as portrait, and "calibrate the lens at
    1296x2304" would send the user to measure a lens already measured."""
    height, width = image.shape[:2]
    name = Path(path).name if path is not None else source
    turned = (height, width) == tuple(intrinsics.image_size) and height != width
    if turned and path is not None and _turned_by_exif(path):
        raise UnfitForLens(
            f"{source} is stored {height}x{width}, the size the intrinsics are for, but is read turned "
            f"to {width}x{height} by its EXIF orientation tag",
            "remove the tag so the photo is read as stored (e.g. `exiftool -Orientation=1 -n PHOTO`), or "
            "take it holding the camera as for the lens calibration",
            f"{name} is turned by its EXIF orientation tag",
            turned=True,
        )
    try:
        intrinsics.check_image((width, height), source)
    except TablesightError as error:
        lens_width, lens_height = intrinsics.image_size
        reason = f"{name} is {width}x{height}, not the lens file's {lens_width}x{lens_height}"
        raise UnfitForLens(error.problem, error.fix, reason, turned=False) from None


def decode_quietly(data: np.ndarray) -> np.ndarray | None:
    """The colour image in a file's bytes, or None, with OpenCV's decoders kept quiet.

    A cut-off or foreign file makes them print their own warnings and errors to stderr; the
    caller's one line says what is wrong and what to do instead.
    """
    return decode_checked(data)[0]


def decode_checked(data: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """The colour image in a file's bytes (or None), and whether libjpeg found the data corrupt.

    A JPEG damaged inside its data still decodes (the rest of the picture grey or smeared), and
    libjpeg says so only by printing "Corrupt JPEG data: ..." straight to the process's stderr,
    past OpenCV's log level. So stderr is caught around the decode: the damage becomes a flag the
    caller can name the frame by.
    """
    if not data.size:
        return None, False
    image, said = _decode(data)
    return image, any(line.startswith(_LIBJPEG_DAMAGE) for line in said)


def _decode(
    data: np.ndarray, flags: int = cv2.IMREAD_COLOR | cv2.IMREAD_ANYDEPTH
) -> tuple[np.ndarray | None, list[str]]:
    """The picture (8 bits a channel) and the lines its decoders printed, caught at file descriptor
    2; whatever else was written there meanwhile (another thread's) is passed on."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        with _caught_stderr() as caught:
            image = cv2.imdecode(data, flags)
    except cv2.error as error:  # a header claiming over CV_IO_MAX_IMAGE_PIXELS: an assertion
        return None, [_TOO_LARGE] if "MAX_IMAGE_PIXELS" in error.err else []
    finally:
        cv2.utils.logging.setLogLevel(level)
    said = [line for line in caught if line.startswith(_DECODERS)]
    others = [line for line in caught if not line.startswith(_DECODERS)]
    if others:
        sys.stderr.write("\n".join(others) + "\n")
    return (None if image is None else _eight_bit(image)), said


def _eight_bit(image: np.ndarray) -> np.ndarray:
    """The picture at 8 bits a channel, which the markers' and bases' thresholds are set for.

    A 16-bit file from a raw converter or a machine-vision camera often holds 10, 12 or 14 bits
    in the low bits of each value. Read as 16 (OpenCV's own conversion keeps the high byte), 12-bit
    data became 0-15 of 255: a black picture in which no base was found. So the depth is the one
    its values use, rounded up to a sensor's even depth (a frame of a 12-bit camera must be all
    but black to be read as 10-bit). A float picture (a TIFF from an editor) holds 0-1, or
    0-255 from some tools: told apart by its 99.9th percentile, not its brightest value, as
    sharpening leaves a few values just over 1 (or an infinity), and a 0-1 picture read as 0-255
    is black.
    """
    if image.dtype == np.uint8:
        return image
    if image.dtype.kind == "f":
        finite = image[np.isfinite(image)]
        top = 1.0 if not finite.size or np.percentile(finite, 99.9) <= 1.5 else 255.0
        values = np.nan_to_num(image, nan=0.0, posinf=top, neginf=0.0)
        return np.clip(np.rint(values * (255.0 / top)), 0, 255).astype(np.uint8)
    values = np.clip(image, 0, None)
    bits = max(8, int(values.max(initial=0)).bit_length())
    return (values >> (bits + bits % 2 - 8)).astype(np.uint8)


def _turned_by_exif(path: str | Path) -> bool:
    """Whether reading the file turns it a quarter by its EXIF orientation tag (5 to 8), told by
    its size read at an eighth with and without the tag (cheap: JPEG decodes at an eighth)."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError:
        return False
    reduced = cv2.IMREAD_REDUCED_GRAYSCALE_8
    as_read, _ = _decode(data, reduced)
    as_stored, _ = _decode(data, reduced | cv2.IMREAD_IGNORE_ORIENTATION)
    return as_read is not None and as_stored is not None and as_read.shape != as_stored.shape


def _kind(data: np.ndarray) -> str | None:
    """JPEG or PNG when the file starts as one: one that then does not decode is cut off or damaged."""
    head = data[:8].tobytes()
    return next((kind for signature, kind in _SIGNATURES.items() if head.startswith(signature)), None)


_LIBJPEG_DAMAGE = ("Corrupt JPEG data", "Premature end of JPEG file")
# What the decoders print themselves: the caller's one line says what it means for the file.
_DECODERS = (*_LIBJPEG_DAMAGE, "libpng ")
_TOO_LARGE = "tablesight: over OpenCV's pixel limit"  # said in _decode's stead, by no decoder
_SAVE_IT = "save the photo to a file and give its name"
_SIGNATURES = {b"\xff\xd8\xff": "JPEG", b"\x89PNG\r\n\x1a\n": "PNG"}
_STDERR = threading.Lock()


@contextlib.contextmanager
def _caught_stderr() -> Iterator[list[str]]:
    """File descriptor 2 pointed at a scratch file for the block: libjpeg writes there with
    fprintf, which neither sys.stderr nor OpenCV's logging can redirect. One block at a time, as
    the descriptor is the whole process's."""
    caught: list[str] = []
    with _STDERR, tempfile.TemporaryFile() as scratch:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(scratch.fileno(), 2)
        try:
            yield caught
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            scratch.seek(0)
            caught += scratch.read().decode(errors="replace").splitlines()
