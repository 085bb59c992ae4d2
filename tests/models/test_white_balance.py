from __future__ import annotations

import numpy as np

from models.detector import Detector
from models.marker_squares import marker_squares_cm
from models.synth.truth_calibration import CameraCalibration
from models.white_balance import balanced, paper_white

PX_PER_MM = 1.0
MARKER = np.array([[10.0, 10.0], [18.0, 10.0], [18.0, 18.0], [10.0, 18.0]])  # cm


def _table(light_bgr: tuple[float, float, float]) -> np.ndarray:
    """A green mat with one marker sheet (white paper, black bits), lit by `light_bgr`."""
    rect = np.full((300, 400, 3), (60, 130, 70), np.float32)
    rect[88:192, 88:192] = 250  # the sheet: the marker's 8 cm plus its white margin
    rect[110:170:20, 100:180] = 20  # rows of black bits
    rect += np.random.default_rng(0).normal(0, 2, rect.shape)
    return np.clip(rect * np.array(light_bgr, np.float32) / 255, 0, 255).astype(np.uint8)


def test_a_warm_light_is_divided_out_by_the_markers_paper():
    warm = _table((200, 240, 255))
    white = paper_white(warm, PX_PER_MM, [MARKER])
    assert white is not None and white[2] > white[0] * 1.2
    fixed = balanced(warm, PX_PER_MM, [MARKER])
    paper = paper_white(fixed, PX_PER_MM, [MARKER])
    assert np.ptp(paper) / paper.mean() < 0.03
    mat = fixed[20:60, 300:380].reshape(-1, 3).mean(0)
    neutral = _table((235, 235, 235))[20:60, 300:380].reshape(-1, 3).mean(0)
    assert np.all(np.abs(mat / mat.sum() - neutral / neutral.sum()) < 0.01)  # the mat's hue is back


def test_a_neutral_frame_is_left_alone():
    neutral = _table((240, 240, 240))
    assert balanced(neutral, PX_PER_MM, [MARKER]) is neutral


def test_no_sheet_in_view_or_in_shadow_changes_nothing():
    dark = _table((30, 30, 35))
    assert paper_white(dark, PX_PER_MM, [MARKER]) is None
    assert balanced(dark, PX_PER_MM, [MARKER]) is dark
    assert balanced(dark, PX_PER_MM, []) is dark


def test_the_detector_sees_a_tinted_table_in_neutral_colours(squad_frame):
    scene, camera, frame = squad_frame
    calibration = CameraCalibration(camera, scene.table_cm, scene.markers)
    tinted = (frame.image * np.array([0.75, 0.9, 1.0])).astype(np.uint8)  # a warm lamp: less blue
    seen = Detector(None).fitted_candidates(tinted, calibration)
    plain = Detector(None).fitted_candidates(frame.image, calibration)
    paper = paper_white(seen.rect, seen.px_per_mm, marker_squares_cm(calibration))
    assert np.ptp(paper) / paper.mean() < 0.05
    mat_seen = np.median(seen.rect[::7, ::7].reshape(-1, 3), axis=0)
    mat_plain = np.median(plain.rect[::7, ::7].reshape(-1, 3), axis=0)
    assert np.all(np.abs(mat_seen / mat_seen.sum() - mat_plain / mat_plain.sum()) < 0.03)
