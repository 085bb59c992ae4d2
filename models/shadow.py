"""Which way the bases' shadows fall, read off the bases already found.

Under a low light a base's shadow crescent and its miniature's shadow lie beside it on one
side, the same side for every base on the table, and pull a faint rim's vote peak 6-15 mm that
way (path-traced hard validation tables: half the bases with no candidate near them had their
nearest peak there). The accepted rims show the direction: the ground just outside each is
darker on its shadow side than a little further out. Each base gives the direction of that
darkening; the table's is their mean, trusted only when they agree.

How long the shadows are (`shadow_offset`) is read off the same bases: refitted with their
shadow's circle cast each of a few lengths that way (`models/rim_fit.py`, SHADOW_SIDE_COS),
the true length explains the most edges. On the 60 path-traced validation tables a shadow was
read on 26, its direction within 25 degrees of the light's on all, its length within 0.5 mm
of what the light casts from a 3.5 mm base on 12 and within 1 mm on 22. Settling then fits
each base with its shadow's circle, from its own start and one as far back from the shadow.
"""

from __future__ import annotations

import cv2
import numpy as np

ANGLES = 32
NEAR_MM = (1.5, 2.5, 3.5, 4.5)  # past the rim: the crescent, clear of the rim's own blur
GROUND_MM = (8.0, 9.0, 10.0)  # the ground the darkening is measured against
MIN_BASES = 5
# The mean of the bases' unit directions is at least this long: on the 30 path-traced hard
# validation tables 19 passed 0.5, and on 17 of them the direction came out within 23 degrees
# of the light (77 and 78 degrees off on two where the light stood 15-19 degrees off the
# vertical and the shadows were a millimetre wide).
MIN_AGREEMENT = 0.5
LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR
# The lengths tried: a 3.5 mm base under a light 30-75 degrees up. A length must explain more
# edges than none by LONGER_MARGIN, as a moved settling start must (SETTLE_MARGIN), and more
# than the longest by FALL_OFF of that: a true shadow's circle explains its edges and longer
# ones do not, while edge weight that keeps growing with the length is clutter taken in (the
# painter's soft shadows, blurred 1.5 mm, read longest at 6 mm on tables cast 1.7-2.7 mm).
SHADOW_LENGTHS_MM = (1.5, 2.5, 3.5, 4.5, 6.0)
LONGER_MARGIN = 0.02
FALL_OFF = 0.05
SEARCH_RAYS = 24  # half the settling's: the lengths are compared, not measured
MAX_MEASURED = 10  # bases the length is read from: enough to agree, few enough to be cheap


def shadow_direction(
    rect: np.ndarray, centres_px: np.ndarray, radius_px: np.ndarray, px_per_mm: float
) -> np.ndarray | None:
    """The unit vector (rectified image x, y) along which shadows fall, or None when the found
    bases are too few or disagree (a light from overhead, a diffuse one)."""
    if len(centres_px) < MIN_BASES:
        return None
    angles = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False)
    around = np.stack([np.cos(angles), np.sin(angles)], 1)
    near = _ring_lightness(rect, centres_px, radius_px, NEAR_MM, px_per_mm, around).mean(axis=2)
    ground = _ring_lightness(rect, centres_px, radius_px, GROUND_MM, px_per_mm, around)
    ground = np.median(ground.reshape(len(centres_px), -1), axis=1)
    darkening = np.clip(1 - near / np.maximum(ground[:, None], 1.0), 0, None)
    pull = darkening @ around
    strength = np.linalg.norm(pull, axis=1)
    seen = strength > 0
    if seen.sum() < MIN_BASES:
        return None
    mean = (pull[seen] / strength[seen, None]).mean(axis=0)
    agreement = float(np.linalg.norm(mean))
    return mean / agreement if agreement >= MIN_AGREEMENT else None


def _ring_lightness(
    rect: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    offsets_mm: tuple[float, ...],
    px_per_mm: float,
    around: np.ndarray,
) -> np.ndarray:
    """Lightness (n bases, angles, offsets) on circles the given distances outside each rim."""
    radii = radius_px[:, None] + px_per_mm * np.asarray(offsets_mm)[None]
    pts = centres_px[:, None, None, :] + radii[:, None, :, None] * around[None, :, None, :]
    flat = pts.reshape(1, -1, 2).astype(np.float32)
    sampled = cv2.remap(rect, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return (sampled.reshape(-1, 3).astype(np.float32) @ LUMA).reshape(pts.shape[:3])


def shadow_offset(
    rect: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    nominal_px: np.ndarray,
    nadir_px: np.ndarray,
    camera_height_mm: float,
    px_per_mm: float,
) -> np.ndarray | None:
    """How far and which way (rectified pixels, x and y) the bases' shadows are cast, from the
    accepted rims given; None when they show no direction or no length explains more edges
    than none."""
    from models.rim_fit import refits

    falling = shadow_direction(rect, centres_px, radius_px, px_per_mm)
    if falling is None:
        return None
    centres, radius, nominal = centres_px[:MAX_MEASURED], radius_px[:MAX_MEASURED], nominal_px[:MAX_MEASURED]
    # Every length (none first) at once: each is the bases again with their shadows cast that
    # far, so one batch of fits weighs them all (a call per length cost 3-4 ms of overhead).
    casts = np.multiply.outer(np.array((0.0, *SHADOW_LENGTHS_MM)) * px_per_mm, falling)  # (lengths, 2)
    lengths, count = len(casts), len(centres)
    shadow = np.repeat(casts, count, axis=0)
    # A fit held between its rim and its shadow's edge leaves that optimum only from a start
    # nearer the rim: each is refitted from as far back from its shadow as the shadow is cast.
    # With none cast that start is the rim's own, fitted already: only the lengths get it.
    cast = shadow[count:]
    fits = 2 * lengths - 1
    _, _, support = refits(
        rect, np.concatenate([np.tile(centres, (lengths, 1)), np.tile(centres, (lengths - 1, 1)) + -cast]),
        np.tile(radius, fits), np.tile(nominal, fits), nadir_px, camera_height_mm, px_per_mm,
        np.zeros((0, fits * count, 2)), np.concatenate([shadow, cast]), rays=SEARCH_RAYS,
    )
    own, back = support[0, : lengths * count], support[0, lengths * count :]
    totals = np.concatenate([own[:count], np.maximum(own[count:], back)]).reshape(lengths, -1).sum(axis=1)
    none, totals = totals[0], totals[1:]
    best = int(np.argmax(totals))
    if totals[best] < none * (1 + LONGER_MARGIN) or totals[best] < totals[-1] + FALL_OFF * none:
        return None
    return casts[1 + best]
