"""The hull map: what the shipped net draws, how its footprints are measured and how it is trained."""

from __future__ import annotations

import json
import warnings

import cv2
import numpy as np
import pytest

from models.detections import Vehicles
from models.detector import rectified
from models.hull_map import SHIPPED_HULL_MAP, STRIDE, HullMap, footprints, lean
from models.hull_map_training import HullMapRecipe, HullTable, _turned, batches, targets
from models.hull_view import PX_PER_CM, coarse_table
from models.synth.truth_calibration import CameraCalibration


def _corners_px(x_cm, y_cm, length_cm, width_cm, heading_deg) -> np.ndarray:
    hull = Vehicles(np.array([[x_cm, y_cm]]), np.array([length_cm]), np.array([width_cm]),
                    np.array([heading_deg]), np.ones(1))
    return hull.corners_cm() * PX_PER_CM - 0.5


def test_lean_is_nothing_under_the_camera_and_grows_outward_with_the_distance():
    camera = np.array([40.2, 20.2, 200.0])  # over pixel (100, 50)
    out = lean((100, 200), camera, PX_PER_CM)
    nadir = np.round(camera[:2] * PX_PER_CM - 0.5).astype(int)
    assert out.shape == (2, 100, 200)
    np.testing.assert_allclose(out[:, nadir[1], nadir[0]], 0, atol=1e-6)
    np.testing.assert_allclose(out[:, nadir[1], nadir[0] + 25], [10 / 200, 0], atol=1e-6)  # 10 cm east
    np.testing.assert_allclose(out[:, nadir[1] - 50, nadir[0]], [0, -20 / 200], atol=1e-6)  # 20 cm north


def test_targets_cover_each_footprint_by_its_area_and_leave_hidden_hulls_alone():
    shown = _corners_px(20.0, 20.0, 20.0, 10.0, 30.0)
    hidden = _corners_px(50.0, 45.0, 15.0, 8.0, 100.0)
    target, ignore = targets(np.concatenate([shown, hidden]), np.array([0.9, 0.1]), (160, 160), 0.3)
    assert target.shape == ignore.shape == (80, 80)
    cell_cm2 = (STRIDE / PX_PER_CM) ** 2
    assert target.sum() * cell_cm2 == pytest.approx(200.0, rel=0.02)  # the shown hull alone
    inside = np.round(np.array([20.0, 20.0]) * PX_PER_CM / STRIDE).astype(int)
    under = np.round(np.array([50.0, 45.0]) * PX_PER_CM / STRIDE).astype(int)
    assert target[inside[1], inside[0]] == 1 and ignore[inside[1], inside[0]] == 0
    assert target[under[1], under[0]] == 0 and ignore[under[1], under[0]] == 1
    assert ignore[5, 75] == 0  # bare mat counts as no hull


@pytest.mark.parametrize("turns", range(4))
@pytest.mark.parametrize("mirror", [False, True])
def test_a_crop_s_points_turn_with_it(turns, mirror):
    size = 64
    crop = np.zeros((1, size, size))
    crop[0, 10, 40] = 1  # row 10, column 40
    turned = np.rot90(crop, turns, axes=(1, 2))
    if mirror:
        turned = turned[:, :, ::-1]
    row, col = np.argwhere(turned[0])[0]
    np.testing.assert_allclose(_turned(np.array([40.0, 10.0]), turns, mirror, size), [col, row])


def _toy_tables() -> list[HullTable]:
    rng = np.random.default_rng(5)
    image = rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)
    return [HullTable(image, np.array([60.0, 40.0, 180.0]), _corners_px(50.0, 30.0, 20.0, 10.0, 0.0),
                      np.ones(1))]


def test_a_step_s_batch_is_the_same_whichever_process_makes_it():
    tables, recipe = _toy_tables(), HullMapRecipe(steps=3, batch=2)
    alone = list(batches(tables, recipe, jobs=1))
    shared = list(batches(tables, recipe, jobs=2))
    assert len(alone) == len(shared) == 3
    for one, two in zip(alone, shared, strict=True):
        for a, b in zip(one, two, strict=True):
            np.testing.assert_array_equal(a, b)
    x, target, ignore = alone[0]
    assert x.shape == (2, 5, 160, 160) and target.shape == ignore.shape == (2, 1, 80, 80)
    assert not np.array_equal(alone[0][0], alone[1][0])


