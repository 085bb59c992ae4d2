"""A damaged recording on the phones' Replay tab: it must not pass for a shorter, whole game."""

from __future__ import annotations

import sqlite3

from tracker.replay import game_report
from tracker.session import DEMO_RECORDING
from webui.report import report_context, timeline


def test_the_timeline_carries_where_the_replay_stopped_and_what_was_refused():
    report = {"turns": [], "stopped": "stopped after frame 11 (12 frames read): the file is damaged there",
              "problems": ["frame 4: phase refused: no such phase"]}
    shown = timeline(report, "cut.tsr")
    assert shown["stopped"].startswith("stopped after frame 11")
    assert shown["problems"] == ["frame 4: phase refused: no such phase"]
    assert report_context(report, "cut.tsr")["stopped"] == shown["stopped"]
    whole = timeline({"turns": []}, "whole.tsr")
    assert (whole["stopped"], whole["problems"]) == ("", [])


def test_a_recording_damaged_before_its_frames_says_so_in_its_report(tmp_path):
    game = tmp_path / "cut.tsr"
    game.write_bytes(DEMO_RECORDING.read_bytes())
    with sqlite3.connect(game) as db:
        db.execute("UPDATE frames SET jpeg = x'00' WHERE idx = (SELECT MIN(idx) FROM frames)")
    report = game_report(game)
    stopped = timeline(report, game.name)["stopped"]
    assert stopped == "stopped before its first frame: frame 0 is not a readable JPEG"
    assert report["problems"] == []
