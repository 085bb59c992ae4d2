"""A refused scene carries its fault in parts (the web UI words them for a phone), and its words
for the CLI stay as they were."""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import (
    Empty,
    NoChassis,
    NoEdge,
    OffTable,
    OtherSide,
    SceneError,
    SceneFault,
    SharedName,
    Unknown,
)
from rules_core.reach import shooters_of
from rules_core.transport import transport_report
from tests.rules_core.builders import base, hull, scene, scene_data

BREAKTHROUGH = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}
CA_ROLES = (
    "commander, crew_commander, flamethrower, hmg, medic, mortar_crew, officer, radio, sapper, scout, sniper"
)

# (ruleset, models, scene extras, the CLI's words, the fault)
CASES = {
    "no edge": (
        "world-at-fire", [base(10, 10), base(20, 10, id="g", side="green")], {"deployment": BREAKTHROUGH},
        "scene field models[1].side: side 'green' has no edge in deployment.sides (it names blue, red). "
        "give deployment.sides an edge for every side on the table.",
        SceneFault(("models", 1, "side"), "side 'green' has no edge in deployment.sides (it names blue, red)",
                   reason=NoEdge("green", ("blue", "red"))),
    ),
    "another side's unit": (
        "world-at-fire", [base(10, 10, unit="u"), base(20, 10, id="b", side="blue", unit="u")], {},
        "scene field models[1].side: unit 'u' is on side 'red' (model 'm'), not 'blue'. "
        "put a unit's models on one side.",
        SceneFault(("models", 1, "side"), "unit 'u' is on side 'red' (model 'm'), not 'blue'",
                   reason=OtherSide("u", "red", "m", "blue")),
    ),
    "unknown unit type": (
        "world-at-fire", [base(10, 10, type="dragon")], {},
        "scene field models[0].type: unknown unit type 'dragon' for ruleset world-at-fire. "
        "use one of infantry, cavalry, motorbike, heavy_gun, vehicle, aircraft.",
        SceneFault(("models", 0, "type"), "unknown unit type 'dragon' for ruleset world-at-fire",
                   reason=Unknown("unit type", "dragon", "world-at-fire"),
                   choices=("infantry", "cavalry", "motorbike", "heavy_gun", "vehicle", "aircraft")),
    ),
    "unknown role": (
        "combined-arms", [base(10, 10, role="bard")], {},
        f"scene field models[0].role: unknown role 'bard' for ruleset combined-arms. use one of {CA_ROLES}.",
        SceneFault(("models", 0, "role"), "unknown role 'bard' for ruleset combined-arms",
                   reason=Unknown("role", "bard", "combined-arms"), choices=tuple(CA_ROLES.split(", "))),
    ),
    "a role where the ruleset has none": (
        "world-at-fire", [base(10, 10, role="bard")], {},
        "scene field models[0].role: unknown role 'bard' for ruleset world-at-fire. "
        "leave `role` out: this ruleset gives its models no roles.",
        SceneFault(("models", 0, "role"), "unknown role 'bard' for ruleset world-at-fire",
                   reason=Unknown("role", "bard", "world-at-fire"),
                   leave_out="this ruleset gives its models no roles"),
    ),
    "a role on a type holding none": (
        "combined-arms", [hull(10, 10, role="medic", chassis="tank")], {},
        "scene field models[0].role: role 'medic' on a model of type vehicle, which holds no role in "
        "combined-arms. leave `role` out: only models of type infantry or gun hold one.",
        SceneFault(("models", 0, "role"),
                   "role 'medic' on a model of type vehicle, which holds no role in combined-arms",
                   leave_out="only models of type infantry or gun hold one"),
    ),
    "unknown chassis": (
        "world-at-fire", [hull(10, 10, chassis="hover")], {},
        "scene field models[0].chassis: unknown chassis 'hover'. use one of wheeled, half_tracked, tracked.",
        SceneFault(("models", 0, "chassis"), "unknown chassis 'hover'", reason=Unknown("chassis", "hover"),
                   choices=("wheeled", "half_tracked", "tracked")),
    ),
    "a chassis on a type without one": (
        "world-at-fire", [base(10, 10, chassis="tracked")], {},
        "scene field models[0].chassis: chassis 'tracked' on a model of type infantry, which has no chassis "
        "in world-at-fire. leave `chassis` out: only models of type vehicle have one.",
        SceneFault(("models", 0, "chassis"),
                   "chassis 'tracked' on a model of type infantry, which has no chassis in world-at-fire",
                   reason=NoChassis("tracked", "infantry", "world-at-fire"),
                   leave_out="only models of type vehicle have one"),
    ),
    "an empty name": (
        "world-at-fire", [base(10, 10), {**base(20, 10, id="n"), "unit": ""}], {},
        "scene field models[1].unit (model 'n'): String should have at least 1 character. correct the scene.",
        SceneFault(("models", 1, "unit"), "String should have at least 1 character", model_id="n",
                   reason=Empty()),
    ),
    "an objective off the table": (
        "world-at-fire", [base(10, 10)], {"objectives": [{"id": "o1", "x_cm": 191.5, "y_cm": 61.0}]},
        "scene field objectives[0].x_cm/y_cm: objective 'o1' at (191.5, 61.0) is off the 183.0x122.0 cm "
        "table. place it on the table or remove it.",
        SceneFault(("objectives", 0, "x_cm/y_cm"),
                   "objective 'o1' at (191.5, 61.0) is off the 183.0x122.0 cm table",
                   reason=OffTable("objective", "o1", 191.5, 61.0, 183.0, 122.0)),
    ),
    "a deployment place": (
        "world-at-fire", [base(10, 10)], {"deployment": {"kind": "breakthrough", "sides": {"red": "middle"}}},
        "scene field deployment.sides.red: unknown place 'middle'. use one of left, right, top, bottom.",
        SceneFault(("deployment", "sides", "red"), "unknown place 'middle'"),
    ),
}


