"""A recording damaged before its first frame: `track` exits 2 ("failed after 0 frames"), and
`replay` exited 1, the status of a replay that ran and warned (events that differ, a game cut
short part-way), though it replayed nothing. Nothing replayed is a replay that could not run
at all, so both exit 2 and say where the damage is; one damaged part-way still replays its
frames before the damage and exits 1."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tracker.cli import main
from tracker.session import DEMO_RECORDING


def _demo_with(tmp_path: Path, broken: str) -> Path:
    """The demo cut to its first three frames (the real pipeline, quickly), frame `broken` (SQL)
    not a JPEG."""
    path = tmp_path / "damaged.tsr"
    path.write_bytes(DEMO_RECORDING.read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM frames WHERE idx > 2")
        db.execute("DELETE FROM events WHERE frame > 2")
        db.execute("DELETE FROM controls WHERE frame > 1")
        db.execute(f"UPDATE frames SET jpeg = x'00ff00' WHERE idx = ({broken})")
    return path


@pytest.mark.parametrize("command", ["track", "replay"])
def test_a_recording_damaged_before_its_first_frame_exits_2_from_track_and_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    damaged = _demo_with(tmp_path, "SELECT MIN(idx) FROM frames")
    assert main([command, str(damaged), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"tablesight {command}: ")
    assert "stopped before its first frame: frame 0 is not a readable JPEG" in err


def test_replay_says_nothing_could_be_replayed_and_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = _demo_with(tmp_path, "SELECT MIN(idx) FROM frames")
    assert main(["replay", str(damaged)]) == 2
    assert capsys.readouterr().err == (
        f"tablesight replay: {damaged}: stopped before its first frame: frame 0 is not a readable JPEG. "
        "nothing past that can be read; if the file was copied from another machine, copy it again.\n"
    )


def test_a_replay_damaged_part_way_replays_up_to_it_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = _demo_with(tmp_path, "SELECT MAX(idx) FROM frames")
    report = tmp_path / "report.json"
    assert main(["replay", str(damaged), "--report", str(report)]) == 1
    assert json.loads(report.read_text())["frames"] == 1
    assert "stopped after frame 0 (1 frame read)" in capsys.readouterr().err


def test_a_recording_with_no_frame_and_damaged_events_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = _demo_with(tmp_path, "SELECT MIN(idx) FROM frames")
    with sqlite3.connect(damaged) as db:
        db.execute("DELETE FROM frames")
        db.execute("UPDATE events SET data = '{' WHERE seq = (SELECT MIN(seq) FROM events)")
    assert main(["replay", str(damaged)]) == 2
    assert capsys.readouterr().err == (
        f"tablesight replay: {damaged}: its events are damaged after 0 entries (entry 1 is cut off), and "
        "it holds no frame to replay. nothing past that can be read; if the file was copied from another "
        "machine, copy it again.\n"
    )


def test_track_of_a_recording_damaged_before_its_first_frame_does_not_say_frames_were_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = _demo_with(tmp_path, "SELECT MIN(idx) FROM frames")
    assert main(["track", str(damaged), "--json"]) == 2
    err = capsys.readouterr().err
    assert "were used" not in err and "no frame of it could be used; use another copy of the recording" in err


def test_track_of_a_recording_damaged_part_way_says_the_frames_before_were_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = _demo_with(tmp_path, "SELECT MAX(idx) FROM frames")
    assert main(["track", str(damaged), "--json"]) == 2
    assert "the frames before the damage were used" in capsys.readouterr().err


def test_a_replay_that_replayed_nothing_writes_no_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2 is a replay that could not run: a report of 0 frames beside it would read as a game
    of nothing, as for a recording whose frames were all deleted."""
    damaged = _demo_with(tmp_path, "SELECT MIN(idx) FROM frames")
    report = tmp_path / "new.json"
    assert main(["replay", str(damaged), "--report", str(report)]) == 2
    assert not report.exists()
    assert "stopped before its first frame" in capsys.readouterr().err
