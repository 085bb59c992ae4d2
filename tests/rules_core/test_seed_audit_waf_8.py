"""Eighth audit of World at Fire (seed 000), read as a blind grader would.

Each test failed before its fix (a few of its cases, and the one called a guard, pin what already
held); the docstring quotes the seed sentence and translates it.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene_data

WAF = "world-at-fire"


# --- waf.move.cavalry.mount, waf.move.motorbike: what the riders leave behind stays put --------


@pytest.mark.parametrize(
    ("type", "phase", "extra"),
    [
        ("cavalry", "movement", {}),
        ("motorbike", "movement", {}),
        ("cavalry", "shooting", {"dash": 12}),
        ("motorbike", "shooting", {"dash": 12}),
    ],
)
def test_horses_or_a_motorcycle_left_by_their_riders_do_not_move(type: str, phase: str, extra: dict) -> None:
    """000: «препятствия выше 5 сантиметров отряд может преодолеть только в случае спешивания
    наездников и оставления ездовых животных позади – в этом случае наездники становятся обычным
    отрядом пехоты, а ездовые животные – другим отрядом который не может совершать никаких действий
    пока не будут оседланы вашими пехотинцами или вражескими», «ездовые животные в этом случае также
    остаются на месте»; «В результате спешивания водитель и стрелок могут покинуть мотоцикл ... -
    мотоцикл в этом случае остается на месте до конца игры либо до тех пор, пока его не уничтожат или
    не оседлает пехотинец врага, либо ваш» (horses left behind by riders who dismounted are a unit that
    can take no action until someone mounts them, and stay where they are; a motorcycle its crew left
    stays put until destroyed or mounted): a horse or motorcycle flagged abandoned moves no more, in
    the movement phase or in a dash."""
    before = [base(40, 30, "h", type=type, diameter_mm=65, flags=["abandoned"], **extra)]
    after = [base(50, 30, "h", type=type, diameter_mm=65, flags=["abandoned"], **extra)]
    report = moved(WAF, before, after, phase=phase)["h"]
    assert report["allowance_cm"] == 0.0
    assert codes(report) == ["too_far"]


def test_a_horse_whose_rider_fell_still_rides_with_its_unit() -> None:
    """000: «Если же в отряде погибают наездники, но выживают ездовые животные и хотя бы один
    наездник, то отряд двигается с полной скоростью» (if riders die but the horses and at least one
    rider live, the unit moves at full speed): a guard for the fix above, a horse without a rider but
    not abandoned keeps 30 cm."""
    before = [base(x, 30, id, type="cavalry", diameter_mm=65) for x, id in [(40, "h"), (47, "r")]]
    after = [base(x, 30, id, type="cavalry", diameter_mm=65) for x, id in [(70, "h"), (77, "r")]]
    assert all(entry["legal"] for entry in moved(WAF, before, after).values())


# --- waf.deploy.order: Diversion and From the Skies arrive in the enemy's zone -----------------


@pytest.mark.parametrize(
    ("flag", "x", "inside"),
    [
        ("diversion", 170.0, True),
        ("from_the_skies", 170.0, True),
        ("diversion", 20.0, False),
        ("from_the_skies", 90.0, False),
    ],
)
def test_a_late_unit_arrives_in_the_enemy_zone(flag: str, x: float, inside: bool) -> None:
    """000: «Так к началу игры на поле должны быть расставлены все игровые отряды игроков (кроме
    отрядов с правилом «Диверсия» и «С Небес» - они прибывают на второй ход в зону противника)» (every
    unit is on the table when the game starts, except those with the Diversion or From the Skies rule:
    they arrive on turn 2 in the enemy's zone): a model with that flag that was not on the table and
    now is gets a move entry, outside_deployment_zone unless it stands in an enemy's zone."""
    deployment = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}
    enemy = base(100, 100, "e", side="blue")
    arrival = base(x, 30, "d", unit="red-d", flags=[flag])
    report = moved(WAF, [enemy], [enemy, arrival], phase="movement", deployment=deployment)["d"]
    assert report["moved_cm"] is None
    assert codes(report) == ([] if inside else ["outside_deployment_zone"])


# --- waf.aircraft.loop: a fighter's Dead Loop ends turned about --------------------------------


