"""A move's two scenes are one game: the same ruleset, the same table, the same models' ids.

Two tables of different sizes, or AFTER with every model renamed, gave {"models": {}} without a
word; either is two files of different games (or a renaming slip), never a move to judge."""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, scene_data

WAF = "world-at-fire"


def judged(before: dict, after: dict) -> dict:
    return api.move(api.parse_scene(before), api.parse_scene(after, allow_off_table=True))["models"]


@pytest.mark.parametrize(
    ("size", "said"),
    [((122, 122), "122x122"), ((183, 120), "183x120"), ((91.5, 122), "91.5x122")],
)
def test_a_move_onto_another_table_size_is_refused(size: tuple[float, float], said: str) -> None:
    before = scene_data(WAF, [base(20, 30, "r1")])
    after = scene_data(WAF, [base(25, 30, "r1")], width=size[0], depth=size[1])
    with pytest.raises(SceneError) as caught:
        judged(before, after)
    assert caught.value.problem == f"after.table: {said} cm differs from before.table 183x122 cm"
    assert caught.value.fix == "compare two scenes of the same game, on one table"


def test_a_move_under_another_ruleset_is_refused_naming_both() -> None:
    before = scene_data(WAF, [base(20, 30, "r1")])
    after = scene_data("combined-arms", [base(25, 30, "r1")])
    with pytest.raises(SceneError) as caught:
        judged(before, after)
    assert caught.value.problem == (
        "after.ruleset: 'combined-arms' differs from before.ruleset 'world-at-fire'"
    )


@pytest.mark.parametrize(
    ("after_ids", "said"),
    [
        (["x1", "x2"], "BEFORE has r1, r2; AFTER has x1, x2"),
        ([f"x{n}" for n in range(1, 9)], "BEFORE has r1, r2; AFTER has x1, x2, x3, x4, x5 and 3 more"),
    ],
)
def test_after_sharing_no_model_id_with_before_is_refused(after_ids: list[str], said: str) -> None:
    before = scene_data(WAF, [base(20, 30, "r1"), base(20, 40, "r2")])
    after = scene_data(WAF, [base(20 + n, 30, id) for n, id in enumerate(after_ids)])
    with pytest.raises(SceneError) as caught:
        judged(before, after)
    assert caught.value.problem == f"AFTER shares no model id with BEFORE ({said})"
    assert caught.value.fix == (
        "compare two scenes of the same game, each model under the same id in both "
        "(a casualty may be left out of AFTER)"
    )


def test_casualties_left_out_of_after_are_no_refusal() -> None:
    before = scene_data(WAF, [base(20, 30, "r1"), base(20, 40, "r2"), base(20, 50, "r3")])
    after = scene_data(WAF, [base(25, 30, "r1")])
    assert list(judged(before, after)) == ["r1"]


def test_every_model_gone_from_after_is_no_move_and_no_refusal() -> None:
    """An empty AFTER is every model a casualty or lifted off: nothing moved, nothing to refuse."""
    before = scene_data(WAF, [base(20, 30, "r1"), base(20, 40, "r2")])
    assert judged(before, scene_data(WAF, [])) == {}


def test_a_first_deployment_onto_an_empty_table_shares_no_id_and_is_judged() -> None:
    zones = {"phase": "deployment", "deployment": {"kind": "breakthrough", "sides": {"red": "left"}}}
    before = scene_data(WAF, [], **zones)
    after = scene_data(WAF, [base(10, 30, "r1")], **zones)
    assert list(judged(before, after)) == ["r1"]


def test_the_same_table_written_two_ways_is_one_table() -> None:
    before = scene_data(WAF, [base(20, 30, "r1")], width=183, depth=122)
    after = scene_data(WAF, [base(25, 30, "r1")], width=183.0, depth=122.0)
    assert list(judged(before, after)) == ["r1"]
