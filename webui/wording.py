"""The session's refusals of an assignment, said in a player's words.

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
    return _reworded(model, field, detail, error.fix, state)


def _scene_model(index: int, payload: dict, state: dict) -> str:
    """The id of the session's scene's model `index`: its scene lists the assigned pieces by id."""
    pieces = [*state.get("models", []), *state.get("vehicles", [])]
    assigned = {p["id"] for p in pieces if p.get("side")} | set(payload.get("model_ids", []))
    ids = sorted(assigned & {p["id"] for p in pieces})
    return ids[index] if index < len(ids) else ", ".join(payload.get("model_ids", []))


def _reworded(model: str, field: str, detail: str, fix: str, state: dict) -> TablesightError:
    label = LABELS.get(field, field)
    if match := NO_EDGE.match(detail):
        kind = (state.get("deployment") or {}).get("kind", "current")
        return TablesightError(
            f"{model} can't be on side {match[1]}: the {kind} deployment places only {match[2]}",
            "Give it one of those sides, or tap Clear deployment under Deployment first",
        )
    if match := OTHER_SIDE.match(detail):
        unit, side, other, wanted = match.groups()
        return TablesightError(
            f"{model} can't join unit {unit} on side {wanted}: {unit} is {side}'s ({other} is in it)",
            f"Type another Unit for {wanted}, or the Side {side}",
        )
    if match := UNKNOWN.match(detail):
        what, value, ruleset = match.groups()
        game = ruleset or (state.get("ruleset") or {}).get("id", "this ruleset")
        return TablesightError(f"{model}: {game} has no {what} {value}", _fix_for(label, fix))
    if "at least 1 character" in detail:
        return TablesightError(f"{model}: {label} is empty", f"Fill in {label}")
    return TablesightError(f"{model}: {label} {detail}", _fix_for(label, fix))


def _fix_for(label: str, fix: str) -> str:
    if match := USE_ONE_OF.match(fix):
        return f"Under {label}, use one of {match[1]}"
    if fix.startswith("leave `"):
        return f"Leave {label} empty: {fix.split(': ', 1)[-1]}"
    return fix[:1].upper() + fix[1:]
