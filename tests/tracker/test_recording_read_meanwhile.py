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
    assert [frame.name for frame in Recording(path).frames()] == ["f0", "f1", "f2"]
