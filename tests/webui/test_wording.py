"""The rules core's scene-file wording of a refused assignment, reworded for the phone."""

from __future__ import annotations

from rules_core.errors import SceneError, TablesightError
from tests.webui.fake_session import demo_state
from webui.wording import assign_refusal


def test_the_model_a_scene_index_means_is_named_even_when_it_was_not_picked():
    """The scene lists assigned pieces by id, m9 among them once picked: models[9] is r5."""
    error = SceneError(
        "scene field models[9].side: unit 'red-inf-2' is on side 'blue' (model 'm9'), not 'red'",
        "put a unit's models on one side",
    )
    told = str(assign_refusal(error, {"model_ids": ["m9"]}, demo_state()))
    assert told == (
        "r5 can't join unit red-inf-2 on side red: red-inf-2 is blue's (m9 is in it). "
        "Type another Unit for red, or the Side blue."
    )


def test_a_missing_field_and_an_unknown_shape():
    missing = TablesightError("assign: 'side' is missing", "send assign with a 'side' field")
    told = str(assign_refusal(missing, {}, demo_state()))
    assert told == "Say the models' side. Fill in Side, then tap Assign."
    other = TablesightError("the rig is busy", "try again")
    assert assign_refusal(other, {}, demo_state()) is other
