"""The path-traced second renderer: its geometry, its truth, and the detector on its look."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

from calibration.camera import Camera
from calibration.synthetic import Look, Marker
from models.detector import load_detector
from models.scoring import score_bases
from models.synth.specs import BaseSpec, Figure, HandSpec, Mat, TableScene, VehicleSpec
from models.synth.truth_calibration import CameraCalibration

TABLE = (60.0, 40.0)


def _scene() -> TableScene:
    markers = [
        Marker(i, np.array([[x, y], [x + 5, y], [x + 5, y + 5], [x, y + 5]], dtype=np.float64))
        for i, (x, y) in enumerate([(2, 2), (53, 2), (53, 33), (2, 33)])
    ]
    trooper = Figure("trooper", 0.2, -0.1, 3.0, (60, 60, 160), lean_deg=5.0)
    return TableScene(
        table_cm=TABLE,
        dictionary="DICT_4X4_50",
        markers=markers,
        mat=Mat("felt_green", (70, 120, 80)),
        bases=[
            BaseSpec(20.0, 20.0, 32.0, 3.5, (25, 25, 25), (150, 170, 180), figures=(trooper,)),
            BaseSpec(30.0, 26.0, 65.0, 4.0, (30, 40, 60), (110, 150, 170)),
            BaseSpec(42.0, 14.0, 32.0, 3.5, (25, 25, 25), (150, 170, 180)),
        ],
        vehicles=[VehicleSpec(14.0, 27.0, 14.0, 7.0, 0.0)],
        hands=[HandSpec(46.5, 14.5, height_cm=8.0, size_cm=9.0, shoulder_cm=(80.0, 20.0, 40.0))],
        look=Look(noise_sigma=2.0, jpeg_quality=92),
        light_dir=(0.3, 0.2, -1.0),
    )


@pytest.fixture(scope="module")
def frame():
    from models.synth.physical import render_physical

    camera = Camera.looking_at(
        (30.0, 20.0), 75.0, image_size=(1024, 640), focal_px=900.0, tilt_deg=3.0,
        dist=np.array([-0.05, 0.01, 0, 0, 0]),
    )
    scene = _scene()
    return scene, camera, render_physical(scene, camera, seed=3, spp=4)


def test_markers_land_where_the_camera_model_projects_them(frame):
    """Texture, pose and lens distortion agree with the camera model to a pixel.

    (Not to a tenth: blur happens in linear light, so a black square on white paper reads
    about half a pixel small once the photo is gamma-encoded, as in a real camera.)
    """
    scene, camera, rendered = frame
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, parameters)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(rendered.image, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    by_id = {m.id: m for m in scene.markers}
    for found, i in zip(corners, ids.ravel(), strict=True):
        expected = camera.project(by_id[int(i)].corners_cm)
        error = found.reshape(4, 2) - expected
        assert np.abs(error).max() < 1.5
        assert np.linalg.norm(error.mean(0)) < 0.5  # the shrinking cancels at the centre


def test_truth_sees_the_open_pieces_and_not_the_base_under_the_hand(frame):
    _, _, rendered = frame
    visible = [b.rim_visible for b in rendered.truth.bases]
    assert visible[0] > 0.8 and visible[1] > 0.9  # the trooper hides a little of the first rim
    assert visible[2] < 0.3
    assert rendered.truth.vehicles[0].visible > 0.9  # its far sides' outline is the roof edge


def test_the_detector_finds_the_open_bases_in_a_path_traced_frame(frame):
    scene, camera, rendered = frame
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    result = load_detector(None).detect(rendered.image, calibration)
    score = score_bases(result.bases, rendered.truth)
    assert score.required == 2 and score.found == 2
    assert score.size_right == 2
    assert score.errors_mm.max() < 1.0


def test_an_unknown_mitsuba_variant_is_refused_by_name():
    from models.synth.physical import VARIANTS, render_physical

    camera = Camera.looking_at((30.0, 20.0), 75.0, image_size=(64, 40), focal_px=60.0)
    with pytest.raises(ValueError, match="cuda_rgb") as refused:
        render_physical(_scene(), camera, seed=3, spp=1, variant="cuda_rgb")
    assert all(v in str(refused.value) for v in VARIANTS)


@pytest.mark.skipif(
    not os.path.isfile(os.environ.get("DRJIT_LIBLLVM_PATH", "")),
    reason="Mitsuba's LLVM variant needs LLVM 17 or later: set DRJIT_LIBLLVM_PATH to its libLLVM.so",
)
def test_the_vectorised_variant_renders_the_same_table_and_truth(frame):
    """The training tables may be traced by the LLVM or CUDA variant, whose truth casts every
    ray at once: the same light and the same visibility as the scalar renderer's."""
    from models.synth.physical import render_physical

    scene, camera, scalar = frame
    vectorised = render_physical(scene, camera, seed=3, spp=4, variant="llvm_ad_rgb")
    assert vectorised.truth == scalar.truth
    smooth = [cv2.GaussianBlur(r.image.astype(np.float32), (0, 0), 4) for r in (scalar, vectorised)]
    assert np.abs(smooth[0] - smooth[1]).mean() < 2.0  # grey levels: only the Monte Carlo noise differs
