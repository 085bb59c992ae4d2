"""Buildings told from hulls by their walls: a near side measured on a roof over a wall taller
than a hull's is a building's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.hull_shape import Blob, axes_of
from models.hull_view import foreground
from models.hull_walls import _roof_over_a_tall_wall
from tests.models.top_down import TOP_DOWN_CAMERA, TOP_DOWN_FOOTPRINT, blotchy, roof_px


@pytest.mark.parametrize(
    ("wall_cm", "measured_at", "shade", "building"),
    [
        (15.0, "roof", 0.0, True),
        (10.0, "roof", 0.0, True),
        (4.0, "roof", 0.0, False),
        (4.0, "foot", 2.0, False),
    ],
)
def test_a_near_side_on_a_roof_over_a_wall_taller_than_a_hulls_is_a_building(
    wall_cm, measured_at, shade, building
):
    """A box 20 cm from the nadir whose near side was measured at its roof's edge, the wall
    below it (in shade) out to its foot on the mat: a wall 10-15 cm tall is a building's, a
    4 cm one a hull's. Measured at its foot, a hull has the ground outside, its shadow too."""
    x0, x1, y0, y1 = TOP_DOWN_FOOTPRINT
    cx, cy = TOP_DOWN_CAMERA[:2]
    height = TOP_DOWN_CAMERA[2]
    roof_near = round(cy * 10 + (y0 - cy * 10) * height / (height - wall_cm))
    image = blotchy((60, 110, 70))
    image[y0 - round(shade * 10) : y0, x0:x1] *= 0.5
    image[y0:roof_near, x0:x1] = (40, 60, 140)
    image[roof_near : roof_px(y1, cy), roof_px(x0, cx) : roof_px(x1, cx)] = (60, 90, 200)
    image += np.random.default_rng(0).normal(0.0, 3.0, image.shape)
    image = np.clip(cv2.GaussianBlur(image, (0, 0), 0.8), 0, 255).astype(np.uint8)
    near = roof_near if measured_at == "roof" else y0
    extent = np.array([[x0 / 10, x1 / 10], [near / 10, roof_px(y1, cy) / 10]])
    blob = Blob(0.0, axes_of(0.0), extent, 0.95)
    assert _roof_over_a_tall_wall(foreground(image, 1.0), blob, TOP_DOWN_CAMERA) is building
