"""A recording whose frames table is empty: `replay` printed "0 frames, ..." and exited 0 (or 1,
blaming "a detector of another version" where its events were kept) with a 0-frame report, and
`track` exited 0 having printed nothing. A folder with no image exits 2 and says so; so does such
a recording now, and a replay of it writes no report."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rules_core.errors import TablesightError
from tracker.cli import main
from tracker.replay import game_report
from tracker.session import DEMO_RECORDING


def _demo_without_frames(tmp_path: Path, *more: str) -> Path:
    path = tmp_path / "empty.tsr"
    path.write_bytes(DEMO_RECORDING.read_bytes())
    with sqlite3.connect(path) as db:
        for sql in ("DELETE FROM frames", *more):
            db.execute(sql)
    return path


@pytest.mark.parametrize("command", ["track", "replay"])
@pytest.mark.parametrize("more", [(), ("DELETE FROM events", "DELETE FROM controls")])
def test_a_recording_with_no_frame_exits_2_from_track_and_replay_and_says_it_was_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, more: tuple[str, ...]
) -> None:
    empty = _demo_without_frames(tmp_path, *more)
    assert main([command, str(empty), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"tablesight {command}: {empty} holds no frame to {command}: ")
    assert "the file is damaged or was edited by hand" in err and "use another copy of the recording" in err


def test_replay_of_a_recording_with_no_frame_writes_no_report_and_keeps_an_existing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _demo_without_frames(tmp_path)
    new = tmp_path / "new.json"
    assert main(["replay", str(empty), "--report", str(new)]) == 2
    assert not new.exists()
    kept = tmp_path / "kept.json"
    kept.write_text('{"recording": "game.tsr", "frames": 32, "events": []}')
    assert main(["replay", str(empty), "--report", str(kept)]) == 2
    assert kept.read_text() == '{"recording": "game.tsr", "frames": 32, "events": []}'
    assert "holds no frame to replay" in capsys.readouterr().err


def test_record_from_a_recording_with_no_frame_exits_2_and_keeps_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _demo_without_frames(tmp_path)
    output = tmp_path / "again.tsr"
    assert main(["record", "--source", str(empty), "--layout", "183x122", "-o", str(output)]) == 2
    assert not output.exists()
    assert capsys.readouterr().err.startswith(f"tablesight record: {empty} holds no frame to record: ")


def test_a_session_stopped_before_its_first_frame_is_not_called_edited(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`serve` keeps a file holding only a player's setting given before the camera's first
    frame (test_session): nothing was lost from it, so it is not called damaged."""
    early = _demo_without_frames(tmp_path, "DELETE FROM events", "DELETE FROM controls")
    with sqlite3.connect(early) as db:
        db.execute("INSERT INTO controls (frame, action, payload) VALUES (-1, 'phase', '{\"to\": \"next\"}')")
    assert main(["replay", str(early)]) == 2
    err = capsys.readouterr().err
    assert f"{early} holds no frame to replay: it was stopped before its first frame was kept" in err
    assert "edited" not in err


def test_the_web_uis_report_of_a_recording_with_no_frame_is_refused_not_a_game_of_0_frames(
    tmp_path: Path,
) -> None:
    with pytest.raises(TablesightError, match="holds no frame to replay: its frames were deleted or lost"):
        game_report(_demo_without_frames(tmp_path))
