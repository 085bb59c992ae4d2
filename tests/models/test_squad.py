from __future__ import annotations

import cv2
import numpy as np

from models import squad
from models.squad import SQUAD_GAP_MM, SQUAD_LIKELIHOOD, among_its_squad, rim_paint

PX_PER_MM = 1.0
MAT = (60, 150, 170)  # sand
PAINT = (40, 110, 60)  # green flock
OTHER = (150, 60, 140)  # purple


Disc = tuple[tuple[float, float], float, tuple[int, int, int]]  # centre px, diameter mm, paint


def _table(discs: list[Disc], grain: float = 4.0) -> np.ndarray:
    """A grainy mat with bases drawn as discs of their paint, each with a dark figure on it."""
    rng = np.random.default_rng(3)
    image = np.full((260, 420, 3), MAT, np.float32)
    for (x, y), diameter, paint in discs:
        cv2.circle(image, (int(x), int(y)), int(diameter / 2 * PX_PER_MM), paint, -1)
        cv2.circle(image, (int(x), int(y)), 5, (30, 30, 30), -1)
    image += rng.normal(0, grain, image.shape)
    return np.clip(image, 0, 255).astype(np.uint8)


def _judged(image: np.ndarray, doubtful: list, accepted: list, likelihood: float = 0.8) -> list[bool]:
    found = among_its_squad(
        image, PX_PER_MM,
        np.array([p for p, _ in doubtful], float), np.array([d for _, d in doubtful], float),
        np.full(len(doubtful), likelihood),
        np.array([p for p, _ in accepted], float).reshape(-1, 2), np.array([d for _, d in accepted], float),
    )
    return [bool(f) for f in found]


def test_the_ring_paint_is_the_base_not_the_figure_on_it():
    image = _table([((100, 100), 32, PAINT)], grain=0.0)
    paint = rim_paint(image, np.array([[100.0, 100.0]]), np.array([16.0]))[0]
    assert np.linalg.norm(paint - PAINT) < 3


def test_a_doubtful_base_painted_like_its_accepted_neighbour_joins_it():
    image = _table([((100, 100), 32, PAINT), ((140, 100), 32, PAINT)])
    assert _judged(image, [((140, 100), 32)], [((100, 100), 32)]) == [True]


def test_another_paint_another_size_or_too_far_does_not_join():
    image = _table([
        ((100, 100), 32, PAINT), ((140, 100), 32, OTHER),  # another paint beside it
        ((100, 200), 65, PAINT), ((150, 200), 32, PAINT),  # a 32 mm base beside a 65 mm one
        ((380, 100), 32, PAINT),  # far from every accepted base
    ])
    far_gap = 380 - 100 - 32
    assert far_gap > SQUAD_GAP_MM
    assert _judged(
        image, [((140, 100), 32), ((150, 200), 32), ((380, 100), 32)], [((100, 100), 32), ((100, 200), 65)]
    ) == [False, False, False]


def test_the_base_map_must_see_a_base_there_too():
    image = _table([((100, 100), 32, PAINT), ((140, 100), 32, PAINT)])
    unseen = SQUAD_LIKELIHOOD - 0.01
    assert _judged(image, [((140, 100), 32)], [((100, 100), 32)], likelihood=unseen) == [False]


def test_nothing_accepted_nothing_joins():
    image = _table([((140, 100), 32, PAINT)])
    assert _judged(image, [((140, 100), 32)], []) == [False]
    assert _judged(image, [], [((140, 100), 32)]) == []


def test_a_ring_on_the_bare_mat_beside_a_squad_flocked_like_the_mat_does_not_join(monkeypatch):
    # An accepted base flocked like the mat: its ring is the mat's colour, and so is a ring
    # fitted on the bare mat beside it. Only standing off the mat tells them apart.
    image = _table([((100, 100), 32, MAT)], grain=2.0)
    assert _judged(image, [((140, 100), 32)], [((100, 100), 32)]) == [False]
    monkeypatch.setattr(squad, "OFF_THE_MAT", 0.0)
    assert _judged(image, [((140, 100), 32)], [((100, 100), 32)]) == [True]


def test_bases_flocked_like_the_mat_join_by_their_rims():
    image = _table([((100, 100), 32, MAT), ((140, 100), 32, MAT)], grain=2.0)
    for x in (100, 140):
        cv2.circle(image, (x, 100), 14, (30, 60, 70), 4)  # the rim and its shadow, darker than the flock
    assert _judged(image, [((140, 100), 32)], [((100, 100), 32)]) == [True]
