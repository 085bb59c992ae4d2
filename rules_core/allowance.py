"""How far a model may move this time: its type's move, changed by what the scene says.

Crew, wounds, jumps, move actions, lost limbs and missing gun crews change one model's move;
a unit that moves at its slowest member takes the minimum; terrain crossed on the way caps
it (area terrain, obstacles) or forbids it (too high). Each change leaves a note, so a
verdict can say why the allowance is what it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import shapely

from rules_core.crossing import may_cross
from rules_core.reasons import TOLERANCE_CM, fmt, reason
from rules_core.ruleset import UnitType
from rules_core.scene import ModelSpec, Scene, TerrainSpec


def own_allowance(scene: Scene, a: int, unit_type: UnitType) -> tuple[float | None, list[str]]:
    """One model's allowance in cm (None: the seed gives none), with the notes that changed it."""
    model = scene.models[a]
    cm = scene.cm
    why: list[str] = []
    if scene.phase in scene.ruleset.dash_phases:
        if model.dash is None:
            why = [f"a move in the {scene.phase} phase is a dash: give its dice total as dash"]
            return flag_limits(scene, a, unit_type, None, why, dashing=True)
        why = [f"dash of {fmt(cm(model.dash))} cm"]
        paid = {flag: unit_type.flag_costs[flag] for flag in unit_type.dash_flag_costs}
        allowance = _paid(scene, a, paid, cm(model.dash), why)
        return flag_limits(scene, a, unit_type, allowance, why, dashing=True)
    if scene.phase == "map" and unit_type.map_move is not None:
        # A march on the map is still the model's own legs: lost limbs and leg hits hold it there
        # too («в случае уничтожения 50% конечностей Баг теряет скорость передвижения на 50%»).
        why = [f"march on the tactical map: {fmt(cm(unit_type.map_move))} cm"]
        allowance = _limbs_lost(model, unit_type, cm(unit_type.map_move), why)
        return flag_limits(scene, a, unit_type, allowance, why, dashing=False)
    allowance = None if unit_type.move is None else cm(unit_type.move)
    if model.speed is not None:
        allowance = cm(model.speed)
        why.append(f"its own speed {fmt(cm(model.speed))} cm (army list or order)")
    actions = 0
    if unit_type.move_per_action is not None:
        actions = model.move_actions if model.move_actions is not None else (unit_type.actions or 1)
        allowance = cm(unit_type.move_per_action) * actions
        why.append(f"{actions} move action(s) of {fmt(cm(unit_type.move_per_action))} cm")
    order_actions = scene.ruleset.order_move_actions.get(model.order) if model.order else None
    if order_actions and unit_type.move_per_action is not None and actions > order_actions:
        allowance = cm(unit_type.move_per_action) * order_actions
        why.append(f"its {model.order} order allows {order_actions} move action(s)")
    if _crews_a_gun(scene, model) and unit_type.crew_move is not None:
        allowance = cm(unit_type.crew_move)
        why.append(f"crew of {model.crew_of}")
    if model.has("wounded") and unit_type.wounded_move is not None:
        allowance = cm(unit_type.wounded_move)
        why.append("wounded, carried")
    if model.jump and unit_type.jump_move is not None:
        allowance = _jump_and_walk(scene, a, unit_type, order_actions, why)
    allowance = _limbs_lost(model, unit_type, allowance, why)
    if order_actions == 0:  # not even a jump: the order spends both actions standing
        allowance = 0.0
        why.append(f"its {model.order} order allows no move")
    allowance = _paid(scene, a, unit_type.flag_costs, allowance, why)
    if unit_type.min_crew_to_move is not None:
        crew = sum(1 for m in scene.models if m.crew_of == model.id)
        if crew < unit_type.min_crew_to_move:
            allowance = 0.0
            why.append(f"needs {unit_type.min_crew_to_move} crew to move, has {crew}")
    return flag_limits(scene, a, unit_type, allowance, why, dashing=False)


