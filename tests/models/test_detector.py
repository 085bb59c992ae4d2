"""The runtime: shipped model, bases to the millimetre, empty tables, bad model files."""

from __future__ import annotations

import numpy as np
import pytest

from models.detector import SHIPPED_WEIGHTS, Detector, load_detector
from models.rim_fit import (
    RimFit,
    best_supported,
    fit_rims,
    refits,
    restart_moves,
    settling_moves,
    settling_start,
)
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


def _two_disc_image(shift_px: float, wall: int) -> tuple[np.ndarray, np.ndarray, float]:
    """A base drawn exactly: bottom disc, then the top disc scaled about the nadir (8x supersampled)."""
    import cv2

    ss, size = 8, 400
    nadir, centre, radius = np.array([100.0, 100.0]), np.array([300.3, 100.6]), 16.0
    s = 1 + max(shift_px, 1e-3) / np.linalg.norm(centre - nadir)  # top disc scale about the nadir
    H = 3.5 * s / (s - 1)  # the camera height (mm) that gives it, for a 3.5 mm base at 1 px/mm
    canvas = np.zeros((size * ss, size * ss), np.uint8)
    for c, r, value in ((centre, radius, 255), (nadir + (centre - nadir) * s, radius * s, wall)):
        cv2.circle(
            canvas,
            tuple(round(((v + 0.5) * ss - 0.5) * 16) for v in c),
            round(r * ss * 16),
            value,
            -1,
            lineType=cv2.LINE_AA,
            shift=4,
        )
    image = cv2.cvtColor(cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA), cv2.COLOR_GRAY2BGR)
    return image, centre, H


@pytest.mark.parametrize("shift_px, wall", [(0.0, 255), (0.5, 255), (0.5, 120), (6.0, 120)])
def test_rim_fit_recovers_the_bottom_disc_despite_parallax(shift_px, wall):
    image, centre, H = _two_disc_image(shift_px, wall)
    fit = fit_rims(image, centre[None] + [1.2, -0.9], np.array([16.0]), np.array([100.0, 100.0]), H, 1.0)
    assert np.linalg.norm(fit.centres_px[0] - centre) < 0.15
    assert fit.coverage[0] > 0.9


def test_only_rims_worth_fitting_get_the_full_rounds():
    image, centre, H = _two_disc_image(0.5, 255)
    starts = centre[None] + np.array([[1.2, -0.9], [-0.8, 0.7]])
    asked: list[np.ndarray] = []

    def worth_fitting(screened: RimFit, index: np.ndarray) -> np.ndarray:
        asked.append(index)
        return index == 0

    nadir = np.array([100.0, 100.0])
    fit = fit_rims(image, starts, np.array([16.0, 16.0]), nadir, H, 1.0, worth_fitting=worth_fitting)
    assert [a.tolist() for a in asked] == [[0, 1]]
    assert fit.coverage[1] == 0 and fit.coverage[0] > 0.9
    assert np.linalg.norm(fit.centres_px[0] - centre) < 0.15


def _base_with_its_shadow(shadow_px: float) -> tuple[np.ndarray, np.ndarray]:
    """A grey-topped base under a low light: its shadow a crescent `shadow_px` wide beyond the
    rim (up the image), the mat in it at 30 % of its light, blurred and grainy like a
    path-traced frame."""
    import cv2

    ss, size, mat = 8, 200, (95, 125, 120)
    centre, radius = np.array([100.3, 99.6]), 16.0
    canvas = np.full((size * ss, size * ss, 3), mat, np.uint8)

    def disc(c: np.ndarray, colour: tuple[int, ...]) -> None:
        at = tuple(round(((v + 0.5) * ss - 0.5) * 16) for v in c)
        cv2.circle(canvas, at, round(radius * ss * 16), colour, -1, lineType=cv2.LINE_AA, shift=4)

    for t in np.linspace(0, shadow_px, 12):
        disc(centre - [0.0, t], tuple(int(0.3 * v) for v in mat))
    disc(centre, (60, 60, 60))
    image = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA).astype(np.float64)
    image = cv2.GaussianBlur(image, (0, 0), 0.8)
    grain = np.random.default_rng(3).normal(0, 2, image.shape)
    return np.clip(image + grain, 0, 255).astype(np.uint8), centre


@pytest.mark.parametrize("shadow_px", [2.5, 3.0])
def test_a_fit_started_on_the_shadow_crescent_comes_back_to_the_rim(shadow_px, monkeypatch):
    """The crescent's outer edge (lit mat against shadow) is a shadow's, not a rim: weighed
    down, it no longer holds a fit started between rim and shadow there."""
    import models.rim_fit

    image, centre = _base_with_its_shadow(shadow_px)
    nadir = centre + np.array([0.0, 1.0])  # just below: the shadow falls on the far side

    def fitted() -> np.ndarray:
        return fit_rims(image, centre[None] + [0.0, -1.5], np.array([16.0]), nadir, 1800.0, 1.0).centres_px[0]

    assert np.linalg.norm(fitted() - centre) < 0.4
    monkeypatch.setattr(models.rim_fit, "SHADOW_EDGE_WEIGHT", 1.0)
    assert np.linalg.norm(fitted() - centre) > 1.0


