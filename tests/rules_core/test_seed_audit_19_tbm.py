"""Nineteenth audit pass (Tankomaster, Bronepehota, Mobile Infantry) against the Russian seed texts.

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene

TM = "tankomaster"
BP = "bronepehota"
MI = "mobile-infantry"
TABLE = {"width_cm": 120, "depth_cm": 120}


def _piece(id: str, kind: str, x0: float, x1: float, y0: float, y1: float, **extra: object) -> dict:
    return {"id": id, "kind": kind, "polygon_cm": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], **extra}


# --- 1. touching a piece is not crossing it ------------------------------------------------------


@pytest.mark.parametrize(
    ("start_x", "end_x", "allowance"),
    [
        (22.5, 6.5, 16.0),  # base 0.1 cm into the fence (the contact tolerance), walks away
        (22.45, 6.45, 16.0),  # 0.05 cm into it, walks away
        (12.0, 22.45, 16.0),  # walks up to it, stops 0.05 cm into it
        (22.7, 6.7, 8.0),  # 0.3 cm into it: more than touching, still crossing
        (20.0, 30.0, 8.0),  # walks over it: crossing
    ],
)
def test_tm_a_soldier_touching_a_fence_does_not_cross_it(
    start_x: float, end_x: float, allowance: float
) -> None:
    """003: «Если в ходе движения оно пересекает какие-либо препятствия, то передвигается только на
    8 см» (if while moving it crosses any obstacle, it moves only 8 cm). A soldier whose base touches
    the fence within the camera's contact tolerance (0.1 cm) as he leaves it or walks up to it does
    not cross it: 16 cm (it was 8: any overlap counted). A base further into it, or a walk over it,
    still crosses."""
    fence = _piece("f1", "fence", 24, 24.5, 0, 70)
    report = moved(TM, [base(start_x, 10, "a")], [base(end_x, 10, "a")], terrain=[fence], table=TABLE)["a"]
    assert report["allowance_cm"] == allowance


def test_tm_a_soldier_brushing_along_a_fence_or_a_wood_does_not_cross_it() -> None:
    """003: «пересекает какие-либо препятствия» (crosses any obstacle): walking 16 cm alongside a
    fence or a wood's edge with the base overlapping it by 0.1 cm (within the contact tolerance)
    is no crossing: both legal (they were capped to 8 cm)."""
    fence = _piece("f1", "fence", 24, 24.5, 0, 70)
    wood = _piece("w1", "forest", 60, 90, 0, 60)
    before = [base(22.5, 10, "a", unit="r1"), base(58.5, 10, "b", unit="r2")]
    after = [base(22.5, 26, "a", unit="r1"), base(58.5, 26, "b", unit="r2")]
    report = moved(TM, before, after, terrain=[fence, wood], table=TABLE)
    assert report["a"]["legal"] is True and report["a"]["allowance_cm"] == 16.0
    assert report["b"]["legal"] is True and report["b"]["allowance_cm"] == 16.0


def test_tm_a_soldier_squeezing_through_a_gap_narrower_than_his_base_still_crosses() -> None:
    """003: «пересекает какие-либо препятствия»: the touching allowance is for a base that leaves,
    reaches or runs alongside a piece; one that passes mid-move through a 3.1 cm gap in a fence,
    overlapping each piece by 0.05 cm, still crosses it (8 cm), as before."""
    pieces = [_piece("f1", "fence", 24, 24.5, 0, 28.45), _piece("f2", "fence", 24, 24.5, 31.55, 70)]
    report = moved(TM, [base(20, 30, "a")], [base(30, 30, "a")], terrain=pieces, table=TABLE)["a"]
    assert report["allowance_cm"] == 8.0


def test_mi_a_trooper_against_a_two_storey_wall_may_walk_away_from_it() -> None:
    """001: «двухэтажные - не преодолимые (кроме реактивного прыжка)» (two-storey barriers cannot be
    crossed except by a jet jump): a trooper whose base touches a level-2 wall (0.05 cm into it)
    walking 84.5 mm away does not cross it (it was impassable_terrain); one walking through it
    still may not."""
    wall = _piece("w2", "wall", 30, 31, 0, 60, level=2)
    trooper = base(28.45, 10, "t1", type="trooper", speed=100)
    away = moved(MI, [trooper], [{**trooper, "x_cm": 20.0}], terrain=[wall], table=TABLE)["t1"]
    assert away["legal"] is True
    through = moved(MI, [trooper], [{**trooper, "x_cm": 35.0}], terrain=[wall], table=TABLE)["t1"]
    assert "impassable_terrain" in codes(through)


def test_bp_a_jump_away_from_a_wall_does_not_jump_over_it() -> None:
    """004: «высота препятствий, через которые (или на которые) может прыгнуть пехотинец» (the
    height of obstacles he jumps over or onto): a Пр5 jumper standing against a 7.5 cm wall (base
    0.05 cm into it) who jumps 4 steps straight away from it jumps over nothing, 4 + 0 <= 5 (it
    counted the wall: 10 + 7.5 cm > 12.5 cm)."""
    wall = _piece("wl", "wall", 30, 31, 0, 60, height_cm=7.5)
    jumper = base(28.45, 10, "j", jump_range=5)
    report = moved(BP, [jumper], [{**jumper, "x_cm": 18.45}], terrain=[wall], table=TABLE)["j"]
    assert report["legal"] is True
    over = moved(BP, [jumper], [{**jumper, "x_cm": 38.45}], terrain=[wall], table=TABLE)["j"]
    assert "too_far" in codes(over)


# --- 4. a pilotless vehicle does not drive -------------------------------------------------------


def test_bp_a_pilotless_vehicle_does_not_move() -> None:
    """004: «Если чья-либо боевая машина осталась без пилота, то игрок ... может захватить её, т.е.
    сделать этого пехотинца новым пилотом боевой машины ... Теперь эта машина - его новый юнит, и в
    следующем туре он смело может отправлять её в бой» (a vehicle left without a pilot may be
    captured; only then may its new pilot send it into battle). A pilotless vehicle driving 10 cm
    is too_far with allowance 0 (it was legal, 15 cm); with its pilot it goes."""
    vehicle = hull(40, 60, "v", side="red", length_mm=100, width_mm=50, speed=6, flags=["pilotless"])
    report = moved(BP, [vehicle], [{**vehicle, "x_cm": 50}], table=TABLE)["v"]
    assert report["allowance_cm"] == 0.0 and codes(report) == ["too_far"]
    piloted = {**vehicle, "flags": []}
    assert moved(BP, [piloted], [{**piloted, "x_cm": 50}], table=TABLE)["v"]["legal"] is True


def test_bp_a_helix_still_tows_a_pilotless_vehicle() -> None:
    """004: «боевая машина HELIX ... может буксировать другие боевые машины» (a HELIX may tow other
    vehicles): a pilotless vehicle towed behind its HELIX moves with it."""
    helix = hull(60, 50, "h", side="red", unit="helix", role="helix", length_mm=60, width_mm=40,
                 speed=4, towing="v")
    vehicle = hull(52, 50, "v", side="red", unit="wreck", length_mm=100, width_mm=40, flags=["pilotless"])
    report = moved(BP, [helix, vehicle], [{**helix, "x_cm": 65}, {**vehicle, "x_cm": 57}], table=TABLE)
    assert report["v"]["legal"] is True and report["h"]["legal"] is True


# --- 5. an ambush too close to the enemy ---------------------------------------------------------


@pytest.mark.parametrize("phase", ["deployment", "movement"])
def test_tm_an_ambush_too_close_to_the_enemy_is_too_close_to_enemy(phase: str) -> None:
    """003: «... и не может находиться ближе чем на 20 см к войскам противника» (and may not be
    closer than 20 cm to enemy troops): an ambush in a wood 16.8 cm from the enemy is refused as
    too_close_to_enemy, the contract's code for it (it was outside_deployment_zone); check still
    lists it under the model's deployment problems."""
    wood = _piece("wood", "forest", 0, 40, 20, 120)
    enemy = base(40, 30, "e", side="red", unit="red-1")
    extra = {"phase": phase, "deployment": {"kind": "ambush", "sides": {"blue": "left"}}, "terrain": [wood]}
    ambush = base(20, 30, "a", side="blue", unit="blue-1")
    # placed during the game it is new to the table; at deployment it is set down, then moved there
    before = [enemy] if phase == "movement" else [{**ambush, "y_cm": 80}, enemy]
    report = moved(TM, before, [ambush, enemy], **extra)["a"]
    assert codes(report) == ["too_close_to_enemy"]
    if phase == "deployment":
        checked = api.check(scene(TM, [ambush, enemy], **extra))["models"]["a"]
        assert checked["in_deployment_zone"] is False and "20 cm" in checked["problems"][0]


