"""The millimetre step: fit each base's rim, parallax included, to edges found along rays.

Seen from a camera H above the table, a base of thickness t shows two circles on the rectified
(table-plane) image: the bottom disc (centre c, radius R) and the top disc, scaled about the
camera's nadir N by s = H / (H - t). The outline is the bottom circle on the side facing N and
the top circle on the far side. Edges found along rays from the centre are fitted to the
signed distance of that union on the far side (on the near side, where the wall shows between
the two rims, to the nearer circle), both circles tied to the one unknown centre c (and the
measured radius). A Tukey-weighted Gauss-Newton fit then ignores the
miniature standing on the base, a neighbour's rim and anything else that is not this base.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from models.medians import row_median

RAYS = 48
SCREEN_RAYS = 24  # the first round only decides which candidates are worth the full fit
SAMPLES = 40
# Each ray is sampled from this share of the radius outward over this share more (plus the
# parallax's reach): from inside the top disc to past the bottom rim.
RAY_START, RAY_SPAN = 0.72, 0.56
PEAKS_PER_RAY = 3
THICKNESS_MM = 3.5
R_PRIOR = 0.05  # keep R near its class unless many edges say otherwise
SETTLE_MOVES_MM = (-2.5, 2.5)  # along the line to the nadir; + is towards it
SETTLE_ROUNDS = 2
SETTLE_MARGIN = 0.1  # relative: a moved start must explain 10 % more edge weight
SETTLE_FROM = 0.5  # settling starts this share of the top disc's parallax shift towards the nadir
RESTARTS = 8  # directions a doubtful rim is refitted from
RESTART_MM = 2.5  # ... this far off its fit: within the reach of the fit's robust window
# An edge counts fully in the fit once it is this many times the ray profiles' median strength
# and this share of the candidate's strongest edge (an image without grain has no texture).
CLEAR_OF_TEXTURE = 6.0
CLEAR_OF_STRONGEST = 0.2
# A shadow's edge on the ground (`_shadow_edges`) counts for a fifth of an edge, and for half
# of one on the side facing the nadir: there, in a blurred frame, the bottom rim's edge of a
# dark wall under a top of the mat's hue looks alike, and at a fifth such bases slid 1 mm
# outward. On the six validation sets: every P95 lower (painted hard 3.24 -> 2.81 and 2.72 ->
# 2.55 mm, clean 0.89 -> 0.84 and 0.94 -> 0.90, path-traced clean 1.74 -> 1.52 and hard 3.81
# -> 3.65), bases 2,948 -> 2,951, false rims 18 -> 19. Dropped outright, the path-traced clean
# P95 went to 2.69 mm: a rim of the mat's own hue in its shade passes the test too.
SHADOW_EDGE_WEIGHT = 0.2
SHADOW_EDGE_WEIGHT_NEAR = 0.5
SHADOW_DARKER = 0.75  # the inside has at most this share of the outside's light
SHADOW_HUE_DEG = 6.0  # ... and its colour within this angle of the outside's, in linear RGB
SHADOW_SIDE_PX = (0.75, 1.5)  # each side's colour is read this far from the edge
# Where the table's shadows are known (`models/shadow.py`: `shadow_offset`), an edge darker
# inside on a ray within 60 degrees of the way they fall is the outer edge of the base's
# shadow: the top rim's outline cast along the light, a circle as large as the base's and
# shifted by the shadow's length. Fitted to that circle it places the base instead of pulling
# it towards the shadow, where a rim coloured like its mat shows nothing else on that side.
SHADOW_SIDE_COS = 0.5
IRLS_STEPS = 5  # Gauss-Newton steps per round; each round then re-reads the edges around the new centre


@dataclass(frozen=True)
class RimFit:
    centres_px: np.ndarray  # (n, 2) bottom-disc centres, rectified pixels
    radius_px: np.ndarray  # (n,) measured bottom radius
    coverage: np.ndarray  # (n,) share of rays whose strongest edge lies on the fitted rim
    contrast: np.ndarray  # (n,) rim edge strength over the texture's typical edge strength


def _ray_edges(
    image: np.ndarray,
    centres: np.ndarray,
    radius: np.ndarray,
    reach: np.ndarray,
    rays: int = RAYS,
    shadows: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sub-pixel edge peaks along `rays` rays per candidate: (n, rays, PEAKS) radii, strengths,
    whether each is darker inside and whether its colour is kept across it (`_shadow_edges`);
    the ray directions and each candidate's texture level.

    Sampling runs in float32: remap quantises positions to 1/32 px anyway, and the profiles
    are most of the detector's memory traffic.
    """
    n = len(centres)
    angles = np.linspace(0, 2 * np.pi, rays, endpoint=False)
    direction = np.stack([np.cos(angles), np.sin(angles)], 1)  # (K, 2)
    d32, c32 = direction.astype(np.float32), centres.astype(np.float32)
    start = (radius * RAY_START).astype(np.float32)
    span = (radius * RAY_SPAN + reach).astype(np.float32)
    rho = start[:, None] + span[:, None] * np.linspace(0.0, 1.0, SAMPLES, dtype=np.float32)  # (n, S)
    # remap wants < 32767 rows, so the candidates' rays go side by side in one row each.
    mx = (c32[:, 0, None, None] + rho[:, None, :] * d32[None, :, 0, None]).reshape(n, -1)
    my = (c32[:, 1, None, None] + rho[:, None, :] * d32[None, :, 1, None]).reshape(n, -1)
    profile = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # Difference of two-sample means: steadier than a central difference on grainy flock.
    # Channel by channel, each plane contiguous: the squares are summed without a colour axis,
    # in two buffers reused for every channel (allocating per step cost a fifth of the time).
    power = np.zeros((n, rays, SAMPLES - 4), np.float32)
    pair = np.empty((n, rays, SAMPLES - 1), np.float32)
    step_across = np.empty((n, rays, SAMPLES - 4), np.float32)  # centred on samples 2 .. S-3
    planes = cv2.split(profile.reshape(n, rays * SAMPLES, -1))  # `_shadow_edges` reads them too
    for channel in planes:
        plane = channel.reshape(n, rays, SAMPLES)
        np.add(plane[:, :, 1:], plane[:, :, :-1], out=pair, dtype=np.float32)
        np.subtract(pair[:, :, 3:], pair[:, :, :-3], out=step_across)
        power += np.multiply(step_across, step_across, out=step_across)
    deriv = np.zeros((n, rays, SAMPLES), np.float32)
    np.divide(np.sqrt(power, out=power), 6, out=deriv[..., 2:-2])
    left, mid, right = deriv[..., :-2], deriv[..., 1:-1], deriv[..., 2:]
    strength = np.where((mid > left) & (mid >= right), mid, 0.0)
    # The strongest peaks one at a time: three argmax passes beat a partition and a sort.
    # (n, K, P) peaks, strongest first; `order` indexes samples 1..S-2 as `mid` does.
    order = np.empty((n, rays, PEAKS_PER_RAY), np.int64)
    peak = np.empty((n, rays, PEAKS_PER_RAY), np.float32)
    flat = strength.reshape(-1, SAMPLES - 2)  # a view: `strength` is used up by the passes
    rows = np.arange(len(flat))
    for k in range(PEAKS_PER_RAY):
        best = flat.argmax(-1)
        order[..., k] = best.reshape(n, rays)
        peak[..., k] = flat[rows, best].reshape(n, rays)
        flat[rows, best] = -1.0
    ray = np.arange(n * rays).reshape(n, rays, 1)
    lo, m, hi = (deriv.reshape(-1)[order + ray * SAMPLES + k] for k in (0, 1, 2))
    denom = lo - 2 * m + hi
    offset = np.where(np.abs(denom) > 1e-6, 0.5 * (lo - hi) / np.where(denom == 0, 1, denom), 0.0)
    step = span / (SAMPLES - 1)
    radii = start[:, None, None] + (order + 1 + np.clip(offset, -0.5, 0.5)) * step[:, None, None]
    texture = row_median(deriv.reshape(n, -1))
    darker, hue_kept = (
        _shadow_edges(planes, order + 1, step)
        if shadows
        else (np.zeros(order.shape, bool), np.zeros(order.shape, bool))
    )
    radii, peak, texture = radii.astype(np.float64), peak.astype(np.float64), texture.astype(np.float64)
    return radii, peak, darker, hue_kept, direction, texture


