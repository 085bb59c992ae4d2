"""Second audit of Tankomaster (seed 003) and Bronepehota (seed 004) against the Russian text.

Each case failed before its fix; the docstring quotes the seed sentence and translates it.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene, strip

TM = "tankomaster"
BP = "bronepehota"


# --- 003 Tankomaster: what infantry crosses as an obstacle ----------------------------------


@pytest.mark.parametrize("kind", ["forest", "hill", "water"])
def test_infantry_crossing_wood_slope_or_swamp_moves_8_cm(kind: str) -> None:
    """003: «Если в ходе движения оно пересекает какие-либо препятствия, то передвигается только
    на 8 см» (if it crosses any obstacles it moves only 8 cm), and the seed's list of what is
    overcome as an obstacle («Преодолевая препятствие ... Сложность местности: кусты, деревянные
    заборы, склон холма — 1, ... лес, ... болото — 3») names the wood, a hill slope and a swamp."""
    report = moved(TM, [base(20, 30, "a")], [base(32, 30, "a")], terrain=[strip(kind, 25, 3)])["a"]
    assert report["allowance_cm"] == 8.0
    assert codes(report) == ["too_far"]


def test_infantry_in_the_open_still_moves_16_cm() -> None:
    """003: «может пройти не более 16 см в любом направлении» (may move at most 16 cm) off obstacles;
    a road is not one."""
    report = moved(TM, [base(20, 30, "a")], [base(36, 30, "a")], terrain=[strip("road", 25, 3)])["a"]
    assert report["allowance_cm"] == 16.0
    assert report["legal"] is True


def test_a_unit_crossing_an_obstacle_moves_8_cm_with_every_member() -> None:
    """003: «Пехотное подразделение ... может пройти не более 16 см ... Если в ходе движения оно
    пересекает какие-либо препятствия, то передвигается только на 8 см» (an infantry unit moves
    16 cm; if it, the unit, crosses any obstacle, it moves only 8 cm): one member over a fence caps
    the member that stayed in the open too."""
    fence = strip("fence", 24, 0.5, y1=32)
    before = [base(20, 30, "a"), base(20, 36, "b")]
    after = [base(27, 30, "a"), base(32, 36, "b")]
    report = moved(TM, before, after, terrain=[fence])
    assert report["a"]["legal"] is True
    assert report["b"]["allowance_cm"] == 8.0
    assert codes(report["b"]) == ["too_far"]


def test_another_unit_crossing_an_obstacle_does_not_slow_this_one() -> None:
    """003: the 8 cm cap binds the unit that crosses («оно пересекает»), not its neighbours."""
    fence = strip("fence", 24, 0.5, y1=32)
    before = [base(20, 30, "a"), base(20, 36, "b", unit="red-2")]
    after = [base(27, 30, "a"), base(32, 36, "b", unit="red-2")]
    assert moved(TM, before, after, terrain=[fence])["b"]["legal"] is True


# --- 003 Tankomaster: melee is between soldiers ---------------------------------------------


def test_a_tank_within_2_cm_of_a_soldier_is_not_a_melee() -> None:
    """003: «Рукопашная начинается, если расстояние между бойцами противоборствующих сторон не
    более 2 см» (hand-to-hand starts when fighters, i.e. soldiers, of opposing sides are at most
    2 cm apart): a tank or an AT gun is no fighter."""
    soldier = base(20, 30, "a")
    tank = hull(20 + 1.6 + 1 + 10, 30, "t", side="blue")
    gun = hull(20, 30 + 1.6 + 1 + 2, "g", side="blue", type="heavy_gun", length_mm=40, width_mm=40)
    assert api.check(scene(TM, [soldier, tank, gun]))["contacts"] == []
    report = moved(TM, [base(10, 30, "a"), tank, gun], [soldier, tank, gun])["a"]
    assert report["contacts"] == []


def test_two_soldiers_within_2_cm_are_in_melee() -> None:
    """003: «не более 2 см» between soldiers of opposing sides still starts a melee."""
    report = moved(
        TM,
        [base(10, 30, "a"), base(25.2, 30, "e", side="blue")],
        [base(20, 30, "a"), base(25.2, 30, "e", side="blue")],
    )["a"]
    assert report["contacts"] == ["e"]


# --- 004 Bronepehota: who starts a melee ----------------------------------------------------


def _gun(x: float, id: str, side: str) -> dict:
    return hull(x, 30, id, side=side, type="gun", length_mm=40, width_mm=40)


def test_guns_and_pilotless_vehicles_touching_are_not_a_melee() -> None:
    """004: «Ближний бой происходит, когда ...: - пехотинец коснулся ...; - боевая машина коснулась
    ...» and «Орудие или машина без пилота не атакует» (melee is an infantryman or a combat
    vehicle touching an enemy; a gun or a vehicle without a pilot does not attack)."""
    walker = hull(20, 50, "w", side="blue", length_mm=40, width_mm=40, pilotless=True)
    models = [_gun(20, "g1", "red"), _gun(24, "g2", "blue"), walker, _gun(20, "g3", "red") | {"y_cm": 54}]
    assert api.check(scene(BP, models))["contacts"] == []


def test_an_infantryman_or_a_piloted_vehicle_touching_a_gun_is_a_melee() -> None:
    """004: «пехотинец коснулся пехотинца, боевой машины или орудия противника; - боевая машина
    коснулась пехотинца, боевой машины или орудия противника»."""
    soldier = base(20 - 2 - 1.6, 30, "a")
    walker = hull(24, 30, "w", side="red", length_mm=40, width_mm=40)
    contacts = api.check(scene(BP, [soldier, _gun(20, "g", "blue"), walker]))["contacts"]
    pairs = {(c["a"], c["b"]) for c in contacts}
    assert pairs == {("a", "g"), ("g", "w")}


# --- 004 Bronepehota: jumping over an obstacle ----------------------------------------------


@pytest.mark.parametrize(("wall_steps", "jump_range", "legal"), [(3, 5, False), (3, 6, True), (1, 5, True)])
def test_a_jump_over_a_wall_counts_its_height(wall_steps: int, jump_range: int, legal: bool) -> None:
    """004: «высота препятствий, через которые (или на которые) может прыгнуть пехотинец, зависит
    не только от мощности ускорителя, но и от расстояния до препятствия» and «Максимальная
    дальность – это сумма высоты и длины прыжка» (the height of obstacles one can jump over or onto
    depends on the distance to them; range = length + height). 3 steps long over a 3-step wall is
    6 > Пр5."""
    wall = strip("wall", 23, 1, height_cm=wall_steps * 2.5)
    before = base(20, 30, "a", z_cm=0.0)
    after = base(27.5, 30, "a", z_cm=0.0, jump_range=jump_range)
    report = moved(BP, [before], [after], terrain=[wall])["a"]
    assert report["legal"] is legal


def test_a_jump_from_a_platform_counts_height_from_the_take_off_point() -> None:
    """004: «Длина и высота прыжка измеряются от той точки, с которой пехотинец начал прыжок»
    (length and height are measured from the take-off point): from 2 steps up, a 3-step wall is
    1 step of height, 3 + 1 <= Пр5."""
    wall = strip("wall", 23, 1, height_cm=7.5)
    before = base(20, 30, "a", z_cm=5.0)
    after = base(27.5, 30, "a", z_cm=5.0, jump_range=5)
    assert moved(BP, [before], [after], terrain=[wall])["a"]["legal"] is True


# --- 004 Bronepehota: the repair HELIX mends itself -----------------------------------------


def test_the_repair_helix_may_repair_itself_unless_an_enemy_touches_it() -> None:
    """004: «Наряду с ремонтом других машин и орудий, ремонтная машина может восстанавливать и
    собственные повреждения» (besides others, the repair machine may restore its own damage), and
    «Ремонт невозможен, если ... ремонтной ... машины касается пехотинец или боевая машина
    противника»."""
    helix = hull(50, 50, "h", side="red", unit="helix", role="helix", length_mm=60, width_mm=40)
    assert api.check(scene(BP, [helix]))["proximity"]["helix_self_repair"]["h"]["met"] is True
    raider = base(50 + 3 + 1.6, 50, "e", side="blue")
    assert api.check(scene(BP, [helix, raider]))["proximity"]["helix_self_repair"]["h"]["met"] is False
    alone = api.check(scene(BP, [{**helix, "pilotless": True}]))["proximity"]["helix_self_repair"]
    assert alone["h"]["met"] is False and alone["h"]["not_subject"] == "needs no flag pilotless"


@pytest.mark.parametrize(("heading", "legal"), [(None, True), (0.0, False), (180.0, True)])
def test_tm_a_hull_without_a_heading_is_not_judged_to_reverse(heading, legal):
    """003: «При движении задним ходом показатель скорости делится пополам»: a reversing vehicle
    moves half its 30 cm. Which way a hull faces is what the scene's heading says; without one
    its front is unknown, and a 20 cm move is judged on the 30 cm."""
    tank = hull(80, 60, "t", side="red", heading=heading or 0.0)
    if heading is None:
        del tank["heading_deg"]
    report = moved(TM, [tank], [{**tank, "x_cm": 60}])["t"]
    assert report["legal"] is legal


# --- 003 Tankomaster: who takes cover, and behind what --------------------------------------


def _covers(models: list[dict], terrain: list[dict]) -> dict:
    return {t["id"]: t["cover"] for t in api.ranges(scene(TM, models, terrain=terrain), "a")["targets"]}


FENCE = {"id": "f", "kind": "fence", "polygon_cm": [[60, 20], [60.5, 20], [60.5, 40], [60, 40]]}


@pytest.mark.parametrize(
    ("x", "save"),
    [(60.5 + 1.6 + 0.5, "6+"), (60.5 + 1.6 + 2, "6+"), (60.5 + 1.6 + 2.01, None), (60 - 1.6 - 0.5, None)],
)
def test_a_soldier_behind_a_fence_uses_it_as_cover(x: float, save: str | None) -> None:
    """003: «Подвергнутые обстрелу войска могли использовать укрытие ... Типы укрытий: легкое укрытие
    (кусты, деревянные изгороди) — 6+» (troops under fire may use cover; light cover: bushes,
    wooden fences, 6+). Nobody stands inside a fence: a soldier shelters behind it, the line of fire
    crossing it at his base (within 2 cm, the seed's arm's length «не более 2 см»); a fence behind
    him, or one he stands far back from, is no cover."""
    assert _covers([base(20, 30, "a"), base(x, 30, "e", side="blue")], [FENCE]) == {"e": save}


def test_a_soldier_behind_a_vehicle_or_a_wreck_has_medium_cover() -> None:
    """003: «среднее (лес, деревянные дома, разбитые или целые единицы техники) 5+» (medium cover:
    woods, wooden houses, wrecked or whole vehicles): a soldier at a tank's far side, the line of
    fire crossing the hull, saves on 5+; the tank itself is no soldier and takes no cover."""
    tank = hull(60, 30, "t", side="red", unit="red-t")
    soldier = base(70 + 1.6 + 0.5, 30, "e", side="blue")
    wreck_target = hull(60, 60, "w", side="blue", unit="blue-w")
    assert _covers([base(20, 30, "a"), tank, soldier, wreck_target], []) == {"e": "5+", "w": None}


def test_a_trench_covers_only_those_in_it() -> None:
    """003: «тяжелое (каменные дома, воронки, окопы) 4+» (heavy: stone houses, craters, trenches):
    a soldier in a trench saves on 4+, one lying just past a trench is not in it."""
    trench = {"id": "tr", "kind": "trench", "polygon_cm": [[58, 20], [60, 20], [60, 40], [58, 40]]}
    models = [
        base(20, 30, "a"),
        base(59, 30, "in", side="blue"),
        base(60 + 1.6 + 0.5, 34, "past", side="blue"),
    ]
    assert _covers(models, [trench]) == {"in": "4+", "past": None}


def test_a_vehicle_in_a_wood_takes_no_soldiers_cover_save() -> None:
    """003: «каждого пострадавшего солдата следует проверить — не спасло ли его укрытие от огня»
    (each hit soldier is checked for whether cover saved him): the save is a soldier's."""
    wood = {"id": "w", "kind": "forest", "polygon_cm": [[50, 0], [90, 0], [90, 60], [50, 60]]}
    assert _covers([base(20, 30, "a"), hull(70, 30, "t", side="blue")], [wood]) == {"t": None}


