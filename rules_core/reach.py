"""Ranges: how far every enemy is from a shooter (model or unit), and which weapons reach it."""

from __future__ import annotations

import numpy as np
import shapely

from rules_core.crew import unworked_guns
from rules_core.errors import SceneError, SharedName
from rules_core.lobbing import over_obstacle, throws_over_obstacle
from rules_core.proximity import fire_held, within
from rules_core.ruleset import Ruleset, Weapon
from rules_core.scene import ModelSpec, Scene
from rules_core.sight import fire_blockers, sight_between, sight_blockers, sight_lines

TOLERANCE_CM = 1e-6


def shooters_of(scene: Scene, from_id: str) -> list[int]:
    """The model FROM names, else its unit's models; an id that is both a model's and a unit's
    holding other models is refused, as either reading would change who fires."""
    members = np.flatnonzero(scene.units == from_id).tolist()
    if from_id in scene.index:
        model = scene.index[from_id]
        if members and members != [model]:
            held = tuple(scene.models[k].id for k in members)
            holds = ", ".join(held)
            raise SceneError(
                f"FROM {from_id!r} is both a model id and a unit id (unit {from_id!r} holds {holds})",
                f"rename the unit (e.g. {from_id}-unit) so FROM names one of them",
                fault=SharedName(from_id, held),
            )
        return [model]
    if not members:
        raise SceneError(
            f"FROM: unknown model or unit id {from_id!r}", "use a model id or a unit name from the scene"
        )
    return members


def weapons_of(scene: Scene, i: int) -> list[str]:
    """The scene's weapons for the model, else its role's or its type's defaults, which for a
    vehicle carrying passengers include their fire where the ruleset gives them one (Combined
    Arms: «Бойцы танкового десанта могут вести огонь с техники на расстояние до 6 дюймов»). A
    model whose `weapons` the scene lists has those only, as CONTRACTS says."""
    model = scene.models[i]
    if model.weapons is not None:
        return list(model.weapons)
    own = list(scene.ruleset.role_weapons.get(model.role or "", scene.unit_type(i).weapons))
    riders = [
        name
        for name, weapon in scene.ruleset.weapons.items()
        if weapon.by_passengers
        and model.passengers
        and (weapon.from_chassis is None or model.chassis in weapon.from_chassis)
        and name not in own
    ]
    return own + riders


def reaches(
    scene: Scene,
    weapon: Weapon | None,
    edge_cm: float,
    shooter: ModelSpec,
    target: ModelSpec,
    sight: bool = True,
) -> bool:
    """Whether the weapon reaches: range (+ tolerance, height and, for automatic weapons, aimed
    bonuses), shooter state (and, for the riders' fire, riders aboard), target type (the weapon's
    and the shooter's role's), and a line of sight for the weapons that need one.

    A name the ruleset has no range for (a ruleset without a weapon table) never reaches.
    """
    if weapon is None or not all(shooter.has(flag) for flag in weapon.requires_flags):
        return False
    if any(shooter.has(flag) for flag in (*weapon.not_flags, *scene.ruleset.hold_fire_flags)):
        return False
    if weapon.by_passengers and shooter.passengers == 0:
        return False
    chassis = weapon.from_chassis
    if chassis is not None and shooter.chassis is not None and shooter.chassis not in chassis:
        return False
    if weapon.target_types is not None and target.type not in weapon.target_types:
        return False
    role_targets = scene.ruleset.role_target_types.get(shooter.role or "")
    if role_targets is not None and target.type not in role_targets:
        return False
    if weapon.needs_sight and not sight:
        return False
    if weapon.needs_sight and _looks_up(scene, shooter, target):
        return False
    if weapon.range is None:
        return True
    levels_below = max(height_level(scene, shooter) - height_level(scene, target), 0)
    limit = range_limit_cm(scene, weapon, levels_below, _aims(scene.ruleset, shooter))
    return edge_cm <= limit + TOLERANCE_CM if weapon.inclusive else edge_cm < limit - TOLERANCE_CM


