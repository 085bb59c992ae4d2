"""Guns and their crews (`crew_of`): who works each gun, and whether it may fire.

Its own module because both the state report (checks) and the reach of weapons (reach) ask it.
"""

from __future__ import annotations

import numpy as np

from rules_core.footprints import measured
from rules_core.proximity import selected
from rules_core.scene import ModelSpec, Scene


def crew_report(scene: Scene) -> dict[str, dict]:
    """Each gun: its crew (`crew_of`), those within the ruleset's crew distance, the one of them
    leading it where the ruleset needs one (`crew_leader`; only crewmen without the crew rule's
    `not_flags` work it and count), the model towing it where a hitched gun holds its fire
    (`towed_by`), and what that allows (`hits_on`: World at Fire's 4+ / 5+, or a state such as
    "operational")."""
    rules = scene.ruleset.crew
    fp = scene.footprints
    guns: dict[str, dict] = {}
    for g, gun in enumerate(scene.models):
        if not _crewed(scene, gun):
            continue
        crew = [k for k, m in enumerate(scene.models) if m.crew_of == gun.id]
        distance = measured(fp, np.full(len(crew), g), np.array(crew, dtype=int), rules.distance.measured)
        near = [
            scene.models[k].id
            for k, d in zip(crew, np.atleast_1d(distance), strict=True)
            if rules.distance.holds(float(d), scene.cm_per_unit)
        ]
        working = [i for i in near if not any(scene.models[scene.index[i]].has(f) for f in rules.not_flags)]
        counts = sorted((int(key) for key in rules.hits), reverse=True)
        bound = _bound(scene, gun, rules.gun_weapons)
        # A gun the crew rule does not bind is as well served as a gun can be, towing aside.
        key = next((c for c in counts if len(working) >= c or not bound), None)
        hits_on = rules.hits[str(key)] if key is not None else None
        guns[gun.id] = {"crew": [scene.models[k].id for k in crew], "crew_in_range": near}
        if rules.leader_roles and bound:
            leader = next(
                (i for i in working if scene.models[scene.index[i]].role in rules.leader_roles), None
            )
            guns[gun.id]["crew_leader"] = leader
            hits_on = hits_on if leader is not None else None
        if rules.towed_holds_fire:
            tug = next((m.id for m in scene.models if m.towing == gun.id), None)
            guns[gun.id]["towed_by"] = tug
            hits_on = hits_on if tug is None else None
        guns[gun.id] |= {"hits_on": hits_on, "can_fire": hits_on is not None}
    return guns


def _crewed(scene: Scene, gun: ModelSpec) -> bool:
    """Whether the crew rule covers this model: a gun type without crew rules of its own."""
    rules = scene.ruleset.crew
    own = rules.own_rules is not None and selected(gun, rules.own_rules)
    return gun.type in rules.gun_types and not own


def _bound(scene: Scene, gun: ModelSpec, gun_weapons: list[str]) -> bool:
    """Whether the crew rule binds this gun, by the weapons it fires: those the scene names, else
    those its role arms it with (a flamethrower's); a gun armed by neither is taken for the
    rule's own gun."""
    weapons = gun.weapons if gun.weapons is not None else scene.ruleset.role_weapons.get(gun.role or "")
    if not gun_weapons or weapons is None:
        return True
    ruled = {id(scene.ruleset.weapon(name)) for name in gun_weapons}
    return any(id(scene.ruleset.weapon(name)) in ruled for name in weapons)


def unworked_guns(scene: Scene) -> set[int]:
    """Guns that fire at nothing: those the crew rule says cannot fire (Combined Arms: a mortar
    without its mortarmen and crew commander within 1", or hitched), as `check.guns` says. A gun
    of the weapons the rule names (`gun_weapons`) needs its crew, so one with no crew on the scene
    fires at nothing («Наличие 1-2 миномётчиков и командира расчёта является обязательным условием
    для возможности действия миномёта»); any other gun is judged only where the scene names its
    crew (`crew_of`) or its tug: its crew is simply not on the scene."""
    rules = scene.ruleset.crew
    if rules is None:
        return set()
    return {
        scene.index[gun_id]
        for gun_id, gun in crew_report(scene).items()
        if not gun["can_fire"]
        and (
            gun["crew"]
            or gun.get("towed_by")
            or (
                bool(rules.gun_weapons)
                and _bound(scene, scene.models[scene.index[gun_id]], rules.gun_weapons)
            )
        )
    }


def apart_from_crew(scene: Scene, a: int) -> list[tuple[str, str, float]]:
    """Where the crew rule binds moves (`binds_move`): (model, gun or crewman, gap cm) for a
    crewman of a bound gun ending beyond the crew distance from it, or for a bound gun, each of the
    crewmen the scene gives it it ends beyond that distance from. A gun some model tows is on the
    move with its tug, not its crew, and a model that is a gun and a crewman at once is not judged."""
    rules = scene.ruleset.crew
    if rules is None or not rules.binds_move:
        return []
    model = scene.models[a]
    crew = [k for k, m in enumerate(scene.models) if m.crew_of == model.id]
    if model.crew_of is not None and crew:
        return []
    g = scene.index[model.crew_of] if model.crew_of is not None else a
    crew = [a] if model.crew_of is not None else crew
    gun = scene.models[g]
    towed = any(m.towing == gun.id for m in scene.models)
    if not crew or towed or not _crewed(scene, gun) or not _bound(scene, gun, rules.gun_weapons):
        return []
    gaps = np.atleast_1d(
        measured(scene.footprints, np.full(len(crew), g), np.array(crew), rules.distance.measured)
    )
    return [
        (model.id, gun.id if k == a else scene.models[k].id, float(gap))
        for k, gap in zip(crew, gaps, strict=True)
        if not rules.distance.holds(float(gap), scene.cm_per_unit)
    ]
