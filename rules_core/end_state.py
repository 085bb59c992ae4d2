"""Where a move may not end: off the table, on another base, too near the enemy, in terrain the
model cannot enter, with its unit split, outside its deployment zone.

Each check looks only at the AFTER scene and returns reasons; `contacts_after` lists the
enemies a moved model now touches (or is within melee distance of), since it is the attacker.
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from rules_core.crossing import blocks
from rules_core.deployment import deployment_problems, inside, too_close_to_enemy, zone_of
from rules_core.footprints import measured, stands_in
from rules_core.proximity import can_attack, held_off_by, within
from rules_core.reasons import TOLERANCE_CM, angle_between, fmt, reason
from rules_core.scene import Scene, TerrainSpec


def off_table(after: Scene, a: int) -> list:
    fa = after.footprints
    if fa.radius[a] > 0:
        (x, y), r = after.xy[a], fa.radius[a]
        minx, miny, maxx, maxy = x - r, y - r, x + r, y + r
    else:
        minx, miny, maxx, maxy = shapely.bounds(fa.core[a])
    table = after.table
    if (
        minx < -TOLERANCE_CM
        or miny < -TOLERANCE_CM
        or maxx > table.width_cm + TOLERANCE_CM
        or (maxy > table.depth_cm + TOLERANCE_CM)
    ):
        return [reason("off_table", f"{after.models[a].id} ends (partly) off the table")]
    return []


def on_top(after: Scene, upper: int, lower: int) -> bool:
    """Whether model `upper` stands on `lower`'s hull: its type may (`stands_on`) and it is higher."""
    top, bottom = after.models[upper], after.models[lower]
    return (
        bottom.type in after.unit_type(upper).stands_on
        and (top.z_cm or 0.0) > (bottom.z_cm or 0.0) + TOLERANCE_CM
    )


def hangs_mid_climb(after: Scene, a: int, flies: np.ndarray, start_z_cm: float | None) -> list:
    """A model whose climb counts (`climb_counts_from`: World at Fire's infantry) ending at least
    that high (`z_cm`; a lower step is crossed «без замедления», no climb to hang in) with nothing
    under its base that high: no terrain piece whose top (`height_cm`, within the contact
    tolerance; one without it may be that high) reaches it, nor a hull it stands on (`on_top`).
    Flying models, placing at deployment and a move that kept its height (from `start_z_cm`: a
    turn on the spot is no climb) are not judged. Under it means under its centre: a rim that
    only touches a wall stands on nothing. It hangs half-way up and must end at the
    foot instead («Если расстояния движения в 15см не хватает чтобы подняться наверх конечной точки
    и отряд как бы зависает в воздухе посередине дороги, то отряд должен завершить движение у
    основания препятствия»), unless a flag of its type's `hangs_flags` says it may (mountain
    troops: «горные стрелки – они могут “зависать” на полпути»)."""
    model, climbs_from = after.models[a], after.unit_type(a).climb_counts_from
    z, slack = model.z_cm or 0.0, after.ruleset.contact_tolerance_cm
    if (
        after.phase == "deployment"
        or flies[a]
        or climbs_from is None
        or any(model.has(flag) for flag in after.unit_type(a).hangs_flags)
        or z < after.cm(climbs_from) - TOLERANCE_CM
        or abs(z - (start_z_cm or 0.0)) <= TOLERANCE_CM
    ):
        return []
    shape, centre = after.footprints.shapes[a], shapely.Point(model.x_cm, model.y_cm)
    for piece in after.spec.terrain:
        carries = piece.height_cm is None or piece.height_cm >= z - slack - TOLERANCE_CM
        if carries and shapely.Polygon(piece.polygon_cm).covers(centre):
            return []
    hulls = after.footprints.shapes
    if any(k != a and not flies[k] and on_top(after, a, k) and shapely.intersects(shape, hulls[k])
           for k in range(len(after.models))):
        return []
    return [
        reason(
            "too_far",
            f"{model.id} ends {fmt(z)} cm up with nothing under it that high: part-way up a climb, "
            "it must stop at the foot of the obstacle (only mountain troops may hang half-way)",
        )
    ]


