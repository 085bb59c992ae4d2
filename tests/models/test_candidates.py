"""Candidates: circle votes at the known radii, one peak per circle."""

from __future__ import annotations

import cv2
import numpy as np

from models.base_map import STRIDE, map_peaks
from models.candidates import MAP_PEAK_LIKELIHOOD, VOTE_PX_PER_MM, find_candidates

PPM = 1.0  # rectified pixels per millimetre


def _grainy_mat(size_px: int) -> np.ndarray:
    """A grey mat with grain: the edge threshold is relative to its texture."""
    grain = np.random.default_rng(0).normal(0, 4, (size_px, size_px, 1))
    return np.clip(128 + grain, 0, 255).repeat(3, axis=2).astype(np.uint8)


def _mat_with_rings(rings: list[tuple[tuple[float, float], int]]) -> np.ndarray:
    """A grainy mat with 32 mm rings."""
    image = _grainy_mat(300)
    for (x, y), grey in rings:
        cv2.circle(image, (int(x * PPM), int(y * PPM)), int(16 * PPM), (grey, grey, grey), 2, cv2.LINE_AA)
    return image


def _nearest_mm(found, xy_mm: tuple[float, float]) -> float:
    centres = found.centres_px[found.diameter_mm == 32.0] / PPM
    return float(np.linalg.norm(centres - np.asarray(xy_mm), axis=1).min())


def test_every_ring_gets_a_candidate_at_its_centre():
    found = find_candidates(_mat_with_rings([((80, 80), 30), ((200, 150), 230)]), PPM)
    assert _nearest_mm(found, (80, 80)) < 2.5
    assert _nearest_mm(found, (200, 150)) < 2.5


def test_a_stronger_circle_a_few_millimetres_away_does_not_hide_a_faint_rim():
    strong, faint = (150.0, 150.0), (156.0, 156.0)  # 8.5 mm apart: a shadow's or a miniature's arc
    found = find_candidates(_mat_with_rings([(strong, 10), (faint, 100)]), PPM)
    assert _nearest_mm(found, strong) < 2.5
    assert _nearest_mm(found, faint) < 2.5


def test_textured_65mm_peaks_leave_room_for_the_32mm_rims():
    """Crisp 65 mm rings rank above faint 32 mm rims; with 8 places, only one may go to them."""
    image = _grainy_mat(420)
    for x, y in [(60, 60), (200, 60), (340, 60), (60, 200), (200, 200), (340, 200)]:
        cv2.circle(image, (x, y), 32, (0, 0, 0), 3, cv2.LINE_AA)
    faint = [(50, 330), (110, 330), (170, 330), (230, 330), (290, 330), (350, 330)]
    for x, y in faint:
        cv2.circle(image, (x, y), 16, (100, 100, 100), 2, cv2.LINE_AA)
    found = find_candidates(image, PPM, limit=8)
    assert (found.diameter_mm == 65.0).sum() == 1
    for xy in faint:
        assert _nearest_mm(found, xy) < 2.5


def test_edge_pixels_are_listed_alike_from_opencv_4_and_5(monkeypatch):
    """OpenCV 4 lists findNonZero's points as (n, 1, 2), OpenCV 5 as (n, 2)."""
    import models.candidates

    mask = np.zeros((40, 60), np.uint8)
    mask[[3, 3, 17, 39], [5, 50, 0, 59]] = 255
    ys, xs = np.nonzero(mask)
    four = models.candidates._where(mask)
    listed = cv2.findNonZero
    monkeypatch.setattr(models.candidates.cv2, "findNonZero", lambda m: listed(m).reshape(-1, 2))
    five = models.candidates._where(mask)
    for found in (four, five):
        np.testing.assert_array_equal(found[0], xs)
        np.testing.assert_array_equal(found[1], ys)


class _Map:
    """A base map that says what it is told: `probabilities` returns a fixed (2, h/8, w/8) map."""

    def __init__(self, probability: np.ndarray) -> None:
        self.probability = probability

    def probabilities(self, image: np.ndarray) -> np.ndarray:
        assert image.shape[:2] == (self.probability.shape[1] * STRIDE, self.probability.shape[2] * STRIDE)
        return self.probability


def test_the_maps_peaks_are_its_local_maxima_over_the_bar():
    probability = np.zeros((2, 6, 8), np.float32)
    probability[0, 2, 3], probability[0, 2, 4] = 0.8, 0.6  # a peak and its lower neighbour
    probability[0, 4, 6] = MAP_PEAK_LIKELIHOOD - 0.01  # under the bar
    probability[1, 1, 1] = 0.9
    centres, channels = map_peaks(probability, MAP_PEAK_LIKELIHOOD)
    np.testing.assert_allclose(centres, [[3.5 * STRIDE - 0.5, 2.5 * STRIDE - 0.5], [1.5 * STRIDE - 0.5] * 2])
    np.testing.assert_array_equal(channels, [0, 1])


def test_a_base_the_map_sees_but_no_vote_does_becomes_a_candidate():
    """A flocked base on a mat of its colour draws no rim to vote for, only its figure and shadow
    for the map: where the map peaks away from every kept vote peak of that class, the peak's
    cell joins the candidates; where a vote peak of the class is kept nearby, it does not."""
    size_mm = 320
    image = _grainy_mat(int(size_mm * VOTE_PX_PER_MM))  # at the vote scale: no shrinking
    ring_mm = (71.0, 71.0)  # the centre of the map's cell (4, 4)
    cv2.circle(image, (142, 142), 32, (20, 20, 20), 1, cv2.LINE_AA, shift=2)  # its 32 mm rim
    probability = np.zeros((2, image.shape[0] // STRIDE, image.shape[1] // STRIDE), np.float32)
    probability[0, 4, 4] = 0.9  # over the ring: its vote peak is kept already
    probability[0, 14, 10] = 0.7  # an unvoted 32 mm base near (168, 232) mm
    probability[1, 14, 10] = 0.6  # and a 65 mm one at the same spot: its own class
    probability[1, 2, 14] = MAP_PEAK_LIKELIHOOD / 2  # too unlikely
    probability[0, 6, 16] = 0.45  # a base flocked like the mat: the map is less than even sure
    found = find_candidates(image, VOTE_PX_PER_MM, limit=40, base_map=_Map(probability))

    def at_cell(column: int, row: int) -> np.ndarray:  # the classes of the candidates there
        cell_px = (np.array([column, row]) + 0.5) * STRIDE - 0.5
        return found.diameter_mm[np.all(found.centres_px == cell_px, axis=1)]

    np.testing.assert_array_equal(at_cell(10, 14), [32.0, 65.0])
    np.testing.assert_array_equal(at_cell(16, 6), [32.0])
    assert len(at_cell(14, 2)) == len(at_cell(4, 4)) == 0
    near_ring = np.linalg.norm(found.centres_px / VOTE_PX_PER_MM - ring_mm, axis=1) < 8
    assert (near_ring & (found.diameter_mm == 32.0)).sum() == 1  # the vote peak, not the map's too