# --- 003 Tankomaster: an ambush behind a house ----------------------------------------------


@pytest.mark.parametrize(("gap", "ok"), [(0.0, True), (2.0, True), (2.5, False)])
def test_an_ambush_may_stand_behind_a_house(gap: float, ok: bool) -> None:
    """003: «Игрок выставляет засаду только на пересеченной местности (в кустах, в лесу, в доме или
    за домом)» (an ambush only in rough ground: in bushes, in a wood, in a house or behind a
    house): a squad sheltering against a house's wall (within 2 cm of it) is placed legally."""
    house = {"id": "h", "kind": "building", "polygon_cm": [[10, 20], [25, 20], [25, 40], [10, 40]]}
    s = scene(
        TM,
        [base(17, 40 + 1.6 + gap, "a")],
        terrain=[house],
        phase="deployment",
        deployment={"kind": "ambush", "sides": {"red": "left"}},
    )
    assert api.check(s)["models"]["a"]["in_deployment_zone"] is ok


# --- 004 Bronepehota: what a HELIX tows follows it the same distance ------------------------


@pytest.mark.parametrize(("gun_to", "legal"), [((50, 50), True), ((45, 58), False)])
def test_a_towed_gun_moves_as_far_as_its_helix(gun_to: tuple[float, float], legal: bool) -> None:
    """004: «После этого транспортируемый объект движется следом за транспортной машиной, касаясь
    её, и перемещаясь на то же расстояние, что и она. Скорость передвижения транспортной машины при
    этом не изменяется» (the towed object follows the transport machine touching it, moving the same
    distance as it; the machine's speed does not change): the HELIX went 5 cm (2 steps), so the
    gun it tows goes no further."""
    helix = hull(50, 50, "h", side="red", unit="helix", role="helix", length_mm=60, width_mm=40, towing="g")
    gun = hull(45, 50, "g", side="red", unit="guns", type="gun", length_mm=40, width_mm=40)
    after = [{**helix, "x_cm": 55}, {**gun, "x_cm": gun_to[0], "y_cm": gun_to[1]}]
    report = moved(BP, [helix, gun], after)
    assert report["g"]["legal"] is legal
    assert report["g"]["allowance_cm"] == 5.0
    assert "too_far" not in codes(report["h"])


def test_bp_a_pilotless_vehicle_is_taken_by_the_first_infantryman_of_any_side() -> None:
    """004: «Если чья-либо боевая машина осталась без пилота, то игрок, который успеет первым подвести
    своего пехотинца так, чтобы тот касался машины, может захватить её, т.е. сделать этого пехотинца
    новым пилотом боевой машины» (when anyone's vehicle is left without a pilot, whichever player
    first brings an infantryman to touch it may take it, making him its new pilot): its owner too."""
    walker = hull(50, 50, "v", side="blue", length_mm=60, width_mm=40, flags=["pilotless"])
    own = base(50, 53.6, "o", side="blue", unit="blue-inf")
    report = api.check(scene(BP, [walker, own], step_cm=2.5))["proximity"]["capture_vehicle"]["v"]
    assert report["met"] is True
    assert report["near"] == ["o"]
