"""A doubtful rim among its squad: the bases of one unit share their paint and stand close.

A squad's bases are flocked and rimmed alike and stand within coherency of each other (1-5 cm
apart or touching). Where the verifier accepts some of them and doubts another, a rim painted
like an accepted base of its size within SQUAD_GAP_MM is that squad's base, not the mat:
the verifier judges each rim alone, and a base flocked like the mat, blurred or half in a
shadow scores under its bar though its squad-mates beside it pass. Printed rings, coins and
tokens seldom stand beside a base of their size in its paint, and the base map must see a
base there too (SQUAD_LIKELIHOOD).
"""

from __future__ import annotations

import numpy as np

from models.verifier import polar_view

RAYS = 48
RING = np.linspace(0.75, 0.97, 6)  # radii: the top's outer band and the rim, inside the edge's blur
# The nearest bases' edges within this (mm): coherency in the seed rulesets is 2-5 cm.
SQUAD_GAP_MM = 50.0
# BGR distance (0-255 levels) between the rings' median colours that counts as one paint.
SAME_PAINT = 10.0
SQUAD_LIKELIHOOD = 0.3


def rim_paint(image: np.ndarray, centres_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """(n, 3) each disc's median colour over its ring."""
    n = len(centres_px)
    if n == 0:
        return np.zeros((0, 3))
    angles = np.broadcast_to(np.linspace(0, 2 * np.pi, RAYS, endpoint=False), (n, RAYS))
    ring = polar_view(image, centres_px, radius_px, angles, RING)
    return np.median(ring.reshape(n, -1, 3).astype(np.float64), axis=1)


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
    mates = rim_paint(image, accepted_px, accepted_mm / 2 * px_per_mm)
    apart_mm = np.linalg.norm(doubtful_px[:, None] - accepted_px[None], axis=-1) / px_per_mm
    gap_mm = apart_mm - (doubtful_mm[:, None] + accepted_mm[None]) / 2
    alike = np.linalg.norm(paint[:, None] - mates[None], axis=-1) < SAME_PAINT
    same_size = doubtful_mm[:, None] == accepted_mm[None]
    return (same_size & (gap_mm < SQUAD_GAP_MM) & alike).any(1) & (likelihood >= SQUAD_LIKELIHOOD)