def test_tm_the_ambush_keep_away_is_its_own_problem() -> None:
    """003: «не может находиться ближе чем на 20 см к войскам противника»: the keep-away is judged
    apart from the zone and the rough terrain (deployment.too_close_to_enemy), so a move can name
    it too_close_to_enemy; at 20 cm it holds."""
    from rules_core.deployment import too_close_to_enemy

    wood = _piece("wood", "forest", 0, 40, 20, 50)
    deployment = {"kind": "ambush", "sides": {"blue": "left"}}
    extra = {"phase": "deployment", "deployment": deployment, "terrain": [wood]}
    for gap, close in [(16.8, True), (20.0, False)]:
        s = scene(TM, [base(20, 30, "a", side="blue"), base(20 + 3.2 + gap, 30, "e", side="red")], **extra)
        kind = s.ruleset.deployment.kinds["ambush"]
        assert bool(too_close_to_enemy(s, 0, kind)) is close


# --- 7. the seed's weapon names ------------------------------------------------------------------


@pytest.mark.parametrize("weapon", ["machine_gun", "submachine_gun", "hand_grenade"])
def test_tm_the_seeds_weapon_words_are_weapon_names(weapon: str) -> None:
    """003: «пулемет убитого может взять другой солдат» (another soldier may take a dead man's
    machine gun), «пистолет-пулемет - +2» (sub-machine gun +2), «14. РУЧНЫЕ ГРАНАТЫ» (hand
    grenades): a scene naming machine_gun, submachine_gun or hand_grenade is accepted, and the
    weapon reaches no one, as the seed has no fire table (it was a scene error, exit 2)."""
    s = scene(TM, [base(20, 20, "s", weapons=[weapon]), base(40, 20, "t", side="blue")])
    assert api.ranges(s, "s")["targets"][0]["weapons"] == []
