"""The benchmark's base scoring: one-to-one matches, and which truth base each error is for."""

from __future__ import annotations

import numpy as np

from models.detections import Bases
from models.scoring import offsets_along, score_bases
from models.synth.specs import BaseTruth, Truth


def _truth() -> Truth:
    return Truth(
        bases=[
            BaseTruth(10.0, 10.0, 32.0, 1.0),
            BaseTruth(20.0, 10.0, 32.0, 1.0),
            BaseTruth(30.0, 10.0, 65.0, 0.2),  # mostly hidden
        ],
        vehicles=[],
    )


def test_errors_name_the_truth_bases_they_belong_to():
    found = Bases(np.array([[20.05, 10.0], [10.0, 10.1], [50.0, 50.0]]), np.array([32.0, 32.0, 32.0]),
                  np.ones(3), np.array([32.0, 32.0, 32.0]))
    score = score_bases(found, _truth())
    assert score.required == 2 and score.found == 2 and score.false == 1
    by_truth = dict(zip(score.matched_truth.tolist(), score.errors_mm.tolist(), strict=True))
    assert by_truth.keys() == {0, 1}
    assert np.isclose(by_truth[0], 1.0) and np.isclose(by_truth[1], 0.5)


def test_a_base_mostly_hidden_is_neither_required_nor_false():
    found = Bases(np.array([[30.0, 10.0]]), np.array([65.0]), np.ones(1), np.array([65.0]))
    score = score_bases(found, _truth())
    assert score.found == 0 and score.false == 0 and len(score.matched_truth) == 0


def test_offsets_keep_the_direction_the_errors_drop():
    found = Bases(np.array([[20.05, 10.0], [10.0, 10.1]]), np.array([32.0, 32.0]), np.ones(2),
                  np.array([32.0, 32.0]))
    score = score_bases(found, _truth())
    by_truth = dict(zip(score.matched_truth.tolist(), score.offsets_mm.tolist(), strict=True))
    assert np.allclose(by_truth[0], [0.0, 1.0]) and np.allclose(by_truth[1], [0.5, 0.0])
    assert np.allclose(np.linalg.norm(score.offsets_mm, axis=1), score.errors_mm)


def test_offsets_along_a_direction_keep_the_bias_and_cancel_the_noise():
    rng = np.random.default_rng(1)
    offsets = rng.normal(0.0, 0.5, (4000, 2)) + np.array([0.3, -0.4])  # noise; a 0.5 mm bias to (3, -4)
    assert abs(np.mean(offsets_along(offsets, np.array([6.0, -8.0]))) - 0.5) < 0.03
    assert abs(np.mean(offsets_along(offsets, np.array([4.0, 3.0])))) < 0.03
    outward = rng.normal(0.0, 1.0, (4000, 2))  # one direction per offset: away from a nadir
    along = offsets_along(offsets, outward)
    assert along.shape == (4000,)
    assert np.allclose(along, np.sum(offsets * outward, 1) / np.linalg.norm(outward, axis=1))
