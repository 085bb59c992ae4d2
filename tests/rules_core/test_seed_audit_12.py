"""Twelfth audit pass against the Russian seed texts.

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

from rules_core import api
from tests.rules_core.builders import base, scene

MI = "mobile-infantry"


def _hill(x0: float, x1: float, level: int) -> dict:
    """A height level across the whole 122 cm table depth."""
    return {"id": "h", "kind": "hill", "level": level, "polygon_cm": [[x0, 0], [x1, 0], [x1, 122], [x0, 122]]}


def _leader_sight(leader: dict, trooper: dict, terrain: list[dict]) -> dict:
    return api.check(scene(MI, [leader, trooper], terrain=terrain))["leader_sight"]["t"]


def test_a_squad_leader_sees_only_troopers_on_his_own_height_level() -> None:
    """001: «Полем видимости в игре считается свободный, не заслоненный зданиями и элементами
    рельефа, обзор, при условии нахождения на одинаковом уровне по высоте» (the field of view is a
    clear view not screened by buildings or relief, provided both stand on the same height level),
    and the +1 is «для бойцов, которые находятся в зоне прямой видимости командира отделения». A
    leader up on a hill does not see a trooper down beside it, nor a leader on the ground a trooper
    up on the hill; two on the same hill, or both on open ground, do."""
    leader = base(26.5, 30, "l", unit="sq", type="trooper", role="leader")
    trooper = base(34, 30, "t", unit="sq", type="trooper")
    hill = _hill(25, 28, 1)
    assert _leader_sight(leader, trooper, [hill]) == {"in_leader_sight": False, "seen_by": []}
    below = _leader_sight({**leader, "x_cm": 40}, {**trooper, "x_cm": 26.5}, [hill])
    assert below["in_leader_sight"] is False
    plateau = _hill(20, 40, 1)
    assert _leader_sight(leader, trooper, [plateau]) == {"in_leader_sight": True, "seen_by": ["l"]}
    assert _leader_sight(leader, trooper, [])["in_leader_sight"] is True


def test_a_field_level_counts_as_the_models_height_for_leader_sight() -> None:
    """001: «при условии нахождения на одинаковом уровне по высоте»: a trooper the scene puts on
    level 2 (a rooftop) is out of his ground-level leader's sight, with nothing between them."""
    leader = base(20, 30, "l", unit="sq", type="trooper", role="leader")
    trooper = base(34, 30, "t", unit="sq", type="trooper", level=2)
    assert _leader_sight(leader, trooper, [])["in_leader_sight"] is False
    assert _leader_sight({**leader, "level": 2}, trooper, [])["in_leader_sight"] is True
