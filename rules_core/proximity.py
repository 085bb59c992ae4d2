"""Proximity rules: conditions met by who stands within what distance of whom.

Captures, prisoners, medics, repairs: each seed phrases them as "a model of kind X within N of
the subject, and no model of kind Y within M". The ruleset lists them as data (`proximity`),
and this module evaluates every one for every subject, so a new rule of that shape needs no
code. A threshold of 0 means touching, within the ruleset's camera contact tolerance.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import shapely

from rules_core.footprints import hull_corners, measured
from rules_core.ruleset import Condition, ProximityRule, Selector, Threshold
from rules_core.scene import ModelSpec, Scene
from rules_core.sight import sight_between
from rules_core.transport import has_room

TOLERANCE_CM = 1e-6


def _role_or_weapon(model: ModelSpec, selector: Selector) -> bool:
    """`roles` and `weapons` each name what a model is for; either one picks it."""
    if selector.roles is None and selector.weapons is None:
        return True
    return (selector.roles is not None and model.role in selector.roles) or (
        selector.weapons is not None and any(w in selector.weapons for w in model.weapons or [])
    )


def selected(model: ModelSpec, selector: Selector) -> bool:
    return (
        (selector.types is None or model.type in selector.types)
        and _role_or_weapon(model, selector)
        and all(model.has(flag) for flag in selector.flags)
        and (not selector.any_flags or any(model.has(flag) for flag in selector.any_flags))
        and not any(model.has(flag) for flag in selector.not_flags)
    )


def can_attack(scene: Scene, attacker: ModelSpec, target: ModelSpec) -> bool:
    """Whether this pair can fight a melee at all, the attacker starting it: Tankomaster's is
    between soldiers only, and in Bronepehota a gun or a pilotless vehicle never attacks."""
    rules = scene.ruleset
    return (rules.melee_attackers is None or selected(attacker, rules.melee_attackers)) and (
        rules.melee_targets is None or selected(target, rules.melee_targets)
    )


def within(scene: Scene, threshold: Threshold, distance_cm: np.ndarray) -> np.ndarray:
    if threshold.value == 0:
        return distance_cm <= scene.ruleset.contact_tolerance_cm + TOLERANCE_CM
    return threshold.holds(distance_cm, scene.cm_per_unit)


def _selection(scene: Scene, selector: Selector) -> np.ndarray:
    """Indices of the models a selector picks; vectorised over the scene's types and roles."""
    keep = np.ones(len(scene.models), dtype=bool)
    if selector.types is not None:
        keep &= np.isin(np.array([m.type for m in scene.models], dtype=object), selector.types)
    if selector.roles is not None or selector.weapons is not None:
        keep &= np.array([_role_or_weapon(m, selector) for m in scene.models], dtype=bool)
    if selector.flags or selector.any_flags or selector.not_flags:
        keep &= np.array([selected(m, selector) for m in scene.models], dtype=bool)
    return np.flatnonzero(keep)


def _terrain_matches(scene: Scene, subjects: np.ndarray, condition: Condition) -> list[list[str]]:
    pieces = [t for t in scene.spec.terrain if condition.types is None or t.kind in condition.types]
    ids = [t.id for t in pieces]
    shapes = [shapely.Polygon(t.polygon_cm) for t in pieces]
    if condition.with_mines:
        ids += [mine.id for mine in scene.spec.mines]
        shapes += [shapely.Point(mine.x_cm, mine.y_cm) for mine in scene.spec.mines]
    if not shapes:
        return [[] for _ in subjects]
    objects = np.array(shapes, dtype=object)
    fp = scene.footprints
    gap = shapely.distance(fp.core[subjects][:, None], objects[None, :]) - fp.radius[subjects][:, None]
    hits = within(scene, condition.distance, np.maximum(gap, 0.0))
    return [[ids[k] for k in np.flatnonzero(row)] for row in hits]


def _matches(scene: Scene, subjects: np.ndarray, condition: Condition) -> list[list[str]]:
    """For each subject, the ids of the models (or terrain pieces) meeting the condition."""
    if condition.relation == "terrain":
        return _terrain_matches(scene, subjects, condition)
    candidates = _selection(scene, condition)
    if condition.with_room:
        candidates = candidates[[has_room(scene, scene.models[k]) is not False for k in candidates]]
    if condition.free_of is not None and len(candidates):
        engaged = _matches(scene, candidates, condition.free_of)
        candidates = candidates[[not ids for ids in engaged]]
    if not len(candidates):
        return [[] for _ in subjects]
    related = subjects[:, None] != candidates[None, :]
    if condition.relation != "any":
        enemies = scene.sides[subjects][:, None] != scene.sides[candidates][None, :]
        related &= enemies if condition.relation == "enemy" else ~enemies
    if condition.distance.measured == "rear_edge":
        distance = from_rear_edges(scene, subjects, candidates)
    else:
        distance = measured(
            scene.footprints, subjects[:, None], candidates[None, :], condition.distance.measured
        )
    hits = related & within(scene, condition.distance, distance)
    if condition.needs_sight:
        hits &= sight_between(scene, scene.xy[subjects], scene.xy[candidates])
    return [[scene.models[k].id for k in candidates[row]] for row in hits]


