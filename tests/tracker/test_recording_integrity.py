"""Recordings as session 63's blind exam left them (D1, D4, D5, D7, m3): a replay only reads
its recording, also one in a folder the user cannot write; a frame and its events are kept
whole or not at all; a disk full at the first frame leaves no file; a report folder that
refuses files is said before the replay."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rules_core.errors import TablesightError
from tests.demo_files import demo_stills
from tests.tracker.flat import flat_pipeline, game_frames
from tests.tracker.recorded import CONTROLS
from tests.tracker.test_bad_paths import NO_CAPS, needs_no_caps
from tracker.cli import main
from tracker.game import Game
from tracker.recording import Recording, RecordingWriter, encode_jpeg
from tracker.runner import GameRunner, RecordPolicy
from tracker.session import DEMO_RECORDING

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = {"ruleset": "world-at-fire", "table": {"width_cm": 183.0, "depth_cm": 122.0}}


def _unclosed(folder: Path, merged: bool = False) -> Path:
    """What a kill -9 or a full disk leaves, copied into `folder` as a user copies it: the
    recording still in WAL mode with its game in the -wal beside it or, `merged`, with its log
    already folded into the file by an earlier reader (the header still says WAL mode)."""
    live = folder.parent / f"{folder.name}-live"
    live.mkdir()
    writer = RecordingWriter(live / "game.tsr", MANIFEST)
    jpeg = encode_jpeg(np.full((48, 64, 3), 90, np.uint8), 85)
    for index in range(3):
        writer.add_frame(index, index * 0.2, f"f{index}", jpeg)
        writer.add_event({"frame": index, "t": index * 0.2, "turn": 1, "phase": "movement", "kind": "moved",
                          "detail": f"m{index}", "data": {}})
    writer.commit()
    folder.mkdir()
    shutil.copy(live / "game.tsr", folder)
    shutil.copy(live / "game.tsr-wal", folder)
    writer.close()
    path = folder / "game.tsr"
    if merged:
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert sorted(p.name for p in folder.iterdir()) == ["game.tsr"]
    assert path.read_bytes()[18:20] == b"\x02\x02"
    return path


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("merged", [False, True], ids=["with-its-wal", "log-folded-in"])
def test_reading_a_recording_left_in_wal_mode_changes_nothing_beside_it(tmp_path, merged):
    """A replay folded the -wal into the recording (10.1 -> 12.7 MB) and deleted it and the
    -shm; run as another user it left a -shm of that user's beside the recording."""
    path = _unclosed(tmp_path / "games", merged)
    before = _files(path.parent)
    recording = Recording(path)
    assert recording.frame_count() == 3
    assert [e["detail"] for e in recording.events] == ["m0", "m1", "m2"]
    assert [f.name for f in recording.frames()] == ["f0", "f1", "f2"]
    recording.close()
    assert _files(path.parent) == before


def test_reading_a_closed_recording_changes_nothing_beside_it(tmp_path):
    path = tmp_path / "game.tsr"
    shutil.copy(DEMO_RECORDING, path)
    before = _files(tmp_path)
    recording = Recording(path)
    assert recording.frame_count() > 0 and len(list(recording.frames())) == recording.frame_count()
    recording.close()
    assert _files(tmp_path) == before


READ = ("import sys; from tracker.recording import Recording; r = Recording(sys.argv[1]); "
        "print(r.frame_count(), len(r.events), len(list(r.frames())))")


@needs_no_caps
@pytest.mark.parametrize("merged", [False, True], ids=["with-its-wal", "log-folded-in"])
def test_a_recording_left_in_wal_mode_reads_from_a_folder_the_user_cannot_write(tmp_path, merged):
    """A read-only SD card, another user's folder: "damaged beyond its header (unable to open
    database file). nothing in it can be replayed", or the -wal that is not there to copy."""
    path = _unclosed(tmp_path / "games", merged)
    before = _files(path.parent)
    path.parent.chmod(0o555)
    prefix = NO_CAPS if os.geteuid() == 0 else []  # root obeying the folder's mode
    try:
        done = subprocess.run([*prefix, sys.executable, "-c", READ, str(path)], cwd=ROOT, capture_output=True,
                              text=True, timeout=120, check=False)
    finally:
        path.parent.chmod(0o755)
    assert (done.returncode, done.stdout, done.stderr) == (0, "3 3 3\n", "")
    assert _files(path.parent) == before


