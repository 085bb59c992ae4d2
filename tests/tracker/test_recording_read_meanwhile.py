"""A recording another program has open (sqlite3, a database browser) when its recorder closes it.

SQLite refuses to leave WAL mode at once (SQLITE_BUSY, no waiting) while any other connection is
open, and the recorder took that for a failed write: "stopped after N frames (database is
locked; is the disk full?)", exit 2, "free some disk space and record anew", for a game whole on
disk.
"""

from __future__ import annotations

import sqlite3

import numpy as np

import tracker.recording
from tests.tracker.test_recording_integrity import MANIFEST
from tracker.recording import Recording, RecordingWriter, encode_jpeg


def test_a_reader_open_at_the_close_does_not_fail_the_recording(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tracker.recording, "FOLD_WAIT_S", 0.3, raising=False)
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST)
    jpeg = encode_jpeg(np.full((48, 64, 3), 90, np.uint8), 85)
    for index in range(3):
        writer.add_frame(index, index * 0.2, f"f{index}", jpeg)
    writer.commit()
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert reader.execute("SELECT count(*) FROM frames").fetchone() == (3,)
        writer.close()
    finally:
        reader.close()
    assert not writer.error and writer.frames_written == 3
    assert writer.log_left_beside  # the recorder says to keep game.tsr-wal with it
    assert [frame.name for frame in Recording(path).frames()] == ["f0", "f1", "f2"]


def test_a_recording_closed_alone_is_one_file(tmp_path) -> None:
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST)
    writer.add_frame(0, 0.0, "f0", encode_jpeg(np.full((48, 64, 3), 90, np.uint8), 85))
    writer.close()
    assert not writer.log_left_beside
    assert not (tmp_path / "game.tsr-wal").exists()


def test_the_recorder_says_to_keep_the_log_beside_it(tmp_path, monkeypatch, capsys) -> None:
    from tracker.track_cli import _close_recording

    monkeypatch.setattr(tracker.recording, "FOLD_WAIT_S", 0.3)
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST)
    writer.add_frame(0, 0.0, "f0", encode_jpeg(np.full((48, 64, 3), 90, np.uint8), 85))
    writer.commit()
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        reader.execute("SELECT count(*) FROM frames").fetchone()
        assert _close_recording(writer, str(path), 1) is None
    finally:
        reader.close()
    said = capsys.readouterr().err
    assert f"may still be in {path}-wal beside it: copy or move the two files together" in said
