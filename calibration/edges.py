"""Marker corners from straight-line fits along the four edges of the black square.

A corner point is the weakest feature of a marker: blur rounds it, glare eats it, and corner
refinement looks at a few pixels only. An edge is a long straight step between black ink and
white paper: locating the step at hundreds of places along it and fitting a line averages the
noise down, and the step's mid-level crossing does not move under symmetric blur. Corners are
then intersections of adjacent edge lines. With intrinsics the edge points are undistorted
before fitting, so the lines are straight even near the frame's edges.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

# Stay clear of the corners (rounded by blur) and of the inner border cell edge.
EDGE_SPAN = (0.1, 0.9)
PROFILE_CELLS = 0.55
MIN_CONTRAST = 25.0
MIN_VALID_FRACTION = 0.4


def _edge_points(
    gray: np.ndarray, start: np.ndarray, end: np.ndarray, outward: np.ndarray, half_width: float
) -> np.ndarray:
    """Sub-pixel points of the ink-to-paper step along the edge, one per pixel of its length.

    Each profile across the edge is normalised between its ink and paper levels; the step sits
    where the area under the normalised profile says it does. That position is exact for an
    area-sampled step and unchanged by any symmetric blur, unlike a mid-level crossing, which
    is biased by up to a tenth of a pixel when an edge runs along the pixel grid.
    """
    length = np.linalg.norm(end - start)
    t = np.linspace(*EDGE_SPAN, max(int(length), 8))
    along = start + np.outer(t, end - start)
    steps = np.linspace(-half_width, half_width, max(int(4 * half_width), 8) + 1)
    coords = along[:, None, :] + steps[None, :, None] * outward
    profiles = cv2.remap(
        gray,
        coords[..., 0].astype(np.float32),
        coords[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    quarter = max(len(steps) // 4, 1)
    ink = np.median(profiles[:, :quarter], axis=1)
    paper = np.median(profiles[:, -quarter:], axis=1)
    contrast = paper - ink
    level = np.clip((profiles - ink[:, None]) / np.maximum(contrast, 1.0)[:, None], 0.0, 1.0)
    # One clean step only: a hand, a shadow edge or a glare spot makes a profile cross twice.
    crossings = np.count_nonzero(np.diff(level > 0.5, axis=1), axis=1)
    valid = (contrast > MIN_CONTRAST) & (crossings == 1)
    area = (level[:, 1:] + level[:, :-1]).sum(axis=1) / 2 * (steps[1] - steps[0])
    offset = steps[-1] - area
    return (along + offset[:, None] * outward)[valid]


def _fit_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Total-least-squares line (point, unit direction) with iterative outlier trimming."""
    keep = np.ones(len(points), bool)
    for _ in range(4):
        if keep.sum() < 6:
            return None
        centre = points[keep].mean(0)
        _, _, vt = np.linalg.svd(points[keep] - centre, full_matrices=False)
        direction, normal = vt[0], vt[1]
        residual = (points - centre) @ normal
        spread = 1.4826 * np.median(np.abs(residual[keep]))
        keep = np.abs(residual) < max(3.0 * spread, 0.1)
    return centre, direction


def _intersect(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    (pa, da), (pb, db) = a, b
    matrix = np.column_stack([da, -db])
    s, _ = np.linalg.solve(matrix, pb - pa)
    return pa + s * da


def refine_by_edges(
    gray: np.ndarray,
    corners: np.ndarray,
    bits: int,
    undistort: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray | None:
    """Corners (4, 2) from line fits to the square's edges; None when an edge cannot be fitted.

    `corners` are approximate raw-image corners (OpenCV order); the result is in undistorted
    pixels when `undistort` is given, raw pixels otherwise.
    """
    corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    centre = corners.mean(0)
    side = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean()
    half_width = max(PROFILE_CELLS * side / (bits + 2), 2.0)
    lines = []
    for k in range(4):
        start, end = corners[k], corners[(k + 1) % 4]
        direction = (end - start) / np.linalg.norm(end - start)
        outward = np.array([direction[1], -direction[0]])
        if outward @ (start + end - 2 * centre) < 0:
            outward = -outward
        points = _edge_points(gray, start, end, outward, half_width)
        expected = max(int(np.linalg.norm(end - start)), 8)
        if len(points) < MIN_VALID_FRACTION * expected:
            return None
        if undistort is not None:
            points = undistort(points)
        line = _fit_line(points)
        if line is None:
            return None
        lines.append(line)
    # Corner k lies where the edge ending at it (k-1 -> k) meets the edge starting at it (k -> k+1).
    refined = np.array([_intersect(lines[(k - 1) % 4], lines[k]) for k in range(4)])
    reference = undistort(corners) if undistort is not None else corners
    if np.abs(refined - reference).max() > max(0.1 * side, 3.0):
        return None
    return refined
