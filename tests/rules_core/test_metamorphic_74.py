"""Session 74: metamorphic checks of the rules core: a transformed scene gives the transformed answer.

Single cases against the seeds cannot see a verdict that hangs on the order a tracker lists models
in, on which corner of the table the game is played, or on how a ruleset spells its unit. Random
scenes of every shipped ruleset (units near and apart, touching enemies, vehicles, guns and crews,
terrain, objectives, deployment, aircraft, standing orders) go through `check`, `measure`,
`ranges`, `zones` and `move` before and after one of these, and must agree:

- listing models, objectives and terrain (and a polygon's corners) in another order;
- renaming every id and unit, keeping their sorted order (the seeds' ties that no geometry breaks,
  a ring of units taking each other's places, are broken by id on purpose: sequence.py);
- mirroring the table left-right or top-bottom, or turning it 180 degrees (headings, terrain,
  objectives and deployment edges with it);
- a lone enemy far in a corner, reaching no one;
- a ruleset copied in other units (a user file in steps) on a table scaled to match.

Lists of ids are compared as sets: the listing order of `groups` or `crew` carries no verdict.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core import api
from rules_core.ruleset import CM_PER_UNIT
from tests.rules_core.builders import base, scene
from tracker.cli import main

W, D = 183.0, 122.0
RULESETS = ["world-at-fire", "mobile-infantry", "combined-arms", "tankomaster", "bronepehota"]
FOOT = {"world-at-fire": "infantry", "mobile-infantry": "trooper", "combined-arms": "infantry",
        "tankomaster": "infantry", "bronepehota": "infantry"}
GUN = {"world-at-fire": "heavy_gun", "combined-arms": "gun", "tankomaster": "heavy_gun", "bronepehota": "gun"}
TERRAIN = ["forest", "ruins", "building", "wall", "fence", "hedge", "trench", "water", "hill", "road",
           "impassable"]
CHASSIS = {"world-at-fire": ["tracked", "wheeled", "half_tracked"], "combined-arms": ["tank", "apc"]}
DEPLOYMENT = {
    "world-at-fire": [
        {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
        {"kind": "ambush", "sides": {"red": "top", "blue": "bottom"}},
        {"kind": "diversion", "sides": {"red": "top-left", "blue": "bottom-right"}},
    ],
    "tankomaster": [{"kind": "ambush", "sides": {"red": "left"}}],
}
# The same scenes every run: a relation the seeds break on purpose (a ring of units broken by
# id) must not turn up first on CI; session 74's scratch harness ran 200 a relation at random.
EXAMPLES = settings(max_examples=6, deadline=None, derandomize=True)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


class _Table:
    """Places round bases and hulls at least half a centimetre apart, so a scene is one a table holds."""

    def __init__(self) -> None:
        self.taken: list[tuple[float, float, float]] = []

    def place(self, x: float, y: float, r: float) -> tuple[float, float] | None:
        x, y = min(max(x, r + 0.5), W - r - 0.5), min(max(y, r + 0.5), D - r - 0.5)
        if any(math.hypot(x - a, y - b) <= r + q + 0.5 for a, b, q in self.taken):
            return None
        self.taken.append((x, y, r))
        return round(x, 3), round(y, 3)


def _round(side: str, unit: str, type_: str, xy: tuple[float, float], id_: str, mm: float = 32) -> dict:
    return {"id": id_, "side": side, "unit": unit, "type": type_, "x_cm": xy[0], "y_cm": xy[1],
            "base": {"shape": "round", "diameter_mm": mm}}


def _rect(side: str, unit: str, type_: str, xy: tuple[float, float], id_: str, rng: random.Random,
          size: tuple[float, float]) -> dict:
    return {"id": id_, "side": side, "unit": unit, "type": type_, "x_cm": xy[0], "y_cm": xy[1],
            "heading_deg": round(rng.uniform(0, 360), 2),
            "base": {"shape": "rect", "length_mm": size[0], "width_mm": size[1]}}


def _squads(rid: str, rng: random.Random, table: _Table, side: str, xs: tuple[float, float],
            ys: tuple[float, float]) -> list[dict]:
    """Lines of 2-5 bases, spaced so some hold coherency and some just break it."""
    models = []
    for u in range(rng.randint(1, 3)):
        cx, cy, turn = rng.uniform(*xs), rng.uniform(*ys), rng.uniform(0, 2 * math.pi)
        spacing = rng.choice([4.5, 6.0, 8.0, 8.2, 9.0, 12.0])
        type_ = "bug" if rid == "mobile-infantry" and side == "blue" else FOOT[rid]
        for j in range(rng.randint(2, 5)):
            step = (spacing + rng.uniform(-0.6, 0.6)) * j
            xy = table.place(cx + step * math.cos(turn), cy + step * math.sin(turn), 1.6)
            if xy is None:
                continue
            m = _round(side, f"{side}-u{u}", type_, xy, f"{side[0]}{u}{j}")
            if rid == "combined-arms" and rng.random() < 0.3:
                m["role"] = rng.choice(["officer", "radio", "scout", "medic", "sapper"])
            if rid == "combined-arms" and rng.random() < 0.15:
                m["wounded"] = True
            if rid == "bronepehota":
                m["speed"] = rng.choice([4, 6])
            if type_ == "bug":
                m["move_actions"] = 2
            models.append(m)
    return models


def _machines(rid: str, rng: random.Random, table: _Table, side: str, xs: tuple[float, float]) -> list[dict]:
    """A vehicle, and a gun with 1-3 crew, each some of the time."""
    models = []
    xy = table.place(rng.uniform(*xs), rng.uniform(15, D - 15), 11.5)
    if rid != "mobile-infantry" and rng.random() < 0.8 and xy:
        tank = _rect(side, f"{side}-armour", "vehicle", xy, f"{side[0]}v", rng, (200, 100))
        if rid in CHASSIS:
            tank["chassis"] = rng.choice(CHASSIS[rid])
        if rid == "bronepehota":
            tank["speed"] = 8
        models.append(tank)
    gx, gy = rng.uniform(*xs), rng.uniform(15, D - 15)
    xy = table.place(gx, gy, 4)
    if rid in GUN and rng.random() < 0.6 and xy:
        gun = f"{side[0]}g"
        models.append(_rect(side, f"{side}-gun", GUN[rid], xy, gun, rng, (60, 40)))
        for c in range(rng.randint(1, 3)):
            turn, far = rng.uniform(0, 2 * math.pi), rng.uniform(5.5, 11)
            at = table.place(gx + far * math.cos(turn), gy + far * math.sin(turn), 1.6)
            if at:
                crewman = {**_round(side, f"{side}-gun", FOOT[rid], at, f"{side[0]}c{c}"), "crew_of": gun}
                models.append({**crewman, "speed": 4} if rid == "bronepehota" else crewman)
    return models


def _walks(rid: str, type_: str = "") -> dict:
    """What a model needs to have a move allowance where its seed gives none by type."""
    return {"speed": 4} if rid == "bronepehota" else {"move_actions": 2} if type_ == "bug" else {}


def _touching(rid: str, rng: random.Random, models: list[dict]) -> list[dict]:
    """Enemies set against a base, touching or just apart: contact and melee rules at their edge."""
    added = []
    for k in range(rng.randint(0, 2)):
        host = rng.choice(models)
        turn, gap = rng.uniform(0, 2 * math.pi), rng.choice([0.0, 0.05, 0.15, 0.5, 1.0])
        x, y = host["x_cm"] + (3.2 + gap) * math.cos(turn), host["y_cm"] + (3.2 + gap) * math.sin(turn)
        clear = all(math.hypot(x - m["x_cm"], y - m["y_cm"]) > 6.5 for m in models + added if m is not host)
        if host["base"]["shape"] == "round" and 2 < x < W - 2 and 2 < y < D - 2 and clear:
            side = "blue" if host["side"] == "red" else "red"
            type_ = "bug" if rid == "mobile-infantry" else FOOT[rid]
            foe = _round(side, f"{side}-k{k}", type_, (round(x, 4), round(y, 4)), f"{side[0]}k{k}")
            foe.update(_walks(rid, type_))
            added.append(foe)
    return added


def random_scene(rid: str, rng: random.Random, phase: str | None = None) -> dict:
    table = _Table()
    dense = rng.random() < 0.5  # both armies in the middle, mixed: enemy buffers, contacts, detours
    areas = (("red", (50, 120)), ("blue", (55, 125))) if dense else (("red", (8, 90)), ("blue", (93, 175)))
    models: list[dict] = []
    for side, xs in areas:
        models += _squads(rid, rng, table, side, xs, (30, 80) if dense else (10, D - 10))
        models += _machines(rid, rng, table, side, xs)
    models += _touching(rid, rng, models)
    xy = table.place(rng.uniform(40, 140), rng.uniform(20, 100), 3.25)
    if rid == "world-at-fire" and rng.random() < 0.5 and xy:
        plane = _round(rng.choice(["red", "blue"]), "air", "aircraft", xy, "a1", 65)
        models.append({**plane, "heading_deg": round(rng.uniform(0, 360), 2), "altitude": rng.choice([1, 2])})
    weapons = list(api.ruleset_dict(rid)["weapons"])
    for m in models:
        if weapons and m["base"]["shape"] == "round" and rng.random() < 0.4:
            m["weapons"] = rng.sample(weapons, rng.randint(1, 2))
        if rid in ("mobile-infantry", "bronepehota") and m["base"]["shape"] == "round" and rng.random() < 0.5:
            m["heading_deg"] = round(rng.uniform(0, 360), 2)
        if m["type"] == "trooper" and rng.random() < 0.3:
            m["order"] = "interception"
    data: dict[str, Any] = {"ruleset": rid, "table": {"width_cm": W, "depth_cm": D}, "models": models}
    near = [rng.choice(models) for _ in range(rng.randint(1, 3))]
    data["objectives"] = [
        {"id": f"o{i}", "x_cm": round(min(max(m["x_cm"] + rng.uniform(-12, 12), 4), W - 4), 3),
         "y_cm": round(min(max(m["y_cm"] + rng.uniform(-12, 12), 4), D - 4), 3), "diameter_mm": 65}
        for i, m in enumerate(near)
    ]
    data["terrain"] = [_piece(i, rng) for i in range(rng.randint(0, 3))]
    if rid in DEPLOYMENT and rng.random() < 0.6:
        data["deployment"] = copy.deepcopy(rng.choice(DEPLOYMENT[rid]))
    data["phase"] = phase or rng.choice(["movement", "movement", "deployment", "shooting"])
    return data


def _piece(i: int, rng: random.Random) -> dict:
    cx, cy, w, h = rng.uniform(20, W - 20), rng.uniform(15, D - 15), rng.uniform(3, 15), rng.uniform(3, 12)
    piece: dict[str, Any] = {
        "id": f"t{i}", "kind": rng.choice(TERRAIN),
        "polygon_cm": [[round(cx - w, 2), round(cy - h, 2)], [round(cx + w, 2), round(cy - h, 2)],
                       [round(cx + w, 2), round(cy + h, 2)], [round(cx - w / 2, 2), round(cy + h, 2)]],
    }
    if rng.random() < 0.5:
        piece["height_cm"] = rng.choice([0.5, 3.0, 6.0])
    if rng.random() < 0.3:
        piece["level"] = rng.choice([1, 2])
    return piece


def random_after(before: dict, rng: random.Random) -> dict:
    """The next scene: 1-3 units moved, most of each unit the same way, about the allowances."""
    after = copy.deepcopy(before)
    units = sorted({m["unit"] for m in after["models"]})
    moving = set(rng.sample(units, rng.randint(1, min(3, len(units)))))
    lengths = [3, 8, 12, 14.9, 15.5, 16.5, 25, 29.5, 31]  # about each ruleset's allowances
    way = {u: (rng.choice(lengths), rng.uniform(0, 2 * math.pi)) for u in units}
    for m in after["models"]:
        if m["unit"] not in moving:
            continue
        length, turn = way[m["unit"]]
        if rng.random() < 0.3:
            length, turn = length * rng.uniform(0.7, 1.1), turn + rng.uniform(-0.4, 0.4)
        if m["type"] == "aircraft":
            length = rng.choice([50, 60, 80, 110, 115])
            m["heading_deg"] = round((m["heading_deg"] + rng.choice([0, 0, 30, -60, 95])) % 360, 2)
            turn = math.radians(m["heading_deg"])
        elif "heading_deg" in m and rng.random() < 0.6:
            turn = math.radians(m["heading_deg"] + rng.choice([0, 180]))
            m["heading_deg"] = round((m["heading_deg"] + rng.uniform(-20, 20)) % 360, 2)
        x, y = m["x_cm"] + length * math.cos(turn), m["y_cm"] + length * math.sin(turn)
        if m["type"] != "aircraft":
            x, y = min(max(x, 2), W - 2), min(max(y, 2), D - 2)
        m["x_cm"], m["y_cm"] = round(x, 3), round(y, 3)
    return after


def case(rid: str, seed: int) -> tuple[dict, dict | None, dict]:
    """A scene, the next one (some of the time) and what to ask: measured pairs, shooters."""
    rng = random.Random(seed)
    before = random_scene(rid, rng)
    after = random_after(before, rng) if rng.random() < 0.7 else None
    ids = [m["id"] for m in before["models"]]
    asks = {"pairs": [tuple(rng.sample(ids, 2)) for _ in range(3)],
            "from": [*rng.sample(ids, min(3, len(ids))), rng.choice(before["models"])["unit"]]}
    return before, after, asks


def answers(before: dict, after: dict | None, asks: dict) -> dict:
    s = api.parse_scene(before)
    out: dict[str, Any] = {"check": api.check(s), "zones": api.deployment_zones(s)}
    for a, b in asks["pairs"]:
        out[f"measure {a} {b}"] = api.measure(s, a, b)
    for shooter in asks["from"]:
        out[f"ranges {shooter}"] = api.ranges(s, shooter)
    if after is not None:
        out["move"] = api.move(s, api.parse_scene(after, allow_off_table=True))
    return out


# -- transforms of a scene, and of its answers ------------------------------------------------------
MIRRORED = {
    "left-right": ({"left": "right", "right": "left"}, lambda x, y: (W - x, y), lambda h: (180 - h) % 360),
    "top-bottom": ({"top": "bottom", "bottom": "top"}, lambda x, y: (x, D - y), lambda h: -h % 360),
    "half-turn": ({"left": "right", "right": "left", "top": "bottom", "bottom": "top"},
                  lambda x, y: (W - x, D - y), lambda h: (h + 180) % 360),
}
Point = Callable[[float, float], tuple[float, float]]


def _place(name: str, edges: dict[str, str]) -> str:
    """An edge or a quarter (`top-left`) seen in the mirror."""
    return "-".join(edges.get(part, part) for part in name.split("-"))


def mirrored(data: dict | None, how: str) -> dict | None:
    if data is None:
        return None
    edges, point, heading = MIRRORED[how]
    out = copy.deepcopy(data)
    for item in out["models"] + out.get("objectives", []):
        item["x_cm"], item["y_cm"] = point(item["x_cm"], item["y_cm"])
        if item.get("heading_deg") is not None:
            item["heading_deg"] = heading(item["heading_deg"])
    for piece in out.get("terrain", []):
        piece["polygon_cm"] = [list(point(x, y)) for x, y in piece["polygon_cm"]]
    if out.get("deployment"):
        sides = out["deployment"]["sides"]
        out["deployment"]["sides"] = {side: _place(at, edges) for side, at in sides.items()}
    return out


def shuffled(data: dict | None, seed: int) -> dict | None:
    if data is None:
        return None
    rng, out = random.Random(seed), copy.deepcopy(data)
    for key in ("models", "objectives", "terrain"):
        rng.shuffle(out[key])
    for piece in out["terrain"]:
        k = rng.randrange(len(piece["polygon_cm"]))
        piece["polygon_cm"] = piece["polygon_cm"][k:] + piece["polygon_cm"][:k]
        if rng.random() < 0.5:
            piece["polygon_cm"].reverse()
    return out


def renamed(data: dict | None, names: dict[str, str]) -> dict | None:
    if data is None:
        return None
    out = copy.deepcopy(data)
    for m in out["models"]:
        m["id"], m["unit"] = names[m["id"]], names[m["unit"]]
        if m.get("crew_of"):
            m["crew_of"] = names[m["crew_of"]]
    for item in out["objectives"] + out["terrain"]:
        item["id"] = names[item["id"]]
    return out


DROPPED = {"detail", "note", "problems", "allowance_notes", "warnings"}  # prose: numbers and names in words


def normal(v: Any, key: str = "", names: dict | None = None, point: Point | None = None,
           edges: dict | None = None) -> Any:
    """An answer as a comparable value: ids renamed, points moved, id lists as sets, pairs unordered,
    lengths to 0.01 cm, prose left out."""
    names, edges = names or {}, edges or {}

    def again(x: Any, k: str = key) -> Any:
        return normal(x, k, names, point, edges)

    if isinstance(v, dict):
        v = dict(v)
        if point and isinstance(v.get("x_cm"), float) and isinstance(v.get("y_cm"), float):
            v["x_cm"], v["y_cm"] = point(v["x_cm"], v["y_cm"])
        if key == "contacts" and {"a", "b"} <= set(v):
            v["a"], v["b"] = sorted([again(v["a"]), again(v["b"])])
        return {names.get(k, _place(k, edges)): again(x, k) for k, x in v.items() if k not in DROPPED}
    if isinstance(v, list):
        if point and len(v) == 2 and all(isinstance(c, float) for c in v) and key != "standard_sizes_cm":
            return [round(c, 2) for c in point(*v)]
        items = [again(x) for x in v]
        if len(items) > 3 and items[0] == items[-1] and all(isinstance(i, list) for i in items):
            items = items[:-1]  # a closed ring of a zone: where it starts is arbitrary
        if all(isinstance(i, float | int) for i in items):
            return items
        return sorted(items, key=lambda i: json.dumps(i, sort_keys=True))
    if isinstance(v, float):
        return round(v, 2)
    if isinstance(v, str):
        return names.get(v, _place(v, edges) if edges else v)
    return v


def assert_same(expected: Any, got: Any, where: str = "") -> None:
    """Equal, lengths within 0.011 cm (each side rounded to 0.01 on its own)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        assert expected.keys() == got.keys(), where
        for k in expected:
            assert_same(expected[k], got[k], f"{where}/{k}")
    elif isinstance(expected, list) and isinstance(got, list):
        assert len(expected) == len(got), f"{where}: {expected} != {got}"
        for k, (a, b) in enumerate(zip(expected, got, strict=True)):
            assert_same(a, b, f"{where}[{k}]")
    elif isinstance(expected, float | int) and not isinstance(expected, bool):
        assert got == pytest.approx(expected, abs=0.011), where
    else:
        assert expected == got, where


