"""An in-memory `TableSession` (session_contract.md) with a small World at Fire game on it.

The web UI is tested against this, not against the camera pipeline: it implements the same
methods, validates actions the way the real session must (unknown ids raise
`TablesightError`, nothing changes), and bumps `version` on every change so SSE can be
tested. Templates and deployment kinds are the shipped rulesets' own, so the page is held to
what the real session accepts (World at Fire has deployments but no templates, Combined
Arms the reverse). Verdicts are canned in the shapes CONTRACTS.md fixes: red's r3 ran 16.2 cm where
infantry may move 15, so the page has an illegal move to show.
"""

from __future__ import annotations

import copy
import math
import threading
import time

import cv2
import numpy as np

from rules_core import api as rules_api
from rules_core.errors import NoEdge, TablesightError, field_error
from tracker.session import stale_advance

PHASES = {
    "world-at-fire": ["deployment", "movement", "shooting", "assault"],
    "mobile-infantry": ["orders", "movement", "shooting"],
    "combined-arms": ["deployment", "movement", "shooting", "assault"],
    "bronepehota": ["deployment", "movement", "shooting", "assault"],
}
RULESETS = {
    "world-at-fire": {
        "id": "world-at-fire",
        "title": "World at Fire 5.8.1",
        "unit": "cm",
        "unit_cm": 1.0,
        "premeasure_allowed": True,
    },
    "mobile-infantry": {
        "id": "mobile-infantry",
        "title": "Mobile infantry vs bugs",
        "unit": "mm",
        "unit_cm": 0.1,
        "premeasure_allowed": False,
    },
    "combined-arms": {
        "id": "combined-arms",
        "title": "Combined arms",
        "unit": "in",
        "unit_cm": 2.54,
        "premeasure_allowed": True,
    },
    "bronepehota": {  # measured in steps: unit_cm is the game's step (its seed's 2.5 cm unless set)
        "id": "bronepehota",
        "title": "Bronepehota 05.08.08",
        "unit": "step",
        "unit_cm": 2.5,
        "premeasure_allowed": True,
    },
}
PX_PER_CM = 4


def _model(mid, side, unit, mtype, x, y, start=None, diameter=32):
    sx, sy = start or (x, y)
    return {
        "id": mid,
        "x_cm": x,
        "y_cm": y,
        "diameter_mm": diameter,
        "visible": True,
        "side": side,
        "unit": unit,
        "type": mtype,
        "start_x_cm": sx,
        "start_y_cm": sy,
    }