def _jump_and_walk(
    scene: Scene, a: int, unit_type: UnitType, order_actions: int | None, why: list[str]
) -> float | None:
    """A jet jump spends one action (Mobile Infantry: «На исполнение прыжка затрачивается 1 очко
    действия»), and an order of two actions may spend the other walking («Интенсивное
    перемещение ... Затрачивается 2 очка действия за ход. В этом приказе можно использовать также
    одним из действий реактивный прыжок»): the jump, plus one action's share of the walk the
    order gives (the type's walk per action, else the model's `speed`, which is the whole walk
    of its order, as for a trooper who only walks), unknown where neither is given."""
    model = scene.models[a]
    jump = scene.cm(unit_type.jump_move)
    if not order_actions or order_actions < 2:
        why.append("jump")
        return jump
    if unit_type.move_per_action is not None:
        walk = scene.cm(unit_type.move_per_action)
    elif model.speed is not None:
        walk = scene.cm(model.speed) / order_actions
    else:
        why.append(
            f"jump of {fmt(jump)} cm and, in its {model.order} order, a walk of one more action, "
            "which the seed does not give: give speed"
        )
        return None
    why.append(f"jump of {fmt(jump)} cm and, in its {model.order} order, one action's walk of {fmt(walk)} cm")
    return jump + walk


def _ground_level(
    scene: Scene,
    piece: TerrainSpec,
    polygon: shapely.Polygon,
    terrain: list[tuple[TerrainSpec, shapely.Polygon]],
) -> int:
    """The level of the ground round a barrier piece: the highest levelled piece it lies on
    (Mobile Infantry's relief: «уровнями высоты, которые оконтурены барьерами»; a level-2 plateau
    on a level-1 hill is outlined by a one-storey barrier, as the +35 mm a level a shot down gains
    already counts it), 0 on the table."""
    levels = [
        other.level if other.level is not None else scene.ruleset.terrain[other.kind].unlevelled_as
        for other, outline in terrain
        if other is not piece and scene.ruleset.terrain[other.kind].barrier and outline.covers(polygon)
    ]
    return max((level for level in levels if level is not None), default=0)


# How near the barrier's outline a point of the move's path counts as crossing it (cm), and how
# far out a bridge may fall short of the crossing (the camera's contact tolerance is added).
_OUTLINE_CM = 1e-4
_WORLD = shapely.box(-1e5, -1e5, 1e5, 1e5)


def _bridged(
    scene: Scene,
    polygon: shapely.Polygon,
    storeys: int,
    terrain: list[tuple[TerrainSpec, shapely.Polygon]],
    stays_on: Callable[[shapely.Geometry], bool] | None,
) -> bool:
    """Whether the move crosses the barrier's outline on bridges only (Mobile Infantry: «Барьеры
    одноэтажные и двухэтажные могут быть соединены мостами (мосты не дают штрафов при
    передвижении)»): pieces of a kind that bridges a barrier of `storeys` (`bridges_up_to_level`;
    CONTRACTS has no bridge kind, so a road laid across it). The move's path (its centre's, a
    hull's swept core) must meet the outline, and every point where it does lie on such a piece,
    within contact_tolerance_cm; a move that crosses it anywhere else keeps the barrier rule."""
    bridges = [
        outline
        for piece, outline in terrain
        if (up_to := scene.ruleset.terrain[piece.kind].bridges_up_to_level) is not None and storeys <= up_to
    ]
    if stays_on is None or not bridges:
        return False
    off_outline = _WORLD.difference(polygon.boundary.buffer(_OUTLINE_CM))
    if stays_on(off_outline):  # only the base's rim reaches the barrier, not the path itself
        return False
    decks = shapely.union_all(bridges).buffer(scene.ruleset.contact_tolerance_cm)
    return stays_on(shapely.union(off_outline, decks))


def _crews_a_gun(scene: Scene, model: ModelSpec) -> bool:
    """The model is a gun's crew, which moves as the gun does (World at Fire's 10 cm: «расчет
    орудия может подвигаться также на 10 сантиметров»), not a vehicle's, which walks as infantry."""
    if model.crew_of is None:
        return False
    gun = scene.models[scene.index[model.crew_of]]
    return scene.ruleset.unit_types[gun.type].movement != "vehicle"


