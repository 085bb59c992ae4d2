"""Replay loads side by side: a phone opening a short game waited behind another phone's long one
(one lock held all loads), and every report stayed in memory for the rig's life."""

from __future__ import annotations

import contextlib
import threading

from rules_core.errors import TablesightError
from tests.webui.conftest import PIN, SQLITE_HEADER
from tests.webui.fake_replay import demo_report
from webui.app import create_app

BIG = "game-2026-11-29"  # the recordings folder's (conftest); the fake loader makes it the slow one
SMALL = "skirmish.tsr"
WAIT_S = 5.0


class SlowLoader:
    """Stands in for the replay engine: BIG takes until `finish` is set, the others no time."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.finish = threading.Event()
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, path):
        with self._lock:
            self.calls.append(path.name)
        if path.name == BIG:
            self.started.set()
            if not self.finish.wait(WAIT_S):
                raise AssertionError("the big load was never let finish")
        return demo_report()


def slow_app(session, recordings_dir, config: dict | None = None) -> tuple:
    """The app over `session` with a `SlowLoader` for its replays, and the loader."""
    loader = SlowLoader()
    return create_app(session, PIN, str(recordings_dir), report_loader=loader, config=config), loader


def counting_client(session, recordings_dir, config: dict) -> tuple:
    """A client of the app whose replays load at once, and the names of the recordings loaded."""
    calls: list[str] = []

    def counted(path):
        calls.append(path.name)
        return demo_report()

    app = create_app(session, PIN, str(recordings_dir), report_loader=counted, config=config)
    return app.test_client(), calls


def _open(app, name: str, answers: list) -> threading.Thread:
    phone = threading.Thread(target=lambda: answers.append(app.test_client().get(f"/api/recordings/{name}")))
    phone.start()
    return phone


@contextlib.contextmanager
def big_loading(app, loader: SlowLoader, answers: list):
    """BIG opened by another phone, loading until the block ends; then let finish, its answer in
    `answers`."""
    phone = _open(app, BIG, answers)
    try:
        assert loader.started.wait(WAIT_S)
        yield
    finally:
        loader.finish.set()
        phone.join(WAIT_S)


def test_a_small_recording_opens_while_a_big_one_loads(session, recordings_dir):
    app, loader = slow_app(session, recordings_dir)
    big, small = [], []
    with big_loading(app, loader, big):
        second = _open(app, SMALL, small)
        second.join(2.0)
        assert not second.is_alive(), "the small recording waited behind the big one"
        assert [r.status_code for r in small] == [200] and big == []
    assert [r.status_code for r in big] == [200]


def test_past_the_loads_a_rig_runs_at_once_the_next_waits_its_turn(session, recordings_dir):
    app, loader = slow_app(session, recordings_dir, {"REPLAYS_AT_ONCE": 1})
    big, small = [], []
    first = _open(app, BIG, big)
    assert loader.started.wait(WAIT_S)
    second = _open(app, SMALL, small)
    second.join(0.5)
    assert second.is_alive() and loader.calls == [BIG]  # one pipeline's memory at a time
    loader.finish.set()
    for phone in (first, second):
        phone.join(WAIT_S)
    assert [r.status_code for r in big + small] == [200, 200]


def test_a_recording_loading_is_waited_for_not_loaded_again(session, recordings_dir):
    app, loader = slow_app(session, recordings_dir)
    answers: list = []
    phones = [_open(app, BIG, answers)]
    assert loader.started.wait(WAIT_S)
    phones += [_open(app, BIG, answers) for _ in range(3)]
    loader.finish.set()
    for phone in phones:
        phone.join(WAIT_S)
    assert [r.status_code for r in answers] == [200] * 4
    assert loader.calls == [BIG]


def test_only_the_last_few_reports_are_kept(session, recordings_dir):
    for n in range(6):
        (recordings_dir / f"game-{n}.tsr").write_bytes(SQLITE_HEADER)
    client, calls = counting_client(session, recordings_dir, {"REPLAY_REPORTS_KEPT": 3})
    for n in [0, 1, 2, 0, 3, 4, 0, 1]:  # 0 kept by being opened again; 1 left first, so loaded again
        assert client.get(f"/api/recordings/game-{n}.tsr").status_code == 200
    assert calls == ["game-0.tsr", "game-1.tsr", "game-2.tsr", "game-3.tsr", "game-4.tsr", "game-1.tsr"]


def test_phones_waiting_on_a_load_that_fails_are_told_and_a_later_try_loads_again(session, recordings_dir):
    started, finish, mended = threading.Event(), threading.Event(), threading.Event()

    def truncated(path):
        if mended.is_set():
            return demo_report()
        started.set()
        finish.wait(WAIT_S)
        raise TablesightError(f"Recording {path} is truncated at frame 12", "It opens up to there")

    app = create_app(session, PIN, str(recordings_dir), report_loader=truncated)
    answers: list = []
    phones = [_open(app, SMALL, answers)]
    assert started.wait(WAIT_S)
    phones.append(_open(app, SMALL, answers))  # waits on the first load, or loads and fails itself
    finish.set()
    for phone in phones:
        phone.join(WAIT_S)
    assert [r.status_code for r in answers] == [400, 400]
    assert all("truncated" in r.get_json()["message"] for r in answers)
    mended.set()  # a failure is not kept: the recording copied again in full opens
    assert app.test_client().get(f"/api/recordings/{SMALL}").status_code == 200