def test_footprints_measure_a_blurred_rectangle_by_its_moments():
    coverage = np.zeros((300 * 8, 400 * 8), np.uint8)
    corners = (_corners_px(61.3, 52.7, 24.0, 11.0, 37.0)[0] + 0.5) * 8 - 0.5
    cv2.fillPoly(coverage, [np.round(corners).astype(np.int32)], 1)
    probability = cv2.resize(coverage.astype(np.float32), (400, 300), interpolation=cv2.INTER_AREA)
    probability = cv2.GaussianBlur(probability, (0, 0), 1.5)
    (found,) = footprints(probability, PX_PER_CM)
    centre, length, width, heading = found
    np.testing.assert_allclose(centre, [61.3, 52.7], atol=0.05)
    assert length == pytest.approx(24.0, abs=0.3) and width == pytest.approx(11.0, abs=0.3)
    assert heading == pytest.approx(37.0, abs=0.3)


@pytest.fixture(scope="module")
def squad_map(squad_frame):
    scene, camera, rendered = squad_frame
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    rect, ppm = rectified(rendered.image, calibration)
    small = coarse_table(rect, ppm)
    return HullMap(SHIPPED_HULL_MAP).probability(small, camera.centre_cm, PX_PER_CM), rendered.truth


def test_the_shipped_map_draws_the_tanks_footprint_and_not_the_bases(squad_map):
    probability, truth = squad_map
    (tank,) = truth.vehicles
    at = np.array([tank.x_cm, tank.y_cm])
    near = [f for f in footprints(probability, PX_PER_CM) if np.linalg.norm(f[0] - at) < 3.0]
    assert len(near) == 1
    centre, length, width, heading = near[0]
    assert np.linalg.norm(centre - at) < 1.0
    assert abs(length - tank.length_cm) < 2.0 and abs(width - tank.width_cm) < 2.0
    assert abs((heading - tank.heading_deg + 90) % 180 - 90) < 3.0
    bases = np.round(truth.base_xy_cm() * PX_PER_CM - 0.5).astype(int)
    assert probability[bases[:, 1], bases[:, 0]].max() < 0.2


def test_a_camera_kilometres_off_gives_no_hull_and_no_numpy_warning():
    """A wrong lens file once placed the camera 1.4 km off: leans of hundreds drove the logits to
    -388 and float32's exp overflowed, printing numpy's RuntimeWarning on detect's stderr."""
    table = np.full((int(122 * PX_PER_CM), int(183 * PX_PER_CM), 3), (60, 110, 70), np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        probability = HullMap(SHIPPED_HULL_MAP).probability(table, np.array([-140454.3, -63901.1, 253.7]),
                                                            PX_PER_CM)
    assert np.isfinite(probability).all() and probability.max() < 0.01


def test_the_detector_runs_the_shipped_hull_map():
    from models.detector import load_detector

    assert isinstance(load_detector().hull_map, HullMap)


@pytest.mark.slow
def test_train_a_tiny_hull_map_that_the_runtime_loads(tmp_path, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    out = tmp_path / "hulls.onnx"
    args = ["train", "--hull-map", "--scenes", "1", "--physical-scenes", "0", "--steps", "2", "-o", str(out)]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == str(out) and report["tables"] == 1
    camera = np.array([30.0, 20.0, 180.0])
    probability = HullMap(out).probability(np.zeros((101, 151, 3), np.uint8), camera, 2.5)
    assert probability.shape == (101, 151) and np.all((probability > 0) & (probability < 1))


def test_the_hull_maps_training_options_are_checked(capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    assert main(["train", "--hull-map", "--epochs", "3"]) == 2
    assert "--epochs" in capsys.readouterr().err
    assert main(["train", "--hull-map", "--base-map"]) == 2
    err = capsys.readouterr().err
    assert "--hull-map" in err and "--base-map" in err
