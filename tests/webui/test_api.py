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
    served = response.get_json()
    assert served["status"].pop("run")  # the rig's run, which the web UI adds
    assert served == session.state()


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
        ("setup", {"table": {"width_cm": -5, "depth_cm": 100}}, "Table width"),  # as Setup labels it
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


# --- session 63's phone exam (/tmp/s63/web/REPORT.md) ---------------------------------------


@pytest.mark.parametrize(
    ("action", "body", "after"),
    [
        ("phase", {"to": "next"}, (1, "shooting")),
        ("next_turn", {}, (2, "movement")),
        ("phase", {"to": "assault"}, (1, "assault")),
    ],
)
def test_a_turn_control_sent_twice_from_one_phase_takes_one_step(client, session, action, body, after):
    """D1: a double tap (or two phones at once) took turn 2 to 4 or skipped shooting. Each tap says
    the turn and phase it was made at; the second finds the game moved on and changes nothing."""
    tapped = {**body, "from": {"turn": 1, "phase": "movement"}}
    first, second = post(client, action, tapped), post(client, action, tapped)
    assert first.status_code == 200 and first.get_json().get("applied") is not False
    assert second.status_code == 200
    answer = second.get_json()
    assert answer["applied"] is False and (answer["turn"], answer["phase"]) == after
    assert "already moved on" in answer["note"]
    assert (session.state()["turn"], session.state()["phase"]) == after
    assert len(session.applied) == 1 and "from" not in session.applied[0][1]


def test_undo_sent_twice_from_one_phase_undoes_once(client, session):
    post(client, "phase", {"to": "shooting"})
    post(client, "phase", {"to": "assault"})
    tapped = {"from": {"turn": 1, "phase": "assault"}}
    post(client, "undo", tapped)
    assert post(client, "undo", tapped).get_json()["applied"] is False
    assert session.state()["phase"] == "shooting"


def test_a_turn_control_without_from_steps_as_the_contract_says(client, session):
    for _ in range(2):
        assert post(client, "next_turn", {}).status_code == 200
    assert session.state()["turn"] == 3


@pytest.mark.parametrize("came_from", [{"turn": "two", "phase": "movement"}, {"turn": 1}, "movement"])
def test_a_malformed_from_is_refused(client, session, came_from):
    response = post(client, "phase", {"to": "next", "from": came_from})
    assert response.status_code == 400 and "from" in response.get_json()["message"]
    assert session.state()["phase"] == "movement"


WIDTH = "Table width must be a number"


@pytest.mark.parametrize(
    ("body", "told"),
    [
        ({"table": {"width_cm": "", "depth_cm": 122}}, f"{WIDTH} from 30 to 600 cm, not empty"),
        ({"table": {"width_cm": 0, "depth_cm": 122}}, f"{WIDTH} from 30 to 600 cm, not 0"),
        ({"table": {"width_cm": 183, "depth_cm": 601}}, "Table depth must be a number from 30 to 600 cm"),
        ({"step_cm": "abc"}, "Step length must be a number from 1 to 50 cm, not 'abc'"),
    ],
)
def test_setup_refusals_are_said_in_the_forms_words(client, session, body, told):
    """D6: "Field 'table.width_cm' of 'setup': Input should be greater than 0" for an empty field."""
    response = post(client, "setup", {"ruleset": "world-at-fire", **body})
    assert response.status_code == 400
    assert response.get_json()["message"].startswith(told)
    assert "Field" not in response.get_json()["message"] and session.applied == []


@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("assign", {"model_ids": ["m9"], "side": "red", "unit": "u" * 240_000, "type": "infantry"}),
        ("assign", {"model_ids": ["m9"], "side": "s" * 41, "unit": "red-inf-2", "type": "infantry"}),
        ("assign", {"model_ids": ["m9"], "side": "red", "unit": "red-inf-2", "type": "infantry",
                    "weapons": ["rifle", "w" * 41]}),
        ("objectives", {"objectives": [{"id": "o" * 41, "x_cm": 10, "y_cm": 10}]}),
        ("terrain", {"terrain": [{"id": "t" * 41, "kind": "hill", "polygon_cm": [[0, 0], [9, 0], [9, 9]]}]}),
        ("deployment", {"kind": "ambush", "sides": {"r" * 41: "top", "blue": "bottom"}}),
    ],
)
def test_names_over_40_characters_are_refused(client, session, action, body):
    """D7: a 240 KB unit name was taken and sent with every state to every phone (5.8 MB each)."""
    before = session.state()
    response = post(client, action, body, raw=json.dumps(body))
    assert response.status_code == 400
    assert "characters long: a name is at most 40" in response.get_json()["message"]
    assert session.state() == before


