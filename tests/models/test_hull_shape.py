"""A hull's roof seen through the camera: only the sides away from the nadir carry its parallax."""

from __future__ import annotations

import numpy as np
import pytest

from models.hull_shape import _footprint


def test_only_the_sides_away_from_the_nadir_lose_the_roofs_parallax():
    # Nadir left of the hull: its left side is the footprint's edge, the right one the roof's.
    assert _footprint((10.0, 33.0), 0.0, 1.1) == pytest.approx((10.0, 30.0))
    # Nadir inside: both sides are roof edges, pulled back towards the nadir.
    assert _footprint((-11.0, 22.0), 0.0, 1.1) == pytest.approx((-10.0, 20.0))


def test_a_blobs_axes_run_along_its_heading_in_0_to_180_degrees():
    from models.hull_shape import Blob, axes_of

    turned = Blob(-0.01 % 180, axes_of(-0.01), np.array([[20.0, 40.0], [15.0, 25.0]]), 1.0)
    assert 0.0 <= turned.heading_deg < 180.0
    assert turned.axes[0] @ axes_of(turned.heading_deg)[0] > 0.999
    plain = Blob(0.0, axes_of(0.0), np.array([[20.0, 40.0], [15.0, 25.0]]), 1.0)
    assert np.allclose(turned.centre_cm, plain.centre_cm, atol=0.01)
    assert np.allclose(turned.size_cm, [20.0, 10.0])
