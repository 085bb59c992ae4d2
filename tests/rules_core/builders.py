"""Small scene builders so each test states only the numbers the rule is about."""

from __future__ import annotations

from typing import Any

from rules_core import api


def base(
    x: float,
    y: float,
    id: str = "m",
    side: str = "red",
    unit: str | None = None,
    type: str = "infantry",
    diameter_mm: float = 32,
    **extra: Any,
) -> dict:
    model = {
        "id": id,
        "side": side,
        "unit": unit or f"{side}-1",
        "type": type,
        "x_cm": x,
        "y_cm": y,
        "base": {"shape": "round", "diameter_mm": diameter_mm},
    }
    model.update(extra)
    return model


def hull(
    x: float,
    y: float,
    id: str = "t",
    side: str = "blue",
    unit: str | None = None,
    type: str = "vehicle",
    heading: float = 0.0,
    length_mm: float = 200,
    width_mm: float = 100,
    **extra: Any,
) -> dict:
    model = {
        "id": id,
        "side": side,
        "unit": unit or f"{side}-{id}",
        "type": type,
        "x_cm": x,
        "y_cm": y,
        "heading_deg": heading,
        "base": {"shape": "rect", "length_mm": length_mm, "width_mm": width_mm},
    }
    model.update(extra)
    return model


def scene_data(
    ruleset: str, models: list[dict], width: float = 183.0, depth: float = 122.0, **extra: Any
) -> dict:
    data = {"ruleset": ruleset, "table": {"width_cm": width, "depth_cm": depth}, "models": models}
    data.update(extra)
    return data


def scene(ruleset: str, models: list[dict], **extra: Any) -> api.Scene:
    return api.parse_scene(scene_data(ruleset, models, **extra))


def moved(ruleset: str, before: list[dict], after: list[dict], **extra: Any) -> dict:
    """The move report's entries, keyed by model id."""
    first = api.parse_scene(scene_data(ruleset, before, **extra))
    second = api.parse_scene(scene_data(ruleset, after, **extra), allow_off_table=True)
    return api.move(first, second)["models"]


def codes(entry: dict) -> list[str]:
    return [reason["code"] for reason in entry["reasons"]]


def strip(kind: str, x0: float, width: float, y1: float = 122.0, **extra: float) -> dict:
    """A terrain piece from the top edge down to y1: by default across the whole 122 cm table
    depth, so no way round it exists."""
    return {
        "id": "p",
        "kind": kind,
        "polygon_cm": [[x0, 0], [x0 + width, 0], [x0 + width, y1], [x0, y1]],
        **extra,
    }
