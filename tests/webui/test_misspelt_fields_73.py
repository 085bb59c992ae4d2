"""A field a control does not have is refused by name: passed on, the game went without it, and a
template sent with `radius` for `radius_cm` was laid at the ruleset's own radius without a word."""

import pytest

from tests.webui.test_api import post


@pytest.mark.parametrize(("action", "body", "said", "fix"), [
    ("assign", {"model_ids": ["m1"], "chasis": "tracked"}, "'assign' has no field 'chasis'",
     "model_ids, side, unit, type, role, chassis, weapons"),
    ("template", {"kind": "blast", "x_cm": 50, "y_cm": 40, "radius": 3}, "'template' has no field 'radius'",
     "radius_cm"),
    ("setup", {"table": {"width_cm": 180, "depht_cm": 120}}, "'table' of 'setup' has no field 'depht_cm'",
     "width_cm, depth_cm"),
    ("phase", {"to": "next", "from": {"turn": 1, "phase": "movement", "when": 3}},
     "'from' of 'phase' has no field 'when'", "turn, phase"),
    ("recalibrate", {"now": True}, "'recalibrate' has no field 'now'", "Send {}"),
])
def test_a_field_the_control_does_not_have_is_refused_and_nothing_changes(client, session, action, body, said,
                                                                        fix):
    response = post(client, action, body)
    assert response.status_code == 400
    message = response.get_json()["message"]
    assert said in message and fix in message
    assert session.applied == []


def test_the_fields_a_control_has_still_pass(client, session):
    assert post(client, "assign", {"model_ids": ["m9"], "chassis": "tracked"}).status_code == 200
    assert session.applied[-1] == ("assign", {"model_ids": ["m9"], "chassis": "tracked"})


def test_the_fields_named_are_found_through_nested_objects_and_none_through_a_list():
    """A path through a list's item raised StopIteration (a 500) where it should name no fields."""
    from webui.actions import Phase, Terrain, _fields_at

    assert _fields_at(Phase, ["from"]) == ["turn", "phase"]
    assert _fields_at(Terrain, ["terrain", "0"]) is None
