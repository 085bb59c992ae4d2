"""NEEDS-INPUT seed rules whose input the scene carries in optional fields (mines, roles, sight)."""

from __future__ import annotations

import math

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, codes, hull, moved, scene

CA = "combined-arms"
MI = "mobile-infantry"
INCH = 2.54
R32 = 1.6


# ca.sapper.detect: «сапёр противника находится в пределах 5 дюймов от вашей мины или заряда».
@pytest.mark.parametrize(("gap_in", "revealed"), [(4.99, True), (5.0, True), (5.02, False)])
def test_enemy_sapper_within_5_inches_reveals_a_mine(gap_in: float, revealed: bool) -> None:
    mine = {"id": "m1", "side": "red", "x_cm": 20, "y_cm": 30}
    sapper = base(20 + R32 + gap_in * INCH, 30, "s", side="blue", role="sapper")
    report = api.check(scene(CA, [sapper], mines=[mine]))["mines"]["m1"]
    assert report == {
        "kind": "mine",
        "side": "red",
        "revealed": revealed,
        "sappers": ["s"] if revealed else [],
        "triggered_by": [],
    }


def test_only_enemy_sappers_reveal_a_charge() -> None:
    charge = {"id": "c1", "side": "red", "x_cm": 20, "y_cm": 30, "kind": "charge"}
    models = [
        base(22, 30, "own", side="red", role="sapper"),
        base(20, 33, "rifle", side="blue"),
    ]
    report = api.check(scene(CA, models, mines=[charge]))["mines"]["c1"]
    assert report["kind"] == "charge" and report["revealed"] is False


def test_mine_with_a_model_id_or_an_unknown_side_is_rejected() -> None:
    with pytest.raises(SceneError, match=r"mines\[0\]\.id"):
        scene(CA, [base(50, 50, "s")], mines=[{"id": "s", "side": "red", "x_cm": 1, "y_cm": 1}])
    with pytest.raises(SceneError, match=r"mines\[0\]\.side"):
        green = {"id": "m", "side": "green", "x_cm": 1, "y_cm": 1}
        scene(CA, [base(50, 50, "s")], sides=["red", "blue"], mines=[green])


# mi.morale.commander: «в зоне прямой видимости командира отделения «+1»»: a wall between the
# squad leader and a trooper takes the bonus away; a trooper of a unit without a leader has none.
def test_troopers_in_the_squad_leaders_sight() -> None:
    wall = {"id": "w", "kind": "wall", "polygon_cm": [[29, 20], [30, 20], [30, 40], [29, 40]]}
    models = [
        base(20, 30, "sgt", unit="sq", type="trooper", role="leader"),
        base(40, 30, "hidden", unit="sq", type="trooper"),
        base(20, 50, "open", unit="sq", type="trooper"),
        base(60, 60, "lone", unit="other", type="trooper"),
    ]
    report = api.check(scene(MI, models, terrain=[wall]))["leader_sight"]
    assert report == {
        "hidden": {"in_leader_sight": False, "seen_by": []},
        "open": {"in_leader_sight": True, "seen_by": ["sgt"]},
    }


# mi.grenade.obstacle: over a wall, a target within 35 mm of it (and the 1 cm of misjudgement every
# distance has: «Во всех случаях») is hit for sure, one touching it takes shrapnel; further away
# the ordinary grenade distances (70 mm sure, 140 mm scatter, each + 10 mm) apply.
@pytest.mark.parametrize(
    ("gap_mm", "effect"), [(0.5, "shrapnel"), (35.2, "sure_hit"), (45.0, "sure_hit"), (45.2, None)]
)
def test_grenade_over_a_wall_hits_within_35_mm_of_it(gap_mm: float, effect: str | None) -> None:
    wall = {"id": "w", "kind": "wall", "polygon_cm": [[29, 20], [30, 20], [30, 40], [29, 40]]}
    thrower = base(20, 30, "t", type="trooper", weapons=["grenade"])
    target = base(30 + R32 + gap_mm / 10, 30, "b", side="blue", type="bug")
    row = api.ranges(scene(MI, [thrower, target], terrain=[wall]), "t")["targets"][0]
    assert row["weapons"] == ["grenade"]
    lobbed = row["over_obstacle"]["grenade"]
    assert lobbed["obstacle"] == "w" and lobbed["effect"] == effect
    assert lobbed["edge_cm"] == pytest.approx(gap_mm / 10, abs=1e-4)
    assert row["effects"]["grenade"] == (effect or "scatter")


