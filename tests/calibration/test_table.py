"""Calibrating rendered tables: accuracy, the 2-marker case, bad marker handling, serialisation."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.aruco import find_markers
from calibration.camera import SENSORS, Camera, focal_to_fit
from calibration.intrinsics import Intrinsics
from calibration.pose import ASSUMED_HEIGHT_CM
from calibration.table import TableCalibration, calibrate
from models.synth.truth_calibration import CameraCalibration
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot, shoot, table_camera


def cover(shot: Shot, marker_ids: list[int]) -> np.ndarray:
    """The shot with the given markers (and their white paper) painted over in mat grey."""
    image = shot.image.copy()
    for marker_id in marker_ids:
        corners = shot.layout.corners_by_id[marker_id]
        centre = corners.mean(0)
        paper = shot.camera.project(centre + (corners - centre) * 1.7)
        cv2.fillPoly(image, [np.round(paper).astype(np.int32)], (90, 100, 95))
    return image


def mapping_error_mm(calibration: TableCalibration, shot: Shot, points_cm: np.ndarray) -> np.ndarray:
    return np.linalg.norm(calibration.image_to_table(shot.camera.project(points_cm)) - points_cm, axis=1) * 10


@pytest.fixture(scope="module")
def calibrated(table_shot: Shot) -> TableCalibration:
    return calibrate(table_shot.image, table_shot.layout, table_shot.intrinsics)


def _map_sources(maps: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The source pixel OpenCV's fixed-point maps give each table pixel: whole pixels plus
    1/32 steps."""
    whole, fraction = maps
    return whole + np.stack([fraction % 32, fraction // 32], axis=-1) / 32


@pytest.mark.parametrize("px_per_mm", [0.5, 0.83])
def test_rectify_maps_send_every_pixel_where_the_lens_model_does(calibrated, table_shot, px_per_mm):
    """The maps come from one C++ call, not point by point through table_to_image, but each
    pixel's source is the point-wise one to the maps' 1/32 px (rounded: half of it), for the
    fitted calibration with and without its lens and for the render's exact camera alike."""
    scale = 10 * px_per_mm
    width_cm, depth_cm = calibrated.layout.table_size_cm
    u, v = np.meshgrid(
        (np.arange(round(width_cm * scale)) + 0.5) / scale, (np.arange(round(depth_cm * scale)) + 0.5) / scale
    )
    table = np.stack([u.ravel(), v.ravel()], axis=1)
    exact = CameraCalibration(table_shot.camera, (width_cm, depth_cm))
    lensless = replace(calibrated, intrinsics=None, _maps={})  # the image taken as undistorted
    for calibration in (calibrated, lensless, exact):
        source = calibration.table_to_image(table).reshape(*u.shape, 2)
        rect = calibration.rectify(table_shot.image, px_per_mm)
        assert rect.shape[:2] == u.shape
        maps = calibration._maps(px_per_mm) if calibration is exact else calibration._maps[px_per_mm]
        assert np.abs(_map_sources(maps) - source).max() < 1 / 64 + 1e-4


def test_with_intrinsics_the_whole_table_maps_to_a_tenth_of_a_millimetre(calibrated, table_shot, grid_cm):
    error = mapping_error_mm(calibrated, table_shot, grid_cm)
    assert np.sqrt(np.mean(error**2)) < 0.15 and error.max() < 0.5
    assert calibrated.marker_ids == [0, 1, 2, 3]
    assert calibrated.rms_mm < 0.2 and calibrated.max_mm < 0.5
    assert calibrated.warnings == []


def test_table_to_image_follows_the_camera_on_and_above_the_table(calibrated, table_shot, grid_cm):
    raised = np.hstack([grid_cm, np.full((len(grid_cm), 1), 6.0)])
    assert np.abs(calibrated.table_to_image(grid_cm) - table_shot.camera.project(grid_cm)).max() < 0.1
    assert np.abs(calibrated.table_to_image(raised) - table_shot.camera.project(raised)).max() < 0.15
    back = calibrated.image_to_table(calibrated.table_to_image(grid_cm))
    assert np.abs(back - grid_cm).max() < 1e-6


def test_camera_centre_is_found_with_and_without_a_lens_calibration(calibrated, table_shot, straight_shot):
    assert np.abs(calibrated.camera_centre_cm - table_shot.camera.centre_cm).max() < 0.5
    without = calibrate(straight_shot.image, straight_shot.layout)
    assert np.abs(without.camera_centre_cm - straight_shot.camera.centre_cm).max() < 2.0


def test_calibration_json_round_trip(calibrated, table_shot, grid_cm):
    data = json.loads(json.dumps(calibrated.to_dict()))
    assert {"layout", "image_size", "K", "dist", "homography", "marker_ids", "rms_mm", "max_mm"} <= set(data)
    assert data["image_size"] == [2304, 1296]
    again = TableCalibration.from_dict(data)
    px = table_shot.camera.project(grid_cm)
    assert np.allclose(again.image_to_table(px), calibrated.image_to_table(px), atol=1e-6)
    assert np.allclose(again.camera_centre_cm, calibrated.camera_centre_cm)
    # The homography applies to cv2.undistortPoints(p, K, dist, P=K), as CONTRACTS.md says.
    undistorted = cv2.undistortPoints(px.reshape(-1, 1, 2), np.array(data["K"]), np.array(data["dist"]),
                                      P=np.array(data["K"])).reshape(-1, 2)
    mapped = cv2.perspectiveTransform(undistorted.reshape(-1, 1, 2), np.array(data["homography"]))
    assert np.abs(mapped.reshape(-1, 2) - grid_cm).max() < 0.01


def test_a_file_without_pose_still_loads(calibrated, table_shot, grid_cm):
    data = calibrated.to_dict()
    del data["pose"]
    again = TableCalibration.from_dict(data)
    assert np.abs(again.camera_centre_cm - table_shot.camera.centre_cm).max() < 1.0


def test_rectified_image_puts_each_table_point_where_it_belongs(calibrated, table_shot):
    px_per_mm = 0.5
    top = calibrated.rectify(table_shot.image, px_per_mm)
    w, d = table_shot.layout.table_size_cm
    assert top.shape[:2] == (round(d * 10 * px_per_mm), round(w * 10 * px_per_mm))
    # ArUco misses markers whose white paper runs into the image border: give it a margin.
    pad = 40
    padded = cv2.copyMakeBorder(top, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    seen = find_markers(padded, table_shot.layout).corners
    assert sorted(seen) == [0, 1, 2, 3]
    for marker_id, quad in seen.items():
        expected = table_shot.layout.corners_by_id[marker_id] * 10 * px_per_mm - 0.5 + pad
        assert np.abs(quad - expected).max() < 0.15


def test_two_markers_are_enough_and_it_says_so(table_shot, grid_cm):
    image = cover(table_shot, [1, 3])
    calibration = calibrate(image, table_shot.layout, table_shot.intrinsics)
    assert calibration.marker_ids == [0, 2]
    error = mapping_error_mm(calibration, table_shot, grid_cm)
    assert np.sqrt(np.mean(error**2)) < 0.5
    assert any("only 2 markers" in w for w in calibration.warnings)
    assert any("1, 3 not found" in w for w in calibration.warnings)


def test_markers_on_one_side_warn_of_extrapolation(table_shot):
    calibration = calibrate(cover(table_shot, [2, 3]), table_shot.layout, table_shot.intrinsics)
    assert any("only span x 2.5-180.5 cm, y 2.5-12.5 cm" in w for w in calibration.warnings)


def test_a_misplaced_marker_is_left_out(layout, grid_cm):
    placed = [m if m.id != 2 else type(m)(2, m.corners_cm + np.array([-2.5, 1.5])) for m in
              layout.markers_as_synthetic()]
    shot = shoot(layout, table_camera(layout, tilt_deg=2.0), markers=placed, seed=5)
    calibration = calibrate(shot.image, layout, shot.intrinsics)
    assert calibration.marker_ids == [0, 1, 3]
    assert calibration.rejected_ids == [2]
    assert np.sqrt(np.mean(mapping_error_mm(calibration, shot, grid_cm) ** 2)) < 0.5
    assert any("2 ignored" in w for w in calibration.warnings)


def printed_at(layout, scale: float) -> list:
    """The layout's markers as printed at `scale` of their size (a print scaled to fit the
    page), each about its own centre."""
    return [type(m)(m.id, m.corners_cm.mean(0) + scale * (m.corners_cm - m.corners_cm.mean(0)))
            for m in layout.markers_as_synthetic()]


def test_markers_printed_smaller_still_map_the_table_and_raise_no_lens_warning(layout, grid_cm):
    """Printed at 97 % (a print scaled to fit the page) every marker is 1.5 mm short of its
    square on each side; their centres are where the layout says, and so is the table."""
    printed = printed_at(layout, 0.97)
    shot = shoot(layout, table_camera(layout, tilt_deg=3.0), markers=printed, seed=6)
    calibration = calibrate(shot.image, layout, shot.intrinsics)
    assert calibration.marker_ids == [0, 1, 2, 3]
    assert calibration.max_mm < 0.3
    assert not any("disagree" in w for w in calibration.warnings)
    assert np.sqrt(np.mean(mapping_error_mm(calibration, shot, grid_cm) ** 2)) < 0.1


def test_without_intrinsics_a_lens_is_told_from_markers_printed_smaller(layout, grid_cm):
    """Shrunken markers (a blurred photo, a print scaled to the page) are no lens: the lens is
    estimated with the markers' common edge offset beside it, and kept for the bend alone."""
    printed = printed_at(layout, 0.97)
    camera = table_camera(layout, dist=np.array([-0.05, 0.015, 0.0, 0.0, 0.0]))
    shot = shoot(layout, camera, markers=printed, seed=7)
    calibration = calibrate(shot.image, layout)
    assert calibration.lens_estimated
    assert np.sqrt(np.mean(mapping_error_mm(calibration, shot, grid_cm) ** 2)) < 0.5


@pytest.mark.parametrize(("covered", "message"),
                         [([0, 1, 2, 3], "no layout markers"), ([0, 1, 3], "only marker 2")])
def test_fewer_than_two_markers_is_an_error(table_shot, covered, message):
    with pytest.raises(TablesightError, match=message):
        calibrate(cover(table_shot, covered), table_shot.layout, table_shot.intrinsics)


@pytest.mark.parametrize("flip", [1, 0], ids=["left-right", "top-bottom"])
def test_a_mirrored_photo_is_named_mirrored_not_markerless(table_shot, flip):
    """A printed marker seen in a mirror decodes as no marker, so a front camera's flipped photo
    was refused as a table without markers."""
    with pytest.raises(TablesightError, match=r"image is mirrored: markers 0, 1, 2, 3 .*flip the photo back"):
        calibrate(cv2.flip(table_shot.image, flip), table_shot.layout)


def test_the_same_marker_twice_is_an_error(table_shot):
    image = table_shot.image.copy()
    box = np.round(table_shot.camera.project(table_shot.layout.corners_by_id[0])).astype(int)
    x0, y0 = box.min(0) - 25
    x1, y1 = box.max(0) + 25
    image[600:600 + y1 - y0, 1000:1000 + x1 - x0] = image[y0:y1, x0:x1]
    with pytest.raises(TablesightError, match="marker id 0 is seen twice"):
        calibrate(image, table_shot.layout, table_shot.intrinsics)


def test_intrinsics_of_another_sensor_mode_are_refused(table_shot):
    wrong = Intrinsics(table_shot.camera.K, table_shot.camera.dist, (4056, 3040))
    with pytest.raises(TablesightError, match="intrinsics are for 4056x3040 images but"):
        calibrate(table_shot.image, table_shot.layout, wrong)


def test_rectify_refuses_an_image_of_another_size(calibrated):
    with pytest.raises(TablesightError, match="calibration is for 2304x1296"):
        calibrated.rectify(np.zeros((100, 100, 3), np.uint8), 1.0)


def test_without_intrinsics_the_lens_is_estimated_from_the_markers(table_shot, grid_cm):
    calibration = calibrate(table_shot.image, table_shot.layout)
    assert calibration.marker_ids == [0, 1, 2, 3] and calibration.lens_estimated
    assert any("lens distortion estimated from the markers" in w for w in calibration.warnings)
    error = mapping_error_mm(calibration, table_shot, grid_cm)
    assert np.sqrt(np.mean(error**2)) < 0.15
    # Written as CONTRACTS.md says: K and dist present, homography on undistorted pixels.
    data = json.loads(json.dumps(calibration.to_dict()))
    px = table_shot.camera.project(grid_cm)
    K, dist = np.array(data["K"]), np.array(data["dist"])
    undistorted = cv2.undistortPointsIter(px.reshape(-1, 1, 2), K, dist, None, K,
                                          (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10))
    mapped = cv2.perspectiveTransform(undistorted, np.array(data["homography"])).reshape(-1, 2)
    assert np.sqrt(np.mean(np.sum((mapped - grid_cm) ** 2, axis=1))) * 10 < 0.15


def test_a_straight_lens_gets_no_estimated_distortion(straight_shot):
    calibration = calibrate(straight_shot.image, straight_shot.layout)
    assert not calibration.lens_estimated and calibration.to_dict()["K"] is None


def test_three_corner_markers_still_span_the_table(table_shot):
    calibration = calibrate(cover(table_shot, [1]), table_shot.layout, table_shot.intrinsics)
    assert calibration.marker_ids == [0, 2, 3]
    assert calibration.warnings == ["marker 1 not found (covered, out of view or glared)"]


@pytest.mark.parametrize("shape", [(2, 2), (1, 500), (500, 1), (12, 900)])
def test_an_image_too_small_for_markers_is_an_error(layout, shape):
    with pytest.raises(TablesightError, match=rf"only {shape[1]}x{shape[0]} pixels, too small"):
        calibrate(np.full((*shape, 3), 128, np.uint8), layout)


@pytest.mark.parametrize(
    ("px_per_mm", "message"),
    [
        (float("nan"), "must be positive and finite"),
        (float("inf"), "must be positive and finite"),
        (100.0, "makes the 183x122 cm table 183000x122000 pixels"),
        (1e-4, "makes the 183x122 cm table 0x0 pixels"),
    ],
)
def test_rectify_names_a_scale_it_cannot_draw(calibrated, px_per_mm, message):
    image = np.zeros((calibrated.image_size[1], calibrated.image_size[0], 3), np.uint8)
    with pytest.raises(TablesightError, match=message):
        calibrated.rectify(image, px_per_mm)


def test_straight_down_through_a_lens_estimated_from_the_markers_the_height_is_said_to_be_assumed(layout):
    """Straight down the markers fix only focal length over height, with a lens estimated from
    them as without one: the focal length is the one a camera 185 cm up would need, and the
    player is told so (a camera 160 cm up put at 185 said nothing)."""
    size = SENSORS["cm3-binned"]
    camera = Camera.looking_at((91.5, 61.0), 160.0, image_size=size,
                               focal_px=focal_to_fit(layout.table_size_cm, 160.0, size),
                               dist=np.array([-0.08, 0.02, 0.0, 0.0, 0.0]))
    calibration = calibrate(shoot(layout, camera).image, layout)
    assert calibration.lens_estimated
    assert calibration.camera_centre_cm[2] == pytest.approx(ASSUMED_HEIGHT_CM, abs=1.0)
    assert any(w.startswith("camera height assumed to be 185 cm") for w in calibration.warnings)
