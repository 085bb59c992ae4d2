"""The runtime: shipped model, bases to the millimetre, empty tables, bad model files."""

from __future__ import annotations

import numpy as np
import pytest

from models.detector import SHIPPED_WEIGHTS, Detector, load_detector
from models.synth.truth_calibration import CameraCalibration
from rules_core.errors import TablesightError
from tests.models.conftest import FixedVerifier, nearest_errors_mm


def test_the_shipped_model_loads():
    assert SHIPPED_WEIGHTS.is_file(), "models/weights/rim_verifier.onnx ships with the package"
    assert load_detector().verifier is not None


def test_finds_every_base_of_a_squad_to_the_millimetre(squad_frame, detector):
    scene, camera, frame = squad_frame
    found = detector.detect(frame.image, CameraCalibration(camera, scene.table_cm, scene.markers))
    truth = frame.truth.base_xy_cm()
    errors = nearest_errors_mm(found.bases.xy_cm, truth)
    assert np.sum(errors < 2.0) >= len(truth) - 1
    assert np.median(errors) < 0.6
    assert len(found.bases) <= len(truth)
    for xy, d in zip(found.bases.xy_cm, found.bases.diameter_mm, strict=True):
        nearest = np.argmin(np.linalg.norm(truth - xy, axis=1))
        assert d == frame.truth.bases[nearest].diameter_mm
    assert np.all(np.abs(found.bases.measured_diameter_mm - found.bases.diameter_mm) < 3)


class _MisledVerifier:
    """A verifier that rejects everything, as one facing imagery unlike its training might."""

    def probability(self, patches: np.ndarray) -> np.ndarray:
        return np.zeros(len(patches))

    ring_probability = probability


def test_clear_rims_with_miniatures_are_kept_when_the_verifier_rejects_them(squad_frame):
    scene, camera, frame = squad_frame
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    found = Detector(_MisledVerifier()).detect(frame.image, calibration)
    truth = frame.truth.base_xy_cm()
    errors = nearest_errors_mm(found.bases.xy_cm, truth)
    assert np.sum(errors < 2.0) >= len(truth) // 2
    assert len(found.bases) <= len(truth)


class _RingDoubts(FixedVerifier):
    """The pair would accept every rim; the ring net alone screens them all out."""

    def ring_probability(self, patches: np.ndarray) -> np.ndarray:
        return np.zeros(len(patches))


def test_the_screening_asks_the_ring_net_alone(squad_frame, monkeypatch):
    import models.detector as detector_module

    scene, camera, frame = squad_frame
    monkeypatch.setattr(detector_module, "sure", lambda fit: np.zeros(len(fit.coverage), bool))
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    assert len(detector_module.Detector(FixedVerifier(1.0)).detect(frame.image, calibration).bases) > 0
    screened_out = detector_module.Detector(_RingDoubts(1.0)).fitted_candidates(frame.image, calibration)
    assert not screened_out.plausible.any()


def test_a_65mm_rim_needs_less_of_the_verifier_than_a_32mm_one(squad_frame, monkeypatch):
    import models.detector as detector_module
    from models.fitted import ACCEPT_PROBABILITY, ACCEPT_PROBABILITY_65

    scene, camera, frame = squad_frame
    monkeypatch.setattr(detector_module, "sure", lambda fit: np.zeros(len(fit.coverage), bool))
    between = (ACCEPT_PROBABILITY_65 + ACCEPT_PROBABILITY) / 2
    assert between >= detector_module.FAINT_PROBABILITY
    found = detector_module.Detector(FixedVerifier(between)).detect(
        frame.image, CameraCalibration(camera, scene.table_cm, scene.markers)
    )
    big = np.array([[b.x_cm, b.y_cm] for b in frame.truth.bases if b.diameter_mm == 65.0])
    assert np.all(found.bases.diameter_mm == 65.0)
    assert len(found.bases) == len(big)
    assert np.all(nearest_errors_mm(found.bases.xy_cm, big) < 2.0)
    assert len(found.faint) >= 8 and np.all(found.faint.diameter_mm == 32.0)


def test_finds_the_tank_footprint(squad_frame, detector):
    scene, camera, frame = squad_frame
    found = detector.detect(frame.image, CameraCalibration(camera, scene.table_cm, scene.markers)).vehicles
    assert len(found) == 1
    assert np.linalg.norm(found.xy_cm[0] - [140.0, 35.0]) < 1.0
    assert abs((found.heading_deg[0] - 30.0 + 90) % 180 - 90) < 3
    assert abs(found.length_cm[0] - 22.0) < 1.5 and abs(found.width_cm[0] - 11.0) < 1.5


def test_a_table_without_models_is_a_valid_empty_result(empty_frame, detector):
    scene, camera, frame = empty_frame
    found = detector.detect(frame.image, CameraCalibration(camera, scene.table_cm, scene.markers))
    assert len(found.bases) == 0 and len(found.vehicles) == 0


def test_a_missing_model_file_names_the_file(tmp_path):
    with pytest.raises(TablesightError, match=r"nope\.onnx"):
        load_detector(str(tmp_path / "nope.onnx"))


