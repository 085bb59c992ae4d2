"""Nineteenth audit pass, second batch: World at Fire (seed 000) and Bronepehota (seed 004).

Each test cites the seed sentence it checks and failed before the fix it pins (a guard says so
where it holds a case the fix must not change); the sentence is translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene_data

WAF = "world-at-fire"
BP = "bronepehota"
HOUSE = {"id": "house", "kind": "building", "height_cm": 10,
         "polygon_cm": [[60, 40], [90, 40], [90, 80], [60, 80]]}


def move_report(ruleset: str, before: list[dict], after: list[dict]) -> dict:
    """The whole move report: `models` and, where a model had to move, `not_moved`."""
    first = api.parse_scene(scene_data(ruleset, before))
    return api.move(first, api.parse_scene(scene_data(ruleset, after), allow_off_table=True))


def test_waf_a_soldier_hanging_part_way_up_a_climb_must_stop_at_the_foot() -> None:
    """000: «Если расстояния движения в 15см не хватает чтобы подняться наверх конечной точки и
    отряд как бы зависает в воздухе посередине дороги, то отряд должен завершить движение у
    основания препятствия» (if the 15 cm is not enough to climb to the top and the unit as it were
    hangs in the air half-way, it must end its move at the foot of the obstacle). A sniper ending
    beside a 10 cm house at `z_cm` 5, standing on nothing, was legal (the 5 cm climb merely counted),
    and so was one 7 cm up in the open field. Now both are `too_far`; the one at the foot is legal."""
    report = moved(
        WAF,
        [base(50, 60, "a", unit="snipers"), base(50, 64, "b", unit="snipers")],
        [base(58.4, 60, "a", unit="snipers", z_cm=5), base(58.4, 64, "b", unit="snipers", z_cm=0)],
        terrain=[HOUSE],
    )
    assert codes(report["a"]) == ["too_far"]
    assert "foot" in report["a"]["reasons"][0]["detail"]
    assert report["b"]["legal"] is True
    open_field = moved(WAF, [base(50, 60, "a")], [base(52, 60, "a", z_cm=7)])["a"]
    assert codes(open_field) == ["too_far"]


def test_waf_a_mountain_trooper_may_hang_half_way() -> None:
    """000: «Исключением из этого правила являются горные стрелки – они могут “зависать” на полпути
    используя специальное оборудование» (mountain troops are the exception: they may 'hang'
    half-way with their gear). Guard: a model with the flag `mountain` half-way up the house's wall
    stays legal."""
    report = moved(
        WAF,
        [base(50, 60, "a", flags=["mountain"])],
        [base(58.4, 60, "a", z_cm=5, flags=["mountain"])],
        terrain=[HOUSE],
    )["a"]
    assert report["legal"] is True


@pytest.mark.parametrize(
    ("start", "end", "terrain", "others"),
    [
        # onto the house's roof, 5 cm walked + 10 cm climbed: the roof carries him
        ((55, 60, None), (60, 60, 10), [HOUSE], []),
        # on an upper floor inside the house, below its 10 cm top
        ((65, 60, None), (70, 60, 5), [HOUSE], []),
        # on a house whose height is not given: it may be that high
        ((65, 60, None), (70, 60, 8), [{**HOUSE, "height_cm": None}], []),
        # up a 6 cm hill's slope
        ((54, 60, None), (66, 60, 6), [{"id": "h", "kind": "hill", "height_cm": 6,
                                        "polygon_cm": [[60, 0], [140, 0], [140, 122], [60, 122]]}], []),
        # onto a friendly tank's hull («взобраться на танк»)
        ((45, 30, None), (52, 30, 6), [], [hull(60, 30, "t", side="red", unit="red-t", hull_height_cm=6)]),
    ],
)
def test_waf_a_soldier_standing_on_a_surface_is_not_hanging(
    start: tuple, end: tuple, terrain: list[dict], others: list[dict]
) -> None:
    """000: «Подняться дальше на следующие этажи, взобраться на танк или бункер ... бойцы могут по
    такой же схеме» (climbing to the next floors or onto a tank follows the same scheme). Guard: a
    soldier who ends on a roof, a floor, a hill or a hull has something under him and hangs nowhere."""
    (x0, y0, z0), (x1, y1, z1) = start, end
    before = [base(x0, y0, "a", z_cm=z0), *others]
    after = [base(x1, y1, "a", z_cm=z1), *others]
    report = moved(WAF, before, after, terrain=terrain)["a"]
    assert "too_far" not in codes(report), report


def test_other_rulesets_have_no_hanging_rule() -> None:
    """Guard: only World at Fire's seed has the rule, and only for a climbing soldier: a Bronepehota
    jumper landing 5 cm up over nothing is judged by its jump alone (that seed has no such rule)."""
    report = moved(BP, [base(20, 30, "a", z_cm=0.0)], [base(25, 30, "a", z_cm=5.0, jump_range=5)])["a"]
    assert report["legal"] is True


def test_bp_a_panicked_infantryman_who_did_not_run_is_reported() -> None:
    """004: «Паникующий пехотинец ... передвигается на расстояние, равное его скорости («Ск»), в
    направлении ближайшей границы игрового поля» (a panicked infantryman moves his speed towards the
    nearest table edge): the run is not optional. A panicked p who stood still was in neither
    `models` nor `not_moved`; now he is under `not_moved` with `did_not_move`, as World at Fire's
    planes. His side's vehicle whose pilot panicked (flag `panicked`, held still by the ruleset:
    «фигурка пилота предварительно вынимается из машины») is not reported."""
    runner = base(30, 60, "p", unit="A", flags=["panicked"], speed=4)
    vehicle = hull(60, 90, "v", side="red", unit="V", flags=["panicked"], speed=6)
    other = base(50, 50, "x", unit="X")
    report = move_report(BP, [runner, vehicle, other], [runner, vehicle, {**other, "x_cm": 52}])
    assert list(report["not_moved"]) == ["p"]
    assert [r["code"] for r in report["not_moved"]["p"]] == ["did_not_move"]
    ran = move_report(BP, [runner, vehicle, other], [{**runner, "x_cm": 20}, vehicle, other])
    assert "not_moved" not in ran
    assert ran["models"]["p"]["legal"] is True


def test_bp_a_gun_or_a_pilotless_vehicle_does_not_see_a_sudden_attack() -> None:
    """004: «Если пехотинец или боевая машина атакует противника с тыла, то защищающийся пехотинец
    или пилот атакуемой машины «не видит» атаки» (attacked from behind, the defending infantryman or
    the attacked vehicle's pilot does not see it). A gun and a pilotless vehicle touched from behind
    were listed in `sudden_attack_on`; they have no one to see, so now they are in `contacts` only,
    while a piloted vehicle and an infantryman touched from behind still are."""
    gun = hull(30, 20, "g", side="blue", unit="G", type="gun", length_mm=40, width_mm=40)
    empty = hull(30, 60, "v", side="blue", unit="V", length_mm=100, width_mm=50, flags=["pilotless"])
    piloted = hull(30, 100, "w", side="blue", unit="W", length_mm=100, width_mm=50)
    soldier = base(80, 20, "s", side="blue", unit="S", heading_deg=0)
    attackers = [base(10, y, f"a{y}", unit=f"A{y}", speed=10) for y in (20, 60, 100)]
    attackers.append(base(60, 20, "a0", unit="A0", speed=10))
    ends = [{**attackers[0], "x_cm": 26.4}, {**attackers[1], "x_cm": 23.4}, {**attackers[2], "x_cm": 23.4},
            {**attackers[3], "x_cm": 76.8}]
    report = moved(BP, [gun, empty, piloted, soldier, *attackers], [gun, empty, piloted, soldier, *ends])
    assert report["a20"]["contacts"] == ["g"] and "sudden_attack_on" not in report["a20"]
    assert report["a60"]["contacts"] == ["v"] and "sudden_attack_on" not in report["a60"]
    assert report["a100"]["sudden_attack_on"] == ["w"]
    assert report["a0"]["sudden_attack_on"] == ["s"]


def test_waf_a_soldier_turning_on_the_spot_up_a_building_climbed_nothing() -> None:
    """A soldier 6 cm up, on a building 5 cm tall, who only turns: no climb in this move, so he
    hangs nowhere («...не хватает чтобы подняться наверх» is said of a climb). He was refused
    `too_far` having moved 0 cm."""
    building = {"id": "b", "kind": "building", "height_cm": 5,
                "polygon_cm": [[40, 40], [60, 40], [60, 60], [40, 60]]}
    before = [base(50, 50, "a", z_cm=6.0, heading_deg=0)]
    after = [base(50, 50, "a", z_cm=6.0, heading_deg=90)]
    assert moved(WAF, before, after, terrain=[building]).get("a", {"legal": True})["legal"] is True


def test_waf_a_soldier_whose_rim_only_touches_a_wall_stands_on_nothing() -> None:
    """A soldier beside a 6 cm wall, his rim touching it, given 6 cm of height: the wall is not
    under him, so he hangs beside it and must stop at its foot."""
    wall = {"id": "w", "kind": "wall", "height_cm": 6, "polygon_cm": [[40, 0], [41, 0], [41, 122], [40, 122]]}
    before = [base(35, 50, "a", z_cm=0.0)]
    after = [base(38.45, 50, "a", z_cm=6.0)]
    assert codes(moved(WAF, before, after, terrain=[wall])["a"]) == ["too_far"]
