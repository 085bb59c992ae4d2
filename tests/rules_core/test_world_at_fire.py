"""World at Fire 5.8.1 (seed 000), rule by rule: a case just inside and just outside each threshold."""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene, scene_data

WAF = "world-at-fire"


# waf.coherency: «дистанция менее 5 сантиметров» between bases, strict.
@pytest.mark.parametrize(("gap", "coherent"), [(4.99, True), (5.0, False), (5.01, False)])
def test_coherency_is_strictly_less_than_5_cm_edge_to_edge(gap: float, coherent: bool) -> None:
    s = scene(WAF, [base(20, 30, "a"), base(20 + 3.2 + gap, 30, "b")])
    unit = api.check(s)["units"]["red-1"]
    assert unit["coherent"] is coherent
    assert len(unit["groups"]) == (1 if coherent else 2)


def test_coherency_chain_is_one_group() -> None:
    s = scene(WAF, [base(20, 30, "a"), base(27, 30, "b"), base(34, 30, "c"), base(80, 30, "d")])
    groups = api.check(s)["units"]["red-1"]["groups"]
    assert sorted(map(sorted, groups)) == [["a", "b", "c"], ["d"]]


def test_vehicles_are_not_bound_by_coherency() -> None:
    s = scene(WAF, [hull(50, 50, "t1", unit="tanks"), hull(150, 50, "t2", unit="tanks")])
    assert api.check(s)["units"]["tanks"] == {"coherent": True, "groups": [["t1", "t2"]], "applies": False}


# waf.move.infantry: «не более 15 см», inclusive, centre displacement.
@pytest.mark.parametrize(("distance", "legal"), [(15.0, True), (15.01, False)])
def test_infantry_moves_up_to_15_cm(distance: float, legal: bool) -> None:
    report = moved(WAF, [base(20, 30, "a")], [base(20 + distance, 30, "a")])["a"]
    assert report["allowance_cm"] == 15.0
    assert report["legal"] is legal
    assert ("too_far" in codes(report)) is not legal


# waf.move.cavalry: 30 cm, no faster than the slowest member.
def test_cavalry_30_cm_and_slowest_member() -> None:
    riders = [
        base(20, 30, "c1", type="cavalry", diameter_mm=65),
        base(28, 30, "c2", type="cavalry", diameter_mm=65),
    ]
    after = [
        base(50, 30, "c1", type="cavalry", diameter_mm=65),
        base(58, 30, "c2", type="cavalry", diameter_mm=65),
    ]
    assert all(e["legal"] for e in moved(WAF, riders, after).values())
    dismounted = base(36, 30, "c3", type="infantry")
    report = moved(WAF, [*riders, dismounted], [*after, base(51, 30, "c3")])
    assert report["c1"]["allowance_cm"] == 15.0
    assert "too_far" in codes(report["c1"])


# waf.move.motorbike: 30 cm.
@pytest.mark.parametrize(("distance", "legal"), [(30.0, True), (30.01, False)])
def test_motorbike_30_cm(distance: float, legal: bool) -> None:
    report = moved(
        WAF,
        [base(20, 30, "m", type="motorbike", diameter_mm=65)],
        [base(20 + distance, 30, "m", type="motorbike", diameter_mm=65)],
    )["m"]
    assert report["legal"] is legal


# waf.move.heavy_gun: gun and its crew 10 cm.
@pytest.mark.parametrize(("distance", "legal"), [(10.0, True), (10.01, False)])
def test_heavy_gun_and_crew_move_10_cm(distance: float, legal: bool) -> None:
    gun = hull(50, 50, "g", side="red", unit="gun", type="heavy_gun", length_mm=60, width_mm=40)
    crew = base(50, 60, "c", unit="gun", crew_of="g")
    report = moved(WAF, [gun, crew], [{**gun, "x_cm": 50 + distance}, {**crew, "x_cm": 50 + distance}])
    assert report["g"]["legal"] is legal
    assert report["c"]["allowance_cm"] == 10.0
    assert report["c"]["legal"] is legal