def test_a_corrupt_model_file_says_how_to_fix_it(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model at all")
    with pytest.raises(TablesightError, match="tablesight train"):
        load_detector(str(bad))


SHIPPED_NETS = [  # module, its path's name, the detector's attribute, the option that re-creates it
    ("models.base_map", "SHIPPED_BASE_MAP", "base_map", "--base-map"),
    ("models.centring", "SHIPPED_CENTRING", "centring", "--centring"),
    ("models.hull_map", "SHIPPED_HULL_MAP", "hull_map", "--hull-map"),
    ("models.hull_fit", "SHIPPED_HULL_FIT", "hull_fit", "--hull-fit"),
]


@pytest.mark.parametrize("net", SHIPPED_NETS)
def test_a_corrupt_shipped_net_is_one_clear_line_at_load(monkeypatch, tmp_path, net):
    import importlib

    module, name, _, option = net
    broken = tmp_path / "net.onnx"
    broken.write_bytes(b"not a model")
    monkeypatch.setattr(importlib.import_module(module), name, broken)
    with pytest.raises(TablesightError) as error:
        load_detector()
    assert str(broken) in error.value.problem and option in error.value.fix


@pytest.mark.parametrize("net", SHIPPED_NETS)
def test_without_a_shipped_net_the_detector_does_without_it(monkeypatch, tmp_path, net):
    """The votes alone rank the candidates without the base map; the rim fit alone places the
    bases without the centring net."""
    import importlib

    module, name, attribute, _ = net
    monkeypatch.setattr(importlib.import_module(module), name, tmp_path / "absent.onnx")
    assert getattr(load_detector(), attribute) is None


WRONG_NETS = [  # a shipped net, and what its loader says of the base map's file in its place
    (SHIPPED_NETS[1], "not a base-centring model"),
    (SHIPPED_NETS[2], "not a hull map"),
    (SHIPPED_NETS[3], "not a hull-fit model"),
]


@pytest.mark.parametrize(("net", "said"), WRONG_NETS)
def test_another_model_in_a_shipped_nets_place_is_refused(monkeypatch, net, said):
    import importlib

    from models.base_map import SHIPPED_BASE_MAP

    module, name, _, option = net
    monkeypatch.setattr(importlib.import_module(module), name, SHIPPED_BASE_MAP)
    with pytest.raises(TablesightError) as error:
        load_detector()
    assert said in error.value.problem and option in error.value.fix


@pytest.fixture(scope="module")
def bevelled_frame():
    """A squad on bevelled bases (top disc 1.1 mm smaller) at the table's far corner."""
    from calibration.synthetic import Look
    from models.synth.randomize import table_markers
    from models.synth.scene import BaseSpec, Figure, Mat, TableScene, render_scene
    from tests.models.conftest import TABLE, rig_camera

    dictionary, markers = table_markers("183x122")
    bases = [
        BaseSpec(
            18.0 + 3.6 * i,
            22.0 + 4.0 * (i % 2),
            32.0,
            3.5,
            (25, 25, 25),
            (80, 140, 90),
            bevel_mm=1.1,
            figures=(Figure("trooper", 0.0, 0.0, 3.5, (40, 40, 200), 6.0, 225.0),),
        )
        for i in range(5)
    ]
    mat = Mat("felt_green", (55, 120, 50), 6.0)
    look = Look(noise_sigma=1.5, jpeg_quality=92)
    scene = TableScene(TABLE, dictionary, markers, mat, bases=bases, look=look)
    camera = rig_camera()
    return scene, camera, render_scene(scene, camera, 7)


def test_bevelled_bases_are_found_to_the_millimetre(bevelled_frame, detector):
    scene, camera, frame = bevelled_frame
    found = detector.detect(frame.image, CameraCalibration(camera, scene.table_cm, scene.markers))
    errors = nearest_errors_mm(found.bases.xy_cm, frame.truth.base_xy_cm())
    assert np.sum(errors < 1.0) >= 4


@pytest.fixture(scope="module")
def blurred_edge_frame():
    """Squads along the table's edges, 70-100 cm from the nadir, in a frame blurred by 1 px."""
    from calibration.synthetic import Look
    from models.synth.randomize import table_markers
    from models.synth.scene import BaseSpec, Figure, Mat, TableScene, render_scene
    from tests.models.conftest import TABLE, rig_camera

    dictionary, markers = table_markers("183x122")
    spots = [(18.0 + 4 * i, 14.0) for i in range(3)] + [(150.0 + 4 * i, 108.0) for i in range(4)]
    spots += [(14.0, 60.0 + 4 * i) for i in range(3)] + [(168.0, 40.0 + 4 * i) for i in range(3)]
    bases = [
        BaseSpec(
            x,
            y,
            32.0,
            3.5,
            (25, 25, 25) if k % 2 else (40, 60, 90),
            (80, 140, 90) if k % 3 else (150, 150, 150),
            figures=(Figure("trooper", 0.0, 0.0, 3.5, (40, 40, 200), 6.0, 45.0),),
        )
        for k, (x, y) in enumerate(spots)
    ]
    look = Look(noise_sigma=1.5, jpeg_quality=92, blur_px=1.0)
    mat = Mat("felt_green", (55, 120, 50), 6.0)
    scene = TableScene(TABLE, dictionary, markers, mat, bases=bases, look=look)
    camera = rig_camera()
    return scene, camera, render_scene(scene, camera, 5)


def test_blurred_bases_far_from_the_nadir_are_not_found_outward(blurred_edge_frame, detector):
    # Settled from where the fit stopped, they came out 0.7-1.4 mm away from the nadir.
    scene, camera, frame = blurred_edge_frame
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    found = detector.detect(frame.image, calibration)
    truth = frame.truth.base_xy_cm()
    nearest = np.linalg.norm(truth[:, None] - found.bases.xy_cm[None], axis=-1).argmin(1)
    error_mm = (found.bases.xy_cm[nearest] - truth) * 10
    outward = truth - np.asarray(calibration.camera_centre_cm)[:2]
    outward /= np.linalg.norm(outward, axis=1, keepdims=True)
    matched = np.linalg.norm(error_mm, axis=1) < 5
    assert matched.sum() >= len(truth) - 1
    assert np.median(np.linalg.norm(error_mm[matched], axis=1)) < 0.4
    assert np.mean(np.sum(error_mm * outward, axis=1)[matched]) < 0.3
