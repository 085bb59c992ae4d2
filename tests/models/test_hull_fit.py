"""The hull-fit net: its view of a hull, what the shipped net makes of a hull measured off, its training."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from models import hull_fit
from models.detections import Vehicles, heading_axes
from models.detector import rectified
from models.hull_fit import (
    CROP_CM,
    CROP_PX,
    PX_PER_CM,
    SHIPPED_HULL_FIT,
    VIEW_REACH_CM,
    HullFit,
    mirrored,
    table_statistics,
    view,
    window,
)
from models.hull_fit_training import HullWindows, sample
from models.synth.specs import VehicleTruth
from models.synth.truth_calibration import CameraCalibration

PPM = 0.95  # rectified pixels a millimetre, as for the Camera Module 3's binned frames
CAMERA = np.array([90.0, 60.0, 180.0])


def _table_with_a_hull(centre, length, width, heading_deg, mark: bool = False) -> np.ndarray:
    """A grey table with one white hull on it (and a red mark at its front left corner)."""
    rect = np.full((1140, 1710, 3), 90, np.uint8)
    corners = Vehicles.placed([VehicleTruth(*centre, length, width, heading_deg, 1.0)]).corners_cm()[0]
    cv2.fillPoly(rect, [np.round((corners * PPM * 10 - 0.5) * 16).astype(np.int32)], (230, 230, 230), shift=4)
    if mark:
        at = np.round(((corners[0] * 3 + corners[2]) / 4) * PPM * 10 - 0.5).astype(int)
        cv2.circle(rect, tuple(int(v) for v in at), 12, (0, 0, 255), -1)
    return rect


def _view(rect, centre, heading_deg):
    piece, origin = window(rect, PPM, np.array(centre), VIEW_REACH_CM + 1)
    return view(piece, origin, np.array(centre), heading_deg, CAMERA, table_statistics(rect))


def _coverage(seen: np.ndarray) -> np.ndarray:
    """Each view pixel's share of the white hull, from its first colour channel."""
    plane = seen[0]
    return np.clip((plane - plane.min()) / (plane.max() - plane.min()), 0, 1)


def _middle_cm(cover: np.ndarray) -> np.ndarray:
    """The covered part's mean in the view's cm from its centre: (along, across)."""
    rows, cols = np.indices(cover.shape)
    mean = np.array([np.sum(cols * cover), np.sum(rows * cover)]) / cover.sum()
    return (mean - [(CROP_PX[1] - 1) / 2, (CROP_PX[0] - 1) / 2]) / PX_PER_CM


