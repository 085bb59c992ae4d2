"""Eighteenth audit pass against the Russian seed texts (session 54).

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.transport import has_room
from tests.rules_core.builders import base, codes, hull, moved, scene

CA = "combined-arms"


@pytest.mark.parametrize(
    ("chassis", "passengers", "seats", "boards"),
    [
        ("apc", 11, None, True),
        ("apc", 12, None, False),
        ("tank", 6, None, False),
        ("car", 5, 6, True),
        ("car", 6, 6, False),
        ("car", 16, None, False),
        ("car", 9, None, True),
        ("tractor", None, None, False),
        ("tractor", 1, 2, True),
    ],
)
def test_ca_a_fighter_boards_only_a_vehicle_with_a_free_seat(
    chassis: str, passengers: int | None, seats: int | None, boards: bool
) -> None:
    """002: «Перевозка пехоты ведётся автомобилями, БТР и на танках согласно количеству мест»
    (infantry ride in cars, APCs and on tanks according to the number of seats); «Стандартное
    количество посадочных мест: 4-16 для автомобиля, 12 для БТР, 6 для танков». A fighter touching
    a full APC's hull met `embark` all the same, and so did one touching a tractor. Now a full
    vehicle or a tractor takes no one; a car whose card is not given, with 9 aboard, may have room."""
    card = {"chassis": chassis}
    if passengers is not None:
        card["passengers"] = passengers
    if seats is not None:
        card["seats"] = seats
    vehicle = hull(100, 60, "v", side="red", unit="ride", length_mm=100, width_mm=60, **card)
    fighter = base(100 + 5 + 1.6, 60, "f")
    embark = api.check(scene(CA, [vehicle, fighter]))["proximity"]["embark"]["f"]
    assert embark["met"] is boards
    assert embark["near"] == (["v"] if boards else [])


def test_ca_a_tractor_carries_no_fighters() -> None:
    """002: a tractor tows guns («либо на гусеничных тягачах») but infantry ride «автомобилями, БТР и
    на танках»: a tractor with passengers is over its capacity, not left undecided."""
    tractor = hull(100, 60, "v", side="red", unit="tug", chassis="tractor", passengers=2)
    report = api.check(scene(CA, [tractor]))["transport"]["v"]
    assert report["seats"] == 0 and report["within_capacity"] is False


INCH = 2.54


@pytest.mark.parametrize(
    ("passengers", "own", "reach"), [(3, None, True), (3, ["hmg"], False), (0, None, False)]
)
def test_ca_tank_riders_fire_6_inches_from_the_hull(
    passengers: int, own: list[str] | None, reach: bool
) -> None:
    """002: «Бойцы танкового десанта могут вести огонь с техники на расстояние до 6 дюймов
    (высчитывается от КТ техники)» (tank riders may fire from the vehicle up to 6", measured from
    its hull). Only a tank whose weapons listed `desant_fire` by name reached anyone: a tank with
    three riders and no weapons reached no one at 6". A tank whose `weapons` the scene lists has
    those only (CONTRACTS: "its `weapons`, else its unit type's defaults")."""
    card = {"chassis": "tank", "passengers": passengers} | ({"weapons": own} if own else {})
    tank = hull(100, 60, "v", side="red", unit="armour", length_mm=100, width_mm=60, **card)
    near = base(100 + 5 + 1.6 + 6 * INCH, 60, "e", side="blue")
    far = base(100, 60 + 3 + 1.6 + 6.01 * INCH, "f", side="blue")
    reach_of = {t["id"]: t["weapons"] for t in api.ranges(scene(CA, [tank, near, far]), "v")["targets"]}
    assert ("desant_fire" in reach_of["e"]) is reach
    assert "desant_fire" not in reach_of["f"]


def test_ca_the_fighter_carrying_a_wounded_one_walks_6_inches() -> None:
    """002: «Раненного бойца можно перемещать со скоростью до 6Д рядом с другим бойцом» (a wounded
    fighter may be moved up to 6" beside another fighter): the one carrying him walks with him.
    Flagged carrying_wounded, he walked 10" and no allowance held him."""
    before = [base(50, 50, "c", flags=["carrying_wounded"])]
    after = [base(50 + 6.2 * INCH, 50, "c", flags=["carrying_wounded"])]
    report = moved(CA, before, after)["c"]
    assert report["allowance_cm"] == pytest.approx(6 * INCH) and codes(report) == ["too_far"]


def test_ca_aircraft_are_not_held_to_straight_ahead_flight() -> None:
    """002 gives aviation no movement rule («осуществляют свои действия 1 раз в ход») and names
    helicopters and drones («вертолётам, БПЛА»): a helicopter flying sideways was refused as
    not_straight_ahead, World at Fire's rule for its planes."""
    before = [{**base(50, 50, "air", type="aircraft", diameter_mm=65), "heading_deg": 0}]
    after = [{**base(50, 90, "air", type="aircraft", diameter_mm=65), "heading_deg": 0}]
    report = moved(CA, before, after)["air"]
    assert report["legal"] and report["allowance_cm"] is None


def _mortar_team(x: float) -> list[dict]:
    mortar = {**base(50, 50, "m", unit="mortar", type="gun", diameter_mm=40), "weapons": ["light_mortar"]}
    gap = 2.0 + 1.6  # the mortar's and a fighter's radii
    man = base(x, 50, "c1", unit="mortar", crew_of="m", role="mortar_crew")
    chief = base(50, 50 + gap + 0.5 * INCH, "c2", unit="mortar", crew_of="m", role="commander")
    return [mortar, man, chief]


@pytest.mark.parametrize(("off_in", "legal"), [(1.0, True), (1.05, False)])
def test_ca_a_mortarman_stays_within_1_inch_of_his_mortar(off_in: float, legal: bool) -> None:
    """002: «Миномётчик. Располагается в пределах 1 дюйма от модели миномёта» (a mortarman stands
    within 1" of the mortar model). He walked 5" away and the move was legal; only `check.guns`
    said the mortar had lost him."""
    before = _mortar_team(50 + 3.6 + 0.5 * INCH)
    after = _mortar_team(50 + 3.6 + off_in * INCH)
    entry = moved(CA, before, after)["c1"]
    assert entry["legal"] is legal
    assert codes(entry) == ([] if legal else ["moved_unaccompanied"])


def test_ca_a_mortar_does_not_move_away_from_its_crew() -> None:
    """002: the mortar's crew stand within 1" of it, so a mortar that moved 6" leaving its crewmen
    behind was moved by no one, and one that left one of the two behind broke the rule for him.
    Moved with both, it is legal; a mortar whose crew the scene does not give is not judged."""
    before = _mortar_team(50 + 3.6 + 0.5 * INCH)
    away = 50 - 6 * INCH
    alone = [{**before[0], "x_cm": away}, *before[1:]]
    assert codes(moved(CA, before, alone)["m"]) == ["moved_unaccompanied"] * 2
    man = {**before[1], "x_cm": away + 3.6 + 0.5 * INCH}
    assert codes(moved(CA, before, [alone[0], man, before[2]])["m"]) == ["moved_unaccompanied"]
    chief = {**before[2], "x_cm": away}
    assert moved(CA, before, [alone[0], man, chief])["m"]["legal"] is True
    assert moved(CA, before[:1], alone[:1])["m"]["legal"] is True


def test_ca_a_towed_mortar_and_a_crewman_turning_in_place_are_not_held_to_the_crew() -> None:
    """A hitched mortar travels with its tug («прицепка артиллерии ... транспортировка»), not its
    crew; a crewman already apart who only turns left no one."""
    before = _mortar_team(50 + 3.6 + 0.5 * INCH)
    tug = hull(50 - 12, 50, "t", side="red", unit="tug", chassis="tractor", length_mm=100, width_mm=60)
    towed_before = [*before, {**tug, "towing": "m"}]
    towed_after = [{**before[0], "x_cm": 90}, *before[1:], {**tug, "x_cm": 90 - 12, "towing": "m"}]
    assert "moved_unaccompanied" not in codes(moved(CA, towed_before, towed_after)["m"])
    apart = _mortar_team(50 + 3.6 + 3 * INCH)
    turned = [*apart[:1], {**apart[1], "heading_deg": 90.0}, apart[2]]
    assert moved(CA, [*apart[:1], {**apart[1], "heading_deg": 0.0}, apart[2]], turned)["c1"]["legal"] is True


def test_a_ruleset_without_transport_rules_leaves_room_undecided() -> None:
    """A user ruleset may ask for `with_room` without giving `transport`: no traceback, no verdict."""
    waf = scene("world-at-fire", [hull(100, 60, "v", side="red", unit="ride")])
    assert has_room(waf, waf.models[0]) is None
