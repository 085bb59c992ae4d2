"""What a model looks like from above: a colour histogram of its base and miniature.

Two miniatures swapped between positions in one hand move land where the other stood; only
their paint tells them apart. A hue/saturation histogram of the disc around the base is cheap,
robust to the small shifts of a re-placed model, and lighting changes move it little.
"""

from __future__ import annotations

import cv2
import numpy as np

HUE_BINS = 12
SAT_BINS = 4


def describe(image_bgr: np.ndarray, centres_px: np.ndarray, radii_px: np.ndarray) -> list[np.ndarray | None]:
    """One normalised histogram per disc; None where the disc falls off the image."""
    hsv = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2HSV)
    h, w = hsv.shape[:2]
    out: list[np.ndarray | None] = []
    for (cx, cy), r in zip(np.asarray(centres_px, float), np.asarray(radii_px, float), strict=True):
        r = max(round(float(r)), 2)
        x0, y0, x1, y1 = int(cx) - r, int(cy) - r, int(cx) + r + 1, int(cy) + r + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            out.append(None)
            continue
        patch = hsv[y0:y1, x0:x1]
        mask = np.zeros(patch.shape[:2], np.uint8)
        cv2.circle(mask, (int(cx) - x0, int(cy) - y0), r, 255, -1)
        hist = cv2.calcHist([patch], [0, 1], mask, [HUE_BINS, SAT_BINS], [0, 180, 0, 256]).ravel()
        total = hist.sum()
        out.append(hist / total if total > 0 else None)
    return out


def appearance_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Hellinger distance between two histograms: 0 identical, 1 nothing in common."""
    return float(np.sqrt(max(0.0, 1.0 - np.sum(np.sqrt(a * b)))))


def blend(old: np.ndarray | None, new: np.ndarray | None, keep: float = 0.7) -> np.ndarray | None:
    """Follow slow lighting changes without forgetting what the model looked like."""
    if old is None or new is None:
        return new if old is None else old
    mixed = keep * old + (1.0 - keep) * new
    return mixed / mixed.sum()
