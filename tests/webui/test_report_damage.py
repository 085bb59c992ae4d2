"""A damaged recording on the phones' Replay tab: it must not pass for a shorter, whole game."""

from __future__ import annotations

import sqlite3

from tests.webui.conftest import SQLITE_HEADER
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


def test_the_replay_tab_says_a_recording_is_damaged(page, recordings_dir):
    """The timeline's `stopped` and `problems` reach the phone: a game cut short shows a warning
    above its timeline, and a whole one none."""
    (recordings_dir / "cut-game.tsr").write_bytes(SQLITE_HEADER + b"cut")
    page.click("[data-tab='replay']")
    page.click("#recordings button >> text=cut-game.tsr")
    page.wait_for_selector("#replay-damage:not([hidden])")
    warning = page.locator("#replay-damage").text_content()
    assert "damaged: it stopped after frame 99" in warning and "frame 60: phase refused" in warning
    page.click("#recordings button >> text=game-2026-11-29")
    page.wait_for_selector("#replay-damage", state="hidden")


def test_the_exported_report_says_a_recording_is_damaged(client, recordings_dir):
    (recordings_dir / "cut-game.tsr").write_bytes(SQLITE_HEADER + b"cut")
    html = client.get("/api/recordings/cut-game.tsr/report").get_data(as_text=True)
    assert "This recording is damaged: it stopped after frame 99" in html
    assert "Refused on the way: frame 60: phase refused" in html
    whole = client.get("/api/recordings/game-2026-11-29/report").get_data(as_text=True)
    assert "damaged" not in whole
