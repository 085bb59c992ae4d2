"""The table as the vehicle stage sees it: the rectified table at full resolution and three
coarse masks at 2.5 px/cm (a 20 cm tank is 50 px), made once a frame.

The masks are the pixels unlike the mat, the same cut apart along strong edges (so a hull and an
arm's shadow across it come apart), and regions ringed by edges (a hull painted like the mat
still has an outline); the markers' grey sheets are in none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.marker_sheet import SHEET_SCALE
from models.hull_colour import (
    LIGHTNESS_WEIGHT,
    SHADOW_LIGHTNESS_WEIGHT,
    colour_distance,
    shading_free,
    shadowed,
)
from models.hull_shape import LENGTH_CM, WIDTH_CM
from models.medians import row_median

if TYPE_CHECKING:
    from models.hull_map import HullMap

# Coarse masks at PX_PER_CM.
PX_PER_CM = 2.5
MIN_MAT_DISTANCE = 0.12
CUT_EDGE = 0.8  # Sobel response of shading-free colour that cuts a blob apart
ROOF_EDGE = 0.4  # ... and that rings a roof
ROOF_JOIN = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))  # 2 cm: over a barrel's outline
PAPER_CHROMA = 24  # grey levels between a pixel's channels: white-balanced paper, not a sleeve
TEXTURE_ROW_STEP = 48
CHANNEL_SUM = np.ones((1, 3), np.float32)


@dataclass
class TableView:
    """The rectified table at full resolution and the coarse masks that seed the hulls."""

    rect: np.ndarray
    px_per_mm: float
    masks: tuple[np.ndarray, ...]  # at PX_PER_CM: unlike the mat, that cut along edges, ringed by edges
    texture: float  # median step of shading-free colour between neighbouring pixels (mostly mat)
    off_table: np.ndarray  # at PX_PER_CM
    mat: np.ndarray  # the mat's median shading-free colour
    mat_threshold: float  # how far from it (see is_ground) a colour is unlike the mat
    coarse: np.ndarray  # shading-free colour at PX_PER_CM, lightness weighted as in the masks
    hulls: np.ndarray | None = None  # the hull map's probability at PX_PER_CM (models/hull_map.py)


def _seen(bgr: np.ndarray) -> np.ndarray:
    """Where the rectified table shows something: it is black where the camera does not see."""
    return (bgr[..., 0] | bgr[..., 1] | bgr[..., 2]) > 0


def _foreground(
    small: np.ndarray,
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray, float, np.ndarray]:
    """The three coarse masks, the mat's colour (the median) and the threshold its spread sets."""
    inv = shading_free(small)
    valid = _seen(small)
    sample = valid[::3, ::3]  # the medians need no more than every ninth pixel
    mat = row_median(inv[::3, ::3][sample], axis=0) if sample.any() else np.zeros(3)
    # Split first: subtracting from the three-channel image was four times slower.
    light, chroma_a, chroma_b = cv2.split(inv)
    for channel, level in zip((light, chroma_a, chroma_b), mat.astype(np.float32), strict=True):
        channel -= level
    # Darkening alone (a shadow) counts for little, so the vehicle's shadow does not widen it.
    light *= np.where(light < 0, np.float32(SHADOW_LIGHTNESS_WEIGHT), np.float32(LIGHTNESS_WEIGHT))
    dist = cv2.sqrt(light * light + chroma_a * chroma_a + chroma_b * chroma_b)
    spread = float(row_median(dist[::3, ::3][sample])) if sample.any() else np.inf
    threshold = max(MIN_MAT_DISTANCE, 3.0 * spread)
    # Touching things (a hull and an arm's shadow across it) come apart along their edges.
    inv[..., 0] *= LIGHTNESS_WEIGHT
    gx, gy = cv2.Sobel(inv, cv2.CV_32F, 1, 0), cv2.Sobel(inv, cv2.CV_32F, 0, 1)
    grad = cv2.sqrt(cv2.transform(gx * gx, CHANNEL_SUM)) + cv2.sqrt(cv2.transform(gy * gy, CHANNEL_SUM))
    mask = (dist > threshold) & valid
    # Cutting also splits a hull along its turret and gun, so both versions are looked at.
    cut = mask & (grad <= CUT_EDGE)
    masks = (mask.astype(np.uint8) * 255, cut.astype(np.uint8) * 255, _enclosed(grad > ROOF_EDGE, valid))
    return masks, mat, threshold, inv


def _off_table(small: np.ndarray) -> np.ndarray:
    """Whatever the camera does not see, one pixel wide around it, and the frame of the view.

    An arm reaching in over the table's edge runs into the frame itself; a hull's roof, carried
    outward by parallax, may end a pixel short of it (0.4 cm: validation table 20,000's far end
    0.6 cm from the edge was taken for an arm while the frame was grown by a pixel too).
    """
    outside = (~_seen(small)).astype(np.uint8)
    outside = cv2.dilate(outside, np.ones((3, 3), np.uint8))
    outside[[0, -1], :] = 1
    outside[:, [0, -1]] = 1
    return outside > 0


