"""Objectives and terrain added from two phones at once: the page sent the whole list it was shown with
its piece added, so the second phone's list wiped out the first phone's piece. A phone sends the
piece it adds (`add`), and the rig adds it to the list as it stands; the whole list still replaces."""

from __future__ import annotations

import json
import threading
import time

import pytest

from tests.tracker.flat import GameFrames, flat_pipeline
from tests.webui.conftest import PIN
from tracker.game import Game
from tracker.runner import GameRunner
from tracker.session import TableSession
from webui.actions import OBJECTIVES_MAX
from webui.app import create_app

WAIT_S = 5.0
TRIANGLE = [[10.0, 10.0], [20.0, 10.0], [15.0, 20.0]]


def post(client, action: str, body: dict):
    return client.post(f"/api/action/{action}", json=body, headers={"X-Table-Pin": PIN})


def _slowly(session, monkeypatch) -> None:
    """The game takes a while over each control (the real one checks the whole scene), so two phones'
    taps meet."""
    applied = session.apply

    def slow(action, payload, join=None):
        time.sleep(0.2)
        return applied(action, payload, join=join)

    monkeypatch.setattr(session, "apply", slow)


@pytest.mark.parametrize(
    ("action", "piece"),
    [
        ("objectives", {"x_cm": 60.0, "y_cm": 100.0, "diameter_mm": 40}),
        ("terrain", {"kind": "hill", "polygon_cm": TRIANGLE}),
    ],
)
def test_two_phones_adding_at_once_both_land(app, session, monkeypatch, action, piece):
    _slowly(session, monkeypatch)
    before = session.state()[action]
    answers: list = []
    phones = [
        threading.Thread(target=lambda: answers.append(post(app.test_client(), action, {"add": piece})))
        for _ in range(2)
    ]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.join(WAIT_S)
    assert [r.status_code for r in answers] == [200, 200]
    after = session.state()[action]
    assert json.loads(json.dumps(after[: len(before)])) == before and len(after) == len(before) + 2
    ids = [p["id"] for p in after]
    assert len(set(ids)) == len(ids)
    assert sorted(r.get_json()["added"] for r in answers) == sorted(ids[len(before):])


def test_an_added_objective_is_named_after_the_list_and_kept_as_sent(client, session):
    response = post(client, "objectives", {"add": {"x_cm": 60, "y_cm": 100, "diameter_mm": 40, "note": "x"}})
    assert response.status_code == 200 and response.get_json()["added"] == "obj3"
    assert session.state()["objectives"][-1] == {"id": "obj3", "x_cm": 60, "y_cm": 100, "diameter_mm": 40}
    hill = {"add": {"kind": "hill", "polygon_cm": TRIANGLE}}
    assert post(client, "terrain", hill).get_json()["added"] == "terrain3"
    assert session.applied[-1] == ("terrain", {"terrain": session.state()["terrain"]})  # the game gets a list


def test_an_added_piece_may_name_itself_but_not_as_one_on_the_table(client, session):
    flag = {"add": {"id": "flag", "x_cm": 60, "y_cm": 100}}
    assert post(client, "objectives", flag).get_json()["added"] == "flag"
    before = session.state()
    response = post(client, "objectives", {"add": {"id": "obj1", "x_cm": 10, "y_cm": 10}})
    assert response.status_code == 400
    assert response.get_json()["message"] == (
        "Objective obj1 is on the table already. Leave its id out for the rig to name it, or give another."
    )
    assert session.state() == before


def test_an_addition_past_a_full_table_is_refused_as_a_full_list_is(client, session):
    full = [{"id": f"o{i}", "x_cm": 10 + i, "y_cm": 10} for i in range(OBJECTIVES_MAX)]
    assert post(client, "objectives", {"objectives": full}).status_code == 200
    response = post(client, "objectives", {"add": {"x_cm": 1, "y_cm": 1}})
    assert response.status_code == 400
    assert response.get_json()["message"].startswith(
        f"A table takes at most {OBJECTIVES_MAX} objectives, not {OBJECTIVES_MAX + 1}. Tap Clear objectives"
    )


@pytest.mark.parametrize(
    "body", [{}, {"objectives": None}, {"objectives": [], "add": {"x_cm": 1, "y_cm": 2}}]
)
def test_a_list_and_an_addition_are_sent_one_at_a_time(client, session, body):
    response = post(client, "objectives", body)
    assert response.status_code == 400
    assert response.get_json()["message"] == (
        "'objectives' takes the whole list (objectives) or one objective to add (add). Send one of the two."
    )


def test_the_real_session_takes_additions_from_phones_at_once():
    session = TableSession(
        GameFrames, lambda: GameRunner(flat_pipeline(), Game()), description="the flat game"
    )
    app = create_app(session, PIN)
    answers: list = []
    phones = [
        threading.Thread(target=lambda x=x: answers.append(post(app.test_client(), "objectives",
                                                                {"add": {"x_cm": x, "y_cm": 50.0}})))
        for x in (30.0, 60.0, 90.0)
    ]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.join(WAIT_S)
    assert [r.status_code for r in answers] == [200] * 3
    assert sorted(o["id"] for o in session.runner.game.objectives) == ["obj1", "obj2", "obj3"]
    assert sorted(o["x_cm"] for o in session.state()["objectives"]) == [30.0, 60.0, 90.0]