# waf.gun.crew_to_fire: 2 crew less than 5 cm from the gun hit on 4+, 1 on 5+.
@pytest.mark.parametrize(("gap", "hits"), [(4.99, "4+"), (5.0, "5+")])
def test_gun_crew_within_5_cm(gap: float, hits: str) -> None:
    gun = hull(50, 50, "g", side="red", unit="gun", type="heavy_gun", length_mm=60, width_mm=40)
    near = base(50, 50 + 2 + 1.6 + 1.0, "c1", unit="gun", crew_of="g")
    other = base(50, 50 - 2 - 1.6 - gap, "c2", unit="gun", crew_of="g")
    report = api.check(scene(WAF, [gun, near, other]))["guns"]["g"]
    assert report["hits_on"] == hits
    assert report["can_fire"] is True


def test_gun_without_crew_cannot_fire() -> None:
    gun = hull(50, 50, "g", side="red", unit="gun", type="heavy_gun", length_mm=60, width_mm=40)
    assert api.check(scene(WAF, [gun]))["guns"]["g"]["can_fire"] is False


# waf.move.vehicle: 30 cm forward or backward, no reverse penalty.
@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize(("distance", "legal"), [(30.0, True), (30.01, False)])
def test_vehicle_30_cm_forward_or_back(direction: int, distance: float, legal: bool) -> None:
    report = moved(WAF, [hull(90, 60, "t")], [hull(90 + direction * distance, 60, "t")])["t"]
    assert report["legal"] is legal
    assert report["direction"] == ("forward" if direction > 0 else "backward")
    assert "moved_backwards_too_far" not in codes(report)


# waf.move.vehicle.area_terrain: vehicles capped at 15 cm when entering, inside or leaving area terrain.
def test_vehicle_in_forest_is_capped_at_15_cm() -> None:
    forest = {"id": "w", "kind": "forest", "polygon_cm": [[110, 40], [140, 40], [140, 80], [110, 80]]}
    report = moved(WAF, [hull(90, 60, "t")], [hull(115, 60, "t")], terrain=[forest])["t"]
    assert report["allowance_cm"] == 15.0
    assert "too_far" in codes(report)
    infantry = moved(WAF, [base(100, 60, "a")], [base(114, 60, "a")], terrain=[forest])["a"]
    assert infantry["legal"]


# waf.move.vehicle.obstacle: a wall higher than 1 cm halves to 15 cm; lower is free.
@pytest.mark.parametrize(("height", "allowance"), [(1.0, 30.0), (1.5, 15.0)])
def test_vehicle_obstacle_over_1_cm_halves(height: float, allowance: float) -> None:
    wall = {
        "id": "w",
        "kind": "wall",
        "height_cm": height,
        "polygon_cm": [[100, 40], [101, 40], [101, 80], [100, 80]],
    }
    report = moved(WAF, [hull(85, 60, "t")], [hull(105, 60, "t")], terrain=[wall])["t"]
    assert report["allowance_cm"] == allowance


# waf.move.cavalry: obstacles above 5 cm only by dismounting.
def test_cavalry_cannot_cross_high_wall() -> None:
    wall = {
        "id": "w",
        "kind": "wall",
        "height_cm": 6,
        "polygon_cm": [[100, 0], [101, 0], [101, 122], [100, 122]],
    }
    report = moved(
        WAF,
        [base(90, 60, "c", type="cavalry", diameter_mm=65)],
        [base(110, 60, "c", type="cavalry", diameter_mm=65)],
        terrain=[wall],
    )["c"]
    assert "impassable_terrain" in codes(report)


# waf.move.infantry.climb: a climb of 5 cm or more is added to the distance.
@pytest.mark.parametrize(("climb", "legal"), [(4.9, True), (5.0, False)])
def test_infantry_climb_counts_from_5_cm(climb: float, legal: bool) -> None:
    report = moved(WAF, [base(20, 30, "a", z_cm=0)], [base(32, 30, "a", z_cm=climb)])["a"]
    assert report["legal"] is legal


# waf.move.enemy_distance: «не могут подходить ближе, чем на 2 см»; exactly 2 is fine.
@pytest.mark.parametrize(("gap", "legal"), [(2.0, True), (1.99, False)])
def test_enemy_distance_2_cm(gap: float, legal: bool) -> None:
    enemy = base(60, 30, "e", side="blue")
    after_x = 60 - 3.2 - gap
    report = moved(WAF, [base(50, 30, "a"), enemy], [base(after_x, 30, "a"), enemy])["a"]
    assert report["legal"] is legal
    assert ("too_close_to_enemy" in codes(report)) is not legal


