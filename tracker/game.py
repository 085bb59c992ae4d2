"""The game around the tracks: sides, units, turns and phases, and what every move was judged.

The tracker says where pieces are; the game says whose they are and what phase it is, keeps
the start-of-phase snapshot that `rules_core.api.move` judges moves against, and logs every
change as an event. All rule logic is the rules core's: this module only builds scenes.

Every control is validated before anything changes, so a bad request leaves the game as it was.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import UnionType
from typing import Any

from rules_core import api as rules
from rules_core.errors import Missing, NotOnTable, TablesightError
from tracker.tracks import FrameResult

SCENE_PHASE = {"orders": "movement"}
EVENTS_KEPT = 50
# An assign naming all three assigns anew; one leaving any out changes only what it sends.
IDENTITY = ("side", "unit", "type")
# What a model is in the ruleset, and its state on the table as the game goes.
KIND, STATE = ("role", "chassis", "weapons"), ("flags", "order", "wounded")


@dataclass
class Assignment:
    """Which side and unit a model belongs to, and what it is in the ruleset."""

    side: str
    unit: str
    type: str
    role: str | None = None
    chassis: str | None = None
    weapons: list[str] | None = None
    # Its state on the table, set as the game goes (a model goes prone, a trooper is ordered to
    # hold, a fighter is hit): free names the rulesets' rules ask for (docs/rules.md), its
    # standing order (the orders phase of Mobile Infantry and Tankomaster), a wound.
    flags: list[str] = field(default_factory=list)
    order: str | None = None
    wounded: bool = False


def phases_of(ruleset_id: str) -> list[str]:
    return list(rules.load_ruleset(ruleset_id).turn_phases)


# A control's fields in JSON's words: a player's script sends JSON, and Python's names for what it
# sent (NoneType, dict) say nothing to them.
JSON_WORDS = {type(None): "null", bool: "true or false", int: "a number", float: "a number", str: "text",
              list: "a list", dict: "an object"}


def _json_word(kind: type | UnionType | tuple) -> str:
    kinds = kind if isinstance(kind, tuple) else getattr(kind, "__args__", (kind,))
    return " or ".join(dict.fromkeys(JSON_WORDS.get(k, k.__name__) for k in kinds))


def _need(payload: dict, key: str, kind: type | tuple[type, ...], action: str) -> Any:
    if key not in payload:
        raise TablesightError(
            f"{action}: '{key}' is missing", f"send {action} with a '{key}' field", fault=Missing(action, key)
        )
    value = payload[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        expected = _json_word(kind)
        raise TablesightError(
            f"{action}: '{key}' must be {expected}, not {_json_word(type(value))}",
            f"send {expected} for '{key}'",
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise TablesightError(f"{action}: '{key}' is not a finite number", "send a real number")
    return value


class Game:
    """One game at one table. `log` receives every event (the recording's SQLite event log)."""

    def __init__(
        self,
        ruleset: str = "world-at-fire",
        table_cm: tuple[float, float] = (183.0, 122.0),
        log: Callable[[dict], None] | None = None,
    ) -> None:
        rules.load_ruleset(ruleset)
        self.ruleset_id = ruleset
        self.table = {"width_cm": float(table_cm[0]), "depth_cm": float(table_cm[1])}
        self.step_cm: float | None = None
        self.phases = phases_of(ruleset)
        self.turn = 1
        self.phase = self.phases[0]
        self.assignments: dict[str, Assignment] = {}
        self.pieces: dict[str, dict] = {}
        self.start: dict[str, dict] = {}
        self.terrain: list[dict] = []
        self.objectives: list[dict] = []
        self.deployment: dict | None = None
        self.templates: list[dict] = []
        self.events: list[dict] = []
        self.phase_history: list[dict] = []
        self.frame = 0
        self.t = 0.0
        self.log = log
        self._verdicts: tuple[dict, dict] | None = None

    # --- what the tracker saw -------------------------------------------------------------

    def observe(self, result: FrameResult) -> list[dict]:
        """Take a frame's tracks; log what moved, appeared and was taken off."""
        self.frame, self.t = result.frame, result.timestamp_s
        current = {m["track_id"]: {**m, "kind": "model"} for m in result.models}
        current.update({v["track_id"]: {**v, "kind": "vehicle"} for v in result.vehicles})
        self.pieces = current
        logged = []
        changes = result.changes
        for piece_id in changes.added:
            piece = current[piece_id]
            self.start[piece_id] = {
                "x_cm": piece["x_cm"],
                "y_cm": piece["y_cm"],
                "heading_deg": piece.get("heading_deg"),
            }
            logged.append(
                self._event(
                    "added",
                    f"{piece_id} appeared at ({piece['x_cm']:.1f}, {piece['y_cm']:.1f})",
                    {"id": piece_id},
                )
            )
        for piece_id in changes.returned:
            piece = current[piece_id]
            logged.append(
                self._event(
                    "returned",
                    f"{piece_id} is back at ({piece['x_cm']:.1f}, {piece['y_cm']:.1f}):"
                    " the camera had missed it, not a casualty after all",
                    {"id": piece_id},
                )
            )
        for piece_id, (before, after) in changes.moved.items():
            distance = math.dist(before, after)
            logged.append(
                self._event(
                    "moved",
                    f"{piece_id} moved {distance:.1f} cm",
                    {"id": piece_id, "from": list(before), "to": list(after)},
                )
            )
        for piece_id in changes.removed:
            logged.append(
                self._event("removed", f"{piece_id} was taken off the table (casualty)", {"id": piece_id})
            )
        if changes:
            self._verdicts = None
            logged += self._judge_moves(list(changes.moved))
        return logged

    def _judge_moves(self, moved: list[str]) -> list[dict]:
        _, moves = self.verdicts()
        verdicts = moves.get("models", {}) if isinstance(moves, dict) else {}
        logged = []
        for piece_id in moved:
            verdict = verdicts.get(piece_id)
            if verdict is not None and not verdict.get("legal", True):
                reasons = "; ".join(r.get("detail") or r.get("code", "") for r in verdict.get("reasons", []))
                logged.append(
                    self._event(
                        "verdict",
                        f"{piece_id}: illegal move ({reasons})",
                        {"id": piece_id, "verdict": verdict},
                    )
                )
        return logged

    # --- rules ------------------------------------------------------------------------------

    def scene(self, positions: dict[str, dict] | None = None, phase: str | None = None) -> dict:
        """The rules core's scene: assigned pieces on the table at `positions` (default: now)."""
        positions = self.pieces if positions is None else positions
        models = []
        for piece_id, a in sorted(self.assignments.items()):
            piece = self.pieces.get(piece_id)
            where = positions.get(piece_id)
            if piece is None or where is None:
                continue
            model = {
                "id": piece_id,
                "side": a.side,
                "unit": a.unit,
                "type": a.type,
                "x_cm": where["x_cm"],
                "y_cm": where["y_cm"],
            }
            if piece["kind"] == "vehicle":
                heading = where.get("heading_deg")
                model["heading_deg"] = piece.get("heading_deg", 0.0) if heading is None else heading
                model["base"] = {
                    "shape": "rect",
                    "length_mm": piece.get("length_cm", 20.0) * 10,
                    "width_mm": piece.get("width_cm", 10.0) * 10,
                }
            else:
                model["base"] = {"shape": "round", "diameter_mm": piece.get("diameter_mm", 32)}
            # An empty weapons list is no weapons (None: the type's own); no flag, order or wound is said.
            model.update({k: v for k in KIND if (v := getattr(a, k)) is not None})
            model.update({k: v for k in STATE if (v := getattr(a, k)) not in (None, [], False)})
            models.append(model)
        scene = {
            "ruleset": self.ruleset_id,
            "table": dict(self.table),
            "models": models,
            "objectives": self.objectives,
            "terrain": self.terrain,
            "phase": SCENE_PHASE.get(phase or self.phase, phase or self.phase),
        }
        if self.deployment:
            scene["deployment"] = self.deployment
        if self.step_cm:
            scene["step_cm"] = self.step_cm
        return scene

    def start_scene(self) -> dict:
        """The pieces where this phase began (pieces that appeared since: where they appeared)."""
        positions = {
            pid: {**self.pieces[pid], **{k: v for k, v in self.start.get(pid, {}).items() if v is not None}}
            for pid in self.pieces
        }
        return self.scene(positions)

    def verdicts(self) -> tuple[dict, dict]:
        """(check, moves): the rules core on the current scene; cached until something changes."""
        if self._verdicts is None:
            try:
                now = rules.parse_scene(self.scene(), allow_off_table=True)
                before = rules.parse_scene(self.start_scene(), allow_off_table=True)
                self._verdicts = (rules.check(now), rules.move(before, now))
            except TablesightError as error:
                self._verdicts = ({"error": str(error)}, {"models": {}, "error": str(error)})
        return self._verdicts

    def unit(self) -> dict:
        """The unit the game measures in and its length in cm (a step is the players' own), for
        whatever shows its distances: the live state and a replay alike."""
        ruleset = rules.load_ruleset(self.ruleset_id)
        return {"unit": ruleset.unit, "unit_cm": ruleset.cm_per_unit(self.step_cm)}

    def allowances_cm(self) -> dict[str, float]:
        """Each assigned piece's move allowance in cm: how far the tracker may look for it."""
        ruleset = rules.load_ruleset(self.ruleset_id)
        per_unit = ruleset.cm_per_unit(self.step_cm)
        out = {}
        for piece_id, a in self.assignments.items():
            move = getattr(ruleset.unit_type(a.type, a.chassis), "move", None)
            if isinstance(move, int | float) and move > 0:
                out[piece_id] = float(move) * per_unit
        return out

    # --- controls ---------------------------------------------------------------------------

    def apply(self, action: str, payload: dict) -> dict:
        """One control action (see docs/session-contract.md); nothing changes when it fails."""
        handler = getattr(self, f"_do_{action}", None)
        if handler is None or not isinstance(payload, dict):
            raise TablesightError(
                f"unknown action '{action}'"
                if handler is None
                else f"{action}: the payload must be a JSON object",
                "use setup, assign, terrain, objectives, deployment, phase, next_turn, "
                "undo, reset_model, template or clear_templates",
            )
        result = handler(payload)
        self._verdicts = None
        return {"ok": True, **(result or {})}

    def _trial(self, **changes: Any) -> None:
        """Validate a change by parsing the scene it would make; raises SceneError naming the field."""
        trial = copy.copy(self)
        for key, value in changes.items():
            setattr(trial, key, value)
        rules.parse_scene(trial.scene(), allow_off_table=True)

    def _do_setup(self, payload: dict) -> dict:
        ruleset = _need(payload, "ruleset", str, "setup")
        table = _need(payload, "table", dict, "setup")
        width = _need(table, "width_cm", int | float, "setup")
        depth = _need(table, "depth_cm", int | float, "setup")
        if width <= 0 or depth <= 0:
            raise TablesightError(
                "setup: the table must be wider and deeper than 0 cm", "send its size in cm"
            )
        step = payload.get("step_cm")
        if step is not None and (not isinstance(step, int | float) or step <= 0):
            raise TablesightError("setup: step_cm must be a positive number", "send the step length in cm")
        # A deployment sent with the settings replaces the current one (null clears it): another
        # ruleset rarely has the same deployment kinds, and the two must change together.
        deployment = None if "deployment" in payload else self.deployment
        if payload.get("deployment") is not None:
            sent = _need(payload, "deployment", dict, "setup")
            deployment = {
                "kind": _need(sent, "kind", str, "setup deployment"),
                "sides": _need(sent, "sides", dict, "setup deployment"),
            }
        assignments = self._retyped(payload.get("retype") or {}, rules.load_ruleset(ruleset))
        self._trial(
            ruleset_id=ruleset,
            table={"width_cm": float(width), "depth_cm": float(depth)},
            step_cm=step,
            deployment=deployment,
            assignments=assignments,
        )
        unassigned = sorted(set(self.assignments) - set(assignments))
        self.ruleset_id, self.step_cm, self.deployment = ruleset, step, deployment
        self.assignments = assignments
        self.table = {"width_cm": float(width), "depth_cm": float(depth)}
        if self.phases != phases_of(ruleset):
            self.phases = phases_of(ruleset)
            self.phase = self.phases[0]
        unassigned_note = f"; {', '.join(unassigned)} unassigned" if unassigned else ""
        self._event(
            "setup", f"game set up: {ruleset} on a {width:g} x {depth:g} cm table{unassigned_note}", payload
        )

    def _retyped(self, retype: object, ruleset: rules.Ruleset) -> dict[str, Assignment]:
        """The assignments under another ruleset: `retype` maps an old unit type to the new
        ruleset's (its role, chassis and weapons go with it: they were the old ruleset's words) or
        to null, which unassigns those models. Mobile Infantry shares no type with World at Fire,
        so without it the models of one game could never be carried into the other. A type kept
        keeps its role and chassis only where the new ruleset has them: a Combined Arms officer
        carried into World at Fire, which gives no roles, refused the whole setup, and so did a
        World at Fire tank (`tracked`) carried into Tankomaster, whose vehicles have no chassis."""
        if not isinstance(retype, dict) or not all(
            isinstance(old, str) and (new is None or isinstance(new, str)) for old, new in retype.items()
        ):
            raise TablesightError(
                "setup: retype must map unit types to unit types or null",
                'send e.g. {"infantry": "trooper", "cavalry": null}',
            )
        kept: dict[str, Assignment] = {}
        for piece_id, a in self.assignments.items():
            if a.type not in retype:
                chassis = ruleset.unit_types[a.type].chassis if a.type in ruleset.unit_types else {}
                holds_role = not ruleset.role_types or a.type in ruleset.role_types
                kept[piece_id] = replace(
                    a,
                    role=a.role if a.role in ruleset.known_roles and holds_role else None,
                    chassis=a.chassis if a.chassis in chassis else None,
                )
            elif retype[a.type] is not None:
                kept[piece_id] = Assignment(side=a.side, unit=a.unit, type=retype[a.type])
        return kept

    def _do_assign(self, payload: dict) -> dict:
        ids = _need(payload, "model_ids", list, "assign")
        unknown = [i for i in ids if i not in self.pieces]
        if not ids or unknown:
            raise TablesightError(
                f"assign: no model {', '.join(map(str, unknown))} on the table"
                if unknown
                else "assign: model_ids is empty",
                "pick models shown on the table",
                fault=NotOnTable(tuple(map(str, unknown))) if unknown else None,
            )
        assignments = {i: self._assigned(i, payload) for i in ids}
        trial = {**self.assignments, **assignments}
        self._trial(assignments=trial)
        self.assignments = trial
        sent = {k: payload[k] for k in (*IDENTITY, *KIND, *STATE) if k in payload}
        anew = all(k in sent for k in IDENTITY)
        told = "; ".join(f"{k} {_said(v)}" for k, v in sent.items() if k in STATE or not anew)
        if anew:  # worded as it always was where it says the same, so older recordings replay the same
            detail = f"{', '.join(ids)} -> {sent['side']} {sent['unit']} ({sent['type']})"
            detail += f"; {told}" if told else ""
        else:
            detail = f"{', '.join(ids)}: {told or 'unchanged'}"
        self._event("assigned", detail, {"ids": ids, **sent})

    def _assigned(self, piece_id: str, payload: dict) -> Assignment:
        """The model's assignment after `payload`. Naming side, unit and type assigns it anew, its
        role, chassis and weapons as sent (none where left out: they were the old type's words);
        leaving any of the three out changes only the fields sent, so a player marks a model prone
        without typing its side, unit and type again. Its state (flags, order, wounded) is kept
        unless sent, in both: a prone model put in another unit is still prone. A null clears."""
        had = self.assignments.get(piece_id)
        state = {k: payload[k] for k in STATE if k in payload}
        if "flags" in state:
            state["flags"] = state["flags"] or []
        if "wounded" in state:
            _need(payload, "wounded", bool, "assign")
        anew = all(k in payload for k in IDENTITY)
        if had is None and not anew:
            missing = next(k for k in IDENTITY if k not in payload)
            raise TablesightError(
                f"assign: {piece_id} has no side, unit and type yet, and '{missing}' is missing",
                f"send assign with side, unit and type for {piece_id}",
                fault=Missing("assign", missing),
            )
        named = {k: _need(payload, k, str, "assign") for k in IDENTITY if k in payload}
        had = had or Assignment(**named)
        # Assigned anew, or another type: its chassis, role and weapons are the ones sent (or none);
        # kept, the old type's went with the model into rules that may not know them.
        retyped = anew or named.get("type", had.type) != had.type
        kind = {k: payload.get(k) for k in KIND} if retyped else {k: payload[k] for k in KIND if k in payload}
        return replace(had, **named, **kind, **state)

    def _do_terrain(self, payload: dict) -> dict:
        terrain = _need(payload, "terrain", list, "terrain")
        self._trial(terrain=terrain)
        self.terrain = terrain
        self._event("terrain", f"{len(terrain)} terrain piece{'' if len(terrain) == 1 else 's'}", {})

    def _do_objectives(self, payload: dict) -> dict:
        objectives = _need(payload, "objectives", list, "objectives")
        self._trial(objectives=objectives)
        self.objectives = objectives
        self._event("objectives", f"{len(objectives)} objectives", {})

    def _do_deployment(self, payload: dict) -> dict:
        deployment = {
            "kind": _need(payload, "kind", str, "deployment"),
            "sides": _need(payload, "sides", dict, "deployment"),
        }
        self._trial(deployment=deployment)
        rules.deployment_zones(
            rules.parse_scene({**self.scene(), "deployment": deployment}, allow_off_table=True)
        )
        self.deployment = deployment
        self._event("deployment", f"deployment {deployment['kind']}", deployment)

    def _do_phase(self, payload: dict) -> dict:
        to = _need(payload, "to", str, "phase")
        if to == "next":
            index = self.phases.index(self.phase) + 1
            if index >= len(self.phases):
                return self._do_next_turn({})
            to = self.phases[index]
        elif to not in self.phases:
            raise TablesightError(
                f"phase: '{to}' is not a phase of {self.ruleset_id}",
                f"use next or one of {', '.join(self.phases)}",
            )
        self._change_phase(self.turn, to)
        return {"turn": self.turn, "phase": self.phase}

    def _do_next_turn(self, payload: dict) -> dict:
        first = self.phases[1] if self.phases[0] == "deployment" and len(self.phases) > 1 else self.phases[0]
        self._change_phase(self.turn + 1, first)
        return {"turn": self.turn, "phase": self.phase}

    def _change_phase(self, turn: int, phase: str) -> None:
        self.phase_history.append(
            {"turn": self.turn, "phase": self.phase, "start": copy.deepcopy(self.start)}
        )
        before = f"turn {self.turn} {self.phase}"
        self.turn, self.phase = turn, phase
        self.start = {
            pid: {"x_cm": p["x_cm"], "y_cm": p["y_cm"], "heading_deg": p.get("heading_deg")}
            for pid, p in self.pieces.items()
        }
        self._event("phase", f"{before} -> turn {turn} {phase}", {"turn": turn, "phase": phase})

    def _do_undo(self, payload: dict) -> dict:
        if not self.phase_history:
            raise TablesightError("undo: no phase change to undo", "undo only after changing phase")
        last = self.phase_history.pop()
        self.turn, self.phase, self.start = last["turn"], last["phase"], last["start"]
        self._event(
            "undo", f"back to turn {self.turn} {self.phase}", {"turn": self.turn, "phase": self.phase}
        )
        return {"turn": self.turn, "phase": self.phase}

    def _do_reset_model(self, payload: dict) -> dict:
        piece_id = _need(payload, "model_id", str, "reset_model")
        if piece_id not in self.pieces or piece_id not in self.start:
            raise TablesightError(
                f"reset_model: no model {piece_id} on the table", "pick a model shown on the table"
            )
        start = self.start[piece_id]
        self.pieces[piece_id] = {**self.pieces[piece_id], "x_cm": start["x_cm"], "y_cm": start["y_cm"]}
        self._event(
            "reset", f"{piece_id} put back to ({start['x_cm']:.1f}, {start['y_cm']:.1f})", {"id": piece_id}
        )
        return {"model_id": piece_id, "x_cm": start["x_cm"], "y_cm": start["y_cm"]}

    def _do_template(self, payload: dict) -> dict:
        kind = _need(payload, "kind", str, "template")
        x, y = (
            _need(payload, "x_cm", int | float, "template"),
            _need(payload, "y_cm", int | float, "template"),
        )
        shown = {k: payload[k] for k in ("radius_cm", "length_cm", "width_cm", "heading_deg") if k in payload}
        for key, value in shown.items():
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise TablesightError(f"template: '{key}' must be a number", "send it in cm or degrees")
        scene = rules.parse_scene(self.scene(), allow_off_table=True)
        params: dict[str, float] = {}
        if "radius_cm" in shown:
            params["radius"] = shown["radius_cm"] / scene.cm_per_unit
        if "heading_deg" in shown:
            params["heading_deg"] = shown["heading_deg"]
        report = rules.under_template(scene, kind, x, y, **params)
        template = {
            "kind": kind,
            "x_cm": x,
            "y_cm": y,
            **shown,
            "radius_cm": report.get("radius_cm", 0.0),
            "under": _under_ids(report),
            "report": report,
        }
        self.templates.append(template)
        return {"template": template}

    def _do_clear_templates(self, payload: dict) -> dict:
        self.templates = []

    # --- record -----------------------------------------------------------------------------

    def _event(self, kind: str, detail: str, data: dict) -> dict:
        event = {
            "frame": self.frame,
            "t": round(self.t, 3),
            "turn": self.turn,
            "phase": self.phase,
            "kind": kind,
            "detail": detail,
            "data": data,
        }
        self.events.append(event)
        del self.events[: -EVENTS_KEPT * 20]
        if self.log is not None:
            self.log(event)
        return event

    def snapshot(self) -> dict:
        """Pieces with their owners and start-of-phase positions, as state() and the report show them."""
        models, vehicles = [], []
        for piece_id, piece in self.pieces.items():
            a = self.assignments.get(piece_id)
            start = self.start.get(piece_id, piece)
            entry = {
                "id": piece_id,
                "x_cm": piece["x_cm"],
                "y_cm": piece["y_cm"],
                "visible": piece["visible"],
                "side": a.side if a else None,
                "unit": a.unit if a else None,
                "type": a.type if a else None,
                **{k: getattr(a, k) if a else None for k in KIND},
                "flags": list(a.flags) if a else [],
                "order": a.order if a else None,
                "wounded": a.wounded if a else False,
                "start_x_cm": start["x_cm"],
                "start_y_cm": start["y_cm"],
            }
            if piece["kind"] == "vehicle":
                entry.update(
                    heading_deg=piece["heading_deg"],
                    length_cm=piece.get("length_cm", 0.0),
                    width_cm=piece.get("width_cm", 0.0),
                    corners_cm=_corners(piece),
                )
                vehicles.append(entry)
            else:
                entry["diameter_mm"] = piece["diameter_mm"]
                models.append(entry)
        return {"models": models, "vehicles": vehicles}


def _said(value: object) -> str:
    """A field's value in the log: `flags prone, aimed`, `order none`."""
    if value in (None, []):
        return "none"
    return ", ".join(value) if isinstance(value, list) else str(value)


def _under_ids(report: dict) -> list[str]:
    for key in ("under", "models", "ids"):
        value = report.get(key)
        if isinstance(value, list):
            return [v if isinstance(v, str) else v.get("id") for v in value]
    return []


def _corners(piece: dict) -> list[list[float]]:
    theta = math.radians(piece.get("heading_deg", 0.0))
    along, across = (math.cos(theta), math.sin(theta)), (-math.sin(theta), math.cos(theta))
    half_l, half_w = piece.get("length_cm", 0.0) / 2, piece.get("width_cm", 0.0) / 2
    return [
        [
            round(piece["x_cm"] + a * half_l * along[0] + b * half_w * across[0], 2),
            round(piece["y_cm"] + a * half_l * along[1] + b * half_w * across[1], 2),
        ]
        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))  # as Vehicles.corners_cm
    ]
