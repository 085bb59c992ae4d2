"""A scene: where every model, objective and terrain piece stands, checked against its ruleset.

Scenes arrive from users, the tracker and the web UI, so every mistake becomes a `SceneError`
naming the field (`models[2].x_cm`) and what is wrong; nothing unknown is silently ignored
that would change a verdict (types, sides, ids, weapons, terrain kinds).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, get_args, get_origin

import numpy as np
import shapely
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from rules_core.errors import (
    Empty,
    Loc,
    NoChassis,
    NoEdge,
    OffTable,
    OtherSide,
    SceneError,
    Unknown,
    field_error,
    plain_problem,
)
from rules_core.footprints import Footprints
from rules_core.library import load_ruleset, ruleset_ids
from rules_core.ruleset import Phase, Ruleset, Tow, UnitType

Finite = Field(allow_inf_nan=False)
# Bounds no real table, step or height level comes near, that keep every distance a finite
# number in the JSON answers (a 1e308 cm table measured Infinity) and every level a machine
# integer (2**63 stopped `check` with a traceback).
MAX_TABLE_CM = 10_000.0
STEP_CM = {"ge": 0.1, "le": 100.0}
EDGE_NOISE_CM = 1e-5  # how far past the table's edge a point is float noise: 0.1 micrometre
# A length in a refusal of two that disagree: ten figures tell apart any two lengths up to the
# largest table (10,000 cm) that differ by more than 1e-6 cm, where `:g`'s six read 183.00001 as 183.
LENGTH = ".10g"
LEVEL = {"ge": 0, "le": 100}
EDGES = ("left", "right", "top", "bottom")
QUARTERS = ("top-left", "top-right", "bottom-left", "bottom-right")


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _literal_json(cls, value: Any, info: ValidationInfo) -> Any:
        """A coordinate of `true` or `"20"`, or `"wounded": "no"`, is a mistake in the file, not
        1 cm, 20 cm or no wound: pydantic's lax mode took all three. Whole floats stay accepted for
        counts (`"wounds": 2.0`), and corners are numbers too (`polygon_cm`)."""
        kind = _kind(cls, info.field_name)
        if kind is not None and not _written_as(kind, value):
            shown = {"expected": kind, "value": json.dumps(value)}
            raise PydanticCustomError("not_literal", "must be {expected}, not {value}", shown)
        return value


def _written_as(kind: str, value: Any) -> bool:
    if kind == "a number":
        return not isinstance(value, bool | str)
    if kind == "true or false":  # 0 and 1 pass: a count of wounds read as a flag is no typo
        return not isinstance(value, str)
    points = [p for p in value if isinstance(p, list | tuple)] if isinstance(value, list) else []
    return not any(isinstance(c, bool | str) for point in points for c in point)


@functools.cache
def _kind(record: type[BaseModel], name: str) -> str | None:
    """What a field holds, in the words a message uses: a number (`float`, `int`, or None), a
    flag (`bool`), points (a list of number pairs), or None for anything else."""
    annotation = record.model_fields[name].annotation
    args = set(get_args(annotation)) - {type(None)}
    kinds = args if args and get_origin(annotation) is not list else {annotation}
    if kinds <= {float, int}:
        return "a number"
    if kinds == {bool}:
        return "true or false"
    if get_origin(annotation) is list and get_args(get_args(annotation)[0]) == (float, float):
        return "[x, y] numbers"
    return None


class BaseSpec(_Record):
    shape: Literal["round", "rect"]
    diameter_mm: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    length_mm: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    width_mm: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _sized(self) -> BaseSpec:
        if self.shape == "round" and self.diameter_mm is None:
            raise ValueError("a round base needs diameter_mm")
        if self.shape == "rect" and (self.length_mm is None or self.width_mm is None):
            raise ValueError("a rect base needs length_mm and width_mm")
        return self


class ModelSpec(_Record):
    id: str = Field(min_length=1)
    side: str = Field(min_length=1)
    unit: str = Field(min_length=1)
    type: str = Field(min_length=1)
    x_cm: float = Finite
    y_cm: float = Finite
    base: BaseSpec | None = None
    heading_deg: float | None = Field(default=None, allow_inf_nan=False)
    z_cm: float | None = Field(default=None, allow_inf_nan=False)
    wounded: bool = False
    pilotless: bool = False
    flags: list[str] = []
    dash: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    speed: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    wounds: int | None = Field(default=None, ge=0)
    towing: str | None = None
    unique: bool = False
    crew_of: str | None = None
    chassis: str | None = None
    role: str | None = None
    weapons: list[str] | None = None
    altitude: int | None = Field(default=None, ge=0)
    dive: bool = False
    jump: bool | None = None  # None: not said (Bronepehota then jumps a model with no speed to walk at)
    jump_range: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    move_actions: int | None = Field(default=None, ge=0)
    limbs_lost_pct: float | None = Field(default=None, ge=0, le=100, allow_inf_nan=False)
    level: int | None = Field(default=None, **LEVEL)
    order: str | None = None
    placed_order: int | None = Field(default=None, ge=1)
    passengers: int | None = Field(default=None, ge=0)
    seats: int | None = Field(default=None, ge=0)
    # How high its wheel and its hull (turret excluded) stand: the highest obstacle a vehicle or
    # gun may cross, where its ruleset says so (World at Fire's wheeled and tracked chassis).
    wheel_height_cm: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    hull_height_cm: float | None = Field(default=None, ge=0, allow_inf_nan=False)

    @field_validator("heading_deg")
    @classmethod
    def _one_turn(cls, heading: float | None) -> float | None:
        """CONTRACTS.md gives headings in [0, 360): -90 or 450 is a heading written another way,
        read as 270 or 90, so a message quotes it in the contract's form."""
        if heading is None:
            return None
        turned = heading % 360.0
        return 0.0 if turned >= 360.0 else turned  # -1e-14 % 360 rounds to 360.0

    def has(self, flag: str) -> bool:
        """A state flag: a boolean field (wounded, unique, pilotless...), a name in `flags`, the
        model's standing `order` (a seed's state may be an order: «получил приказ «залечь»»), or
        `crew` for a gun's crew (`crew_of` set)."""
        if flag == "crew":
            return self.crew_of is not None
        return flag in self.flags or flag == self.order or getattr(self, flag, False) is True


