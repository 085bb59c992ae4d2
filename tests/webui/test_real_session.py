"""The web UI over the tracker's real TableSession, rules core and replay engine.

The fake session pins down the web UI's own behaviour; this checks the parts meet: the state
the tracker publishes, the actions it validates, the scenes the rules core accepts, and the
report its replay engine writes. It reuses the tracker's small flat test game.
"""

from __future__ import annotations

import threading
import time

import pytest

from tests.tracker.flat import (
    BlobDetector,
    GameFrames,
    GatedFrames,
    TopDownCalibration,
    flat_pipeline,
    game_frames,
    until,
)
from tests.tracker.recorded import record_flat_game
from tests.webui.test_stream import sse_events
from tracker.game import Game
from tracker.pipeline import Pipeline
from tracker.replay import replay
from tracker.runner import GameRunner
from tracker.session import TableSession
from webui.app import create_app

PIN = "2468"


def flat_game_report(path) -> dict:
    """The replay engine on the flat game, which needs the flat pipeline the tracker tests use."""
    return replay(path, make_pipeline=lambda manifest: flat_pipeline()).report


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recordings")
    record_flat_game(folder / "flat-game.tsr")
    return folder


@pytest.fixture(scope="module")
def client(recordings):
    session = TableSession(
        GameFrames, lambda: GameRunner(flat_pipeline(), Game()), description="the flat test game"
    )
    session.start()
    deadline = time.monotonic() + 30
    while session.state()["status"]["camera"] == "ok" and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 0.5)
    app = create_app(
        session,
        PIN,
        str(recordings),
        report_loader=flat_game_report,
        config={"SSE_MAX_S": 0.3, "SSE_HEARTBEAT_S": 0.1},
    )
    yield app.test_client()
    session.stop()


def act(client, action, payload):
    return client.post(f"/api/action/{action}", json=payload, headers={"X-Table-Pin": PIN})


def test_state_and_events_carry_the_sessions_game(client):
    state = client.get("/api/state").get_json()
    assert sorted(m["id"] for m in state["models"]) == ["m1", "m2", "m3"]
    pushed = sse_events(client.get("/api/events").get_data(as_text=True))
    assert pushed[0]["version"] == state["version"]


def test_assign_then_measure_with_the_real_rules_core(client):
    assert (
        act(
            client, "assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": "infantry"}
        ).status_code
        == 200
    )
    assert (
        act(
            client, "assign", {"model_ids": ["m3"], "side": "blue", "unit": "blue-1", "type": "infantry"}
        ).status_code
        == 200
    )
    ranges = client.get("/api/ranges?from=m1").get_json()
    assert [t["id"] for t in ranges["targets"]] == ["m3"]
    ruler = client.get("/api/measure?a=m1&b=m2").get_json()
    assert ruler["centre_cm"] > ruler["edge_cm"] > 0


def test_what_the_session_refuses_is_a_400_with_its_message(client):
    before = client.get("/api/state").get_json()
    response = act(client, "assign", {"model_ids": ["m1"], "side": "red", "unit": "red-1", "type": "dragon"})
    assert response.status_code == 400
    assert "dragon" in response.get_json()["message"]
    assert client.get("/api/state").get_json() == before


def test_replay_timeline_and_report_from_the_real_replay_engine(client):
    timeline = client.get("/api/recordings/flat-game.tsr").get_json()
    assert timeline["snapshots"] and timeline["turns"][0]["turn"] == 1
    assert {s["phase"] for s in timeline["snapshots"]} >= {"movement", "shooting"}
    report = client.get("/api/recordings/flat-game.tsr/report")
    assert report.status_code == 200 and "<svg" in report.get_data(as_text=True)


def test_a_ruleset_change_can_clear_the_deployment_and_templates_answer_under_template(client):
    sides = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}
    assert act(client, "deployment", sides).status_code == 200
    table = {"width_cm": 183, "depth_cm": 122}
    refused = act(client, "setup", {"ruleset": "combined-arms", "table": table})
    assert refused.status_code == 400 and "breakthrough" in refused.get_json()["message"]
    changed = act(client, "setup", {"ruleset": "combined-arms", "table": table, "deployment": None})
    assert changed.status_code == 200, changed.get_json()
    state = client.get("/api/state").get_json()
    assert (state["ruleset"]["id"], state["deployment"]) == ("combined-arms", None)
    offered = client.get("/api/rulesets/combined-arms").get_json()["templates"]
    grenade = next(t for t in offered if t["kind"] == "grenade")
    m1 = next(m for m in state["models"] if m["id"] == "m1")
    reply = act(client, "template", {"kind": grenade["kind"], "x_cm": m1["x_cm"], "y_cm": m1["y_cm"]})
    assert reply.status_code == 200, reply.get_json()
    assert "m1" in reply.get_json()["template"]["under"]
    assert act(client, "template", {"kind": "blast", "x_cm": 1, "y_cm": 1}).status_code == 400


