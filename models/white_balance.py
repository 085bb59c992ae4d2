"""The light's colour, read off the white paper of the calibration markers, divided out.

The rim verifier and the miniature test learned their colours from tables lit in white light.
A warm lamp, a cold window or a camera's own white balance shifts every colour of the frame
the same way, and on the validation tables a 20 % red/blue cast cost 2 % of the bases. Every
table has its marker sheets, printed on white paper, so their colour is the light's colour:
scaling the channels until the paper is grey brings such a frame back to what the detector
knows. A frame already neutral is left untouched.
"""

from __future__ import annotations

import cv2
import numpy as np

PAPER_SHARE = 0.3  # the brightest share of a sheet's pixels: its white bits and margin
INSIDE = 0.53  # half-width of the box read around a marker, in marker sides: on paper at any turn
MIN_WHITE = 40.0  # a sheet darker than this (in shadow, under a hand) says nothing of the light
MAX_GAIN = 1.5  # past this the "paper" is something else (a coloured sheet, a hand)
NEUTRAL = 0.03  # gains closer to 1 than this are left alone


def paper_white(rect: np.ndarray, px_per_mm: float, squares: list[np.ndarray]) -> np.ndarray | None:
    """The median BGR of the markers' white, or None when no sheet is seen well enough."""
    scale = 10 * px_per_mm
    height, width = rect.shape[:2]
    whites = []
    for corners in squares:
        centre = corners.mean(0) * scale
        half = INSIDE * np.linalg.norm(corners[1] - corners[0]) * scale
        x0, y0 = np.maximum(np.floor(centre - half).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(centre + half).astype(int), [width, height])
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        pixels = rect[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32)
        brightness = pixels.sum(1)
        white = np.median(pixels[brightness >= np.quantile(brightness, 1 - PAPER_SHARE)], axis=0)
        if white.min() >= MIN_WHITE:
            whites.append(white)
    return np.median(whites, axis=0) if whites else None


def balanced(rect: np.ndarray, px_per_mm: float, squares: list[np.ndarray]) -> np.ndarray:
    """`rect` with its channels scaled so that the markers' paper is grey."""
    white = paper_white(rect, px_per_mm, squares)
    if white is None:
        return rect
    gains = white.mean() / white
    if np.abs(gains - 1).max() < NEUTRAL or gains.max() > MAX_GAIN or gains.min() < 1 / MAX_GAIN:
        return rect
    return cv2.transform(rect, np.diag(gains))  # saturating, in one pass
