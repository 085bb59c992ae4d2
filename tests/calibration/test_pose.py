"""Camera position without a lens calibration: the focal length read off the homography."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import SENSORS, Camera
from calibration.layout import default_layout
from calibration.pose import ASSUMED_HEIGHT_CM, focal_from_homography, solve_pose
from tests.calibration.conftest import table_camera


@pytest.mark.parametrize("tilt", [4.0, 8.0])
def test_focal_length_and_height_from_a_tilted_view(tilt):
    layout = default_layout()
    camera = table_camera(layout, tilt_deg=tilt)
    H = camera.table_homography()
    focal = focal_from_homography(H, camera.image_size)
    assert focal == pytest.approx(camera.K[0, 0], rel=0.01)
    table = np.concatenate(list(layout.corners_by_id.values()))
    pose = solve_pose(table, camera.project(table), None, camera.image_size, H,
                      markers=len(layout.corners_by_id))
    assert not pose.height_assumed
    assert np.abs(pose.centre_cm - camera.centre_cm).max() < 1.0


def test_straight_down_the_focal_length_is_not_guessed():
    layout = default_layout()
    camera = table_camera(layout, tilt_deg=0.0)
    assert focal_from_homography(camera.table_homography(), camera.image_size) is None
    table = np.concatenate(list(layout.corners_by_id.values()))
    pose = solve_pose(table, camera.project(table), None, camera.image_size, camera.table_homography(),
                      markers=len(layout.corners_by_id))
    assert pose.height_assumed


@pytest.mark.parametrize(("height_cm", "focal_px"), [(160.0, 1100.0), (210.0, 1900.0)])
def test_straight_down_the_height_is_assumed_not_the_lens(height_cm, focal_px):
    """Straight down the markers fix only focal length over height; a lens assumed (66 degrees,
    1,774 px here) put these cameras 258 and 196 cm up. The height the rig hangs a camera at is
    assumed instead, which also sets the focal length, so a camera 150-220 cm up is at most
    35 cm off whatever its lens."""
    layout = default_layout()
    table = np.concatenate(list(layout.corners_by_id.values()))
    camera = Camera.looking_at((91.5, 61.0), height_cm, image_size=SENSORS["cm3-binned"], focal_px=focal_px)
    pose = solve_pose(table, camera.project(table), None, camera.image_size, camera.table_homography(),
                      markers=len(layout.corners_by_id))
    assert pose.height_assumed
    assert pose.centre_cm[2] == pytest.approx(ASSUMED_HEIGHT_CM, abs=0.5)
    assert pose.K[0, 0] == pytest.approx(focal_px * ASSUMED_HEIGHT_CM / height_cm, rel=0.005)
