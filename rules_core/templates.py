"""Templates: blasts and smoke strips laid on the table, and the models they cover.

A model is under a template when any part of its footprint is (partial cover counts), with
the template's own inclusiveness for a model exactly at the rim. Circle distances are exact
(centre point against the base's core shape).
"""

from __future__ import annotations

import numpy as np
import shapely

from rules_core.errors import SceneError
from rules_core.footprints import distance_to_point, hull_corners
from rules_core.scene import Scene

TOLERANCE_CM = 1e-6


def under_template_report(
    scene: Scene,
    kind: str,
    x_cm: float,
    y_cm: float,
    radius: float | None = None,
    heading_deg: float = 0.0,
) -> dict:
    template = scene.ruleset.template(kind)
    if template is None:
        if not scene.ruleset.templates:
            raise SceneError(
                f"template: ruleset {scene.ruleset.id} has no templates (its seed lays none)",
                "run rules template on a scene of a ruleset with templates (rules show ID lists them)",
            )
        raise SceneError(
            f"template: unknown kind {kind!r} for ruleset {scene.ruleset.id}",
            f"use one of {', '.join(scene.ruleset.templates)}",
        )
    fp = scene.footprints
    result: dict = {"kind": kind, "shape": template.shape, "x_cm": x_cm, "y_cm": y_cm}
    if template.shape == "circle":
        radius_cm = scene.cm(_radius(scene, kind, template.radius, radius))
        distance = distance_to_point(fp, x_cm, y_cm)
        result["radius_cm"] = round(radius_cm, 4)
    else:
        heading = float(heading_deg)
        corners = hull_corners(x_cm, y_cm, heading, scene.cm(template.length), scene.cm(template.width))
        strip = shapely.Polygon(corners)
        distance = np.maximum(shapely.distance(fp.core, strip) - fp.radius, 0.0)
        radius_cm = 0.0
        result["heading_deg"] = heading
        result["polygon_cm"] = [[round(float(x), 4), round(float(y), 4)] for x, y in corners]
    reach = radius_cm + TOLERANCE_CM if template.inclusive else radius_cm - TOLERANCE_CM
    inside = distance <= reach if template.inclusive else distance < reach
    if template.shape == "strip":
        inside = distance <= TOLERANCE_CM
    models = []
    for k in np.flatnonzero(inside):
        entry = {
            "id": scene.models[k].id,
            "side": scene.models[k].side,
            "unit": scene.models[k].unit,
            "distance_cm": round(float(distance[k]), 4),
        }
        if template.bands and (template.harms is None or scene.models[k].type in template.harms):
            here = float(distance[k])
            entry["band"] = next(
                (band.name for band in template.bands if band.holds(here, scene.cm_per_unit, TOLERANCE_CM)),
                template.bands[-1].name,
            )
        models.append(entry)
    models.sort(key=lambda m: (m["distance_cm"], m["id"]))
    result["models"] = models
    if template.reaches_terrain and template.shape == "circle":
        result["terrain"] = _terrain_within(scene, x_cm, y_cm, radius_cm, template.inclusive)
    return result


def _terrain_within(scene: Scene, x_cm: float, y_cm: float, radius: float, inclusive: bool) -> list[dict]:
    """The terrain pieces whose outline comes within the blast, nearest first."""
    here = shapely.Point(x_cm, y_cm)
    pieces = []
    for piece in scene.spec.terrain:
        gap = float(shapely.distance(shapely.Polygon(piece.polygon_cm), here))
        if gap <= radius + TOLERANCE_CM if inclusive else gap < radius - TOLERANCE_CM:
            pieces.append({"id": piece.id, "kind": piece.kind, "distance_cm": round(gap, 4)})
    return sorted(pieces, key=lambda p: (p["distance_cm"], p["id"]))


def _radius(scene: Scene, kind: str, seeds: float | None, given: float | None) -> float:
    """The blast's radius in ruleset units: the seed's where it gives one («в радиусе 1 дюйма»),
    which a radius given with it may repeat but not change; otherwise the one given, above 0."""
    unit = scene.ruleset.unit
    if given is not None and not given > 0:
        raise SceneError(
            f"template {kind}: radius {given:g} {unit} is not a blast",
            "give a radius above 0, or leave it out",
        )
    if seeds is not None and given is not None and abs(given - seeds) > 1e-9:
        raise SceneError(
            f"template {kind}: {scene.ruleset.id} fixes its radius at {seeds:.10g} {unit}, not {given:.10g}",
            "leave the radius (--radius) out",
        )
    radius = seeds if seeds is not None else given
    if radius is None:
        raise SceneError(
            f"template {kind}: radius missing (the seed gives none)",
            f"give the radius with --radius, in {'steps' if unit == 'step' else unit}",
        )
    return radius


def scatter_report(scene: Scene, kind: str, thrower_id: str, target_id: str, roll: int) -> dict:
    """Where a scattering grenade lands (roll pips towards the target, Bronepehota) and who it hits."""
    ruleset = scene.ruleset
    template = ruleset.template(kind)
    scattering = [name for name, known in ruleset.templates.items() if known.scatter_per_pip is not None]
    if template is None:
        raise SceneError(
            f"template {kind}: no such template in ruleset {ruleset.id}",
            f"give --kind {' or '.join(scattering)}" if scattering
            else f"nothing scatters in {ruleset.id}: `rules scatter` is for Bronepehota's grenades",
        )
    if template.scatter_per_pip is None:
        raise SceneError(
            f"template {kind}: does not scatter in ruleset {ruleset.id}",
            f"lay it where it lands with `tablesight rules template SCENE.json {kind} X_CM Y_CM`",
        )
    if not 1 <= roll <= template.scatter_die:
        raise SceneError(f"roll: {roll} is not a result of the d{template.scatter_die} it scatters on",
                         f"give the die's result, 1 to {template.scatter_die}")
    if thrower_id == target_id:
        raise SceneError(f"{thrower_id} throws at itself", "give the model it throws at as TARGET")
    thrower = scene.models[scene.model_index(thrower_id, "THROWER")]
    target = scene.models[scene.model_index(target_id, "TARGET")]
    dx, dy = target.x_cm - thrower.x_cm, target.y_cm - thrower.y_cm
    length = float(np.hypot(dx, dy)) or 1.0
    reach = scene.cm(template.scatter_per_pip * roll)
    x, y = thrower.x_cm + dx / length * reach, thrower.y_cm + dy / length * reach
    return {"roll": roll, **under_template_report(scene, kind, round(x, 4), round(y, 4))}
