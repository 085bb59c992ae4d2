"""One side of a hull, measured on the full-resolution rectified table from profiles across it.

A side is the outermost straight edge line that most profiles agree on and that is not the
edge of the hull's shadow (the ground scaled darker, its hue kept): a shadow's strip ends where
the ground darkened ends, and dark tracks are told from it by their width, no more than the
band of a hull's running gear. A near side's foot may be too faint for single profiles yet
plain in their median.
"""

from __future__ import annotations

from itertools import pairwise

import cv2
import numpy as np

from models.hull_colour import (
    LIGHTNESS_WEIGHT,
    SHADOW_LIGHTNESS_WEIGHT,
    SHADOW_MIN_STEP,
    colour_distance,
    median_colours,
    sampled,
    shading_free,
    shadowed,
)
from models.hull_shape import Blob
from models.hull_view import TableView, is_ground
from models.medians import row_median

# Sides at full resolution.
SEARCH_CM = (1.2, 2.0)  # a side is sought this far inside, outside the coarse blob's edge
WIDE_SEARCH_CM = (3.0, 4.0)
SHADOW_SEARCH_CM = 6.0  # inward past a far side's shadow: a 5 cm hull's under a 40-degree sun
PROFILE_EVERY_PX = 2  # profiles across a side, this many pixels apart
SIDE_ALONG_PX = 5  # ... averaged over this many neighbours (a dim frame's log colour is noisy)
SIDE_MARGIN = 0.2  # share of a side left out at each corner (corners are rounded by the mask)
MIN_EDGE = 0.03  # shading-free log colour step per pixel
NOISE_FACTOR = 4.0  # ... and this many times the mat's texture
# ... but no more than this: sensor grain raises the per-pixel texture 3-5x (Gaussian noise of 8
# grey levels) while a hull's side stays as strong, and the line-support test, not this bar,
# keeps grain from making lines. Validation tables, 306 hulls: 273 found with and without it;
# with that noise added 197 -> 253 (false 17 -> 19), with 4 grey levels 147 -> 160 of 187.
MAX_EDGE = 0.12
LINE_SPREAD_PX = 2
LINE_SUPPORT = 0.4  # share of profiles with an edge on a side's line
# Where no side shows pixel to pixel, the colour step is taken over SOFT_SPAN pixels; such a
# line must run along nearly every profile (the octagons of trees and their shadows passed at
# 0.4-0.8). On the nine validation sets (150 tables): hard hulls 108 -> 110 of 129 and false
# 9 -> 8, clean 88 of 89 and 5 false unchanged.
SOFT_SPAN = 2
SOFT_LINE_SUPPORT = 0.9
STEP_SHARE = 0.2  # a line whose sides differ by less than this share of the most is grain, no edge
TOP_STEP_SHARE = 0.1  # ... but a track's top, against the wall above it, may be that faint
EDGE_SHARE = 0.5  # a far side's line is at least this share of the strongest line's strength
NEAR_EDGE_SHARE = 0.2  # a near side's may be much weaker (dark tracks on a dark mat)
MAX_TILT_DEG = 3.0
TILT_STEP_DEG = 1.0
_TILTS_DEG = np.arange(-MAX_TILT_DEG, MAX_TILT_DEG + 0.01, TILT_STEP_DEG)
# Slopes of the tilts a side's line is sought along, the least tilt first (it wins ties).
TILT_SLOPES = np.tan(np.radians(_TILTS_DEG[np.argsort(np.abs(_TILTS_DEG), kind="stable")]))
AVERAGED_EDGE_FACTOR = 4.0  # a near side's step in the median profile, against its median step
LIT_STEP = 2 * SHADOW_MIN_STEP  # a thing this much lighter than the ground is no shadow on it
DEEP_STEP = 4 * SHADOW_MIN_STEP  # darker than a mottled mat's blotches are: shade, or a dark thing
WALL_SLACK_PX = 2  # how far off a band's measure may be
NEAR_LIGHTNESS_WEIGHT = SHADOW_LIGHTNESS_WEIGHT  # a near side may have the hull's shadow outside it


