"""Measuring a hull's side: only a line deep within the shade is a dark thing standing in it."""

from __future__ import annotations

import numpy as np

from models.hull_sides import _in_the_shade


def test_only_a_line_deep_within_the_shade_is_a_dark_thing_in_it():
    """Shading-free log colours (lightness, two chroma) as 72,021 and 71,020 measured them: a
    line between the mat's deep shade and darker tracks is in the shade; a shadow's edge on a
    lit blotch a third darker than the mat's median, or grain within the shade, is not."""
    mat = np.array([8.75, -0.06, -0.19])
    shade, tracks = np.array([7.66, -0.07, -0.16]), np.array([6.12, -0.01, -0.07])
    assert _in_the_shade(mat, shade, tracks)
    assert not _in_the_shade(None, shade, tracks)
    sand = np.array([8.24, -0.25, -0.26])
    blotch, its_shadow = np.array([7.91, -0.26, -0.26]), np.array([7.06, -0.3, -0.29])
    assert not _in_the_shade(sand, blotch, its_shadow)
    assert not _in_the_shade(mat, shade, shade - [0.2, 0, 0])
