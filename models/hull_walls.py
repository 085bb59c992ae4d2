"""Buildings told from hulls by their walls.

A side facing the camera's nadir shows the wall above it as a band whose width tells the height
of the wall's first straight edge, and a building's is higher than any hull's roof. A measuring
that stopped on a building's roof finds the taller wall outside the side instead.
"""

from __future__ import annotations

import cv2
import numpy as np

from models.hull_colour import colour_distance, median_colours, sampled, shading_free, shadowed
from models.hull_shape import (
    GEAR_CM,
    MAX_ROOF_CM,
    MIN_HULL_HEIGHT_CM,
    Blob,
    nadir_distance,
    near_sides_of,
    wall_band,
)
from models.hull_sides import (
    LINE_SPREAD_PX,
    SEARCH_CM,
    WALL_SLACK_PX,
    side_offsets,
    side_profiles,
    split_slices,
)
from models.hull_view import TableView, is_ground
from models.medians import row_median

# The wall band above a near side.
TALLEST_CM = 20.0  # walls are searched for a roof edge up to this height
WALL_SKIP_CM = 0.25  # past the footprint edge's own blur
WALL_ALONG_PX = 5  # neighbouring profiles averaged (2 px apart)
WALL_DEPTH_SHARE = 0.4  # a wall's edges are sought this share of the blob's depth in
MAT_PX = 4  # the ground's colour is sampled this far outside the outline
WALL_STEP_PX = 2  # an edge is the colour step between points this far either side of it
OUTLINE_FADED = 0.3  # the outline's blur ends where its step has fallen to this share
MIN_WALL_STEP = 0.1  # shading-free log colour: a 10 % change in lightness
GRAIN_FACTOR = 4.0  # a roof edge is this many times the wall's and roof's median step
ROOF_EDGE_SEEN = 0.5  # share of profiles that must see one on one straight line
BAND_SEEN = 0.8  # ... near the nadir
END_SEEN_SHARE = 0.5  # ... and at least this share of that in each outer third of the side
FOOT_SEEN = 0.8  # share of profiles that must find a wall's foot outside a near side, in one line


def _wall_lines(
    view: TableView, blob: Blob, camera_cm: np.ndarray, axis: int, end: int, tallest_cm: float
) -> tuple[np.ndarray, float] | None:
    """Straight edges in the wall band above a near side: their bands (cm inside the footprint's
    edge, lowest first) and that edge's distance d from the nadir (cm).

    Seen from the camera, a wall facing the nadir spans from its bottom edge at distance d from
    the nadir out to d * H / (H - z) for its top at height z, so an edge a band b inside the
    outline lies at z = H * b / (d + b). An edge is a step between the colours a few pixels
    either side (a blurred frame spreads an edge, it does not weaken that step) that stands
    out of the wall's and roof's own grain, and it is straight: on one offset on most profiles,
    where grain, windows and a round turret scatter. Each profile starts on its own outline
    point, so a blob that is no rectangle (a tall box's footprint and roof joined by its
    walls) is measured where its outline really is. Lines within the outline's own blur are
    not counted; None when no wall can be seen.
    """
    cm_per_px = 1 / (10 * view.px_per_mm)
    sign = 1 if end else -1
    d = nadir_distance(blob, camera_cm, axis, end)
    # Near the nadir a low hull's roof edge hides in the outline's blur, and the first edge
    # past it may be a turret's: only a wall seen as one straight band all along counts there.
    close = wall_band(blob, camera_cm, axis, end, MIN_HULL_HEIGHT_CM) < WALL_SKIP_CM
    if wall_band(blob, camera_cm, axis, end) < 2 * WALL_SKIP_CM:
        return None
    gear = wall_band(blob, camera_cm, axis, end, GEAR_CM)
    along, outline = side_offsets(view, blob, axis, end, True, SEARCH_CM, gear)
    if len(along) < 6:
        return None
    k = WALL_STEP_PX
    # No deeper than a share of the blob across the side: past it lie a hull's turret and the
    # barrel along its centre line, straight lines as well.
    across = blob.extent[axis, 1] - blob.extent[axis, 0]
    tallest_band = wall_band(blob, camera_cm, axis, end, tallest_cm)
    deepest = min(tallest_band + 2 * WALL_SKIP_CM, WALL_DEPTH_SHARE * across)
    steps = np.arange(-k - MAT_PX, deepest / cm_per_px + k) * cm_per_px
    inward = outline[:, None] - sign * steps
    pts = along[:, None, None] * blob.axes[1 - axis] + inward[..., None] * blob.axes[axis]
    px = (pts * 10 * view.px_per_mm - 0.5).astype(np.float32)
    # Wall and roof face different ways: they differ in lightness more than in colour.
    profile = shading_free(sampled(view.rect, px))
    # Averaged along the side (an edge parallel to it keeps its step) and a little across it:
    # the log of a dark channel is noisy.
    profile = cv2.GaussianBlur(profile, (3, WALL_ALONG_PX), 0)
    mat = median_colours(profile, [(0, MAT_PX)], 1.0)[0]  # the ground just outside
    profile = profile[:, MAT_PX:]  # [:, i]: i - k px in
    step = colour_distance(profile[:, 2 * k :] - profile[:, : -2 * k])  # [:, j]: the edge j px in
    typical = row_median(step, axis=0)
    # Past the outline's own blur: down its slope to the first valley or to where it has faded.
    top = int(np.argmax(typical[: k + 1]))
    falling = (typical[top + 1 :] < typical[top:-1]) & (typical[top + 1 :] >= OUTLINE_FADED * typical[top])
    faded = top + 1 + int(np.argmin(falling)) if not falling.all() else len(typical)
    start = max(faded, round(WALL_SKIP_CM / cm_per_px))
    if start >= len(typical) - 1:
        return None
    peak = np.zeros_like(step, bool)
    peak[:, 1:-1] = (step[:, 1:-1] >= step[:, :-2]) & (step[:, 1:-1] >= step[:, 2:])
    peak[:, :start] = False
    grain = float(row_median(step[:, start:].ravel()))
    edge = peak & (step > max(MIN_WALL_STEP, GRAIN_FACTOR * grain))
    near_edge = cv2.dilate(edge.astype(np.uint8), np.ones((1, 2 * LINE_SPREAD_PX + 1), np.uint8)) > 0
    support = near_edge.mean(axis=0)
    seen = BAND_SEEN if close else ROOF_EDGE_SEEN
    # A wall's top runs the whole side; a turret's round edge, straight enough near its
    # crown to pass for a line, leaves the side's outer thirds bare.
    third = len(near_edge) // 3
    ends = np.minimum(near_edge[:third].mean(axis=0), near_edge[-third:].mean(axis=0))
    lines = np.nonzero((support >= seen) & (ends >= END_SEEN_SHARE * seen))[0]
    lines = lines[lines >= start]
    if not len(lines):
        return np.zeros(0), d
    runs = split_slices(lines, np.nonzero(np.diff(lines) > 1)[0] + 1)  # one line spans a few offsets
    bands = [int(run[np.argmax(support[run])]) for run in runs]
    # A strip that is the ground darkened (the hull's shadow, outside a footprint edge that
    # hides in it) is no wall: the lines are then counted from the shadow's inner edge.
    foot = 0
    while bands and bands[0] > foot + start:
        strip = median_colours(profile, [(foot + start + k, bands[0] + k)], 1.0)[0]
        if not shadowed(mat, strip):
            break
        foot, bands = bands[0], bands[1:]
    return (np.array(bands, dtype=np.float64) - foot) * cm_per_px, d + foot * cm_per_px


