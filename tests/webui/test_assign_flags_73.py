"""Assign carries a model's state (flags, order, wounded): checked like its other fields, kept by the
real session's game, shown in the state, cleared by a null."""

from __future__ import annotations

import time

import pytest

from tests.tracker.flat import GameFrames, flat_pipeline
from tests.webui.test_api import post
from tracker.game import Game
from tracker.runner import GameRunner
from tracker.session import TableSession
from webui.app import create_app

PIN = "2468"


@pytest.mark.parametrize(("body", "said"), [
    ({"flags": ["x"] * 21}, "A model takes at most 20 flags, not 21. Type fewer under Flags."),
    ({"flags": ["prone", "a" * 41]}, "A flag under Flags is 41 characters long: a name is at most 40."),
    ({"flags": "prone"}, "'flags' of 'assign'"),
    ({"order": "hold\u202e"}, "Order holds a control character (U+202E)"),
    ({"order": 3}, "'order' of 'assign'"),
    ({"wounded": "yes"}, "'wounded' of 'assign'"),
    ({"wounded": None}, "'wounded' of 'assign'"),
])
def test_a_bad_flag_order_or_wound_is_refused_before_the_session(client, session, body, said):
    response = post(client, "assign", {"model_ids": ["r1"], **body})
    assert response.status_code == 400 and said in response.get_json()["message"]
    assert session.applied == []


def test_the_state_fields_pass_as_sent_and_a_null_clears(client, session):
    body = {"model_ids": ["r1"], "flags": ["prone"], "order": None, "wounded": True}
    assert post(client, "assign", body).status_code == 200
    assert session.applied[-1] == ("assign", body)
    r1 = next(m for m in client.get("/api/state").get_json()["models"] if m["id"] == "r1")
    assert (r1["flags"], r1["order"], r1["wounded"], r1["side"]) == (["prone"], None, True, "red")


@pytest.fixture(scope="module")
def real():
    session = TableSession(GameFrames, lambda: GameRunner(flat_pipeline(), Game()), description="flat game")
    session.start()
    deadline = time.monotonic() + 30
    while session.state()["status"]["camera"] == "ok" and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 0.5)
    yield create_app(session, PIN, None).test_client()
    session.stop()


def models(client) -> dict[str, dict]:
    return {m["id"]: m for m in client.get("/api/state").get_json()["models"]}


def test_the_real_session_keeps_shows_and_clears_a_models_state(real):
    red = {"side": "red", "unit": "red-1", "type": "infantry"}
    assert post(real, "assign", {"model_ids": ["m1", "m2"], **red}, pin=PIN).status_code == 200
    sent = {"model_ids": ["m1"], "flags": ["dismounted", "prone"], "order": "hold", "wounded": True}
    assert post(real, "assign", sent, pin=PIN).status_code == 200
    m1, m2 = models(real)["m1"], models(real)["m2"]
    assert (m1["flags"], m1["order"], m1["wounded"]) == (["dismounted", "prone"], "hold", True)
    assert m1["unit"] == "red-1"
    assert (m2["flags"], m2["order"], m2["wounded"]) == ([], None, False)
    cleared = {"model_ids": ["m1"], "flags": None, "order": None}
    assert post(real, "assign", cleared, pin=PIN).status_code == 200
    m1 = models(real)["m1"]
    assert (m1["flags"], m1["order"], m1["wounded"]) == ([], None, True)  # the wound was left out: kept
    events = real.get("/api/state").get_json()["events"]
    assert [e["detail"] for e in events if e["kind"] == "assigned"][-2:] == [
        "m1: flags dismounted, prone; order hold; wounded True", "m1: flags none; order none"]


def test_a_model_not_yet_assigned_is_asked_for_its_side_in_a_players_words(real):
    before = models(real)["m3"]
    refused = post(real, "assign", {"model_ids": ["m3"], "flags": ["prone"]}, pin=PIN)
    assert refused.status_code == 400
    assert refused.get_json()["message"] == "Say the models' side. Fill in Side, then tap Assign."
    assert models(real)["m3"] == before
