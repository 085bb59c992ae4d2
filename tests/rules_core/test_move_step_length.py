"""Bronepehota measures in steps whose length each scene may set (`step_cm`, or `table.step_cm`), and
a move is judged in AFTER's step. BEFORE and AFTER with steps of different lengths were judged
silently in AFTER's, so the same 10 cm move was legal or not by which file said what; it is two
tables' files, refused as a change of table size is. A step left out is the ruleset's default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, scene_data
from tracker.cli import main

BP = "bronepehota"
FIX = "compare two scenes of the same game, measured in one step: give both the same step_cm"


def judged(before_step: dict[str, Any], after_step: dict[str, Any], ruleset: str = BP) -> dict:
    """r1 moves 10 cm with a speed of 4 steps; each dict is extra scene fields (a step length)."""
    before = scene_data(ruleset, [base(20, 30, "r1", speed=4)], **before_step)
    after = scene_data(ruleset, [base(30, 30, "r1", speed=4)], **after_step)
    return api.move(api.parse_scene(before), api.parse_scene(after))["models"]


def on_table(step_cm: float) -> dict[str, Any]:
    return {"table": {"width_cm": 183.0, "depth_cm": 122.0, "step_cm": step_cm}}


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        ({"step_cm": 3.0}, {"step_cm": 2.0}, "after.step_cm: 2 cm differs from before.step_cm 3 cm"),
        (on_table(3.0), {"step_cm": 2.0}, "after.step_cm: 2 cm differs from before.step_cm 3 cm"),
        ({"step_cm": 3.0}, on_table(2.5), "after.step_cm: 2.5 cm differs from before.step_cm 3 cm"),
        (
            {},
            {"step_cm": 3.0},
            "after.step_cm: 3 cm differs from before.step_cm 2.5 cm (not given: bronepehota's default)",
        ),
        (
            {"step_cm": 3.0},
            {},
            "after.step_cm: 2.5 cm (not given: bronepehota's default) differs from before.step_cm 3 cm",
        ),
    ],
)
def test_a_move_between_two_step_lengths_is_refused_naming_both(before: dict, after: dict, said: str) -> None:
    with pytest.raises(SceneError) as caught:
        judged(before, after)
    assert caught.value.problem == said
    assert caught.value.fix == FIX


@pytest.mark.parametrize(
    ("before", "after", "allowance_cm"),
    [
        ({"step_cm": 3.0}, {"step_cm": 3.0}, 12.0),
        (on_table(3.0), {"step_cm": 3.0}, 12.0),  # the same step, given in the other place
        ({}, {}, 10.0),
        ({}, {"step_cm": 2.5}, 10.0),  # the default, given in one of them only
        ({"step_cm": 2.5}, {}, 10.0),
    ],
)
def test_the_same_step_length_in_force_is_judged(before: dict, after: dict, allowance_cm: float) -> None:
    assert judged(before, after)["r1"]["allowance_cm"] == pytest.approx(allowance_cm)


def test_a_step_length_a_ruleset_in_cm_does_not_use_is_no_difference() -> None:
    """world-at-fire measures in cm: a step_cm left in one of its scenes changes no distance."""
    entry = judged({"step_cm": 3.0}, {"step_cm": 2.0}, ruleset="world-at-fire")
    assert entry["r1"]["moved_cm"] == pytest.approx(10.0)


def test_the_cli_refuses_it_in_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    paths = []
    for name, x, step_cm in (("before.json", 20, 3.0), ("after.json", 30, 2.0)):
        path = tmp_path / name
        data = scene_data(BP, [base(x, 30, "r1", speed=4)], step_cm=step_cm)
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(str(path))
    assert main(["rules", "move", *paths]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "tablesight rules: after.step_cm: 2 cm differs from before.step_cm 3 cm. "
        "compare two scenes of the same game, measured in one step: give both the same step_cm.\n"
    )


def test_one_scene_giving_two_step_lengths_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`step_cm` at the top and `table.step_cm` disagreeing: the top one was taken without a word."""
    data = scene_data(BP, [base(20, 30, "r1", speed=4)], step_cm=3.0, **on_table(2.0))
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["rules", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "scene field step_cm: 3 cm differs from table.step_cm 2 cm" in err and "give the step once" in err


def test_one_scene_giving_one_step_length_twice_is_judged_in_it() -> None:
    same = {"step_cm": 3.0, **on_table(3.0)}
    assert judged(same, same)["r1"]["allowance_cm"] == pytest.approx(12.0)