def a_building(view: TableView, blob: Blob, camera_cm: np.ndarray) -> bool:
    """Whether either wall test finds a building where the blob's roof stands."""
    walls = _walls(view, blob, camera_cm)
    return _too_tall(walls, camera_cm[2], view.px_per_mm) or _roof_over_a_tall_wall(view, blob, camera_cm)


def _walls(view: TableView, blob: Blob, camera_cm: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """The straight edges above each near side that shows its wall (see _wall_lines)."""
    sides = near_sides_of(blob, camera_cm)
    walls = [_wall_lines(view, blob, camera_cm, axis, end, TALLEST_CM) for axis, end in sides]
    return [w for w in walls if w is not None and len(w[0])]


def _too_tall(walls: list[tuple[np.ndarray, float]], camera_height_cm: float, px_per_mm: float) -> bool:
    """A building: on some near side the first straight edge above the footprint is surely
    higher than any hull's roof.

    The first edge is at most the roof (a hull's tracks or panels may come before it), and
    its band is taken WALL_SLACK_PX narrower than measured (the outline's and the edge's
    placing), so a height is never overstated: near the nadir, where a pixel of band is
    centimetres of height, a hull cannot pass for a building.
    """
    slack = WALL_SLACK_PX / (10 * px_per_mm)
    for bands, d in walls:
        band = max(0.0, bands[0] - slack)
        if camera_height_cm * band / (d + band) > MAX_ROOF_CM:
            return True
    return False


def _roof_over_a_tall_wall(view: TableView, blob: Blob, camera_cm: np.ndarray) -> bool:
    """A building measured by its roof: outside some near side stands a wall taller than any
    hull's roof, out to a straight foot on the ground.

    A near side is sought only as far out as the tallest hull's wall reaches, so a building's
    taller wall leaves the side on its roof's edge, and `_too_tall` then looks for edges inward,
    on the roof. Outward, on each profile across the side, the wall ends where the ground (the
    mat, lit or in shade: a hull's shadow is ground) begins; where most profiles agree on that
    foot, the wall's band gives its height as in `_wall_lines`, taken WALL_SLACK_PX narrower.
    Sides whose wall would show under two outline blurs are left out, as there. On 262
    validation tables: false hulls 25 -> 22 (three buildings), every hull kept, also with the
    bar at 4 cm.
    """
    cm_per_px = 1 / (10 * view.px_per_mm)
    height = camera_cm[2]
    skip = round(WALL_SKIP_CM / cm_per_px)
    for axis, end in near_sides_of(blob, camera_cm):
        if wall_band(blob, camera_cm, axis, end) < 2 * WALL_SKIP_CM:
            continue
        d = nadir_distance(blob, camera_cm, axis, end)
        reach = wall_band(blob, camera_cm, axis, end, TALLEST_CM) + 2 * WALL_SKIP_CM
        along, _, _, profile = side_profiles(view, blob, axis, end, (0.0, reach))
        if len(along) < 6:
            continue
        profile = cv2.GaussianBlur(profile, (3, WALL_ALONG_PX), 0)
        colours = profile.reshape(-1, 3)
        ground = is_ground(view, colours).reshape(profile.shape[:2])
        held = ground[:, skip:-2] & ground[:, skip + 1 : -1] & ground[:, skip + 2 :]  # three pixels on
        footed = held.any(axis=1)
        if footed.mean() < FOOT_SEEN:
            continue
        foot = skip + np.argmax(held[footed], axis=1)
        typical = float(np.median(foot))
        if np.mean(np.abs(foot - typical) <= WALL_SLACK_PX) < FOOT_SEEN:
            continue
        band = max(0.0, (typical - WALL_SLACK_PX) * cm_per_px)
        if height * band / (d + band) > MAX_ROOF_CM:
            return True
    return False
