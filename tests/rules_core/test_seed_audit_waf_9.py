"""Ninth audit of World at Fire (seed 000): shooting, objectives, coherency and deployment.

Each test failed before its fix; the docstring quotes the seed sentence and translates it.
"""

from __future__ import annotations

from rules_core import api
from tests.rules_core.builders import base, scene_data

WAF = "world-at-fire"


# --- waf.objective.control: an infantry unit, not a squadron with a rider walking in it --------


def _holder(models: list[dict]) -> str | None:
    objective = {"id": "o", "x_cm": 90.0, "y_cm": 60.0}
    scene = api.parse_scene(scene_data(WAF, models, objectives=[objective]))
    return api.check(scene)["objectives"]["o"]["controlled_by"]


def test_a_dismounted_rider_walking_with_his_squadron_does_not_control() -> None:
    """000: «Игрок считается контролирующим Объект, если в радиусе 10 сантиметров от Объекта
    находится его отряд пехоты (не Уникальный)»; «Если наездникам не хватает лошадей, то отряд
    двигается дальше со скоростью 15 см ... – спешенный наездник двигается в составе отряда пешком»
    (a side controls an objective when one of its infantry units, not Unique, is within 10 cm; a
    rider without a horse walks on as a member of his cavalry unit): a dismounted rider (type
    infantry) within 10 cm, in a unit whose horsemen stand outside the radius, is part of a cavalry
    unit and holds nothing; the same man in an infantry unit of his own still does (a guard that
    held before)."""
    rider = base(100, 60, "d", unit="red-cav")
    horsemen = [
        base(x, 60, id, unit="red-cav", type="cavalry", diameter_mm=65)
        for x, id in [(108, "h1"), (116, "h2")]
    ]
    assert _holder([rider, *horsemen]) is None
    assert _holder([base(100, 60, "d", unit="red-foot"), *horsemen]) == "red"