@pytest.mark.parametrize("rid", RULESETS)
@EXAMPLES
@given(seed=seeds)
def test_listing_order_changes_nothing(rid: str, seed: int) -> None:
    before, after, asks = case(rid, seed)
    got = answers(shuffled(before, seed), shuffled(after, seed + 1), asks)
    assert_same(normal(answers(before, after, asks)), normal(got))


@pytest.mark.parametrize("rid", RULESETS)
@EXAMPLES
@given(seed=seeds)
def test_renaming_ids_and_units_changes_only_the_names(rid: str, seed: int) -> None:
    before, after, asks = case(rid, seed)
    old = sorted({m["id"] for m in before["models"]} | {m["unit"] for m in before["models"]}
                 | {o["id"] for o in before["objectives"] + before["terrain"]})
    names = {name: f"n{k:03d}-{name[::-1]}" for k, name in enumerate(old)}  # sorted order kept
    new_asks = {"pairs": [(names[a], names[b]) for a, b in asks["pairs"]],
                "from": [names[f] for f in asks["from"]]}
    got = answers(renamed(before, names), renamed(after, names), new_asks)
    was = answers(before, after, asks)
    expected = {" ".join(names.get(w, w) for w in k.split(" ")): v for k, v in was.items()}
    assert_same(normal(expected, names=names), normal(got))