@pytest.mark.parametrize(
    ("flags", "heading", "legal"), [(["loop"], 180.0, True), (["loop"], 0.0, False), ([], 180.0, False)]
)
def test_a_fighter_that_looped_ends_turned_about(flags: list[str], heading: float, legal: bool) -> None:
    """000: «Пилоты истребителей могут на свой страх и риск совершать мгновенный разворот «Мертвую
    Петлю», в этом случае, после того как они подвигались, если вы хотите сделать разворот на 180
    градусов, то бросьте кубик – на 5+ самолет успешно разворачивается и фаза движения для него
    заканчивается» (a fighter may try the Dead Loop: after moving it turns 180 degrees on a 5+): a
    plane flagged loop (the roll succeeded) ends facing back along its flight; without the flag it
    still ends facing along it."""
    plane = base(20, 60, "p", type="aircraft", diameter_mm=65, heading_deg=0.0, flags=flags)
    report = moved(WAF, [plane], [{**plane, "x_cm": 100, "heading_deg": heading}])["p"]
    assert report["legal"] is legal
    assert codes(report) == ([] if legal else ["not_straight_ahead"])


# --- waf.move.motorbike: a motorcycle climbs no higher than its own wheel ----------------------


@pytest.mark.parametrize(
    ("wheel", "z_to", "blocked"),
    [(2.5, 2.0, False), (2.5, 2.6, True), (0.8, 1.0, True), (None, 1.0, False), (None, 1.5, True)],
)
def test_a_motorcycle_climbs_no_higher_than_its_own_wheel(
    wheel: float | None, z_to: float, blocked: bool
) -> None:
    """000: «Мотопехотная модель не может взбираться по стенам, лестницам, этажам зданий и прочим
    препятствиям выше колеса мотоцикла» (a motorcycle climbs no wall, stair, floor or other obstacle
    higher than its wheel): where the scene gives wheel_height_cm, that is the most its height (z_cm)
    changes in a move; without it, the 1 cm of the wheeled-vehicle rule as before."""
    extra = {} if wheel is None else {"wheel_height_cm": wheel}
    bike = base(20, 30, "b", type="motorbike", diameter_mm=65, z_cm=0.0, **extra)
    report = moved(WAF, [bike], [{**bike, "x_cm": 22, "z_cm": z_to}])["b"]
    assert ("impassable_terrain" in codes(report)) is blocked


# --- waf.aircraft.must_move: in its own turn ----------------------------------------------------


def test_an_aircraft_must_move_in_its_own_turn_not_the_enemys() -> None:
    """000: «Самолет обязан двигаться каждый свой ход, он не может зависать» (an aircraft must move
    in every one of its own turns), «Во время хода каждого игрока у него будет возможность совершить
    всеми своими отрядами три действия по очереди» (in each player's turn he acts with his own units):
    while red moves, blue's plane standing still is no did_not_move; red's own idle plane still is."""
    ours = base(20, 60, "p", type="aircraft", unit="red-air", diameter_mm=65, heading_deg=0.0)
    theirs = base(120, 60, "q", side="blue", type="aircraft", diameter_mm=65, heading_deg=180.0)
    before = api.parse_scene(scene_data(WAF, [base(20, 30, "i"), ours, theirs]))
    after = api.parse_scene(scene_data(WAF, [base(30, 30, "i"), ours, theirs]))
    assert list(api.move(before, after)["not_moved"]) == ["p"]


# --- waf.move.infantry.climb: a soldier may climb onto a tank ----------------------------------


def test_a_soldier_may_climb_onto_a_tank_and_ride_it() -> None:
    """000: «Подняться дальше на следующие этажи, взобраться на танк или бункер, а так же спуститься
    с танка, в окоп или на нижние этажи бойцы могут по такой же схеме» (soldiers climb onto a tank
    and down from it by the same climbing rule), «Для моделей техники подставки не требуются» (a
    vehicle has no base to end on), allies «могут ... передвигаться на броне танков друг друга» (ride
    on each other's tanks): a soldier standing higher (z_cm) on a friendly tank's hull is on it, not
    overlapping it, and the tank moving under him does not end on him either; at ground level he
    still may not end inside the hull."""
    tank = hull(60, 30, "t", side="red", unit="red-t", hull_height_cm=6)
    up = moved(WAF, [base(45, 30, "i"), tank], [base(52, 30, "i", z_cm=6), tank])["i"]
    assert up["legal"] is True
    assert up["climb_cm"] == 6.0
    flat = moved(WAF, [base(45, 30, "i"), tank], [base(52, 30, "i"), tank])["i"]
    assert codes(flat) == ["overlaps_model"]
    ride = moved(
        WAF,
        [base(52, 30, "i", z_cm=6), tank],
        [base(62, 30, "i", z_cm=6), {**tank, "x_cm": 70}],
    )
    assert [entry["legal"] for entry in ride.values()] == [True, True]