# waf.move.no_pass_through: a move through another unit is illegal only when no way round fits.
def test_passes_through_only_without_detour() -> None:
    blocker = base(30, 30, "f", unit="red-2")
    straight = moved(WAF, [base(20, 30, "a"), blocker], [base(34.9, 30, "a"), blocker])["a"]
    assert "passes_through_model" in codes(straight)
    wall_of_friends = [base(30, 30 + 3.3 * k, f"f{k}", unit="red-2") for k in range(-8, 9)]
    blocked = moved(WAF, [base(20, 30, "a"), *wall_of_friends], [base(34.9, 30, "a"), *wall_of_friends])["a"]
    assert "passes_through_model" in codes(blocked)
    detour = moved(WAF, [base(20, 30, "a"), blocker], [base(40, 30, "a"), blocker])
    assert "passes_through_model" in codes(detour["a"])


def test_short_detour_around_a_model_is_legal() -> None:
    blocker = base(30, 30, "f", unit="red-2")
    report = moved(WAF, [base(24, 30, "a"), blocker], [base(36, 30, "a"), blocker])["a"]
    assert report["legal"], report
    assert report["path_cm"] > 12.0


def test_overlap_at_the_end_is_reported() -> None:
    other = base(30, 30, "f", unit="red-2")
    report = moved(WAF, [base(20, 30, "a"), other], [base(31, 30, "a"), other])["a"]
    assert "overlaps_model" in codes(report)


def test_touching_bases_do_not_overlap() -> None:
    other = base(30, 30, "f", unit="red-2")
    report = moved(WAF, [base(20, 30, "a"), other], [base(26.8, 30, "a"), other])["a"]
    assert report["legal"], report


# waf.objective.no_end_on: may move through an objective, not end on it.
def test_objective_can_be_crossed_but_not_ended_on() -> None:
    objective = [{"id": "o", "x_cm": 30, "y_cm": 30}]
    through = moved(WAF, [base(20, 30, "a")], [base(34.9, 30, "a")], objectives=objective)["a"]
    assert through["legal"], through
    on_it = moved(WAF, [base(20, 30, "a")], [base(30, 30, "a")], objectives=objective)["a"]
    assert "overlaps_model" in codes(on_it)


# waf.objective.control: infantry within 10 cm (edge of marker to edge of base), no enemy within 10.
@pytest.mark.parametrize(("gap", "holder"), [(10.0, "red"), (10.01, None)])
def test_objective_control_radius(gap: float, holder: str | None) -> None:
    x = 90 + 3.25 + gap + 1.6
    s = scene(WAF, [base(x, 60, "a")], objectives=[{"id": "o", "x_cm": 90, "y_cm": 60, "diameter_mm": 65}])
    assert api.check(s)["objectives"]["o"]["controlled_by"] == holder


def test_objective_blocked_by_any_enemy_and_not_held_by_vehicles_or_unique() -> None:
    objective = [{"id": "o", "x_cm": 90, "y_cm": 60}]
    infantry = base(97, 60, "a")
    tank = hull(80, 60, "t", side="blue")
    contested = api.check(scene(WAF, [infantry, tank], objectives=objective))["objectives"]["o"]
    assert contested["controlled_by"] is None
    assert contested["contested"] is True
    alone_tank = api.check(scene(WAF, [tank], objectives=objective))["objectives"]["o"]
    assert alone_tank["controlled_by"] is None
    unique = api.check(scene(WAF, [{**infantry, "unique": True}], objectives=objective))["objectives"]["o"]
    assert unique["controlled_by"] is None


# waf.deploy.breakthrough: short edges, within 30 cm, inclusive, whole base.
@pytest.mark.parametrize(("x", "inside"), [(30 - 1.6, True), (30 - 1.59, False)])
def test_breakthrough_zone_30_cm(x: float, inside: bool) -> None:
    s = scene(
        WAF,
        [base(x, 60, "a")],
        phase="deployment",
        deployment={"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
    )
    assert api.check(s)["models"]["a"]["in_deployment_zone"] is inside
    assert api.deployment_zones(s)["blue"][0][0] in (
        [183.0, 0.0],
        [153.0, 0.0],
        [183.0, 122.0],
        [153.0, 122.0],
    )


def test_ambush_zone_is_along_the_long_edge() -> None:
    s = scene(
        WAF,
        [base(100, 122 - 28.4, "a"), base(100, 80, "b")],
        phase="deployment",
        deployment={"kind": "ambush", "sides": {"red": "bottom", "blue": "top"}},
    )
    models = api.check(s)["models"]
    assert models["a"]["in_deployment_zone"] and not models["b"]["in_deployment_zone"]


# waf.deploy.diversion: a 30x30 corner square in the side's quarter.
@pytest.mark.parametrize(("x", "y", "inside"), [(28, 28, True), (28, 40, False), (150, 100, False)])
def test_diversion_corner_square(x: float, y: float, inside: bool) -> None:
    s = scene(
        WAF,
        [base(x, y, "a")],
        phase="deployment",
        deployment={"kind": "diversion", "sides": {"red": "top-left", "blue": "bottom-right"}},
    )
    assert api.check(s)["models"]["a"]["in_deployment_zone"] is inside


def test_move_in_deployment_phase_outside_zone() -> None:
    deployment = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}
    report = moved(WAF, [base(10, 30, "a")], [base(24, 30, "a")], phase="deployment", deployment=deployment)[
        "a"
    ]
    assert report["legal"]
    out = moved(WAF, [base(20, 30, "a")], [base(34, 30, "a")], phase="deployment", deployment=deployment)["a"]
    assert "outside_deployment_zone" in codes(out)


