"""The image-to-table homography, fitted to every visible marker corner and robust to a bad marker.

One marker that is misplaced, knocked askew or confused with another copy would tilt a plain
least-squares fit across the whole table. Markers are therefore judged as wholes: when the
markers disagree, the smallest set of markers whose removal leaves the others agreeing to
a fraction of a millimetre, and which themselves sit millimetres off the others' fit, is
dropped. Disagreement that no removal explains (an uncorrected wide lens bends every marker)
keeps every marker: dropping good ones would only trade interpolation for extrapolation.
At least 3 markers always remain, so two bad markers cannot outvote two good ones.
The fit minimises reprojection error in the image, where the measurement noise lives.

Where the camera's K is known (or can be read off the markers), markers are judged by a camera
pose rather than a homography. A homography has 8 unknowns, so three markers (12 corners)
nearly determine it and any three agree; predicting the fourth from them then magnifies
corner noise 10-40 times. On a path-traced table whose corners were ~0.9 mm apart, every one
of the four markers sat 8-34 mm off the others' homography, and a good marker was dropped:
its corner of the table then measured 2-3 cm wrong. A pose has 6 unknowns and predicts the
fourth marker within its corners' noise, while a marker that really moved stays off by what
it moved.

With K measured (the lens calibrated, the pixels undistorted) the table's homography itself
is the pose's, K [r1 r2 t], for the same reason: from three markers the free homography put a
path-traced table's far corner 1-5 mm off (validation tables 351,001 and 351,009: median 1.94
and 0.88 mm over the table), the pose 0.11 and 0.16 mm; with all four markers the two agree.
Should K not fit this camera (the pose leaves the markers clearly further off than the free
fit does: 5 % off in focal length, at 8 degrees of tilt), the free homography is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations

import cv2
import numpy as np

from calibration.pose import fit_pose

# Markers agreeing to this (worst marker RMS) need no judging.
CONSISTENT_MM = 0.5
# A marker predicted from the others this far off (and well beyond their own spread) is misplaced.
MISPLACED_MM = 3.0
MISPLACED_RATIO = 6.0
# A set leaving out a marker that far off explains the disagreement only if it agrees nearly as
# well as the best-agreeing set of its size: a marker moved 4 mm among six and one left out only
# 2 mm off agree about alike (0.346 and 0.339 mm), while a blurred marker's set agreed 3.5 times
# better than the one that found a sharp marker across the table misplaced.
NEARLY_AS_WELL = 1.25
# With K known, a single corner this far off the pose of all the others (and well beyond their
# typical residual) was measured on something else: an object over that edge of the marker.
STRAY_CORNER_MM = 2.0
# A measured K whose pose leaves the worst marker further off than this share of the free
# fit's, plus this much, is not this camera's (another zoom or focus): the free homography is used.
POSE_MISFIT_RATIO = 1.5
POSE_MISFIT_MM = 0.1
MIN_CORNERS = 8  # corners that always remain (two markers' worth)
# Every edge of every marker may be measured this far outward or inward of the layout's square
# (see `grown_corners`); more is something else.
MAX_EDGE_OFFSET_CM = 0.3
OFFSET_ROUNDS = 2
NO_OFFSET = np.zeros(3)


@dataclass(frozen=True)
class HomographyFit:
    """Image (undistorted px) -> table cm, the markers it trusts and those it threw out."""

    image_to_table: np.ndarray
    used_ids: list[int]
    rejected_ids: list[int]
    corner_residuals_mm: dict[int, np.ndarray]
    corners: dict[int, np.ndarray]  # the image corners fitted (a stray corner is NaN, unmeasured)
    stray_ids: list[int]  # markers with a corner left out as stray
    # How far out of the layout's squares the markers' edges were measured (`grown_corners`).
    edge_offset_cm: np.ndarray = field(default_factory=lambda: NO_OFFSET.copy())


def apply(H: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    mapped = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return mapped[:, :2] / mapped[:, 2:3]


def _measured_corners(
    image_pts: dict[int, np.ndarray], table_pts: dict[int, np.ndarray], ids: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """(table cm, image px) of the markers' corners that were measured (a corner whose edges
    could not be measured is NaN)."""
    src = np.concatenate([table_pts[i] for i in ids])
    dst = np.concatenate([image_pts[i] for i in ids])
    seen = np.isfinite(dst).all(axis=1)
    return src[seen], dst[seen]


def _fit(image_pts: dict[int, np.ndarray], table_pts: dict[int, np.ndarray], ids: list[int]) -> np.ndarray:
    src, dst = _measured_corners(image_pts, table_pts, ids)
    table_to_image, _ = cv2.findHomography(src, dst, 0)
    if table_to_image is None:
        raise np.linalg.LinAlgError("degenerate marker geometry")
    H = np.linalg.inv(table_to_image)
    return H / H[2, 2]


def _pose_fit(
    image_pts: dict[int, np.ndarray], table_pts: dict[int, np.ndarray], ids: list[int], K: np.ndarray
) -> np.ndarray:
    """Image -> table of the camera pose (undistorted pixels, known K) that best explains `ids`."""
    rvec, tvec = fit_pose(*_measured_corners(image_pts, table_pts, ids), K)
    R = cv2.Rodrigues(rvec)[0]
    H = np.linalg.inv(K @ np.column_stack([R[:, 0], R[:, 1], tvec.ravel()]))
    return H / H[2, 2]


def _marker_error_mm(
    H: np.ndarray, image_pts: dict[int, np.ndarray], table_pts: dict[int, np.ndarray], marker_id: int
) -> float:
    return float(
        np.nanmean(np.linalg.norm(apply(H, image_pts[marker_id]) - table_pts[marker_id], axis=1)) * 10
    )


def _worst_marker_rms(
    H: np.ndarray, image_pts: dict[int, np.ndarray], table_pts: dict[int, np.ndarray], ids: list[int]
) -> float:
    return max(
        float(np.sqrt(np.nanmean(np.sum((apply(H, image_pts[i]) - table_pts[i]) ** 2, axis=1)))) * 10
        for i in ids
    )


def _misplaced(
    image_pts: dict[int, np.ndarray],
    table_pts: dict[int, np.ndarray],
    K: np.ndarray | None,
    offset_of: Callable[[list[int]], np.ndarray],
) -> list[int]:
    """The smallest set of markers whose removal explains the disagreement, or none.

    Each set kept is fitted with its own edge offset (`offset_of`): a marker moved or turned
    would skew one measured over all of them. Of the sets of one size whose markers agree, one
    leaving out a marker far off explains it only if it agrees nearly as well as the best: where
    the best leaves its markers out only a little off, they are inexact (a blurred marker's
    corners), not moved. Three markers always agree fairly well, so a blurred one among them can
    bend the fit until a sharp one across the table looks misplaced (9 mm off, the rest agreeing
    to 0.33 mm, where leaving the blurred one out agreed to 0.1 mm and found it 1.2 mm off)."""
    ids = sorted(image_pts)
    grown = grown_corners(table_pts, offset_of(ids))
    if _worst_marker_rms(_fit(image_pts, grown, ids), image_pts, grown, ids) <= CONSISTENT_MM:
        return []
    model = _fit if K is None else partial(_pose_fit, K=K)
    for count in range(1, len(ids) - 2):
        agreeing = []
        for removed in combinations(ids, count):
            kept = [i for i in ids if i not in removed]
            try:
                grown = grown_corners(table_pts, offset_of(kept))
                H = model(image_pts, grown, kept)
            except np.linalg.LinAlgError:
                continue
            spread = _worst_marker_rms(H, image_pts, grown, kept)
            if spread <= CONSISTENT_MM:
                offs = [_marker_error_mm(H, image_pts, grown, i) for i in removed]
                agreeing.append((spread, list(removed), offs))
        if not agreeing:
            continue
        best, _, best_offs = min(agreeing)
        misplaced = [
            (spread, removed) for spread, removed, offs in agreeing
            if min(offs) > max(MISPLACED_MM, MISPLACED_RATIO * spread) and spread <= NEARLY_AS_WELL * best
        ]
        if misplaced:
            return min(misplaced)[1]
        if max(best_offs) <= max(MISPLACED_MM, MISPLACED_RATIO * best):
            return []
    return []


def fit_homography(
    image_pts: dict[int, np.ndarray],
    table_pts: dict[int, np.ndarray],
    K: np.ndarray | None = None,
    stray_corners: bool = False,
    edge_offset: bool = True,
) -> HomographyFit:
    """Robust fit over the markers seen (`image_pts` ids must all be in `table_pts`); with the
    camera's `K`, markers are judged by a camera pose, and with `stray_corners` (K measured
    and the pixels undistorted, so a pose explains every good corner) single corners too, and
    the homography is the pose's. With `edge_offset`, the markers' common edge offset
    (`grown_corners`) is measured first and fitted with."""
    offsets: dict[tuple[int, ...], np.ndarray] = {}

    def offset_of(ids: list[int]) -> np.ndarray:
        """Measured once per set of markers: judging fits the set it keeps already."""
        if not edge_offset:
            return NO_OFFSET
        if tuple(ids) not in offsets:
            offsets[tuple(ids)] = _edge_offset_cm(image_pts, table_pts, ids, K if stray_corners else None)
        return offsets[tuple(ids)]

    rejected = _misplaced(image_pts, table_pts, K, offset_of)
    kept = [i for i in sorted(image_pts) if i not in rejected]
    offset = offset_of(kept)
    table_pts = grown_corners(table_pts, offset)
    if stray_corners and K is not None:
        corners = _without_stray_corners(image_pts, table_pts, kept, K)
        H = _posed(_fit(corners, table_pts, kept), corners, table_pts, kept, K)
    else:
        corners = image_pts
        H = _fit(corners, table_pts, kept)
    residuals = {}
    for i in kept:
        seen = np.isfinite(corners[i]).all(axis=1)
        residuals[i] = np.linalg.norm(apply(H, corners[i][seen]) - table_pts[i][seen], axis=1) * 10
    strays = [i for i in kept if np.isfinite(image_pts[i]).all(axis=1).sum() > len(residuals[i])]
    return HomographyFit(
        image_to_table=H,
        used_ids=sorted(kept),
        rejected_ids=rejected,
        corner_residuals_mm=residuals,
        corners=corners,
        stray_ids=strays,
        edge_offset_cm=offset,
    )


def corner_moves(corners: np.ndarray) -> np.ndarray:
    """(n, 2, 3): how each corner of a marker moves per unit of the edge offset's three terms.

    An edge with outward normal n stands n . M . n out of the layout's square, M = [[a, b],
    [b, c]] the offset (a, b, c) in cm: a c = a pure offset, the same on every edge; the rest
    a blur along one direction, which moves the edges across it and spares those along it.
    A corner goes where its two edges' moved lines meet.
    """
    centre = corners.mean(axis=0)
    following = np.roll(corners, -1, axis=0)
    along = following - corners  # edge k runs from corner k to corner k + 1
    normal = np.stack([along[:, 1], -along[:, 0]], axis=1) / np.linalg.norm(along, axis=1, keepdims=True)
    normal *= np.sign(np.einsum("ij,ij->i", normal, (corners + following) / 2 - centre))[:, None]
    terms = np.stack([normal[:, 0] ** 2, 2 * normal[:, 0] * normal[:, 1], normal[:, 1] ** 2], axis=1)
    moves = np.empty((len(corners), 2, 3))
    for k in range(len(corners)):
        before, after = k - 1, k  # the edges meeting at corner k
        meet = np.linalg.inv(np.stack([normal[before], normal[after]]))
        moves[k] = meet @ np.stack([terms[before], terms[after]])
    return moves


def grown_corners(table_pts: dict[int, np.ndarray], offset_cm: np.ndarray | float) -> dict[int, np.ndarray]:
    """Each marker's corners as measured when its edges stand `offset_cm` out of its square
    (a number: every edge alike; else the three terms of `corner_moves`).

    A camera blurs linear light and encodes it after, so in the image's levels the white paper
    spreads into the black square: an edge's centre moves about 0.8 blur sigmas inward, on
    every marker alike, and most on the edges across a motion blur (path-traced validation
    tables: 0.6-1.4 px, 1-2 mm). A print scaled to fit the page, or ink spreading on the
    paper, moves every edge alike too. The markers' centres stay, so the table's grid hardly
    moves (0.1 mm), but each marker then disagrees with the others' fit by 1-2 mm, which read
    as a bent lens.
    """
    terms = np.array([offset_cm, 0.0, offset_cm]) if np.isscalar(offset_cm) else np.asarray(offset_cm)
    return {i: corners + corner_moves(corners) @ terms for i, corners in table_pts.items()}


def _edge_offset_cm(
    image_pts: dict[int, np.ndarray], table_pts: dict[int, np.ndarray], ids: list[int], K: np.ndarray | None
) -> np.ndarray:
    """The markers' common edge offset (`grown_corners`): per term, the median over markers of
    the offset that best moves each marker's corners onto where a fit over all of them finds
    them (with a measured K, a pose's fit: with two or three markers a free homography takes
    up part of it)."""
    offset = NO_OFFSET.copy()
    for _ in range(OFFSET_ROUNDS):
        grown = grown_corners(table_pts, offset)
        try:
            H = _fit(image_pts, grown, ids) if K is None else _pose_fit(image_pts, grown, ids, K)
        except (np.linalg.LinAlgError, cv2.error):
            return NO_OFFSET.copy()
        per_marker = []
        for i in ids:
            off = apply(H, image_pts[i]) - grown[i]
            seen = np.isfinite(off).all(axis=1)
            if seen.sum() >= 2:
                moves = corner_moves(grown[i])[seen].reshape(-1, 3)
                per_marker.append(np.linalg.lstsq(moves, off[seen].reshape(-1), rcond=None)[0])
        if not per_marker:
            return NO_OFFSET.copy()
        offset = np.clip(offset + np.median(per_marker, axis=0), -MAX_EDGE_OFFSET_CM, MAX_EDGE_OFFSET_CM)
    return offset


def _posed(
    free: np.ndarray,
    image_pts: dict[int, np.ndarray],
    table_pts: dict[int, np.ndarray],
    ids: list[int],
    K: np.ndarray,
) -> np.ndarray:
    """The pose's homography over `ids`, or the `free` one where K does not fit this camera."""
    posed = _pose_fit(image_pts, table_pts, ids, K)

    def worst(H: np.ndarray) -> float:
        return _worst_marker_rms(H, image_pts, table_pts, ids)

    return posed if worst(posed) <= POSE_MISFIT_RATIO * worst(free) + POSE_MISFIT_MM else free


