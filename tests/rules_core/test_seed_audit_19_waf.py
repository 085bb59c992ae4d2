"""Nineteenth audit pass, World at Fire (seed 000_fbd54806241f1c8c.txt).

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, moved, scene

WAF = "world-at-fire"
HILL = {"id": "h", "kind": "hill", "height_cm": 6, "polygon_cm": [[60, 0], [140, 0], [140, 122], [60, 122]]}


@pytest.mark.parametrize(
    ("kind", "diameter_mm", "start_x", "end_x"),
    [
        ("infantry", 32, 54, 66),
        ("infantry", 65, 55, 64),
        ("cavalry", 65, 40, 65),
        ("motorbike", 65, 40, 65),
        ("heavy_gun", 0, 55, 65),
    ],
)
def test_waf_walking_up_a_hill_is_no_climb(
    kind: str, diameter_mm: float, start_x: float, end_x: float
) -> None:
    """F1: «Для того чтобы преодолеть препятствие равное или выше 5 сантиметров отряду необходимо
    отмерить полное расстояние до верха препятствия» (to overcome an *obstacle* of 5 cm or more the
    unit measures the full distance to its top); cavalry «не может взбираться по стенам, лестницам,
    этажам зданий и прочим препятствиям выше 5 сантиметров», motorcycles none «выше колеса
    мотоцикла». A hill is no obstacle: a model walking up a 6 cm hill (`z_cm` 6 on it) paid 6 cm
    (infantry: 12 + 6 = 18 of 15) or was `impassable_terrain` (65 mm team, cavalry, motorcycle),
    while the same move without `z_cm` was legal. Now every type walks up it."""
    if kind == "heavy_gun":
        model = {"base": {"shape": "rect", "length_mm": 40, "width_mm": 30}, "heading_deg": 0}
        before = [base(start_x, 60, "m", type=kind) | model]
        after = [base(end_x, 60, "m", type=kind, z_cm=6) | model]
    else:
        before = [base(start_x, 60, "m", type=kind, diameter_mm=diameter_mm)]
        after = [base(end_x, 60, "m", type=kind, diameter_mm=diameter_mm, z_cm=6)]
    entry = moved(WAF, before, after, terrain=[HILL])["m"]
    assert entry["legal"], entry["reasons"]
    assert "climb_cm" not in entry


@pytest.mark.parametrize(("kind", "diameter_mm"), [("infantry", 32), ("cavalry", 65), ("motorbike", 65)])
def test_waf_down_a_hill_is_no_climb_either(kind: str, diameter_mm: float) -> None:
    """F1: the way down a hill's slope is no «спуститься» from an obstacle either: from the hilltop
    (`z_cm` 6) down to the ground, 12 cm for infantry and 25 cm for horse and motorcycle."""
    far = 12 if kind == "infantry" else 25
    before = [base(70, 60, "m", type=kind, diameter_mm=diameter_mm, z_cm=6)]
    after = [base(70 - far, 60, "m", type=kind, diameter_mm=diameter_mm)]
    entry = moved(WAF, before, after, terrain=[HILL])["m"]
    assert entry["legal"], entry["reasons"]


def test_waf_a_wall_still_costs_its_climb_and_a_building_on_a_hill_is_still_a_floor() -> None:
    """F1: the obstacle rule is unchanged: «равное или выше 5 сантиметров ... отмерить полное
    расстояние до верха препятствия». Infantry going onto a 6 cm wall at its top pays the 6 cm
    (10 + 6 = 16 of 15), on a hill or not; cavalry onto a 6 cm building standing on a hill is
    still refused («не может взбираться по ... этажам зданий ... выше 5 сантиметров»); and infantry
    crossing a 6 cm wall on the way up the hill still pays for it."""
    wall = {"id": "w", "kind": "wall", "height_cm": 6, "polygon_cm": [[64, 0], [66, 0], [66, 122], [64, 122]]}
    for terrain in ([wall], [HILL, wall]):
        entry = moved(WAF, [base(55, 60, "a")], [base(65, 60, "a", z_cm=6)], terrain=terrain)["a"]
        assert "too_far" in codes(entry) and entry["climb_cm"] == pytest.approx(6)
    house = {"id": "b", "kind": "building", "height_cm": 6}
    house["polygon_cm"] = [[80, 40], [100, 40], [100, 80], [80, 80]]
    ride = moved(
        WAF,
        [base(70, 60, "c", type="cavalry", diameter_mm=65)],
        [base(90, 60, "c", type="cavalry", diameter_mm=65, z_cm=12)],
        terrain=[HILL, house],
    )["c"]
    assert "impassable_terrain" in codes(ride)
    over = moved(WAF, [base(55, 60, "a")], [base(68, 60, "a", z_cm=6)], terrain=[HILL, wall])["a"]
    assert "too_far" in codes(over) and over["climb_cm"] == pytest.approx(6)


@pytest.mark.parametrize(("kind", "start_x", "end_x", "code"), [("infantry", 45, 58, "too_far"),
                                                            ("cavalry", 40, 60, "impassable_terrain")])
def test_waf_from_a_hill_up_to_a_ruins_floor_is_still_a_climb(kind: str, start_x: float, end_x: float,
                                                               code: str) -> None:
    """The seed's own climb: «отряд снайперов хочет войти в развалины дома и подняться на второй
    этаж, высота этажа 10см» (a squad goes into a ruin and up to its second floor, 10 cm up), and
    cavalry «не может взбираться по ... этажам зданий ... выше 5 сантиметров». A move from a hill
    to a ruin's floor 10 cm up was free as a walk up the hill: it costs its 10 cm, and a horse may
    not make it."""
    hill = {"id": "h", "kind": "hill", "polygon_cm": [[0, 0], [50, 0], [50, 50], [0, 50]]}
    ruin = {"id": "r", "kind": "ruins", "polygon_cm": [[52, 0], [70, 0], [70, 50], [52, 50]]}
    size = 32 if kind == "infantry" else 65
    before = [base(start_x, 20, "a", type=kind, diameter_mm=size, z_cm=0.0)]
    after = [base(end_x, 20, "a", type=kind, diameter_mm=size, z_cm=10.0)]
    assert code in codes(moved(WAF, before, after, terrain=[hill, ruin])["a"])


@pytest.mark.parametrize(
    "weapon", ["machine_gun", "submachine_gun", "heavy_machine_gun", "anti_tank_rifle", "anti_aircraft_gun"]
)
def test_waf_the_seeds_machine_gun_is_a_weapon_name(weapon: str) -> None:
    """F4: «нельзя пользоваться никаким вооружением, кроме личного – только винтовки,
    пистолеты-пулеметы и пулеметы» (only rifles, submachine guns and machine guns), «тяжелые
    пулеметы ... противотанковые ружья», «зенитных орудий всех типов». A scene naming
    `machine_gun` exited 2 ("unknown weapon"); the seed gives no ranges, so it reaches no one."""
    shooter = base(20, 60, "a", weapons=["rifle", weapon])
    report = api.ranges(scene(WAF, [shooter, base(60, 60, "e", side="blue")]), "a")
    assert [(t["id"], t["weapons"]) for t in report["targets"]] == [("e", [])]


def test_waf_riders_taking_empty_horses_spend_5_cm_of_the_units_move() -> None:
    """F5: «В случае если в одном отряде наездники остались без своих ездовых животных, а животные
    потеряли своих наездников, то наездники могут занять пустующие места, затратив 5 см движения
    отряда» (riders may take the empty places, spending 5 cm of the unit's move). A cavalry model
    flagged `mounting` had its full 30 cm; now 25, and the unit moves at its slowest member."""
    before = [
        base(20, 60, "c1", unit="cav", type="cavalry", diameter_mm=65, flags=["mounting"]),
        base(20, 68, "c2", unit="cav", type="cavalry", diameter_mm=65),
    ]
    entries = moved(WAF, before, [m | {"x_cm": 50} for m in before])
    for rider in ("c1", "c2"):
        assert entries[rider]["allowance_cm"] == pytest.approx(25)
        assert "too_far" in codes(entries[rider])
    after_25 = [m | {"x_cm": 45} for m in before]
    assert all(entry["legal"] for entry in moved(WAF, before, after_25).values())


@pytest.mark.parametrize(("kind", "problem"), [("cavalry", True), ("motorbike", True), ("infantry", False)])
def test_waf_check_at_deployment_reports_a_rider_placed_in_a_trench(kind: str, problem: bool) -> None:
    """F8: a cavalry or motorcycle model «не может быть помещена в бункер или окоп» (may not be
    placed in a bunker or trench). `move` refused such a placement but `check` in the deployment
    phase gave `problems: []`; now it names the trench, as `move` does. The model still stands in
    its zone, so `in_deployment_zone` stays true; a foot soldier may stand in the trench."""
    trench = {"id": "tr", "kind": "trench", "polygon_cm": [[10, 40], [20, 40], [20, 80], [10, 80]]}
    diameter = 32 if kind == "infantry" else 65
    report = api.check(
        scene(
            WAF,
            [base(15, 60, "r", type=kind, diameter_mm=diameter), base(170, 60, "e", side="blue")],
            terrain=[trench],
            phase="deployment",
            deployment={"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
        )
    )["models"]
    assert report["r"]["in_deployment_zone"] is True
    assert bool(report["r"]["problems"]) is problem
    if problem:
        assert "trench tr" in report["r"]["problems"][0]
    assert report["e"]["problems"] == []


BREAKTHROUGH = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}


@pytest.mark.parametrize(
    "placed",
    [
        base(6.85, 60, "r", type="cavalry", diameter_mm=65),
        {"id": "r", "side": "red", "unit": "G", "type": "heavy_gun", "x_cm": 15, "y_cm": 60, "heading_deg": 0,
         "base": {"shape": "rect", "length_mm": 40, "width_mm": 30}},
    ],
    ids=["rider-touching-the-trench", "gun-set-in-the-trench"],
)
def test_waf_check_at_deployment_bans_only_the_placings_the_seed_bans(placed: dict) -> None:
    """The seed bans riders from trenches («не может быть помещена в бункер или окоп»), not every
    piece a type cannot move into: a gun «между этажами зданий во время игры передвигать вообще
    нельзя ... но можно разместить во время расстановки». A rider whose rim only touches a trench
    stands beside it, and a gun set down in one breaks no placing rule (both were reported)."""
    trench = {"id": "tr", "kind": "trench", "polygon_cm": [[10, 0], [20, 0], [20, 122], [10, 122]]}
    models = [placed, base(170, 60, "e", side="blue")]
    report = api.check(scene(WAF, models, terrain=[trench], phase="deployment", deployment=BREAKTHROUGH))
    assert report["models"]["r"]["problems"] == []


def test_waf_a_tank_set_against_a_wall_drives_away_at_full_speed() -> None:
    """A tank whose hull touches a 2 cm wall (the camera puts it half a millimetre in) drives
    25 cm away from it: it crosses no obstacle, so it keeps its 30 cm («машины ... 30 см»). A
    hull's contact with the wall was read as crossing it, as a round base's no longer is, and
    the tank was held to 15 cm."""
    corners = [[40, 64.95], [60, 64.95], [60, 66], [40, 66]]
    wall = {"id": "w", "kind": "wall", "height_cm": 2, "polygon_cm": corners}
    hull_mm = {"shape": "rect", "length_mm": 200, "width_mm": 100}
    tank = {"id": "t", "side": "red", "unit": "red-t", "type": "vehicle", "x_cm": 50, "y_cm": 60,
            "heading_deg": 0, "chassis": "tracked", "base": hull_mm}
    report = moved(WAF, [tank], [{**tank, "y_cm": 35}], terrain=[wall])["t"]
    assert report["legal"] and report["allowance_cm"] == 30
