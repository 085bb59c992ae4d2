"""Session 57's blind examination (276 cases of rules meeting each other, written from the
Russian seeds before the engine was read): no case found the engine wrong. What it probed
beyond its cases is pinned here as guards (they passed before too), the sentence translated in
the docstring.
"""

from __future__ import annotations

from rules_core import api
from tests.rules_core.builders import base, scene

WAF = "world-at-fire"


def test_waf_an_enemy_aircraft_blocks_an_objective_though_it_keeps_no_move_buffer() -> None:
    """Guard. 000: «Игрок считается контролирующим Объект, если в радиусе 10 сантиметров от
    Объекта находится его отряд пехоты ... и если в радиусе 10 см от Объекта нет никаких
    отрядов противника» (a player controls an objective when one of his infantry units is within
    10 cm of it and no enemy units at all are): an enemy plane over it is one."""
    objective = [{"id": "o", "x_cm": 90, "y_cm": 60, "diameter_mm": 65}]
    infantry = base(97, 60, "a")
    plane = base(84, 60, "p1", type="aircraft", side="blue", diameter_mm=65)
    held = api.check(scene(WAF, [infantry], objectives=objective))["objectives"]["o"]
    blocked = api.check(scene(WAF, [infantry, plane], objectives=objective))["objectives"]["o"]
    assert held["controlled_by"] == "red"
    assert blocked["controlled_by"] is None and blocked["contested"] is True