def range_limit_cm(scene: Scene, weapon: Weapon, levels_below: int, aimed: bool) -> float:
    """How far (edge to edge) a ranged weapon reaches: its range, the eye's tolerance, the range
    per level the target stands below and, for an automatic weapon aimed, the aimed bonus. A
    thrown weapon (`no_height_bonus`) is not small arms and gains no height range."""
    rules = scene.ruleset
    levels = 0 if weapon.no_height_bonus else levels_below
    return scene.cm(
        weapon.range
        + rules.range_tolerance
        + rules.range_per_level_below * levels
        + (rules.aimed_range_bonus if aimed and weapon.automatic else 0.0)
    )


def _looks_up(scene: Scene, shooter: ModelSpec, target: ModelSpec) -> bool:
    """The target stands on a higher level where sight runs level or down only (`no_sight_upward`)."""
    return scene.ruleset.no_sight_upward and height_level(scene, target) > height_level(scene, shooter)


def _aims(rules: Ruleset, shooter: ModelSpec) -> bool:
    return shooter.has("aimed") and not any(shooter.has(flag) for flag in rules.aimed_not_flags)


def height_level(scene: Scene, model: ModelSpec) -> int:
    """The model's own level, else the highest level of the pieces its centre stands in that set
    one (`stands_at_level`): where the scene draws the relief, the figure on it is at its height."""
    if model.level is not None:
        return model.level
    here = shapely.Point(model.x_cm, model.y_cm)
    return max(
        (
            t.level
            for t in scene.spec.terrain
            if t.level is not None
            and scene.ruleset.terrain[t.kind].stands_at_level
            and shapely.Polygon(t.polygon_cm).covers(here)
        ),
        default=0,
    )


def effect_of(scene: Scene, weapon: Weapon, edge_cm: float) -> str | None:
    """The weapon's effect at this distance: a sure hit or a scattering template (mobile infantry
    grenades), or its band (combined arms shotgun: kills up to 3", wounds to 6")."""
    if weapon.sure_hit is not None:
        return (
            "sure_hit"
            if edge_cm <= scene.cm(weapon.sure_hit + scene.ruleset.range_tolerance) + TOLERANCE_CM
            else "scatter"
        )
    bands = weapon.bands
    return next((band.name for band in bands if band.holds(edge_cm, scene.cm_per_unit, TOLERANCE_CM)), None)


def _covers(scene: Scene) -> list[tuple[shapely.Geometry, str, bool, int | None]]:
    """Everything a target may cover in or behind: (shape, save, shelters one behind it, the
    model it is, for a hull)."""
    rules = scene.ruleset
    pieces: list[tuple[shapely.Geometry, str, bool, int | None]] = [
        (shapely.Polygon(t.polygon_cm), effect.cover, effect.cover_behind, None)
        for t in scene.spec.terrain
        if (effect := rules.terrain[t.kind]).cover is not None
    ]
    hulls = rules.cover.hulls if rules.cover is not None else {}
    pieces += [
        (scene.footprints.shapes[k], hulls[model.type], True, k)
        for k, model in enumerate(scene.models)
        if model.type in hulls
    ]
    return pieces


def cover_of(scene: Scene, covers: list, s: int, t: int) -> str | None:
    """The best cover save (lowest roll needed) the target has against this shooter: the pieces
    it stands in, and those the line of fire crosses just before it (within the ruleset's
    `cover.behind`) where they shelter a man behind them; a piece the shooter stands in fires out
    of it. None in the open, or for a type that takes no cover."""
    rule = scene.ruleset.cover
    target = scene.models[t]
    if rule is not None and rule.target_types is not None and target.type not in rule.target_types:
        return None
    fp = scene.footprints
    here, there = shapely.Point(target.x_cm, target.y_cm), shapely.Point(scene.xy[s])
    line = shapely.LineString([there, here])
    saves = []
    for shape, save, behind, model in covers:
        if model in (s, t):
            continue
        stands_in = model is None and shape.covers(here)
        if stands_in or (
            rule is not None
            and behind
            and not shape.covers(there)
            and line.intersects(shape)
            and within(scene, rule.behind, fp.edge_to(line.intersection(shape), t))
        ):
            saves.append(save)
    return min(saves, key=lambda save: int(save.rstrip("+"))) if saves else None


