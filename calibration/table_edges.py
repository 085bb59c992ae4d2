"""The table's own edges, where the photo shows them against what lies beyond.

Four markers in the table's corners sit at about one distance from the picture's centre, so a
lens that bends the picture radially moves them all alike, and the homography takes that up:
the markers agree while the middle of the table is measured millimetres off (path-traced
tables: 2.6 and 3.7 mm in the median with k1 -0.04 and -0.055 and no lens file). The edges
between the markers run through every distance from the centre, and a straight edge seen bent
is what a radial lens model is fitted to (`calibration.distortion.radial_from_edges`) where the
markers alone tell none.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.aruco import to_gray
from calibration.homography import apply
from calibration.layout import Layout

# Where along each side the edge is looked for (cm), and how far across it (px): the markers'
# homography misses a bent edge by the lens's sag, 3-30 px on the benchmark's lenses.
STEP_CM = 2.0
SEARCH_PX = 40.0
# Around a marker the table's edge is its paper's: left out this many marker sides from its
# centre (the quiet zone reaches 1.06).
MARKER_CLEARANCE = 1.3
# An edge is a step at least this strong (3x3 Sobel across it: about 4 times the step in grey
# levels), and a sample off the side's smooth curve by more than this (px) is something else: a
# model, a hand, a cable over the edge.
MIN_STEP = 20.0
OFF_CURVE_PX = 1.5
# A side counts with this many samples left, over this share of its free length.
MIN_SAMPLES = 12
MIN_SPAN = 0.5


def table_edges(image: np.ndarray, to_table: np.ndarray, layout: Layout) -> list[np.ndarray]:
    """Raw pixels along each side of the table that shows its edge, one (n, 2) array a side.

    `to_table` is the markers' homography from raw pixels: near enough to say where to look.
    Each sample is the strongest step across the side's direction within SEARCH_PX, to a
    tenth of a pixel; the samples off the side's smooth curve (a quadratic, as a lens bends a
    line) are dropped.
    """
    gray = to_gray(image).astype(np.float32)
    across = (cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3))
    to_image = np.linalg.inv(to_table)
    width, depth = layout.table_size_cm
    # Each marker's centre and how far from it its paper may reach the edge.
    markers = np.array(list(layout.corners_by_id.values()))  # (m, 4, 2)
    centres = markers.mean(axis=1)
    reaches = MARKER_CLEARANCE * np.linalg.norm(markers[:, 1] - markers[:, 0], axis=1)
    sides_cm = [((0, 0), (width, 0)), ((width, 0), (width, depth)), ((width, depth), (0, depth)),
                ((0, depth), (0, 0))]
    sides = []
    for start, end in sides_cm:
        start, end = np.asarray(start, np.float64), np.asarray(end, np.float64)
        along = np.arange(0.0, np.linalg.norm(end - start), STEP_CM)
        points = start + np.outer(along / np.linalg.norm(end - start), end - start)
        free = (np.linalg.norm(points[:, None] - centres[None], axis=2) > reaches).all(axis=1)
        found = _steps(across, to_image, points[free], image.shape[:2])
        kept = _on_a_curve(found)
        if len(kept) >= MIN_SAMPLES and _span(kept) >= MIN_SPAN * _span(apply(to_image, points[free])):
            sides.append(kept)
    return sides


def _steps(across: tuple[np.ndarray, np.ndarray], to_image: np.ndarray, points_cm: np.ndarray,
           shape: tuple[int, int]) -> np.ndarray:
    """The strongest step across the side at each point, in raw pixels (none where too weak,
    at the end of the search, or out of the picture)."""
    if len(points_cm) < 2:
        return np.zeros((0, 2))
    px = apply(to_image, points_cm)
    direction = np.gradient(px, axis=0)
    normal = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    offsets = np.arange(-SEARCH_PX, SEARCH_PX + 0.25, 0.5)
    where = px[:, None, :] + offsets[None, :, None] * normal[:, None, :]  # (n, m, 2)
    maps = where.astype(np.float32)
    gx = cv2.remap(across[0], maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderValue=0.0)
    gy = cv2.remap(across[1], maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderValue=0.0)
    strength = np.abs(gx * normal[:, None, 0] + gy * normal[:, None, 1])
    best = np.argmax(strength, axis=1)
    rows = np.arange(len(px))
    inside = ((where[..., 0] >= 1) & (where[..., 1] >= 1) & (where[..., 0] <= shape[1] - 2)
              & (where[..., 1] <= shape[0] - 2)).all(axis=1)
    ok = inside & (strength[rows, best] >= MIN_STEP) & (best > 0) & (best < len(offsets) - 1)
    rows, best = rows[ok], best[ok]
    left, mid, right = (strength[rows, best + d] for d in (-1, 0, 1))
    bend = left - 2 * mid + right
    shift = np.where(bend < 0, 0.5 * (left - right) / np.where(bend < 0, bend, -1.0), 0.0)
    return px[rows] + ((offsets[best] + 0.5 * shift)[:, None]) * normal[rows]


def _on_a_curve(points: np.ndarray) -> np.ndarray:
    """The samples on one smooth curve (a quadratic across the side's chord, as a lens bends a
    line): the farthest is dropped and the curve refitted until every one left lies within
    OFF_CURVE_PX. A few samples on the mat's texture pulled a curve fitted once through all
    far enough to keep them (a blind table's top side read k1 -0.42 for -0.13)."""
    keep = np.ones(len(points), bool)
    while keep.sum() >= MIN_SAMPLES:
        kept = points[keep]
        centre = kept.mean(axis=0)
        along, across = np.linalg.svd(kept - centre)[2]
        t, s = (points - centre) @ along, (points - centre) @ across
        miss = np.where(keep, np.abs(np.polyval(np.polyfit(t[keep], s[keep], 2), t) - s), -1.0)
        if miss.max() <= OFF_CURVE_PX:
            return kept
        keep[int(np.argmax(miss))] = False
    return points[:0]


def _span(points: np.ndarray) -> float:
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0))) if len(points) else 0.0
