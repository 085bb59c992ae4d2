"""Session 66: an enemy walking through a waiting interceptor's fire zone and out the other side.

001 (Mobile Infantry), «Режим обороны, засады (перехват). После назначения данного приказа фигура
остается на своем месте до тех пор, пока в зоне ее эффективного огня по фронту не появляется фигура
противника (фронт отмечается на карточке фигуры). ... Активация приказа прерывает у вступившей в
зону эффективного огня фигуры 2 действие. В случае если фигура противника при этом не была
уничтожена, она может продолжать свое 2 действие» (ambush mode (interception): once the order is
given the figure stays where it is until an enemy figure appears in its effective fire zone to its
front (the front is marked on the figure's card) ... The order's activation interrupts the action of
the figure that entered the effective fire zone. If the enemy figure was not destroyed, it may go on
with its action). The order goes off where the enemy enters the zone, in the middle of its move, and
the enemy may walk on out of it; `check` (`interception.{id}.triggered_by`) sees only where it
stands, so the move entry names the interceptors whose zone the straight way entered.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rules_core import api, orders
from rules_core.footprints import Footprints
from rules_core.reach import reaches, weapons_of
from rules_core.reasons import angle_between
from rules_core.scene import ModelSpec
from rules_core.sight import sight_between
from tests.rules_core.builders import base, moved, scene, scene_data

MI = "mobile-infantry"

# A rifleman at (50, 60) facing +x: assault rifle 140 mm + 10 mm tolerance, edge to edge, so a
# 32 mm bug is in his fire zone up to 15 cm + 3.2 cm = 18.2 cm centre to centre, in the front half.
_RIFLEMAN = base(
    50, 60, "r1", type="trooper", weapons=["assault_rifle"], order="interception", heading_deg=0.0
)


def _bug_walk(
    x: float, from_y: float = 56.0, to_y: float = 64.0, others: list | None = None, **extra: object
) -> dict:
    """The move entry of a bug walking along x from `from_y` to `to_y` past the rifleman."""
    bug = base(x, from_y, "b1", side="blue", type="bug")
    still = [_RIFLEMAN, *(others or [])]
    return moved(MI, [*still, bug], [*still, {**bug, "y_cm": to_y}], **extra)["b1"]


def _triggered(x: float, y: float, **extra) -> list[str]:
    """`check`'s reading: the enemies in the rifleman's zone where they stand."""
    report = api.check(scene(MI, [_RIFLEMAN, base(x, y, "b1", side="blue", type="bug")], **extra))
    return report["interception"]["r1"]["triggered_by"]


def test_mi_a_bug_walking_through_the_riflemans_fire_zone_and_out_sets_the_interception_off() -> None:
    """A bug 18 cm ahead walks 8 cm across the rifleman's front: 15.24 cm (base edges) from him
    where it starts and where it stops, out of reach, 14.8 cm half way, within it. The order went
    off as it entered; `check` on either scene sees nothing."""
    assert _triggered(68.0, 56.0) == [] and _triggered(68.0, 64.0) == []
    entry = _bug_walk(68.0)
    assert entry["intercepted_by"] == ["r1"]
    assert entry["legal"]


@pytest.mark.parametrize(
    ("x", "y_from", "y_to"),
    [(68.3, 56.0, 64.0), (40.0, 56.0, 64.0)],
    ids=["just-out-of-range", "behind-the-front"],
)
def test_mi_a_bug_passing_outside_the_range_or_behind_the_front_sets_nothing_off(
    x: float, y_from: float, y_to: float
) -> None:
    """«в зоне ее эффективного огня по фронту»: 15.1 cm at its nearest is out of the rifle's reach;
    10 cm off but behind him (the front is the front half, `front_arc_deg` 180), within reach all
    the way, is not in front."""
    assert _bug_walk(x, y_from, y_to)["intercepted_by"] == []


@pytest.mark.parametrize(
    ("building_y", "listed"),
    [((40.0, 80.0), False), ((58.4, 61.6), True)],
    ids=["hidden-all-the-way", "hidden-only-half-way"],
)
def test_mi_a_bug_seen_on_its_way_only_where_no_building_hides_it(
    building_y: tuple[float, float], listed: bool
) -> None:
    """Fire needs a direct line of sight (mi.fire.los), so the zone does too. A bug 17.5 cm ahead
    walks 10.4 cm across his front, in reach for its middle 10 cm: a building between them all
    along hides it; one hiding only the middle of the way (where it comes nearest) leaves it seen
    in reach on either side, so the order goes off there."""
    low, high = building_y
    building = {"id": "h1", "kind": "building", "polygon_cm": [[58, low], [59, low], [59, high], [58, high]]}
    assert _triggered(67.5, 54.8, terrain=[building]) == [] == _triggered(67.5, 65.2, terrain=[building])
    entry = _bug_walk(67.5, 54.8, 65.2, terrain=[building])
    assert entry["intercepted_by"] == (["r1"] if listed else [])
    assert entry["legal"]


def test_mi_an_interceptor_in_contact_with_the_enemy_sets_nothing_off() -> None:
    """«В непосредственном соприкосновении с противником ... перехват не может назначается» (in
    direct contact with the enemy interception cannot be given): a rifleman touching a bug at
    his back has no order standing, so a second bug walking through his zone sets nothing off."""
    touching = base(46.8, 60, "b2", side="blue", unit="blue-2", type="bug")
    assert _bug_walk(68.0, others=[touching])["intercepted_by"] == []


def test_mi_a_friendly_trooper_walking_through_sets_nothing_off() -> None:
    """Only «фигура противника» sets the order off."""
    mate = base(68.0, 56.0, "r2", type="trooper", unit="red-2", speed=10)
    report = moved(MI, [_RIFLEMAN, mate], [_RIFLEMAN, {**mate, "y_cm": 64.0}])
    assert report["r2"]["intercepted_by"] == []


def test_mi_a_move_with_no_interceptor_in_the_scene_has_no_interception_field() -> None:
    """No interceptor on the table: the move entry stays as it was."""
    trooper = {key: value for key, value in _RIFLEMAN.items() if key != "order"}
    bug = base(68.0, 56.0, "b1", side="blue", type="bug")
    report = moved(MI, [trooper, bug], [trooper, {**bug, "y_cm": 64.0}])
    assert "intercepted_by" not in report["b1"]


def test_mi_a_rifleman_whose_zone_a_bug_walked_through_may_act() -> None:
    """«Данный приказ позволяет производить любые действия после его активации» (once set off, the
    order allows any action): the bug that walked through his zone and out set it off, so the
    rifleman stepping 3 cm is no longer held where he waited (allowance 0 while the order stands)."""
    rifleman = {**_RIFLEMAN, "speed": 100}
    bug = base(68.0, 56.0, "b1", side="blue", type="bug")
    report = moved(MI, [rifleman, bug], [{**rifleman, "y_cm": 63.0}, {**bug, "y_cm": 64.0}])
    assert report["r1"]["legal"]
    far = {**bug, "x_cm": 68.3}
    out_of_reach = moved(MI, [rifleman, far], [{**rifleman, "y_cm": 63.0}, {**far, "y_cm": 64.0}])
    assert not out_of_reach["r1"]["legal"]


def _counting_reaches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the range readings the interception zone makes, one entry a call."""
    calls: list[int] = []

    def counted(*args: object, **kwargs: object) -> bool:
        calls.append(1)
        return reaches(*args, **kwargs)

    monkeypatch.setattr(orders, "reaches", counted)
    return calls


