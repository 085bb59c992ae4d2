"""Marker corners from straight-line fits along the four edges of the black square.

A corner point is the weakest feature of a marker: blur rounds it, glare eats it, and corner
refinement looks at a few pixels only. An edge is a long straight step between black ink and
white paper: locating the step at hundreds of places along it and fitting a line averages the
noise down, and the step's centre (measured by its area) does not move under symmetric blur,
defocus or motion alike. Corners are then intersections of adjacent edge lines. With
intrinsics the edge points are undistorted before fitting, so the lines are straight even near
the frame's edges. Measured against OpenCV's corner refinements in benchmarks/calibration.py.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

# Stay clear of the corners (rounded by blur) and of the inner border cell edge.
EDGE_SPAN = (0.1, 0.9)
PROFILE_CELLS = 0.55
MIN_CONTRAST = 15.0
MIN_VALID_FRACTION = 0.4
# Clipped white: a step still rising this steeply (against its steepest) when it clips is cut.
SATURATED = 250.0
CLIP_RATIO = 0.5


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
    level, contrast = _normalise(profiles, steps)
    # One clean step only: a hand, a shadow edge or a glare spot makes a profile cross twice.
    crossings = np.count_nonzero(np.diff(level > 0.5, axis=1), axis=1)
    valid = (contrast > MIN_CONTRAST) & (crossings == 1) & ~_cut_by_clipping(profiles)
    area = (level[:, 1:] + level[:, :-1]).sum(axis=1) / 2 * (steps[1] - steps[0])
    offset = steps[-1] - area
    return (along + offset[:, None] * outward)[valid]


def _cut_by_clipping(profiles: np.ndarray) -> np.ndarray:
    """Profiles whose step is cut short by clipping at white, which drags its centre inkward.

    Paper just over the sensor's white point clips only the flat top of the step (harmless);
    a glare highlight clips it while it is still rising steeply: that is what is refused.
    """
    slope = np.diff(profiles, axis=1)
    clipped = profiles[:, 1:] >= SATURATED
    first = np.argmax(clipped, axis=1)
    rows = np.arange(len(profiles))
    at_clip = slope[rows, np.maximum(first - 1, 0)]
    steepest = np.maximum(slope.max(axis=1), 1e-6)
    return clipped.any(axis=1) & (at_clip > CLIP_RATIO * steepest)


def _normalise(profiles: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Profiles scaled to 0 on the ink and 1 on the paper, and the ink-to-paper contrast.

    Glare and light falloff tilt both levels across the few pixels of a profile; a line with one
    slope and separate ink and paper offsets, fitted to the profile's two ends, takes that tilt
    out before the step is measured.
    """
    n = max(len(steps) // 4, 2)
    ink_s, paper_s = steps[:n] - steps[:n].mean(), steps[-n:] - steps[-n:].mean()
    ink_part, paper_part = profiles[:, :n], profiles[:, -n:]
    ink_mean, paper_mean = ink_part.mean(axis=1), paper_part.mean(axis=1)
    slope = ((ink_part - ink_mean[:, None]) @ ink_s + (paper_part - paper_mean[:, None]) @ paper_s) / (
        ink_s @ ink_s + paper_s @ paper_s
    )
    ink = ink_mean[:, None] + slope[:, None] * (steps[None, :] - steps[:n].mean())
    paper = paper_mean[:, None] + slope[:, None] * (steps[None, :] - steps[-n:].mean())
    contrast = paper - ink
    level = np.clip((profiles - ink) / np.maximum(contrast, 1.0), 0.0, 1.0)
    return level, contrast[:, 0]


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


def _edge_lines(
    gray: np.ndarray,
    corners: np.ndarray,
    half_width: float,
    undistort: Callable[[np.ndarray], np.ndarray] | None,
) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """One fitted line per edge k (corner k -> k+1), None where too little of the edge is usable."""
    centre = corners.mean(0)
    lines: list[tuple[np.ndarray, np.ndarray] | None] = []
    for k in range(4):
        start, end = corners[k], corners[(k + 1) % 4]
        direction = (end - start) / np.linalg.norm(end - start)
        outward = np.array([direction[1], -direction[0]])
        if outward @ (start + end - 2 * centre) < 0:
            outward = -outward
        points = _edge_points(gray, start, end, outward, half_width)
        if len(points) < MIN_VALID_FRACTION * max(int(np.linalg.norm(end - start)), 8):
            lines.append(None)
            continue
        lines.append(_fit_line(undistort(points) if undistort is not None else points))
    return lines


def _corners_from_lines(lines: list, fallback: np.ndarray) -> tuple[np.ndarray, int]:
    """Corner k where edges k-1 and k meet, the fallback corner where either edge is missing."""
    corners = fallback.copy()
    count = 0
    for k in range(4):
        before, after = lines[(k - 1) % 4], lines[k]
        if before is not None and after is not None:
            corners[k] = _intersect(before, after)
            count += 1
    return corners, count


def refine_by_edges(
    gray: np.ndarray,
    corners: np.ndarray,
    bits: int,
    undistort: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray | None:
    """Corners (4, 2) from line fits to the square's edges; None when none could be.

    `corners` are approximate raw-image corners (OpenCV order); the result is in undistorted
    pixels when `undistort` is given, raw pixels otherwise. A first pass re-centres the
    profiles on the edges (ArUco's corners can be pixels off under blur), the second measures.
    A corner whose edges cannot be measured (clipped by glare, covered) is NaN: the fit does
    better without it than with a corner point from the same damaged image.
    """
    corners = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    side = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean()
    half_width = max(PROFILE_CELLS * side / (bits + 2), 2.0)
    centred, _ = _corners_from_lines(_edge_lines(gray, corners, half_width, None), corners)
    if np.abs(centred - corners).max() > max(0.1 * side, 3.0):
        centred = corners
    reference = undistort(corners) if undistort is not None else corners
    lines = _edge_lines(gray, centred, half_width, undistort)
    refined, count = _corners_from_lines(lines, np.full_like(reference, np.nan))
    if count == 0 or np.nanmax(np.abs(refined - reference)) > max(0.1 * side, 3.0):
        return None
    return refined
