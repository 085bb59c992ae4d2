"""Where a lens file's distortion model stops being a lens.

OpenCV's distortion polynomials describe a lens over the part of the picture its board covered.
Past that a strong term can take over and bend the rays back towards the centre: the model
folds, and beyond the fold it sends no ray at all. A marker seen there cannot have come through
that lens. Undistorting its pixel still returns a number, so a lens file with k1 -5 fitted the
markers to 0.87 mm and `detect` lost half the bases on a mere warning.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

DIRECTIONS = 72
# How far past the fold a marker may lie, as a share of the fold's distance from the axis: the
# outline is traced at 72 points and cuts corners between them, and a right lens model that folds
# just past the outer markers (the detection benchmark's barrel lenses) still places them.
FOLD_TOLERANCE = 0.05
# Ideal (pinhole) distances from the axis, in focal lengths: out to 85 degrees, past the widest
# view a lens file may give, finely near the axis where the wildest terms fold.
RAYS = np.geomspace(1e-4, np.tan(np.radians(85.0)), 1000)


@dataclass(frozen=True)
class Reach:
    """The outline, in raw pixels, where each direction's rays turn back (or end unfolded)."""

    outline: np.ndarray
    folds: bool
    centre: tuple[float, float]

    def beyond(self, pixels: np.ndarray) -> np.ndarray:
        """Which raw pixels lie clearly past the fold, where no ray through this lens lands."""
        pixels = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        if not self.folds:
            return np.zeros(len(pixels), dtype=bool)
        centre = np.asarray(self.centre)
        grown = centre + (self.outline - centre) * (1 + FOLD_TOLERANCE)
        contour = grown.astype(np.float32).reshape(-1, 1, 2)
        return np.array([cv2.pointPolygonTest(contour, (float(x), float(y)), False) < 0
                         for x, y in pixels], dtype=bool)

    def fold_px(self) -> float:
        """The nearest the fold comes to the principal point."""
        return float(np.min(np.linalg.norm(self.outline - self.centre, axis=1)))


def reach_of(K: np.ndarray, dist: np.ndarray) -> Reach:
    """Trace rays outwards in each direction through the model until their pixel stops moving
    away from the principal point."""
    angles = np.linspace(0.0, 2 * np.pi, DIRECTIONS, endpoint=False)
    along = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    ideal = along[:, None, :] * RAYS[None, :, None]
    rays = np.concatenate([ideal.reshape(-1, 2), np.ones((ideal.shape[0] * ideal.shape[1], 1))], axis=1)
    raw, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), K, dist)
    raw = raw.reshape(DIRECTIONS, len(RAYS), 2)
    centre = np.asarray(K[:2, 2], dtype=np.float64)
    out = np.linalg.norm(raw - centre, axis=2)
    outward = np.diff(out, axis=1) > 0
    ends = np.where(outward.all(axis=1), len(RAYS) - 1, np.argmin(outward, axis=1))
    outline = raw[np.arange(DIRECTIONS), ends]
    return Reach(outline, bool(not outward.all()), (float(centre[0]), float(centre[1])))


def past_fold(K: np.ndarray, dist: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """Which ideal (undistorted) pixels lie clearly past where the model turns back on their own
    ray. No raw pixel undistorts to them: a calibration file that puts its markers there (its lens
    edited after it was made) maps every pixel through a lens that could never have shown them.
    Traced along each point's ray, not the outline: past the fold the model folds the point back
    to a raw pixel inside it, where `Reach.beyond` sees nothing wrong."""
    ideal = np.asarray(ideal, dtype=np.float64).reshape(-1, 2)
    normalised = (np.hstack([ideal, np.ones((len(ideal), 1))]) @ np.linalg.inv(K).T)[:, :2]
    radius = np.linalg.norm(normalised, axis=1)
    along = normalised / np.maximum(radius, RAYS[0])[:, None]
    # Each ray traced out to the point's own distance less the tolerance, held there beyond it.
    out_to = np.minimum(RAYS[None, :], radius[:, None] / (1 + FOLD_TOLERANCE))
    ideal_rays = along[:, None, :] * out_to[:, :, None]
    rays = np.concatenate([ideal_rays.reshape(-1, 2), np.ones((ideal_rays.size // 2, 1))], axis=1)
    raw, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), K, dist)
    out = np.linalg.norm(raw.reshape(len(ideal), len(RAYS), 2) - K[:2, 2], axis=2)
    return (np.diff(out, axis=1) < 0).any(axis=1)
