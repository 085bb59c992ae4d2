"""Hull-sized blobs of the coarse masks: the rectangles the vehicle stage measures.

A blob that is no hull but dents in deeply on two sides of a short neck is two things touching
(a hull against a building of its colour, an arm, a ringed patch of the mat) and is cut across
the neck once; a piece whose inside is the ground around it darkened is a tall thing's shadow,
cut off the thing; two pieces of one paint with an arm across the gap between them are one hull.
"""

from __future__ import annotations

import cv2
import numpy as np

from models.detections import Bases
from models.hull_colour import colour_distance, shading_free, shadowed
from models.hull_shape import LENGTH_CM, WIDTH_CM, Blob, axes_of
from models.hull_view import PX_PER_CM, ROOF_JOIN, TableView

OPENING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (round(3.5 * PX_PER_CM),) * 2)  # off thin things
SAME_PAINT_OPENING = ROOF_JOIN  # 2 cm: off the speckle of a paint's colour mask
PARALLAX_SLACK_CM = 4.0  # a blob is the footprint grown by its roof's parallax
SPLITS = 1  # a blob of two things touching is cut in two (more cuts found no more hulls)
SPLIT_MAX_AREA_CM2 = 1500.0  # two hulls' worth; larger blobs are the mat's own patches
SPLIT_DEPTH_CM = 2.5  # a dent this deep in an outline is where two things meet (ragged edges are shallower)
SPLIT_NECK_CM = WIDTH_CM[1] + PARALLAX_SLACK_CM  # the cut between two dents: at most a hull's width
GROUND_RING_CM = 1.5  # the ground around a piece, past its own shadow's blur
SAME_BLOB_CM = 0.5  # one blob found in two masks
PIECE_CM2 = 12.0  # a piece of a hull seen beside an arm lying across it
SAME_PAINT = 0.12  # shading-free colour distance (lightness weighted) within one hull's paint
COVERED = 0.9  # share of the gap between two such pieces that something unlike the mat covers


def coarse_blobs(view: TableView, bases: Bases, masks: int) -> list[Blob]:
    """Hull-sized solid blobs of the first `masks` masks (one seen in two is kept once)."""
    found: list[Blob] = []
    for mask in view.masks[:masks]:
        for blob in _mask_blobs(mask, bases, view.off_table):
            if not any(_same_blob(blob, other) for other in found):
                found.append(blob)
    return found


def _same_blob(blob: Blob, other: Blob) -> bool:
    return bool(
        np.linalg.norm(blob.centre_cm - other.centre_cm) < SAME_BLOB_CM
        and np.all(np.abs(blob.size_cm - other.size_cm) < SAME_BLOB_CM)
    )


def _mask_blobs(mask: np.ndarray, bases: Bases, off_table: np.ndarray) -> list[Blob]:
    mask = _without_bases(mask, bases)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, OPENING)
    found: list[Blob] = []
    _collect(mask, off_table, found, SPLITS)
    return found


def _without_bases(mask: np.ndarray, bases: Bases) -> np.ndarray:
    mask = mask.copy()
    for (x, y), d in zip(bases.xy_cm, bases.diameter_mm, strict=True):
        cv2.circle(mask, (round(x * PX_PER_CM), round(y * PX_PER_CM)), round(d / 20 * PX_PER_CM * 1.4), 0, -1)
    return mask


