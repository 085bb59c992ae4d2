"""Sixth audit of Combined Arms (seed 002) and Tankomaster (seed 003) against the Russian text.

Each test quotes the seed sentence it follows, translated in the docstring, and failed before its fix.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene

CA = "combined-arms"
INCH = 2.54


# --- 002 Combined Arms -----------------------------------------------------------------------


@pytest.mark.parametrize("mortar", ["light_mortar", "heavy_mortar"])
def test_ca_a_mortar_fires_at_infantry_not_at_vehicles(mortar: str) -> None:
    """002: «Миномёт. Ведёт огонь по пехоте противника, зданиями и окопам, ДОТам» (a mortar fires
    at enemy infantry, buildings, trenches and pillboxes): of the models on the table only
    infantry is its target; a tank at any distance is not. Its crew stands by it: without them
    it fires at nothing (test_seed_audit_19_ca)."""
    gun = base(20, 30, "mo", type="gun", weapons=[mortar])
    crew = [
        base(20, 33.6, "c1", crew_of="mo", role="mortar_crew"),
        base(20, 26.4, "c2", crew_of="mo", role="officer"),
    ]
    tank = hull(60, 30, "v", side="blue")
    fighter = base(60, 60, "i", side="blue")
    rows = {
        row["id"]: row["weapons"]
        for row in api.ranges(scene(CA, [gun, *crew, tank, fighter]), "mo")["targets"]
    }
    assert rows == {"v": [], "i": [mortar]}


@pytest.mark.parametrize("flag", ["running_gear_damaged", "tracks_damaged"])
def test_ca_a_vehicle_with_damaged_running_gear_does_not_move(flag: str) -> None:
    """002: «Особое повреждение- «повреждение ходовой части» ... При этом техника теряет возможность
    движения до конца игры» (damaged running gear: the vehicle cannot move for the rest of the
    game), and an anti-tank mine deals «1 повреждение (+ повреждение гусениц)» (damage plus track
    damage). Its card's move is not in the seed, yet any move of it is illegal."""
    tank = hull(60, 30, "v", flags=[flag])
    entry = moved(CA, [tank], [{**tank, "x_cm": 62}])["v"]
    assert entry["allowance_cm"] == 0.0
    assert codes(entry) == ["too_far"]
    whole = moved(CA, [hull(60, 30, "v")], [hull(80, 30, "v")])["v"]
    assert whole["legal"] is True


@pytest.mark.parametrize("flag", ["disembarked", "carrying_wounded", "recovered"])
def test_ca_a_fighter_who_may_not_fight_this_turn_has_no_weapon_in_reach(flag: str) -> None:
    """002: «Во второй ход пехота не может проявлять боевую активность» (infantry dropped off this
    turn shows no combat activity), «Боец, «переносящий раненого», не может в этот ход проявлять
    боевой активности» (nor a fighter carrying a wounded one), «После выздоровления 1 полный ход
    раненый пехотинец имеет право только передвигаться» (a recovered one only moves for a turn):
    his rifle reaches nothing 5" away, and he starts no melee (a foe may still attack him)."""
    shooter = base(20, 30, "s", weapons=["rifle", "grenade"], flags=[flag])
    target = base(20 + 3.2 + 3 * INCH, 30, "t", side="blue")
    assert api.ranges(scene(CA, [shooter, target]), "s")["targets"][0]["weapons"] == []
    fit = {**shooter, "flags": []}
    assert api.ranges(scene(CA, [fit, target]), "s")["targets"][0]["weapons"] == ["rifle", "grenade"]
    foe = base(20 + 3.2 + 0.5 * INCH, 30, "f", side="blue", flags=[flag])
    assert api.check(scene(CA, [shooter, foe]))["contacts"] == []
    assert len(api.check(scene(CA, [shooter, {**foe, "flags": []}]))["contacts"]) == 1


