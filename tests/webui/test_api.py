"""The JSON API as a phone (or a script) uses it, including every way to get it wrong."""

from __future__ import annotations

import json

import pytest

from tests.webui.conftest import PIN


def post(client, action, body=None, pin=PIN, raw=None, environ=None):
    headers = {"X-Table-Pin": pin} if pin is not None else {}
    data = raw if raw is not None else json.dumps(body or {})
    return client.post(
        f"/api/action/{action}",
        data=data,
        headers=headers,
        content_type="application/json",
        environ_base=environ or {"REMOTE_ADDR": "10.0.0.5"},
    )


def test_state_is_the_sessions_snapshot(client, session):
    response = client.get("/api/state")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    assert response.get_json() == session.state()


def test_assign_with_the_pin_changes_the_model(client, session):
    response = post(
        client, "assign", {"model_ids": ["m9"], "side": "red", "unit": "red-inf-2", "type": "infantry"}
    )
    assert response.status_code == 200
    assert response.get_json()["ok"] is True
    m9 = next(m for m in session.state()["models"] if m["id"] == "m9")
    assert (m9["side"], m9["unit"], m9["type"]) == ("red", "red-inf-2", "infantry")


@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("setup", {"ruleset": "world-at-fire", "table": {"width_cm": 122, "depth_cm": 122}}),
        ("terrain", {"terrain": [{"id": "h1", "kind": "hill", "polygon_cm": [[0, 0], [10, 0], [10, 10]]}]}),
        ("objectives", {"objectives": [{"id": "o9", "x_cm": 10, "y_cm": 10}]}),
        ("deployment", {"kind": "ambush", "sides": {"red": "top", "blue": "bottom"}}),
        ("phase", {"to": "next"}),
        ("next_turn", {}),
        ("reset_model", {"model_id": "r3"}),
        ("recalibrate", {}),
        ("clear_templates", {}),
    ],
)
def test_every_control_action_reaches_the_session(client, session, action, body):
    before = session.state()["version"]
    response = post(client, action, body)
    assert response.status_code == 200, response.get_json()
    assert session.applied[-1][0] == action
    assert session.state()["version"] == before + 1


def test_an_action_with_no_body_is_an_empty_payload(client, session):
    response = client.post("/api/action/next_turn", headers={"X-Table-Pin": PIN})
    assert response.status_code == 200
    assert session.state()["turn"] == 2


def test_undo_reverts_the_last_phase_change(client, session):
    post(client, "phase", {"to": "shooting"})
    assert post(client, "undo").status_code == 200
    assert session.state()["phase"] == "movement"


COMBINED_ARMS = {"ruleset": "combined-arms", "table": {"width_cm": 183, "depth_cm": 122}, "deployment": None}


def test_template_answers_who_is_under_it(client, session):
    assert post(client, "setup", COMBINED_ARMS).status_code == 200
    response = post(client, "template", {"kind": "grenade", "x_cm": 32, "y_cm": 30})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["template"]["under"] == ["r1"]
    assert session.state()["templates"][0]["under"] == ["r1"]


def test_the_page_learns_each_rulesets_templates_and_deployment_kinds(client):
    world = client.get("/api/rulesets/world-at-fire").get_json()
    assert world["templates"] == []
    assert [k["kind"] for k in world["deployment_kinds"]] == ["breakthrough", "ambush", "diversion"]
    assert world["deployment_kinds"][0] == {
        "kind": "breakthrough", "shape": "edge_strip", "edges": "short", "one_sided": False
    }
    arms = client.get("/api/rulesets/combined-arms").get_json()
    kinds = {t["kind"]: t for t in arms["templates"]}
    assert "blast" not in kinds
    assert (kinds["grenade"]["shape"], kinds["grenade"]["radius"]) == ("circle", 1.0)
    assert (kinds["smoke"]["shape"], kinds["smoke"]["length"], kinds["smoke"]["width"]) == ("strip", 5, 1)
    assert arms["deployment_kinds"] == [] and "infantry" in arms["unit_types"]
    unknown = client.get("/api/rulesets/no-such-game")
    assert unknown.status_code == 400 and "no-such-game" in unknown.get_json()["message"]


