"""Third audit of World at Fire (seed 000_fbd54806241f1c8c.txt) against the Russian text.

Each test quotes the seed sentence it checks, with a translation, and failed before its fix.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene, strip

WAF = "world-at-fire"


@pytest.mark.parametrize(
    ("chassis", "width", "blocked"),
    [
        (None, 12.0, True),
        (None, 9.0, False),
        ("wheeled", 1.0, True),
        ("half_tracked", 1.0, True),
        ("tracked", 9.0, False),
    ],
)
def test_any_vehicle_needs_a_trench_narrower_than_half_its_length(
    chassis: str | None, width: float, blocked: bool
) -> None:
    """000: «Чтобы преодолеть окопы и рвы необходимо, чтобы ширина рва была меньше половины длины
    техники (колесная и полугусеничная техника преодолевать рвы и окопы не может вообще)» (to
    cross trenches and ditches the ditch must be narrower than half the vehicle's length; wheeled
    and half-tracked vehicles cannot cross them at all). A vehicle whose chassis the scene does not
    give still obeys the half-length rule: a 20 cm hull does not cross a 12 cm trench."""
    extra = {} if chassis is None else {"chassis": chassis}
    tank = hull(70, 60, "t", side="red", length_mm=200, width_mm=100, **extra)
    report = moved(WAF, [tank], [{**tank, "x_cm": 84}], terrain=[strip("trench", 81, width)])["t"]
    assert ("impassable_terrain" in codes(report)) is blocked


def test_motorcycles_are_slowed_to_15_cm_by_area_terrain() -> None:
    """000: «К этому виду [Техника] относятся ... колесные машины - такие как бронемашины, грузовики,
    ... и мотоциклы» (vehicles include wheeled machines such as ... motorcycles) and «площадные
    элементы, такие как лес на подставке, или руины здания ... так же замедляют движение техники (но
    не пехоты) до 15 сантиметров» (area terrain such as a wood or ruins slows vehicles, not infantry,
    to 15 cm): a motorcycle riding through a wood may move 15 cm, not 30."""
    bike = base(90, 60, "m", type="motorbike", diameter_mm=65)
    report = moved(WAF, [bike], [{**bike, "x_cm": 110}], terrain=[strip("forest", 95, 10)])["m"]
    assert report["allowance_cm"] == 15.0
    assert "too_far" in codes(report)


@pytest.mark.parametrize(("distance", "legal"), [(10.0, True), (10.01, False)])
def test_two_man_heavy_weapon_team_moves_10_cm(distance: float, legal: bool) -> None:
    """000: the 2-man heavy weapons «подчиняются правилам для тяжелых орудий» (follow the heavy gun
    rules), and «Тяжелое орудие можно подвигать на 10 сантиметров; расчет орудия может подвигаться
    также на 10 сантиметров, но так чтобы ... хотя бы половина бойцов расчета находились в зоне
    стрельбы (два - для орудия и один – для оружия)» (a heavy gun moves 10 cm, its crew 10 cm too,
    keeping half the crew in the firing zone: two for a gun, one for a weapon); over obstacles it
    «замедляется вдвое до 5 см» (is halved to 5 cm: half of 10). The team shares a 65 mm base."""
    team = base(20, 30, "tw", diameter_mm=65)
    report = moved(WAF, [team], [{**team, "x_cm": 20 + distance}])["tw"]
    assert report["allowance_cm"] == 10.0
    assert report["legal"] is legal


def test_a_heavy_gun_may_stand_on_any_base() -> None:
    """000: «для пушек и их расчета подставки не нужны, но могут использоваться любые по выбору
    игрока» (guns and their crews need no base, but any base may be used at the player's choice):
    a heavy gun on a round base is not a base mismatch."""
    gun = base(50, 60, "g", type="heavy_gun", diameter_mm=50)
    assert "g" not in api.check(scene(WAF, [gun]))["bases"]


@pytest.mark.parametrize(("phase", "legal"), [("shooting", True), ("movement", False)])
def test_a_dash_through_a_forest_is_its_dice_total(phase, legal):
    """000: «двигается на 15 сантиметров в Фазу движения и в Фазу Стрельбы при совершении Рывка
    надо бросить на один кубик меньше»: through terrain a vehicle moves 15 cm in the movement
    phase; in the shooting phase its dash rolls a die fewer, and the dice total is its move."""
    car = hull(80, 30, "c", side="red", chassis="wheeled")
    after = {**car, "x_cm": 98, **({"dash": 18} if phase == "shooting" else {})}
    report = moved(WAF, [car], [after], terrain=[strip("forest", 85, 10)], phase=phase)["c"]
    assert report["legal"] is legal


@pytest.mark.parametrize(
    ("model", "z_to", "blocked"),
    [
        (base(20, 30, "c", type="cavalry", diameter_mm=65), 10.0, True),
        (base(20, 30, "c", type="cavalry", diameter_mm=65), 4.0, False),
        (base(20, 30, "b", type="motorbike", diameter_mm=65), 10.0, True),
        (hull(20, 30, "g", side="red", type="heavy_gun", length_mm=40, width_mm=30), 10.0, True),
        (base(20, 30, "w", diameter_mm=65), 10.0, True),
        (base(20, 30, "i"), 10.0, False),
    ],
)
def test_horses_motorcycles_and_guns_do_not_change_floors(model: dict, z_to: float, blocked: bool) -> None:
    """000: «Кавалерийская модель не может взбираться по стенам, лестницам, этажам зданий и прочим
    препятствиям выше 5 сантиметров», «Мотопехотная модель не может взбираться по стенам,
    лестницам, этажам зданий и прочим препятствиям выше колеса мотоцикла», «солдаты не могут
    затащить (или спустить) на верхний этаж высотой в 10 см тяжелое некрупное орудие ... (пушки
    между этажами зданий во время игры передвигать вообще нельзя ...)» (a horse climbs nothing over
    5 cm, a motorcycle nothing over its wheel; a crew cannot haul a light heavy weapon up or down a
    10 cm floor, and guns never move between floors). Infantry climbs, paying the height."""
    report = moved(WAF, [{**model, "z_cm": 0.0}], [{**model, "x_cm": 22, "z_cm": z_to}])[model["id"]]
    assert ("impassable_terrain" in codes(report)) is blocked


@pytest.mark.parametrize(("distance", "legal"), [(5.0, True), (8.0, False)])
def test_mounting_a_horse_in_a_dash_costs_5_cm(distance: float, legal: bool) -> None:
    """000: «Для того, чтобы оседлать ездовое животное пехотинец должен войти в базовый контакт своей
    подставкой с подставкой лошади в фазу движения или при рывке в фазу стрельбы и затратить 5
    сантиметров своего движения» (to mount, a soldier comes into base contact with the horse in the
    movement phase or in a dash in the shooting phase, and spends 5 cm of his move): a dash of 10
    leaves 5 cm to reach the horse."""
    soldier = base(20, 30, "s")
    horse_x = 20 + distance + 1.6 + 3.25
    horse = base(horse_x, 30, "h", unit="red-horses", type="cavalry", diameter_mm=65)
    after = {**soldier, "x_cm": 20 + distance, "dash": 10, "flags": ["mounting"]}
    report = moved(WAF, [soldier, horse], [after, horse], phase="shooting")["s"]
    assert report["allowance_cm"] == 5.0
    assert report["legal"] is legal


@pytest.mark.parametrize(
    ("flags", "phase", "distance", "allowance"),
    [
        (["newly_mounted"], "movement", 5.0, 0.0),
        (["newly_mounted", "experienced_rider"], "movement", 15.0, 15.0),
        (["newly_mounted", "experienced_rider"], "movement", 16.0, 15.0),
        (["newly_mounted", "experienced_rider"], "shooting", 5.0, 0.0),
        ([], "movement", 30.0, 30.0),
    ],
)
def test_a_newly_mounted_cavalry_unit_moves_only_with_experienced_riders(
    flags: list[str], phase: str, distance: float, allowance: float
) -> None:
    """000: «В этот же ход кавалерийский отряд может двигаться только если у всех наездников есть
    спец правило «Опытный Наездник» - на 15 сантиметров и только в фазу движения, в противном случае
    – новообразованный кавалерийский отряд может двигаться только в следующий ход на полные 30
    сантиметров» (in the turn it mounts, a cavalry unit moves only if all its riders are Experienced
    Riders, 15 cm and only in the movement phase; otherwise the new unit moves next turn, 30 cm)."""
    rider = base(20, 30, "c", type="cavalry", diameter_mm=65, flags=flags)
    after = {**rider, "x_cm": 20 + distance, **({"dash": 12} if phase == "shooting" else {})}
    report = moved(WAF, [rider], [after], phase=phase)["c"]
    assert report["allowance_cm"] == allowance
    assert report["legal"] is (distance <= allowance)


def test_one_rider_without_the_rule_holds_the_whole_new_unit() -> None:
    """000: «может двигаться только если у всех наездников есть спец правило «Опытный Наездник»»
    (only if every rider has Experienced Rider): one rider without it keeps the new unit still."""
    one = base(20, 30, "c1", type="cavalry", diameter_mm=65, flags=["newly_mounted", "experienced_rider"])
    two = base(20, 38, "c2", type="cavalry", diameter_mm=65, flags=["newly_mounted"])
    report = moved(WAF, [one, two], [{**one, "x_cm": 25}, two])["c1"]
    assert report["allowance_cm"] == 0.0
    assert "too_far" in codes(report)


@pytest.mark.parametrize(
    ("flags", "allowance"), [(["driver_lost"], 0.0), (["driver_lost", "swapped_role"], 15.0), ([], 30.0)]
)
def test_a_motorcycle_whose_driver_fell_does_not_move(flags: list[str], allowance: float) -> None:
    """000: «вы можете выбирать кого убирать в потери - водителя (в этом случае мотоцикл не может более
    двигаться ...)» (you may choose the driver as the casualty: then the motorcycle moves no more),
    unless the survivor takes the driver's seat: «для смены роли необходимо затратить 15
    сантиметров движения мотоцикла» (swapping roles costs 15 cm of the motorcycle's move)."""
    bike = base(20, 30, "b", type="motorbike", diameter_mm=65, flags=flags)
    report = moved(WAF, [bike], [{**bike, "x_cm": 22}])["b"]
    assert report["allowance_cm"] == allowance


@pytest.mark.parametrize(
    ("model", "allowance"),
    [
        (hull(20, 30, "t", chassis="tracked", flags=["stuck"]), 15.0),
        (hull(20, 30, "g", type="heavy_gun", length_mm=40, width_mm=30, flags=["stuck"]), 5.0),
        (base(20, 30, "c", crew_of="g0", flags=["stuck"]), 5.0),
        (hull(20, 30, "t", chassis="tracked"), 30.0),
    ],
)
def test_a_vehicle_or_gun_stuck_on_an_obstacle_moves_half_next_turn(model: dict, allowance: float) -> None:
    """000: «Если одного хода гусеничной технике недостаточно чтобы преодолеть препятствие, и она
    зависает на нем, то в следующий ход она двигается так же половину от своей дистанции» (a tracked
    vehicle left hanging on an obstacle moves half its distance next turn), and for guns «Если одного
    хода орудию недостаточно ... и оно зависает на нем, то в следующий ход оно с расчетом двигается так
    же половину от своей дистанции» (a gun likewise, with its crew: a crew model flagged stuck too)."""
    gun = hull(60, 90, "g0", side="red", type="heavy_gun", length_mm=40, width_mm=30)
    report = moved(WAF, [model, gun], [{**model, "x_cm": 22}, gun])[model["id"]]
    assert report["allowance_cm"] == allowance


SMALL_GUN = {"type": "heavy_gun", "length_mm": 40, "width_mm": 30}


@pytest.mark.parametrize(
    ("model", "wall_cm", "blocked"),
    [
        (hull(20, 30, "w", side="red", chassis="wheeled", wheel_height_cm=1.5), 2.0, True),
        (hull(20, 30, "w", side="red", chassis="wheeled", wheel_height_cm=1.5), 1.5, False),
        (hull(20, 30, "w", side="red", chassis="wheeled", hull_height_cm=4.0), 2.0, False),
        (hull(20, 30, "h", side="red", chassis="half_tracked", hull_height_cm=3.0), 3.5, True),
        (hull(20, 30, "k", side="red", chassis="tracked", hull_height_cm=3.0), 3.0, False),
        (hull(20, 30, "k", side="red", chassis="tracked", hull_height_cm=3.0), 3.5, True),
        (hull(20, 30, "v", side="red", hull_height_cm=3.0), 3.5, True),
        (hull(20, 30, "k", side="red", chassis="tracked"), 8.0, False),
        (hull(20, 30, "g", side="red", **SMALL_GUN, hull_height_cm=2.0), 2.5, True),
        (hull(20, 30, "g", side="red", **SMALL_GUN, hull_height_cm=2.0), 2.0, False),
        (base(20, 30, "b", type="motorbike", diameter_mm=65, wheel_height_cm=1.5), 2.0, True),
        (base(20, 30, "b", type="motorbike", diameter_mm=65, wheel_height_cm=1.5), 1.4, False),
    ],
)
def test_a_vehicle_crosses_no_obstacle_higher_than_its_wheel_or_hull(
    model: dict, wall_cm: float, blocked: bool
) -> None:
    """000: «Колесная техника не может преодолевать препятствия, которые по высоте выше высоты колеса
    этой техники», «Полугусеничная [Гусеничная] техника не может преодолевать препятствия больше
    высоты корпуса техники (без учета орудийной башни)», «Крупное тяжелое оружие может преодолевать
    препятствия, только если оно по высоте не больше высоты корпуса орудия», and motorcycles
    «Препятствия отряд преодолевает согласно общим правилам для колесной техники» (wheeled vehicles
    and motorcycles cross nothing higher than their wheel; half-tracks, tracked vehicles and guns
    nothing higher than their hull, turret excluded). The scene gives wheel_height_cm or
    hull_height_cm; without it no height limit is known."""
    gun = model["type"] == "heavy_gun"
    wall = strip("wall", 23 if gun else 26, 0.5, height_cm=wall_cm)
    report = moved(WAF, [model], [{**model, "x_cm": 26 if gun else 34}], terrain=[wall])[model["id"]]
    assert ("impassable_terrain" in codes(report)) is blocked
    assert ("too_far" in codes(report)) is False


@pytest.mark.parametrize(
    ("gun_to", "tug_legal", "gun_legal"), [(62.5, True, True), (47.5, False, None), (60.0, False, False)]
)
def test_a_tug_and_what_it_tows_end_in_base_contact(
    gun_to: float, tug_legal: bool, gun_legal: bool | None
) -> None:
    """000: «вы должны подвигать тягач так, чтобы он стал с техникой в базовый контакт, а затем на
    оставшееся расстояние подвигаться вместе с техникой в базовом контакте в нужную вам сторону» (move
    the tug into base contact with the vehicle, then move on together, in base contact): a tug that
    leaves its tow behind, or drags it to a gap, has not towed it."""
    tug = hull(60, 60, "tug", side="red", unit="tug", chassis="tracked", wounds=3, towing="gun")
    gun = hull(47.5, 60, "gun", side="red", unit="gun", type="heavy_gun", length_mm=50, width_mm=40, wounds=1)
    report = moved(WAF, [tug, gun], [{**tug, "x_cm": 75}, {**gun, "x_cm": gun_to}])
    assert report["tug"]["legal"] is tug_legal
    assert ("moved_unaccompanied" in codes(report["tug"])) is not tug_legal
    if gun_legal is not None:
        assert report["gun"]["legal"] is gun_legal


@pytest.mark.parametrize(
    ("kind", "sides", "warned"),
    [
        ("breakthrough", {"red": "left", "blue": "right"}, False),
        ("breakthrough", {"red": "left", "blue": "left"}, True),
        ("ambush", {"red": "top", "blue": "bottom"}, False),
        ("diversion", {"red": "top-left", "blue": "bottom-right"}, False),
        ("diversion", {"red": "top-left", "blue": "top-right"}, True),
    ],
)
def test_armies_deploy_on_opposite_edges_or_diagonal_quarters(
    kind: str, sides: dict[str, str], warned: bool
) -> None:
    """000: «Игроки расставляют свои армии всегда на противоположных краях поля» (the players always
    deploy on opposite table edges), «Армии расставляются друг напротив друга» (facing each other),
    and for Diversion «Армии расставляются друг напротив друга по диагонали, в любых двух из четырех
    противоположных частях» (diagonally, in two opposite quarters of the four)."""
    models = [base(20, 20, "r"), base(160, 100, "b", side="blue")]
    report = api.check(scene(WAF, models, deployment={"kind": kind, "sides": sides}, phase="deployment"))
    assert bool(report["deployment"]["warnings"]) is warned
