"""The centring net: its frame, what the shipped net does with a fit that is off, how it is trained."""

from __future__ import annotations

import json

import numpy as np
import pytest

from models.centring import MIRRORED_ROWS, SHIPPED_CENTRING, Centring, in_image, in_patch_frame
from models.centring_training import centring_samples
from models.detector import rectified
from models.synth.truth_calibration import CameraCalibration
from models.verifier import RADIUS_CHANNEL, SIZE_CHANNEL, rim_patches


def test_offsets_go_into_the_views_frame_and_back():
    rng = np.random.default_rng(3)
    centres, offsets = rng.uniform(0, 900, (20, 2)), rng.normal(0, 4, (20, 2))
    nadir, radius = np.array([450.0, 300.0]), rng.uniform(12, 30, 20)
    framed = in_patch_frame(offsets, centres, nadir, radius)
    assert np.allclose(in_image(framed, centres, nadir, radius), offsets)
    away = in_patch_frame(centres - nadir, centres, nadir, np.ones(20))
    assert np.allclose(away[:, 1], 0) and np.all(away[:, 0] > 0)  # ray 0 points away from the nadir


def test_the_mirrored_rows_are_the_view_of_the_mirrored_image():
    """Mirrored about ray 0 (here the image's x axis through the centre), an off-centre spot
    shows in the rows of the mirrored angles, and its offset across the rays changes sign."""
    image = np.zeros((200, 200, 3), np.uint8)
    image[60:70, 120:130] = 255  # above and right of the centre (100, 100)
    mirror = image[::-1].copy()  # y -> 199 - y: the centre row stays (the pixel grid's 99.5)
    centre, nadir = np.array([[100.0, 99.5]]), np.array([0.0, 99.5])
    view = rim_patches(image, centre, np.array([40.0]), nadir, np.array([32.0]))
    mirrored = rim_patches(mirror, centre, np.array([40.0]), nadir, np.array([32.0]))
    assert np.allclose(view[:, :, MIRRORED_ROWS], mirrored, atol=1e-4)
    spot = np.array([[25.0, -35.0]])  # the spot from the centre, in image pixels
    assert in_patch_frame(spot, centre, nadir, np.ones(1))[0, 1] < 0
    assert in_patch_frame(spot * [1, -1], centre, nadir, np.ones(1))[0, 1] > 0


def test_training_views_point_back_to_the_truth():
    x, y = centring_samples(0, hard=False, starts=4)
    assert len(x) == len(y) and len(x) % 4 == 0 and x.dtype == np.float16
    assert set(np.unique(x[:, SIZE_CHANNEL])) <= {-1.0, 1.0}
    assert np.allclose(x[:, RADIUS_CHANNEL], x[0, RADIUS_CHANNEL])
    radius_mm = np.where(x[:, SIZE_CHANNEL, 0, 0] > 0, 32.5, 16.0)
    distance = np.linalg.norm(y, axis=1) * radius_mm
    assert distance.max() < 5.5 and np.mean(distance < 1.02) > 0.25  # up to 5 mm off, a third within 1
    again, same = centring_samples(0, hard=False, starts=4)
    assert np.array_equal(again, x) and np.array_equal(same, y)  # a table's views are its seed's


@pytest.fixture(scope="module")
def squad_view(squad_frame):
    scene, camera, rendered = squad_frame
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    rect, ppm = rectified(rendered.image, calibration)
    nadir = np.asarray(calibration.camera_centre_cm)[:2] * 10 * ppm - 0.5
    truth = [b for b in rendered.truth.bases if b.rim_visible >= 0.5]
    xy = np.array([[b.x_cm, b.y_cm] for b in truth]) * 10 * ppm - 0.5
    return rect, ppm, nadir, xy, np.array([b.diameter_mm for b in truth], np.float64)


def test_the_shipped_net_brings_fits_that_are_off_back_to_their_bases(squad_view):
    rect, ppm, nadir, truth, diameter = squad_view
    angle = np.linspace(0, 2 * np.pi, len(truth), endpoint=False)
    off = truth + 2.5 * ppm * np.stack([np.cos(angle), np.sin(angle)], 1)  # 2.5 mm off, every way
    net = Centring(SHIPPED_CENTRING)
    moved = net.centred(rect, off, diameter / 2 * ppm, nadir, diameter, ppm)
    error_mm = np.linalg.norm(moved - truth, axis=1) / ppm
    assert np.median(error_mm) < 0.6 and np.all(error_mm < 2.0)
    stay = net.centred(rect, truth, diameter / 2 * ppm, nadir, diameter, ppm)
    assert np.median(np.linalg.norm(stay - truth, axis=1)) / ppm < 0.4  # a centred fit stays put


def test_a_fit_farther_off_than_the_net_learned_comes_home_look_by_look(squad_view, monkeypatch):
    """10 mm off, twice what the net learned: each look comes part of the way, and while one
    still moves a base it looks again (up to MOST_LOOKS); two looks leave most of them off."""
    import models.centring as centring

    rect, ppm, nadir, truth, diameter = squad_view
    angle = np.linspace(0, 2 * np.pi, len(truth), endpoint=False)
    off = truth + 10.0 * ppm * np.stack([np.cos(angle), np.sin(angle)], 1)
    net = Centring(SHIPPED_CENTRING)

    def home() -> int:
        moved = net.centred(rect, off, diameter / 2 * ppm, nadir, diameter, ppm)
        return int(np.sum(np.linalg.norm(moved - truth, axis=1) / ppm < 1.0))

    assert centring.MOST_LOOKS >= 4 and home() >= len(truth) - 2
    monkeypatch.setattr(centring, "MOST_LOOKS", 2)
    assert home() <= len(truth) // 2


def test_the_detector_runs_the_shipped_centring_net():
    from models.detector import load_detector

    assert isinstance(load_detector().centring, Centring)


@pytest.mark.slow
def test_train_a_tiny_centring_net_that_the_runtime_loads(tmp_path, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    out, cache = tmp_path / "centring.onnx", tmp_path / "views.npz"
    args = ["train", "--centring", "--scenes", "1", "--physical-scenes", "0", "--epochs", "1", "-o", str(out)]
    assert main([*args, "--dataset", str(cache)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == str(out) and report["views"] > 0 and len(report["after_mm"]) == 2
    patches = rim_patches(
        np.zeros((200, 200, 3), np.uint8), np.array([[100.0, 100.0]]), np.array([30.0]),
        np.array([0.0, 0.0]), np.array([32.0]),
    )
    assert Centring(out).offsets(patches).shape == (1, 2)
    out.unlink()
    assert main([*args, "--dataset", str(cache)]) == 0 and out.exists()  # from the cached views


def test_the_centring_nets_training_options_are_checked(tmp_path, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    assert main(["train", "--centring", "--steps", "3"]) == 2
    assert "--steps" in capsys.readouterr().err
    assert main(["train", "--centring", "--base-map"]) == 2
    assert "--centring" in capsys.readouterr().err
    rims = tmp_path / "rims.npz"
    np.savez(rims, x=np.zeros((2, 3)), y=np.zeros(2))
    assert main(["train", "--centring", "--dataset", str(rims)]) == 2
    err = capsys.readouterr().err
    assert "not a view cache" in err and len(err.strip().splitlines()) <= 2