@pytest.mark.parametrize("how", list(MIRRORED))
@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(seed=seeds)
def test_a_mirrored_or_turned_table_gives_the_mirrored_answers(rid: str, how: str, seed: int) -> None:
    before, after, asks = case(rid, seed)
    edges, point, _ = MIRRORED[how]
    got = answers(mirrored(before, how), mirrored(after, how), asks)
    assert_same(normal(answers(before, after, asks), point=point, edges=edges), normal(got, edges={}))


def _without(v: Any, gone: set[str]) -> Any:
    if isinstance(v, dict):
        return {k: _without(x, gone) for k, x in v.items() if k not in gone}
    if isinstance(v, list):
        return [_without(x, gone) for x in v if not (x in gone if isinstance(x, str) else _holds_id(x, gone))]
    return v


def _holds_id(x: Any, gone: set[str]) -> bool:
    return isinstance(x, dict) and x.get("id") in gone


@pytest.mark.parametrize("rid", RULESETS)
@EXAMPLES
@given(seed=seeds)
def test_a_far_enemy_changes_nothing_about_the_others(rid: str, seed: int) -> None:
    before, after, asks = case(rid, seed)
    points = [(m["x_cm"], m["y_cm"]) for m in before["models"] + before["objectives"]]
    points += [(x, y) for t in before["terrain"] for x, y in t["polygon_cm"]]
    if any(x < 25 and y < 25 for x, y in points):
        return  # the corner is taken: this scene has no far place
    far = _round("blue", "blue-far", "bug" if rid == "mobile-infantry" else FOOT[rid], (1.8, 1.8), "far")
    far.update(_walks(rid, far["type"]))
    grown = [None if s is None else {**s, "models": [*s["models"], far]} for s in (before, after)]
    got = _without(answers(grown[0], grown[1], asks), {"far", "blue-far"})
    assert_same(normal(answers(before, after, asks)), normal(got))