# sRGB-coded levels to linear light (a gamma of 2.2 is close enough to compare shades).
_LINEAR = ((np.arange(256) / 255) ** 2.2).astype(np.float32)


def _shadow_edges(
    planes: Sequence[np.ndarray], at: np.ndarray, step: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which edge peaks (n, K, P) may be where the ground passes into a shadow, not a rim:
    darker inside, and (of those) keeping the outside's hue.

    Across a shadow's edge the ground only darkens: in linear light the inside is the outside
    scaled down, its hue kept. Beyond a base's far rim its own shadow lies as a crescent as wide
    as its thickness times the light's slope, and the crescent's outer edge (lit mat against
    deep shadow) can be stronger than the rim inside it (a dark top against the shadow). On
    the path-traced tables that held fits 1.3-3.2 mm along the light, between rim and shadow.
    A rim on a mat of its own hue and darker still passes this test; so a shadow's edge is
    weighed down (SHADOW_EDGE_WEIGHT, SHADOW_EDGE_WEIGHT_NEAR), not dropped. `planes` are the
    ray profiles' colour planes (n, K * S each, as `_ray_edges` splits them), `at` the peaks'
    sample indices along each ray, `step` each candidate's sample spacing in pixels.
    The hue is not kept under skylight and light bounced off a coloured mat (path-traced
    shadows on grass read 7-12 degrees greener): where the table's shadows are known
    (`_refine`'s `shadow_px`) darkening alone marks them.

    Channel by channel from the split planes, each gather and sum contiguous: gathering colour
    triples from the interleaved profile and reducing them with einsum over an axis of three
    took a third longer (6.5 against 4.9 ms a path-traced hard frame). The sums are einsum's,
    channel after channel, so the verdicts are the same bit for bit.
    """
    n, rays = at.shape[:2]
    first = (np.arange(n * rays, dtype=np.int32) * SAMPLES).reshape(n, rays, 1)  # each ray's first sample
    near = np.maximum(1, np.round(SHADOW_SIDE_PX[0] / step)).astype(np.int32)
    far = np.maximum(near + 1, np.round(SHADOW_SIDE_PX[1] / step)).astype(np.int32)
    offsets = np.stack([-near, -far, near, far])[:, :, None, None]  # inside twice, outside twice
    where = first + np.clip(at.astype(np.int32) + offsets, 0, SAMPLES - 1)
    inside, outside = [], []  # per channel; sums: only ratios are compared
    for plane in planes:
        levels = np.take(plane.reshape(-1), where)
        if levels.dtype != np.uint8:  # a sharpened frame's float samples
            levels = np.clip(levels, 0, 255).astype(np.uint8)
        light = np.take(_LINEAR, levels)  # (4, n, K, P)
        inside.append(light[0] + light[1])
        outside.append(light[2] + light[3])
    same_hue = _dot(inside, outside) > np.cos(np.radians(SHADOW_HUE_DEG)) * np.sqrt(
        _dot(inside, inside) * _dot(outside, outside)
    )
    return _dot(inside) < SHADOW_DARKER * _dot(outside), same_hue


def _dot(a: list[np.ndarray], b: list[np.ndarray] | None = None) -> np.ndarray:
    """The sum over channels of a * b (of a alone without b), channel after channel."""
    total = a[0] if b is None else a[0] * b[0]
    for k in range(1, len(a)):
        total = total + (a[k] if b is None else a[k] * b[k])
    return total


def _refine(
    image: np.ndarray,
    c: np.ndarray,
    R: np.ndarray,
    nominal: np.ndarray,
    nadir_px: np.ndarray,
    s: float,
    scale: float,
    rays: int = RAYS,
    shadows: bool = True,
    shadow_px: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One round: edges along rays from the current centres, then Tukey IRLS on (cx, cy, R).

    Returns centres, radii, coverage, contrast and support: the robust weight of every edge
    the fit explains, second edges included (the near side's wall band has two). With the
    table's `shadow_px` (n, 2: how far and which way each base's shadow is cast), the edges
    that darken inwards on that side are fitted, at full weight, to the shadow's own circle
    (`SHADOW_SIDE_COS`) when nearer it than the outline.
    """
    n = len(c)
    shift = np.linalg.norm(c - nadir_px, axis=1) * (s - 1) + R * (s - 1)
    reach = shift + 2.0
    radii, strength, darker, hue_kept, direction, texture = _ray_edges(image, c, R, reach, rays, shadows)
    shadow = darker & hue_kept
    px = c[:, 0, None, None] + radii * direction[None, :, 0, None]  # (n, K, P) edge points
    py = c[:, 1, None, None] + radii * direction[None, :, 1, None]
    strongest = strength.reshape(n, -1).max(1)[:, None, None] + 1e-6
    w_edge = strength / strongest
    # An edge counts fully once it stands clear of the texture. Weighted by its strength over
    # the strongest edge instead, a miniature's bright outline inside the far rim outweighed a
    # rim of low contrast (a top near the mat's colour) and pulled the circle onto itself.
    clear = np.maximum(CLEAR_OF_TEXTURE * texture[:, None, None], CLEAR_OF_STRONGEST * strongest)
    w_fit = np.minimum(1.0, strength / clear)
    # On the side facing the nadir the wall shows as a band between the bottom rim (mat to
    # wall) and the top rim (wall to top), as wide as the parallax there: under a pixel near
    # the nadir, where both edges blur into one, but 1-2 mm at the table's far end. Either
    # edge belongs to the base, so there each edge is fitted to the nearer circle. Without
    # this side the centre slid along the line to the nadir onto shadows and overhanging
    # miniatures beyond the far rim (the old P95 tail).
    away = c - nadir_px
    away = away / (np.linalg.norm(away, axis=1, keepdims=True) + 1e-9)
    near_side = ((direction @ away.T).T < -0.3)[..., None]  # (n, K, 1)
    weight = np.where(shadow, np.where(near_side, SHADOW_EDGE_WEIGHT_NEAR, SHADOW_EDGE_WEIGHT), 1.0)
    if shadow_px is not None:
        falling = shadow_px / (np.linalg.norm(shadow_px, axis=1, keepdims=True) + 1e-9)
        towards = (direction @ falling.T).T > SHADOW_SIDE_COS  # (n, K)
        cast = darker & (towards & shadow_px.any(axis=1)[:, None])[..., None]  # a zero shadow casts none
        cast_x, cast_y = shadow_px[:, 0, None, None], shadow_px[:, 1, None, None]
        weight = np.where(cast, 1.0, weight)
    w_fit = w_fit * weight
    inv_width2 = 1.0 / (3 * scale) ** 2
    for _ in range(IRLS_STEPS):
        top_c = nadir_px + (c - nadir_px) * s
        bx, by = px - c[:, 0, None, None], py - c[:, 1, None, None]
        tx, ty = px - top_c[:, 0, None, None], py - top_c[:, 1, None, None]
        n_bot = np.sqrt(bx * bx + by * by) + 1e-9
        n_top = np.sqrt(tx * tx + ty * ty) + 1e-9
        r_bot = n_bot - R[:, None, None]
        r_top = n_top - (R * s)[:, None, None]
        # Signed distance to the union of the two discs (the outline) on the far side: taking
        # the nearer circle there would let one plain circle, half a parallax shift outward,
        # fit as well. On the near side both rims are real edges.
        use_top = (r_top < r_bot) | (near_side & (np.abs(r_top) < np.abs(r_bot)))
        res = np.where(use_top, r_top, r_bot)
        # Rows of -d res / d (cx, cy, R), one column per edge.
        jx = np.where(use_top, tx * (s / n_top), bx / n_bot)
        jy = np.where(use_top, ty * (s / n_top), by / n_bot)
        jr = np.where(use_top, s, 1.0)
        if shadow_px is not None:  # the shadow's own circle, where nearer than the outline
            hx, hy = bx - cast_x, by - cast_y
            n_sh = np.sqrt(hx * hx + hy * hy) + 1e-9
            r_sh = n_sh - R[:, None, None]
            use_shadow = cast & (np.abs(r_sh) < np.abs(res))
            res = np.where(use_shadow, r_sh, res)
            jx, jy = np.where(use_shadow, hx / n_sh, jx), np.where(use_shadow, hy / n_sh, jy)
            jr = np.where(use_shadow, 1.0, jr)
        t = 1 - res * res * inv_width2
        tukey = np.where(t > 0, t * t, 0.0) * w_fit
        J = np.stack([jx.reshape(n, -1), jy.reshape(n, -1), jr.reshape(n, -1)], 1)
        wf = tukey.reshape(n, -1)
        Jw = J * wf[:, None, :]
        A = Jw @ J.transpose(0, 2, 1)
        b = (Jw @ res.reshape(n, -1, 1))[..., 0]
        prior = R_PRIOR * wf.sum(1)
        A[:, 2, 2] += prior
        b[:, 2] -= prior * (R - nominal)
        A += np.eye(3) * 1e-6
        delta = np.linalg.solve(A, b[..., None])[..., 0]
        delta[:, :2] = np.clip(delta[:, :2], -0.3 * nominal[:, None], 0.3 * nominal[:, None])
        c = c + delta[:, :2]
        R = np.clip(R + delta[:, 2], nominal * 0.8, nominal * 1.2)
    band = (np.linalg.norm(c - nadir_px, axis=1) * (s - 1))[:, None, None]  # the wall's width
    inlier = (np.abs(res) < 1.5 * scale + band) & (w_edge > 0.08)
    coverage = inlier[..., 0].mean(-1)  # the ray's strongest edge is this rim
    contrast = np.where(inlier, strength, 0).max(-1).mean(-1) / (texture + 1.0)
    return c, R, coverage, contrast, tukey.reshape(n, -1).sum(1) / rays


def _top_scale(camera_height_mm: float) -> float:
    """The top disc's scale about the nadir: it is THICKNESS_MM nearer the camera."""
    return camera_height_mm / (camera_height_mm - THICKNESS_MM)


def fit_rims(
    image: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    nadir_px: np.ndarray,
    camera_height_mm: float,
    px_per_mm: float,
    rounds: int = 3,
    prune_below: float = 0.25,
    worth_fitting: Callable[[RimFit, np.ndarray], np.ndarray] | None = None,
) -> RimFit:
    """Fit bottom-rim centres for all candidates at once (vectorised over candidates).

    The first round, on half the rays, screens: candidates whose rays found hardly any rim
    are dropped (coverage 0). The bar is low because a faint rim a few millimetres off its
    vote peak only gathers its edges once the fit has moved onto it, so most mat texture
    passes it; `worth_fitting(screened, candidate_index) -> bool mask`, when given, is shown
    the survivors' screening fits and decides which get the full rounds (the detector asks its
    verifier). The screen does not tell shadows' edges from rims: on its 400 candidates that
    cost 3 ms a frame and found no more bases on the validation tables (tried with 0.2 on every
    side: 2,948 bases with the screen testing, 2,956 without), since the full rounds weigh them
    down anyway.
    """
    c = np.asarray(centres_px, dtype=np.float64).copy()
    nominal = np.asarray(radius_px, dtype=np.float64)
    R = nominal.copy()
    n = len(c)
    coverage, contrast = np.zeros(n), np.zeros(n)
    s = _top_scale(camera_height_mm)
    scale = max(0.6, 0.5 * px_per_mm)
    alive = np.arange(n)
    for k in range(rounds):
        if not len(alive):
            break
        rays = SCREEN_RAYS if k == 0 else RAYS
        c[alive], R[alive], cov, con, _ = _refine(
            image, c[alive], R[alive], nominal[alive], nadir_px, s, scale, rays, shadows=k > 0
        )
        coverage[alive], contrast[alive] = cov, con
        if k == 0:
            worth = cov >= prune_below
            if worth_fitting is not None and worth.any():
                survivors = alive[worth]
                screened = RimFit(c[survivors], R[survivors], cov[worth], con[worth])
                worth[worth] = worth_fitting(screened, survivors)
            coverage[alive[~worth]] = 0
            alive = alive[worth]
    return RimFit(c, R, coverage, contrast)


def refits(
    image: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    nominal_px: np.ndarray,
    nadir_px: np.ndarray,
    camera_height_mm: float,
    px_per_mm: float,
    moves_px: np.ndarray,
    shadow_px: np.ndarray | None = None,
    rays: int = RAYS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every rim refitted from its own centre and from each of `moves_px` (m, n, 2): centres
    (m + 1, n, 2), radii and the edge weight each explains (m + 1, n), start 0 the rim's own.
    `shadow_px` (n, 2), when the table's shadows are known, as `_refine` takes it; fewer
    `rays` for a rough comparison of hypotheses.

    All starts go through `_refine` as one batch (a call's fixed cost outweighs a few rims' work).
    """
    c0 = np.asarray(centres_px, dtype=np.float64).reshape(-1, 2)
    R0 = np.asarray(radius_px, dtype=np.float64)
    n = len(c0)
    starts = 1 + len(moves_px)
    if n == 0:
        return np.zeros((starts, 0, 2)), np.zeros((starts, 0)), np.zeros((starts, 0))
    s = _top_scale(camera_height_mm)
    scale = max(0.6, 0.5 * px_per_mm)
    c = np.concatenate([c0[None], c0[None] + moves_px]).reshape(-1, 2)
    R, nominal = np.tile(R0, starts), np.tile(nominal_px, starts)
    cast = None if shadow_px is None else np.tile(np.reshape(shadow_px, (n, 2)), (starts, 1))
    for _ in range(SETTLE_ROUNDS):
        c, R, _, _, support = _refine(image, c, R, nominal, nadir_px, s, scale, rays, shadow_px=cast)
    return c.reshape(starts, n, 2), R.reshape(starts, n), support.reshape(starts, n)


def best_supported(
    centres_px: np.ndarray, radius_px: np.ndarray, support: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Of each rim's refits (as `refits` gives them), the one that explains the most edges.

    A fit stuck in a local optimum (on a shadow, a leaning miniature, one band of the wall)
    cannot leave it from one start; restarted a few millimetres off it finds the rim, and the
    true rim explains more edges. A moved start wins only by explaining clearly more edge
    weight than the best before it, so a rim stays put unless the image argues otherwise.
    """
    best_c, best_R, best_support = centres_px[0].copy(), radius_px[0].copy(), support[0].copy()
    for k in range(1, len(centres_px)):
        better = support[k] > best_support * (1 + SETTLE_MARGIN)  # moving must earn clearly more
        best_c[better], best_R[better], best_support[better] = (
            centres_px[k][better], radius_px[k][better], support[k][better]
        )
    return best_c, best_R


def settling_start(centres_px: np.ndarray, nadir_px: np.ndarray, camera_height_mm: float) -> np.ndarray:
    """Where an accepted rim's settling starts: half the top disc's parallax shift towards the nadir.

    In a blurred frame the near side's wall band merges into one edge, and the fit has a
    second optimum about half a band away from the nadir. Fits come from vote peaks, which
    sit near the top disc (the outline on the far side and the flanks), a whole shift away
    from the nadir, so they stopped in that optimum: on the clean validation tables blurred by
    1 px, bases 70 cm or more from the nadir were found 0.75 mm outward on average. From
    half a shift inward the fit reaches the true rim, and a sharp rim pulls it back out.
    """
    c = np.asarray(centres_px, dtype=np.float64).reshape(-1, 2)
    s = _top_scale(camera_height_mm)
    return nadir_px + (c - nadir_px) / (1 + SETTLE_FROM * (s - 1))


def settling_moves(centres_px: np.ndarray, nadir_px: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Starts for an accepted rim: 2.5 mm towards and away from the camera's nadir.

    A rim fit that slid onto a shadow or an overhanging miniature beyond the far rim, or one
    band outward on the near side (the wall-to-top edge taken for the bottom rim, when a
    flocked top hides the far rim), moved along the line to the nadir. Restarted either way
    the true rim explains more edges: on the near side both edges of the wall band, where the
    slid circle explains one.
    """
    towards = nadir_px - np.asarray(centres_px, dtype=np.float64).reshape(-1, 2)
    towards = towards / (np.linalg.norm(towards, axis=1, keepdims=True) + 1e-9)
    return np.array(SETTLE_MOVES_MM)[:, None, None] * px_per_mm * towards[None]


def settling_reach(radius_px: np.ndarray, px_per_mm: float) -> np.ndarray:
    """How far from a settled rim's centre settling reads the frame: its rays' outer end
    (RAY_START + RAY_SPAN radii, plus the parallax and 2 px), from starts up to 2.5 mm off,
    with half a radius more for the fit's own travel."""
    ray_end = RAY_START + RAY_SPAN
    return np.asarray(radius_px) * (ray_end + 0.5) + max(map(abs, SETTLE_MOVES_MM)) * px_per_mm + 6.0


def restart_moves(count: int, px_per_mm: float, distance_mm: float = RESTART_MM) -> np.ndarray:
    """Starts for a rim the verifier doubts: a few millimetres off in every direction (farther,
    `distance_mm`, for one it rejects where the base map expects a base).

    Such a rim is often a real one fitted a few millimetres off: in blur or low light its
    edges are soft, and a miniature's outline or the base's shadow held the fit before it
    reached them (from their true centres, half of the hard validation tables' missed bases
    are accepted). Unlike a slid fit, it may be off in any direction.
    """
    angles = np.linspace(0, 2 * np.pi, RESTARTS, endpoint=False)
    moves = distance_mm * px_per_mm * np.stack([np.cos(angles), np.sin(angles)], 1)[:, None, :]
    return np.broadcast_to(moves, (RESTARTS, count, 2))