def overlaps(after: Scene, a: int, flies: np.ndarray) -> list:
    """Ending on another ground model's base (not its own gun's, where crews share it, nor a hull
    one stands on top of the other), or on an objective marker where that is forbidden."""
    fa = after.footprints
    model = after.models[a]
    tolerance = after.ruleset.contact_tolerance_cm
    # Query by distance from the core: a round base's core is its centre, so intersecting
    # a's disc with the other cores would miss bases whose centre lies outside a's disc.
    reach = float(fa.radius[a]) + float(fa.radius.max()) + TOLERANCE_CM
    candidates = fa.tree.query(fa.core[a], predicate="dwithin", distance=reach)
    candidates = candidates[(candidates != a) & ~flies[candidates]]
    crew = after.ruleset.crew
    if crew is not None and crew.shares_base:
        own = [model.crew_of == after.models[k].id or after.models[k].crew_of == model.id for k in candidates]
        candidates = candidates[~np.array(own, dtype=bool)]
    above = [on_top(after, a, k) or on_top(after, k, a) for k in candidates]
    candidates = candidates[~np.array(above, dtype=bool)]
    out = []
    if len(candidates):
        hit = fa.overlapping(np.full(len(candidates), a), candidates, tolerance)
        out += [reason("overlaps_model", f"{model.id} ends on {after.models[k].id}") for k in candidates[hit]]
    objectives = after.ruleset.objectives
    if objectives is not None and objectives.no_end_on:
        for objective in after.spec.objectives:
            radius = (objective.diameter_mm or objectives.marker_mm) / 20.0
            centre = shapely.Point(objective.x_cm, objective.y_cm)
            if float(shapely.distance(fa.core[a], centre)) - fa.radius[a] - radius < -tolerance:
                out.append(
                    reason(
                        "overlaps_model",
                        f"{model.id} ends on objective {objective.id} (moving through it is allowed)",
                    )
                )
    return out


def near_enemy(after: Scene, a: int, flies: np.ndarray, buffer_cm: float | None) -> list:
    """Ending inside the enemy keep-away distance (World at Fire: closer than 2 cm)."""
    if buffer_cm is None:
        return []
    model = after.models[a]
    fa = after.footprints
    reach = buffer_cm + fa.radius[a] + float(fa.radius.max()) + TOLERANCE_CM
    near = fa.tree.query(fa.core[a], predicate="dwithin", distance=reach)
    enemies = near[held_off_by(after, a)[near] & ~flies[near]]
    if not len(enemies):
        return []
    gaps = fa.edge(np.full(len(enemies), a), enemies)
    close = after.ruleset.enemy_buffer.holds(gaps, after.cm_per_unit)
    return [
        reason(
            "too_close_to_enemy",
            f"{model.id} ends {fmt(g)} cm from enemy {after.models[k].id}, "
            f"must stay at least {fmt(buffer_cm)} cm away",
        )
        for k, g in zip(enemies[close], gaps[close], strict=True)
    ]


def in_forbidden_terrain(after: Scene, a: int, terrain: list[tuple[TerrainSpec, shapely.Polygon]]) -> list:
    """Ending in a piece the model may not enter. A round base whose rim only touches the piece,
    overlapping its outline by no more than the camera's contact_tolerance_cm, is beside it, not in
    it, as a move brushing it does not cross it (MoveJudge._crosses; Tankomaster's AT gun stopped
    against a hill still stands on flat ground: «Противотанковое орудие может двигаться только по
    ровной местности»)."""
    model = after.models[a]
    tolerance = after.ruleset.contact_tolerance_cm
    return [
        reason(
            "impassable_terrain",
            f"{model.id} ends in {piece.kind} {piece.id}, which {model.type} cannot enter",
        )
        for piece, polygon in terrain
        if blocks(after, model, piece, polygon, ending=True)
        and stands_in(after.footprints, a, polygon, tolerance)
    ]


