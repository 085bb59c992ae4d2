"""A pulled plug and a full disk while a game is being recorded.

The recorder runs in a forked child (the same code a live session runs: a GameRunner with a
RecordingWriter at its default commit interval) and reports each frame it has taken, with the
time, through a pipe. The parent kills it with SIGKILL at a random moment, then checks what a
player would: the file opens, the frames older than a second are all there, and a replay
gives the recorded events up to the last frame kept. TABLESIGHT_SOAK=1 kills it 50 times.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import signal
import time
from pathlib import Path

import pytest

from hardware.source import Frame
from rules_core.errors import TablesightError
from tests.tracker.flat import flat_pipeline, game_frames
from tracker.game import Game
from tracker.recording import Recording, RecordingWriter
from tracker.replay import replay
from tracker.runner import GameRunner, RecordPolicy
from tracker.session import TableSession

KILLS = 50 if os.environ.get("TABLESIGHT_SOAK") else 8
FRAME_S = 0.04
# "The last second" (the commit interval), a frame either side, and a slow fsync on a busy disk.
LOSS_ALLOWED_S = 1.0 + 2 * FRAME_S + 0.25
MANIFEST = {"ruleset": "world-at-fire", "table": {"width_cm": 183.0, "depth_cm": 122.0}}
CONTROLS = [("assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": "infantry"}),
            ("phase", {"to": "next"}), ("phase", {"to": "next"}), ("next_turn", {})]


def in_child(work, *args) -> tuple[int, int]:
    """Fork; the child runs `work(write, *args)` and never returns into pytest."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        code = 0
        try:
            work(lambda line: os.write(write_end, (line + "\n").encode()), *args)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def record_until_killed(write, path: Path) -> None:
    writer = RecordingWriter(path, MANIFEST)
    runner = GameRunner(flat_pipeline(), Game(log=writer.add_event), writer=writer,
                        policy=RecordPolicy(mode="every"))
    frames = game_frames()
    for index in range(100_000):
        runner.step(Frame(frames[index % len(frames)].image, index, index * FRAME_S, f"f{index}"))
        if index % 9 == 4:
            action, payload = CONTROLS[(index // 9) % len(CONTROLS)]
            with contextlib.suppress(TablesightError):  # e.g. next_turn before the last phase
                runner.control(action, payload)
        write(f"{index} {time.monotonic()}")
        time.sleep(FRAME_S / 2)


def taken_frames(read_end: int) -> list[tuple[int, float]]:
    with os.fdopen(read_end) as lines:
        return [(int(a), float(b)) for a, b in (line.split() for line in lines if line.count(" ") == 1)]


def test_kill_9_at_random_moments_loses_at_most_the_last_second(tmp_path):
    rng = random.Random(8)
    worst_loss = 0.0
    for attempt in range(KILLS):
        path = tmp_path / f"killed-{attempt}.tsr"
        pid, read_end = in_child(record_until_killed, path)
        time.sleep(rng.uniform(0.2, 2.5))
        killed_at = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        taken = taken_frames(read_end)
        if not path.exists():
            assert not taken, "frames were taken but the file is missing"
            continue
        recording = Recording(path)  # opens every time: nothing to repair by hand
        kept = [frame.index for frame in recording.frames()]
        assert not recording.stopped, recording.stopped
        assert kept == list(range(len(kept))), "frames are kept in order with no holes"
        older = [index for index, t in taken if t <= killed_at - LOSS_ALLOWED_S]
        assert len(kept) >= len(older), (attempt, len(kept), len(older))
        if kept:
            kept_at = dict(taken).get(kept[-1], killed_at)
            worst_loss = max(worst_loss, killed_at - kept_at)
        recorded = [e for e in recording.events if e["frame"] <= (kept[-1] if kept else -1)]
        recording.close()
        replayed = replay(path, lambda manifest: flat_pipeline())
        assert not replayed.stopped and not replayed.problems, replayed.problems
        comparable = [(e["frame"], e["turn"], e["phase"], e["kind"], e["detail"]) for e in replayed.events]
        assert comparable[: len(recorded)] == [
            (e["frame"], e["turn"], e["phase"], e["kind"], e["detail"]) for e in recorded]
    assert worst_loss <= LOSS_ALLOWED_S + 0.5  # the kill lands between frames: one more frame at most


def record_onto_a_full_disk(write, path: Path, limit_bytes: int) -> None:
    """A live session recording while the disk fills: it must say so and play on."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # then a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    writer = RecordingWriter(path, MANIFEST, commit_every_s=0.0)
    frames = game_frames()
    said: list[str] = []
    holder: list[TableSession] = []

    class Camera:
        description, live = "test camera", False

        def __init__(self) -> None:
            self.count = 0

        def read(self):
            self.count += 1
            if self.count == 80:  # what the players' phones show while the game goes on
                said.append(holder[0].state()["status"]["message"])
            source = frames[self.count % len(frames)]
            return None if self.count > 80 else Frame(source.image, self.count, self.count * 0.2, "f")

        def close(self) -> None:
            pass

    session = TableSession(Camera, lambda: GameRunner(flat_pipeline(), Game(log=writer.add_event),
                                                       writer=writer, policy=RecordPolicy(mode="every")),
                           description="test camera", on_close=writer.close)
    holder.append(session)
    session.start()
    session._thread.join(60)
    state = session.state()
    write(json.dumps({"message": said[0], "camera": state["status"]["camera"],
                      "frame": session.runner.last_result.frame, "written": writer.frames_written,
                      "models": len(state["models"])}))
    session.stop()


def test_a_full_disk_stops_the_recording_clearly_and_keeps_what_was_written(tmp_path):
    path = tmp_path / "full.tsr"
    pid, read_end = in_child(record_onto_a_full_disk, path, 160_000)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    reported = json.loads(taken_frames_raw(read_end))
    assert "is the disk full" in reported["message"] and str(path) in reported["message"]
    assert reported["frame"] == 80 and reported["camera"] == "ended"  # the game played to the end
    assert 0 < reported["written"] < 80 and reported["models"] == 4
    recording = Recording(path)
    kept = [frame.index for frame in recording.frames()]
    assert not recording.stopped and len(kept) == reported["written"]
    recording.close()
    assert not replay(path, lambda manifest: flat_pipeline()).stopped


def taken_frames_raw(read_end: int) -> str:
    with os.fdopen(read_end) as lines:
        return lines.read()


def test_the_writer_raises_once_then_ignores_and_closes_cleanly(tmp_path):
    def work(write, path):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
        writer = RecordingWriter(path, MANIFEST, commit_every_s=0.0)
        errors = []
        for index in range(40):
            try:
                writer.add_frame(index, index * 0.2, "f", os.urandom(8000))
            except TablesightError as error:
                errors.append(str(error))
        writer.close()
        write(json.dumps({"errors": errors, "written": writer.frames_written}))

    path = tmp_path / "tiny.tsr"
    pid, read_end = in_child(work, path)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    reported = json.loads(taken_frames_raw(read_end))
    assert len(reported["errors"]) == 1 and "disk full" in reported["errors"][0]
    recording = Recording(path)
    assert recording.frame_count() == reported["written"] > 0
    recording.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a real tmpfs needs root (CI runs as root)")
def test_a_real_full_tmpfs(tmp_path):
    mount = tmp_path / "tiny"
    mount.mkdir()
    assert os.system(f"mount -t tmpfs -o size=256k tmpfs {mount}") == 0
    try:
        writer = RecordingWriter(mount / "game.tsr", MANIFEST, commit_every_s=0.0)
        with pytest.raises(TablesightError, match="disk full"):
            for index in range(1000):
                writer.add_frame(index, index * 0.2, "f", os.urandom(8000))
        writer.close()
        recording = Recording(mount / "game.tsr")
        assert recording.frame_count() == writer.frames_written > 0
        recording.close()
    finally:
        os.system(f"umount {mount}")
