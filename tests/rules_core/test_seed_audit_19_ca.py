"""Nineteenth audit pass against the Russian seed texts: Combined Arms (seed 002).

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, hull, scene

CA = "combined-arms"
INCH = 2.54
GROUND = [
    "pistol", "shotgun", "smg", "rifle", "assault_rifle", "sniper_rifle", "heavy_sniper_rifle",
    "grenade_launcher", "lmg", "at_rifle", "at_grenade_launcher", "heavy_at_grenade_launcher", "grenade",
]


def test_ca_only_anti_air_weapons_reach_an_aircraft() -> None:
    """002: «Авиация уничтожается после 1 попадания истребителя, зенитной пушки, зенитного
    автомата, боевого вертолёта» (aviation is destroyed by one hit of a fighter, an AA gun, an AA
    autocannon or a combat helicopter) and «Зенитный ручной комплекс. В свой ход ведёт огонь по
    вертолётам, БПЛА, бомбардировщикам и штурмовикам» (the MANPADS fires at aircraft). A fighter
    with every ground weapon and a MANPADS, an aircraft 2" away: only the MANPADS reaches it (all
    of them did); the same weapons still reach an enemy fighter, and a dug-in heavy MG and
    flamethrower and a tank's riders reach the fighter but not the plane."""
    shooter = base(20, 50, "s", weapons=[*GROUND, "manpads"])
    plane = base(20 + 1.6 + 3.25 + 2 * INCH, 50, "air", side="blue", unit="b-air", type="aircraft",
                 diameter_mm=65)
    fighter = base(20, 50 + 3.2 + 2 * INCH, "f", side="blue", unit="b1")
    rows = {row["id"]: row for row in api.ranges(scene(CA, [shooter, plane, fighter]), "s")["targets"]}
    assert rows["air"]["weapons"] == ["manpads"]
    assert rows["f"]["weapons"] == GROUND
    dug_in = base(20, 50, "s", weapons=["hmg", "flamethrower"], flags=["dug_in"])
    rows = {row["id"]: row for row in api.ranges(scene(CA, [dug_in, plane, fighter]), "s")["targets"]}
    assert rows["air"]["weapons"] == [] and rows["f"]["weapons"] == ["hmg", "flamethrower"]
    tank = hull(20, 50, "t", side="red", unit="r-t", chassis="tank", passengers=3, length_mm=40, width_mm=20)
    rows = {row["id"]: row for row in api.ranges(scene(CA, [tank, plane, fighter]), "t")["targets"]}
    assert rows["air"]["weapons"] == [] and rows["f"]["weapons"] == ["desant_fire"]


@pytest.mark.parametrize(("weapons", "reaches"), [(["light_mortar"], False), (["heavy_mortar"], False),
                                                  (["heavy_at_grenade_launcher"], True)])
def test_ca_a_mortar_with_no_crew_at_all_reaches_no_one(weapons: list[str], reaches: bool) -> None:
    """002: «Наличие 1-2 миномётчиков и командира расчёта является обязательным условием для
    возможности действия миномёта» (one or two mortarmen and a crew commander are a mandatory
    condition for the mortar to act). A mortar standing with no crew at all: `check` said it could
    not fire while `ranges` listed its mortar; now both say no. A gun the rule does not bind (a
    heavy anti-tank grenade launcher, unlimited range) still reaches the enemy 19" away."""
    gun = {**base(25.4, 25.4, "m", unit="r-m", type="gun", diameter_mm=25.4), "weapons": weapons}
    enemy = base(76.2, 25.4, "e", side="blue", unit="b1", diameter_mm=25.4)
    seen = scene(CA, [gun, enemy])
    assert api.check(seen)["guns"]["m"]["can_fire"] is reaches
    (row,) = api.ranges(seen, "m")["targets"]
    assert row["weapons"] == (weapons if reaches else [])


@pytest.mark.parametrize("name", ["cannon", "howitzer", "aa_gun", "aa_autocannon"])
def test_ca_a_named_cannon_is_not_held_to_the_mortar_crew_rule(name: str) -> None:
    """002: «Техника может получить попадание из пушки или гаубицы» (a vehicle may be hit by a
    cannon or a howitzer), «Авиация уничтожается после 1 попадания ... зенитной пушки, зенитного
    автомата» (an AA gun, an AA autocannon), and the crew rule is said of the mortar alone:
    «Наличие 1-2 миномётчиков и командира расчёта является обязательным условием для возможности
    действия миномёта». A gun naming one of these weapons (the scene was refused: unknown weapon),
    unhitched, with two crewmen beside it and no crew commander, may fire; the seed gives these
    weapons no range, so `ranges` lists them against no one."""
    gun = hull(50, 50, "g", side="red", unit="guns", type="gun", length_mm=40, width_mm=40, weapons=[name])
    crew = [base(50, 53.6, "c1", unit="guns", crew_of="g"), base(50, 46.4, "c2", unit="guns", crew_of="g")]
    enemy = base(50 + 2 + 1.6 + 5 * INCH, 50, "e", side="blue", unit="b1")
    seen = scene(CA, [gun, *crew, enemy])
    report = api.check(seen)["guns"]["g"]
    assert report["can_fire"] is True and "crew_leader" not in report
    assert [row["weapons"] for row in api.ranges(seen, "g")["targets"]] == [[]]


@pytest.mark.parametrize(("flags", "fires"), [([], True), (["damaged"], False),
                                              (["running_gear_damaged"], False), (["tracks_damaged"], False)])
def test_ca_a_damaged_tank_has_no_riders_to_fire(flags: list[str], fires: bool) -> None:
    """002: «При перевозке десанта, в случае получения танком любого повреждения, десант считается
    уничтоженным» (carrying riders, if the tank takes any damage, the riders count as destroyed),
    and «Особое повреждение- «повреждение ходовой части»» (running gear damage is a damage). A tank
    with 3 riders, damaged, its running gear or its tracks hit, reached a fighter 3" away with the
    riders' fire; now only a sound tank does."""
    tank = hull(50, 50, "t", side="red", unit="r-t", chassis="tank", passengers=3, flags=flags)
    fighter = base(50 + 10 + 1.6 + 3 * INCH, 50, "f", side="blue", unit="b1")
    (row,) = api.ranges(scene(CA, [tank, fighter]), "t")["targets"]
    assert row["weapons"] == (["desant_fire"] if fires else [])