def demo_state() -> dict:
    """Turn 1, movement: red advanced, r3 too far; red-inf-2 strung out; one model unassigned."""
    models = [
        _model("r1", "red", "red-inf-1", "infantry", 32.0, 30.0, (20.0, 30.0)),
        _model("r2", "red", "red-inf-1", "infantry", 35.0, 34.0, (23.0, 34.0)),
        _model("r3", "red", "red-inf-1", "infantry", 36.2, 40.0, (20.0, 40.0)),
        _model("r4", "red", "red-inf-2", "infantry", 30.0, 80.0),
        _model("r5", "red", "red-inf-2", "infantry", 45.0, 92.0),
        _model("b1", "blue", "blue-inf-1", "infantry", 78.0, 44.0, (90.0, 44.0)),
        _model("b2", "blue", "blue-inf-1", "infantry", 82.0, 48.0, (94.0, 48.0)),
        _model("b3", "blue", "blue-inf-1", "infantry", 79.0, 52.0, (91.0, 52.0)),
        _model("g1", "blue", "blue-gun-1", "heavy_gun", 140.0, 90.0, diameter=65),
        _model("m9", None, None, None, 92.0, 104.0),
    ]
    tank = {
        "id": "t1",
        "x_cm": 120.0,
        "y_cm": 62.0,
        "heading_deg": 180.0,
        "length_cm": 20.0,
        "width_cm": 10.0,
        "visible": True,
        "side": "blue",
        "unit": "blue-tank-1",
        "type": "vehicle",
        "chassis": "tracked",
        "start_x_cm": 120.0,
        "start_y_cm": 62.0,
    }
    tank["corners_cm"] = _corners(tank)
    return {
        "version": 1,
        "status": {
            "source": "fake session",
            "camera": "ok",
            "message": "",
            "settled": True,
            "fps": 5.0,
            "calibration": {
                "ok": True,
                "marker_ids": [0, 1, 2, 3],
                "rms_mm": 0.31,
                "max_mm": 0.72,
                "drift": False,
                "table_cm": [183.0, 122.0],
                "detail": "",
            },
        },
        "ruleset": dict(RULESETS["world-at-fire"]),
        "table": {"width_cm": 183.0, "depth_cm": 122.0},
        "turn": 1,
        "phase": "movement",
        "phases": list(PHASES["world-at-fire"]),
        "models": models,
        "vehicles": [tank],
        "objectives": [
            {"id": "obj1", "x_cm": 91.5, "y_cm": 61.0, "diameter_mm": 65},
            {"id": "obj2", "x_cm": 40.0, "y_cm": 38.0, "diameter_mm": 65},
        ],
        "terrain": [
            {"id": "wood1", "kind": "forest", "polygon_cm": [[70, 10], [100, 12], [95, 35], [72, 30]]},
            {
                "id": "house1",
                "kind": "building",
                "polygon_cm": [[100, 80], [120, 80], [120, 95], [100, 95]],
                "height_cm": 8.0,
            },
        ],
        "deployment": {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
        "deployment_zones": {
            "red": [[[0, 0], [30, 0], [30, 122], [0, 122]]],
            "blue": [[[153, 0], [183, 0], [183, 122], [153, 122]]],
        },
        "check": {
            "units": {
                "red-inf-1": {"coherent": True, "groups": [["r1", "r2", "r3"]]},
                "red-inf-2": {"coherent": False, "groups": [["r4"], ["r5"]]},
                "blue-inf-1": {"coherent": True, "groups": [["b1", "b2", "b3"]]},
                "blue-gun-1": {"coherent": True, "groups": [["g1"]]},
                "blue-tank-1": {"coherent": True, "groups": [["t1"]]},
            },
            "objectives": {
                "obj1": {"controlled_by": None, "contested": False},
                "obj2": {"controlled_by": "red", "contested": False},
            },
        },
        "moves": {
            "models": {
                "r1": {"moved_cm": 12.0, "allowance_cm": 15.0, "legal": True, "reasons": []},
                "r2": {"moved_cm": 12.0, "allowance_cm": 15.0, "legal": True, "reasons": []},
                "r3": {
                    "moved_cm": 16.2,
                    "allowance_cm": 15.0,
                    "legal": False,
                    "reasons": [{"code": "too_far", "detail": "moved 16.2 cm, infantry may move 15 cm"}],
                },
            }
        },
        "templates": [],
        "events": [{"t": 3.0, "turn": 1, "phase": "movement", "kind": "moved", "detail": "r3 moved 16.2 cm"}],
    }


def _check_deployment(ruleset_id: str, deployment: dict | None) -> None:
    """Refused as the real session's scene check refuses it: a kind the ruleset does not define."""
    if deployment is None:
        return
    ruleset = rules_api.load_ruleset(ruleset_id)
    kinds = ruleset.deployment.kinds if ruleset.deployment else {}
    if deployment["kind"] not in kinds:
        raise field_error(
            ("deployment", "kind"),
            f"unknown deployment kind '{deployment['kind']}' for ruleset {ruleset_id}",
            f"use one of {', '.join(kinds) or '(this ruleset defines none)'}",
        )


def _check_sides_deploy(state: dict) -> None:
    """Refused in the rules core's words, as the real session's scene check refuses it: a side the
    deployment gives no place (its scene lists the assigned pieces by id)."""
    deployment = state["deployment"]
    if deployment is None:
        return
    kinds = rules_api.load_ruleset(state["ruleset"]["id"]).deployment.kinds
    if kinds[deployment["kind"]].one_sided:
        return
    assigned = sorted((p for p in [*state["models"], *state["vehicles"]] if p["side"]), key=lambda p: p["id"])
    for i, piece in enumerate(assigned):
        if piece["side"] not in deployment["sides"]:
            named = tuple(sorted(deployment["sides"]))
            raise field_error(
                ("models", i, "side"),
                f"side {piece['side']!r} has no edge in deployment.sides (it names {', '.join(named)})",
                "give deployment.sides an edge for every side on the table",
                reason=NoEdge(piece["side"], named),
            )


def _corners(vehicle: dict) -> list[list[float]]:
    heading = math.radians(vehicle["heading_deg"])
    ux, uy = math.cos(heading), math.sin(heading)
    half_l, half_w = vehicle["length_cm"] / 2, vehicle["width_cm"] / 2
    return [
        [
            round(vehicle["x_cm"] + sl * half_l * ux - sw * half_w * uy, 2),
            round(vehicle["y_cm"] + sl * half_l * uy + sw * half_w * ux, 2),
        ]
        for sl, sw in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    ]


class FakeSession:
    """Same methods as tracker.session.TableSession, none of its cameras."""

    def __init__(self, state: dict | None = None) -> None:
        self._state = state or demo_state()
        self._history: list[tuple[int, str]] = []
        self._changed = threading.Condition()
        self.applied: list[tuple[str, dict]] = []
        self.started = False
        self._jpeg = self._render("camera")
        self._topdown = self._render("top-down")

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.started = False

    def state(self) -> dict:
        with self._changed:
            return copy.deepcopy(self._state)

    def wait_for_change(self, version: int, timeout_s: float) -> int:
        deadline = time.monotonic() + timeout_s
        with self._changed:
            while self._state["version"] <= version and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(left)
            return self._state["version"]

    def latest_jpeg(self) -> bytes | None:
        return self._jpeg

    def topdown_jpeg(self) -> bytes | None:
        return self._topdown

    def apply(self, action: str, payload: dict, join=None) -> dict:
        handler = getattr(self, f"_apply_{action}", None)
        if handler is None:
            raise TablesightError(f"Unknown action '{action}'", "Use one of the contract's actions")
        with self._changed:
            if join is not None:  # as the real session: joined to the list as it stands
                payload = join(copy.deepcopy(self._state) if action == "setup" else list(self._state[action]))
            payload, stale = stale_advance(action, payload, self._state["turn"], self._state["phase"])
            if stale is not None:  # as the real session: one step from what was seen
                return stale
            draft = copy.deepcopy(self._state)
            result = handler(draft, payload)
            draft["version"] += 1
            self._state = draft
            self.applied.append((action, payload))
            self._changed.notify_all()
        return {"ok": True, **(result or {})}

    def move_model(self, model_id: str, x_cm: float, y_cm: float) -> None:
        """What the camera would report when a hand moves a model (for push tests)."""
        with self._changed:
            piece = self._piece(self._state, model_id)
            piece["x_cm"], piece["y_cm"] = x_cm, y_cm
            self._state["version"] += 1
            self._changed.notify_all()
        self._jpeg = self._render("camera")

    def _piece(self, state: dict, model_id: str) -> dict:
        for piece in [*state["models"], *state["vehicles"]]:
            if piece["id"] == model_id:
                return piece
        raise TablesightError(f"No model '{model_id}' on the table", "Pick a model that is shown")

    def _apply_setup(self, state, payload):
        if "ruleset" in payload:
            if payload["ruleset"] not in RULESETS:
                raise TablesightError(
                    f"Unknown ruleset '{payload['ruleset']}'", "Pick one of tablesight rules list"
                )
            for piece in [*state["models"], *state["vehicles"]]:
                if piece.get("type") in payload.get("retype", {}):
                    new = payload["retype"][piece["type"]]
                    for key in ("role", "chassis", "weapons"):
                        piece.pop(key, None)
                    if new:
                        piece["type"] = new
                    else:
                        piece.update(side=None, unit=None, type=None)
            deployment = payload.get("deployment", state["deployment"])
            _check_deployment(payload["ruleset"], deployment)
            state["deployment"] = deployment
            state["deployment_zones"] = state["deployment_zones"] if deployment else {}
            state["ruleset"] = dict(RULESETS[payload["ruleset"]])
            if state["phases"] != PHASES[payload["ruleset"]]:  # as the real game: same phases, same phase
                state["phases"] = list(PHASES[payload["ruleset"]])
                state["phase"] = state["phases"][0]
        if "table" in payload:
            state["table"] = {
                "width_cm": payload["table"]["width_cm"],
                "depth_cm": payload["table"]["depth_cm"],
            }
        if "step_cm" in payload and state["ruleset"]["unit"] == "step":  # as the real state: the step
            state["ruleset"]["unit_cm"] = payload["step_cm"]

    def _apply_assign(self, state, payload):
        pieces = [self._piece(state, model_id) for model_id in payload["model_ids"]]
        for piece in pieces:
            for key in ("side", "unit", "type", "role", "chassis", "weapons", "order", "wounded"):
                if key in payload:
                    piece[key] = payload[key]
            if "flags" in payload:  # as the real game: a null clears them
                piece["flags"] = payload["flags"] or []
        _check_sides_deploy(state)
        return {"assigned": payload["model_ids"]}

    def _apply_terrain(self, state, payload):
        state["terrain"] = payload["terrain"]

    def _apply_objectives(self, state, payload):
        state["objectives"] = payload["objectives"]

    def _apply_deployment(self, state, payload):
        _check_deployment(state["ruleset"]["id"], payload)
        state["deployment"] = {"kind": payload["kind"], "sides": payload["sides"]}

    def _apply_phase(self, state, payload):
        phases = state["phases"]
        target = payload["to"]
        if target == "next":
            target = phases[(phases.index(state["phase"]) + 1) % len(phases)]
        if target not in phases:
            raise TablesightError(
                f"No phase '{target}' in {state['ruleset']['id']}", f"Use one of {', '.join(phases)}"
            )
        self._history.append((state["turn"], state["phase"]))
        state["phase"] = target

    def _apply_next_turn(self, state, payload):
        self._history.append((state["turn"], state["phase"]))
        state["turn"] += 1
        state["phase"] = state["phases"][1]

    def _apply_undo(self, state, payload):
        if not self._history:
            raise TablesightError("Nothing to undo", "Undo only reverts phase and turn changes")
        state["turn"], state["phase"] = self._history.pop()

    def _apply_reset_model(self, state, payload):
        piece = self._piece(state, payload["model_id"])
        piece["x_cm"], piece["y_cm"] = piece["start_x_cm"], piece["start_y_cm"]
        state["moves"]["models"].pop(payload["model_id"], None)

    def _apply_recalibrate(self, state, payload):
        state["status"]["message"] = "Recalibrated on markers 0, 1, 2, 3."

    def _apply_template(self, state, payload):
        """As tracker/game.py: the ruleset's own template, its seed sizes, the reply under "template"."""
        ruleset = rules_api.load_ruleset(state["ruleset"]["id"])
        spec = ruleset.template(payload["kind"])
        if spec is None and not ruleset.templates:
            raise TablesightError(
                f"template: ruleset {ruleset.id} has no templates (its seed lays none)",
                "run rules template on a scene of a ruleset with templates (rules show ID lists them)",
            )
        if spec is None:
            raise TablesightError(
                f"template: unknown kind {payload['kind']!r} for ruleset {ruleset.id}",
                f"use one of {', '.join(ruleset.templates)}",
            )
        unit_cm = state["ruleset"]["unit_cm"]
        pieces = [*state["models"], *state["vehicles"]]
        template = {key: payload[key] for key in ("length_cm", "width_cm", "heading_deg") if key in payload}
        if spec.shape == "circle":
            radius = spec.radius * unit_cm if spec.radius is not None else payload["radius_cm"]
            centre = (payload["x_cm"], payload["y_cm"])
            under = [p["id"] for p in pieces if math.dist((p["x_cm"], p["y_cm"]), centre) <= radius + 1.6]
        else:
            radius = 0.0
            length, width = spec.length * unit_cm, spec.width * unit_cm
            under = [
                p["id"]
                for p in pieces
                if abs(p["x_cm"] - payload["x_cm"]) <= length / 2
                and abs(p["y_cm"] - payload["y_cm"]) <= width / 2
            ]
        template.update(kind=payload["kind"], x_cm=payload["x_cm"], y_cm=payload["y_cm"], radius_cm=radius)
        template["under"] = under
        state["templates"].append(template)
        return {"template": {**template, "report": {"kind": payload["kind"], "shape": spec.shape}}}

    def _apply_clear_templates(self, state, payload):
        state["templates"] = []

    def _render(self, label: str) -> bytes:
        """A drawn table (green mat, bases as discs) so screenshots look like a table."""
        table = self._state["table"]
        image = np.full(
            (int(table["depth_cm"] * PX_PER_CM), int(table["width_cm"] * PX_PER_CM), 3),
            (70, 110, 80),
            np.uint8,
        )
        for piece in self._state["models"]:
            centre = (int(piece["x_cm"] * PX_PER_CM), int(piece["y_cm"] * PX_PER_CM))
            cv2.circle(image, centre, int(piece["diameter_mm"] / 20 * PX_PER_CM), (40, 40, 40), -1)
        for vehicle in self._state["vehicles"]:
            corners = (np.array(vehicle["corners_cm"]) * PX_PER_CM).astype(np.int32)
            cv2.fillPoly(image, [corners], (60, 60, 60))
        cv2.putText(image, label, (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (230, 230, 230), 2)
        return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])[1].tobytes()
