"""What a camera hands over, made the BGR picture every frame is (see `hardware.source.Frame`).

OpenCV and picamera2 give whatever the camera's pixel format makes: a monochrome camera grey
frames, a 32-bit format four channels, a format OpenCV cannot convert its raw buffer as one row.
The detector and the recording's JPEG encoder only take 8-bit colour, and met the rest with a
traceback from deep inside them.
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.errors import CameraFault

CONVERSIONS = {1: cv2.COLOR_GRAY2BGR, 4: cv2.COLOR_BGRA2BGR}


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A grey or BGRA picture converted to BGR; anything else as it came, for `check_picture`
    (or a reconnecting source, which drops it) to judge."""
    if isinstance(image, np.ndarray) and image.dtype == np.uint8 and min(image.shape[:2], default=0) > 1:
        channels = 1 if image.ndim == 2 else image.shape[2] if image.ndim == 3 else 0
        if channels in CONVERSIONS:
            return cv2.cvtColor(image, CONVERSIONS[channels])
    return image


def check_picture(image: object, description: str) -> None:
    """A frame that is no 8-bit colour picture (a raw buffer, 16-bit or float samples) is a fault
    of the camera's pixel format, said as one."""
    if (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
            and image.shape[2] == 3 and min(image.shape[:2]) > 1):
        return
    came = (f"{'x'.join(map(str, image.shape))} {image.dtype}" if isinstance(image, np.ndarray)
            else type(image).__name__)
    raise CameraFault(
        f"{description} delivered a frame that is not a colour picture ({came})",
        "set the camera to an 8-bit colour format (MJPG or YUYV for a USB camera), or use another camera",
    )
