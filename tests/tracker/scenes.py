"""Detection-level table scenes for tracker tests: where the pixels aren't the point."""

from __future__ import annotations

import numpy as np

from models.detections import Bases, Detections, Vehicles
from tracker.appearance import Look


def bases(*xy: tuple[float, float], diameter_mm: float = 32.0) -> Bases:
    points = np.array(xy, dtype=np.float64).reshape(-1, 2)
    return Bases(points, np.full(len(points), diameter_mm), np.full(len(points), 0.95))


def detections(*xy: tuple[float, float], diameter_mm: float = 32.0) -> Detections:
    return Detections(bases=bases(*xy, diameter_mm=diameter_mm))


def vehicles(*poses: tuple[float, float, float]) -> Vehicles:
    poses_arr = np.array(poses, dtype=np.float64).reshape(-1, 3)
    n = len(poses_arr)
    return Vehicles(poses_arr[:, :2], np.full(n, 20.0), np.full(n, 10.0), poses_arr[:, 2], np.full(n, 0.9))


def colour(hue_bin: int, bins: int = 48, lightness: float = 0.0) -> Look:
    """The look of a model painted all in one hue, `lightness` (log) lighter than the mat."""
    hist = np.full(bins, 1e-3)
    hist[hue_bin] = 1.0
    return Look(hist / hist.sum(), lightness)
