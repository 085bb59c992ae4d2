"""The session's refusals of an assignment (and of the game's settings, and of ranges), said in a
player's words.

The rules core words its errors for a scene file ("scene field models[2].side: side 'green' has
no edge in deployment.sides"): right for the CLI and a JSON file, meaningless on a phone where
nobody wrote models[2] or deployment.sides. The web UI rewords them here, at its boundary, into
which model, what is wrong and which control to change; the CLI keeps the rules core's wording.
"""

from __future__ import annotations

import re

from rules_core.errors import TablesightError

# The Setup panel's words for the scene's fields.
LABELS = {field: field.capitalize() for field in ("side", "unit", "type", "role", "chassis", "weapons")}

SCENE_FIELD = re.compile(r"^scene field models\[(\d+)\]\.(\w+)(?: \(model '([^']*)'\))?: (.*)$", re.S)
NO_EDGE = re.compile(r"^side '(.*)' has no edge in deployment\.sides \(it names (.*)\)$")
OTHER_SIDE = re.compile(r"^unit '(.*)' is on side '(.*)' \(model '(.*)'\), not '(.*)'$")
UNKNOWN = re.compile(r"^unknown (unit type|role|weapon|chassis) '(.*?)'(?: for ruleset (.*))?$")
USE_ONE_OF = re.compile(r"^use one of (.*)$")
MISSING = re.compile(r"^assign: '(\w+)' is missing$")
NOT_ON_TABLE = re.compile(r"^assign: no model (.*) on the table$")
NO_CHASSIS = re.compile(r"^chassis '(.*)' on a model of type (.*), which has no chassis in (.*)$")
ANY_FIELD = re.compile(r"^scene field ([\w.\[\]/]+)(?: \(model '[^']*'\))?: (.*)$", re.S)
OFF_TABLE = re.compile(r"^(objective|model) '(.*)' at \((.*), (.*)\) is off the (.*)x(.*) cm table$")
DIGITS = re.compile(r"(\d+)")
# `rules ranges FROM` on a model id that a unit holding other models also has; the ids are
# Python reprs, in double quotes where the name holds a single one.
SHARED_NAME = re.compile(
    r"^FROM (['\"])(.*)\1 is both a model id and a unit id \(unit \1.*\1 holds (.*)\)$", re.S
)
NAMED_AT_MOST = 5  # models named in a refusal; the rest are counted


def refusal(action: str, error: TablesightError, payload: dict, state: dict) -> TablesightError:
    """`error` (the session refusing `action` with `payload` over `state`, as it was) in a player's
    words: an assignment's by `assign_refusal`; any other's without the scene file's field path
    ("scene field objectives[0].x_cm/y_cm: ..."), which a phone's player never wrote."""
    if action == "assign":
        return assign_refusal(error, payload, state)
    if not (match := ANY_FIELD.match(error.problem)):
        return error
    detail = match[2]
    if off := OFF_TABLE.match(detail):
        what, name, x, y, width, depth = off.groups()
        table = f"{float(width):g} × {float(depth):g} cm"
        if what == "objective":
            return TablesightError(
                f"Objective {name} at ({x}, {y}) cm would be off a {table} table",
                "Pick a bigger table, or tap Clear objectives under Objectives first",
            )
        return TablesightError(
            f"Model {name} at ({x}, {y}) cm would be off a {table} table", "Pick a table it stands on"
        )
    return TablesightError(detail[:1].upper() + detail[1:], _fix_for("", error.fix))


def ranges_refusal(error: TablesightError) -> TablesightError:
    """The rules core refusing ranges from a name that is a model's and a unit's both, said for a
    phone: its player tapped a model (or its unit's button) and never typed FROM, and can only
    rename the unit, since the tracker names the models. Any other refusal is returned as it is."""
    if not (match := SHARED_NAME.match(error.problem)):
        return error
    name, members = match[2], _counted(match[3].split(", "))
    return TablesightError(
        f"Model {name} and unit {name} ({members}) share one name, so the rig can't tell whose ranges "
        "you asked for",
        f"Rename the unit: under Setup, Assign models, pick {members}, type another Unit (e.g. {name}-unit) "
        "and tap Assign",
    )


