import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hardware.source import Frame
from rules_core.errors import TablesightError
from tests.tracker.flat import flat_pipeline, game_frames
from tests.tracker.recorded import record_flat_game
from tracker.game import Game
from tracker.recording import Recording, RecordingWriter
from tracker.replay import replay
from tracker.runner import GameRunner, RecordPolicy

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, list[dict]]:
    path = tmp_path_factory.mktemp("games") / "game.tsr"
    return path, record_flat_game(path)


def test_replay_reproduces_the_recorded_events(recorded):
    path, live_events = recorded
    result = replay(path, flat_pipeline)
    assert result.events_match
    assert [e["kind"] for e in result.events] == [e["kind"] for e in live_events]
    kinds = [(e["kind"], e["data"].get("id")) for e in result.events]
    assert ("moved", "m1") in kinds and ("moved", "m2") in kinds and ("removed", "m4") in kinds
    assert not result.stopped


def test_replay_is_deterministic(recorded):
    path, _ = recorded
    first = [r.to_json() for r in replay(path, flat_pipeline).results]
    second = [r.to_json() for r in replay(path, flat_pipeline).results]
    assert first == second and len(first) > 5


def test_report_has_phase_snapshots_with_start_positions_and_verdicts(recorded):
    path, _ = recorded
    report = replay(path, flat_pipeline).report
    (turn,) = report["turns"]
    phases = [p["phase"] for p in turn["phases"]]
    assert phases == ["deployment", "movement", "shooting", "assault"]
    movement = turn["phases"][1]
    m1 = next(m for m in movement["models"] if m["id"] == "m1")
    assert (m1["start_x_cm"], m1["start_y_cm"]) == pytest.approx((40.0, 40.0), abs=0.2)
    assert (m1["x_cm"], m1["y_cm"]) == pytest.approx((50.0, 44.0), abs=0.2)
    assert movement["moves"]["models"]["m1"]["legal"] is True


