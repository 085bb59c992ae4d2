"""The markers' sheets: no base stands on one, whatever circles their printed bits make."""

from __future__ import annotations

import numpy as np

from calibration.layout import default_layout
from calibration.marker_sheet import sheet_reach
from models.marker_squares import marker_squares_cm, on_markers


class _Calibrated:
    def __init__(self, layout) -> None:
        self.layout = layout


def test_the_squares_are_the_layouts_markers():
    layout = default_layout("183x122")
    squares = marker_squares_cm(_Calibrated(layout))
    assert len(squares) == len(layout.corners_by_id)
    assert all(np.array_equal(a, b) for a, b in zip(squares, layout.corners_by_id.values(), strict=True))


def test_a_centre_on_a_sheet_or_within_a_base_of_it_is_on_the_markers():
    square = np.array([[10.0, 10.0], [20.0, 10.0], [20.0, 20.0], [10.0, 20.0]])
    reach = sheet_reach(10.0) + 2.0
    points = np.array([[15.0, 15.0], [15.0 + reach - 0.1, 15.0], [15.0 + reach + 0.1, 15.0], [60.0, 60.0]])
    assert list(on_markers(points, [square])) == [True, True, False, False]
    assert not on_markers(points, []).any()
