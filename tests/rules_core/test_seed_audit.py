"""Audit of the rulesets against the Russian seed texts: each test cites the seed sentence it checks.

Every case here failed before the audit's fix (or pins a boundary the fix introduced); the
sentence is translated in the docstring, with the seed file it comes from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules_core import api
from rules_core.errors import RulesetError
from tests.rules_core.builders import base, codes, hull, moved, scene, strip

WAF = "world-at-fire"
MI = "mobile-infantry"
CA = "combined-arms"
TM = "tankomaster"
BP = "bronepehota"


# --- 000 World at Fire: trenches and streams -------------------------------------------------


@pytest.mark.parametrize("kind", ["trench", "water"])
@pytest.mark.parametrize("type", ["cavalry", "motorbike"])
def test_cavalry_and_motorcycles_cross_narrow_trenches_and_streams(kind: str, type: str) -> None:
    """000: «может преодолевать окопы или ручьи, если их ширина меньше 65 сантиметров»
    (cavalry and motorcycles may cross trenches or streams narrower than 65 cm)."""
    model = base(90, 60, "m", type=type, diameter_mm=65)
    report = moved(WAF, [model], [{**model, "x_cm": 110}], terrain=[strip(kind, 99, 3)])["m"]
    assert "impassable_terrain" not in codes(report)


def test_cavalry_still_may_not_stop_in_a_trench() -> None:
    """000: «не может быть помещена в бункер или окоп» (a cavalry model cannot be placed in a
    bunker or a trench): crossing is allowed, ending in it is not."""
    model = base(90, 60, "m", type="cavalry", diameter_mm=65)
    report = moved(WAF, [model], [{**model, "x_cm": 100}], terrain=[strip("trench", 99, 3)])["m"]
    assert "impassable_terrain" in codes(report)


@pytest.mark.parametrize(("width", "blocked"), [(9.99, False), (10.0, True)])
def test_tracked_vehicle_crosses_trench_narrower_than_half_its_length(width: float, blocked: bool) -> None:
    """000: «Чтобы преодолеть окопы и рвы необходимо, чтобы ширина рва была меньше половины длины
    техники» (to cross trenches and ditches the ditch must be narrower than half the vehicle's
    length). A 20 cm hull: 9.99 cm crosses, 10 cm (exactly half) does not. A tracked vehicle that
    stops across it is stuck on it («зависает на нем»), which is allowed."""
    tank = hull(70, 60, "t", side="red", chassis="tracked", length_mm=200, width_mm=100)
    trench = strip("trench", 81, width)
    report = moved(WAF, [tank], [{**tank, "x_cm": 85}], terrain=[trench])["t"]
    assert ("impassable_terrain" in codes(report)) is blocked
    assert report["allowance_cm"] == 15.0


# --- 000 World at Fire: climbing over obstacles ----------------------------------------------


@pytest.mark.parametrize(("height", "legal"), [(4.9, True), (5.0, False)])
def test_infantry_climbs_up_and_down_an_obstacle_of_5_cm_or_more(height: float, legal: bool) -> None:
    """000: «Для того чтобы преодолеть препятствие равное или выше 5 сантиметров отряду необходимо
    отмерить полное расстояние до верха препятствия ... а затем добавить расстояние от этого верха
    ... до конечной точки» (to cross an obstacle of 5 cm or more, measure the whole way to its top,
    then add the way from the top to the end point). 10 cm across a 5 cm wall costs 10 + 5 + 5."""
    wall = strip("wall", 25, 1, height_cm=height)
    report = moved(WAF, [base(20, 30, "a")], [base(30, 30, "a")], terrain=[wall])["a"]
    assert report["legal"] is legal
    assert ("too_far" in codes(report)) is not legal


def test_infantry_ending_on_top_of_an_obstacle_pays_the_climb_once() -> None:
    """000: «отмерить полное расстояние до верха препятствия» (measure the whole way to the top):
    ending on top of a 5 cm wall (z_cm 5) after 10 cm costs 10 + 5 = 15, within the 15 cm move."""
    wall = strip("wall", 25, 10, height_cm=5)
    report = moved(WAF, [base(20, 30, "a", z_cm=0)], [base(30, 30, "a", z_cm=5)], terrain=[wall])["a"]
    assert report["legal"] is True


@pytest.mark.parametrize(
    ("height", "distance", "legal"), [(5.0, 10.0, True), (5.1, 5.0, True), (5.1, 5.01, False)]
)
def test_heavy_weapon_team_halves_to_5_cm_over_obstacles_above_5_cm(
    height: float, distance: float, legal: bool
) -> None:
    """000: «В случае с менее громоздкими минометами, тяжелыми пулеметами, тяжелыми огнеметами и
    противотанковыми ружьями, при преодолении препятствий выше 5 см (выше роста бойца расчета
    оружия), расчет с оружием замедляется вдвое до 5 см» (light mortars, heavy MGs, heavy
    flamethrowers and AT rifles crossing obstacles higher than 5 cm slow to 5 cm). These 2-man
    teams stand on the 65 mm infantry base («с расчетом в два человека ... диаметром 65
    миллиметров»); a 5 cm wall is not higher than 5 cm, so the team keeps its 10 cm
    (test_seed_audit_waf.py::test_two_man_heavy_weapon_team_moves_10_cm)."""
    team = base(20, 30, "tw", diameter_mm=65)
    wall = strip("wall", 24, 0.5, height_cm=height)
    report = moved(WAF, [team], [{**team, "x_cm": 20 + distance}], terrain=[wall])["tw"]
    assert report["legal"] is legal
    assert report["allowance_cm"] == (10.0 if height <= 5 else 5.0)


@pytest.mark.parametrize(("gap_cm", "passes"), [(3.2, True), (3.19, False)])
def test_a_32_mm_base_passes_a_gap_of_exactly_32_mm(gap_cm: float, passes: bool) -> None:
    """000: «проникнуть в здание или соседнюю комнату через разлом в стене если он по ширине равен
    или больше 32мм» (get through a breach in a wall if it is 32 mm wide or more): exactly 32 mm
    passes."""
    top, bottom = 30 - gap_cm / 2, 30 + gap_cm / 2
    wall = [
        {"id": "w1", "kind": "impassable", "polygon_cm": [[28, 0], [32, 0], [32, top], [28, top]]},
        {"id": "w2", "kind": "impassable", "polygon_cm": [[28, bottom], [32, bottom], [32, 122], [28, 122]]},
    ]
    report = moved(WAF, [base(22, 30, "a")], [base(36, 30, "a")], terrain=wall)["a"]
    assert report["legal"] is passes


# --- 001 Mobile infantry: aimed fire -------------------------------------------------------


@pytest.mark.parametrize(("weapon", "aimed_reach_mm"), [("assault_rifle", 185), ("sniper_rifle", 620)])
def test_aimed_fire_adds_35_mm_to_automatic_weapons_only(weapon: str, aimed_reach_mm: float) -> None:
    """001: «Прицельный огонь. Данное действие увеличивает эффективность попадания (крита) из
    автоматического оружия ... и дальность стрельбы увеличивается на +35 мм» (aimed fire, with
    automatic weapons, adds 35 mm of range). The weapon table marks the automatic ones («(автоматическое
    оружие)»: pistol, automatic rifle, shotgun, machine gun); the sniper rifle is not one.
    Reach = range + the 10 mm eyeballing allowance (+ 35 mm aimed, automatic only)."""
    shooter = base(20, 30, "t", type="trooper", flags=["aimed"], weapons=[weapon])
    for gap_mm, reaches in ((aimed_reach_mm, True), (aimed_reach_mm + 1, False)):
        target = base(20 + 3.2 + gap_mm / 10, 30, "b", side="blue", type="bug")
        row = api.ranges(scene(MI, [shooter, target], width=244), "t")["targets"][0]
        assert (weapon in row["weapons"]) is reaches


# --- 002 Combined arms: the flamethrower ----------------------------------------------------


def test_flamethrower_fires_at_infantry_like_a_heavy_machine_gun() -> None:
    """002: «Огнемёт. Имеет характеристики огня ... по пехоте – станковому пулемёту» (against
    infantry a flamethrower fires like the heavy MG: «Дистанция стрельбы - 14 дюймов, если
    подразделение «окопано»», 14" when dug in)."""
    target = base(20 + 3.2 + 14 * 2.54, 30, "e", side="blue")
    dug_in = base(20, 30, "f", role="flamethrower", weapons=["flamethrower"], flags=["dug_in"])
    row = api.ranges(scene(CA, [dug_in, target]), "f")["targets"][0]
    assert row["weapons"] == ["flamethrower"]
    in_open = base(20, 30, "f", role="flamethrower", weapons=["flamethrower"])
    assert api.ranges(scene(CA, [in_open, target]), "f")["targets"][0]["weapons"] == []


# --- 003 Tankomaster: the anti-tank gun on flat ground only ---------------------------------


@pytest.mark.parametrize(("kind", "blocked"), [("hill", True), ("forest", True), ("road", False)])
def test_at_gun_moves_only_over_flat_ground(kind: str, blocked: bool) -> None:
    """003: «Противотанковое орудие может двигаться только по ровной местности» (the AT gun moves
    only over flat ground): a hill slope or a wood («пересеченная местность»: «в кустах, в лесу, в
    доме») is not flat; a road is."""
    gun = hull(50, 60, "g", side="red", type="heavy_gun", length_mm=40, width_mm=30)
    crew = [base(50, 70 + 4 * k, f"c{k}", side="red", unit="crew", crew_of="g") for k in range(3)]
    report = moved(TM, [gun, *crew], [{**gun, "x_cm": 58}, *crew], terrain=[strip(kind, 54, 1)])["g"]
    assert ("impassable_terrain" in codes(report)) is blocked


# --- 004 Bronepehota: repair ----------------------------------------------------------------


def _repair_scene(*extra: dict) -> dict:
    gun = hull(50, 60, "g", side="red", type="gun", length_mm=40, width_mm=30)
    repairer = base(50 + 2 + 1.6, 60, "r", side="red", unit="red-r")
    return api.check(scene(BP, [gun, repairer, *extra]))["proximity"]["repair"]["g"]


def test_repair_is_blocked_by_an_enemy_touching_the_repairer() -> None:
    """004: «пехотинцы или машины противника не касаются ни занятого ремонтом пехотинца, ни
    ремонтируемого объекта» (no enemy infantryman or vehicle touches either the repairing
    infantryman or the object being repaired)."""
    assert _repair_scene()["met"] is True
    enemy = base(50 + 2 + 3.2 + 1.6, 60, "e", side="blue")
    assert _repair_scene(enemy)["met"] is False


def test_repair_is_not_blocked_by_an_enemy_gun() -> None:
    """004: «пехотинцы или машины противника не касаются ... ремонтируемого объекта» (enemy
    infantrymen or vehicles): a gun is neither, so an enemy gun touching the object does not stop
    the repair."""
    enemy_gun = hull(50 - 4, 60, "eg", side="blue", type="gun", length_mm=40, width_mm=30)
    assert _repair_scene(enemy_gun)["met"] is True


def test_helix_without_a_pilot_cannot_repair() -> None:
    """004: «Ремонт невозможен, если: - в кабине ремонтной машины нет пилота» (repair is impossible
    when the repair machine's cabin has no pilot)."""
    gun = hull(50, 60, "g", side="red", type="gun", length_mm=40, width_mm=30)

    def helix(**extra: object) -> dict:
        return hull(50 + 2 + 10, 60, "h", side="red", unit="helix", role="helix", heading=0.0, **extra)

    def met(model: dict) -> bool:
        return api.check(scene(BP, [gun, model]))["proximity"]["helix_repair"]["g"]["met"]

    assert met(helix()) is True
    assert met(helix(pilotless=True)) is False


def test_a_base_override_must_be_keyed_by_a_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user ruleset's base_overrides key that is not a size in mm is named, not silently ignored."""
    house = api.ruleset_dict(WAF) | {"id": "house"}
    house["unit_types"]["infantry"]["base_overrides"] = {"big": {"move": 5}}
    (tmp_path / "house.json").write_text(json.dumps(house), encoding="utf-8")
    monkeypatch.setenv("TABLESIGHT_RULESETS", str(tmp_path))
    with pytest.raises(RulesetError, match="base_overrides key 'big'"):
        api.load_ruleset("house")
