"""One base to a place: overlapping rims contend, touching ones both stand."""

from __future__ import annotations

import numpy as np

from models.overlaps import in_the_gaps, non_overlapping, overlaps


def _circle_choice(xy_mm: list[tuple[float, float]], diameter_mm: list[float], score: list[float]) -> list:
    overlap = overlaps(np.array(xy_mm, float), np.array(diameter_mm) / 2)
    return sorted(non_overlapping(overlap, np.array(score), np.ones(len(score), bool)))


def test_a_big_circle_through_a_squad_loses_to_the_bases_it_covers():
    # Two touching 32 mm bases and a 65 mm "base" whose circle runs round both of them.
    chosen = _circle_choice([(0, 0), (32, 0), (16, 0)], [32, 32, 65], [0.9, 0.8, 1.0])
    assert chosen == [0, 1]


def test_a_circle_in_the_gap_loses_to_the_touching_bases_around_it():
    gap = (16, 9)  # touches three bases in a triangle, overlapping two of them
    chosen = _circle_choice([(0, 0), (32, 0), gap], [32, 32, 32], [0.7, 0.7, 0.95])
    assert chosen == [0, 1]


def test_a_single_overlapping_rim_is_decided_by_score_alone():
    # One rim inside another is no squad: the likelier of the two stays, the other goes.
    assert _circle_choice([(0, 0), (10, 0)], [65, 32], [1.0, 0.8]) == [0]
    assert _circle_choice([(0, 0), (10, 0)], [65, 32], [0.8, 1.0]) == [1]


def test_faint_rims_fill_only_the_gaps_the_accepted_bases_leave():
    centres = np.array([[0, 0], [5, 0], [40, 0], [43, 0]], float)  # px; 32 mm rims at 1 px/mm
    radius = np.full(4, 16.0)
    score = np.array([0.95, 0.6, 0.5, 0.4])
    faint = np.array([False, True, True, True])
    assert list(in_the_gaps(overlaps(centres, radius), score, faint, np.array([0]))) == [2]
