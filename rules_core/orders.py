"""Interception orders (Mobile Infantry): which enemies have walked into a waiting trooper's fire.

«фигура остается на своем месте до тех пор, пока в зоне ее эффективного огня по фронту не
появляется фигура противника (фронт отмечается на карточке фигуры)», and «В непосредственном
соприкосновении с противником ... перехват не может назначается». The front is the model's
`heading_deg`; its width is not in the seed, so it is the ruleset's `front_arc_deg`.
"""

from __future__ import annotations

import math

import numpy as np

from rules_core.footprints import Footprints, measured
from rules_core.proximity import within
from rules_core.reach import height_level, range_limit_cm, reaches, weapons_of
from rules_core.scene import ModelSpec, Scene
from rules_core.sight import sight_between

# How far apart the way of a move is read for an interceptor's fire zone: a third of a 32 mm base's
# radius, half Mobile Infantry's 1 cm eye tolerance; the range is read exactly where the way comes
# nearest, so only sight or height that change for less than this on the way can be missed.
WAY_STEP_CM = 0.5
# Slack for the cheap upper bound on reach (`may_be_in_front_fire`), far above float error, so that
# only `reaches` decides at the edge of the range.
SLACK_CM = 1e-3
# The front arc's edge counts as in front.
ARC_EDGE_DEG = 1e-6


def interception_report(scene: Scene) -> dict[str, dict]:
    """Every model under the interception order: whether the order may stand (no enemy in
    contact), and the enemies inside its front arc that one of its weapons reaches (null without
    a `heading_deg`: the front is unknown)."""
    rule = scene.ruleset.interception
    report: dict[str, dict] = {}
    for i, model in enumerate(scene.models):
        if model.order != rule.order:
            continue
        enemies = np.flatnonzero(scene.sides != model.side)
        edge = measured(scene.footprints, np.full(len(enemies), i), enemies, "edge")
        in_contact = enemies[within(scene, rule.contact, edge)] if len(enemies) else enemies
        triggered: list[str] | None = None
        if model.heading_deg is not None:
            seen = in_front_fire(scene, i, [scene.models[k] for k in enemies])
            triggered = [scene.models[k].id for k in enemies[seen]]
        report[model.id] = {
            "allowed": not len(in_contact),
            "in_contact_with": [scene.models[k].id for k in in_contact],
            "triggered_by": triggered,
        }
    return report


def in_front_fire(scene: Scene, i: int, targets: list[ModelSpec], first: bool = False) -> np.ndarray:
    """Which of `targets` (models where they stand, or where one stood on its way) are in model i's
    front fire zone: the centre inside the front arc, and reached by one of its weapons (range,
    tolerance, height, sight). The model needs a `heading_deg`. With `first` it stops at the first
    target in the zone (the rest read False): whether a way entered the zone at all."""
    model = scene.models[i]
    front = np.zeros(len(targets), dtype=bool)
    if not targets:
        return front
    xy = np.array([[target.x_cm, target.y_cm] for target in targets], dtype=float)
    outer = np.array([outer_radius_cm(target) for target in targets])
    near = np.flatnonzero(may_be_in_front_fire(scene, i, xy, outer))
    if not len(near):
        return front
    footprints = Footprints.of_models([model, *(targets[k] for k in near)])
    edge = footprints.edge(0, np.arange(1, len(near) + 1))
    sight = sight_between(scene, scene.xy[[i]], xy[near])[0]
    weapons = [scene.ruleset.weapon(name) for name in weapons_of(scene, i)]
    for column, k in enumerate(near):
        seen = bool(sight[column])
        gap = float(edge[column])
        front[k] = any(reaches(scene, weapon, gap, model, targets[k], seen) for weapon in weapons)
        if first and front[k]:
            break
    return front