def test_level_2_barrier_counts_as_an_obstacle_and_level_1_does_not() -> None:
    thrower = base(20, 30, "t", type="trooper", weapons=["grenade"])
    target = base(32, 30, "b", side="blue", type="bug")
    for level, expected in [(2, "sure_hit"), (1, None)]:
        outline = [[25, 20], [27, 20], [27, 40], [25, 40]]
        hill = {"id": "h", "kind": "hill", "level": level, "polygon_cm": outline}
        row = api.ranges(scene(MI, [thrower, target], terrain=[hill]), "t")["targets"][0]
        assert row.get("over_obstacle", {}).get("grenade", {}).get("effect") == expected


# ca.transport.capacity: «4-16 для автомобиля, 12 для БТР, 6 для танков».
@pytest.mark.parametrize(
    ("chassis", "passengers", "seats", "fits"),
    [("apc", 12, None, True), ("apc", 13, None, False), ("tank", 6, None, True), ("tank", 7, None, False),
     ("car", 8, 8, True), ("car", 9, 8, False), ("car", 5, None, None)],
)
def test_passengers_against_the_seats(
    chassis: str, passengers: int, seats: int | None, fits: bool | None
) -> None:
    extra = {"seats": seats} if seats is not None else {}
    vehicle = hull(50, 50, "v", chassis=chassis, passengers=passengers, **extra)
    report = api.check(scene(CA, [vehicle, hull(120, 50, "empty")]))["transport"]
    assert list(report) == ["v"]
    assert report["v"]["within_capacity"] is fits and report["v"]["passengers"] == passengers


def test_a_car_card_outside_4_to_16_seats_is_rejected() -> None:
    vehicle = hull(50, 50, "v", chassis="car", passengers=3, seats=17)
    with pytest.raises(SceneError, match=r"models\[0\]\.seats"):
        api.check(scene(CA, [vehicle]))


def _interceptor(**extra: object) -> dict:
    return base(50, 50, "t", type="trooper", weapons=["assault_rifle"], order="interception", **extra)


# mi.order.interception: an enemy in the fire zone (rifle 140 mm + 10 mm tolerance) to its front.
@pytest.mark.parametrize(("edge_mm", "triggered"), [(149.9, True), (150.2, False)])
def test_interception_triggers_on_an_enemy_within_reach_in_front(edge_mm: float, triggered: bool) -> None:
    bug = base(50 + 2 * R32 + edge_mm / 10, 50, "b", side="blue", type="bug")
    report = api.check(scene(MI, [_interceptor(heading_deg=0), bug]))["interception"]["t"]
    assert report["triggered_by"] == (["b"] if triggered else [])
    assert report["allowed"] is True


# The front is half the circle around the heading (front_arc_deg 180: the seed gives no width).
@pytest.mark.parametrize(("bearing", "triggered"), [(89.0, True), (91.0, False), (180.0, False)])
def test_interception_front_arc(bearing: float, triggered: bool) -> None:
    x = 50 + 8 * math.cos(math.radians(bearing))
    y = 50 + 8 * math.sin(math.radians(bearing))
    bug = base(x, y, "b", side="blue", type="bug")
    report = api.check(scene(MI, [_interceptor(heading_deg=0), bug]))["interception"]["t"]
    assert report["triggered_by"] == (["b"] if triggered else [])


