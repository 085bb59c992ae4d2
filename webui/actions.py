"""The shapes of the control actions a phone may send (session_contract.md).

Checked here, before the session sees them, so a malformed request from a page or a script
gets a 400 that names the field and never reaches the pipeline thread. Unknown ids and
values only the game can judge (a unit type the ruleset lacks) are left to the session,
which raises `TablesightError` for them. Extra fields pass through: the contract grows by
adding fields.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules_core.errors import TablesightError

Point = tuple[float, float]


class Payload(BaseModel):
    model_config = ConfigDict(extra="allow")


class TableSize(Payload):
    width_cm: float = Field(gt=0, le=2000)
    depth_cm: float = Field(gt=0, le=2000)


class Deployment(Payload):
    kind: str = Field(min_length=1)
    sides: dict[str, str]


class Setup(Payload):
    ruleset: str | None = Field(default=None, min_length=1)
    table: TableSize | None = None
    step_cm: float | None = Field(default=None, gt=0, le=100)
    # The deployment to keep with the new ruleset, or null to clear one it does not have.
    deployment: Deployment | None = None
    # Old unit type -> the new ruleset's, or null to unassign those models.
    retype: dict[str, str | None] | None = None


class Assign(Payload):
    model_ids: list[str] = Field(min_length=1)
    side: str | None = None
    unit: str | None = None
    type: str | None = None
    role: str | None = None
    chassis: str | None = None
    weapons: list[str] | None = None


class TerrainPiece(Payload):
    id: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    polygon_cm: list[Point] = Field(min_length=3)
    height_cm: float | None = None
    level: int | None = None


class Terrain(Payload):
    terrain: list[TerrainPiece]


class Objective(Payload):
    id: str = Field(min_length=1)
    x_cm: float
    y_cm: float
    diameter_mm: float | None = Field(default=None, gt=0)


class Objectives(Payload):
    objectives: list[Objective]


class Phase(Payload):
    to: str = Field(min_length=1)


class ResetModel(Payload):
    model_id: str = Field(min_length=1)


class Template(Payload):
    # A template the current ruleset names (`rules show ID`); only the session knows which.
    kind: str = Field(min_length=1, max_length=64)
    x_cm: float
    y_cm: float
    radius_cm: float | None = Field(default=None, gt=0)
    length_cm: float | None = Field(default=None, gt=0)
    width_cm: float | None = Field(default=None, gt=0)
    heading_deg: float | None = None


ACTIONS: dict[str, type[Payload]] = {
    "setup": Setup,
    "assign": Assign,
    "terrain": Terrain,
    "objectives": Objectives,
    "deployment": Deployment,
    "phase": Phase,
    "next_turn": Payload,
    "undo": Payload,
    "reset_model": ResetModel,
    "recalibrate": Payload,
    "template": Template,
    "clear_templates": Payload,
}


def validate_action(action: str, payload: object) -> dict:
    """The payload as the session expects it, or a `TablesightError` naming what is wrong."""
    if not isinstance(payload, dict):
        raise TablesightError(f"The body of '{action}' must be a JSON object", "Send {...} with the fields")
    try:
        parsed = ACTIONS[action].model_validate(payload)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "body"
        raise TablesightError(
            f"Field '{field}' of '{action}': {first['msg']}", "Fix that field and send again"
        ) from None
    return parsed.model_dump(exclude_unset=True)
