"""A setup that leaves a setting out keeps the game's own. Clearing a deployment (setup, deployment:
null) sent the ruleset, table and step the phone was shown with it, and put back the ones another
phone had changed a moment before; now the phone sends only the deployment and the rig fills in the
rest from the game as it stands."""

from __future__ import annotations

from tests.tracker.flat import GameFrames, flat_pipeline
from tests.webui.conftest import PIN
from tracker.game import Game
from tracker.runner import GameRunner
from tracker.session import TableSession
from webui.app import create_app


def _post(client, body: dict):
    return client.post("/api/action/setup", json=body, headers={"X-Table-Pin": PIN})


def test_clearing_the_deployment_keeps_the_table_another_phone_set(client, session):
    session.apply("setup", {"ruleset": "world-at-fire", "table": {"width_cm": 122.0, "depth_cm": 122.0}})
    response = _post(client, {"deployment": None})
    assert response.status_code == 200, response.get_json()
    state = session.state()
    assert state["deployment"] is None
    assert state["table"] == {"width_cm": 122.0, "depth_cm": 122.0}
    assert state["ruleset"]["id"] == "world-at-fire"


def _real(ruleset: str = "world-at-fire") -> TableSession:
    return TableSession(GameFrames, lambda: GameRunner(flat_pipeline(), Game(ruleset)),
                        description="the flat game")


def test_the_real_game_clears_its_deployment_and_keeps_its_table():
    session = _real()
    session.apply("setup", {"ruleset": "world-at-fire", "table": {"width_cm": 150.0, "depth_cm": 100.0}})
    session.apply("deployment", {"kind": "breakthrough", "sides": {}})
    client = create_app(session, PIN).test_client()
    response = _post(client, {"deployment": None})
    assert response.status_code == 200, response.get_json()
    game = session.runner.game
    assert game.deployment is None
    assert game.table == {"width_cm": 150.0, "depth_cm": 100.0}
    assert game.ruleset_id == "world-at-fire"


def test_a_setup_that_leaves_the_step_out_keeps_the_games_step():
    session = _real("bronepehota")
    session.apply("setup", {"ruleset": "bronepehota", "table": {"width_cm": 150.0, "depth_cm": 100.0},
                            "step_cm": 3.0})
    client = create_app(session, PIN).test_client()
    response = _post(client, {"table": {"width_cm": 120.0, "depth_cm": 120.0}})
    assert response.status_code == 200, response.get_json()
    game = session.runner.game
    assert (game.ruleset_id, game.step_cm) == ("bronepehota", 3.0)  # left out, it was the seed's 2.5
    assert game.table == {"width_cm": 120.0, "depth_cm": 120.0}


def test_another_ruleset_sent_alone_keeps_the_table_but_not_the_old_rulesets_step():
    session = _real("bronepehota")
    session.apply("setup", {"ruleset": "bronepehota", "table": {"width_cm": 150.0, "depth_cm": 100.0},
                            "step_cm": 3.0})
    client = create_app(session, PIN).test_client()
    response = _post(client, {"ruleset": "world-at-fire"})
    assert response.status_code == 200, response.get_json()
    game = session.runner.game
    assert (game.ruleset_id, game.step_cm) == ("world-at-fire", None)
    assert game.table == {"width_cm": 150.0, "depth_cm": 100.0}
