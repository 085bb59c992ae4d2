"""Camera position without a lens calibration: the focal length read off the homography."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.layout import default_layout
from calibration.pose import focal_from_homography, solve_pose
from tests.calibration.conftest import table_camera


@pytest.mark.parametrize("tilt", [4.0, 8.0])
def test_focal_length_and_height_from_a_tilted_view(tilt):
    layout = default_layout()
    camera = table_camera(layout, tilt_deg=tilt)
    H = camera.table_homography()
    focal = focal_from_homography(H, camera.image_size)
    assert focal == pytest.approx(camera.K[0, 0], rel=0.01)
    table = np.concatenate(list(layout.corners_by_id.values()))
    pose = solve_pose(table, camera.project(table), None, camera.image_size, H)
    assert pose.focal_estimated and not pose.focal_nominal
    assert np.abs(pose.centre_cm - camera.centre_cm).max() < 1.0


def test_straight_down_the_focal_length_is_not_guessed():
    layout = default_layout()
    camera = table_camera(layout, tilt_deg=0.0)
    assert focal_from_homography(camera.table_homography(), camera.image_size) is None
    table = np.concatenate(list(layout.corners_by_id.values()))
    pose = solve_pose(table, camera.project(table), None, camera.image_size, camera.table_homography())
    assert pose.focal_nominal