class TableSpec(_Record):
    width_cm: float = Field(gt=0, le=MAX_TABLE_CM, allow_inf_nan=False)
    depth_cm: float = Field(gt=0, le=MAX_TABLE_CM, allow_inf_nan=False)
    step_cm: float | None = Field(default=None, allow_inf_nan=False, **STEP_CM)

    def holds(self, x_cm: float, y_cm: float) -> bool:
        """Whether a point (a model's or an objective's centre, a template's) lies on the table,
        edges included. A point computed onto the edge (a model's x plus its radius, inches times
        2.54, a float32 round trip) may land a few float steps past it, and is on the edge all the
        same: `EDGE_NOISE_CM` is that float noise, not a rules tolerance (above half a float32 step
        on any table up to 256 cm, 7.6e-6 cm; some 2000 times below the detector's median centre
        error, 0.019 cm)."""
        noise = EDGE_NOISE_CM
        return -noise <= x_cm <= self.width_cm + noise and -noise <= y_cm <= self.depth_cm + noise

    def near(self, x_cm: float, y_cm: float) -> bool:
        """Whether a point lies within the table's own width and depth of it: a model beside the
        table (in reserve, flown off) may, one given in mm does not."""
        return -self.width_cm <= x_cm <= 2 * self.width_cm and -self.depth_cm <= y_cm <= 2 * self.depth_cm


class ObjectiveSpec(_Record):
    id: str = Field(min_length=1)
    x_cm: float = Finite
    y_cm: float = Finite
    diameter_mm: float | None = Field(default=None, gt=0, allow_inf_nan=False)


