"""The session's refusals of an assignment (and of the game's settings, and of ranges), said in a
player's words.

The rules core words its errors for a scene file ("scene field models[2].side: side 'green' has
no edge in deployment.sides"): right for the CLI and a JSON file, meaningless on a phone where
nobody wrote models[2] or deployment.sides. The web UI rewords them here, at its boundary, into
which model, what is wrong and which control to change; the CLI keeps the rules core's wording.
The parts come from the error's `fault` (rules_core.errors), never from its words: a CLI message
reworded would otherwise leave the phone showing the scene file's wording.
"""

from __future__ import annotations

import re

from rules_core.errors import (
    SCENE_FIX,
    Empty,
    Missing,
    NoChassis,
    NoEdge,
    NotOnTable,
    OffTable,
    OtherSide,
    SceneFault,
    SharedName,
    TablesightError,
    Unknown,
)

# The Setup panel's words for the scene's fields.
LABELS = {field: field.capitalize() for field in ("side", "unit", "type", "role", "chassis", "weapons")}

DIGITS = re.compile(r"(\d+)")
NAMED_AT_MOST = 5  # models named in a refusal; the rest are counted


def refusal(action: str, error: TablesightError, payload: dict, state: dict) -> TablesightError:
    """`error` (the session refusing `action` with `payload` over `state`, as it was) in a player's
    words: an assignment's by `assign_refusal`; any other scene field's without the scene file's
    field path ("scene field objectives[0].x_cm/y_cm: ..."), which a phone's player never wrote;
    a template tapped beside the table without the CLI's x_cm and y_cm, which the player never typed."""
    if action == "assign":
        return assign_refusal(error, payload, state)
    fault = error.fault
    off = fault.reason if isinstance(fault, SceneFault) else fault  # a template's is no scene field
    if isinstance(off, OffTable):
        placed = action in ("objectives", "terrain") and off.id not in _ids(state.get(action))
        return _off_table(off, placed=placed)
    if not isinstance(fault, SceneFault):
        return error
    if listed := _listed_piece_refusal(action, fault, error.fix, payload):
        return listed
    return TablesightError(_capitalized(fault.problem), _fix_for("", fault, error.fix))


# A terrain piece or an objective, as the Setup panel calls it, and the control that makes it again:
# the rules core's "correct the scene" means nothing to a player who tapped corners out of order.
AGAIN = {
    "terrain": ("Terrain piece", "Draw it again, tapping its corners in order round its edge, "
                "or tap Clear terrain under Terrain"),
    "objectives": ("Objective", "Place it again, or tap Clear objectives under Objectives"),
}


def _listed_piece_refusal(action: str, fault: SceneFault, fix: str, payload: dict) -> TablesightError | None:
    """A field of a piece of the list sent (`terrain[1].polygon_cm`) that the rules core has no fix
    for, by the piece's id, and pydantic's "Input should be ..." by its field."""
    loc, sent = fault.loc, payload.get(action) or []  # a list of objects: `webui.actions` checked it
    if action not in AGAIN or fix != SCENE_FIX or len(loc) < 3 or loc[0] != action:
        return None
    index = loc[1]
    if not (isinstance(index, int) and index < len(sent)):
        return None
    what, again = AGAIN[action]
    problem = re.sub(r"^Input\b", str(loc[2]), fault.problem)
    return TablesightError(f"{what} {sent[index].get('id')}: {problem}", again)


def _ids(listed: list | None) -> set:
    return {piece.get("id") for piece in listed or []}


def _off_table(off: OffTable, placed: bool = False) -> TablesightError:
    """A piece or a template off the table. A template's centre is a tap, unrounded (190.37129),
    and its player tapped beside the drawn table, so is told where to tap, not which x_cm to give;
    so is one who just `placed` an objective there (the picture may show more than the game's table)."""
    table = f"{off.width_cm:g} × {off.depth_cm:g} cm"
    if off.what == "template":
        return TablesightError(
            f"The {off.id} template at ({off.x_cm:.1f}, {off.y_cm:.1f}) cm would be off the {table} table",
            "Tap on the table to place it",
        )
    at = f"({off.x_cm}, {off.y_cm}) cm"
    if off.what == "objective":
        return TablesightError(
            f"Objective {off.id} at {at} would be off a {table} table",
            "Tap on the table to place it" if placed
            else "Pick a bigger table, or tap Clear objectives under Objectives first",
        )
    if off.what == "terrain":  # wholly off: a piece running off the table's edge is as good as any
        if placed:
            return TablesightError(f"The terrain piece drawn lies off the {table} table",
                                   "Draw it again with a corner on the table")
        return TablesightError(f"Terrain piece {off.id} would be off a {table} table",
                               "Pick a bigger table, or tap Clear terrain under Terrain first")
    return TablesightError(
        f"Model {off.id} at {at} would be off a {table} table", "Pick a table it stands on"
    )