# waf.coherency.regroup: a move that leaves the unit split is breaks_coherency.
def test_move_that_splits_the_unit_breaks_coherency() -> None:
    before = [base(20, 30, "a"), base(26, 30, "b")]
    report = moved(WAF, before, [base(20, 30, "a"), base(38, 30, "b")])["b"]
    assert "breaks_coherency" in codes(report)


def test_off_table_and_impassable_terrain() -> None:
    lake = {"id": "l", "kind": "water", "polygon_cm": [[40, 20], [60, 20], [60, 40], [40, 40]]}
    report = moved(
        WAF, [base(5, 30, "a"), base(35, 30, "b")], [base(-2, 30, "a"), base(45, 30, "b")], terrain=[lake]
    )
    assert "off_table" in codes(report["a"])
    assert "impassable_terrain" in codes(report["b"])


# waf.move.aircraft: straight forward 60-110 cm after a turn of up to 90 deg.
@pytest.mark.parametrize(
    ("distance", "code"), [(59.99, "too_short"), (60.0, None), (110.0, None), (110.01, "too_far")]
)
def test_aircraft_flies_60_to_110_cm(distance: float, code: str | None) -> None:
    plane = base(20, 60, "p", type="aircraft", diameter_mm=65, heading_deg=0.0)
    report = moved(WAF, [plane], [{**plane, "x_cm": 20 + distance}])["p"]
    assert codes(report) == ([code] if code else [])


@pytest.mark.parametrize(("turn", "legal"), [(90.0, True), (91.0, False)])
def test_aircraft_turns_up_to_90_deg_before_moving(turn: float, legal: bool) -> None:
    import math

    plane = base(90, 20, "p", type="aircraft", diameter_mm=65, heading_deg=0.0)
    angle = math.radians(turn)
    after = {
        **plane,
        "x_cm": 90 + 80 * math.cos(angle),
        "y_cm": 20 + 80 * math.sin(angle),
        "heading_deg": turn,
    }
    assert moved(WAF, [plane], [after])["p"]["legal"] is legal


def test_aircraft_must_end_facing_its_travel_and_pay_for_altitude() -> None:
    plane = base(20, 60, "p", type="aircraft", diameter_mm=65, heading_deg=0.0, altitude=1)
    skewed = moved(WAF, [plane], [{**plane, "x_cm": 100, "heading_deg": 45.0}])["p"]
    assert "not_straight_ahead" in codes(skewed)
    climbing = moved(WAF, [plane], [{**plane, "x_cm": 90, "altitude": 2}])["p"]
    assert climbing["allowance_cm"] == 60.0
    assert "too_far" in codes(climbing)


# waf.aircraft.separation: not closer than 5 cm to an enemy aircraft (+50 cm at different altitudes).
@pytest.mark.parametrize(("gap", "altitude", "legal"), [(5.0, 1, True), (4.99, 1, False), (4.99, 2, True)])
def test_aircraft_separation(gap: float, altitude: int, legal: bool) -> None:
    enemy = base(
        150, 60, "e", side="blue", type="aircraft", diameter_mm=65, heading_deg=180.0, altitude=altitude
    )
    plane = base(60, 60, "p", type="aircraft", diameter_mm=65, heading_deg=0.0, altitude=1)
    after = {**plane, "x_cm": 150 - 6.5 - gap}
    assert moved(WAF, [plane, enemy], [after, enemy])["p"]["legal"] is legal