def _overhung_base(reach_px: float) -> tuple[np.ndarray, np.ndarray, float]:
    """A base far from the nadir (wide wall band) whose miniature leans out over its far rim."""
    import cv2

    image, centre, H = _two_disc_image(2.0, 120)
    tip = np.round(centre + np.array([16.0 + reach_px, 0.0])).astype(int)
    cv2.line(image, tuple(np.round(centre).astype(int).tolist()), tuple(tip.tolist()), (255, 255, 255), 9)
    return image, centre, H


@pytest.mark.parametrize("reach_px", [2.0, 4.0])
def test_rim_fit_holds_the_near_rim_when_a_miniature_overhangs_the_far_one(reach_px):
    image, centre, H = _overhung_base(reach_px)
    nadir = np.array([100.0, 100.0])
    fit = fit_rims(image, centre[None] + [1.5, 0.8], np.array([16.0]), nadir, H, 1.0)
    assert np.linalg.norm(fit.centres_px[0] - centre) < 0.4


def test_settling_brings_a_slid_fit_back_onto_the_rim():
    image, centre, H = _overhung_base(4.0)
    nadir = np.array([100.0, 100.0])
    slid = centre[None] + [2.5, 0.0]  # pushed away from the nadir, onto the miniature
    moves = settling_moves(slid, nadir, 1.0)
    nominal = np.array([16.0])
    settled, radius = best_supported(*refits(image, slid, nominal, nominal, nadir, H, 1.0, moves))
    assert np.linalg.norm(settled[0] - centre) < 0.4
    assert abs(radius[0] - 16.0) < 0.5


def _faint_base_with_a_bright_miniature() -> tuple[np.ndarray, np.ndarray, float]:
    """A top barely lighter than a grainy mat, a white miniature standing towards the far rim."""
    import cv2

    image, centre, H = _two_disc_image(1.0, 255)
    grey = 100 + image[..., :1].astype(np.float64) * (22 / 255)
    grain = np.random.default_rng(5).normal(0, 3, grey.shape)
    image = np.repeat(np.clip(grey + grain, 0, 255), 3, axis=2).astype(np.uint8)
    foot = np.round(centre).astype(int)
    cv2.ellipse(image, (int(foot[0]) + 6, int(foot[1])), (7, 5), 0, 0, 360, (245, 245, 245), -1)
    return image, centre, H


def test_a_bright_miniature_does_not_pull_the_fit_off_a_faint_rim():
    image, centre, H = _faint_base_with_a_bright_miniature()
    nadir = np.array([100.0, 100.0])
    fit = fit_rims(image, centre[None] + [2.0, 1.0], np.array([16.0]), nadir, H, 1.0)
    moves = settling_moves(fit.centres_px, nadir, 1.0)
    nominal = np.array([16.0])
    settled, _ = best_supported(*refits(image, fit.centres_px, fit.radius_px, nominal, nadir, H, 1.0, moves))
    assert np.linalg.norm(settled[0] - centre) < 0.5


def test_a_faint_rim_held_off_sideways_comes_back_when_restarted_around_it():
    """A bright arm across the line to the nadir holds the fit where settling cannot reach."""
    import cv2

    image, centre, H = _faint_base_with_a_bright_miniature()
    arm = np.round(centre + np.array([0.0, 20.0])).astype(int)
    cv2.line(image, tuple(np.round(centre).astype(int).tolist()), tuple(arm.tolist()), (255, 255, 255), 13)
    nadir = np.array([100.0, 100.0])
    held = centre[None] + [0.0, 4.0]
    radius = np.array([16.0])
    along_line = settling_moves(held, nadir, 1.0)
    along, _ = best_supported(*refits(image, held, radius, radius, nadir, H, 1.0, along_line))
    assert np.linalg.norm(along[0] - centre) > 1.0
    every_way = restart_moves(1, 1.0)
    around, fitted = best_supported(*refits(image, held, radius, radius, nadir, H, 1.0, every_way))
    assert np.linalg.norm(around[0] - centre) < 0.4
    assert abs(fitted[0] - 16.0) < 0.5


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


def test_settling_starts_half_a_parallax_shift_towards_the_nadir():
    nadir, centre, H = np.array([100.0, 100.0]), np.array([[900.0, 100.0]]), 1803.5
    start = settling_start(centre, nadir, H)  # the top disc sits 800 * 3.5 / 1800 = 1.56 px out
    assert np.allclose(start, [[900.0 - 0.5 * 800 * 3.5 / 1800, 100.0]], atol=1e-3)
    assert np.allclose(settling_start(nadir[None], nadir, H), [nadir])