def test_a_recording_another_program_holds_locked_is_not_called_damaged(tmp_path):
    path = tmp_path / "game.tsr"
    shutil.copy(DEMO_RECORDING, path)
    with contextlib.closing(sqlite3.connect(path)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(TablesightError) as refused:
            Recording(path)
        holder.rollback()
    message = str(refused.value)
    assert message.startswith(f"cannot read {path} (database is locked): another program holds it locked")
    assert "damaged" not in message and "-wal" not in message


def test_a_damaged_closed_recording_is_not_told_of_a_wal_file(tmp_path, capsys):
    """A recording closed by its recorder never had a -wal file to copy with it."""
    damaged = tmp_path / "damaged.tsr"
    shutil.copy(DEMO_RECORDING, damaged)
    with contextlib.closing(sqlite3.connect(damaged)) as db, db:
        db.execute("UPDATE frames SET jpeg = x'00ff00' WHERE idx = (SELECT MIN(idx) FROM frames)")
    assert main(["replay", str(damaged)]) == 2  # it replayed nothing
    err = capsys.readouterr().err
    assert "stopped before its first frame" in err and "copy it again.\n" in err and "-wal" not in err


def test_an_interrupt_between_a_frames_events_and_its_row_keeps_neither(tmp_path):
    """Ctrl-C after game.observe logged frame 5's two moves and before its frame row: close()
    committed the moves without their frame, and the replay blamed the detector."""
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST, commit_every_s=3600.0)  # nothing committed before close
    game = Game(log=writer.add_event)
    runner = GameRunner(flat_pipeline(), game, writer=writer, policy=RecordPolicy(mode="every"))
    add_frame = writer.add_frame

    def interrupted_at_5(index, *args):
        if index == 5:
            raise KeyboardInterrupt
        add_frame(index, *args)

    writer.add_frame = interrupted_at_5
    with pytest.raises(KeyboardInterrupt):
        for frame in game_frames():
            runner.step(frame)
            for action, payload in CONTROLS.get(frame.index, []):
                runner.control(action, payload)
    assert [e["kind"] for e in game.events if e["frame"] == 5] == ["moved", "moved"]  # logged live
    writer.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        frames = [row[0] for row in db.execute("SELECT idx FROM frames ORDER BY idx")]
        events = [tuple(row) for row in db.execute("SELECT frame, kind FROM events ORDER BY seq")]
    assert frames == [0, 1, 2, 3, 4], "the frames before the interrupt are all kept"
    assert events == [(e["frame"], e["kind"]) for e in game.events if e["frame"] < 5]
    assert (writer.frames_written, writer.events_written) == (5, len(events))


@pytest.fixture
def stills(tmp_path: Path) -> Path:
    """The demo game's layout and its first frames as a folder of stills."""
    return demo_stills(tmp_path, 3)