def _limbs_lost(
    model: ModelSpec, unit_type: UnitType, allowance: float | None, why: list[str]
) -> float | None:
    """Half the move from half the limbs lost, none from nearly all (Mobile Infantry's bugs)."""
    if model.limbs_lost_pct is None or allowance is None:
        return allowance
    immobile, half = unit_type.immobile_from_limbs_lost_pct, unit_type.half_from_limbs_lost_pct
    if immobile is not None and model.limbs_lost_pct >= immobile:
        why.append(f"lost {model.limbs_lost_pct:g}% of its limbs, immobile")
        return 0.0
    if half is not None and model.limbs_lost_pct >= half:
        why.append(f"lost {model.limbs_lost_pct:g}% of its limbs, half speed")
        return allowance / 2
    return allowance


def _paid(
    scene: Scene, a: int, costs: dict[str, float], allowance: float | None, why: list[str]
) -> float | None:
    """The allowance less what each act the model is flagged with costs (mounting, swapping roles)."""
    if allowance is None:
        return None
    for flag, cost in costs.items():
        if scene.models[a].has(flag):
            allowance = max(allowance - scene.cm(cost), 0.0)
            why.append(f"{flag.replace('_', ' ')} costs {fmt(scene.cm(cost))} cm")
    return allowance


def flag_limits(
    scene: Scene, a: int, unit_type: UnitType, allowance: float | None, why: list[str], dashing: bool
) -> tuple[float | None, list[str]]:
    """The caps of the states the model is in (`flag_moves`), after everything else: a state such
    as a freshly formed cavalry unit bounds the whole move, whatever it would otherwise be, a
    Bronepehota jump (which replaces the walk) included."""
    model = scene.models[a]
    for limit in unit_type.flag_moves:
        move = limit.dash_move if dashing else limit.move
        if move is None or not limit.binds(model):
            continue
        cap = scene.cm(move)
        if allowance is None or cap < allowance - TOLERANCE_CM:
            allowance = cap
            state = " and ".join(f.replace("_", " ") for f in limit.flags)
            why.append(f"{state}: {'a dash of ' if dashing else ''}{fmt(cap)} cm")
    return allowance, why


def tow_allowance(scene: Scene, a: int) -> tuple[float, str] | None:
    """A tug, or a model being towed, moves by the tow rule: full move when the tug's wounds (plus
    its chassis bonus) are at least `full_ratio` times the towed model's, the reduced move when
    they are at least equal, not at all below that."""
    rules = scene.ruleset.tow
    model = scene.models[a]
    if rules is None or rules.full_move is None or rules.reduced_move is None or rules.full_ratio is None:
        return None
    if model.towing is not None:
        tug, towed = model, scene.models[scene.index[model.towing]]
    else:
        tug = next((m for m in scene.models if m.towing == model.id), None)
        towed = model
        if tug is None:
            return None
    if tug.wounds is None or towed.wounds is None:
        return None
    strength = tug.wounds + rules.chassis_bonus.get(tug.chassis or "", 0)
    if strength >= rules.full_ratio * towed.wounds:
        move, why = (
            rules.full_move,
            f"tow: {tug.id} ({strength} wounds) at least {rules.full_ratio:g}x {towed.id}",
        )
    elif strength >= towed.wounds:
        move, why = (
            rules.reduced_move,
            f"tow: {tug.id} ({strength} wounds) under {rules.full_ratio:g}x {towed.id}",
        )
    else:
        move, why = 0.0, f"tow: {tug.id} ({strength} wounds) is weaker than {towed.id} ({towed.wounds})"
    return scene.cm(move), why


def towed_allowance(before: Scene, after: Scene, a: int) -> tuple[float, str] | None:
    """A towed object goes as far as its tug went this move (Bronepehota: «перемещаясь на то же
    расстояние, что и она»), whatever its own speed; None when the ruleset does not tow so, or
    nothing in both scenes tows it."""
    rules = after.ruleset.tow
    if rules is None or not rules.towed_moves_as_tug:
        return None
    towed = after.models[a]
    tug = next((m for m in after.models if m.towing == towed.id), None)
    if tug is None or tug.id not in before.index:
        return None
    old = before.models[before.index[tug.id]]
    went = math.hypot(tug.x_cm - old.x_cm, tug.y_cm - old.y_cm)
    return went, f"towed by {tug.id}, which moved {fmt(went)} cm"


