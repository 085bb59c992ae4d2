"""The drift watch: a bumped camera is caught; noise, JPEG, light and a hand are not drift."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import Camera
from calibration.drift import DriftWatch
from calibration.table import calibrate
from rules_core.errors import TablesightError
from tests.calibration.conftest import Shot, shoot


@pytest.fixture(scope="module")
def watch(straight_shot: Shot) -> DriftWatch:
    return DriftWatch(calibrate(straight_shot.image, straight_shot.layout), straight_shot.image)


def bumped(camera: Camera, degrees: float) -> Camera:
    """The same camera turned by `degrees` about its own centre, as a knock on the rig would."""
    turn = cv2.Rodrigues(np.radians(degrees) * np.array([0.6, 0.8, 0.0]))[0]
    R = turn @ camera.R
    centre = -camera.R.T @ camera.tvec
    return Camera(K=camera.K, dist=camera.dist, rvec=cv2.Rodrigues(R)[0], tvec=-R @ centre,
                  image_size=camera.image_size)


def resensed(image: np.ndarray, seed: int, quality: int = 75, gain: float = 0.85) -> np.ndarray:
    """The same view captured again: other sensor noise, other exposure, heavier JPEG."""
    rng = np.random.default_rng(seed)
    noisy = image.astype(np.float32) * gain + rng.normal(0, 4.0, image.shape)
    clipped = np.clip(noisy, 0, 255).astype(np.uint8)
    _, buf = cv2.imencode(".jpg", clipped, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def test_a_one_degree_bump_is_caught(watch, straight_shot):
    moved = shoot(straight_shot.layout, bumped(straight_shot.camera, 1.0), seed=4)
    report = watch.check(moved.image)
    assert report.drifted
    assert report.shift_px > 10 and report.shift_mm > 10
    assert "camera moved" in report.reason


def test_noise_jpeg_and_exposure_are_not_drift(watch, straight_shot):
    for seed in range(3):
        report = watch.check(resensed(straight_shot.image, seed))
        assert not report.drifted, report.reason
        assert report.shift_px < 0.3


@pytest.mark.parametrize("level", [0, 128, 255])
def test_a_frame_showing_nothing_shows_no_marker(watch, straight_shot, level):
    """A flat mid-grey patch correlated with a marker at 0.08-0.14, ~80 px off: three markers
    voted that the camera had moved, where the camera saw nothing."""
    noise = np.random.default_rng(level).normal(0, 1.5, straight_shot.image.shape)
    flat = np.clip(level + noise, 0, 255).astype(np.uint8)
    report = watch.check(flat)
    assert report.markers_seen == 0 and report.drifted
    assert "no marker looks like it did" in report.reason


def test_markers_seen_counts_the_markers_that_vote(watch, straight_shot):
    assert watch.check(resensed(straight_shot.image, 5)).markers_seen == len(straight_shot.layout.markers)


def test_a_hand_over_one_marker_is_not_drift(watch, straight_shot):
    image = resensed(straight_shot.image, 9)
    centre = straight_shot.camera.project(straight_shot.layout.corners_by_id[1].mean(0, keepdims=True))[0]
    cv2.ellipse(image, (int(centre[0]) + 30, int(centre[1]) + 10), (110, 70), 20, 0, 360, (120, 150, 205), -1)
    assert not watch.check(image).drifted


def test_a_frame_of_another_size_counts_as_drift(watch):
    assert watch.check(np.zeros((1080, 1920, 3), np.uint8)).drifted


def test_the_reference_frame_must_match_the_calibration(straight_shot):
    calibration = calibrate(straight_shot.image, straight_shot.layout)
    with pytest.raises(TablesightError, match="reference frame is 1920x1080"):
        DriftWatch(calibration, np.zeros((1080, 1920, 3), np.uint8))


def test_the_reference_holds_over_a_long_game(straight_shot):
    """OpenCV's phaseCorrelate multiplies its inputs by the window in place: the stored reference
    decayed by it at every check, until a still table read as 5 px of "shift" after 100 frames
    (a false "camera moved", then a recalibration that took a hand for the settled table)."""
    watch = DriftWatch(calibrate(straight_shot.image, straight_shot.layout), straight_shot.image)
    kept = [patch.reference.copy() for patch in watch._patches]
    for seed in range(60):
        report = watch.check(resensed(straight_shot.image, seed % 3))
    assert not report.drifted and report.shift_px < 0.3, report.reason
    for patch, before in zip(watch._patches, kept, strict=True):
        assert np.array_equal(patch.reference, before)
