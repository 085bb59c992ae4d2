"""Reading the photos users hand to a command (`calibrate`, `rectify`, `detect`) or a folder
of stills (`hardware/folder.py`).

Each fails the same ways (missing, unreadable, not a picture), and each failure must be one
line naming the file and the fix, without OpenCV's own decoder warnings printed before it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from rules_core.errors import TablesightError


def read_image(path: str | Path) -> np.ndarray:
    """A colour image from any file OpenCV reads, or a one-line error."""
    fix = "give a JPEG or PNG photo of the table"
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except FileNotFoundError:
        raise TablesightError(f"image {path} not found", fix) from None
    except OSError as error:
        raise TablesightError(f"cannot read image {path} ({error.strerror})", fix) from None
    image = decode_quietly(data)
    if image is None:
        raise TablesightError(f"cannot read image {path}: not a picture OpenCV can decode", fix)
    return image


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
    caller can name the frame by, and whatever else was written meanwhile is passed on.
    """
    if not data.size:
        return None, False
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        with _caught_stderr() as caught:
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    finally:
        cv2.utils.logging.setLogLevel(level)
    decoder = [line for line in caught if line.startswith(_LIBJPEG_DAMAGE)]
    others = [line for line in caught if not line.startswith(_LIBJPEG_DAMAGE)]
    if others:
        sys.stderr.write("\n".join(others) + "\n")
    return image, bool(decoder)


_LIBJPEG_DAMAGE = ("Corrupt JPEG data", "Premature end of JPEG file")
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
