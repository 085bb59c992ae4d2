"""Ranges and rulers: the scene handed to the rules core, points, and the orders-phase ban."""

from __future__ import annotations

import pytest

from rules_core import api as rules_api
from tests.webui.fake_rules import FakeRules
from tests.webui.fake_session import RULESETS
from webui import measuring


@pytest.fixture
def rules(monkeypatch):
    """A stand-in rules core that records the scenes it was given."""
    fake = FakeRules()
    monkeypatch.setattr(measuring, "_rules_api", lambda: fake)
    return fake.calls


def test_ranges_from_a_model(client, rules):
    response = client.get("/api/ranges?from=r1")
    assert response.status_code == 200
    nearest = response.get_json()["targets"][0]
    assert nearest["id"] == "b1" and nearest["weapons"] == ["rifle"]  # 44 cm: beyond a pistol's 15
    scene = rules[0]
    ids = {m["id"] for m in scene["models"]}
    assert "m9" not in ids  # unassigned models are drawn but never measured
    assert {"r1", "b1", "t1"} <= ids
    tank = next(m for m in scene["models"] if m["id"] == "t1")
    assert tank["base"] == {"shape": "rect", "length_mm": 200.0, "width_mm": 100.0}
    assert tank["chassis"] == "tracked"
    assert scene["ruleset"] == "world-at-fire" and scene["phase"] == "movement"


def test_ranges_from_a_unit(client, rules):
    assert client.get("/api/ranges?from=red-inf-1").status_code == 200


@pytest.mark.parametrize(
    ("query", "word"),
    [("", "which model"), ("?from=ghost", "ghost"), ("?from=m9", "Assign")],
)
def test_ranges_bad_input(client, rules, query, word):
    response = client.get(f"/api/ranges{query}")
    assert response.status_code == 400
    assert word in response.get_json()["message"]
    assert rules == []


def test_measure_between_models_asks_the_rules_core(client, rules):
    response = client.get("/api/measure?a=r1&b=r2")
    assert response.get_json()["centre_cm"] == 5.0


def test_measure_to_a_point_is_edge_to_the_base(client, rules):
    response = client.get("/api/measure?a=r1&b=42,30")
    body = response.get_json()
    assert body["centre_cm"] == pytest.approx(10.0)
    assert body["edge_cm"] == pytest.approx(10.0 - 1.6, abs=0.01)
    assert rules == []


def test_measure_between_points(client):
    body = client.get("/api/measure?a=0,0&b=30,40").get_json()
    assert body == {"edge_cm": 50.0, "centre_cm": 50.0, "edge_in_ruleset_units": 50.0}


@pytest.mark.parametrize(
    ("query", "status"),
    [("?a=r1", 400), ("?a=r1&b=ghost", 400), ("?a=ghost&b=1,2", 400), ("?a=1,2&b=nowhere", 400)],
)
def test_measure_bad_input(client, query, status):
    response = client.get(f"/api/measure{query}")
    assert response.status_code == status
    assert response.get_json()["message"]


def test_no_measuring_while_orders_are_given_where_the_ruleset_forbids_it(client, session, rules):
    from tests.webui.test_api import post

    post(client, "setup", {"ruleset": "mobile-infantry", "deployment": None})
    assert session.state()["phase"] == "orders"
    for url in ("/api/ranges?from=r1", "/api/measure?a=r1&b=r2", "/api/measure?a=0,0&b=1,1"):
        response = client.get(url)
        assert response.status_code == 409
        assert "by eye" in response.get_json()["message"]
    post(client, "phase", {"to": "next"})
    assert client.get("/api/ranges?from=r1").status_code == 200


def test_without_the_rules_core_measuring_is_503(client, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_rules_api(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "rules_core" and fromlist and "api" in fromlist:
            raise ImportError("rules_core.api missing")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_rules_api)
    response = client.get("/api/ranges?from=r1")
    assert response.status_code == 503
    assert "rules core" in response.get_json()["message"]


def test_rulesets_for_the_setup_panel(client, rules):
    assert client.get("/api/rulesets").get_json()["rulesets"][0]["id"] == "world-at-fire"


def test_the_real_rules_core_measures_the_fake_table(client):
    """No stand-in: the scene the web UI builds must be one the rules core accepts."""
    ranges = client.get("/api/ranges?from=r1").get_json()
    assert [t["id"] for t in ranges["targets"]][:3] == ["b1", "b3", "b2"]
    assert ranges["targets"][0]["edge_cm"] == pytest.approx(44.88, abs=0.01)
    ruler = client.get("/api/measure?a=r1&b=r2").get_json()
    assert ruler["edge_cm"] == pytest.approx(1.8) and ruler["centre_cm"] == pytest.approx(5.0)
    listed = client.get("/api/rulesets").get_json()
    assert {"world-at-fire", "mobile-infantry"} <= {r["id"] for r in listed["rulesets"]}, listed


def test_a_model_and_a_unit_of_one_name_are_refused_in_a_players_words(client, session):
    """The rules core refuses ranges from r1 when r1 is a model and also a unit holding others, in
    the CLI's words ("FROM 'r1' is both a model id and a unit id ... so FROM names one of them"):
    a phone's player tapped a model and never typed FROM."""
    session.apply("assign", {"model_ids": ["r4", "r5"], "side": "red", "unit": "r1", "type": "infantry"})
    response = client.get("/api/ranges?from=r1")
    assert response.status_code == 400
    assert response.get_json()["message"] == (
        "Model r1 and unit r1 (r4, r5) share one name, so the rig can't tell whose ranges you asked for. "
        "Rename the unit: under Setup, Assign models, pick r4, r5, type another Unit (e.g. r1-unit) "
        "and tap Assign."
    )


def test_the_scene_carries_the_games_step_for_a_ruleset_measured_in_steps(session):
    state = {**session.state(), "ruleset": {**RULESETS["bronepehota"], "unit_cm": 4.0}}
    assert measuring.scene_from_state(state)["step_cm"] == 4.0
    assert "step_cm" not in measuring.scene_from_state(session.state())  # centimetres: no step


def test_the_rules_core_measures_in_the_games_step():
    """The rules core itself, handed the scene: its units follow the game's step, not the seed's 2.5 cm."""
    state = {
        "ruleset": {**RULESETS["bronepehota"], "unit_cm": 4.0},
        "table": {"width_cm": 120.0, "depth_cm": 120.0},
        "phase": "movement",
        "models": [],
    }
    scene = rules_api.parse_scene(measuring.scene_from_state(state))
    assert scene.in_units(8.0) == 2.0
