"""The benchmark's base scoring: one-to-one matches, and which truth base each error is for."""

from __future__ import annotations

import numpy as np

from models.detections import Bases
from models.scoring import score_bases
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