def assign_refusal(error: TablesightError, payload: dict, state: dict) -> TablesightError:
    """`error` (the session refusing the assignment `payload` over `state`, as it was) reworded;
    an error of a shape not known here is returned as it is."""
    problem = error.problem
    if match := MISSING.match(problem):
        label = LABELS.get(match[1], match[1])
        return TablesightError(f"Say the models' {label.lower()}", f"Fill in {label}, then tap Assign")
    if match := NOT_ON_TABLE.match(problem):
        return TablesightError(
            f"{match[1]} is no longer on the table", "Pick models shown on it and assign again"
        )
    if not (match := SCENE_FIELD.match(problem)):
        return error
    index, field, named, detail = int(match[1]), match[2], match[3], match[4]
    model = named or _scene_model(index, payload, state)
    return _reworded(model, field, detail, error.fix, payload, state)


def _scene_model(index: int, payload: dict, state: dict) -> str:
    """The id of the session's scene's model `index`: its scene lists the assigned pieces by id."""
    pieces = [*state.get("models", []), *state.get("vehicles", [])]
    assigned = {p["id"] for p in pieces if p.get("side")} | set(payload.get("model_ids", []))
    ids = sorted(assigned & {p["id"] for p in pieces})
    return ids[index] if index < len(ids) else ", ".join(payload.get("model_ids", []))


def _reworded(model: str, field: str, detail: str, fix: str, payload: dict, state: dict) -> TablesightError:
    label = LABELS.get(field, field)
    if match := NO_EDGE.match(detail):
        kind = (state.get("deployment") or {}).get("kind", "current")
        return TablesightError(
            f"{model} can't be on side {match[1]}: the {kind} deployment places only {match[2]}",
            "Give it one of those sides, or tap Clear deployment under Deployment first",
        )
    if match := OTHER_SIDE.match(detail):
        unit, side, other, wanted = match.groups()
        if told := _joining_another_sides_unit(unit, payload, state):
            return told
        return TablesightError(
            f"{model} can't join unit {unit} on side {wanted}: {unit} is {side}'s ({other} is in it)",
            f"Type another Unit for {wanted}, or the Side {side}",
        )
    if match := UNKNOWN.match(detail):
        what, value, ruleset = match.groups()
        game = ruleset or (state.get("ruleset") or {}).get("id", "this ruleset")
        return TablesightError(f"{model}: {game} has no {what} {value}", _fix_for(label, fix))
    if match := NO_CHASSIS.match(detail):
        value, kind, game = match.groups()
        told = f"{model}: a model of type {kind} has no chassis in {game}, so not {value}"
        return TablesightError(told, _fix_for(label, fix))
    if "at least 1 character" in detail:
        return TablesightError(f"{model}: {label} is empty", f"Fill in {label}")
    if detail.lower().startswith(field.lower()):  # "chassis 'x' ...": the field is named once
        return TablesightError(f"{model}: {label}{detail[len(field):]}", _fix_for(label, fix))
    return TablesightError(f"{model}: {label} {detail}", _fix_for(label, fix))


def _joining_another_sides_unit(unit: str, payload: dict, state: dict) -> TablesightError | None:
    """The rules core judged the scene after the change: models already in `unit` disagree with
    the side the picked models took, so it blamed one of the unit's own (m15, red) for the
    picked ones' side (blue). Said from the payload instead: the picked models, the side typed,
    and the side the unit's other models are on."""
    picked, side = payload.get("model_ids") or [], payload.get("side")
    if payload.get("unit") != unit or not side:
        return None
    others = [p for p in [*state.get("models", []), *state.get("vehicles", [])]
              if p.get("unit") == unit and p["id"] not in picked and p.get("side") and p["side"] != side]
    if not others:
        return None
    theirs = others[0]["side"]
    members = _counted(p["id"] for p in others if p["side"] == theirs)
    return TablesightError(
        f"{_counted(picked)} can't join unit {unit} on side {side}: {unit} is {theirs}'s ({members} in it)",
        f"Type another Unit for {side}, or the Side {theirs}",
    )


def _counted(ids) -> str:
    """Ids in the order a player counts them (m2 before m10), the first few named."""
    ordered = sorted(ids, key=lambda i: [int(part) if part.isdigit() else part for part in DIGITS.split(i)])
    more = len(ordered) - NAMED_AT_MOST
    return ", ".join(ordered[:NAMED_AT_MOST]) + (f" and {more} more" if more > 0 else "")


def _fix_for(label: str, fix: str) -> str:
    if (match := USE_ONE_OF.match(fix)) and label:
        return f"Under {label}, use one of {match[1]}"
    if fix.startswith("leave `") and label:
        return f"Leave {label} empty: {fix.split(': ', 1)[-1]}"
    return fix[:1].upper() + fix[1:]
