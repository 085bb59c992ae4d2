"""A phone's added objective is joined to the game's list as it stands, under the lock the pipeline
thread changes the game under. Joined to the state last published it lost what the game had taken
meanwhile: a recorded control (a replay's), or a state the pipeline built before a control and stored
after it."""

from __future__ import annotations

import threading
import time

from tests.tracker.flat import GameFrames, flat_pipeline
from tests.webui.conftest import PIN
from tracker.game import Game
from tracker.runner import GameRunner
from tracker.session import TableSession
from webui.app import create_app


def _session() -> TableSession:
    return TableSession(GameFrames, lambda: GameRunner(flat_pipeline(), Game()), description="the flat game")


def _add(client, x_cm: float):
    return client.post("/api/action/objectives", json={"add": {"x_cm": x_cm, "y_cm": 60.0}},
                       headers={"X-Table-Pin": PIN})


def test_an_objective_added_while_the_pipeline_applies_a_recorded_one_keeps_both():
    session = _session()
    client = create_app(session, PIN).test_client()
    answers: list = []
    # What the pipeline thread does each frame: a recorded control and the step under the session's
    # lock, the state published only once the lock is let go.
    with session._lock:
        session.runner.control("objectives", {"objectives": [{"id": "recorded", "x_cm": 50.0, "y_cm": 50.0}]})
        phone = threading.Thread(target=lambda: answers.append(_add(client, 80.0)))
        phone.start()
        time.sleep(0.2)
    phone.join(5)
    assert answers[0].status_code == 200
    assert [o["id"] for o in session.runner.game.objectives] == ["recorded", answers[0].get_json()["added"]]


class _StallingCondition:
    """The session's state condition, entered by the pipeline thread only once `release` is set: the
    moment between building a state (under the session's lock) and storing it (under this)."""

    def __init__(self, condition: threading.Condition) -> None:
        self._condition = condition
        self.reached = threading.Event()
        self.release = threading.Event()

    def __enter__(self):
        if threading.current_thread().name == "pipeline":
            self.reached.set()
            self.release.wait(5)
        return self._condition.__enter__()

    def __exit__(self, *exc):
        return self._condition.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._condition, name)


def test_a_state_built_before_a_control_never_replaces_the_controls():
    session = _session()
    stalling = session._changed = _StallingCondition(session._changed)
    session._signature = ("a frame ago",)
    pipeline = threading.Thread(target=session._publish, name="pipeline")
    pipeline.start()
    assert stalling.reached.wait(5)
    reply = session.apply("objectives", {"objectives": [{"id": "obj1", "x_cm": 50.0, "y_cm": 50.0}]})
    assert reply["ok"]
    stalling.release.set()
    pipeline.join(5)
    assert [o["id"] for o in session.state()["objectives"]] == ["obj1"]


def test_a_setting_left_out_is_the_games_as_it_stands_not_as_last_published():
    session = _session()
    client = create_app(session, PIN).test_client()
    answers: list = []
    # Another phone's table change, applied and not yet published, as the clear is tapped.
    with session._lock:
        table = {"width_cm": 122.0, "depth_cm": 122.0}
        session.runner.control("setup", {"ruleset": "world-at-fire", "table": table})
        phone = threading.Thread(target=lambda: answers.append(client.post(
            "/api/action/setup", json={"deployment": None}, headers={"X-Table-Pin": PIN})))
        phone.start()
        time.sleep(0.2)
    phone.join(5)
    assert answers[0].status_code == 200, answers[0].get_json()
    assert session.runner.game.table == {"width_cm": 122.0, "depth_cm": 122.0}
