"""A lens told by the table's own edges, where the markers in its corners cannot tell it."""

from __future__ import annotations

import numpy as np
import pytest

import calibration.table
from calibration.camera import SENSORS, Camera
from calibration.distortion import intrinsics_for, radial_from_edges
from calibration.layout import default_layout
from calibration.synthetic import Look, render_markers
from calibration.table import calibrate
from calibration.table_edges import table_edges
from models.synth.truth_calibration import CameraCalibration

LAYOUT = default_layout("183x122")
SIZE = SENSORS["cm3-binned"]
FOCAL = 1700.0


def _photo(k1: float) -> tuple[np.ndarray, Camera]:
    """The table seen through a lens of `k1` in `estimate_radial`'s units (focal = the larger
    image side), from 2 m, tilted 3 degrees."""
    dist = np.array([k1 * (FOCAL / max(SIZE)) ** 2, 0.0, 0.0, 0.0, 0.0])
    camera = Camera.looking_at((91.5, 61.0), 200.0, image_size=SIZE, focal_px=FOCAL, tilt_deg=3.0,
                               tilt_towards_deg=30.0, dist=dist)
    image = render_markers(camera, LAYOUT.table_size_cm, LAYOUT.markers_as_synthetic(), LAYOUT.dictionary,
                           look=Look(blur_px=0.6), seed=3).image
    return image, camera


def _markers_homography(image: np.ndarray) -> np.ndarray:
    """The markers' homography from raw pixels, as calibration fits it before any lens."""
    lens_free = calibrate(image, LAYOUT, intrinsics_for((0.0, 0.0), SIZE, FOCAL))
    return lens_free.homography


@pytest.mark.parametrize("k1", [-0.06, 0.05])
def test_the_edges_of_a_table_seen_through_a_bending_lens_tell_its_k1(k1):
    image, _ = _photo(k1)
    sides = table_edges(image, _markers_homography(image), LAYOUT)
    assert len(sides) == 4
    told = radial_from_edges(sides, SIZE)
    assert told is not None and told[0] == pytest.approx(k1, abs=0.006) and told[1] == 0.0


def test_straight_edges_tell_no_lens():
    image, _ = _photo(0.0)
    assert radial_from_edges(table_edges(image, _markers_homography(image), LAYOUT), SIZE) is None


def test_where_the_markers_cannot_tell_the_lens_the_edges_do(monkeypatch):
    """Four markers in the table's corners sit at about one distance from the picture's centre,
    and on path-traced tables their corners' noise hid a lens that left the middle of the table
    2-4 mm off (the markers' own estimate is left out here, as it came out there)."""
    monkeypatch.setattr(calibration.table, "estimate_radial", lambda *args, **kwargs: None)
    image, camera = _photo(-0.06)
    truth = CameraCalibration(camera, LAYOUT.table_size_cm, LAYOUT.markers_as_synthetic())
    across, down = np.meshgrid(np.linspace(20, 163, 12), np.linspace(20, 102, 8))
    table = np.stack([across.ravel(), down.ravel()], axis=1)
    calibrated = calibrate(image, LAYOUT)
    off_mm = np.linalg.norm(calibrated.image_to_table(truth.table_to_image(table)) - table, axis=1) * 10
    assert calibrated.lens_estimated and np.median(off_mm) < 0.3
    assert any("lens distortion estimated from the table's edges" in w for w in calibrated.warnings)
