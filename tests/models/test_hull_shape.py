"""A hull's roof seen through the camera: only the sides away from the nadir carry its parallax."""

from __future__ import annotations

import pytest

from models.hull_shape import _footprint


def test_only_the_sides_away_from_the_nadir_lose_the_roofs_parallax():
    # Nadir left of the hull: its left side is the footprint's edge, the right one the roof's.
    assert _footprint((10.0, 33.0), 0.0, 1.1) == pytest.approx((10.0, 30.0))
    # Nadir inside: both sides are roof edges, pulled back towards the nadir.
    assert _footprint((-11.0, 22.0), 0.0, 1.1) == pytest.approx((-10.0, 20.0))