def test_mi_a_bug_walking_far_out_of_every_weapons_reach_is_not_read_stop_by_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bug walking 70 cm across the rifleman's front a metre away never comes within his
    rifle's 15 cm (+3.5 cm a level, +3.5 cm aimed): no stop of its way is worth a range reading
    (a move of 40 bugs past 20 riflemen read every 5 mm stop against every rifleman, 4 s)."""
    bug = base(150.0, 130.0, "b1", side="blue", type="bug")
    scene_after = api.parse_scene(
        scene_data(MI, [_RIFLEMAN, bug], width=244, depth=183), allow_off_table=True
    )
    calls = _counting_reaches(monkeypatch)
    assert orders.intercepted_on_the_way(scene_after, scene_after.models[1], (150.0, 60.0), [0]) == []
    assert calls == []


def _brute_force_zone(scene: api.Scene, i: int, target: ModelSpec) -> bool:
    """The front fire zone read the long way, for one target: the arc, then every weapon's reach."""
    model = scene.models[i]
    bearing = math.degrees(math.atan2(target.y_cm - model.y_cm, target.x_cm - model.x_cm))
    if angle_between(bearing, model.heading_deg) > scene.ruleset.interception.front_arc_deg / 2 + 1e-6:
        return False
    edge = float(Footprints.of_models([model, target]).edge(0, 1))
    seen = bool(sight_between(scene, scene.xy[[i]], np.array([[target.x_cm, target.y_cm]]))[0, 0])
    weapons = [scene.ruleset.weapon(name) for name in weapons_of(scene, i)]
    return any(reaches(scene, weapon, edge, model, target, seen) for weapon in weapons)