def unit_allowance(scene: Scene, a: int, types: list[UnitType]) -> tuple[float | None, list[str]]:
    """The model's allowance, or its unit's slowest member's where the type says so."""
    towed = tow_allowance(scene, a)
    if towed is not None:
        return towed[0], [towed[1]]
    allowance, why = own_allowance(scene, a, types[a])
    model = scene.models[a]
    if types[a].unit_moves_at_slowest:
        for k, other in enumerate(scene.models):
            if other.unit == model.unit and k != a:
                theirs, _ = own_allowance(scene, k, types[k])
                if theirs is not None and (allowance is None or theirs < allowance - TOLERANCE_CM):
                    allowance = theirs
                    why = [f"unit moves at its slowest member, {other.id} ({other.type}) {fmt(theirs)} cm"]
    return allowance, why


def highest_obstacle(scene: Scene, a: int, unit_type: UnitType) -> tuple[float | None, str]:
    """The highest obstacle (cm) the model crosses, and what sets it: its type's limit, or its own
    wheel or hull where the scene gives it (World at Fire: «не может преодолевать препятствия,
    которые по высоте выше высоты колеса», «больше высоты корпуса техники»); None: no limit known."""
    limits: list[tuple[float, str]] = []
    if unit_type.obstacle_max_height is not None:
        limits.append((scene.cm(unit_type.obstacle_max_height), ""))
    if unit_type.obstacle_limit_from is not None:
        own = getattr(scene.models[a], f"{unit_type.obstacle_limit_from}_height_cm")
        if own is not None:
            limits.append((own, f" (its {unit_type.obstacle_limit_from} height)"))
    return min(limits, default=(None, ""), key=lambda limit: limit[0])


def climbs_freely(scene: Scene, a: int, unit_type: UnitType, start: ModelSpec) -> bool:
    """Whether the move from `start` walks up or down a slope the type walks (`max_climb_free_on`,
    World at Fire: a hill is no obstacle, the climb rules speak of «препятствия»): every piece
    under either end is such a slope, and the height changes by no more than the tallest of them
    where their heights are given. Any other piece there (a ruin's upper floor, a building, a wall)
    may be what the model climbed, as the seed's own climb is «подняться на второй этаж»."""
    slopes = unit_type.max_climb_free_on
    if not slopes or not any(piece.kind in slopes for piece in scene.spec.terrain):
        return False
    model = scene.models[a]
    ends = shapely.points([(start.x_cm, start.y_cm), (model.x_cm, model.y_cm)])
    under = [piece for piece in scene.spec.terrain if shapely.Polygon(piece.polygon_cm).covers(ends).any()]
    if not under or any(piece.kind not in slopes for piece in under):
        return False
    tops = [piece.height_cm for piece in under if piece.height_cm is not None]
    rise = abs((model.z_cm or 0.0) - (start.z_cm or 0.0))
    return not tops or rise <= max(tops) + TOLERANCE_CM


def climb_limit(
    scene: Scene, a: int, unit_type: UnitType, start: ModelSpec
) -> tuple[float | None, str]:
    """The most the model's height (z_cm) may change in one move from `start` (cm), and what sets
    it: its own wheel or hull where the type says so and the scene gives it, else the type's
    `max_climb`; none on a slope the type walks up (`climbs_freely`)."""
    if climbs_freely(scene, a, unit_type, start):
        return None, ""
    if unit_type.max_climb_from is not None:
        own = getattr(scene.models[a], f"{unit_type.max_climb_from}_height_cm")
        if own is not None:
            return own, f" (its {unit_type.max_climb_from} height)"
    if unit_type.max_climb is None:
        return None, ""
    return scene.cm(unit_type.max_climb), ""


