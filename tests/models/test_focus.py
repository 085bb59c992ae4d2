from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.focus import FrameBlur, deblurred, measure_blur

SQUARES_CM = [
    np.array([[x, y], [x + 5, y], [x + 5, y + 5], [x, y + 5]], float) for x, y in ((3, 3), (12, 3), (3, 12))
]


def _marker_sheet(sigma_x: float, sigma_y: float, grain: float = 0.0) -> np.ndarray:
    """Black 5 cm squares on white at 1 px/mm, blurred by a Gaussian of its own width per axis."""
    image = np.full((200, 200, 3), 230, np.uint8)
    for square in SQUARES_CM:
        x0, y0 = (square[0] * 10).astype(int)
        image[y0 : y0 + 50, x0 : x0 + 50] = 25
    image = cv2.GaussianBlur(image.astype(np.float32), (0, 0), sigmaX=sigma_x, sigmaY=sigma_y)
    image += np.random.default_rng(1).normal(0, grain, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma_x, sigma_y", [(0.8, 0.8), (1.5, 1.5), (2.0, 1.0)])
def test_the_markers_edges_give_the_frames_blur_along_each_axis(sigma_x, sigma_y):
    blur = measure_blur(_marker_sheet(sigma_x, sigma_y, grain=2.0), SQUARES_CM, 1.0)
    assert blur is not None
    assert blur.sigma_px == pytest.approx((sigma_x, sigma_y), abs=0.2)
    assert 0 < blur.grain < 0.03


def test_no_marker_in_view_measures_nothing():
    grey = np.full((200, 200, 3), 120, np.uint8)
    assert measure_blur(grey, SQUARES_CM, 1.0) is None
    assert measure_blur(grey, [], 1.0) is None


def _rise_px(row: np.ndarray) -> float:
    """10-90 % rise of a dark-to-light step, in px."""
    lo, hi = row.min(), row.max()
    return float(np.argmax(row >= lo + 0.9 * (hi - lo)) - np.argmax(row >= lo + 0.1 * (hi - lo)))


def test_a_blurred_frame_is_sharpened_and_a_sharp_one_left_alone():
    sharp = _marker_sheet(0.6, 0.6)
    assert deblurred(sharp, FrameBlur((0.6, 0.6), 0.005)) is sharp
    assert deblurred(sharp, None) is sharp
    blurred = _marker_sheet(1.5, 1.5)
    restored = deblurred(blurred, measure_blur(blurred, SQUARES_CM, 1.0))
    row = slice(40, 60)  # across the first square's right side, at x = 80 px
    before = _rise_px(blurred[row, 70:95, 1].mean(0))
    after = _rise_px(restored[row, 70:95, 1].mean(0))
    assert after < 0.75 * before
    assert abs(float(restored[100:110, 150:160].mean()) - 230) < 2  # flat areas keep their level


def test_a_hidden_marker_is_left_out_of_the_measure():
    sheet = _marker_sheet(1.5, 1.0, grain=2.0)
    sheet[110:190, 0:90] = 128  # a hand over the third square: no step on any of its sides
    blur = measure_blur(sheet, SQUARES_CM, 1.0)
    assert blur is not None
    assert blur.sigma_px == pytest.approx((1.5, 1.0), abs=0.2)


def test_sharpening_within_reach_of_given_centres_matches_the_whole_frame_there():
    blurred = _marker_sheet(1.5, 1.5)
    blur = measure_blur(blurred, SQUARES_CM, 1.0)
    whole = deblurred(blurred, blur)
    centres = np.array([[80.0, 50.0], [5.0, 195.0]])  # the second square's edge; a frame corner
    part = deblurred(blurred, blur, centres, np.array([12.0, 20.0]))
    for (x, y), reach in zip(centres, (12, 20), strict=True):
        window = np.s_[max(0, int(y) - reach) : int(y) + reach, max(0, int(x) - reach) : int(x) + reach]
        np.testing.assert_allclose(part[window], whole[window], atol=1e-3)
    assert not np.allclose(whole[40:60, 70:75], blurred[40:60, 70:75])
    np.testing.assert_array_equal(part[100:200, 100:200], blurred[100:200, 100:200])  # out of reach


def test_the_step_models_are_projected_in_blocks_that_run_on_one_thread():
    """The blocks give the whole product (to its last bits) and each stays under the size at
    which OpenBLAS wakes its other threads, which then spin through the settling that follows."""
    from models.focus import _ACROSS, _SINGLE_THREADED_MNK, _STEPS, _projections

    assert _SINGLE_THREADED_MNK < 65_536 * 4
    for edges in (1, 12, 16, 40):
        yc = np.random.default_rng(edges).normal(0, 60, (edges, len(_ACROSS)))
        np.testing.assert_allclose(_projections(yc), yc @ _STEPS.T, rtol=1e-12, atol=1e-9)
        assert (_SINGLE_THREADED_MNK // yc.size) * yc.size <= _SINGLE_THREADED_MNK