def _without_stray_corners(
    image_pts: dict[int, np.ndarray], table_pts: dict[int, np.ndarray], ids: list[int], K: np.ndarray
) -> dict[int, np.ndarray]:
    """The corners with the stray ones left out, worst first, each judged by the pose of the rest.

    An object lying over one edge of a marker moves that edge's two corners by millimetres and
    leaves the other two exact; with three markers in view the marker cannot be dropped
    whole (validation table 70,004: its corners 2.8 and 10.9 mm off, the others 0.3 mm; the
    table's grid 2.3 mm off in the median, 14 mm at worst).
    """
    corners = {i: image_pts[i].copy() for i in image_pts}
    while sum(int(np.isfinite(corners[i]).all(axis=1).sum()) for i in ids) > MIN_CORNERS:
        H = _pose_fit(corners, table_pts, ids, K)
        off = {i: np.linalg.norm(apply(H, corners[i]) - table_pts[i], axis=1) * 10 for i in ids}
        every = np.concatenate(list(off.values()))
        every = every[np.isfinite(every)]
        worst = max(ids, key=lambda i: np.nanmax(off[i]) if np.isfinite(off[i]).any() else -1.0)
        if np.nanmax(off[worst]) <= max(STRAY_CORNER_MM, MISPLACED_RATIO * np.median(every)):
            break
        corners[worst][np.nanargmax(off[worst])] = np.nan
    return corners