def terrain_allowance(
    scene: Scene,
    a: int,
    crosses: Callable[[shapely.Geometry], bool],
    terrain: list[tuple[TerrainSpec, shapely.Polygon]],
    allowance: float | None,
    stays_on: Callable[[shapely.Geometry], bool] | None = None,
    starts_against: Callable[[shapely.Geometry], bool] | None = None,
) -> tuple[float | None, list[str], list[dict[str, str]]]:
    """Caps from area terrain and obstacles the move crossed, and obstacles too high to cross.

    A barrier outlines its height level (Mobile Infantry: «уровнями высоты, которые оконтурены
    барьерами»), and a slope a hill's top, so a move that `stays_on` the piece throughout walks on
    its top and crosses neither. A barrier that takes two turns is crossed only by a walk that
    `starts_against` its outline, where the turn before ended."""
    model = scene.models[a]
    unit_type = scene.unit_type(a)
    cm = scene.cm
    why: list[str] = []
    reasons: list[dict[str, str]] = []
    # A dash pays for the terrain in its dice (World at Fire: «при совершении Рывка надо бросить
    # на один кубик меньше»), not by the movement phase's caps; what cannot be crossed still binds.
    dashing = scene.phase in scene.ruleset.dash_phases
    for piece, polygon in terrain:
        effect = scene.ruleset.terrain[piece.kind]
        if not crosses(polygon) or (effect.slope and stays_on is not None and stays_on(polygon)):
            continue
        caps = []
        level = piece.level if piece.level is not None else effect.unlevelled_as
        if (
            effect.barrier
            and level is not None
            and unit_type.max_barrier_level is not None
            and not (stays_on is not None and stays_on(polygon))
        ):
            limit = unit_type.max_barrier_level
            if model.jump and unit_type.jump_barrier_level is not None:
                limit = max(limit, unit_type.jump_barrier_level)
            ground = _ground_level(scene, piece, polygon, terrain)
            storeys = level - ground
            round_it = f", {storeys} above the level {ground} round it" if ground else ""
            who = f"{model.id} ({model.type}{', jumping' if model.jump else ''})"
            what = f"the level {level} {piece.kind} {piece.id}{round_it}"
            if storeys > limit and not _bridged(scene, polygon, storeys, terrain, stays_on):
                reasons.append(
                    reason("impassable_terrain", f"{who} cannot cross {what}; it crosses up to level {limit}")
                )
                continue
            if (
                storeys in unit_type.two_turn_barrier_levels
                and not model.jump
                and starts_against is not None
                and not starts_against(polygon)
                and not _bridged(scene, polygon, storeys, terrain, stays_on)
            ):
                reasons.append(
                    reason(
                        "too_far",
                        f"{who} walked across {what} in one move; a {storeys}-storey barrier takes two "
                        "turns: end one move against it and cross it with the next",
                    )
                )
                continue
        if effect.area and unit_type.area_terrain_move is not None:
            caps.append((cm(unit_type.area_terrain_move), f"in or through {piece.kind} {piece.id}"))
        if effect.obstacle:
            height = piece.height_cm
            too_high, what = highest_obstacle(scene, a, unit_type)
            if (
                too_high is not None
                and (height is None or height > too_high + TOLERANCE_CM)
                and not may_cross(scene, model, piece, polygon)
            ):
                high = "" if height is None else f" ({fmt(height)} cm high)"
                reasons.append(
                    reason(
                        "impassable_terrain",
                        f"{model.id} ({model.type}) cannot cross {piece.kind} {piece.id}{high}, "
                        f"limit {fmt(too_high)} cm{what}",
                    )
                )
                continue
            slows = unit_type.obstacle_slows_above
            if unit_type.obstacle_move is not None and (
                slows is None or height is None or height > cm(slows) + TOLERANCE_CM
            ):
                caps.append((cm(unit_type.obstacle_move), f"crossing {piece.kind} {piece.id}"))
        if dashing:
            continue
        for cap, where in caps:
            if allowance is None or cap < allowance:
                allowance = cap
                why.append(f"{where}: {fmt(cap)} cm")
    return allowance, why, reasons