def test_ca_a_gun_hitched_to_its_tug_does_not_fire() -> None:
    """002: «Схема действий при перевозке: 1 ход – прицепка артиллерии (в этот ход артиллерия не
    ведёт огня), транспортировка и остановка, 2 ход – отцепление артиллерии и возможность ведения
    ею огня» (towing: turn 1 the gun is hitched, and does not fire that turn, towed and stopped;
    turn 2 it is unhitched and may fire): a crewed gun that a vehicle tows (`towing`) cannot fire."""
    gun = hull(50, 50, "g", side="red", unit="gun", type="gun", length_mm=40, width_mm=40)
    crew = [
        base(50 + 2 + 1.6 + 0.5 * INCH, 50 - 2 + 4 * k, f"c{k}", unit="gun", crew_of="g", role=role)
        for k, role in enumerate(["mortar_crew", "commander"])
    ]
    tug = hull(50, 30, "tug", side="red", chassis="car", seats=8)
    assert api.check(scene(CA, [gun, *crew, tug]))["guns"]["g"]["can_fire"] is True
    towed = api.check(scene(CA, [gun, *crew, {**tug, "towing": "g"}]))["guns"]["g"]
    assert towed["can_fire"] is False
    assert towed["towed_by"] == "tug"


def test_ca_any_infantryman_may_throw_a_hand_grenade() -> None:
    """002: «Ручная граната может быть применена любым пехотинцем по пехоте и технике противника и не
    требует покупки в КО» (any infantryman may use a hand grenade, against infantry and vehicles,
    without buying it), «Дистанция броска гранаты - 4 дюйма»: a fighter whose weapons the scene
    does not list reaches a tank 4" away with it, not one 4.1" away."""
    fighter = base(20, 30, "s")
    near = hull(20 + 1.6 + 4 * INCH + 10, 30, "v", side="blue")
    far = hull(20 + 1.6 + 4.1 * INCH + 10, 30, "v", side="blue")
    assert api.ranges(scene(CA, [fighter, near]), "s")["targets"][0]["weapons"] == ["rifle", "grenade"]
    assert api.ranges(scene(CA, [fighter, far]), "s")["targets"][0]["weapons"] == ["rifle"]


def test_ca_a_mortarman_may_stand_on_the_mortars_base() -> None:
    """002: «Миномётчик. Располагается в пределах 1 дюйма от модели миномёта (может располагаться
    с ним на одной подставке)» (a mortarman stands within 1" of the mortar model, and may share its
    base): ending on his own mortar's footprint is no overlap, ending on another gun still is."""
    mortar = hull(50, 50, "m", side="red", unit="mortar", type="gun", length_mm=60, width_mm=60)
    other = hull(80, 50, "g", side="red", unit="gun", type="gun", length_mm=60, width_mm=60)
    man = base(65, 50, "c", unit="mortar", crew_of="m", role="mortar_crew")
    entry = moved(CA, [mortar, other, man], [mortar, other, {**man, "x_cm": 51}])["c"]
    assert entry["legal"] is True
    entry = moved(CA, [mortar, other, man], [mortar, other, {**man, "x_cm": 79}])["c"]
    assert codes(entry) == ["moved_unaccompanied", "overlaps_model"]  # since session 54 he left his mortar


def test_ca_a_fighter_flagged_wounded_is_carried_6_inches() -> None:
    """002: «Раненного бойца можно перемещать со скоростью до 6Д рядом с другим бойцом, не имеющим
    ранения (в 1 дюйме)» (a wounded fighter is moved up to 6" beside an unwounded one): a wound
    given as a state flag is the same wound as `wounded: true`, which the carry rule already read;
    his move is capped at 6" either way."""
    carrier = base(20, 33.3, "x")
    for wound in ({"wounded": True}, {"flags": ["wounded"]}):
        fighter = base(20, 30, "w", **wound)
        entry = moved(CA, [fighter, carrier], [{**fighter, "x_cm": 37}, {**carrier, "x_cm": 37}])["w"]
        assert entry["allowance_cm"] == pytest.approx(6 * INCH)
        assert codes(entry) == ["too_far"]