def from_rear_edges(scene: Scene, subjects: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """Subject footprint to each candidate's rear hull edge (a round base has no rear: infinite)."""
    fp = scene.footprints
    rears = np.empty(len(candidates), dtype=object)
    for column, k in enumerate(candidates):
        model = scene.models[k]
        if model.base.shape != "rect":
            rears[column] = None
            continue
        corners = hull_corners(
            model.x_cm,
            model.y_cm,
            model.heading_deg or 0.0,
            model.base.length_mm / 10,
            model.base.width_mm / 10,
        )
        rears[column] = shapely.LineString(corners[2:4])
    gap = shapely.distance(fp.core[subjects][:, None], rears[None, :]) - fp.radius[subjects][:, None]
    return np.where(np.isnan(gap), np.inf, np.maximum(gap, 0.0))


def _rule_report(scene: Scene, rule: ProximityRule) -> dict[str, dict]:
    """subject id -> met, and the models that satisfy or block each condition, for one rule."""
    subjects = _selection(scene, rule.subject)
    needs = [_matches(scene, subjects, c) for c in rule.needs]
    either = [_matches(scene, subjects, c) for c in rule.needs_any]
    blockers = [_matches(scene, subjects, c) for c in rule.forbids]
    report: dict[str, dict] = {}
    for row, s in enumerate(subjects):
        met = all(len(ids[row]) >= c.at_least for ids, c in zip(needs, rule.needs, strict=True))
        met &= not rule.needs_any or any(
            len(ids[row]) >= c.at_least for ids, c in zip(either, rule.needs_any, strict=True)
        )
        blocked = any(len(ids[row]) >= c.at_least for ids, c in zip(blockers, rule.forbids, strict=True))
        report[scene.models[s].id] = {
            "met": met and not blocked,
            "near": sorted({i for ids in [*needs, *either] for i in ids[row]}),
            "blocked_by": sorted({i for ids in blockers for i in ids[row]}),
        }
    return report


def held_off_by(scene: Scene, a: int) -> np.ndarray:
    """Mask of the models whose enemy buffer model `a` must keep: the enemy's, less those an
    enemy condition picks in a rule that waives the buffer (`waives_enemy_buffer`) for its subject
    (World at Fire: a soldier mounting the enemy's abandoned horse ends in base contact with it)."""
    model = scene.models[a]
    held_off = scene.sides != model.side
    for rule in scene.ruleset.proximity.values():
        if not rule.waives_enemy_buffer or not selected(model, rule.subject):
            continue
        for condition in [*rule.needs, *rule.needs_any]:
            if condition.relation == "enemy":
                held_off[_selection(scene, condition)] = False
    return held_off


def proximity_report(scene: Scene) -> dict[str, dict[str, dict]]:
    """rule -> subject id -> met, and the models that satisfy or block each condition."""
    return {name: _rule_report(scene, rule) for name, rule in scene.ruleset.proximity.items()}


def proximity_check(scene: Scene) -> dict[str, dict[str, dict]]:
    """`proximity_report` for `check`, with the models of a rule's kind that lack the state it
    needs listed as not met and why (Combined Arms: a vehicle whose running gear is sound takes
    no capture test), so that asking after one finds an answer, not a missing key."""
    checks = {}
    for name, rule in scene.ruleset.proximity.items():
        report = _rule_report(scene, rule)
        checks[name] = report | _not_subjects(scene, rule.subject, report.keys())
    return checks


def _not_subjects(scene: Scene, subject: Selector, subjects: Iterable[str]) -> dict[str, dict]:
    """Models a rule's subject picks by type and role but not by state flags (`subjects`, the
    ids it picks, reported already)."""
    if subject.types is None or not (subject.flags or subject.any_flags or subject.not_flags):
        return {}
    state = [f"flag {flag}" for flag in subject.flags]
    if subject.any_flags:
        state.append(f"one of the flags {', '.join(subject.any_flags)}")
    state += [f"no flag {flag}" for flag in subject.not_flags]
    chosen = set(subjects)
    kind = _selection(scene, subject.model_copy(update={"flags": [], "any_flags": [], "not_flags": []}))
    row = {"met": False, "near": [], "blocked_by": [], "not_subject": f"needs {' and '.join(state)}"}
    return {scene.models[i].id: dict(row) for i in kind.tolist() if scene.models[i].id not in chosen}


def fire_held(scene: Scene) -> set[int]:
    """Models that fire no weapon because a rule they need to fire does not hold for them
    (`holds_fire`: Combined Arms' heavy MG with no fighter within 1")."""
    return {
        scene.index[subject]
        for rule in scene.ruleset.proximity.values()
        if rule.holds_fire
        for subject, row in _rule_report(scene, rule).items()
        if not row["met"]
    }
