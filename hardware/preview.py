"""The small picture for the phones' live view, from whichever source is running.

A Pi camera takes it with the frame (its "lores" stream, no CPU spent); any other source gets
the frame scaled down once here, so the web UI asks one function and never which camera it has.
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.source import Frame, FrameSource

PREVIEW_WIDTH = 640


def preview_image(source: FrameSource | None, frame: Frame, width: int = PREVIEW_WIDTH) -> np.ndarray:
    """A BGR image at most `width` pixels wide showing `frame` (`source` None: it has closed)."""
    ready = getattr(source, "preview", None)
    small = ready() if callable(ready) else None
    if small is not None:
        return small
    h, w = frame.image.shape[:2]
    if w <= width:
        return frame.image
    return cv2.resize(frame.image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