def occluded_blobs(view: TableView, bases: Bases, found: list[tuple]) -> list[Blob]:
    """Hulls an arm lies across: two pieces of one paint with something unlike the mat between.

    An arm across a hull's middle cuts it in two, neither a hull's shape, and joins the
    pieces to itself in the plain mask, which then reaches the table's edge. A piece is a
    component of the cut mask (not closed: the cut along the arm's edge is a pixel wide); its
    other half is sought by its paint, which the arm does not share, and the two pieces with
    the gap between them are the hull when the gap is covered (an arm, a hand, a turret of
    another colour), not bare mat. A piece of a hull found whole, half its size or less (cut
    off by the turret), is passed over.
    """
    pieces = cv2.morphologyEx(_without_bases(view.masks[1], bases), cv2.MORPH_OPEN, OPENING)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(pieces)
    unlike = view.masks[0] > 0
    reach = round((LENGTH_CM[1] + PARALLAX_SLACK_CM) * PX_PER_CM)
    blobs: list[Blob] = []
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        if area < PIECE_CM2 * PX_PER_CM**2 or _within_a_larger_hull(centroids[i], area, found):
            continue
        x0, y0 = max(0, x - reach), max(0, y - reach)
        window = (slice(y0, y + h + reach), slice(x0, x + w + reach))
        piece = labels[window] == i
        if (piece & view.off_table[window]).any():
            continue
        paint = np.median(view.coarse[window][piece], axis=0)
        same = (colour_distance(view.coarse[window] - paint) < SAME_PAINT) & ~view.off_table[window]
        same = cv2.morphologyEx(same.astype(np.uint8), cv2.MORPH_OPEN, SAME_PAINT_OPENING)
        parts, part_labels, part_stats, _ = cv2.connectedComponentsWithStats(same)
        own = np.bincount(part_labels[piece], minlength=parts).argmax()
        if own == 0:  # a piece of speckled colour has no one paint
            continue
        piece_outline = _outline(piece.astype(np.uint8))
        for j in range(1, parts):
            qx, qy, qw, qh, q_area = part_stats[j]
            if j == own or q_area < PIECE_CM2 * PX_PER_CM**2:
                continue
            other = _outline((part_labels[qy : qy + qh, qx : qx + qw] == j).astype(np.uint8))
            other += np.array([qx, qy], dtype=other.dtype)
            outline = cv2.convexHull(np.vstack([piece_outline, other]))
            pixels = cv2.contourArea(outline) + cv2.arcLength(outline, True) / 2 + 1  # Pick's theorem
            blob = _as_blob(outline, pixels, (x0, y0), cut=True)
            if blob is None or any(_same_blob(blob, b) for b in blobs):
                continue
            span = np.zeros(piece.shape, np.uint8)
            cv2.fillConvexPoly(span, outline, 1)
            gap = (span > 0) & ~piece & (part_labels != own) & (part_labels != j)
            if gap.any() and (gap & unlike[window]).sum() >= COVERED * gap.sum():
                blobs.append(blob)
    return blobs


def _within_a_larger_hull(centroid_px: np.ndarray, area_px: float, found: list[tuple]) -> bool:
    under = found_under((centroid_px + 0.5) / PX_PER_CM, found)
    return any(length * width >= 2 * area_px / PX_PER_CM**2 for _, length, width, _, _ in under)


