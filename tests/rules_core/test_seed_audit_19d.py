"""Session 55's audit of Combined Arms: a heavy machine gun named by its role fires its own gun.

Each test cites the seed sentence it checks and failed before the fix it pins.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, scene

CA = "combined-arms"
INCH = 2.54


@pytest.mark.parametrize(("crew", "fires"), [(2, True), (0, False)])
def test_ca_a_gun_whose_role_is_hmg_fires_the_heavy_machine_gun(crew: int, fires: bool) -> None:
    """002: «Станковый пулемёт требует наличия двух бойцов для передвижения (в радиусе 1 дюйма) и
    одного для ведения огня»; «Дистанция стрельбы - 14 дюймов, если подразделение «окопано»» (a
    heavy MG needs two fighters within 1" to move and one to fire; 14" when dug in). A gun given
    the role hmg met `hmg_can_fire` in check, yet ranges gave it no weapon at all: the role arms
    it with the heavy MG, which reaches 10" with its crew beside it and no one without them."""
    gun = base(25.4, 25.4, "h1", type="gun", diameter_mm=25.4, role="hmg", flags=["dug_in"])
    hands = [base(25.4, 25.4 + k * 1.5 * INCH, f"c{k}", diameter_mm=25.4) for k in (1, -1)][:crew]
    enemy = base(25.4 + 11 * INCH, 25.4, "e1", side="blue", unit="blue-1", diameter_mm=25.4)
    rows = api.ranges(scene(CA, [gun, *hands, enemy]), "h1")["targets"]
    assert [row["weapons"] for row in rows] == [["hmg"] if fires else []]


def _smoke(x: float, y: float) -> dict:
    """The 5" x 1" strip `rules template ... smoke X Y --heading 90` lays, as a terrain piece."""
    half_long, half_wide = 2.5 * INCH, 0.5 * INCH
    corners = [[x - half_wide, y - half_long], [x + half_wide, y - half_long], [x + half_wide, y + half_long],
               [x - half_wide, y + half_long]]
    return {"id": "sm", "kind": "smoke", "polygon_cm": corners}


@pytest.mark.parametrize(("shooter", "target"), [("s", "in"), ("in", "s")])
def test_ca_no_one_fires_into_or_out_of_a_smoke_screen(shooter: str, target: str) -> None:
    """002: «Дымовая завеса непростреливаема и непроходима для всех боевых единиц» (the smoke
    screen cannot be fired through nor passed by any unit). Fire across the strip was blocked, but a
    fighter standing in the smoke was shot with rifle and grenade, and shot out of it: the pieces
    one stands in were let off as a wood is. A fighter beside the strip is shot as before."""
    rifleman = base(52, 60, "s", weapons=["rifle", "grenade"])
    hidden = base(61.27, 60, "in", side="blue", unit="blue-1", weapons=["rifle", "grenade"])
    beside = base(52, 75, "b", side="blue", unit="blue-2")
    rows = api.ranges(scene(CA, [rifleman, hidden, beside], terrain=[_smoke(61.27, 60)]), shooter)["targets"]
    weapons = {row["id"]: row["weapons"] for row in rows}
    assert weapons[target] == []
    if shooter == "s":
        assert weapons["b"] == ["rifle"]


def test_ca_a_gun_armed_by_its_role_is_not_taken_for_a_crewless_mortar() -> None:
    """002: the crew rule is the mortar's («Наличие 1-2 миномётчиков и командира расчёта является
    обязательным условием для возможности действия миномёта»). A gun the scene names no weapons
    for but whose role arms it (a flamethrower) was taken for a mortar: with no crew on the
    table it fired at nothing, and check said it could not fire. Its role's weapons decide."""
    gun = base(20, 20, "g", type="gun", diameter_mm=25.4, role="flamethrower", flags=["dug_in"])
    enemy = base(40, 20, "e", side="blue", unit="blue-1")
    played = scene(CA, [gun, enemy])
    assert api.ranges(played, "g")["targets"][0]["weapons"] == ["flamethrower"]
    assert api.check(played)["guns"]["g"]["can_fire"] is True


def test_ca_a_smoke_screen_hides_whoever_stands_in_it() -> None:
    """«Дымовая завеса непростреливаема и непроходима»; the ruleset's smoke lets nothing see
    through it. A scout observed an enemy standing in the smoke, and ranges gave the line of
    sight into it (a wood hides only what stands behind it: the smoke hides what stands in it)."""
    scout = base(20, 55, "sc", role="scout")
    hidden = base(46, 55, "e1", side="blue", unit="blue-1")
    corners = [[40, 53.65], [52.7, 53.65], [52.7, 56.19], [40, 56.19]]
    strip = {"id": "s", "kind": "smoke", "polygon_cm": corners}
    played = scene(CA, [scout, hidden], terrain=[strip])
    assert api.check(played)["proximity"]["observed_by_scout"]["e1"]["met"] is False
    assert api.ranges(played, "sc")["targets"][0]["line_of_sight"] is False
