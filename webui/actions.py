"""The shapes of the control actions a phone may send (session_contract.md).

Checked here, before the session sees them, so a malformed request from a page or a script
gets a 400 that names the field and never reaches the pipeline thread. Unknown ids and
values only the game can judge (a unit type the ruleset lacks) are left to the session,
which raises `TablesightError` for them. Extra fields pass through: the contract grows by
adding fields. Not beside an objective or a terrain piece, though: the game keeps those as they
are sent and pushes them to every phone with every state, so only the scene's own fields are kept.

`LIMITS` are the bounds a player can type into: the page's fields take theirs from here
(`webui.api` hands them to the page's template), so the form and the rig never disagree.
"""

from __future__ import annotations

import typing
import unicodedata
from typing import Annotated, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from rules_core.errors import TablesightError

# A number as JSON writes one: the rules core refuses a coordinate of `true` or `"12"` in a scene
# file, which pydantic's lax mode would turn into 1.0 and 12.0 before the game saw them, and
# `NaN` or `1e309` (Python's JSON reads both) is refused here, where the field can be named.
Number = Annotated[float, Strict(), Field(allow_inf_nan=False)]
Count = Annotated[int, BeforeValidator(lambda n: int(n) if isinstance(n, float) and n.is_integer() else n),
                  Strict()]  # 2.0 too, as the rules core takes it (a preset's level): not "2" nor true
Point = tuple[Number, Number]

# A side, unit, type, weapon or id a player types. A 240 KB unit name was taken and sent to
# every phone with every state (5.8 MB each); the longest name a shipped ruleset uses is 25.
NAME_MAX = 40
TABLE_CM = (30.0, 600.0)  # a table's width and depth: a skirmish mat to a club's longest
STEP_CM = (1.0, 50.0)  # a step, for a ruleset measured in steps (Bronepehota's seed: 2.5 cm)
# A table's worth, well past any scenario's. The 256 KB body took 4000 objectives (an 800 KB state to
# every phone) and 160 terrain pieces (3.1 s to check, the pipeline held the while).
OBJECTIVES_MAX, TERRAIN_MAX, CORNERS_MAX = 50, 100, 200
ADDED = {"objectives": "objective", "terrain": "terrain piece"}  # what one of each list is called
LIMITS = {"name_max": NAME_MAX, "table_cm": TABLE_CM, "step_cm": STEP_CM}

# No name a player types holds these: C0 and C1 controls (a NUL, a line break), and the marks that
# turn text's direction, which showed a unit's name backwards on every other phone.
DIRECTION_MARKS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Controls, and the line and paragraph separators that break a name's line as a control would.
ODD_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def _typed(name: str) -> str:
    odd = next((c for c in name if unicodedata.category(c) in ODD_CATEGORIES or c in DIRECTION_MARKS), None)
    if odd is not None:
        raise PydanticCustomError("control_character", "holds a control character ({shown})",
                                  {"shown": f"U+{ord(odd):04X}"})
    return name


Name = Annotated[str, Field(max_length=NAME_MAX), AfterValidator(_typed)]
Id = Annotated[str, Field(min_length=1, max_length=NAME_MAX), AfterValidator(_typed)]