def _outline(mask: np.ndarray) -> np.ndarray:
    """The points of a mask's outer outlines, (n, 2) pixels."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return np.vstack([c.reshape(-1, 2) for c in contours])


def _collect(
    mask: np.ndarray, off_table: np.ndarray, found: list[Blob], splits: int, origin: tuple[int, int] = (0, 0)
) -> None:
    """Hull-shaped components of the mask into `found`; one that is no hull but holds two
    convex things touching (a hull against a building, an arm or a ringed patch of the mat) is
    cut across its neck and its pieces looked at in turn (within its own box: labelling the
    whole table again for them took 2-3 ms a frame). `origin` is where `mask` lies on the table."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    for i in range(1, count):
        x, y, w, h, area = stats[i]
        if area < LENGTH_CM[0] * WIDTH_CM[0] * PX_PER_CM**2:
            continue
        own = (labels[y : y + h, x : x + w] == i).astype(np.uint8)
        x, y = x + origin[0], y + origin[1]
        # The outline holds every extreme point of the blob, so it alone is measured.
        outline, _ = cv2.findContours(own, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        blob = _as_blob(outline[0], area, (x, y), splits < SPLITS)
        if blob is not None and not (own.astype(bool) & off_table[y : y + h, x : x + w]).any():
            found.append(blob)  # a hull stands wholly on the table; arms reach in over its edge
        elif blob is None and splits and area <= SPLIT_MAX_AREA_CM2 * PX_PER_CM**2:
            cut = _neck(outline[0])
            if cut is not None:
                cv2.line(own, *cut, 0, 2)
                _collect(own, off_table, found, splits - 1, (x, y))


def _as_blob(outline: np.ndarray, area: float, corner: tuple[int, int], cut: bool) -> Blob | None:
    """The blob of a component's outline (coarse pixels), or None when no hull is its size and shape."""
    pts = ((outline[:, 0] + corner).astype(np.float32) + 0.5) / PX_PER_CM
    _, size, angle = cv2.minAreaRect(pts)
    fill = area / PX_PER_CM**2 / max(size[0] * size[1], 1e-9)
    long, short = max(size), min(size)
    if (
        fill < 0.7
        or not LENGTH_CM[0] * 0.9 <= long <= LENGTH_CM[1] + PARALLAX_SLACK_CM
        or not WIDTH_CM[0] * 0.9 <= short <= WIDTH_CM[1] + PARALLAX_SLACK_CM
        or long < 1.1 * short
    ):
        return None
    heading = angle if size[0] >= size[1] else angle + 90
    axes = axes_of(heading)
    proj = pts @ axes.T
    extent = np.array([[proj[:, 0].min(), proj[:, 0].max()], [proj[:, 1].min(), proj[:, 1].max()]])
    return Blob(heading, axes, extent, min(1.0, fill), cut)


def _neck(outline: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The shortest cut between two deep dents in an outline: where two convex things touch.

    A hull, a building and a hand are each near convex, so where two of them touch the outline
    of the pair dents in on both sides of the join; the segment between the dents' deepest
    points separates them. None when fewer than two dents are deep enough.
    """
    try:
        hull = cv2.convexHull(outline, returnPoints=False)
        defects = cv2.convexityDefects(outline, hull)
    except cv2.error:  # an outline that turns back on itself
        return None
    if defects is None:
        return None
    deep = defects[defects[:, 0, 3] >= SPLIT_DEPTH_CM * PX_PER_CM * 256, 0, 2]
    if len(deep) < 2:
        return None
    points = outline[deep, 0].astype(np.float64)
    gaps = np.linalg.norm(points[:, None] - points[None], axis=-1)
    gaps[np.diag_indices(len(points))] = np.inf
    a, b = np.unravel_index(np.argmin(gaps), gaps.shape)
    if gaps[a, b] > SPLIT_NECK_CM * PX_PER_CM:
        return None
    return tuple(map(int, points[a])), tuple(map(int, points[b]))


def found_under(centre: np.ndarray, found: list[tuple]) -> list[tuple]:
    """The hulls found whose footprints hold a point (table cm)."""
    under = []
    for hull in found:
        xy, length, width, heading, _ = hull
        r = axes_of(heading) @ (centre - xy)
        if abs(r[0]) < length / 2 and abs(r[1]) < width / 2:
            under.append(hull)
    return under


def ground_in_shadow(view: TableView, blob: Blob) -> bool:
    """Whether a blob's inside is the ground around it darkened: a tall thing's shadow, cut off
    the thing it falls from (the ground is sampled in a ring a centimetre or two outside)."""
    cm_per_px = 1 / (10 * view.px_per_mm)
    (a0, a1), (c0, c1) = blob.extent
    grid = np.mgrid[-1:1:12j, -1:1:12j].reshape(2, -1).T  # (144, 2) in half-sizes
    half = np.array([(a1 - a0) / 2, (c1 - c0) / 2])
    centre = np.array([(a0 + a1) / 2, (c0 + c1) / 2])
    inside = centre + 0.6 * grid * half
    ring = grid[np.abs(grid).max(axis=1) > 0.99]
    outside = centre + ring * (half + GROUND_RING_CM)
    colours = []
    for pts in (inside, outside):
        px = ((pts @ blob.axes) / cm_per_px - 0.5).astype(np.float32)
        sample = cv2.remap(view.rect, px[:, None, 0], px[:, None, 1], cv2.INTER_LINEAR)
        colours.append(np.median(shading_free(sample)[:, 0], axis=0))
    return shadowed(colours[1], colours[0])
