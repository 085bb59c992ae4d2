"""A template centred on the table's edge stays on it when float arithmetic leaves the centre a
hair past the edge, as a model or objective does; a point really past it is still refused."""

from __future__ import annotations

import math

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, scene


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (183.0000001, 61),
        (183.000001, 61),
        (math.nextafter(183.0, 184.0), 61),  # the next float after the edge
        (-1e-7, 61),
        (91.5, 122.000001),
        (91.5, -0.000001),
        (183.0000001, 122.0000001),
    ],
)
def test_a_centre_on_the_edge_but_for_float_noise_is_on_the_table(x: float, y: float) -> None:
    s = scene("combined-arms", [base(min(max(x, 0), 183), min(max(y, 0), 122), "a")])
    assert [m["id"] for m in api.under_template(s, "grenade", x, y)["models"]] == ["a"]


@pytest.mark.parametrize(("x", "y"), [(183.001, 61), (183.0001, 61), (-0.0001, 61), (91.5, 122.0001)])
def test_a_centre_a_micrometre_past_the_edge_is_still_off_the_table(x: float, y: float) -> None:
    s = scene("combined-arms", [base(20, 30, "a")])
    with pytest.raises(SceneError, match="off the 183x122 cm table"):
        api.under_template(s, "grenade", x, y)


@pytest.mark.parametrize(("x", "y"), [(183.0000001, 61), (-1e-7, 61), (91.5, 122.000001)])
def test_a_model_or_objective_on_the_edge_but_for_float_noise_is_on_the_table(x: float, y: float) -> None:
    s = scene("combined-arms", [base(x, y, "a")], objectives=[{"id": "o", "x_cm": x, "y_cm": y}])
    assert s.off_table() == []


@pytest.mark.parametrize(("x", "y"), [(183.0001, 61), (-0.0001, 61)])
def test_a_model_a_micrometre_past_the_edge_is_still_off_the_table(x: float, y: float) -> None:
    with pytest.raises(SceneError, match="off the 183"):
        scene("combined-arms", [base(x, y, "a")])