def side_offsets(
    view: TableView,
    blob: Blob,
    axis: int,
    end: int,
    near: bool,
    search_cm: tuple[float, float] = SEARCH_CM,
    gear_cm: float = 0.0,
    along_px: int = SIDE_ALONG_PX,
    span: int = 1,
    past_shadows: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of one side's outline along its normal, sampled along the side (cm, cm).

    A side is a straight edge: an offset where most profiles across it have a colour-step peak
    (mat texture and noise peak here and there and cannot move it). A far side is the roof's
    silhouette: the outermost strong such line that is not its shadow's edge. A near side is
    the footprint's bottom edge, outside the wall that faces the camera; the wall may be as
    dark as the mat (tracks), so there the outermost line counts even if much weaker, and a
    darkened strip outside it is taken for shadow only when it is wider than the band of a
    hull's running gear there (`gear_cm`). One blurred run of edge offsets may hold both a
    near side and its shadow's edge: it is cut where its strength dips between them.
    Without `past_shadows` a line whose inside is its outside darkened is the side itself, not
    a shadow's edge to look past (a hull painted the mat's hue, darker).
    """
    cm_per_px = 1 / (10 * view.px_per_mm)
    sign = 1 if end else -1
    inward, outward = search_cm
    along, edge, steps, profile = side_profiles(view, blob, axis, end, search_cm)
    weight = NEAR_LIGHTNESS_WEIGHT if near else LIGHTNESS_WEIGHT
    profile[..., 0] *= weight
    # Neighbouring profiles are averaged too: a side's edge runs along them, noise does not.
    profile = cv2.GaussianBlur(profile, (3, along_px), 0)
    grad = colour_distance(profile[:, span:] - profile[:, :-span])  # (lines, steps - span)
    peak = np.zeros(grad.shape, bool)
    peak[:, 1:-1] = (grad[:, 1:-1] >= grad[:, :-2]) & (grad[:, 1:-1] >= grad[:, 2:])
    peak &= grad > min(max(NOISE_FACTOR * view.texture, MIN_EDGE), MAX_EDGE)
    # The coarse heading may be a degree or two off, so the line is sought along a few tilts.
    near_peak = cv2.dilate(peak.astype(np.uint8), np.ones((1, 2 * LINE_SPREAD_PX + 1), np.uint8)) > 0
    middle = (along - along.mean()) / cm_per_px
    shifts = np.round(TILT_SLOPES[:, None] * middle[None, :]).astype(int)  # (tilts, lines)
    index = (np.arange(grad.shape[1])[None, None, :] + shifts[..., None]).clip(0, grad.shape[1] - 1)
    rows = np.arange(len(along))[:, None]
    # Counted at flat positions: indexing with an array of rows beside took twice as long.
    positions = index + rows * grad.shape[1]
    supports = np.count_nonzero(near_peak.ravel()[positions], axis=1) / len(along)  # (tilts, steps)
    best = int(np.argmax(supports.max(axis=1)))
    best_support, shift = supports[best], shifts[best]
    strength = row_median(grad[rows, index[best]], axis=0)
    straight = profile[rows, index[best]]  # the profiles shifted along the line's tilt
    lines = np.nonzero(best_support >= (LINE_SUPPORT if span == 1 else SOFT_LINE_SUPPORT))[0]
    if not len(lines):
        # No line at all: the window may lie in the hull's shadow under a broad light, whose
        # penumbra spreads its edge over centimetres. Is the window's inner end its outer end
        # darkened, the hull's edge is sought further inside, as past a shadow's sharp edge
        # (a path-traced hard validation table's plain hull found, a painted false hull fewer).
        inner, outer = _window_ends(profile, weight)
        if past_shadows and inward < SHADOW_SEARCH_CM and shadowed(outer, inner):
            deeper = (SHADOW_SEARCH_CM, outward)
            return side_offsets(view, blob, axis, end, near, deeper, gear_cm, along_px, span)
        if span < SOFT_SPAN:
            # A soft edge (a blurred, dim frame) spreads its step over a few pixels, none of them
            # clear of the grain: over SOFT_SPAN pixels the step adds up, the grain less so (a
            # dim hard validation hull on dark grass: 0.058 a pixel against a bar of 0.10).
            return side_offsets(
                view, blob, axis, end, near, search_cm, gear_cm, along_px, SOFT_SPAN, past_shadows
            )
        return along[:0], along[:0]
    share = NEAR_EDGE_SHARE if near else EDGE_SHARE
    lines = lines[strength[lines] >= share * strength[lines].max()]
    if near:
        # Within the running gear's band outside the lines may lie a footprint edge too faint
        # for most profiles (dark tracks on a dark mat) that the profiles' median still shows,
        # a flat stretch (the tracks) away from the last line.
        clear, flat = _median_steps(straight)
        last = int(lines.max())
        reach = last + gear_cm / cm_per_px + WALL_SLACK_PX
        # Each faint offset lies past the last line, so the lines stay sorted.
        faint = [int(f) for f in clear if last < f <= reach and flat[last:f].any()]
        lines = np.concatenate([lines, np.asarray(faint, lines.dtype)])
    runs = _runs(lines, strength if near else None)
    ground = None
    if not near:
        typical = row_median(straight, axis=0)
        typical[:, 0] /= weight
        ground = is_ground(view, typical)
    mat = view.mat if near else None
    outermost, shadow = _outline_line(straight, runs, weight, gear_cm / cm_per_px, near, ground, mat)
    if near:
        # The footprint's edge is the outer end of its run of offsets (a track's band spans a
        # few), or its strongest offset where a dip cut it from a shadow's edge outside.
        run = next(r for r in runs if r[0] <= outermost <= r[-1])
        if run[-1] + 1 in lines:
            outermost = int(run[np.argmax(strength[run])])
        else:
            outermost = _foot_in_run(straight, run, weight)
    if span > 1 and shadow:
        # A soft line whose inside is the outside darkened is a shadow's edge: a tall thing's
        # shadow is a blob with soft straight sides too, and no hull.
        return along[:0], along[:0]
    if shadow and past_shadows and inward < SHADOW_SEARCH_CM:
        # The coarse blob took in the hull's shadow: the hull's edge lies further inside.
        deeper = (SHADOW_SEARCH_CM, outward)
        return side_offsets(view, blob, axis, end, near, deeper, gear_cm, along_px, span)
    window = (outermost + shift[:, None] + np.arange(-LINE_SPREAD_PX, LINE_SPREAD_PX + 1)[None, :]).clip(
        0, grad.shape[1] - 1
    )
    local = np.where(np.take_along_axis(peak, window, axis=1), np.take_along_axis(grad, window, axis=1), -1.0)
    has = local.max(axis=1) > 0
    best = np.take_along_axis(window, np.argmax(local, axis=1)[:, None], axis=1)[:, 0]
    offsets = edge + steps[best] + span * cm_per_px / 2
    return along[has], offsets[has] * sign


def side_profiles(
    view: TableView, blob: Blob, axis: int, end: int, search_cm: tuple[float, float]
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Shading-free colour on profiles across one side: (positions along the side (cm), the
    coarse edge's offset along the outward normal (cm), offsets from it (cm), profiles
    (along, offsets, 3))."""
    cm_per_px = 1 / (10 * view.px_per_mm)
    sign = 1 if end else -1
    normal = blob.axes[axis] * sign
    tangent = blob.axes[1 - axis]
    t0, t1 = blob.extent[1 - axis]
    margin = SIDE_MARGIN * (t1 - t0)
    along = np.arange(t0 + margin, t1 - margin, PROFILE_EVERY_PX * cm_per_px)
    edge = float(blob.extent[axis, end] * sign)
    steps = np.arange(-search_cm[0], search_cm[1], cm_per_px)
    pts = along[:, None, None] * tangent + (edge + steps)[None, :, None] * normal  # (lines, steps, 2)
    px = (pts * 10 * view.px_per_mm - 0.5).astype(np.float32)
    return along, edge, steps, shading_free(sampled(view.rect, px))