def may_be_in_front_fire(scene: Scene, i: int, xy: np.ndarray, outer_cm: np.ndarray | float) -> np.ndarray:
    """A cheap first reading of `in_front_fire` for centres `xy` of models reaching `outer_cm` from
    their centre: the centre inside the front arc, and the bases no farther apart than any of
    model i's weapons could reach (`longest_reach_cm`), so that `reaches` and its shapely reading
    of height levels run only for the few that may be in the zone."""
    model = scene.models[i]
    offset = np.asarray(xy, dtype=float) - (model.x_cm, model.y_cm)
    bearing = np.degrees(np.arctan2(offset[:, 1], offset[:, 0]))
    half_arc = scene.ruleset.interception.front_arc_deg / 2
    in_arc = np.abs((bearing - model.heading_deg + 180.0) % 360.0 - 180.0) <= half_arc + ARC_EDGE_DEG
    apart = np.hypot(offset[:, 0], offset[:, 1]) - outer_radius_cm(model) - outer_cm
    return in_arc & (apart <= longest_reach_cm(scene, i) + SLACK_CM)


def longest_reach_cm(scene: Scene, i: int) -> float:
    """An upper bound on how far (base edge to edge) any of model i's weapons reaches: `reaches`'s
    range with the tolerance, the height bonus for every level it stands above the ground (no
    target stands below level 0) and the aimed bonus, whatever its flags; infinite for a weapon
    with no range."""
    levels = height_level(scene, scene.models[i])
    longest = -math.inf
    for weapon in (scene.ruleset.weapon(name) for name in weapons_of(scene, i)):
        if weapon is None:
            continue
        if weapon.range is None:
            return math.inf
        longest = max(longest, range_limit_cm(scene, weapon, levels, aimed=True))
    return longest


def outer_radius_cm(model: ModelSpec) -> float:
    """How far the model's base reaches from its centre at most: a round base's radius, a hull's
    half diagonal."""
    base = model.base
    assert base is not None
    if base.shape == "round":
        return base.diameter_mm / 20.0
    return math.hypot(base.length_mm, base.width_mm) / 20.0


def intercepted_on_the_way(
    scene: Scene, mover: ModelSpec, start: tuple[float, float], waiting: list[int]
) -> list[str]:
    """Ids of the enemy interceptors (`waiting`: indices of those whose order still stood) whose
    front fire zone the mover entered anywhere on its straight move from `start` to where it ends.

    The camera sees no path, so the way is read at stops every `WAY_STEP_CM` and where it comes
    nearest each interceptor (there the range is read exactly); for each interceptor only the stops
    it may see (`may_be_in_front_fire`), nearest first, as the nearest is the likeliest in reach."""
    hostile = [k for k in waiting if scene.models[k].side != mover.side]
    if not hostile:
        return []
    end = np.array([mover.x_cm, mover.y_cm])
    way = end - np.asarray(start, dtype=float)
    length = float(np.hypot(*way))
    share = np.linspace(0.0, 1.0, max(math.ceil(length / WAY_STEP_CM), 1) + 1)
    if length > 0:
        nearest = (scene.xy[hostile] - start) @ way / length**2
        share = np.union1d(share, np.clip(nearest, 0.0, 1.0))
    stops = np.asarray(start, dtype=float) + share[:, None] * way
    outer = outer_radius_cm(mover)
    near = {k: may_be_in_front_fire(scene, k, stops, outer) for k in hostile}
    needed = np.flatnonzero(np.any(list(near.values()), axis=0))
    targets = {
        j: mover.model_copy(update={"x_cm": float(stops[j, 0]), "y_cm": float(stops[j, 1])}) for j in needed
    }
    waylaid = []
    for k in hostile:
        seen = np.flatnonzero(near[k])
        seen = seen[np.argsort(np.hypot(*(stops[seen] - scene.xy[k]).T), kind="stable")]
        if len(seen) and in_front_fire(scene, k, [targets[j] for j in seen], first=True).any():
            waylaid.append(scene.models[k].id)
    return waylaid
