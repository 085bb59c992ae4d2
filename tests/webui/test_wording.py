"""The rules core's scene-file wording of a refused assignment, reworded for the phone."""

from __future__ import annotations

from rules_core.errors import (
    Missing,
    NoChassis,
    OtherSide,
    SceneError,
    SharedName,
    TablesightError,
    field_error,
)
from tests.webui.fake_session import demo_state
from webui.wording import assign_refusal, ranges_refusal, refusal


def test_the_model_a_scene_index_means_is_named_even_when_it_was_not_picked():
    """The scene lists assigned pieces by id, m9 among them once picked: models[9] is r5."""
    error = field_error(
        ("models", 9, "side"), "unit 'red-inf-2' is on side 'blue' (model 'm9'), not 'red'",
        "put a unit's models on one side", reason=OtherSide("red-inf-2", "blue", "m9", "red"),
    )
    told = str(assign_refusal(error, {"model_ids": ["m9"]}, demo_state()))
    assert told == (
        "r5 can't join unit red-inf-2 on side red: red-inf-2 is blue's (m9 is in it). "
        "Type another Unit for red, or the Side blue."
    )


def test_a_missing_field_and_an_unknown_shape():
    missing = TablesightError("assign: 'side' is missing", "send assign with a 'side' field",
                              fault=Missing("assign", "side"))
    told = str(assign_refusal(missing, {}, demo_state()))
    assert told == "Say the models' side. Fill in Side, then tap Assign."
    other = TablesightError("the rig is busy", "try again")
    assert assign_refusal(other, {}, demo_state()) is other


def test_a_unit_of_another_side_names_the_picked_models_and_the_side_typed():
    """Session 63 (D4): r4, r5 (red-inf-2) given to blue. The rules core judges the scene after
    the change, where r4 (now blue) comes first in red-inf-2: it blamed m9, on red, for the side."""
    state = demo_state()
    next(m for m in state["models"] if m["id"] == "m9").update(side="red", unit="red-inf-2", type="infantry")
    error = field_error(
        ("models", 6, "side"), "unit 'red-inf-2' is on side 'blue' (model 'r4'), not 'red'",
        "put a unit's models on one side", reason=OtherSide("red-inf-2", "blue", "r4", "red"),
    )
    payload = {"model_ids": ["r4", "r5"], "side": "blue", "unit": "red-inf-2", "type": "infantry"}
    told = str(assign_refusal(error, payload, state))
    assert told == (
        "r4, r5 can't join unit red-inf-2 on side blue: red-inf-2 is red's (m9 in it). "
        "Type another Unit for blue, or the Side red."
    )


def test_a_chassis_on_a_type_without_one_names_the_field_once():
    """D4: "m13: Chassis chassis 'hover' on a model of type infantry ..." said the field twice."""
    error = field_error(
        ("models", 0, "chassis"),
        "chassis 'hover' on a model of type infantry, which has no chassis in world-at-fire",
        "leave `chassis` out: only models of type vehicle have one",
        model_id="m9", reason=NoChassis("hover", "infantry", "world-at-fire"),
        leave_out="only models of type vehicle have one",
    )
    told = str(assign_refusal(error, {"model_ids": ["m9"], "chassis": "hover"}, demo_state()))
    assert told == (
        "m9: a model of type infantry has no chassis in world-at-fire, so not hover. "
        "Leave Chassis empty: only models of type vehicle have one."
    )
    assert "Chassis chassis" not in told


def test_a_leave_it_empty_fix_without_a_form_field_keeps_its_own_words():
    """A refusal of no one field of the form read "Leave  empty: ..." (no field named)."""
    error = field_error(("deployment", "sides"), "a side has no edge",
                        "leave `sides` empty: sides come later")
    told = refusal("deployment", error, {}, demo_state())
    assert told.fix == "Leave `sides` empty: sides come later"


def test_a_unit_of_many_sharing_a_models_name_is_counted_and_other_refusals_pass():
    """A unit's members named as a player counts them, the first few only; a name in quotes the
    rules core wrote with double quotes (it holds a single one) is read too."""
    error = SceneError(
        "FROM \"o'k\" is both a model id and a unit id (unit \"o'k\" holds m10, m2, m3, m4, m5, m6, m7)",
        "rename the unit (e.g. o'k-unit) so FROM names one of them",
        fault=SharedName("o'k", ("m10", "m2", "m3", "m4", "m5", "m6", "m7")),
    )
    assert str(ranges_refusal(error)) == (
        "Model o'k and unit o'k (m2, m3, m4, m5, m6 and 2 more) share one name, so the rig can't tell "
        "whose ranges you asked for. Rename the unit: under Setup, Assign models, pick m2, m3, m4, m5, m6 "
        "and 2 more, type another Unit (e.g. o'k-unit) and tap Assign."
    )
    other = TablesightError("the rig is busy", "try again")
    assert ranges_refusal(other) is other
