from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from models.miniature import carries_a_miniature
from models.synth.scene import render_scene
from models.synth.specs import DistractorSpec
from models.synth.truth_calibration import CameraCalibration
from tests.models.conftest import nearest_errors_mm, rig_camera, squad_scene

MAT = (55, 120, 50)
TOP = (90, 140, 160)


def _disc(figure: tuple[int, int, int] | None, noise: float = 0.0, top_grain: float = 0.0) -> np.ndarray:
    """A 40 px disc on a mat, with or without a small figure standing at its middle."""
    rng = np.random.default_rng(1)
    image = np.full((120, 120, 3), MAT, np.float32)
    top = np.zeros((120, 120), np.uint8)
    cv2.circle(top, (60, 60), 40, 255, -1)
    image[top > 0] = TOP
    if top_grain:
        image[top > 0] += rng.normal(0, top_grain, (int((top > 0).sum()), 3))
    if figure is not None:
        cv2.ellipse(image, (62, 58), (9, 6), 30, 0, 360, figure, -1)
    image += rng.normal(0, noise, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def _carries(image: np.ndarray) -> bool:
    return bool(carries_a_miniature(image, np.array([[60.0, 60.0]]), np.array([40.0]))[0])


def test_a_plain_disc_is_bare_and_one_with_a_figure_is_not():
    assert not _carries(_disc(None))
    assert not _carries(_disc(None, noise=3.0))
    assert _carries(_disc((40, 40, 200)))
    assert _carries(_disc((40, 40, 200), noise=3.0))


def test_a_figure_painted_close_to_the_top_still_counts():
    assert _carries(_disc((TOP[0] + 12, TOP[1] - 10, TOP[2] + 6)))


def test_a_textured_top_is_never_called_bare():
    assert _carries(_disc(None, top_grain=25.0))


def test_no_discs_give_an_empty_answer():
    assert carries_a_miniature(_disc(None), np.zeros((0, 2)), np.zeros(0)).shape == (0,)


def test_tokens_and_printed_circles_of_base_size_are_not_reported_as_bases(detector):
    scene = squad_scene()
    fakes = [
        DistractorSpec("token", 40.0, 100.0, 3.2, color=(60, 60, 200)),
        DistractorSpec("printed_circle", 100.0, 20.0, 3.2, color=(25, 60, 25)),
        DistractorSpec("printed_circle", 160.0, 65.0, 6.5, color=(25, 60, 25)),
    ]
    scene = replace(scene, distractors=fakes)
    camera = rig_camera()
    frame = render_scene(scene, camera, seed=11)
    found = detector.detect(frame.image, CameraCalibration(camera, scene.table_cm, scene.markers))
    fake_xy = np.array([[d.x_cm, d.y_cm] for d in fakes])
    assert nearest_errors_mm(fake_xy, found.bases.xy_cm).min() > 10.0
    assert np.sum(nearest_errors_mm(found.bases.xy_cm, frame.truth.base_xy_cm()) < 1.5) >= 12