class TerrainSpec(_Record):
    id: str = Field(min_length=1)
    kind: str
    polygon_cm: list[tuple[float, float]] = Field(min_length=3)
    height_cm: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    level: int | None = Field(default=None, **LEVEL)

    @field_validator("polygon_cm")
    @classmethod
    def _simple(cls, points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        if not all(math.isfinite(v) for point in points for v in point):
            raise ValueError("holds a NaN or infinite coordinate")
        polygon = shapely.Polygon(points)
        if not polygon.is_valid or polygon.area <= 0:
            raise ValueError(f"not a simple polygon ({shapely.is_valid_reason(polygon)})")
        return points


class MineSpec(_Record):
    """A hidden mine or demolition charge: its owner's side and where it lies (table cm)."""

    id: str = Field(min_length=1)
    side: str = Field(min_length=1)
    x_cm: float = Finite
    y_cm: float = Finite
    kind: Literal["mine", "charge"] = "mine"


class DeploymentSpec(_Record):
    kind: str
    sides: dict[str, str]


class SceneSpec(_Record):
    ruleset: str
    table: TableSpec
    models: list[ModelSpec]
    objectives: list[ObjectiveSpec] = []
    terrain: list[TerrainSpec] = []
    mines: list[MineSpec] = []
    # `orders`: the step of an order-based game (Mobile Infantry, Tankomaster) where every unit is
    # given its order before any carries it out (the ruleset's `turn_phases`).
    phase: Phase = "movement"
    deployment: DeploymentSpec | None = None
    sides: list[str] | None = None
    first_player: str | None = None
    step_cm: float | None = Field(default=None, allow_inf_nan=False, **STEP_CM)


@dataclass(frozen=True)
class Scene:
    """A validated scene plus the arrays the geometry works on (all in table cm)."""

    spec: SceneSpec
    ruleset: Ruleset
    cm_per_unit: float
    models: tuple[ModelSpec, ...]
    index: dict[str, int] = field(repr=False)

    @property
    def table(self) -> TableSpec:
        return self.spec.table

    @property
    def phase(self) -> str:
        return self.spec.phase

    def cm(self, value: float) -> float:
        return value * self.cm_per_unit

    def in_units(self, value_cm: float) -> float:
        return value_cm / self.cm_per_unit

    def unit_type(self, i: int) -> UnitType:
        model = self.models[i]
        base_mm = model.base.diameter_mm if model.base is not None and model.base.shape == "round" else None
        return self.ruleset.unit_type(model.type, model.chassis, base_mm)

    @cached_property
    def xy(self) -> np.ndarray:
        return np.array([[m.x_cm, m.y_cm] for m in self.models], dtype=float).reshape(-1, 2)

    @cached_property
    def sides(self) -> np.ndarray:
        return np.array([m.side for m in self.models], dtype=object)

    @cached_property
    def units(self) -> np.ndarray:
        return np.array([m.unit for m in self.models], dtype=object)

    @cached_property
    def footprints(self) -> Footprints:
        return Footprints.of_scene(self)

    def off_table(self) -> list[str]:
        """Ids of the models whose centre is off the table: only a scene parsed with
        `allow_off_table` holds any (a model beside the table, in reserve or flown off)."""
        return [m.id for m in self.models if not self.table.holds(m.x_cm, m.y_cm)]

    def model_index(self, model_id: str, field_name: str) -> int:
        if model_id not in self.index:
            raise SceneError(
                f"{field_name}: unknown model id {model_id!r}", "use an id from the scene's models"
            )
        return self.index[model_id]


def _model_id(loc: Loc, data: dict) -> str | None:
    """The id of the model a field path leads into, since that is what a user searches for."""
    if len(loc) > 1 and loc[0] == "models" and isinstance(loc[1], int):
        models = data.get("models")
        model = models[loc[1]] if isinstance(models, list) and loc[1] < len(models) else None
        if isinstance(model, dict) and isinstance(model.get("id"), str):
            return model["id"]
    return None


def parse_scene(data: Any, allow_off_table: bool = False) -> Scene:
    """Validate scene JSON (already decoded) against the ruleset it names."""
    if not isinstance(data, dict):
        raise field_error((), "must be a JSON object", "give an object with ruleset, table and models")
    try:
        spec = SceneSpec.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        problem = "missing" if first["type"] == "missing" else plain_problem(first["msg"])
        empty = Empty() if first["type"] == "string_too_short" and first.get("input") == "" else None
        model_id = _model_id(first["loc"], data)
        raise field_error(first["loc"], problem, model_id=model_id, reason=empty) from None
    if spec.ruleset not in ruleset_ids():
        raise field_error(
            ("ruleset",),
            f"unknown ruleset {spec.ruleset!r}",
            f"use one of {', '.join(ruleset_ids())} (`tablesight rules list`)",
        )
    return _checked(spec, load_ruleset(spec.ruleset), allow_off_table)


def _off_the_table(loc: Loc, what: str, name: str, x_cm: float, y_cm: float, table: TableSpec) -> SceneError:
    return field_error(
        loc, f"{what} {name!r} at ({x_cm}, {y_cm}) is off the {table.width_cm}x{table.depth_cm} cm table",
        "place it on the table or remove it",
        reason=OffTable(what, name, x_cm, y_cm, table.width_cm, table.depth_cm),
    )


def _checked(spec: SceneSpec, ruleset: Ruleset, allow_off_table: bool) -> Scene:
    step_cm = spec.step_cm or spec.table.step_cm
    if spec.step_cm is not None and spec.table.step_cm is not None and spec.step_cm != spec.table.step_cm:
        # Two places for one length: taking either would measure every move in a step the writer
        # may not have meant.
        raise field_error(
            ("step_cm",),
            f"{spec.step_cm:{LENGTH}} cm differs from table.step_cm {spec.table.step_cm:{LENGTH}} cm",
            "give the step once, or the same length in both places",
        )
    known_sides = set(spec.sides) if spec.sides is not None else None
    if spec.deployment is not None:
        _check_deployment(spec, ruleset)
        if not ruleset.deployment.kinds[spec.deployment.kind].one_sided and known_sides is None:
            known_sides = set(spec.deployment.sides)

    def check_side(where: Loc, side: str) -> None:
        if known_sides is None or side in known_sides:
            return
        named = tuple(sorted(known_sides))
        if spec.sides is not None:
            raise field_error(
                where, f"unknown side {side!r}", f"use one of {', '.join(named)}", choices=named
            )
        raise field_error(
            where,
            f"side {side!r} has no edge in deployment.sides (it names {', '.join(named)})",
            "give deployment.sides an edge for every side on the table",
            reason=NoEdge(side, named),
        )

    if spec.first_player is not None:
        check_side(("first_player",), spec.first_player)
    index: dict[str, int] = {}
    unit_first: dict[str, ModelSpec] = {}
    models = []
    known_weapons = [*ruleset.weapons, *ruleset.weapon_names]
    known_roles = ruleset.known_roles
    for i, model in enumerate(spec.models):
        where = ("models", i)
        if model.id in index:
            raise field_error(
                (*where, "id"), f"duplicate model id {model.id!r}", "give every model its own id"
            )
        index[model.id] = i
        if model.type not in ruleset.unit_types:
            raise field_error(
                (*where, "type"),
                f"unknown unit type {model.type!r} for ruleset {ruleset.id}",
                f"use one of {', '.join(ruleset.unit_types)}",
                reason=Unknown("unit type", model.type, ruleset.id),
                choices=tuple(ruleset.unit_types),
            )
        unit_type = ruleset.unit_types[model.type]
        # A turn has so many actions (Mobile Infantry: «может совершить 2 действия»), moving or not.
        most = unit_type.actions
        if model.move_actions is not None and most is not None and model.move_actions > most:
            raise field_error(
                (*where, "move_actions"),
                f"{model.move_actions} move actions, but a {model.type} has {most} actions a turn",
                f"give 0 to {most}",
            )
        _check_chassis(ruleset, model, unit_type, where)
        _check_role(ruleset, model, known_roles, where)
        first = unit_first.setdefault(model.unit, model)
        if first.side != model.side:
            raise field_error(
                (*where, "side"),
                f"unit {model.unit!r} is on side {first.side!r} (model {first.id!r}), not {model.side!r}",
                "put a unit's models on one side",
                reason=OtherSide(model.unit, first.side, first.id, model.side),
            )
        check_side((*where, "side"), model.side)
        for weapon in model.weapons or []:
            if known_weapons and ruleset.weapon(weapon) is None and weapon not in ruleset.weapon_names:
                raise field_error(
                    (*where, "weapons"),
                    f"unknown weapon {weapon!r} for ruleset {ruleset.id}",
                    f"use one of {', '.join(known_weapons)}",
                    reason=Unknown("weapon", weapon, ruleset.id),
                    choices=tuple(known_weapons),
                )
        if unit_type.altitudes and model.altitude is not None and model.altitude not in unit_type.altitudes:
            raise field_error(
                (*where, "altitude"),
                f"altitude {model.altitude} is none of {ruleset.id}'s",
                f"use one of {', '.join(map(str, unit_type.altitudes))}",
                choices=tuple(map(str, unit_type.altitudes)),
            )
        model = _with_base(model, unit_type, where)
        at = (model.x_cm, model.y_cm)
        if not allow_off_table and not spec.table.holds(*at):
            raise _off_the_table((*where, "x_cm/y_cm"), "model", model.id, *at, spec.table)
        if not spec.table.near(*at):
            raise field_error(
                (*where, "x_cm/y_cm"),
                f"model {model.id!r} at {at} is further off the {spec.table.width_cm}x{spec.table.depth_cm} "
                "cm table than the table is wide",
                "give positions in cm (a scene in mm puts its models ten times too far out)",
            )
        models.append(model)
    for i, model in enumerate(models):
        if model.crew_of is not None and model.crew_of not in index:
            raise field_error(
                ("models", i, "crew_of"), f"unknown model id {model.crew_of!r}", "name the gun's model id"
            )
        if model.towing is not None and model.towing not in index:
            raise field_error(
                ("models", i, "towing"), f"unknown model id {model.towing!r}", "name the towed model's id"
            )
        if model.crew_of is not None:
            _check_crew(ruleset, model, models[index[model.crew_of]], ("models", i, "crew_of"))
        if model.towing is not None:
            _check_hitch(models, model, models[index[model.towing]], ("models", i, "towing"))
        if model.towing is not None and ruleset.tow is not None:
            _check_tow(ruleset.tow, model, models[index[model.towing]], ("models", i, "towing"))
    for i, mine in enumerate(spec.mines):
        check_side(("mines", i, "side"), mine.side)
    _check_ids_and_terrain(spec, ruleset, set(index))
    return Scene(spec, ruleset, ruleset.cm_per_unit(step_cm), tuple(models), index)


def _check_chassis(ruleset: Ruleset, model: ModelSpec, unit_type: UnitType, where: Loc) -> None:
    """A chassis is one of its type's (World at Fire: a vehicle's wheeled, half_tracked or tracked);
    a type with none takes none, since an infantryman given `tracked` was read as a plain one."""
    if model.chassis is None or model.chassis in unit_type.chassis:
        return
    if unit_type.chassis:
        raise field_error(
            (*where, "chassis"),
            f"unknown chassis {model.chassis!r}",
            f"use one of {', '.join(unit_type.chassis)}",
            reason=Unknown("chassis", model.chassis),
            choices=tuple(unit_type.chassis),
        )
    having = [name for name, other in ruleset.unit_types.items() if other.chassis]
    why = (f"only models of type {' or '.join(having)} have one" if having
           else "this ruleset gives its models no chassis")
    raise field_error(
        (*where, "chassis"),
        f"chassis {model.chassis!r} on a model of type {model.type}, which has no chassis in {ruleset.id}",
        f"leave `chassis` out: {why}",
        reason=NoChassis(model.chassis, model.type, ruleset.id),
        leave_out=why,
    )


def _check_role(ruleset: Ruleset, model: ModelSpec, known_roles: list[str], where: Loc) -> None:
    """A role is one the ruleset knows, held by a type it gives roles to (`role_types`): a role
    brings its own weapons and targets, so one on the wrong model changes what it reaches."""
    if model.role is None:
        return
    if model.role not in known_roles:
        why = "this ruleset gives its models no roles"
        raise field_error(
            (*where, "role"),
            f"unknown role {model.role!r} for ruleset {ruleset.id}",
            f"use one of {', '.join(known_roles)}" if known_roles else f"leave `role` out: {why}",
            reason=Unknown("role", model.role, ruleset.id),
            choices=tuple(known_roles) if known_roles else None,
            leave_out=None if known_roles else why,
        )
    if ruleset.role_types and model.type not in ruleset.role_types:
        why = f"only models of type {' or '.join(ruleset.role_types)} hold one"
        raise field_error(
            (*where, "role"),
            f"role {model.role!r} on a model of type {model.type}, which holds no role in {ruleset.id}",
            f"leave `role` out: {why}",
            leave_out=why,
        )


def _check_crew(ruleset: Ruleset, crewman: ModelSpec, gun: ModelSpec, where: Loc) -> None:
    """A crewman serves another model of his own side that has a crew: a gun is not its own
    crew, the enemy's gun is one to capture, not to man, and where the ruleset says which models
    are guns (`crew`), a foot soldier is neither a gun nor a vehicle (his 'crew' dropped out of
    their unit's coherency); a vehicle's crew («экипаж располагается на круглых подставках») may
    name it."""
    from rules_core.proximity import selected

    if gun.id == crewman.id:
        raise field_error(where, f"model {crewman.id!r} names itself as its gun", "name the gun's model id")
    rules = ruleset.crew
    crewed = ruleset.unit_types[gun.type].movement == "vehicle"  # a vehicle's crew ride or stand by it
    if rules is not None and not crewed and gun.type not in rules.gun_types and not (
        rules.own_rules is not None and selected(gun, rules.own_rules)
    ):
        raise field_error(
            where,
            f"model {crewman.id!r} crews {gun.id!r}, of type {gun.type}, not a gun or a vehicle",
            f"name a model of type {', '.join(rules.gun_types)}, or a vehicle",
        )
    if gun.side != crewman.side:
        raise field_error(
            where,
            f"model {crewman.id!r} ({crewman.side}) crews {gun.id!r}, a gun of side {gun.side!r}",
            "name a gun of the crewman's own side",
        )


def _check_hitch(models: list[ModelSpec], tug: ModelSpec, towed: ModelSpec, where: Loc) -> None:
    """One tug, one load: every seed's tow is a vehicle pulling another model («может буксировать
    другие боевые машины или мобильные орудия»), so a model towing itself, one towed by two tugs,
    and a tug that is itself towed (a chain, or two models towing each other, which lent each
    the other's move) are refused."""
    if towed.id == tug.id:
        raise field_error(where, f"model {tug.id!r} tows itself", "name another model, or leave towing out")
    tugs = [m.id for m in models if m.towing == towed.id]
    if len(tugs) > 1:
        raise field_error(
            where,
            f"model {towed.id!r} is towed by {' and '.join(repr(t) for t in tugs)}",
            "give it one tug",
        )
    pulled_by = next((m.id for m in models if m.towing == tug.id), None)
    if pulled_by is not None:
        raise field_error(
            where,
            f"model {tug.id!r} tows {towed.id!r} while {pulled_by!r} tows it",
            "a tug is not towed: keep one of the two towing fields",
        )


def _check_tow(tow: Tow, tug: ModelSpec, towed: ModelSpec, where: Loc) -> None:
    """A tow the ruleset allows: the tug holds one of its `tug_roles`, is one of its `tug_types`
    with at least the seats its chassis needs (`tug_min_seats`, where the scene gives `seats`), and
    what it tows is one of its `towed_types` (Bronepehota: a HELIX tows vehicles and mobile guns
    only; Combined Arms: a car of 6 seats or more, or a tractor, tows a gun)."""
    if tow.tug_roles and tug.role not in tow.tug_roles:
        raise field_error(
            where,
            f"{tug.id} (role {tug.role!r}) cannot tow",
            f"only a model with role {' or '.join(tow.tug_roles)} tows",
        )
    if tow.tug_types and tug.type not in tow.tug_types:
        raise field_error(
            where, f"{tug.id} ({tug.type}) cannot tow", f"only a {' or '.join(tow.tug_types)} tows"
        )
    fewest = tow.tug_min_seats.get(tug.chassis or "")
    if fewest is not None and tug.seats is not None and tug.seats < fewest:
        raise field_error(
            where,
            f"{tug.id} (a {tug.chassis} of {tug.seats} seats) cannot tow",
            f"a {tug.chassis} tows with {fewest} seats or more",
        )
    if tow.towed_types and towed.type not in tow.towed_types:
        raise field_error(
            where,
            f"{towed.id} ({towed.type}) cannot be towed",
            f"tow a {' or '.join(tow.towed_types)}",
        )


def _with_base(model: ModelSpec, unit_type: UnitType, where: Loc) -> ModelSpec:
    if model.base is None:
        if unit_type.base_mm is None:
            raise field_error(
                (*where, "base"), "missing (this unit type has no standard base)",
                "give a rect hull footprint",
            )
        model = model.model_copy(update={"base": BaseSpec(shape="round", diameter_mm=unit_type.base_mm)})
    if model.base.shape == "rect" and model.heading_deg is None:
        model = model.model_copy(update={"heading_deg": 0.0})
    return model


def _check_ids_and_terrain(spec: SceneSpec, ruleset: Ruleset, model_ids: set[str]) -> None:
    seen = set(model_ids)
    for i, objective in enumerate(spec.objectives):
        if objective.id in seen:
            raise field_error(
                ("objectives", i, "id"), f"duplicate id {objective.id!r}", "give every objective its own id"
            )
        seen.add(objective.id)
    for i, mine in enumerate(spec.mines):
        if mine.id in seen:
            raise field_error(("mines", i, "id"), f"duplicate id {mine.id!r}", "give every mine its own id")
        seen.add(mine.id)
    for i, objective in enumerate(spec.objectives):
        if not spec.table.holds(objective.x_cm, objective.y_cm):
            at = (objective.x_cm, objective.y_cm)
            raise _off_the_table(("objectives", i, "x_cm/y_cm"), "objective", objective.id, *at, spec.table)
    pieces: set[str] = set()
    for i, piece in enumerate(spec.terrain):
        if piece.id in pieces:
            raise field_error(
                ("terrain", i, "id"), f"duplicate id {piece.id!r}", "give every terrain piece its own id"
            )
        pieces.add(piece.id)
        if piece.kind not in ruleset.terrain:
            raise field_error(
                ("terrain", i, "kind"),
                f"unknown terrain kind {piece.kind!r}",
                f"use one of {', '.join(ruleset.terrain)}",
            )
        _check_on_table(piece, spec.table, ("terrain", i, "polygon_cm"))


def _check_on_table(piece: TerrainSpec, table: TableSpec, where: Loc) -> None:
    """A piece partly on the table is as good as any (a wood may run off its edge), but one wholly
    off it is a mistake of units or sign (mm or inches for cm, a corner from the wrong origin) that
    would otherwise be silently without effect."""
    polygon = shapely.Polygon(piece.polygon_cm)
    if polygon.intersection(shapely.box(0, 0, table.width_cm, table.depth_cm)).area > 0:
        return
    x_min, y_min, x_max, y_max = polygon.bounds
    middle = polygon.centroid
    raise field_error(
        where,
        f"terrain piece {piece.id!r} (x {x_min:g} to {x_max:g}, y {y_min:g} to {y_max:g}) lies wholly off "
        f"the {table.width_cm:g}x{table.depth_cm:g} cm table",
        f"give its corners in table cm, from (0, 0) at the top-left corner to "
        f"({table.width_cm:g}, {table.depth_cm:g}), or remove it",
        reason=OffTable("terrain", piece.id, round(middle.x, 1), round(middle.y, 1), table.width_cm,
                        table.depth_cm),
    )


def _check_deployment(spec: SceneSpec, ruleset: Ruleset) -> None:
    deployment = spec.deployment
    assert deployment is not None
    kinds = ruleset.deployment.kinds if ruleset.deployment else {}
    if deployment.kind not in kinds:
        raise field_error(
            ("deployment", "kind"),
            f"unknown deployment kind {deployment.kind!r} for ruleset {ruleset.id}",
            f"use one of {', '.join(kinds) or '(this ruleset defines none)'}",
        )
    allowed = QUARTERS if kinds[deployment.kind].shape != "edge_strip" else EDGES
    for side, place in deployment.sides.items():
        if place not in allowed:
            raise field_error(
                ("deployment", "sides", side), f"unknown place {place!r}", f"use one of {', '.join(allowed)}"
            )
