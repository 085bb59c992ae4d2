"""A doubtful rim among its squad: the bases of one unit share their paint and stand close.

A squad's bases are flocked and rimmed alike and stand within coherency of each other (1-5 cm
apart or touching). Where the verifier accepts some of them and doubts another, a rim painted
like an accepted base of its size within SQUAD_GAP_MM is that squad's base, not the mat:
the verifier judges each rim alone, and a base flocked like the mat, blurred or half in a
shadow scores under its bar though its squad-mates beside it pass. Printed rings, coins and
tokens seldom stand beside a base of their size in its paint, and the base map must see a
base there too (SQUAD_LIKELIHOOD). A ring on the bare mat beside a squad flocked like the mat
is painted like that squad as well, so a ring must also stand off the mat around it.

On the eight validation sets (5,075 bases) this accepted 11 more bases for no more false rims
(path-traced hard 600 -> 606 of 636). With the frames' colours changed as another renderer or
camera might (saturation x0.6 or x1.4, sharpened, grain of 4 levels) it still gained 4-6 of
those 636 bases, for 0-1 false rims more.
"""

from __future__ import annotations

import numpy as np

from models.medians import row_median
from models.verifier import polar_view

RAYS = 48
RING = np.linspace(0.75, 0.97, 6)  # radii: the top's outer band and the rim, inside the edge's blur
AROUND = np.linspace(1.4, 1.8, 5)  # radii: the mat beside the rim, past its shadow's edge
# The nearest bases' edges within this (mm): coherency in the seed rulesets is 2-5 cm.
SQUAD_GAP_MM = 50.0
# BGR distance (0-255 levels) between the rings' median colours that counts as one paint.
SAME_PAINT = 10.0
SQUAD_LIKELIHOOD = 0.3
# BGR distance a ring must stand from the mat around it: a ring fitted on bare mat beside a
# squad flocked like the mat is painted like that squad too. A base flocked like the mat still
# stands off it by its rim and its shadow (7.4 and up on the validation tables).
OFF_THE_MAT = 7.0


def rim_paint(
    image: np.ndarray, centres_px: np.ndarray, radius_px: np.ndarray, fractions: np.ndarray = RING
) -> np.ndarray:
    """(n, 3) each disc's median colour over its ring (or over other `fractions` of its radius)."""
    n = len(centres_px)
    if n == 0:
        return np.zeros((0, 3))
    angles = np.broadcast_to(np.linspace(0, 2 * np.pi, RAYS, endpoint=False), (n, RAYS))
    ring = polar_view(image, centres_px, radius_px, angles, fractions)
    return row_median(ring.reshape(n, -1, 3).astype(np.float64), axis=1)


def among_its_squad(
    image: np.ndarray,
    px_per_mm: float,
    doubtful_px: np.ndarray,
    doubtful_mm: np.ndarray,
    likelihood: np.ndarray,
    accepted_px: np.ndarray,
    accepted_mm: np.ndarray,
) -> np.ndarray:
    """(n,) whether each doubtful rim (centres in `image` pixels, class diameters, the base map's
    likelihood there) stands within SQUAD_GAP_MM of an accepted rim of its size painted like it."""
    if not len(doubtful_px) or not len(accepted_px):
        return np.zeros(len(doubtful_px), bool)
    paint = rim_paint(image, doubtful_px, doubtful_mm / 2 * px_per_mm)
    mat = rim_paint(image, doubtful_px, doubtful_mm / 2 * px_per_mm, AROUND)
    mates = rim_paint(image, accepted_px, accepted_mm / 2 * px_per_mm)
    apart_mm = np.linalg.norm(doubtful_px[:, None] - accepted_px[None], axis=-1) / px_per_mm
    gap_mm = apart_mm - (doubtful_mm[:, None] + accepted_mm[None]) / 2
    alike = np.linalg.norm(paint[:, None] - mates[None], axis=-1) < SAME_PAINT
    same_size = doubtful_mm[:, None] == accepted_mm[None]
    off_the_mat = np.linalg.norm(paint - mat, axis=-1) >= OFF_THE_MAT
    seen = (likelihood >= SQUAD_LIKELIHOOD) & off_the_mat
    return (same_size & (gap_mm < SQUAD_GAP_MM) & alike).any(1) & seen