def test_record_interrupted_mid_frame_keeps_the_frames_before_it_whole_and_exits_130(stills, capsys,
                                                                                    monkeypatch):
    game = stills / "game.tsr"
    add_frame = RecordingWriter.add_frame

    def interrupted_at_1(self, index, *args):
        if index == 1:
            raise KeyboardInterrupt
        add_frame(self, index, *args)

    monkeypatch.setattr(RecordingWriter, "add_frame", interrupted_at_1)
    argv = ["record", "--source", str(stills / "frames"), "--layout", str(stills / "layout.json"),
            "--every", "1", "-o", str(game)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    with contextlib.closing(sqlite3.connect(f"file:{game}?mode=ro", uri=True)) as db:
        frames = [row[0] for row in db.execute("SELECT idx FROM frames")]
        events = db.execute("SELECT count(*), max(frame) FROM events").fetchone()
    assert frames == [0] and events[1] == 0
    assert err.splitlines() == ["tablesight record: stopped by the user.",
                                f"tablesight record: 1 of 2 frames and {events[0]} events in {game}"]


def _record_stills(stills: Path) -> list[str]:
    return ["record", "--source", str(stills / "frames"), "--layout", str(stills / "layout.json"),
            "--every", "1", "-o", str(stills / "game.tsr")]


def test_record_interrupted_while_its_first_frame_calibrates_blames_no_marker(stills, capsys, monkeypatch):
    """A stop that lands while the first frame is still being calibrated (a quick Ctrl-C) is a
    stop, not a table whose markers were never found: `record` said "no markers found ... put
    the markers in view" and exited 2."""
    from tracker.pipeline import Pipeline

    def interrupted(self, image):
        raise KeyboardInterrupt

    monkeypatch.setattr(Pipeline, "_calibrate", interrupted)
    assert main(_record_stills(stills)) == 130
    game = stills / "game.tsr"
    said = ["tablesight record: stopped by the user.",
            f"tablesight record: no frame recorded, so {game} was not kept"]
    assert capsys.readouterr().err.splitlines() == said


def test_record_interrupted_just_after_its_first_frame_calibrated_is_a_stop(stills, capsys, monkeypatch):
    """The stop landed after frame 0 was calibrated and kept, before the loop noted the
    calibration (a loaded machine, SIGHUP): the game was said never calibrated, exit 2."""
    step = GameRunner.step

    def stopped_after_0(self, frame):
        step(self, frame)
        if frame.index == 0:
            raise KeyboardInterrupt

    monkeypatch.setattr(GameRunner, "step", stopped_after_0)
    assert main(_record_stills(stills)) == 130
    err = capsys.readouterr().err
    assert err.startswith("tablesight record: stopped by the user.\ntablesight record: 1 of 1 frames")
    assert "markers" not in err and "Traceback" not in err


# `tablesight` with a commit after every frame, so where a small disk fills up does not depend on
# how fast the machine runs the pipeline.
EVERY_FRAME_COMMITTED = (
    "import sys; from tracker import recording\n"
    "opened = recording.RecordingWriter.__init__\n"
    "def every_frame(self, path, manifest, commit_every_s=1.0): opened(self, path, manifest, 0.0)\n"
    "recording.RecordingWriter.__init__ = every_frame\n"
    "from tracker.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _record_on_a_small_disk(stills: Path, output: str, limit: int) -> subprocess.CompletedProcess[str]:
    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    argv = ["record", "--source", "frames", "--layout", "layout.json", "--every", "1", "-o", output]
    return subprocess.run([sys.executable, "-c", EVERY_FRAME_COMMITTED, *argv], cwd=stills,
                          capture_output=True, text=True, timeout=300, check=False, preexec_fn=small_disk,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_disk_full_at_the_first_frame_leaves_no_file_so_the_same_command_works_again(stills):
    """It kept g.tsr, -wal and -shm with no frame and no event ("0 of 0 frames and 24 events"),
    and the same command run again said "already exists"."""
    done = _record_on_a_small_disk(stills, "full.tsr", 100_000)  # the manifest fits, a frame does not
    assert done.returncode == 2, done.stderr
    summary, error = done.stderr.splitlines()
    assert summary == "tablesight record: no frame recorded, so full.tsr was not kept"
    assert error.startswith("tablesight record: recording full.tsr stopped before its first frame (")
    assert error.endswith("; is the disk full?). free some disk space and record again.")
    assert not list(stills.glob("full.tsr*"))
    (stills / "frames" / "f0001.jpg").unlink()
    (stills / "frames" / "f0002.jpg").unlink()
    again = _record_on_a_small_disk(stills, "full.tsr", resource.RLIM_INFINITY)
    assert again.returncode == 0, again.stderr
    assert Recording(stills / "full.tsr").frame_count() == 1


def test_a_disk_full_part_way_counts_what_the_file_holds(stills):
    """The summary said 36 events where the file held 35: the game in memory, not the file."""
    done = _record_on_a_small_disk(stills, "part.tsr", 450_000)  # one or two frames fit, not three
    assert done.returncode == 2, done.stderr
    recording = Recording(stills / "part.tsr")
    frames, events = recording.frame_count(), len(recording.events)
    recording.close()
    assert 0 < frames < 3
    summary = re.compile(rf"tablesight record: {frames} of [23] frames and {events} events in part\.tsr")
    assert any(summary.fullmatch(line) for line in done.stderr.splitlines()), done.stderr


@needs_no_caps
def test_a_report_folder_the_user_cannot_write_is_refused_before_the_replay(tmp_path):
    """It was refused only after the whole replay: minutes for a real game."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    script = ("import sys; import tracker.replay as r\n"
              "def replayed(*args, **kwargs): sys.exit('replayed')\n"
              "r.replay = replayed\n"
              "from tracker.cli import main; sys.exit(main(sys.argv[1:]))")
    prefix = NO_CAPS if os.geteuid() == 0 else []
    try:
        argv = ["replay", str(DEMO_RECORDING), "--report", str(locked / "r.json")]
        done = subprocess.run([*prefix, sys.executable, "-c", script, *argv], cwd=ROOT, capture_output=True,
                              text=True, timeout=120, check=False)
    finally:
        locked.chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"tablesight replay: --report {locked / 'r.json'} cannot be written: {locked} "
                           "refuses a new file (Permission denied). give --report a path in a folder you can "
                           "write to.\n")
    assert list(locked.iterdir()) == []


def test_a_report_into_a_stream_is_not_probed_beside_it():
    """/dev/stdout is written into: the folder it is in is not asked for a new file."""
    from tracker.track_cli import _report_path

    assert _report_path("/dev/stdout", str(DEMO_RECORDING)) == Path("/dev/stdout")