def averaged_near_side(view: TableView, blob: Blob, axis: int, end: int) -> tuple[np.ndarray, np.ndarray]:
    """A near side no line of per-profile peaks shows: the outermost clear step of the
    profiles' median along the side (same shape as `side_offsets`).

    Dark tracks on a dark, busy mat make a footprint edge too faint for each profile on its
    own, but it runs the whole side where the mat's grain and noise do not: in the median of
    twenty or more profiles it stands out of the median's own steps.
    """
    cm_per_px = 1 / (10 * view.px_per_mm)
    sign = 1 if end else -1
    along, edge, steps, profile = side_profiles(view, blob, axis, end, WIDE_SEARCH_CM)
    profile[..., 0] *= NEAR_LIGHTNESS_WEIGHT
    clear, _ = _median_steps(profile)
    if not len(clear):
        return along[:0], along[:0]
    return along, np.full(len(along), (edge + steps[clear.max()] + cm_per_px / 2) * sign)


def _median_steps(profiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Offsets where the profiles' median steps clearly out of its own steps (between offset i
    and i + 1), and where it shows no step at all: an edge that runs the whole side stands out
    there, the mat's grain does not."""
    typical = cv2.GaussianBlur(row_median(profiles, axis=0)[None], (3, 1), 0)[0]
    step = colour_distance(np.diff(typical, axis=0))
    clear = step > max(2 * MIN_EDGE, AVERAGED_EDGE_FACTOR * float(row_median(step)))
    peak = np.zeros(len(step), bool)
    peak[1:-1] = (step[1:-1] >= step[:-2]) & (step[1:-1] >= step[2:])
    return np.nonzero(peak & clear)[0], ~clear