def test_moving_through_a_model_it_starts_touching_is_caught() -> None:
    wall_of_friends = [base(30, 30 + 3.3 * k, f"f{k}", unit="red-2") for k in range(-8, 9)]
    report = moved(WAF, [base(26.8, 30, "a"), *wall_of_friends], [base(33.2, 30, "a"), *wall_of_friends])["a"]
    assert "passes_through_model" in codes(report)


def test_stepping_away_from_a_touching_model_is_legal() -> None:
    friend = base(30, 30, "f", unit="red-2")
    report = moved(WAF, [base(26.8, 30, "a"), friend], [base(26.8, 40, "a"), friend])["a"]
    assert report["legal"], report


# waf.table.sizes, waf.base.small / large / none, waf.objective.marker.
def test_table_and_base_sizes() -> None:
    models = [
        base(20, 30, "a"),
        base(40, 30, "b", diameter_mm=40),
        {**base(60, 30, "t"), "type": "vehicle"},
        base(80, 30, "team", diameter_mm=65),
    ]
    report = api.check(
        scene(WAF, models, objectives=[{"id": "o", "x_cm": 90, "y_cm": 90, "diameter_mm": 50}])
    )
    assert report["table"]["standard"] is True
    assert set(report["bases"]) == {"b", "t", "o"}
    odd = api.check(scene(WAF, [base(20, 30, "a")], width=150.0, depth=100.0))
    assert odd["table"]["standard"] is False


# waf.aircraft.must_move: a stationary aircraft is listed under not_moved (heavy bombers exempt).
def test_aircraft_must_move() -> None:
    plane = base(20, 60, "p", type="aircraft", diameter_mm=65, heading_deg=0.0)
    bomber = base(90, 60, "b", type="aircraft", diameter_mm=65, heading_deg=0.0, flags=["heavy_bomber"])
    first = api.parse_scene(scene_data(WAF, [plane, bomber]))
    result = api.move(first, api.parse_scene(scene_data(WAF, [plane, bomber])))
    assert result["models"] == {}
    assert [r["code"] for r in result["not_moved"]["p"]] == ["did_not_move"]
    assert "b" not in result["not_moved"]


# waf.phase.order and waf.dash: a move in the shooting phase is a Dash of the dice total.
@pytest.mark.parametrize(("dash", "distance", "legal"), [(9, 9.0, True), (9, 9.01, False)])
def test_move_in_shooting_phase_is_a_dash(dash: float, distance: float, legal: bool) -> None:
    report = moved(WAF, [base(20, 30, "a")], [base(20 + distance, 30, "a", dash=dash)], phase="shooting")["a"]
    assert report["allowance_cm"] == dash
    assert report["legal"] is legal
    unknown = moved(WAF, [base(20, 30, "a")], [base(30, 30, "a")], phase="shooting")["a"]
    assert unknown["allowance_cm"] is None


# waf.move.cavalry.trench, waf.move.heavy_gun.obstacles, waf.move.vehicle.obstacle: who crosses a trench.
@pytest.mark.parametrize(
    ("model", "blocked"),
    [
        (base(90, 60, "m", type="cavalry", diameter_mm=65), True),
        (hull(90, 60, "m", side="red", type="heavy_gun", length_mm=40, width_mm=30), True),
        (hull(90, 60, "m", side="red", chassis="wheeled", length_mm=60, width_mm=30), True),
        (hull(90, 60, "m", side="red", chassis="tracked", length_mm=60, width_mm=30), False),
        (base(90, 60, "m"), False),
    ],
)
def test_trench_crossing(model: dict, blocked: bool) -> None:
    trench = {"id": "tr", "kind": "trench", "polygon_cm": [[96, 0], [97, 0], [97, 122], [96, 122]]}
    report = moved(WAF, [model], [{**model, "x_cm": 100}], terrain=[trench])["m"]
    assert ("impassable_terrain" in codes(report)) is blocked


# waf.coherency.team_weapon: a 65 mm heavy-weapon team keeps the infantry unit's coherency.
@pytest.mark.parametrize(("gap", "coherent"), [(4.99, True), (5.0, False)])
def test_team_weapon_in_infantry_coherency(gap: float, coherent: bool) -> None:
    s = scene(WAF, [base(20, 30, "a"), base(20 + 1.6 + 3.25 + gap, 30, "team", diameter_mm=65)])
    assert api.check(s)["units"]["red-1"]["coherent"] is coherent