def split_unit(after: Scene, a: int, coherency: dict[str, dict], placed_in_play: bool = False) -> list:
    """The moved model's unit ends in more than one group (it broke, or kept broken, coherency), in a
    phase where the ruleset binds a move to its unit (`coherency_move_phases`). A model placed on the
    table during the game (`placed_in_play`: Tankomaster's ambush, «во время своего хода использовать
    один приказ для размещения на поле одного подразделения в засаде») is being set up, so its unit is
    held to the set-up spacing in any phase («При расстановке части расстояние между солдатами не
    должно превышать 5 см»), as World at Fire's late arrivals are."""
    unit = after.models[a].unit
    state = coherency.get(unit)
    phases = after.ruleset.coherency_move_phases
    bound = phases is None or after.phase in phases or placed_in_play
    if state is None or state["coherent"] or not bound:
        return []
    rule = after.ruleset.coherency
    groups = " | ".join(", ".join(g) for g in state["groups"])
    limit = f"{'within' if rule.inclusive else 'less than'} {fmt(after.cm(rule.value))} cm"
    spacing = f"{limit} apart ({rule.measured})"
    return [
        reason(
            "breaks_coherency",
            f"unit {unit} ends in {len(state['groups'])} groups ({groups}); models must stay {spacing}",
        )
    ]


def outside_zone(after: Scene, a: int, placed_in_play: bool = False) -> list:
    """Where a model deployed (or, `placed_in_play`, came on during the game) breaks its zone."""
    deploying = after.phase == "deployment" or placed_in_play
    if not deploying or after.spec.deployment is None or after.ruleset.deployment is None:
        return []
    model = after.models[a]
    kind = after.ruleset.deployment.kinds[after.spec.deployment.kind]
    zone = zone_of(after, model.side)
    if zone is None and kind.one_sided:
        return []
    outside = deployment_problems(after, a, kind, zone, keep_away=False)
    problems = [reason("outside_deployment_zone", problem) for problem in outside]
    if zone is None:
        return problems
    close = too_close_to_enemy(after, a, kind)
    return problems + [reason("too_close_to_enemy", problem) for problem in close]


def outside_enemy_zone(after: Scene, a: int) -> list:
    """A late unit coming onto the table (World at Fire «Диверсия», «С Небес») stands in an enemy's
    deployment zone: «они прибывают на второй ход в зону противника». Without zones it is not judged."""
    if after.spec.deployment is None or after.ruleset.deployment is None:
        return []
    model = after.models[a]
    enemies = [side for side in after.spec.deployment.sides if side != model.side]
    zones = [zone_of(after, side) for side in enemies]
    if not zones or any(inside(after, a, zone) for zone in zones):
        return []
    return [
        reason(
            "outside_deployment_zone",
            f"{model.id} arrives late, so it comes on in the enemy's zone ({', '.join(enemies)}), not here",
        )
    ]


def contacts_after(after: Scene, a: int) -> list[str] | None:
    """Enemies within melee distance after the move (None where the ruleset has no melee rule)."""
    rule = after.ruleset.melee
    if rule is None:
        return None
    enemies = np.flatnonzero(after.sides != after.models[a].side)
    if not len(enemies):
        return []
    distance = measured(after.footprints, np.full(len(enemies), a), enemies, rule.measured)
    mover = after.models[a]
    return [
        after.models[k].id
        for k in enemies[within(after, rule, distance)]
        if can_attack(after, mover, after.models[k])
    ]


def sudden_attacks(after: Scene, a: int, contacts: list[str]) -> list[str]:
    """Touched enemies that cannot see the mover: it stands outside their field of view (from behind).
    Only someone can fail to see it (Bronepehota: «защищающийся пехотинец или пилот атакуемой машины
    «не видит» атаки»): a type that fights in melee (`melee_attackers` types: infantry, vehicles)
    and is not `pilotless`; a gun or a vehicle without its pilot is no one."""
    field = after.ruleset.field_of_view_deg
    if field is None:
        return []
    mover = after.models[a]
    fighters = after.ruleset.melee_attackers
    sudden = []
    for enemy_id in contacts:
        enemy = after.models[after.index[enemy_id]]
        if enemy.heading_deg is None or enemy.has("pilotless"):
            continue
        if fighters is not None and fighters.types is not None and enemy.type not in fighters.types:
            continue
        bearing = math.degrees(math.atan2(mover.y_cm - enemy.y_cm, mover.x_cm - enemy.x_cm))
        if angle_between(bearing, enemy.heading_deg) > field / 2 + 1e-6:
            sudden.append(enemy_id)
    return sudden
