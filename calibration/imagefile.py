"""Reading the photos users hand to a command (`calibrate`, `rectify`, `detect`) or a folder
of stills (`hardware/folder.py`).

Each fails the same ways (missing, unreadable, not a picture), and each failure must be one
line naming the file and the fix, without OpenCV's own decoder warnings printed before it.
"""

from __future__ import annotations

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
    if not data.size:
        return None
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        return cv2.imdecode(data, cv2.IMREAD_COLOR)
    finally:
        cv2.utils.logging.setLogLevel(level)
