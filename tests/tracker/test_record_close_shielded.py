"""A second Ctrl-C (or a SIGTERM) while `record` closes its file: players press Ctrl-C twice.

The first stop rolls back only the frame in flight; a second one that landed in the close broke
off its commit, so SQLite rolled back every frame since the last commit (up to a second of the
game) and no summary said what the file held.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
from pathlib import Path

import pytest

from hardware.folder import FolderSource
from tests.demo_files import demo_stills
from tracker.cli import main
from tracker.recording import RecordingWriter
from tracker.runner import GameRunner

SECOND = [signal.SIGINT, signal.SIGTERM]


@pytest.mark.parametrize("second", SECOND, ids=[signal.Signals(s).name for s in SECOND])
def test_a_second_signal_while_record_closes_keeps_every_frame_before_the_first(
        tmp_path: Path, capsys, monkeypatch, second: int) -> None:
    stills = demo_stills(tmp_path, 4)
    game = stills / "game.tsr"
    opened = RecordingWriter.__init__

    def never_committed_before_close(self, path, manifest, commit_every_s=1.0):
        opened(self, path, manifest, 3600.0)

    step = GameRunner.step

    def stopped_after_1(self, frame):
        step(self, frame)
        if frame.index == 1:
            raise KeyboardInterrupt

    commit = RecordingWriter.commit

    def signalled_again(self):
        os.kill(os.getpid(), second)  # the second Ctrl-C lands in the close, before its commit
        commit(self)

    monkeypatch.setattr(RecordingWriter, "__init__", never_committed_before_close)
    monkeypatch.setattr(GameRunner, "step", stopped_after_1)
    monkeypatch.setattr(RecordingWriter, "commit", signalled_again)
    argv = ["record", "--source", str(stills / "frames"), "--layout", str(stills / "layout.json"),
            "--every", "1", "-o", str(game)]
    assert main(argv) == 130
    with contextlib.closing(sqlite3.connect(f"file:{game}?mode=ro", uri=True)) as db:
        frames = [row[0] for row in db.execute("SELECT idx FROM frames ORDER BY idx")]
    assert frames == [0, 1]
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "tablesight record: stopped by the user."
    assert err[1].startswith("tablesight record: 2 of 2 frames and ") and err[1].endswith(f" in {game}")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_ctrl_c_while_the_camera_closes_keeps_the_recording_whole(
        tmp_path: Path, capsys, monkeypatch) -> None:
    """The recording is closed before the camera, whose close (picamera2 stopping) takes a while
    and is where a second press most often lands."""
    stills = demo_stills(tmp_path, 4)
    game = stills / "game.tsr"
    opened = RecordingWriter.__init__

    def never_committed_before_close(self, path, manifest, commit_every_s=1.0):
        opened(self, path, manifest, 3600.0)

    step = GameRunner.step

    def stopped_after_1(self, frame):
        step(self, frame)
        if frame.index == 1:
            raise KeyboardInterrupt

    close = FolderSource.close

    def signalled_again(self):
        os.kill(os.getpid(), signal.SIGINT)
        close(self)

    monkeypatch.setattr(RecordingWriter, "__init__", never_committed_before_close)
    monkeypatch.setattr(GameRunner, "step", stopped_after_1)
    monkeypatch.setattr(FolderSource, "close", signalled_again)
    argv = ["record", "--source", str(stills / "frames"), "--layout", str(stills / "layout.json"),
            "--every", "1", "-o", str(game)]
    assert main(argv) == 130
    with contextlib.closing(sqlite3.connect(f"file:{game}?mode=ro", uri=True)) as db:
        assert [row[0] for row in db.execute("SELECT idx FROM frames ORDER BY idx")] == [0, 1]
    assert "tablesight record: 2 of 2 frames and " in capsys.readouterr().err
