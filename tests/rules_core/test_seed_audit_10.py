"""Tenth audit of mobile-infantry (001), combined-arms (002), tankomaster (003) and bronepehota
(004), played blind as a grader would: contract fields only, expected answers from the Russian text.

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene

CA = "combined-arms"
BP = "bronepehota"
INCH = 2.54


# --- 002 Combined arms -----------------------------------------------------------------------


def test_ca_a_sapper_at_work_fires_nothing_but_keeps_cold_steel() -> None:
    """002: «Во время выполнения профессиональных задач сапёр не может атаковать стрелковым оружием
    либо гранатами» (while carrying out his professional tasks a sapper cannot attack with small
    arms or grenades). A sapper at work (flag or order at_work: clearing, mining, placing a charge)
    reaches a foe 0.5" away with none of his rifle, pistol or grenade, but still with cold steel
    (not small arms), and may still start a melee; the same sapper not at work reaches with all."""
    weapons = ["rifle", "pistol", "grenade", "at_grenade_launcher", "melee"]
    sapper = base(20, 30, "s", role="sapper", weapons=weapons, flags=["at_work"])
    foe = base(20 + 3.2 + 0.5 * INCH, 30, "e", side="blue")
    board = scene(CA, [sapper, foe])
    assert api.ranges(board, "s")["targets"][0]["weapons"] == ["melee"]
    assert [{c["a"], c["b"]} for c in api.check(board)["contacts"]] == [{"s", "e"}]
    idle = scene(CA, [{**sapper, "flags": []}, foe])
    assert api.ranges(idle, "s")["targets"][0]["weapons"] == weapons


# --- 004 Bronepehota -------------------------------------------------------------------------


def test_bp_a_panicked_pilot_runs_on_foot_and_leaves_his_vehicle() -> None:
    """004: «Паникующий пехотинец или пилот боевой машины пытается бежать - он (фигурка пилота
    предварительно вынимается из машины и заменяется фигуркой пехотинца, управлявшего этой машиной)
    передвигается на расстояние, равное его скорости («Ск»), в направлении ближайшей границы
    игрового поля» (a panicked infantryman or vehicle pilot tries to flee: he (the pilot figure is
    first taken out of the vehicle and replaced by the figure of the infantryman who drove it)
    moves a distance equal to his speed towards the nearest table edge). It is the pilot who runs,
    on foot; the vehicle he leaves (flag panicked) stays where it is, so a vehicle driven towards
    the edge at its speed is too far, while the panicked infantryman's run is legal."""
    tank = hull(30, 50, "v", length_mm=60, width_mm=40, speed=4)
    fled = {**tank, "x_cm": 30 - 4 * 2.5, "flags": ["panicked"]}
    assert codes(moved(BP, [tank], [fled])["v"]) == ["too_far"]
    pilot = base(30, 90, "p", side="blue", speed=4)
    run = {**pilot, "x_cm": 30 - 4 * 2.5, "flags": ["panicked"]}
    assert codes(moved(BP, [pilot], [run])["p"]) == []


def test_bp_an_infantryman_taking_aimed_fire_starts_no_melee() -> None:
    """004: «его пехотинец в этом туре ведёт прицельную стрельбу и, следовательно, не будет ни
    передвигаться, ни атаковать противника в ближнем бою» (his infantryman takes aimed fire this
    round and so will neither move nor attack the enemy in melee). An aimed infantryman (flag
    aimed) touching an enemy gun, which never attacks («Орудие или машина без пилота не атакует»),
    is no melee pair; without the flag he is, and an enemy infantryman may still attack him."""
    gun = hull(50, 50, "g", type="gun", length_mm=40, width_mm=40)
    man = base(50 - 2 - 1.6, 50, "i", flags=["aimed"])
    assert api.check(scene(BP, [gun, man]))["contacts"] == []
    assert len(api.check(scene(BP, [gun, {**man, "flags": []}]))["contacts"]) == 1
    foe = base(50 - 2 - 3.2 - 1.6, 50, "f", side="blue")
    assert [{c["a"], c["b"]} for c in api.check(scene(BP, [man, foe]))["contacts"]] == [{"i", "f"}]
