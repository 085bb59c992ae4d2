"""Grenades thrown over an obstacle (Mobile Infantry): the obstacle decides the hit, not the dice.

«граната ... которую можно бросать через препятствия; в случае если цель стоит на расстоянии
35 мм от препятствия (2 уровень высоты, камень, стена, дом) то попадание 100%; а в случае если
фигура стоит вплотную к данному препятствию, то цель считается пораженной осколками».
"""

from __future__ import annotations

import shapely

from rules_core.proximity import within
from rules_core.ruleset import Threshold
from rules_core.scene import Scene, TerrainSpec


def _is_obstacle(scene: Scene, piece: TerrainSpec) -> bool:
    rule = scene.ruleset.throw_over_obstacle
    if piece.kind in rule.kinds:
        return True
    return rule.min_level is not None and piece.level is not None and piece.level >= rule.min_level


def throws_over_obstacle(scene: Scene, weapon_name: str) -> bool:
    rule = scene.ruleset.throw_over_obstacle
    if rule is None:
        return False
    weapon = scene.ruleset.weapon(weapon_name)
    return any(scene.ruleset.weapon(name) is weapon for name in rule.weapons)


def over_obstacle(scene: Scene, thrower: int, target: int) -> dict | None:
    """The obstacle piece the throw goes over nearest the target, the target's base edge distance
    to it, and the effect: `shrapnel` when touching it, `sure_hit` within the ruleset's distance,
    None beyond (the ordinary grenade rules apply). None when no obstacle lies between."""
    rule = scene.ruleset.throw_over_obstacle
    start, end = scene.xy[thrower], scene.xy[target]
    line = shapely.LineString([start, end])
    ends = shapely.points([start, end])
    fp = scene.footprints
    best: tuple[float, str] | None = None
    for piece in scene.spec.terrain:
        if not _is_obstacle(scene, piece):
            continue
        polygon = shapely.Polygon(piece.polygon_cm)
        if not line.intersects(polygon) or shapely.covers(polygon, ends).any():
            continue
        gap = float(fp.edge_to(polygon, target))
        if best is None or gap < best[0]:
            best = (gap, piece.id)
    if best is None:
        return None
    gap, piece_id = best
    if gap <= scene.ruleset.contact_tolerance_cm + 1e-6:
        effect: str | None = "shrapnel"
    elif within(scene, _with_tolerance(scene, rule.distance), gap):
        effect = "sure_hit"
    else:
        effect = None
    return {"obstacle": piece_id, "edge_cm": round(gap, 4), "effect": effect}


def _with_tolerance(scene: Scene, distance: Threshold) -> Threshold:
    """The sure hit's distance with the ruleset's misjudgement allowance, as every range has it
    (Mobile Infantry: «Во всех случаях, когда игрок ошибается по глазомеру до 1 см, этот
    сантиметр идет в пользу игрока»)."""
    return distance.model_copy(update={"value": distance.value + scene.ruleset.range_tolerance})
