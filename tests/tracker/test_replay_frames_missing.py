"""A recording with its last frames deleted but its events kept replayed to fewer events, and
`replay` blamed "a detector of another version". The events it does replay agree with the
recorded ones; the recorded ones go on to frames the file no longer holds, and that is said.

A control given after the last frame kept carries a later frame (the one it followed, which the
"stills" policy need not keep), so events past the last frame alone prove nothing: only those at
a frame no control was given at, which only a frame could have made, are taken for missing ones.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hardware.source import Frame
from tests.tracker.flat import flat_pipeline, game_frames
from tests.tracker.recorded import MANIFEST, record_flat_game
from tracker.cli import main
from tracker.game import Game
from tracker.recording import RecordingWriter
from tracker.replay import replay
from tracker.runner import GameRunner, RecordPolicy
from tracker.session import DEMO_RECORDING


def _demo(tmp_path: Path, *edits: str) -> Path:
    path = tmp_path / "game.tsr"
    path.write_bytes(DEMO_RECORDING.read_bytes())
    with sqlite3.connect(path) as db:
        for sql in edits:
            db.execute(sql)
    return path


def test_a_recording_cut_after_frame_2_with_its_events_kept_says_frames_are_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = _demo(tmp_path, "DELETE FROM frames WHERE idx > 2")
    assert main(["replay", str(cut)]) == 1
    err = capsys.readouterr().err
    assert (
        f"tablesight replay: {cut} does not replay to the events it recorded: they go on past its last "
        "frame (frame 2) to frame 37, so frames are missing from it (cut or edited); up to frame 2 they "
        "agree\n"
    ) in err
    assert "detector" not in err


def test_a_replay_that_differs_within_its_frames_still_blames_the_detector(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Frames cut too, but a recorded event before the cut differs: not the cut's doing."""
    edited = _demo(
        tmp_path,
        "DELETE FROM frames WHERE idx > 2",
        "UPDATE events SET detail = 'm1 appeared at (31.0, 30.0)' WHERE seq = (SELECT MIN(seq) FROM events)",
    )
    assert main(["replay", str(edited)]) == 1
    err = capsys.readouterr().err
    assert "a tablesight of another version would explain it" in err and "missing" not in err


def test_a_whole_cut_demo_replays_to_its_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cut with its events and controls (as test_replay_nothing_replayed does): nothing missing."""
    whole = _demo(
        tmp_path,
        "DELETE FROM frames WHERE idx > 2",
        "DELETE FROM events WHERE frame > 2",
        "DELETE FROM controls WHERE frame > 1",
    )
    assert main(["replay", str(whole)]) == 0
    assert capsys.readouterr().err == "tablesight replay: 2 frames, the same events as recorded\n"


@pytest.mark.parametrize("policy", [RecordPolicy(), RecordPolicy(mode="every", every=2)])
def test_the_flat_test_games_replay_with_no_frame_missing(tmp_path: Path, policy: RecordPolicy) -> None:
    path = tmp_path / "flat.tsr"
    record_flat_game(path, policy)
    assert replay(path, flat_pipeline).frames_missing() is None


def _game_with_a_control_after_its_last_kept_frame(path: Path) -> int:
    """The flat game, then settled frames the "stills" policy does not keep, then a phase ended:
    the control carries the last of them. Returns that frame."""
    writer = RecordingWriter(path, MANIFEST)
    runner = GameRunner(flat_pipeline(), Game(log=writer.add_event), writer=writer, policy=RecordPolicy())
    frames = game_frames()
    for frame in frames:
        runner.step(frame)
    last = frames[-1]
    for later in range(1, 4):
        runner.step(Frame(last.image, last.index + later, last.timestamp_s + later * 0.2, f"frame_{later}"))
    runner.control("phase", {"to": "next"})
    writer.close()
    return last.index + 3


def test_a_control_after_the_last_kept_frame_is_not_taken_for_missing_frames(tmp_path: Path) -> None:
    path = tmp_path / "late.tsr"
    followed = _game_with_a_control_after_its_last_kept_frame(path)
    outcome = replay(path, flat_pipeline)
    assert outcome.results[-1].frame < followed
    assert [e["frame"] for e in outcome.recorded_events][-1] == followed
    assert outcome.events_match and outcome.frames_missing() is None
    # Its event told differently (as another detector's verdicts might be) is no missing frame either.
    with sqlite3.connect(path) as db:
        db.execute("UPDATE events SET detail = 'changed' WHERE seq = (SELECT MAX(seq) FROM events)")
    outcome = replay(path, flat_pipeline)
    assert not outcome.events_match and outcome.frames_missing() is None
