"""Proximity rules: conditions met by who stands within what distance of whom.

Captures, prisoners, medics, repairs: each seed phrases them as "a model of kind X within N of
the subject, and no model of kind Y within M". The ruleset lists them as data (`proximity`),
and this module evaluates every one for every subject, so a new rule of that shape needs no
code. A threshold of 0 means touching, within the ruleset's camera contact tolerance.
"""

from __future__ import annotations

import numpy as np
import shapely

from rules_core.footprints import measured
from rules_core.ruleset import Condition, Selector, Threshold
from rules_core.scene import ModelSpec, Scene

TOLERANCE_CM = 1e-6


def selected(model: ModelSpec, selector: Selector) -> bool:
    return (
        (selector.types is None or model.type in selector.types)
        and (selector.roles is None or model.role in selector.roles)
        and all(model.has(flag) for flag in selector.flags)
        and not any(model.has(flag) for flag in selector.not_flags)
    )


def within(scene: Scene, threshold: Threshold, distance_cm: np.ndarray) -> np.ndarray:
    if threshold.value == 0:
        return distance_cm <= scene.ruleset.contact_tolerance_cm + TOLERANCE_CM
    return threshold.holds(distance_cm, scene.cm_per_unit)


def _terrain_matches(scene: Scene, s: int, condition: Condition) -> list[str]:
    pieces = [t for t in scene.spec.terrain if condition.types is None or t.kind in condition.types]
    if not pieces:
        return []
    polygons = np.array([shapely.Polygon(t.polygon_cm) for t in pieces], dtype=object)
    fp = scene.footprints
    distance = np.maximum(shapely.distance(fp.core[s], polygons) - fp.radius[s], 0.0)
    return [t.id for t, near in zip(pieces, within(scene, condition.distance, distance), strict=True) if near]


def _matches(scene: Scene, s: int, condition: Condition) -> list[str]:
    if condition.relation == "terrain":
        return _terrain_matches(scene, s, condition)
    subject = scene.models[s]
    others = [
        k
        for k, m in enumerate(scene.models)
        if k != s
        and selected(m, condition)
        and (condition.relation == "any" or (condition.relation == "enemy") == (m.side != subject.side))
    ]
    if not others:
        return []
    idx = np.array(others, dtype=int)
    distance = measured(scene.footprints, np.full(len(idx), s), idx, condition.distance.measured)
    return [scene.models[k].id for k in idx[within(scene, condition.distance, distance)]]


def proximity_report(scene: Scene) -> dict[str, dict[str, dict]]:
    """rule -> subject id -> met, and the models that satisfy or block each condition."""
    report: dict[str, dict[str, dict]] = {}
    for name, rule in scene.ruleset.proximity.items():
        subjects: dict[str, dict] = {}
        for s, model in enumerate(scene.models):
            if not selected(model, rule.subject):
                continue
            needs = [_matches(scene, s, c) for c in rule.needs]
            blockers = [_matches(scene, s, c) for c in rule.forbids]
            met = all(len(ids) >= c.at_least for ids, c in zip(needs, rule.needs, strict=True))
            blocked = any(len(ids) >= c.at_least for ids, c in zip(blockers, rule.forbids, strict=True))
            subjects[model.id] = {
                "met": met and not blocked,
                "near": sorted({i for ids in needs for i in ids}),
                "blocked_by": sorted({i for ids in blockers for i in ids}),
            }
        report[name] = subjects
    return report