def test_truncated_recording_replays_up_to_its_last_good_frame(recorded, tmp_path):
    path, _ = recorded
    full = Recording(path).frame_count()
    cut = tmp_path / "cut.tsr"
    data = path.read_bytes()
    cut.write_bytes(data[: len(data) * 2 // 3])
    result = replay(cut, flat_pipeline)
    assert 0 < len(result.results) < full
    assert "stopped after frame" in result.stopped or "damaged" in result.stopped


def test_a_recording_cut_inside_its_manifest_is_refused_in_plain_words(recorded, tmp_path):
    path, _ = recorded
    with sqlite3.connect(path) as db:
        page = db.execute("PRAGMA page_size").fetchone()[0]
    cut = tmp_path / "cut.tsr"
    for size in range(page + 100, 6 * page, 700):  # the header survives, a later page is cut short
        cut.write_bytes(path.read_bytes()[:size])
        try:
            Recording(cut)
        except TablesightError as error:
            message = str(error)
            if "manifest" in message:
                assert "NoneType" not in message and "JSON object" not in message
                return
    pytest.fail("no cut left the manifest unreadable")


def test_garbage_in_a_frame_stops_there_and_says_so(recorded, tmp_path):
    path, _ = recorded
    broken = tmp_path / "broken.tsr"
    broken.write_bytes(path.read_bytes())
    with sqlite3.connect(broken) as db:
        first_after_3 = "(SELECT MIN(idx) FROM frames WHERE idx > 3)"
        db.execute(f"UPDATE frames SET jpeg = x'00ff00' WHERE idx = {first_after_3}")
    result = replay(broken, flat_pipeline)
    assert "not a readable JPEG" in result.stopped
    assert all(r.frame <= 3 for r in result.results)


def test_recording_from_a_newer_format_says_so(recorded, tmp_path):
    path, _ = recorded
    newer = tmp_path / "newer.tsr"
    newer.write_bytes(path.read_bytes())
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE manifest SET value = '99' WHERE key = 'format_version'")
    with pytest.raises(TablesightError, match="newer tablesight"):
        Recording(newer)


@pytest.mark.parametrize("value", ["true", "0", "-1", "1.5", "\"1\""])
def test_a_format_version_no_tablesight_writes_is_named(recorded, tmp_path, value):
    """true, 0 and -1 were taken as a format (JSON's true is a Python int), 1.5 said missing."""
    path, _ = recorded
    odd = tmp_path / "odd.tsr"
    odd.write_bytes(path.read_bytes())
    with sqlite3.connect(odd) as db:
        db.execute("UPDATE manifest SET value = ? WHERE key = 'format_version'", (value,))
    with pytest.raises(TablesightError, match=rf"has format version {re.escape(value)} in its manifest"):
        Recording(odd)


def test_a_file_that_is_not_a_recording_is_refused(tmp_path):
    other = tmp_path / "notes.tsr"
    other.write_text("not a game")
    with pytest.raises(TablesightError, match="not a tablesight recording"):
        Recording(other)


def test_a_folder_or_a_missing_path_is_named_as_such(tmp_path):
    with pytest.raises(TablesightError, match="is a folder, not a recording"):
        Recording(tmp_path)
    with pytest.raises(TablesightError, match="does not exist"):
        Recording(tmp_path / "gone.tsr")


def test_kill_9_while_recording_loses_at_most_the_last_second(tmp_path):
    path = tmp_path / "killed.tsr"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "tests.tracker.recorded", str(path)], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "recording"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    recording = Recording(path)
    assert recording.frame_count() >= 12
    recording.close()
    result = replay(path, flat_pipeline)
    assert len(result.results) >= 12 and not result.stopped


def test_a_control_and_the_events_it_caused_are_committed_together(tmp_path):
    """Committing between a phase event and its control, then crashing, kept an event that
    replay could not give (CI caught it once in the kill -9 test). Every commit must leave the
    file with as many phase events as phase controls."""
    path = tmp_path / "together.tsr"
    manifest = {"ruleset": "world-at-fire", "table": {"width_cm": 183.0, "depth_cm": 122.0}}
    writer = RecordingWriter(path, manifest, commit_every_s=0.0)
    committed: list[tuple[int, int]] = []
    commit = writer.commit

    def commit_and_look() -> None:
        commit()
        with contextlib.closing(sqlite3.connect(path)) as reader:
            events = reader.execute("SELECT count(*) FROM events WHERE kind = 'phase'").fetchone()[0]
            controls = reader.execute("SELECT count(*) FROM controls WHERE action = 'phase'").fetchone()[0]
        committed.append((events, controls))

    writer.commit = commit_and_look
    runner = GameRunner(flat_pipeline(), Game(log=writer.add_event), writer=writer,
                        policy=RecordPolicy(mode="every"))
    frames = game_frames()
    for index in range(3):
        runner.step(Frame(frames[index].image, index, index * 0.04, f"f{index}"))
        runner.control("phase", {"to": "next"})
    writer.close()
    assert committed[-1] == (3, 3)
    assert all(events == controls for events, controls in committed), committed


def test_a_pipe_given_as_a_recording_is_named_as_such(tmp_path):
    """A named pipe was said not to exist."""
    pipe = tmp_path / "game.tsr"
    os.mkfifo(pipe)
    with pytest.raises(TablesightError, match="is not a regular file"):
        Recording(pipe)


def test_a_recording_into_a_folder_not_made_yet_is_made_there(tmp_path):
    """As every other output of the CLI (`record -o games/today/g.tsr`); a file standing where a
    folder goes is said in one line."""
    manifest = {"ruleset": "world-at-fire", "table": {"width_cm": 183.0, "depth_cm": 122.0}}
    path = tmp_path / "games" / "today" / "g.tsr"
    RecordingWriter(path, manifest).close()
    assert Recording(path).manifest["ruleset"] == "world-at-fire"
    (tmp_path / "photo.jpg").write_bytes(b"")
    with pytest.raises(TablesightError, match=r"photo\.jpg is a file, not a folder"):
        RecordingWriter(tmp_path / "photo.jpg" / "g.tsr", manifest)