def test_a_hull_fills_the_middle_of_its_view_along_its_columns():
    rect = _table_with_a_hull((60.0, 40.0), 20.0, 10.0, 30.0)
    seen = _view(rect, (60.0, 40.0), 30.0)
    assert seen.shape == (5, *CROP_PX)
    cover = _coverage(seen)
    assert cover[CROP_PX[0] // 2].sum() / PX_PER_CM == pytest.approx(20.0, abs=0.2)
    assert cover[:, CROP_PX[1] // 2].sum() / PX_PER_CM == pytest.approx(10.0, abs=0.2)
    np.testing.assert_allclose(_middle_cm(cover), 0, atol=0.05)


def test_the_lean_is_the_offset_from_the_nadir_over_the_height_in_the_views_frame():
    rect = _table_with_a_hull((60.0, 40.0), 20.0, 10.0, 90.0)
    seen = _view(rect, (60.0, 40.0), 90.0)  # columns run along table +y, rows along table -x
    middle = (CROP_PX[0] // 2, CROP_PX[1] // 2)
    along, across = seen[3][middle], seen[4][middle]
    assert along == pytest.approx((40.0 - 60.0) / 180.0, abs=0.01)
    assert across == pytest.approx(-(60.0 - 90.0) / 180.0, abs=0.01)
    assert seen[3, 0, -1] - seen[3, 0, 0] == pytest.approx((CROP_CM[0] - 1 / PX_PER_CM) / 180.0, abs=1e-4)


def test_a_hull_seen_from_its_other_end_is_its_view_mirrored_both_ways():
    rect = _table_with_a_hull((70.0, 50.0), 22.0, 11.0, 20.0, mark=True)
    ahead, behind = _view(rect, (70.0, 50.0), 20.0), _view(rect, (70.0, 50.0), 200.0)
    turned = mirrored(mirrored(ahead[None], "along"), "across")[0]
    spread = ahead[:3].max() - ahead[:3].min()  # OpenCV's fixed-point interpolation rounds a little
    assert np.abs(turned - behind)[:, 2:-2, 2:-2].max() < 0.02 * spread
    assert np.abs(mirrored(mirrored(ahead[None], "along"), "along")[0] - ahead).max() == 0


def test_training_views_point_back_to_the_truth():
    rect = _table_with_a_hull((70.0, 50.0), 22.0, 11.0, 20.0)
    piece, origin = window(rect, PPM, np.array([70.0, 50.0]), 30.0)
    table = HullWindows([piece], origin[None], np.array([[70.0, 50.0, 22.0, 11.0, 20.0]]), CAMERA,
                        table_statistics(rect))
    rng = np.random.default_rng(1)
    for _ in range(20):
        seen, answer = sample(table, 0, rng)
        assert answer[2] == pytest.approx(22.0) and answer[3] == pytest.approx(11.0)
        # the hull's middle lies where the answer says, in the view's centimetres
        np.testing.assert_allclose(_middle_cm(_coverage(seen)), answer[:2], atol=0.1)
        assert abs(answer[4]) <= 5.0 and np.hypot(*answer[:2]) <= 3.0 * np.sqrt(2) + 1e-6


@pytest.fixture(scope="module")
def squad_table(squad_frame):
    scene, camera, rendered = squad_frame
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    rect, ppm = rectified(rendered.image, calibration)
    return rect, ppm, np.asarray(calibration.camera_centre_cm, np.float64), rendered.truth


def test_the_shipped_net_reads_the_footprint_from_a_hull_measured_off(squad_table, monkeypatch):
    """An end taken 1.5-2.5 cm in or out and a long side 1 cm in: the net alone (all its share)
    puts the centre within 3 mm and the sizes within 5 mm of the tank's, as from the truth."""
    monkeypatch.setattr(hull_fit, "NET_SHARE", 1.0)
    rect, ppm, camera, truth = squad_table
    (tank,) = truth.vehicles
    true = Vehicles.placed([tank])
    along, across = heading_axes(tank.heading_deg)
    for front, side in ((-2.0, -1.0), (1.5, 0.0), (-2.5, 1.0), (0.0, 0.0)):
        off = Vehicles(
            true.xy_cm + front / 2 * along + side / 2 * across, true.length_cm + front,
            true.width_cm - abs(side), true.heading_deg + 0.3, np.array([0.9]),
        )
        placed = HullFit(SHIPPED_HULL_FIT).fitted(rect, ppm, camera, off)
        assert np.linalg.norm(placed.xy_cm[0] - true.xy_cm[0]) * 10 < 3.0
        assert abs(placed.length_cm[0] - tank.length_cm) * 10 < 5.0
        assert abs(placed.width_cm[0] - tank.width_cm) * 10 < 5.0


def test_each_side_ends_halfway_between_the_measured_one_and_the_nets():
    """A stub net that places the footprint 2 cm further ahead, 1 cm longer, 0.6 cm narrower and
    5 degrees turned: each side moves half the way; the heading and confidence stay measured."""
    rect = _table_with_a_hull((60.0, 40.0), 20.0, 10.0, 90.0)
    fit = HullFit.__new__(HullFit)
    fit.answers = lambda views: np.tile([2.0, 0.0, 21.0, 9.4, 5.0], (len(views), 1))
    measured = Vehicles.placed([VehicleTruth(60.0, 40.0, 20.0, 10.0, 90.0, 1.0)])
    placed = fit.fitted(rect, PPM, CAMERA, measured)
    # ahead is table +y: front 10 -> 12.5 (halfway 11.25), rear -10 -> -8.5 (-9.25), sides 5 -> 4.7 (4.85)
    np.testing.assert_allclose(placed.xy_cm[0], [60.0, 41.0], atol=1e-9)
    np.testing.assert_allclose([placed.length_cm[0], placed.width_cm[0]], [20.5, 9.7], atol=1e-9)
    assert placed.heading_deg[0] == 90.0 and placed.confidence[0] == 1.0
    assert len(fit.fitted(rect, PPM, CAMERA, Vehicles.empty())) == 0


def test_the_shipped_net_places_a_hull_alone_from_a_rough_start(squad_table):
    """From a start 1-1.5 cm and 3 degrees off (a hull map's footprint), looking twice: within 3
    mm and 1 degree of the tank, its sizes within 5 mm."""
    rect, ppm, camera, truth = squad_table
    (tank,) = truth.vehicles
    along, across = heading_axes(tank.heading_deg)
    for ahead, aside, turn in ((1.5, 0.0, 3.0), (-1.0, 1.0, -3.0), (0.0, -1.0, 2.0)):
        start = np.array([tank.x_cm, tank.y_cm]) + ahead * along + aside * across
        centre, length, width, heading = HullFit(SHIPPED_HULL_FIT).placed(
            rect, ppm, camera, start, (tank.heading_deg + turn) % 180
        )
        assert np.linalg.norm(centre - [tank.x_cm, tank.y_cm]) * 10 < 3.0
        assert abs((heading - tank.heading_deg + 90) % 180 - 90) < 1.0 and 0 <= heading < 180
        assert abs(length - tank.length_cm) * 10 < 5.0 and abs(width - tank.width_cm) * 10 < 5.0


def test_placing_looks_again_from_where_the_net_put_the_hull():
    """A stub net that always says 1 cm ahead, 0.5 cm to the side and 2 degrees turned: the
    second look starts from the first's answer, in its turned frame."""
    rect = _table_with_a_hull((60.0, 40.0), 20.0, 10.0, 90.0)
    fit = HullFit.__new__(HullFit)
    fit.answers = lambda views: np.tile([1.0, 0.5, 21.0, 9.4, 2.0], (len(views), 1))
    centre, length, width, heading = fit.placed(rect, PPM, CAMERA, np.array([60.0, 40.0]), 179.0)
    expected = np.array([60.0, 40.0])
    for looked_along in (179.0, 181.0):
        along = np.array([np.cos(np.radians(looked_along)), np.sin(np.radians(looked_along))])
        expected = expected + along + 0.5 * np.array([-along[1], along[0]])
    np.testing.assert_allclose(centre, expected, atol=1e-9)
    assert (length, width) == (21.0, 9.4) and heading == pytest.approx(3.0)


def test_the_detector_runs_the_shipped_hull_fit():
    from models.detector import load_detector

    assert isinstance(load_detector().hull_fit, HullFit)


@pytest.mark.slow
def test_train_a_tiny_hull_fit_that_the_runtime_loads(tmp_path, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    out = tmp_path / "fit.onnx"
    args = ["train", "--hull-fit", "--scenes", "3", "--physical-scenes", "0", "--steps", "2", "-o", str(out)]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == str(out) and report["hulls"] >= 1
    rect = _table_with_a_hull((60.0, 40.0), 20.0, 10.0, 30.0)
    hull = Vehicles.placed([VehicleTruth(60.0, 40.0, 20.0, 10.0, 30.0, 1.0)])
    placed = HullFit(out).fitted(rect, PPM, CAMERA, hull)
    assert len(placed) == 1 and np.all(np.isfinite(placed.xy_cm)) and placed.heading_deg[0] == 30.0


def test_the_hull_fits_training_options_are_checked(capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    assert main(["train", "--hull-fit", "--epochs", "3"]) == 2
    assert "--epochs" in capsys.readouterr().err
    assert main(["train", "--hull-fit", "--hull-map"]) == 2
    err = capsys.readouterr().err
    assert "--hull-fit" in err and "--hull-map" in err
