"""Blobs of the coarse masks: a piece cut off a tall thing that is only the ground darkened is its
shadow."""

from __future__ import annotations

import numpy as np

from models.hull_blobs import ground_in_shadow
from models.hull_shape import Blob, axes_of
from models.hull_view import foreground


def test_a_piece_that_is_the_ground_darkened_is_a_shadow_and_a_dark_grey_roof_is_not():
    """A piece cut off a tall building may be its shadow: inside, the felt around it scaled
    darker. A dark grey roof on the same felt has its own hue."""
    felt = np.array([60, 130, 70], np.float64)  # BGR green felt
    rng = np.random.default_rng(3)
    rect = np.clip(felt + rng.normal(0, 3, (600, 600, 3)), 0, 255)
    piece = Blob(0.0, axes_of(0.0), np.array([[20.0, 40.0], [25.0, 35.0]]), 1.0, cut=True)
    shadowed, roofed = rect.copy(), rect.copy()
    shadowed[250:350, 200:400] *= 0.45
    roofed[250:350, 200:400] = (55, 55, 60)
    assert ground_in_shadow(foreground(shadowed.astype(np.uint8), 1.0), piece)
    assert not ground_in_shadow(foreground(roofed.astype(np.uint8), 1.0), piece)
