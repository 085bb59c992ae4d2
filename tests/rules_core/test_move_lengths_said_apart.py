"""BEFORE and AFTER whose step lengths or table sizes differ by more than the rules' 1e-6 cm are
refused naming both; printed to six figures, two lengths a few millionths of a cm apart read the
same ("3 cm differs from 3 cm"), which leaves the player nothing to correct. Each is printed
to as many figures as tell them apart."""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, scene_data


def refusal(before: dict, after: dict) -> str:
    with pytest.raises(SceneError) as caught:
        api.move(api.parse_scene(before), api.parse_scene(after))
    return caught.value.problem


def test_step_lengths_apart_by_two_millionths_of_a_cm_are_named_apart() -> None:
    before = scene_data("bronepehota", [base(20, 30, "r1", speed=4)], step_cm=3.0)
    after = scene_data("bronepehota", [base(30, 30, "r1", speed=4)], step_cm=3.000002)
    assert refusal(before, after) == "after.step_cm: 3.000002 cm differs from before.step_cm 3 cm"


def test_table_sizes_apart_by_a_hundred_thousandth_of_a_cm_are_named_apart() -> None:
    before = scene_data("world-at-fire", [base(20, 30, "r1")])
    after = scene_data("world-at-fire", [base(30, 30, "r1")], width=183.00001)
    assert refusal(before, after) == "after.table: 183.00001x122 cm differs from before.table 183x122 cm"
