"""Terrain a model may not enter but may cross where it is narrow enough.

World at Fire: cavalry and motorcycles cannot stand in a trench, yet cross trenches and streams
«если их ширина меньше 65 сантиметров»; a tracked vehicle crosses a trench only «ширина рва была
меньше половины длины техники», and may stop across it («зависает на нем»). A piece's width is
the short side of its minimum rotated rectangle, as a tape laid across a trench measures it.
"""

from __future__ import annotations

import math

import shapely

from rules_core.reasons import TOLERANCE_CM, names_model
from rules_core.ruleset import Crossing
from rules_core.scene import ModelSpec, Scene, TerrainSpec


def width_cm(polygon: shapely.Polygon) -> float:
    corners = shapely.get_coordinates(shapely.oriented_envelope(polygon))
    sides = [math.dist(corners[k], corners[k + 1]) for k in range(min(len(corners) - 1, 2))]
    return min(sides) if sides else 0.0


def crossing_of(scene: Scene, model: ModelSpec, piece: TerrainSpec) -> Crossing | None:
    """Where the rules key the type by chassis, a model with a chassis takes its chassis's rule
    only (none: it never crosses), and the bare type's rule covers a model whose chassis is not
    given (World at Fire: any vehicle needs a trench narrower than half its length, yet a wheeled
    one «преодолевать рвы и окопы не может вообще»)."""
    rules = scene.ruleset.terrain[piece.kind].crossing
    if model.chassis is not None and any(key.startswith(f"{model.type}:") for key in rules):
        return rules.get(f"{model.type}:{model.chassis}")
    return rules.get(model.type)


def may_cross(scene: Scene, model: ModelSpec, piece: TerrainSpec, polygon: shapely.Polygon) -> bool:
    """Whether the piece is narrow enough for this model to cross it (never, without a crossing rule)."""
    return _narrow_enough(scene, model, crossing_of(scene, model, piece), polygon)


def _narrow_enough(
    scene: Scene, model: ModelSpec, crossing: Crossing | None, polygon: shapely.Polygon
) -> bool:
    if crossing is None:
        return False
    limits = []
    if crossing.narrower_than is not None:
        limits.append(scene.cm(crossing.narrower_than))
    if crossing.narrower_than_length is not None and model.base.shape == "rect":
        limits.append(crossing.narrower_than_length * model.base.length_mm / 10.0)
    width = width_cm(polygon)
    return any(width < limit - TOLERANCE_CM for limit in limits)


def blocks(
    scene: Scene, model: ModelSpec, piece: TerrainSpec, polygon: shapely.Polygon, ending: bool
) -> bool:
    """Whether the piece stops this model: crossing it (`ending` False) or stopping in it (True)."""
    if not names_model(scene.ruleset.terrain[piece.kind].impassable_for, model):
        return False
    crossing = crossing_of(scene, model, piece)
    if not _narrow_enough(scene, model, crossing, polygon):
        return True
    return ending and not crossing.may_end_on