def ranges_refusal(error: TablesightError) -> TablesightError:
    """The rules core refusing ranges from a name that is a model's and a unit's both, said for a
    phone: its player tapped a model (or its unit's button) and never typed FROM, and can only
    rename the unit, since the tracker names the models. Any other refusal is returned as it is."""
    if not isinstance(shared := error.fault, SharedName):
        return error
    name, members = shared.name, _counted(shared.members)
    return TablesightError(
        f"Model {name} and unit {name} ({members}) share one name, so the rig can't tell whose ranges "
        "you asked for",
        f"Rename the unit: under Setup, Assign models, pick {members}, type another Unit (e.g. {name}-unit) "
        "and tap Assign",
    )


def assign_refusal(error: TablesightError, payload: dict, state: dict) -> TablesightError:
    """`error` (the session refusing the assignment `payload` over `state`, as it was) reworded;
    an error of a shape not known here is returned as it is."""
    fault = error.fault
    if isinstance(fault, Missing):
        label = LABELS.get(fault.key, fault.key)
        return TablesightError(f"Say the models' {label.lower()}", f"Fill in {label}, then tap Assign")
    if isinstance(fault, NotOnTable):
        return TablesightError(
            f"{', '.join(fault.ids)} is no longer on the table", "Pick models shown on it and assign again"
        )
    if not (isinstance(fault, SceneFault) and _a_models_field(fault)):
        return error
    index, field = fault.loc[1], fault.loc[2]
    model = fault.model_id or _scene_model(index, payload, state)
    return _reworded(model, field, fault, error.fix, payload, state)


def _a_models_field(fault: SceneFault) -> bool:
    """Whether the fault is a model's own field (models[2].side), the kind the Setup panel sets,
    and not a point (models[2].x_cm/y_cm) or a part of one (models[2].base.shape)."""
    loc = fault.loc
    return (len(loc) == 3 and loc[0] == "models" and isinstance(loc[1], int)
            and isinstance(loc[2], str) and loc[2].isidentifier())


def _scene_model(index: int, payload: dict, state: dict) -> str:
    """The id of the session's scene's model `index`: its scene lists the assigned pieces by id."""
    pieces = [*state.get("models", []), *state.get("vehicles", [])]
    assigned = {p["id"] for p in pieces if p.get("side")} | set(payload.get("model_ids", []))
    ids = sorted(assigned & {p["id"] for p in pieces})
    return ids[index] if index < len(ids) else ", ".join(payload.get("model_ids", []))


def _reworded(
    model: str, field: str, fault: SceneFault, fix: str, payload: dict, state: dict
) -> TablesightError:
    label, reason = LABELS.get(field, field), fault.reason
    if isinstance(reason, NoEdge):
        kind = (state.get("deployment") or {}).get("kind", "current")
        return TablesightError(
            f"{model} can't be on side {reason.side}: the {kind} deployment places only "
            f"{', '.join(reason.sides)}",
            "Give it one of those sides, or tap Clear deployment under Deployment first",
        )
    if isinstance(reason, OtherSide):
        unit, side, wanted = reason.unit, reason.side, reason.wanted
        if told := _joining_another_sides_unit(unit, payload, state):
            return told
        return TablesightError(
            f"{model} can't join unit {unit} on side {wanted}: {unit} is {side}'s ({reason.member} is in it)",
            f"Type another Unit for {wanted}, or the Side {side}",
        )
    if isinstance(reason, Unknown):
        game = reason.ruleset or (state.get("ruleset") or {}).get("id", "this ruleset")
        told = f"{model}: {game} has no {reason.what} {reason.value}"
        return TablesightError(told, _fix_for(label, fault, fix))
    if isinstance(reason, NoChassis):
        told = (f"{model}: a model of type {reason.type} has no chassis in {reason.ruleset}, "
                f"so not {reason.chassis}")
        return TablesightError(told, _fix_for(label, fault, fix))
    if isinstance(reason, Empty):
        return TablesightError(f"{model}: {label} is empty", f"Fill in {label}")
    detail = fault.problem
    if detail.lower().startswith(field.lower()):  # "role 'x' ...": the field is named once
        return TablesightError(f"{model}: {label}{detail[len(field):]}", _fix_for(label, fault, fix))
    return TablesightError(f"{model}: {label} {detail}", _fix_for(label, fault, fix))


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


def _fix_for(label: str, fault: SceneFault, fix: str) -> str:
    """The fix under the form's field `label` where the fault gives its parts, else the CLI's."""
    if fault.choices is not None and label:
        return f"Under {label}, use one of {', '.join(fault.choices)}"
    if fault.leave_out is not None and label:
        return f"Leave {label} empty: {fault.leave_out}"
    return _capitalized(fix)


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]