def _refused(data: object) -> SceneError:
    with pytest.raises(SceneError) as caught:
        api.parse_scene(data)
    return caught.value


@pytest.mark.parametrize("case", CASES)
def test_a_refused_scene_carries_its_fault_and_keeps_its_words(case):
    ruleset, models, extra, words, fault = CASES[case]
    error = _refused(scene_data(ruleset, models, **extra))
    assert str(error) == words
    assert error.fault == fault


def test_a_scene_that_is_no_object_is_the_scenes_fault():
    error = _refused([])
    assert str(error) == (
        "scene field (scene): must be a JSON object. give an object with ruleset, table and models."
    )
    assert error.fault == SceneFault((), "must be a JSON object")


def test_a_cars_seats_name_the_model():
    car = hull(10, 10, chassis="car", seats=99, passengers=2)
    with pytest.raises(SceneError) as caught:
        transport_report(scene("combined-arms", [car]))
    assert str(caught.value) == (
        "scene field models[0].seats (model 't'): 99 seats, a car has 4 to 16. "
        "give the seat count from the vehicle's card."
    )
    assert caught.value.fault == SceneFault(
        ("models", 0, "seats"), "99 seats, a car has 4 to 16", model_id="t"
    )


def test_a_name_shared_by_a_model_and_a_unit_carries_the_units_models():
    held = scene("world-at-fire", [base(10, 10, id="r1", unit="a"), base(20, 10, id="r4", unit="r1"),
                                   base(30, 10, id="r5", unit="r1")])
    with pytest.raises(SceneError) as caught:
        shooters_of(held, "r1")
    assert str(caught.value) == (
        "FROM 'r1' is both a model id and a unit id (unit 'r1' holds r4, r5). "
        "rename the unit (e.g. r1-unit) so FROM names one of them."
    )
    assert caught.value.fault == SharedName("r1", ("r4", "r5"))