def _runs(lines: np.ndarray, strength: np.ndarray | None) -> list[np.ndarray]:
    """Candidate offsets grouped into edges: one edge spans a few offsets, and with `strength`
    a run is also cut where its strength dips (two edges blurred into one run)."""
    runs = split_slices(lines, np.nonzero(np.diff(lines) > 1)[0] + 1)
    if strength is None:
        return runs
    cut: list[np.ndarray] = []
    for run in runs:
        s = strength[run]
        cut += split_slices(run, np.nonzero((s[1:-1] < s[:-2]) & (s[1:-1] < s[2:]))[0] + 1)
    return cut


def split_slices(values: np.ndarray, at: np.ndarray) -> list[np.ndarray]:
    """np.split's pieces, as slices: its own overhead was most of a side's grouping."""
    bounds = [0, *at.tolist(), len(values)]
    return [values[start:stop] for start, stop in pairwise(bounds)]


def _outline_line(
    straight: np.ndarray,
    runs: list[np.ndarray],
    weight: float,
    gear_px: float,
    near: bool,
    ground: np.ndarray | None = None,
    mat: np.ndarray | None = None,
) -> tuple[int, bool]:
    """A side's outermost candidate line that is not the edge of the hull's shadow.

    A shadow only darkens the ground: across its edge the log colour drops in lightness and
    keeps its chromaticity, the ground outside being the brighter. Such a line is passed over
    for the first line inside it whose inside is no longer that ground darkened (lines of the
    mat's grain within the shadow are passed over, as is any line the colours either side of
    which hardly differ); when there is none, the next line is looked at in turn, and when no
    line is left the innermost is returned flagged as a shadow's, so the caller can look
    further inside. A near side's dark tracks on a mat of their own hue look like a shadow,
    but the next line inside them, their top, lies within the band of the running gear
    (`gear_px`). Against the wall in shade above, that top may step as little as a tenth of
    the foot's step (`TOP_STEP_SHARE`, under the grain bar), so a fainter line counts there
    when its inside is not the ground darkened, as grain within a shadow's band is (painted
    hard validation table 76,016: a 5.2 cm hull taken at its roof's edge, 8 mm off). On a far
    side, a line the other way round, the ground outside it the inside darkened, is where a
    terrain's shadow begins beyond the roof: passed over too while lines lie inside it (painted
    validation tables 71,000+ and 20,010+: 2 more hulls placed). Not on a near side: there a
    roof's edge over its own wall in shade is such a line, and a building whose roof and walls
    are one colour passed for a hull when its wall was taken in.

    Outside a roof's edge lies only the ground, so on a far side (given `ground`, where the
    profiles' median is the mat, lit or in shadow) a line with something else outside it and
    the ground somewhere inside, before the next line in, is the edge of a thing beyond the
    hull (a marker, a building): passed over, or flagged as a shadow's when no line is left.

    A shadow's edge has the lit ground outside it. So on a near side (given the lit `mat`) a
    line whose outside is already the mat deep in shade, and whose inside is deeper still, is
    the foot of dark tracks standing in the hull's own shadow, not the shadow's edge (painted
    hard validation table 72,021: grey tracks on a pale pink map read as its shade, and the
    side was taken at the tracks' top, 2 cm inside). Both steps must be deep (`DEEP_STEP`):
    a mottled mat's lit blotches lie a few tenths below its median, and a grain line within
    a shadow has the shadow either side.
    """
    centres = sorted((int(run[len(run) // 2]) for run in runs), reverse=True)
    last = straight.shape[1] - 1
    inner = [_inside(k) for k in centres]
    outer = [_outside(k, last) for k in centres]
    colours = median_colours(straight, inner + outer, weight)
    inside = dict(zip(centres, colours[: len(centres)], strict=True))
    outside = dict(zip(centres, colours[len(centres) :], strict=True))
    # Noise in a flat dark band (a shadow) peaks on a line now and then, but the colours either
    # side of such a line are the same.
    steps = {k: float(np.linalg.norm(outside[k] - inside[k])) for k in centres}
    tops = [k for k in centres if steps[k] >= TOP_STEP_SHARE * max(steps.values())]
    centres = [k for k in centres if steps[k] >= STEP_SHARE * max(steps.values())]
    for i, k in enumerate(centres):
        if not near and i + 1 < len(centres) and shadowed(inside[k], outside[k]):
            continue  # the ground's own lit edge: a terrain's shadow begins outside it
        if ground is not None and not ground[min(last, k + 3)]:
            inner = centres[i + 1] + 2 if i + 1 < len(centres) else 0
            if ground[inner : k - 1].any():
                if i + 1 < len(centres):
                    continue
                return k, True
        if not shadowed(outside[k], inside[k]) or _in_the_shade(mat, outside[k], inside[k]):
            return k, False
        if i + 1 < len(centres) and k - centres[i + 1] <= gear_px:
            return k, False
        if any(k - gear_px <= j < k and not shadowed(outside[k], inside[j]) for j in tops):
            return k, False
        lit = [j for j in centres[i + 1 :] if not shadowed(outside[k], inside[j])]
        if lit:
            return lit[0], False
    return centres[-1], True


def _in_the_shade(mat: np.ndarray | None, outside: np.ndarray, inside: np.ndarray) -> bool:
    """Whether a line lies within a shadow, deep below the lit `mat` and deeper inside: no
    shadow's edge then, but a dark thing standing in the shade."""
    if mat is None:
        return False
    deep = min(mat[0] - outside[0], outside[0] - inside[0]) >= DEEP_STEP
    return bool(deep and shadowed(mat, outside))


def _foot_in_run(straight: np.ndarray, run: np.ndarray, weight: float) -> int:
    """A near side's foot in its run of offsets: the outer end, or, where the run's outer part
    is the edge of the hull's shadow, the outermost offset whose inside is not the ground
    outside the run darkened.

    A shadow cast towards the camera lies outside a near side, and its soft lightness edge can
    trail on from the foot's step with no dip in strength between them (the lightness counts
    for little there): the run then ended on the shadow's edge (painted hard validation table
    70,016: a hull 5.7 mm too wide).
    """
    last = straight.shape[1] - 1
    if run[-1] + 2 > last:
        return int(run[-1])
    stretches = [_inside(k) for k in run.tolist()] + [_outside(int(run[-1]), last)]
    colours = median_colours(straight, stretches, weight)
    lit = np.nonzero(~shadowed(colours[-1], colours[:-1]))[0]
    return int(run[lit[-1]] if len(lit) else run[-1])


def _inside(line: int) -> tuple[int, int]:
    """The stretch of a side's profiles just inside a line at offset `line`, for its colour."""
    return max(0, line - 3), line + 1


def _outside(line: int, last: int) -> tuple[int, int]:
    """The stretch just outside it, past the line's own blur (`last`: the profiles' last offset)."""
    return min(last, line + 2), min(last + 1, line + 5)


def _window_ends(profile: np.ndarray, weight: float) -> tuple[np.ndarray, np.ndarray]:
    """The typical colours of a side's window at its inner and outer ends (an eighth of it each)."""
    width = profile.shape[1]
    end_px = max(2, width // 8)
    inner, outer = median_colours(profile, [(0, end_px), (width - end_px, width)], weight)
    return inner, outer


def fit_side(along: np.ndarray, offsets: np.ndarray) -> tuple[float, float, float] | None:
    """Robust line offset = a + b * along: (offset at the side's middle, slope, inlier share).

    Means are sums over counts, np.mean's own value without its overhead (a fit is a dozen
    of them on a few dozen values, hundreds of fits a frame).
    """
    if len(along) < 6:
        return None
    keep = np.ones(len(along), bool)
    for _ in range(3):
        x, y = along[keep], offsets[keep]
        x_mean, y_mean = x.sum() / len(x), y.sum() / len(y)
        dx = x - x_mean
        slope = float(dx @ (y - y_mean) / max(dx @ dx, 1e-9))
        resid = np.abs(offsets - y_mean - slope * (along - x_mean))
        keep = resid <= max(0.1, 2.5 * float(row_median(resid[keep])))
        inliers = np.count_nonzero(keep)
        if inliers < 6:
            return None
    mid = float(along.sum() / len(along))
    return float(y_mean + slope * (mid - x_mean)), slope, inliers / len(keep)


def lighter_than_ground(
    view: TableView, blob: Blob, axis: int, end: int, search_cm: tuple[float, float]
) -> bool:
    """Whether a side's window runs from something lighter than the ground out onto the ground:
    the inner end's lightness over the outer end's by LIT_STEP, the outer end the ground."""
    inner, outer = _window_ends(side_profiles(view, blob, axis, end, search_cm)[3], 1.0)
    return bool(inner[0] - outer[0] >= LIT_STEP and is_ground(view, outer[None])[0])
