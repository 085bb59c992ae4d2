"""Which way the bases' shadows fall, read off the bases already found.

Under a low light a base's shadow crescent and its miniature's shadow lie beside it on one
side, the same side for every base on the table, and pull a faint rim's vote peak 6-15 mm that
way (path-traced hard validation tables: half the bases with no candidate near them had their
nearest peak there). The accepted rims show the direction: the ground just outside each is
darker on its shadow side than a little further out. Each base gives the direction of that
darkening; the table's is their mean, trusted only when they agree.
"""

from __future__ import annotations

import cv2
import numpy as np

ANGLES = 32
NEAR_MM = (1.5, 2.5, 3.5, 4.5)  # past the rim: the crescent, clear of the rim's own blur
GROUND_MM = (8.0, 9.0, 10.0)  # the ground the darkening is measured against
MIN_BASES = 5
# The mean of the bases' unit directions is at least this long: on the 30 path-traced hard
# validation tables 19 passed 0.5, and on 17 of them the direction came out within 23 degrees
# of the light (77 and 78 degrees off on two where the light stood 15-19 degrees off the
# vertical and the shadows were a millimetre wide).
MIN_AGREEMENT = 0.5
LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR


def shadow_direction(
    rect: np.ndarray, centres_px: np.ndarray, radius_px: np.ndarray, px_per_mm: float
) -> np.ndarray | None:
    """The unit vector (rectified image x, y) along which shadows fall, or None when the found
    bases are too few or disagree (a light from overhead, a diffuse one)."""
    if len(centres_px) < MIN_BASES:
        return None
    angles = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False)
    around = np.stack([np.cos(angles), np.sin(angles)], 1)
    near = _ring_lightness(rect, centres_px, radius_px, NEAR_MM, px_per_mm, around).mean(axis=2)
    ground = _ring_lightness(rect, centres_px, radius_px, GROUND_MM, px_per_mm, around)
    ground = np.median(ground.reshape(len(centres_px), -1), axis=1)
    darkening = np.clip(1 - near / np.maximum(ground[:, None], 1.0), 0, None)
    pull = darkening @ around
    strength = np.linalg.norm(pull, axis=1)
    seen = strength > 0
    if seen.sum() < MIN_BASES:
        return None
    mean = (pull[seen] / strength[seen, None]).mean(axis=0)
    agreement = float(np.linalg.norm(mean))
    return mean / agreement if agreement >= MIN_AGREEMENT else None


def _ring_lightness(
    rect: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    offsets_mm: tuple[float, ...],
    px_per_mm: float,
    around: np.ndarray,
) -> np.ndarray:
    """Lightness (n bases, angles, offsets) on circles the given distances outside each rim."""
    radii = radius_px[:, None] + px_per_mm * np.asarray(offsets_mm)[None]
    pts = centres_px[:, None, None, :] + radii[:, None, :, None] * around[None, :, None, :]
    flat = pts.reshape(1, -1, 2).astype(np.float32)
    sampled = cv2.remap(rect, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return (sampled.reshape(-1, 3).astype(np.float32) @ LUMA).reshape(pts.shape[:3])
