"""The one error type users see.

Every package raises `TablesightError` (or a subclass) for anything a user can fix: a bad file,
a missing marker, an unknown ruleset. The CLI and the web UI turn it into one line and exit
code 2 / a 4xx, so a traceback always means a bug of ours, never a mistake of the user's.
It lives in `rules_core` because that is the package every other one may import.

An error may also carry its `fault`: what is wrong in parts (the field, the value refused, the
values allowed), set where it is raised. The CLI prints the words; the web UI words the parts its
own way for a phone, and never reads the CLI's words back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Loc = tuple[str | int, ...]  # a field of a scene: ("models", 2, "side") is models[2].side


class TablesightError(Exception):
    """A problem the user can fix, with what is wrong and what to do about it."""

    def __init__(self, problem: str, fix: str = "", *, fault: Fault | None = None) -> None:
        self.problem = problem.rstrip(".")
        self.fix = fix.rstrip(".")
        self.fault = fault
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.problem}. {self.fix}." if self.fix else f"{self.problem}."


class RulesetError(TablesightError):
    """A ruleset file that cannot be used: names the file, the field and the line."""


class SceneError(TablesightError):
    """A scene (or move, or command argument) that does not fit its ruleset: names the field."""


@dataclass(frozen=True)
class NoEdge:
    """A side the scene's deployment gives no table edge; `sides`: those it does."""

    side: str
    sides: tuple[str, ...]


@dataclass(frozen=True)
class OtherSide:
    """A model on side `wanted` in `unit`, whose first model (`member`) is on side `side`."""

    unit: str
    side: str
    member: str
    wanted: str


@dataclass(frozen=True)
class Unknown:
    """A name the ruleset lacks: `what` is "unit type", "role", "weapon" or "chassis"."""

    what: str
    value: str
    ruleset: str | None = None


@dataclass(frozen=True)
class NoChassis:
    """A chassis given to a model whose type has none in the ruleset."""

    chassis: str
    type: str
    ruleset: str


@dataclass(frozen=True)
class Empty:
    """A name given as an empty string."""


@dataclass(frozen=True)
class OffTable:
    """An objective's, a model's or a template's centre (`what`, its `id` or kind) off the table."""

    what: str
    id: str
    x_cm: float
    y_cm: float
    width_cm: float
    depth_cm: float


@dataclass(frozen=True)
class SharedName:
    """A name that is a model's id and the name of a unit holding `members` too."""

    name: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class Missing:
    """A control sent without a field it needs (`key`)."""

    action: str
    key: str


@dataclass(frozen=True)
class NotOnTable:
    """Pieces a control names that the table does not hold."""

    ids: tuple[str, ...]


Reason = NoEdge | OtherSide | Unknown | NoChassis | Empty | OffTable


@dataclass(frozen=True)
class SceneFault:
    """A scene field refused: where (`loc`, and the model's id where the message names it), what is
    wrong in the CLI's words (`problem`), which refusal it is where a front end words it its own
    way (`reason`), and the fix in parts: the values allowed (`choices`, "use one of ...") or why
    to leave the field out (`leave_out`, "leave `role` out: ...")."""

    loc: Loc
    problem: str
    model_id: str | None = None
    reason: Reason | None = None
    choices: tuple[str, ...] | None = None
    leave_out: str | None = None

    @property
    def field(self) -> str:
        """`models[2].x_cm (model 'r3')`: the path, and the model's id since that is what a user
        searches for."""
        path = ""
        for part in self.loc:
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
        if self.model_id is not None:
            path += f" (model {self.model_id!r})"
        return path or "(scene)"


# What an error may carry besides its words: a scene field's fault, or a refusal of no field.
Fault = SceneFault | SharedName | Missing | NotOnTable | OffTable


# The fix a field's refusal carries where the rules core knows no better one: the web UI says its
# own words for the controls that make the field again instead.
SCENE_FIX = "correct the scene"


def field_error(
    loc: Loc,
    problem: str,
    fix: str = SCENE_FIX,
    *,
    model_id: str | None = None,
    reason: Reason | None = None,
    choices: tuple[str, ...] | None = None,
    leave_out: str | None = None,
) -> SceneError:
    """A scene field refused, worded for a scene file's writer ("scene field models[2].side: ...")
    and carrying its `SceneFault`."""
    fault = SceneFault(loc, problem, model_id, reason, choices, leave_out)
    return SceneError(f"scene field {fault.field}: {problem}", fix, fault=fault)


def plain_problem(message: str) -> str:
    """A pydantic error message as a user reads it: without the "Value error, " our own
    validators' messages get, or the model class a nested object should be an instance of
    ("a valid dictionary or instance of ModelSpec" names our code, not the file's JSON)."""
    message = message.removeprefix("Value error, ").replace("a valid dictionary", "a JSON object")
    return re.sub(r" or instance of \w+", "", message)
