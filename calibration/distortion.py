"""Lens distortion read off the photo itself, for when no lens calibration is given.

A homography cannot bend, so an uncalibrated lens leaves millimetres of error across the
table. The markers carry some of the missing information: barrel distortion shrinks a marker
more along the radius than across it, and shrinks far markers more than near ones, so two
radial coefficients (k1, k2, centred on the image) can be fitted together with the homography
(`estimate_radial`). Four markers in the table's corners sit at about one distance from the
centre, though, and a lens that moves them alike is told by the table's own edges instead,
straight lines seen bent (`radial_from_edges`). Either is kept only when it explains what it
was fitted to; a proper `tablesight calibrate-lens` remains better (it also finds k3,
tangential terms and the true centre).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from calibration.homography import OFFSET_ROUNDS
from calibration.intrinsics import Intrinsics
from calibration.pose import centred_K

# Markers agreeing this well (worst corner, mm) leave nothing for a lens model to explain.
NEEDS_LENS_MM = 0.5
# The lens model must cut the corner residuals at least this much to be believed.
MIN_IMPROVEMENT = 3.0
# k2 is taken only where it leaves at most this share of k1 alone's residual (RMS px): four
# markers' corners barely tell the two terms apart, and 0.3-0.5 px of corner noise (blurred
# path-traced markers) let the fit trade them off for a 1-9 % better fit (k1 -0.05, k2 -0.28 in
# this module's units where the lens was -0.14, -0.01): the table 1.5-3.6 mm off in the median.
# 0.9 is where one more term explains more than chance would (an F-test at 95 %, 16 corners).
# Corners fitting k1 alone to under EXACT_CORNERS_PX are exact enough to tell k2 by any gain: the
# benchmark's painted no-K scenes (0.02-0.05 px, k2 real but worth 1-13 %) lost 0.01-0.05 mm RMS
# without it; path-traced corners fit k1 to 0.12 px at best.
SECOND_TERM_GAIN = 0.9
EXACT_CORNERS_PX = 0.1
# Where the photo shows the table's edges, they choose between k1 alone and both terms instead:
# the markers sit at about one distance from the centre, so two lenses can straighten them alike
# and bend the rest of the picture apart, while the edges run through every distance. They tell
# where one of the two leaves them within EDGE_TRUSTED_PX of straight lines (RMS; edges seen
# straightened to 0.12-0.27 px on path-traced tables, to 0.6-4.8 px where a side followed
# something else) and the other is EDGE_TELLS_PX worse. Path-traced tables with a lens from the
# markers: the edges told on 16 of 42 and overruled the markers on 4, none worse: a pincushion
# lens read as k1 -0.04, k2 +0.27 in these units (true +0.04, -0.006; 1.34 mm off in the median,
# now 0.08), a k2 fitted to noise (0.90 -> 0.09 mm) and two true k2 the markers could not tell
# from noise (0.92 -> 0.34, 0.62 -> 0.34).
EDGE_TRUSTED_PX = 0.3
EDGE_TELLS_PX = 0.05
# k1 search range in units of the reference focal length (the larger image side).
K1_BOUND = 0.6
# How far a lens may move the picture's corner, as a share of its distance from the centre: a
# lens seeing 126 degrees across moves it about a third. Markers the layout misplaces sent the
# free two-term search to k1 ~ 1e20, and the camera 1,900 km away.
MAX_CORNER_SHIFT = 0.9
# The table's edges tell a lens where it brings them this much nearer straight lines (RMS, px)
# and to at most this share of their bend, from the sides whose own k1 (in `estimate_radial`'s
# units) lies this near the median of all sides' (with two sides, each is within it of the
# other). Path-traced tables: a lens straightened the edges of 13 of 16 distorted ones by
# 0.2-1.2 px; on 37 undistorted ones (their edges' samples 0.1-0.55 px off a line) by 0.02 px at
# most.
EDGE_STRAIGHTENED_PX = 0.15
EDGE_STRAIGHTENED = 0.8
EDGE_K1_AGREE = 0.03


def _residual_px(
    radial: np.ndarray, image_pts: np.ndarray, table_pts: np.ndarray, moves: np.ndarray, lens: Intrinsics
) -> float:
    """RMS reprojection error of the best homography after undistorting with (k1, k2), the
    markers' common edge offset fitted too (`moves`: each corner's move per unit of its terms,
    `calibration.homography.corner_moves`)."""
    ideal = _bent(lens, radial).undistort(image_pts)
    design = moves.reshape(-1, 3)
    offset = np.zeros(3)
    for round_ in range(OFFSET_ROUNDS + 1):
        grown = table_pts + moves @ offset
        H, _ = cv2.findHomography(grown, ideal, 0)
        if H is None:
            return float("inf")
        if round_ < OFFSET_ROUNDS:
            back = cv2.perspectiveTransform(ideal.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
            offset = offset + np.linalg.lstsq(design, (back - grown).reshape(-1), rcond=None)[0]
    mapped = cv2.perspectiveTransform(grown.reshape(-1, 1, 2), H).reshape(-1, 2)
    return float(np.sqrt(np.mean(np.sum((mapped - ideal) ** 2, axis=1))))


def estimate_radial(
    image_pts: np.ndarray,
    table_pts: np.ndarray,
    moves: np.ndarray,
    image_size: tuple[int, int],
    sides: Sequence[np.ndarray] = (),
) -> tuple[float, float] | None:
    """(k1, k2), for a focal length equal to the larger image side, that best straighten the markers.

    k1 first (a bounded 1-D search cannot get lost), then k2 beside it, kept only where it
    clearly fits better or the corners are exact (SECOND_TERM_GAIN), or where the table's edges
    seen (`sides`, as `calibration.table_edges` gives them) want it (EDGE_TELLS_PX). None when the markers
    agree without a lens model, or the model does not explain their disagreement. Each try
    fits the markers' common edge offset too (`moves`, per corner, as `corner_moves` gives
    them): a blurred photo shrinks every marker alike, which no lens explains, and on
    path-traced tables that kept the lens from being estimated at all.
    """
    # Imported here: scipy.optimize takes ~0.6 s to import, and every `tablesight` command that
    # calibrates loads this module, most of them with a lens calibration and no search.
    from scipy.optimize import minimize, minimize_scalar

    reference = intrinsics_for((0.0, 0.0), image_size, float(max(image_size)))
    plain = _residual_px(np.zeros(2), image_pts, table_pts, moves, reference)
    k1 = minimize_scalar(
        lambda k: _residual_px(np.array([k, 0.0]), image_pts, table_pts, moves, reference),
        bounds=(-K1_BOUND, K1_BOUND),
        method="bounded",
        options={"xatol": 1e-5},
    )
    both = minimize(
        _residual_px,
        np.array([k1.x, 0.0]),
        args=(image_pts, table_pts, moves, reference),
        method="Nelder-Mead",
        options={"xatol": 1e-6, "fatol": 1e-9},
    )
    physical = _physical(both.x, image_size)
    telling = both.fun < SECOND_TERM_GAIN * k1.fun or k1.fun < EXACT_CORNERS_PX
    edges_say = _edges_want_k2(k1.x, both.x, sides, reference) if physical else None
    second = telling and both.fun < k1.fun if edges_say is None else edges_say
    best = both if physical and second else k1
    if best.fun * MIN_IMPROVEMENT > plain:
        return None
    return (float(both.x[0]), float(both.x[1])) if best is both else (float(k1.x), 0.0)


def radial_from_edges(sides: Sequence[np.ndarray], image_size: tuple[int, int]) -> tuple[float, float] | None:
    """(k1, 0), in `estimate_radial`'s units, that straightens the table's edges seen bent
    (`calibration.table_edges`), or None: fewer than two sides that agree on it, or no k1 that
    straightens them clearly (a straight edge's samples scatter, and no lens takes that away).

    Each side reads a k1 of its own; sides more than EDGE_K1_AGREE from the others' middle
    followed something else (the mat's pattern, a shadow along the edge) and are left out.
    One term: with a second, the edges' k1 and k2 trade off and the fit wandered (path-traced
    tables: 2.8 and 7 mm off where the markers' own two terms were within 0.1).
    """
    from scipy.optimize import OptimizeResult, minimize_scalar

    reference = intrinsics_for((0.0, 0.0), image_size, float(max(image_size)))

    def straightest(of: Sequence[np.ndarray]) -> OptimizeResult:
        return minimize_scalar(lambda k: _bend_px(np.array([k, 0.0]), of, reference),
                               bounds=(-K1_BOUND, K1_BOUND), method="bounded", options={"xatol": 1e-5})

    if len(sides) < 2:
        return None
    own = np.array([straightest([side]).x for side in sides])
    middle = np.median(own)
    agreeing = [side for side, k1 in zip(sides, own, strict=True) if abs(k1 - middle) <= EDGE_K1_AGREE]
    if len(agreeing) < 2:
        return None
    plain = _bend_px(np.zeros(2), agreeing, reference)
    best = straightest(agreeing)
    if plain - best.fun < EDGE_STRAIGHTENED_PX or best.fun > EDGE_STRAIGHTENED * plain:
        return None
    return float(best.x), 0.0


def _edges_want_k2(
    k1: float, both: np.ndarray, sides: Sequence[np.ndarray], reference: Intrinsics
) -> bool | None:
    """Whether the table's edges want the second term (both terms straighten them clearly
    better than k1 alone), want it left out, or cannot tell (EDGE_TRUSTED_PX, EDGE_TELLS_PX)."""
    if len(sides) < 2:
        return None
    alone = _bend_px(np.array([k1, 0.0]), sides, reference)
    with_k2 = _bend_px(both, sides, reference)
    if min(alone, with_k2) > EDGE_TRUSTED_PX or abs(alone - with_k2) <= EDGE_TELLS_PX:
        return None
    return with_k2 < alone


def _bend_px(radial: np.ndarray, sides: Sequence[np.ndarray], lens: Intrinsics) -> float:
    """RMS distance (px) of the table's edge samples, undistorted with (k1, k2), from each side's
    straight line."""
    lens = _bent(lens, radial)
    misses = []
    for side in sides:
        ideal = lens.undistort(side)
        centre = ideal.mean(axis=0)
        across = np.linalg.svd(ideal - centre)[2][1]
        misses.append((ideal - centre) @ across)
    return float(np.sqrt(np.mean(np.concatenate(misses) ** 2)))


def _bent(lens: Intrinsics, radial: np.ndarray) -> Intrinsics:
    """`lens` with the radial terms (k1, k2) tried, and no others."""
    dist = np.array([radial[0], radial[1], 0.0, 0.0, 0.0])
    return Intrinsics(K=lens.K, dist=dist, image_size=lens.image_size)


def _physical(radial: np.ndarray, image_size: tuple[int, int]) -> bool:
    """Whether (k1, k2) describe a lens: out to the picture's corner the bend keeps points in order
    (r(1 + k1 r^2 + k2 r^4) grows) and moves none by more than MAX_CORNER_SHIFT of its radius
    (beyond the corner the polynomial fits nothing and may turn anywhere). A share of the radius
    reads the same at any focal length, where a bound on k1 and k2 themselves refused lenses
    seeing 116-126 degrees across."""
    if not np.isfinite(radial).all():
        return False
    k1, k2 = radial
    corner = np.hypot(*image_size) / 2 / max(image_size)  # in the estimate's units
    r = np.linspace(0.0, corner, 64)
    shift = k1 * r**2 + k2 * r**4
    growth = 1 + 3 * k1 * r**2 + 5 * k2 * r**4
    return bool((growth > 0).all() and (np.abs(shift) <= MAX_CORNER_SHIFT).all())


def intrinsics_for(radial: tuple[float, float], image_size: tuple[int, int], focal: float) -> Intrinsics:
    """The estimated lens expressed with the given focal length (the pixel-space bend is the same)."""
    scale = (focal / max(image_size)) ** 2
    k1, k2 = radial[0] * scale, radial[1] * scale**2
    return Intrinsics(
        K=centred_K(image_size, focal), dist=np.array([k1, k2, 0.0, 0.0, 0.0]), image_size=image_size
    )