def _random_battle(rng: np.random.Generator) -> tuple[list[dict], list[dict], list[dict]]:
    """Riflemen, gunners and grenadiers facing every way, some up a level or aiming, and bugs
    (some on a hill, a quarter of them long hulls) walking every way among them, a building hiding
    some of it."""
    arms = [["assault_rifle"], ["shotgun"], ["flamethrower"], ["grenade"], ["lmg"], ["pistol", "grenade"]]
    interceptors = [
        base(
            float(rng.uniform(20, 160)), float(rng.uniform(20, 100)), f"r{k}", unit=f"red-{k}",
            type="trooper", weapons=arms[rng.integers(len(arms))], order="interception",
            heading_deg=float(rng.uniform(-180, 180)),
            **({"level": 1} if rng.random() < 0.3 else {}),
            **({"flags": ["aimed"]} if rng.random() < 0.3 else {}),
        )
        for k in range(24)
    ]
    bugs_before, bugs_after = [], []
    for k in range(30):
        x, y = rng.uniform(10, 170), rng.uniform(10, 110)
        angle, walk = rng.uniform(0, 2 * math.pi), rng.uniform(0, 40)
        hull = {"base": {"shape": "rect", "length_mm": 60, "width_mm": 30}, "heading_deg": angle * 57.3}
        shape = hull if k % 4 == 0 else {}
        bug = base(float(x), float(y), f"b{k}", side="blue", unit=f"blue-{k}", type="bug", **shape)
        bugs_before.append(bug)
        end = {"x_cm": float(x + walk * math.cos(angle)), "y_cm": float(y + walk * math.sin(angle))}
        bugs_after.append({**bug, **end})
    terrain = [
        {"id": "hill", "kind": "hill", "level": 1, "polygon_cm": [[60, 30], [110, 30], [110, 70], [60, 70]]},
        {"id": "house", "kind": "building", "polygon_cm": [[120, 50], [126, 50], [126, 90], [120, 90]]},
    ]
    return [*interceptors, *bugs_before], [*interceptors, *bugs_after], terrain


def test_mi_the_interceptions_on_the_way_are_those_a_stop_by_stop_reading_finds() -> None:
    """The cheap first reading (`may_be_in_front_fire`) only spares work: on a random battle the
    interceptors each bug's way is read to enter, and the bugs `check` reads in each zone, are
    those read stop by stop against every weapon."""
    before, after, terrain = _random_battle(np.random.default_rng(66))
    first = api.parse_scene(scene_data(MI, before, terrain=terrain))
    second = api.parse_scene(scene_data(MI, after, terrain=terrain), allow_off_table=True)
    waiting = [k for k, model in enumerate(second.models) if model.order == "interception"]
    verdicts = []
    for a, mover in enumerate(second.models):
        if mover.side != "blue":
            continue
        old = first.models[a]
        start, way = np.array([old.x_cm, old.y_cm]), np.array([mover.x_cm - old.x_cm, mover.y_cm - old.y_cm])
        length = float(np.hypot(*way))
        share = np.linspace(0.0, 1.0, max(math.ceil(length / orders.WAY_STEP_CM), 1) + 1)
        if length > 0:
            share = np.union1d(share, np.clip((second.xy[waiting] - start) @ way / length**2, 0.0, 1.0))
        way_xy = start + share[:, None] * way
        stops = [mover.model_copy(update={"x_cm": float(x), "y_cm": float(y)}) for x, y in way_xy]
        expected = [
            second.models[k].id for k in waiting if any(_brute_force_zone(second, k, stop) for stop in stops)
        ]
        verdicts.append(expected)
        assert orders.intercepted_on_the_way(second, mover, (old.x_cm, old.y_cm), waiting) == expected
        bugs = [model for model in first.models if model.side == "blue"]
        for k in waiting:
            zone = [_brute_force_zone(first, k, bug) for bug in bugs]
            assert orders.in_front_fire(first, k, bugs).tolist() == zone
    assert 5 <= sum(map(bool, verdicts)) <= len(verdicts) - 5