class Payload(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableSize(Payload):
    width_cm: Number = Field(ge=TABLE_CM[0], le=TABLE_CM[1])
    depth_cm: Number = Field(ge=TABLE_CM[0], le=TABLE_CM[1])


class Deployment(Payload):
    kind: Id
    sides: dict[Id, Id]


class Setup(Payload):
    ruleset: str | None = Field(default=None, min_length=1, max_length=64)
    table: TableSize | None = None
    step_cm: Number | None = Field(default=None, ge=STEP_CM[0], le=STEP_CM[1])
    # The deployment to keep with the new ruleset, or null to clear one it does not have.
    deployment: Deployment | None = None
    # Old unit type -> the new ruleset's, or null to unassign those models.
    retype: dict[Name, Name | None] | None = None


class Assign(Payload):
    model_ids: list[Id] = Field(min_length=1)
    side: Name | None = None
    unit: Name | None = None
    type: Name | None = None
    role: Name | None = None
    chassis: Name | None = None
    weapons: list[Name] | None = Field(default=None, max_length=20)
    # The model's state as the game goes (docs/webui.md, Assign): null clears the flags or the order.
    flags: list[Name] | None = Field(default=None, max_length=20)
    order: Name | None = None
    wounded: Annotated[bool, Strict()] = False


class TerrainPiece(Payload):
    model_config = ConfigDict(extra="ignore")

    id: Id
    kind: Id
    polygon_cm: list[Point] = Field(min_length=3, max_length=CORNERS_MAX)
    height_cm: Number | None = None
    level: Count | None = None


class NewTerrainPiece(TerrainPiece):
    id: Id | None = None  # the rig names it (`webui.additions`)


class OneOrTheList(Payload):
    """The whole list (named `listed`), which replaces the game's, or one piece to add to the list
    as the rig has it (`add`, see `webui.additions`): never both."""

    listed: ClassVar[str]

    @model_validator(mode="after")
    def _one_of_the_two(self) -> OneOrTheList:
        if (getattr(self, self.listed) is None) == (self.add is None):  # a null is neither
            raise PydanticCustomError("one_or_the_list", "takes the whole list ({listed}) or one {piece} to "
                                      "add (add)", {"listed": self.listed, "piece": ADDED[self.listed]})
        return self


class Terrain(OneOrTheList):
    listed: ClassVar[str] = "terrain"
    terrain: list[TerrainPiece] | None = Field(default=None, max_length=TERRAIN_MAX)
    add: NewTerrainPiece | None = None


class Objective(Payload):
    model_config = ConfigDict(extra="ignore")

    id: Id
    x_cm: Number
    y_cm: Number
    diameter_mm: Number | None = Field(default=None, gt=0)


class NewObjective(Objective):
    id: Id | None = None  # the rig names it (`webui.additions`)


class Objectives(OneOrTheList):
    listed: ClassVar[str] = "objectives"
    objectives: list[Objective] | None = Field(default=None, max_length=OBJECTIVES_MAX)
    add: NewObjective | None = None


class Where(Payload):
    turn: Count = Field(ge=0)
    phase: Id


class Advance(Payload):
    """A turn control. `from`: the turn and phase the page showed when it was tapped; the session
    applies the control only while the game is still there, so a double tap, or two phones
    tapping Next phase at once, takes one step, not two. Without it the control applies as it is."""

    from_: Where | None = Field(default=None, alias="from")


class Phase(Advance):
    to: Id


class ResetModel(Payload):
    model_id: Id


class Template(Payload):
    # A template the current ruleset names (`rules show ID`); only the session knows which.
    kind: str = Field(min_length=1, max_length=64)
    x_cm: Number
    y_cm: Number
    radius_cm: Number | None = Field(default=None, gt=0)
    length_cm: Number | None = Field(default=None, gt=0)
    width_cm: Number | None = Field(default=None, gt=0)
    heading_deg: Number | None = None

    @field_validator("heading_deg")
    @classmethod
    def _a_heading_in_one_turn(cls, value: float | None) -> float | None:
        """Angles are in [0, 360) (CONTRACTS.md): -90 is 270, 450 is 90."""
        return None if value is None else value % 360.0


ACTIONS: dict[str, type[Payload]] = {
    "setup": Setup,
    "assign": Assign,
    "terrain": Terrain,
    "objectives": Objectives,
    "deployment": Deployment,
    "phase": Phase,
    "next_turn": Advance,
    "undo": Advance,
    "reset_model": ResetModel,
    "recalibrate": Payload,
    "template": Template,
    "clear_templates": Payload,
}

# A field as the page labels it, and its bounds where it is a number a player types: a refusal
# of one of these is said in the form's words ("Table width must be a number from 30 to 600
# cm, not 0"), not pydantic's ("Field 'table.width_cm' of 'setup': Input should be ...").
FIELDS: dict[tuple[str, str], tuple[str, tuple[float, float] | None, str]] = {
    ("setup", "table.width_cm"): ("Table width", TABLE_CM, "cm"),
    ("setup", "table.depth_cm"): ("Table depth", TABLE_CM, "cm"),
    ("setup", "step_cm"): ("Step length", STEP_CM, "cm"),
    ("template", "heading_deg"): ("Heading", None, "degrees"),
    **{("assign", name): (name.title(), None, "") for name in ("side", "unit", "type", "role", "chassis")},
    ("assign", "weapons"): ("A weapon under Weapons", None, ""),
    ("assign", "flags"): ("A flag under Flags", None, ""),
    ("assign", "order"): ("Order", None, ""),
}


def number_rule(action: str, field: str) -> tuple[str, str]:
    """What a bounded number field takes, and what to do about a number outside it: the refusal
    below says it, and so does the page before it sends (the field's `data-rule` and `data-fix`,
    in the form's template), so the one rule is worded once."""
    return _bounded(*FIELDS[(action, field)])


def _bounded(label: str, bounds: tuple[float, float], unit: str) -> tuple[str, str]:
    return (f"{label} must be a number from {bounds[0]:g} to {bounds[1]:g} {unit}",
            f"Type a {label.lower()} in that range")


NUMBER_ERRORS = ("float_parsing", "float_type", "finite_number", "greater_than", "greater_than_equal",
                 "less_than", "less_than_equal", "int_parsing", "int_type")


def validate_action(action: str, payload: object) -> dict:
    """The payload as the session expects it, or a `TablesightError` naming what is wrong."""
    if not isinstance(payload, dict):
        raise TablesightError(f"The body of '{action}' must be a JSON object", "Send {...} with the fields")
    try:
        parsed = ACTIONS[action].model_validate(payload)
    except ValidationError as error:
        # A misspelt field is also a missing one: its own name says more than the one it stood for.
        errors = sorted(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
        raise _refusal(action, errors[0], payload) from None
    return parsed.model_dump(exclude_unset=True, by_alias=True)


def _refusal(action: str, first: dict, payload: dict) -> TablesightError:
    # A key sent is part of the field's name: a control character in it is said as its code.
    loc = ["".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in str(part)) for part in first["loc"]]
    field = ".".join(loc) or "body"
    named = FIELDS.get((action, field)) or FIELDS.get((action, loc[0] if loc else ""))
    kind, typed = first["type"], first.get("input")
    what = named[0] if named else f"'{field}' of '{action}'"
    if kind == "string_too_long":
        most = (first.get("ctx") or {}).get("max_length", NAME_MAX)
        return TablesightError(
            f"{what} is {len(typed)} characters long: a name is at most {most}", "Type a shorter one"
        )
    if kind == "model_type":  # pydantic's words name our classes: "instance of NewObjective"
        return TablesightError(f"{what} must be a JSON object, not {repr(typed)[:24]}",
                               "Send {...} with its fields")
    if kind == "extra_forbidden":  # a misspelt field was passed on, and the game went without it
        where = f"'{action}'" if len(loc) == 1 else f"'{'.'.join(loc[:-1])}' of '{action}'"
        fields = _fields_at(ACTIONS[action], loc[:-1])
        fix = ("Check its name against docs/webui.md" if fields is None
               else f"Send only its fields: {', '.join(fields)}" if fields else "Send {}")
        return TablesightError(f"{where} has no field '{loc[-1]}'", fix)
    if kind == "one_or_the_list":
        return TablesightError(f"'{action}' {first['msg']}", "Send one of the two")
    if kind == "control_character":
        return TablesightError(f"{what} holds a control character ({first['ctx']['shown']}), which no "
                               "name has", "Type it again with letters, digits and spaces")
    if kind == "too_long" and (too_many := _too_many(loc, len(typed), first["ctx"]["max_length"], payload)):
        return too_many
    if named and kind in NUMBER_ERRORS:
        label, bounds, unit = named
        shown = "empty" if typed in ("", None) else repr(typed)[:24]
        if bounds is None:
            return TablesightError(f"{label} must be a number of {unit}, not {shown}", "Type a number")
        rule, fix = _bounded(label, bounds, unit)
        return TablesightError(f"{rule}, not {shown}", fix)
    return TablesightError(f"Field '{field}' of '{action}': {first['msg']}", "Fix that field and send again")


def _fields_at(model: type[BaseModel] | None, path: list[str]) -> list[str] | None:
    """The fields (as sent: `from`, not `from_`) of the object at `path` in `model`'s payload; None
    where the path goes through what is no object of ours (a list's item)."""
    for part in path:
        field = next((f for name, f in model.model_fields.items() if (f.alias or name) == part), None)
        model = _object_type(field.annotation) if field is not None else None
        if model is None:
            return None
    return [field.alias or name for name, field in model.model_fields.items()]


def _object_type(annotation: object) -> type[BaseModel] | None:
    """`Where` out of `Where | None`; None where no object of ours is in it."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((found for arg in typing.get_args(annotation)
                 if arg is not type(None) and (found := _object_type(arg)) is not None), None)


# A list past its bound, in the Setup panel's words, and the control that starts it again.
TOO_MANY = {
    "objectives": ("objectives", "Tap Clear objectives under Objectives, then place them again"),
    "terrain": ("terrain pieces", "Tap Clear terrain under Terrain, then draw them again"),
}

PER_MODEL = {"weapons": "Weapons", "flags": "Flags"}  # an assign's lists, as the Assign panel labels them


def _too_many(loc: list[str], count: int, most: int, payload: dict) -> TablesightError | None:
    if loc[-1] == "polygon_cm":  # a terrain piece's corners: one in the list sent, or the one drawn (add)
        piece = ("The terrain piece drawn" if loc[0] == "add"
                 else f"Terrain piece {payload['terrain'][int(loc[1])].get('id')}")
        return TablesightError(f"{piece} has {count} corners: a piece takes at most {most}",
                               "Draw it again with fewer corners")
    if loc[0] in PER_MODEL and len(loc) == 1:
        return TablesightError(f"A model takes at most {most} {loc[0]}, not {count}",
                               f"Type fewer under {PER_MODEL[loc[0]]}")
    if loc[0] not in TOO_MANY or len(loc) > 1:
        return None
    what, fix = TOO_MANY[loc[0]]
    return TablesightError(f"A table takes at most {most} {what}, not {count}", fix)
