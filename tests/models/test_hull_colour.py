"""Shading-free colour: a shadow is the ground scaled darker, and the fast reductions are numpy's
values bit for bit."""

from __future__ import annotations

import numpy as np

from models.hull_colour import colour_distance, median_colours, shading_free, shadowed


def test_a_shadow_darkens_the_ground_by_one_factor_and_dark_tracks_are_no_shadow():
    mat = (50.0, 120.0, 40.0)  # green felt
    lit, shaded = (shading_free(np.array([[c]], np.uint8))[0, 0] for c in (mat, [0.45 * v for v in mat]))
    track = shading_free(np.array([[(30, 30, 32)]], np.uint8))[0, 0]
    assert shadowed(lit, shaded)
    assert not shadowed(lit, track)
    assert not shadowed(shaded, lit)  # lighter is no shadow

def test_colour_distance_is_numpys_norm_bit_for_bit():
    difference = np.random.default_rng(3).normal(0, 0.2, (40, 33, 3)).astype(np.float32)
    assert np.array_equal(colour_distance(difference), np.linalg.norm(difference, axis=-1))

def test_median_colours_of_stretches_of_any_width_are_each_stretchs_own():
    profiles = np.random.default_rng(4).normal(0, 0.3, (25, 30, 3)).astype(np.float32)
    stretches = [(0, 4), (27, 30), (29, 30), (10, 14), (3, 6)]
    colours = median_colours(profiles, stretches, 0.5)
    for (start, stop), colour in zip(stretches, colours, strict=True):
        own = np.median(profiles[:, start:stop].mean(axis=1), axis=0)
        own[0] /= 0.5
        assert np.array_equal(colour, own)