def ranges_report(scene: Scene, from_id: str) -> dict:
    """Every enemy model, nearest first: its distance from the nearest shooter, the weapons of any
    shooter that reach it (none of a gun its crew cannot work, nor of a model a `holds_fire`
    rule keeps from firing), and where the ruleset says so its
    cover, sight line and effects (each weapon's from the nearest shooter it reaches from)."""
    # By id, so equally near shooters (whose line of fire decides cover) do not hang on the listing.
    shooters = sorted(shooters_of(scene, from_id), key=lambda k: scene.models[k].id)
    side = scene.models[shooters[0]].side
    targets = np.flatnonzero(scene.sides != side)
    fp = scene.footprints
    if not len(targets):
        return {"from": from_id, "side": side, "unit_of_measure": scene.ruleset.unit, "targets": []}
    core = fp.core
    gap = shapely.distance(core[shooters][:, None], core[targets][None, :])
    edge = np.maximum(gap - fp.radius[shooters][:, None] - fp.radius[targets][None, :], 0.0)
    centre = shapely.distance(
        shapely.centroid(core[shooters])[:, None], shapely.centroid(core[targets])[None, :]
    )
    blockers = sight_blockers(scene)
    covers = _covers(scene)
    sight = sight_between(scene, scene.xy[shooters], scene.xy[targets])
    open_fire = sight_lines(fire_blockers(scene), scene.xy[shooters], scene.xy[targets], seen_in=False)
    unworked = unworked_guns(scene) | fire_held(scene)
    rows = []
    for column, t in enumerate(targets):
        target = scene.models[t]
        reaching: list[str] = []
        effects: dict[str, str] = {}
        thrown: dict[str, dict] = {}
        seen = False
        # Nearest shooter first: a weapon's effect (a shotgun's band) is the nearest reaching one's.
        for row in np.argsort(edge[:, column], kind="stable"):
            s = shooters[row]
            shooter = scene.models[s]
            seen |= bool(sight[row, column]) and not _looks_up(scene, shooter, target)
            for name in weapons_of(scene, s) if s not in unworked and open_fire[row, column] else []:
                weapon = scene.ruleset.weapon(name)
                if name in reaching or not reaches(
                    scene, weapon, edge[row, column], shooter, target, sight[row, column]
                ):
                    continue
                reaching.append(name)
                harmed = weapon.harms is None or target.type in weapon.harms
                effect = effect_of(scene, weapon, edge[row, column]) if harmed else None
                if throws_over_obstacle(scene, name):
                    lobbed = over_obstacle(scene, s, t)
                    if lobbed is not None:
                        thrown[name] = lobbed
                        effect = lobbed["effect"] or effect
                if effect is not None:
                    effects[name] = effect
        nearest = float(edge[:, column].min())
        row_report = {
            "id": target.id,
            "unit": target.unit,
            "side": target.side,
            "edge_cm": round(nearest, 4),
            "centre_cm": round(float(centre[:, column].min()), 4),
            "edge_in_ruleset_units": round(scene.in_units(nearest), 4),
            "weapons": reaching,
        }
        if covers:
            nearest_shooter = shooters[int(np.argmin(edge[:, column]))]
            row_report["cover"] = cover_of(scene, covers, nearest_shooter, int(t))
        if blockers:
            row_report["line_of_sight"] = seen
        if effects:
            row_report["effects"] = effects
        if thrown:
            row_report["over_obstacle"] = thrown
        rows.append(row_report)
    rows.sort(key=lambda r: (r["edge_cm"], r["id"]))
    return {"from": from_id, "side": side, "unit_of_measure": scene.ruleset.unit, "targets": rows}
