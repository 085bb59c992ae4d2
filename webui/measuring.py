"""Ranges and rulers on the current table, asked for by a tap on a phone.

The rules core measures from a scene (CONTRACTS.md "Scene"); this module builds that scene
from the session's state, leaving out models nobody has assigned yet, and answers the one
question the rules core has no words for: the distance to a bare point on the table.
"""

from __future__ import annotations

import math
import re
from types import ModuleType

import shapely
from werkzeug.exceptions import ServiceUnavailable

from rules_core.errors import TablesightError

POINT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")
MODEL_FIELDS = ("heading_deg", "z_cm", "wounded", "crew_of", "chassis", "role", "weapons", "flags", "order")


def measuring_allowed(state: dict) -> bool:
    """False while orders are given in a ruleset that forbids pre-measuring (mobile-infantry)."""
    if "measuring_allowed" in state:
        return bool(state["measuring_allowed"])
    premeasure = (state.get("ruleset") or {}).get("premeasure_allowed", True)
    return premeasure or "order" not in str(state.get("phase", ""))


def scene_from_state(state: dict) -> dict:
    """The rules core's scene for what is on the table now (assigned models only)."""
    ruleset = state.get("ruleset") or {}
    scene: dict = {
        "ruleset": ruleset.get("id"),
        "table": state.get("table"),
        "models": [_scene_model(m) for m in state.get("models", []) if _assigned(m)],
        "objectives": state.get("objectives") or [],
        "terrain": state.get("terrain") or [],
        "phase": state.get("phase"),
    }
    scene["models"] += [_scene_vehicle(v) for v in state.get("vehicles", []) if _assigned(v)]
    if state.get("deployment"):
        scene["deployment"] = state["deployment"]
    if ruleset.get("unit") == "step" and ruleset.get("unit_cm"):
        scene["step_cm"] = ruleset["unit_cm"]  # the game's step; without it the seed's own is used
    return scene


def ranges(state: dict, model_id: str) -> dict:
    """Edge-to-edge ranges from one model (or unit) to every enemy, with the weapons that reach."""
    _require_known(state, model_id)
    rules = _rules_api()
    return rules.ranges(rules.parse_scene(scene_from_state(state), allow_off_table=True), model_id)


def measure(state: dict, a: str, b: str) -> dict:
    """The ruler between two models, two points or one of each, in cm and ruleset units."""
    if not POINT.match(a) and not POINT.match(b):
        for end in (a, b):
            _require_known(state, end, units=False)
        rules = _rules_api()
        return rules.measure(rules.parse_scene(scene_from_state(state), allow_off_table=True), a, b)
    shape_a, shape_b = _footprint(state, a), _footprint(state, b)
    edge = float(shapely.distance(shape_a, shape_b))
    centre = float(shapely.distance(shapely.centroid(shape_a), shapely.centroid(shape_b)))
    unit_cm = float((state.get("ruleset") or {}).get("unit_cm") or 1.0)
    return {
        "edge_cm": round(edge, 2),
        "centre_cm": round(centre, 2),
        "edge_in_ruleset_units": round(edge / unit_cm, 2),
    }


def rulesets() -> list[dict]:
    """The rulesets installed on the rig (user-added ones included) for the setup panel."""
    return _rules_api().list_rulesets()


def ruleset_tools(ruleset_id: str) -> dict:
    """What the page may offer under a ruleset: its templates, deployment kinds and unit types.

    Taken from `rules show ID` so the buttons never name a template or deployment the session
    would refuse. Sizes are in ruleset units (the state's `unit_cm` turns them into cm, a
    bronepehota step included); a template with no radius takes the one the player gives.
    """
    full = _rules_api().ruleset_dict(ruleset_id)
    kinds = (full.get("deployment") or {}).get("kinds") or {}
    return {
        "id": full["id"],
        "title": full["title"],
        "unit": full["unit"],
        "unit_types": sorted(full.get("unit_types") or {}),
        "templates": [
            {"kind": kind, **{key: template.get(key) for key in ("shape", "radius", "length", "width")}}
            for kind, template in (full.get("templates") or {}).items()
        ],
        "deployment_kinds": [
            {"kind": kind, **{key: spec.get(key) for key in ("shape", "edges", "one_sided")}}
            for kind, spec in kinds.items()
        ],
    }


def _rules_api() -> ModuleType:
    try:
        from rules_core import api as rules_api
    except ImportError as error:
        raise ServiceUnavailable(
            f"The rules core cannot measure on this rig ({error}). Reinstall tablesight."
        ) from None
    return rules_api


def _assigned(model: dict) -> bool:
    return bool(model.get("side") and model.get("unit") and model.get("type"))


def _scene_model(model: dict) -> dict:
    entry = {key: model[key] for key in ("id", "side", "unit", "type", "x_cm", "y_cm")}
    entry["base"] = {"shape": "round", "diameter_mm": model.get("diameter_mm", 32)}
    entry.update({key: model[key] for key in MODEL_FIELDS if model.get(key) is not None})
    return entry


def _scene_vehicle(vehicle: dict) -> dict:
    entry = {key: vehicle[key] for key in ("id", "side", "unit", "type", "x_cm", "y_cm")}
    entry["heading_deg"] = vehicle.get("heading_deg", 0.0)
    entry["base"] = {
        "shape": "rect",
        "length_mm": vehicle["length_cm"] * 10,
        "width_mm": vehicle["width_cm"] * 10,
    }
    entry.update({key: vehicle[key] for key in MODEL_FIELDS if vehicle.get(key) is not None})
    return entry


def _pieces(state: dict) -> dict[str, dict]:
    return {piece["id"]: piece for piece in [*state.get("models", []), *state.get("vehicles", [])]}


def _require_known(state: dict, model_id: str, units: bool = True) -> None:
    """A model on the table, or a unit's name where `units` (ranges take one, a ruler does not)."""
    piece = _pieces(state).get(model_id)
    if piece is None and not units:
        raise TablesightError(
            f"No model '{model_id}' on the table", "Tap a model that is shown, or a point on the table"
        )
    if piece is None and model_id not in {m.get("unit") for m in _pieces(state).values() if _assigned(m)}:
        raise TablesightError(f"No model or unit '{model_id}' on the table", "Tap a model that is shown")
    if piece is not None and not _assigned(piece):
        raise TablesightError(
            f"Model '{model_id}' has no side, unit and type yet", "Assign it in Setup first"
        )


def _footprint(state: dict, end: str) -> shapely.Geometry:
    point = POINT.match(end)
    if point:
        x, y = float(point[1]), float(point[2])
        if not (math.isfinite(x) and math.isfinite(y)):
            raise TablesightError(f"Point '{end}' is too far off the table", "Give X,Y in table cm")
        return shapely.Point(x, y)
    piece = _pieces(state).get(end)
    if piece is None:
        raise TablesightError(
            f"No model '{end}' on the table", "Tap a model that is shown, or a point on the table"
        )
    if piece.get("corners_cm"):
        return shapely.Polygon(piece["corners_cm"])
    return shapely.Point(piece["x_cm"], piece["y_cm"]).buffer(
        piece.get("diameter_mm", 32) / 20.0, quad_segs=32
    )
