"""Candidates: circle votes at the known radii, one peak per circle."""

from __future__ import annotations

import cv2
import numpy as np

from models.candidates import find_candidates

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