def test_interception_cannot_be_given_in_contact_and_needs_a_heading() -> None:
    bug = base(50 + 2 * R32, 50, "b", side="blue", type="bug")
    report = api.check(scene(MI, [_interceptor(), bug]))["interception"]["t"]
    assert report == {"allowed": False, "in_contact_with": ["b"], "triggered_by": None}


def _placed(sides: list[str], **extra: object) -> dict:
    models = [
        base(10 + 5 * k, 10 if side == "red" else 110, f"m{k}", side=side, unit=f"u{k}", placed_order=k + 1)
        for k, side in enumerate(sides)
    ]
    return api.check(scene("world-at-fire", models, phase="deployment", **extra))["deployment_order"]


# waf.deploy.order: «разместить один свой отряд ..., затем один свой отряд размещает второй
# игрок, и так дальше по очереди».
@pytest.mark.parametrize(
    ("sides", "out_of_turn"),
    [
        (["red", "blue", "red", "blue"], []),
        (["red", "red", "blue", "blue"], ["u1"]),
        (["red", "red", "blue", "red"], ["u1"]),
        (["red", "blue", "blue", "blue"], []),
    ],
)
def test_units_are_placed_alternately(sides: list[str], out_of_turn: list[str]) -> None:
    report = _placed(sides)
    assert report["sequence"] == [f"u{k}" for k in range(len(sides))]
    assert report["out_of_turn"] == out_of_turn and report["alternating"] == (not out_of_turn)


def test_first_player_places_first() -> None:
    assert _placed(["red", "blue"], first_player="blue")["out_of_turn"] == ["u0"]
    assert _placed(["red", "blue"], first_player="red")["alternating"] is True


# «кроме отрядов с правилом «Диверсия» и «С Небес» - они прибывают на второй ход».
def test_diversion_and_from_the_skies_units_are_not_on_the_table_at_deployment() -> None:
    models = [
        base(10, 10, "a", unit="para", flags=["from_the_skies"]),
        base(20, 10, "b", unit="rifles"),
    ]
    report = api.check(scene("world-at-fire", models, phase="deployment"))["deployment_order"]
    assert report["arrive_later"] == ["para"]


# mi.map.march: on the tactical map a trooper moves one 40 mm hex, a bug 2x40 mm.
@pytest.mark.parametrize(
    ("type_", "distance_mm", "legal"),
    [("trooper", 40.0, True), ("trooper", 40.2, False), ("bug", 80.0, True), ("bug", 80.2, False)],
)
def test_march_on_the_map(type_: str, distance_mm: float, legal: bool) -> None:
    before = base(30, 30, "a", type=type_)
    after = base(30 + distance_mm / 10, 30, "a", type=type_)
    entry = moved(MI, [before], [after], phase="map")["a"]
    assert entry["legal"] is legal
    assert entry["allowance_cm"] == pytest.approx(4.0 if type_ == "trooper" else 8.0)
    assert ("too_far" in codes(entry)) is not legal


def test_one_hex_step_between_hex_centres_is_a_legal_trooper_march() -> None:
    start, end = api.hex_centre(MI, 2, 3), api.hex_centre(MI, 3, 3)
    before = base(start["x_cm"], start["y_cm"], "a", type="trooper")
    after = base(end["x_cm"], end["y_cm"], "a", type="trooper")
    assert moved(MI, [before], [after], phase="map")["a"]["legal"] is True


def test_a_template_asked_with_a_misspelt_setting_is_refused_not_ignored() -> None:
    """`heading=` for `heading_deg=` laid the smoke strip along x without a word; a setting the
    template does not take is a TypeError, as any Python call's."""
    seen = scene("combined-arms", [base(20, 50, "r1")])
    with pytest.raises(TypeError, match="heading"):
        api.under_template(seen, "smoke", 26.0, 50.0, heading=90.0)
    assert api.under_template(seen, "smoke", 26.0, 50.0, heading_deg=90.0)["heading_deg"] == 90.0
