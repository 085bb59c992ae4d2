"""Vehicles: hull footprints as oriented rectangles, found by segmenting a coarse table view.

A vehicle is the one big solid thing on a mat: at 2.5 px/cm a 20 cm tank is 50 px, so a
colour-distance mask from the mat, opened with a kernel wider than any base or wall, leaves
hulls (and big terrain, which the shape test mostly rejects). The blob is the union of the
footprint and the roof, the roof pushed away from the camera's nadir by parallax; the sides of
the blob facing the nadir are footprint edges, the far sides are pulled back by the parallax
of an assumed hull height.
"""

from __future__ import annotations

import cv2
import numpy as np

from models.detections import Bases, Vehicles

PX_PER_CM = 2.5
HULL_HEIGHT_CM = 4.5
SHADOW_LIGHTNESS_WEIGHT = 0.15
LENGTH_CM = (10.0, 36.0)
WIDTH_CM = (4.0, 20.0)


def _foreground(small: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    valid = small.max(-1) > 0
    mat = np.median(lab[valid], axis=0) if valid.any() else np.zeros(3)
    diff = lab - mat
    # A shadow is the mat made darker, hue kept: darkening alone counts for little, so the
    # vehicle's shadow does not widen its footprint.
    light = np.where(diff[..., 0] < 0, SHADOW_LIGHTNESS_WEIGHT, 0.5) * diff[..., 0]
    dist = np.sqrt(light**2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
    threshold = max(14.0, 3.0 * float(np.median(dist[valid]))) if valid.any() else 14.0
    return ((dist > threshold) & valid).astype(np.uint8) * 255


def _footprint(extent: tuple[float, float], nadir: float, scale: float) -> tuple[float, float]:
    """Undo the roof's parallax on one axis: near-side extremes are footprint, far ones roof."""
    low, high = extent
    low = low if low >= nadir else nadir + (low - nadir) / scale
    high = high if high <= nadir else nadir + (high - nadir) / scale
    return low, high


def foreground(rect: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Not-the-mat mask of the rectified table at PX_PER_CM (computed once per frame)."""
    f = PX_PER_CM / (10 * px_per_mm)
    return _foreground(cv2.resize(rect, None, fx=f, fy=f, interpolation=cv2.INTER_AREA))


def find_vehicles(foreground_mask: np.ndarray, camera_cm: np.ndarray, bases: Bases) -> Vehicles:
    """Hull footprints in the foreground, with the found bases (and what stands on them) cut out."""
    mask = foreground_mask.copy()
    for (x, y), d in zip(bases.xy_cm, bases.diameter_mm, strict=True):
        cv2.circle(mask, (round(x * PX_PER_CM), round(y * PX_PER_CM)), round(d / 20 * PX_PER_CM * 1.4), 0, -1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (round(3.5 * PX_PER_CM),) * 2)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    scale = camera_cm[2] / (camera_cm[2] - HULL_HEIGHT_CM)
    found = []
    for i in range(1, count):
        if stats[i, cv2.CC_STAT_AREA] < LENGTH_CM[0] * WIDTH_CM[0] * PX_PER_CM**2:
            continue
        ys, xs = np.nonzero(labels == i)
        pts = (np.column_stack([xs, ys]).astype(np.float32) + 0.5) / PX_PER_CM
        _, (w, h), angle = cv2.minAreaRect(pts)
        if len(pts) / PX_PER_CM**2 < 0.7 * w * h:
            continue
        heading = angle if w >= h else angle + 90
        t = np.radians(heading)
        axes = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])
        proj = pts @ axes.T
        nadir = axes @ camera_cm[:2]
        along = _footprint((proj[:, 0].min(), proj[:, 0].max()), nadir[0], scale)
        across = _footprint((proj[:, 1].min(), proj[:, 1].max()), nadir[1], scale)
        length, width = along[1] - along[0], across[1] - across[0]
        if (
            not (LENGTH_CM[0] <= length <= LENGTH_CM[1] and WIDTH_CM[0] <= width <= WIDTH_CM[1])
            or length < 1.3 * width
        ):
            continue
        centre = axes.T @ np.array([sum(along) / 2, sum(across) / 2])
        found.append((centre, length, width, heading % 180, min(1.0, len(pts) / PX_PER_CM**2 / (w * h))))
    if not found:
        return Vehicles.empty()
    return Vehicles(
        np.array([f[0] for f in found]),
        np.array([f[1] for f in found]),
        np.array([f[2] for f in found]),
        np.array([f[3] for f in found]),
        np.array([f[4] for f in found]),
    )
