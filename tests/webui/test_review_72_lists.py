"""A piece added alone (`{"add": piece}`) and the whole list, as a script or an older page may send
them: a null where the contract lets one stand for "left out", and refusals said in the Setup
panel's words, about what was sent."""

from __future__ import annotations

import json

import pytest

from tests.tracker.flat import GameFrames, flat_pipeline
from tests.webui.conftest import PIN
from tracker.game import Game
from tracker.runner import GameRunner
from tracker.session import TableSession
from webui.actions import CORNERS_MAX
from webui.app import create_app

TRIANGLE = [[10.0, 10.0], [20.0, 10.0], [15.0, 20.0]]


def post(client, action: str, body: object):
    return client.post(f"/api/action/{action}", json=body, headers={"X-Table-Pin": PIN})


@pytest.mark.parametrize(
    ("action", "listed"),
    [("objectives", [{"id": "flag", "x_cm": 60.0, "y_cm": 100.0}]),
     ("terrain", [{"id": "hill", "kind": "hill", "polygon_cm": TRIANGLE}])],
)
def test_a_whole_list_beside_a_null_add_replaces_the_list(client, session, action, listed):
    response = post(client, action, {action: listed, "add": None})  # was a 500, a traceback in the log
    assert response.status_code == 200, response.get_json()
    applied, payload = session.applied[-1]
    assert applied == action and "add" not in payload  # the game, and the recording, get no `add`
    assert json.loads(json.dumps(payload)) == {action: listed}


@pytest.mark.parametrize(
    ("action", "piece", "named"),
    [("objectives", {"x_cm": 60, "y_cm": 100}, "obj3"),
     ("terrain", {"kind": "hill", "polygon_cm": TRIANGLE}, "terrain3")],
)
def test_an_added_piece_with_a_null_id_is_named_by_the_rig(client, session, action, piece, named):
    response = post(client, action, {"add": {**piece, "id": None}})
    assert response.status_code == 200, response.get_json()  # was "Field 'objectives.0.id' ...", never sent
    assert response.get_json()["added"] == named
    assert session.state()[action][-1]["id"] == named


def test_an_added_terrain_piece_with_too_many_corners_is_refused_as_one_in_a_list_is(client, session):
    corners = [[10.0 + i % 50, 10.0 + i // 50] for i in range(CORNERS_MAX + 1)]
    response = post(client, "terrain", {"add": {"kind": "hill", "polygon_cm": corners}})
    assert response.status_code == 400
    assert response.get_json()["message"] == (
        f"The terrain piece drawn has {CORNERS_MAX + 1} corners: a piece takes at most {CORNERS_MAX}. "
        "Draw it again with fewer corners."
    )


@pytest.mark.parametrize("added", [5, [], "obj9"])
def test_an_add_that_is_no_object_is_refused_without_the_rigs_own_names(client, session, added):
    response = post(client, "objectives", {"add": added})
    assert response.status_code == 400
    message = response.get_json()["message"]
    assert "NewObjective" not in message and "instance" not in message, message
    assert message.startswith("'add' of 'objectives' must be a JSON object")


def test_an_objective_tapped_beside_the_table_is_told_to_tap_on_it():
    session = TableSession(GameFrames, lambda: GameRunner(flat_pipeline(), Game()), description="flat game")
    client = create_app(session, PIN).test_client()
    response = post(client, "objectives", {"add": {"x_cm": -3.0, "y_cm": 50.0}})
    assert response.status_code == 400
    message = response.get_json()["message"]
    assert message.startswith("Objective obj1 at (-3.0, 50.0) cm would be off a ")
    assert message.endswith("Tap on the table to place it.")  # not "Pick a bigger table, or ... Clear"
    assert session.state()["objectives"] == []
