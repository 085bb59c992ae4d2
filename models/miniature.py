"""A base carries a miniature; a token, a coin or a circle printed on the mat does not.

Around the rim those look like a base: a round edge of the right size. What gives them
away is the middle. Seen from above, a miniature stands on its base's centre, so some of
the middle differs from the base's top around it; on a token, a coin or a printed circle
the middle is all one colour with the top. On the validation tables (seeds 20,000-20,029 and
70,000-70,029) this told apart 13 of the 29 false rims the ring-only verifier of then
accepted on clean tables and 17 of 51 on hard ones, for 0 of 657 and 1 of 569 real bases (a
miniature leaning away from the centre, close to the top's colour; a bar of 20 instead of 15
lost 2 and 5). A textured top (flock, sand) is never plain, so there the test keeps the
base: it can only remove plain discs. The verifier's middle net (models/verifier.py) learned
some of this, not all: after it, on six validation sets (3,897 bases), the test still
removes 45 of 81 false rims for 7 bases.
"""

from __future__ import annotations

import numpy as np

from models.verifier import polar_view

RAYS = 48
SAMPLES = 16
MIDDLE = 0.41  # radii: the middle, where a miniature's feet and body stand
TOP = (0.45, 0.6)  # radii: the base's top around it, inside the rim and its edge blur
DIFFERENT = 15.0  # BGR distance from the top's colour that counts as something else
MIN_DIFFERENT_SHARE = 0.03  # below this share of the middle, the disc is bare


def carries_a_miniature(image: np.ndarray, centres_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """(n,) bool: whether anything other than the top's colour stands in each disc's middle."""
    n = len(centres_px)
    if n == 0:
        return np.zeros(0, bool)
    angles = np.broadcast_to(np.linspace(0, 2 * np.pi, RAYS, endpoint=False), (n, RAYS))
    frac = np.linspace(0.0, TOP[1], SAMPLES)
    polar = polar_view(image, centres_px, radius_px, angles, frac)
    top = np.median(polar[:, :, frac >= TOP[0]].reshape(n, -1, 3), axis=1)  # (n, 3)
    middle = polar[:, :, frac <= MIDDLE].reshape(n, -1, 3)
    different = np.linalg.norm(middle - top[:, None], axis=-1) > DIFFERENT
    return different.mean(1) >= MIN_DIFFERENT_SHARE