def test_a_game_moves_to_mobile_infantry_by_retyping_its_models(client):
    """Mobile Infantry shares no unit type with the others: the live session takes the change
    once the old types are mapped to its own, and its turn starts with orders."""
    table = {"width_cm": 183, "depth_cm": 122}
    was = client.get("/api/state").get_json()["ruleset"]["id"]
    assign = {"model_ids": ["m1"], "side": "red", "unit": "red-1", "type": "infantry"}
    assert act(client, "assign", assign).status_code == 200
    setup = {"ruleset": "mobile-infantry", "table": table, "deployment": None}
    refused = act(client, "setup", setup)
    assert refused.status_code == 400 and "infantry" in refused.get_json()["message"]
    assert act(client, "setup", {**setup, "retype": {"infantry": "trooper"}}).status_code == 200
    state = client.get("/api/state").get_json()
    assert state["ruleset"]["id"] == "mobile-infantry" and state["phases"][:2] == ["deployment", "orders"]
    assert {m["type"] for m in state["models"] if m["type"]} == {"trooper"}
    back = {"ruleset": was, "table": table, "deployment": None, "retype": {"trooper": "infantry"}}
    assert act(client, "setup", back).status_code == 200


def test_assign_refusals_are_said_in_a_players_words_not_the_scene_files(client):
    """The rules core words a refusal for a scene file (models[2].side, deployment.sides): on a
    phone it names the model, what is wrong and which control to change."""
    sides = {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}}
    table = client.get("/api/state").get_json()["table"]
    placed = act(client, "setup", {"ruleset": "world-at-fire", "table": table, "deployment": sides})
    assert placed.status_code == 200, placed.get_json()
    m3 = {"model_ids": ["m3"], "side": "green", "unit": "green-1", "type": "infantry"}
    green = act(client, "assign", m3)
    told = green.get_json()["message"]
    assert green.status_code == 400 and "scene field" not in told and "deployment.sides" not in told
    assert told.startswith("m3 can't be on side green: the breakthrough deployment places only blue, red.")
    assert "Clear deployment" in told
    dragon = act(client, "assign", {"model_ids": ["m1"], "side": "red", "unit": "red-1", "type": "dragon"})
    told = dragon.get_json()["message"]
    assert told.startswith("m1: world-at-fire has no unit type dragon. Under Type, use one of infantry,")
    cleared = act(client, "setup", {"ruleset": "world-at-fire", "table": table, "deployment": None})
    assert cleared.status_code == 200


def test_a_turn_control_sent_twice_from_one_phase_takes_one_step(client):
    """Session 63 (D1): a double tap on Next phase skipped a phase, on Next turn a turn. The real
    session applies a control that says where it was tapped only while the game is still there."""
    before = client.get("/api/state").get_json()
    tapped = {"to": "next", "from": {"turn": before["turn"], "phase": before["phase"]}}
    first, second = act(client, "phase", tapped), act(client, "phase", tapped)
    assert first.status_code == 200 and first.get_json().get("applied") is not False, first.get_json()
    assert second.status_code == 200 and second.get_json()["applied"] is False
    after = client.get("/api/state").get_json()
    phases = after["phases"]
    assert phases.index(after["phase"]) == phases.index(before["phase"]) + 1, after["phase"]
    assert (second.get_json()["turn"], second.get_json()["phase"]) == (after["turn"], after["phase"])
    undone = {"from": {"turn": after["turn"], "phase": after["phase"]}}
    assert act(client, "undo", undone).status_code == 200
    assert act(client, "undo", undone).get_json()["applied"] is False  # undone once, not twice
    assert client.get("/api/state").get_json()["phase"] == before["phase"]


def test_joining_a_unit_of_another_side_names_the_picked_models_and_the_side_typed(client):
    """D4: the refusal blamed the unit's other model, on the side the picked ones left."""
    for picked, side in ((["m1", "m2"], "red"), (["m1"], "blue")):
        body = {"model_ids": picked, "side": side, "unit": "red-9", "type": "infantry"}
        reply = act(client, "assign", body)
    told = reply.get_json()["message"]
    assert reply.status_code == 400
    assert told.startswith("m1 can't join unit red-9 on side blue: red-9 is red's (m2 in it)."), told


class _RectifyingCalibration(TopDownCalibration):
    """The flat game's calibration, with the top-down view the real one gives (its frames are one)."""

    def rectify(self, image, px_per_mm: float):
        return image


def test_the_top_down_view_is_served_across_a_replays_loop():
    """The demo loops: its fresh game has no calibration until it steps its first frame, and
    /topdown.jpg answered 503 at every loop (the phone asks every 2 s while the state it has says
    calibrated)."""
    permits = threading.Semaphore(0)

    def make_runner() -> GameRunner:
        return GameRunner(Pipeline(calibrate=lambda image: _RectifyingCalibration(), detector=BlobDetector()),
                          Game())

    session = TableSession(lambda: GatedFrames(permits), make_runner, description="test frames", loop=True)
    first = session.runner
    client = create_app(session, PIN, config={"TOPDOWN_MAX_AGE_S": 0.0}).test_client()
    session.start()
    try:
        permits.release(len(game_frames()) - 1)
        last_but_one = len(game_frames()) - 2
        until(session, lambda: first.last_result is not None and first.last_result.frame == last_but_one)
        assert client.get("/topdown.jpg").status_code == 200
        permits.release(2)  # the first loop's last frame and its end: the fresh game waits for a frame
        until(session, lambda: session.runner is not first)
        last = client.get("/topdown.jpg")
        assert last.status_code == 200 and last.data.startswith(b"\xff\xd8")
        permits.release(1)
        until(session, lambda: session.runner.last_result is not None)
        assert client.get("/topdown.jpg").status_code == 200
    finally:
        permits.release(100)
        session.stop()