def test_a_name_of_40_characters_is_taken(client, session):
    body = {"model_ids": ["m9"], "side": "red", "unit": "u" * 40, "type": "infantry"}
    assert post(client, "assign", body).status_code == 200


def test_the_unit_of_a_long_name_is_said_in_the_assign_forms_words(client):
    body = {"model_ids": ["m9"], "side": "red", "unit": "u" * 41, "type": "infantry"}
    assert post(client, "assign", body).get_json()["message"] == (
        "Unit is 41 characters long: a name is at most 40. Type a shorter one."
    )


@pytest.mark.parametrize(("heading", "stored"), [(-90, 270), (450, 90), (359.5, 359.5), (0, 0)])
def test_a_template_heading_is_kept_in_one_turn(client, session, heading, stored):
    """D10: -90 was stored as -90; CONTRACTS.md's angles are in [0, 360)."""
    post(client, "setup", COMBINED_ARMS)
    body = {"kind": "smoke", "x_cm": 80, "y_cm": 48, "heading_deg": heading}
    assert post(client, "template", body).status_code == 200
    assert session.state()["templates"][-1]["heading_deg"] == stored


@pytest.mark.parametrize("heading", ["abc", ""])
def test_a_template_heading_that_is_no_number_is_refused(client, session, heading):
    post(client, "setup", COMBINED_ARMS)
    body = {"kind": "smoke", "x_cm": 80, "y_cm": 48, "heading_deg": heading}
    response = post(client, "template", body)
    assert response.status_code == 400
    assert response.get_json()["message"].startswith("Heading must be a number of degrees")
    assert session.state()["templates"] == []


def test_a_setup_the_scene_refuses_is_said_without_the_scene_files_field(client, session, monkeypatch):
    """D6: "scene field objectives[0].x_cm/y_cm: objective 'obj1' ... is off the 29.0x29.0 cm table"."""
    from rules_core.errors import OffTable, field_error

    def refuse(state, payload):
        raise field_error(
            ("objectives", 0, "x_cm/y_cm"), "objective 'obj1' at (91.5, 61.0) is off the 60.0x60.0 cm table",
            "place it on the table or remove it",
            reason=OffTable("objective", "obj1", 91.5, 61.0, 60.0, 60.0),
        )

    monkeypatch.setattr(session, "_apply_setup", refuse)
    response = post(client, "setup", {"ruleset": "world-at-fire", "table": {"width_cm": 60, "depth_cm": 60}})
    assert response.status_code == 400
    assert response.get_json()["message"] == (
        "Objective obj1 at (91.5, 61.0) cm would be off a 60 × 60 cm table. "
        "Pick a bigger table, or tap Clear objectives under Objectives first."
    )


def test_the_page_takes_its_field_limits_from_the_rig(client):
    """D6, D7: the page said 30 to 600 cm while the rig took 601 and 2000: one source now."""
    from webui.actions import NAME_MAX, STEP_CM, TABLE_CM

    html = client.get("/").get_data(as_text=True)
    assert f'min="{TABLE_CM[0]}" max="{TABLE_CM[1]}"' in html
    assert f'min="{STEP_CM[0]}" max="{STEP_CM[1]}"' in html
    assert html.count(f'maxlength="{NAME_MAX}"') == 6


def test_a_turn_control_with_a_null_from_steps_as_without_one(client, session):
    assert post(client, "phase", {"to": "next", "from": None}).get_json().get("applied") is not False
    assert session.state()["phase"] == "shooting" and "from" not in session.applied[-1][1]