def test_placing_a_model_during_deployment_has_no_allowance() -> None:
    deployment = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}
    report = moved(WAF, [base(100, 30, "a")], [base(20, 30, "a")], phase="deployment", deployment=deployment)[
        "a"
    ]
    assert report["allowance_cm"] is None
    assert report["legal"], report


# waf.move.infantry.gap: a 32 mm base passes only through a gap of at least 32 mm between impassable pieces.
@pytest.mark.parametrize(("gap_cm", "passes"), [(3.3, True), (3.1, False)])
def test_base_passes_only_through_a_wide_enough_gap(gap_cm: float, passes: bool) -> None:
    top = {
        "id": "w1",
        "kind": "impassable",
        "polygon_cm": [[28, 0], [32, 0], [32, 30 - gap_cm / 2], [28, 30 - gap_cm / 2]],
    }
    bottom = {
        "id": "w2",
        "kind": "impassable",
        "polygon_cm": [[28, 30 + gap_cm / 2], [32, 30 + gap_cm / 2], [32, 122], [28, 122]],
    }
    report = moved(WAF, [base(22, 30, "a")], [base(36, 30, "a")], terrain=[top, bottom])["a"]
    assert report["legal"] is passes


def test_deployment_phase_without_a_deployment_says_so() -> None:
    report = api.check(scene(WAF, [base(20, 30, "a")], phase="deployment"))["models"]["a"]
    assert report["in_deployment_zone"] is None and "no deployment" in report["problems"][0]


def test_breakthrough_on_a_long_edge_is_flagged() -> None:
    s = scene(WAF, [base(20, 20, "a")], deployment={"kind": "breakthrough", "sides": {"red": "top"}})
    assert "short edges" in api.check(s)["deployment"]["warnings"][0]


# waf.move.cavalry.mount: dismounting or mounting costs 5 of the 15 cm; mounting ends in base contact.
@pytest.mark.parametrize(("distance", "legal"), [(10.0, True), (10.01, False)])
def test_dismounted_rider_has_10_cm_left(distance: float, legal: bool) -> None:
    report = moved(WAF, [base(20, 30, "r")], [base(20 + distance, 30, "r", flags=["dismounted"])])["r"]
    assert report["allowance_cm"] == 10.0 and report["legal"] is legal


def test_mounting_needs_base_contact() -> None:
    horse = base(40, 30, "h", unit="horses", type="cavalry", diameter_mm=65)
    touching = base(40 - 3.25 - 1.6, 30, "s", flags=["mounting"])
    apart = base(40, 40, "t", unit="red-2", flags=["mounting"])
    mount = api.check(scene(WAF, [horse, touching, apart]))["proximity"]["mount"]
    assert mount["s"]["met"] and not mount["t"]["met"]


# waf.move.tow: tug wounds (+2 tracked) at least twice the towed model's: 30 cm, at least equal: 15 cm.
@pytest.mark.parametrize(
    ("tug_wounds", "towed_wounds", "allowance"), [(2, 2, 30.0), (1, 2, 15.0), (0, 3, 0.0)]
)
def test_tow_allowance(tug_wounds: int, towed_wounds: int, allowance: float) -> None:
    tug = hull(60, 60, "tug", side="red", unit="tug", chassis="tracked", wounds=tug_wounds, towing="gun")
    gun = hull(
        45,
        60,
        "gun",
        side="red",
        unit="gun",
        type="heavy_gun",
        length_mm=50,
        width_mm=40,
        wounds=towed_wounds,
    )
    report = moved(WAF, [tug, gun], [{**tug, "x_cm": 70}, {**gun, "x_cm": 55}])
    assert report["tug"]["allowance_cm"] == allowance
    assert report["gun"]["allowance_cm"] == allowance


def test_vehicle_drives_round_a_base_or_through_a_line_of_them() -> None:
    lone = base(100, 60, "f", unit="red-2")
    tank = hull(85, 60, "t", side="red", unit="tanks", length_mm=60, width_mm=30)
    around = moved(WAF, [tank, lone], [{**tank, "x_cm": 112}, lone])["t"]
    assert around["legal"], around
    line = [base(100, 60 + 3.3 * k, f"f{k}", unit="red-2") for k in range(-12, 13)]
    through = moved(WAF, [tank, *line], [{**tank, "x_cm": 112}, *line])["t"]
    assert "passes_through_model" in codes(through)
