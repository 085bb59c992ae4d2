"""A user's video file opened with OpenCV by whatever bytes its name is made of.

OpenCV takes a file name as UTF-8 and dies (a segmentation fault, no word at all) of one that is
not, as a Latin-1 name copied off an older system's stick is. Such a file is handed to it by the
name Linux gives this process's open descriptor of it, which OpenCV opens for itself. Both the
lens calibration's board sweep and a game's video come through here.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2


def open_video(path: Path) -> cv2.VideoCapture:
    try:
        str(path).encode()
    except UnicodeEncodeError:
        descriptor = os.open(path, os.O_RDONLY)
        try:
            return cv2.VideoCapture(f"/proc/self/fd/{descriptor}")
        finally:
            os.close(descriptor)
    return cv2.VideoCapture(str(path))