def _enclosed(edges: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Hull-sized regions ringed by edges: a roof whose colour is the mat's still has an outline."""
    inside = (~edges & valid).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=4)
    area = stats[:, cv2.CC_STAT_AREA] / PX_PER_CM**2
    roof = (area >= LENGTH_CM[0] * WIDTH_CM[0]) & (area <= LENGTH_CM[1] * WIDTH_CM[1])
    roof[0] = False
    regions = roof[labels].astype(np.uint8) * 255
    # A gun barrel or a panel line rings its own pieces of the roof: the pieces are one hull.
    regions = cv2.morphologyEx(regions, cv2.MORPH_CLOSE, ROOF_JOIN)
    contours, _ = cv2.findContours(regions, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(regions, contours, -1, 255, cv2.FILLED)  # turret and hatches are part of it
    return cv2.dilate(regions, np.ones((3, 3), np.uint8))  # out over the ring of edge pixels


def foreground(
    rect: np.ndarray,
    px_per_mm: float,
    markers: Sequence[np.ndarray] = (),
    hull_map: HullMap | None = None,
    camera_cm: np.ndarray | None = None,
) -> TableView:
    """The table view with its coarse masks and the mat's texture (computed once per frame).

    `markers` are the calibration markers' squares (corners in table cm): their paper is no
    hull, and a hull beside a marker at the table's edge would otherwise join it into one blob
    reaching the view's frame, which is how an arm looks. With a `hull_map` (which needs the
    camera's centre) the view holds its probability too.
    """
    small = coarse_table(rect, px_per_mm)
    rows = shading_free(rect[:: TEXTURE_ROW_STEP])
    rows[..., 0] *= LIGHTNESS_WEIGHT
    step = colour_distance(np.diff(cv2.GaussianBlur(rows, (3, 1), 0), axis=1))
    lit = _seen(rect[:: TEXTURE_ROW_STEP, 1:])
    texture = float(row_median(step[lit])) if lit.any() else 0.0
    masks, mat, threshold, coarse = _foreground(small)
    paper = _paper(markers, small.shape[:2]) & _grey(small)
    masks = tuple(np.where(paper, np.uint8(0), mask) for mask in masks)
    hulls = None
    if hull_map is not None and camera_cm is not None:
        hulls = hull_map.probability(small, camera_cm, PX_PER_CM)
    return TableView(rect, px_per_mm, masks, texture, _off_table(small), mat, threshold, coarse, hulls)


def _paper(markers: Sequence[np.ndarray], shape: tuple[int, int]) -> np.ndarray:
    """The markers' sheets at PX_PER_CM: each square with its white margin (`SHEET_SCALE`, as
    the layouts print it) and the pixel its blur spreads. Only their grey pixels leave
    the masks (`_grey`): an arm reaching in over a sheet still runs into the view's frame."""
    paper = np.zeros(shape, np.uint8)
    for corners in markers:
        centre = corners.mean(axis=0)
        sheet = (centre + (corners - centre) * SHEET_SCALE) * PX_PER_CM
        cv2.fillPoly(paper, [np.round(sheet).astype(np.int32)], 1)
    return cv2.dilate(paper, np.ones((3, 3), np.uint8)) > 0


def _grey(small: np.ndarray) -> np.ndarray:
    """Colourless pixels: a marker's print and paper, where an arm lying over a sheet is not.

    The frame is white balanced on the sheets, so their paper and print differ across the
    channels by a few levels (90 % of sheet pixels by at most 16 on the validation tables);
    a pale sleeve by 40 or more. Saturation, relative to the brightest channel, is no measure
    here: a pale pink sleeve, white balanced, reads 69 of 255 (benchmark table 50,011), and
    the grain of the black print as much.
    """
    b, g, r = cv2.split(small)  # numpy's max over an axis of three took 6 ms a frame, this 0.2
    return cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r)) < PAPER_CHROMA


def coarse_table(rect: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The rectified table at PX_PER_CM, each pixel a mean of several, at a fraction of area resizing's cost.

    Area resizing by an odd factor averages every pixel but is slow; resizing linearly to twice
    the size and then halving by area (a fast whole-number case) averages enough pixels to
    keep the mat's noise below the masks' thresholds (nearest pixels alone do not: dim scenes
    lose hulls).
    """
    factor = PX_PER_CM / (10 * px_per_mm)
    h, w = rect.shape[:2]
    size = (round(w * factor), round(h * factor))
    picked = cv2.resize(rect, (2 * size[0], 2 * size[1]), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(picked, size, interpolation=cv2.INTER_AREA)


def is_ground(view: TableView, colours: np.ndarray) -> np.ndarray:
    """Which shading-free colours (n, 3) are the ground: the mat as the coarse mask measures it
    (darkening counts for little), or the mat in shadow."""
    difference = (colours - view.mat).astype(np.float32)
    light = difference[:, 0]
    light *= np.where(light < 0, np.float32(SHADOW_LIGHTNESS_WEIGHT), np.float32(LIGHTNESS_WEIGHT))
    return (colour_distance(difference) <= view.mat_threshold) | shadowed(view.mat, colours)
