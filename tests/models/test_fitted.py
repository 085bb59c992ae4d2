"""The bars a fitted rim is judged by: its measured size, and the verifier's score by class."""

from __future__ import annotations

import numpy as np

from models.fitted import ACCEPT_PROBABILITY, ACCEPT_PROBABILITY_65, SIZE_TOLERANCE, accept_bar, right_size


def test_a_fit_within_the_tolerance_of_its_class_is_the_right_size():
    low, high = SIZE_TOLERANCE
    nominal = np.array([32.0, 32.0, 32.0, 32.0, 65.0, 65.0])
    measured = nominal * (1 + np.array([0.0, -low + 0.01, high - 0.01, high + 0.01, -low - 0.01, 0.05]))
    assert list(right_size(measured, nominal)) == [True, True, True, False, False, True]


def test_a_65mm_rim_is_accepted_at_its_own_lower_bar():
    assert ACCEPT_PROBABILITY_65 < ACCEPT_PROBABILITY
    assert list(accept_bar(np.array([32.0, 65.0]))) == [ACCEPT_PROBABILITY, ACCEPT_PROBABILITY_65]
