"""A hull drawn straight from above on a blotchy mat, the camera's nadir beside it: pictures for
measuring one side or wall at a time, with the roof's parallax drawn exactly."""

from __future__ import annotations

import cv2
import numpy as np

TOP_DOWN_CAMERA = np.array([45.0, 10.0, 180.0])
TOP_DOWN_FOOTPRINT = (300, 500, 300, 400)


def roof_px(mm: float, nadir_cm: float) -> int:
    """Where an edge of the 4 cm roof above a footprint edge at `mm` shows, along one axis."""
    return round(nadir_cm * 10 + (mm - nadir_cm * 10) * TOP_DOWN_CAMERA[2] / (TOP_DOWN_CAMERA[2] - 4.0))


def blotchy(colour, size: tuple[int, int] = (700, 900)) -> np.ndarray:
    """A mat of one colour, its lightness varying by 6 % over blotches a few centimetres wide."""
    blot = cv2.GaussianBlur(np.random.default_rng(1).normal(0.0, 1.0, size), (0, 0), 8)
    return np.array(colour, float) * (1 + 0.06 * blot / blot.std())[..., None]