@pytest.mark.parametrize("rid", ["combined-arms", "mobile-infantry", "tankomaster"])
@settings(max_examples=4, deadline=None, derandomize=True)
@given(seed=seeds, scale=st.sampled_from([0.5, 2.0]))
def test_a_ruleset_in_other_units_on_a_scaled_table_gives_the_same_verdicts(
    rid: str, seed: int, scale: float, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Inches, millimetres and centimetres are read through one conversion: the same ruleset in
    steps of `scale` inches (mm, cm), camera tolerances scaled too, on a table `scale` times as
    large, reaches every verdict it reached before; a length any rule kept in cm would not."""
    before, after, asks = case(rid, seed)
    expected = answers(before, after, asks)
    rules = api.ruleset_dict(rid)
    cm_per_unit = CM_PER_UNIT[rules["unit"]]
    rules.update(unit="step", default_step_cm=cm_per_unit * scale,
                 contact_tolerance_cm=rules["contact_tolerance_cm"] * scale,
                 moved_threshold_cm=rules["moved_threshold_cm"] * scale)
    folder = tmp_path_factory.mktemp("rulesets")
    (folder / f"{rid}.json").write_text(json.dumps(rules))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TABLESIGHT_RULESETS", str(folder))
        assert api.load_ruleset(rid).unit == "step"
        got = answers(*(None if s is None else _scaled(s, scale) for s in (before, after)), asks)

    def verdicts(v: Any) -> Any:  # lengths in cm differ by the scale; in ruleset units they agree
        if isinstance(v, dict):
            kept = (k for k in v if not k.endswith("_cm") and k not in ("zones", "unit_of_measure"))
            return {k: verdicts(v[k]) for k in kept}
        return [verdicts(x) for x in v] if isinstance(v, list) else v

    assert_same(normal(verdicts(expected)), normal(verdicts(got)))


def _scaled(data: dict, k: float) -> dict:
    out = copy.deepcopy(data)
    out["table"] = {"width_cm": W * k, "depth_cm": D * k}
    for item in out["models"] + out["objectives"]:
        item["x_cm"], item["y_cm"] = item["x_cm"] * k, item["y_cm"] * k
        for size in ("diameter_mm", "length_mm", "width_mm"):
            for holder in (item, item.get("base") or {}):
                if size in holder:
                    holder[size] *= k
    for piece in out["terrain"]:
        piece["polygon_cm"] = [[x * k, y * k] for x, y in piece["polygon_cm"]]
        if piece.get("height_cm") is not None:
            piece["height_cm"] *= k
    return out


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=5, deadline=None, derandomize=True)
@given(seed=seeds)
def test_measure_is_symmetric_and_standing_still_is_no_move(rid: str, seed: int) -> None:
    before, _, asks = case(rid, seed)
    s = api.parse_scene({**before, "phase": "movement"})
    for a, b in asks["pairs"]:
        there, back = api.measure(s, a, b), api.measure(s, b, a)
        for key in ("edge_cm", "centre_cm", "edge_in_ruleset_units"):
            assert there[key] == back[key]
    report = api.move(s, api.parse_scene({**before, "phase": "movement"}, allow_off_table=True))
    assert report["models"] == {}
    # World at Fire's aircraft must move every turn («должны двигаться каждый ход»): only they are named.
    assert set(report.get("not_moved", {})) <= {"a1"}


def test_a_mirrored_move_reads_the_same_on_the_command_line(tmp_path, capsys) -> None:
    """The same relation through `tablesight rules move --json`, the contract's interface."""
    before, after, _ = case("world-at-fire", 7)
    after = after or random_after(before, random.Random(7))
    printed = []
    for how in (None, "left-right"):
        for name, data in (("before", before), ("after", after)):
            (tmp_path / f"{name}.json").write_text(json.dumps(mirrored(data, how) if how else data))
        files = [str(tmp_path / "before.json"), str(tmp_path / "after.json")]
        assert main(["rules", "move", *files, "--json"]) == 0
        printed.append(json.loads(capsys.readouterr().out))
    assert printed[0]["models"]
    assert_same(normal(printed[0]), normal(printed[1]))


# -- what the relations found ------------------------------------------------------------------------
INCH = 2.54


@pytest.mark.parametrize("listed", [("near", "far", "f"), ("far", "near", "f")])
def test_ca_command_names_the_nearest_leader_however_the_scene_lists_them(listed: tuple[str, ...]) -> None:
    """002: «в пределах командной дистанции командира либо офицера (12 дюймов)». Any leader within
    12" keeps a fighter in command; `via` named the first one listed, so a tracker listing the two
    officers the other way round changed the answer. It names the nearest."""
    models = {
        "near": base(30, 30, "near", role="officer"),
        "far": base(30 + 3.2 + 10 * INCH, 30, "far", role="officer"),
        "f": base(30 + 3.2 + 1 * INCH, 30, "f"),
    }
    command = api.check(scene("combined-arms", [models[k] for k in listed]))["command"]
    assert command["f"] == {"in_command": True, "via": "near", "exempt": False}


@pytest.mark.parametrize("listed", [("a", "b", "e"), ("b", "a", "e")])
def test_tm_cover_from_two_equally_near_shooters_does_not_hang_on_the_listing(
    listed: tuple[str, ...],
) -> None:
    """003: «каждого пострадавшего солдата следует проверить — не спасло ли его укрытие»; cover is
    read along the nearest shooter's line (`cover` note). Two soldiers of one unit stand equally far
    from the target, and only b's line crosses the fence right in front of it: which of them was
    nearest came from the scene's listing, so the cover came and went with it. Ties go to the
    first by id (a), as everywhere else in the rules core."""
    models = {
        "a": base(30, 50, "a", unit="red-1"),
        "b": base(30, 70, "b", unit="red-1"),
        "e": base(60, 60, "e", side="blue", unit="blue-1"),
    }
    fence = {"id": "f", "kind": "fence", "polygon_cm": [[57, 61], [57.5, 61], [57.5, 66], [57, 66]]}
    s = scene("tankomaster", [models[k] for k in listed], terrain=[fence])
    assert api.ranges(s, "b")["targets"][0]["cover"] == "6+"  # b's own line is behind the fence
    assert api.ranges(s, "red-1")["targets"][0]["cover"] is None


@pytest.mark.parametrize("listed", [("a", "far", "near"), ("a", "near", "far")])
def test_tm_an_ambush_too_close_names_the_nearest_enemy(listed: tuple[str, ...]) -> None:
    """003: «не может находиться ближе чем на 20 см к войскам противника». Two enemies stand within
    20 cm of the ambusher, 15 and 5 cm off: the problem gave the nearest gap (5.00 cm) with the
    name of whichever of them was listed first, so half the listings blamed the one 15 cm away."""
    wood = {"id": "wood", "kind": "forest", "polygon_cm": [[0, 0], [40, 0], [40, 120], [0, 120]]}
    models = {
        "a": base(20, 30, "a", side="blue", unit="blue-1"),
        "far": base(20 + 3.2 + 15, 30, "far", side="red", unit="red-1"),
        "near": base(20, 30 + 3.2 + 5, "near", side="red", unit="red-2"),
    }
    extra = {"phase": "deployment", "deployment": {"kind": "ambush", "sides": {"blue": "left"}}}
    s = scene("tankomaster", [models[k] for k in listed], terrain=[wood], **extra)
    problems = api.check(s)["models"]["a"]["problems"]
    assert problems == ["a is 5.00 cm from enemy near, must not be closer than 20 cm"]
