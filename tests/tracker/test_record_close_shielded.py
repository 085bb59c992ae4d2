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


def recorded_stopped_twice(tmp_path: Path, monkeypatch, where: type, method: str, second: int) -> tuple:
    """`record` of four stills, nothing committed before the close, stopped by Ctrl-C after frame
    1 and by `second` again as `where.method` runs in the stopping. Its exit, frames kept, file."""
    stills = demo_stills(tmp_path, 4)
    game = stills / "game.tsr"
    opened, step, meant = RecordingWriter.__init__, GameRunner.step, getattr(where, method)

    def never_committed_before_close(self, path, manifest, commit_every_s=1.0):
        opened(self, path, manifest, 3600.0)

    def stopped_after_1(self, frame):
        step(self, frame)
        if frame.index == 1:
            raise KeyboardInterrupt

    def signalled_again(self):
        os.kill(os.getpid(), second)
        meant(self)

    monkeypatch.setattr(RecordingWriter, "__init__", never_committed_before_close)
    monkeypatch.setattr(GameRunner, "step", stopped_after_1)
    monkeypatch.setattr(where, method, signalled_again)
    argv = ["record", "--source", str(stills / "frames"), "--layout", str(stills / "layout.json"),
            "--every", "1", "-o", str(game)]
    status = main(argv)
    with contextlib.closing(sqlite3.connect(f"file:{game}?mode=ro", uri=True)) as db:
        frames = [row[0] for row in db.execute("SELECT idx FROM frames ORDER BY idx")]
    return status, frames, game


@pytest.mark.parametrize("second", SECOND, ids=[signal.Signals(s).name for s in SECOND])
def test_a_second_signal_while_record_closes_keeps_every_frame_before_the_first(
        tmp_path: Path, capsys, monkeypatch, second: int) -> None:
    # The second Ctrl-C lands in the close, before its commit.
    status, frames, game = recorded_stopped_twice(tmp_path, monkeypatch, RecordingWriter, "commit", second)
    assert (status, frames) == (130, [0, 1])
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "tablesight record: stopped by the user."
    assert err[1].startswith("tablesight record: 2 of 2 frames and ") and err[1].endswith(f" in {game}")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_ctrl_c_while_the_camera_closes_keeps_the_recording_whole(
        tmp_path: Path, capsys, monkeypatch) -> None:
    """The recording is closed before the camera, whose close (picamera2 stopping) takes a while
    and is where a second press most often lands."""
    status, frames, _ = recorded_stopped_twice(tmp_path, monkeypatch, FolderSource, "close", signal.SIGINT)
    assert (status, frames) == (130, [0, 1])
    assert "tablesight record: 2 of 2 frames and " in capsys.readouterr().err