def test_a_ruleset_change_clears_a_deployment_the_new_ruleset_lacks_only_when_told(client, session):
    refused = post(client, "setup", {**COMBINED_ARMS, "deployment": {"kind": "breakthrough", "sides": {}}})
    assert refused.status_code == 400 and "breakthrough" in refused.get_json()["message"]
    assert session.state()["ruleset"]["id"] == "world-at-fire"
    assert post(client, "setup", COMBINED_ARMS).status_code == 200
    assert session.applied[-1] == ("setup", COMBINED_ARMS)
    assert session.state()["deployment"] is None


@pytest.mark.parametrize("pin", [None, "", "0000", "48210"])
def test_wrong_or_missing_pin_is_refused_and_changes_nothing(client, session, pin):
    before = session.state()
    response = post(client, "phase", {"to": "next"}, pin=pin)
    assert response.status_code == 403
    assert "PIN" in response.get_json()["message"]
    assert session.state() == before


def test_pin_guessing_is_rate_limited_per_client(client, session):
    for _ in range(5):
        assert post(client, "undo", pin="1111").status_code == 403
    limited = post(client, "undo", pin=PIN)
    assert limited.status_code == 429
    assert "Wait" in limited.get_json()["message"]
    assert int(limited.headers["Retry-After"]) >= 1
    other_phone = post(client, "phase", {"to": "next"}, environ={"REMOTE_ADDR": "10.0.0.6"})
    assert other_phone.status_code == 200


def test_malformed_json_is_a_400_with_a_message(client, session):
    before = session.state()
    response = post(client, "assign", raw="{not json")
    assert response.status_code == 400
    assert "JSON" in response.get_json()["message"]
    assert session.state() == before


@pytest.mark.parametrize(
    ("action", "body", "field"),
    [
        ("assign", {"model_ids": []}, "model_ids"),
        ("assign", {"model_ids": "m9"}, "model_ids"),
        ("terrain", {"terrain": [{"id": "x", "kind": "hill", "polygon_cm": [[0, 0], [1, 1]]}]}, "polygon_cm"),
        ("template", {"kind": "napalm", "x_cm": 1, "y_cm": 1}, "templates"),  # world-at-fire lays none
        ("setup", {"table": {"width_cm": -5, "depth_cm": 100}}, "width_cm"),
        ("phase", {}, "to"),
    ],
)
def test_malformed_payload_names_the_field(client, session, action, body, field):
    before = session.state()
    response = post(client, action, body)
    assert response.status_code == 400
    assert field in response.get_json()["message"]
    assert session.state() == before


def test_body_that_is_not_an_object_is_refused(client):
    response = post(client, "assign", raw="[1, 2]")
    assert response.status_code == 400
    assert "JSON object" in response.get_json()["message"]


@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("assign", {"model_ids": ["nope"], "side": "red", "unit": "u", "type": "infantry"}),
        ("reset_model", {"model_id": "ghost"}),
        ("phase", {"to": "breakfast"}),
        ("setup", {"ruleset": "chess"}),
        ("undo", {}),
    ],
)
def test_what_the_session_rejects_is_a_400_and_nothing_changes(client, session, action, body):
    before = session.state()
    response = post(client, action, body)
    assert response.status_code == 400
    assert response.get_json()["message"].endswith(".")
    assert session.state() == before


def test_unknown_action_is_404_with_the_known_ones(client):
    response = post(client, "teleport", {})
    assert response.status_code == 404
    assert "assign" in response.get_json()["message"]


def test_oversized_body_is_413_json(client, session):
    response = post(client, "terrain", raw="[" + "0," * 200_000 + "0]")
    assert response.status_code == 413
    assert response.get_json()["error"] == "Request Entity Too Large"


def test_unknown_route_and_wrong_method_are_json(client):
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404 and missing.is_json
    wrong = client.get("/api/action/undo")
    assert wrong.status_code == 405 and wrong.is_json


def test_a_bug_is_a_json_500_without_a_traceback(app, client, session, monkeypatch):
    monkeypatch.setattr(session, "state", lambda: 1 / 0)
    response = client.get("/api/state")
    assert response.status_code == 500
    assert "Traceback" not in response.get_data(as_text=True)
    assert response.get_json()["message"]
