"""A stand-in for rules_core.api's ranges/measure, with the shapes CONTRACTS.md fixes.

Edge distances are computed (centre distance less both base radii) so a tap on the page shows
real numbers; weapons reach by a small World at Fire-like table. Tests that need to know
what the web UI handed the rules core read `calls`.
"""

from __future__ import annotations

import math

from rules_core import api as rules_api

WEAPON_RANGE_CM = {"pistol": 15.0, "rifle": 60.0, "hmg": 90.0}
DEFAULT_WEAPONS = {"infantry": ["pistol", "rifle"], "heavy_gun": ["hmg"], "vehicle": ["hmg"]}


def _radius(model: dict) -> float:
    base = model["base"]
    return base["diameter_mm"] / 20 if base["shape"] == "round" else base["width_mm"] / 20


class FakeRules:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def parse_scene(self, data: dict, allow_off_table: bool = False) -> dict:
        return data

    def list_rulesets(self) -> list[dict]:
        return [
            {"id": "world-at-fire", "title": "World at Fire", "source": "seed 000", "unit": "cm"},
            {"id": "combined-arms", "title": "Combined arms", "source": "seed 003", "unit": "in"},
            {"id": "mobile-infantry", "title": "Mobile infantry", "source": "seed 001", "unit": "mm"},
            {"id": "bronepehota", "title": "Bronepehota", "source": "seed 004", "unit": "step"},
        ]

    def ruleset_dict(self, ruleset_id: str) -> dict:
        """The shipped ruleset itself: its templates and deployment kinds are what the page offers."""
        return rules_api.ruleset_dict(ruleset_id)

    def _edge(self, a: dict, b: dict) -> float:
        return max(0.0, math.dist((a["x_cm"], a["y_cm"]), (b["x_cm"], b["y_cm"])) - _radius(a) - _radius(b))

    def ranges(self, scene: dict, from_id: str) -> dict:
        self.calls.append(scene)
        shooters = [m for m in scene["models"] if from_id in (m["id"], m["unit"])]
        side = shooters[0]["side"]
        targets = []
        for model in scene["models"]:
            if model["side"] == side:
                continue
            edge = round(min(self._edge(shooter, model) for shooter in shooters), 2)
            weapons = {w for s in shooters for w in (s.get("weapons") or DEFAULT_WEAPONS.get(s["type"], []))}
            reach = sorted(w for w in weapons if WEAPON_RANGE_CM[w] >= edge)
            targets.append(
                {
                    "id": model["id"],
                    "unit": model["unit"],
                    "edge_cm": edge,
                    "edge_in_ruleset_units": edge,
                    "weapons": reach,
                }
            )
        return {"from": from_id, "targets": sorted(targets, key=lambda t: t["edge_cm"])}

    def measure(self, scene: dict, a: str, b: str) -> dict:
        self.calls.append(scene)
        models = {m["id"]: m for m in scene["models"]}
        edge = round(self._edge(models[a], models[b]), 2)
        centre = round(
            math.dist((models[a]["x_cm"], models[a]["y_cm"]), (models[b]["x_cm"], models[b]["y_cm"])), 2
        )
        return {"edge_cm": edge, "centre_cm": centre, "edge_in_ruleset_units": edge}
