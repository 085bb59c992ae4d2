"""Frames damaged where libjpeg does not complain (the blind check's bit flips: 6 of 12 decoded
without a word): each frame of a new recording carries a checksum of its JPEG, and a frame that
does not match it ends the frames there, as a truncation does, so what replays is an exact prefix."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest

import tracker.replay
from calibration.imagefile import decode_checked
from rules_core.errors import TablesightError
from tests.tracker.flat import flat_pipeline
from tracker.cli import main
from tracker.recording import FORMAT_VERSION, Recording, RecordingSource
from tracker.replay import replay


def _silently_flipped(jpeg: bytes) -> bytes:
    """The JPEG with one bit of its image data flipped where it still decodes, libjpeg says
    nothing and the picture differs: damage only a checksum finds."""
    clean, _ = decode_checked(np.frombuffer(jpeg, np.uint8))
    for offset in range(len(jpeg) // 2, len(jpeg) - 2):
        flipped = bytearray(jpeg)
        flipped[offset] ^= 0x10
        image, said = decode_checked(np.frombuffer(bytes(flipped), np.uint8))
        if image is not None and not said and not np.array_equal(image, clean):
            return bytes(flipped)
    raise AssertionError("no silent flip found")


def _flip_frame(source: Path, target: Path, which: str) -> int:
    """A copy of `source` with frame `which` (SQL) flipped silently; its index."""
    shutil.copy(source, target)
    with contextlib.closing(sqlite3.connect(target)) as db, db:
        index, jpeg = db.execute(f"SELECT idx, jpeg FROM frames WHERE idx = ({which})").fetchone()
        db.execute("UPDATE frames SET jpeg = ? WHERE idx = ?", (_silently_flipped(jpeg), index))
    return index


def test_a_new_recording_keeps_a_checksum_of_every_frame(flat_recorded):
    with contextlib.closing(sqlite3.connect(f"file:{flat_recorded}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT jpeg, crc FROM frames").fetchall()
        version = db.execute("SELECT value FROM manifest WHERE key = 'format_version'").fetchone()[0]
    assert int(version) == FORMAT_VERSION >= 2
    assert rows and all(crc == zlib.crc32(jpeg) for jpeg, crc in rows)


def test_a_frame_damaged_where_libjpeg_is_silent_stops_the_replay_at_the_last_good_frame(
    flat_recorded, tmp_path
):
    """It was decoded and tracked: a replay of garbage, with nothing said."""
    damaged = tmp_path / "flipped.tsr"
    index = _flip_frame(flat_recorded, damaged, "SELECT MIN(idx) FROM frames WHERE idx > 3")
    whole = replay(flat_recorded, flat_pipeline)
    result = replay(damaged, flat_pipeline)
    before = [r for r in whole.results if r.frame < index]
    assert result.stopped.startswith("stopped after frame ")
    assert result.stopped.endswith(f": frame {index} is damaged: its JPEG does not match the checksum "
                                   "it was recorded with")
    assert [r.to_json() for r in result.results] == [r.to_json() for r in before]
    assert result.agreement().endswith("the same as far as both go")


def test_track_of_a_frame_damaged_where_libjpeg_is_silent_says_where_it_stopped(flat_recorded, tmp_path):
    damaged = tmp_path / "flipped.tsr"
    index = _flip_frame(flat_recorded, damaged, "SELECT MIN(idx) FROM frames")
    source = RecordingSource(Recording(damaged))
    try:
        with pytest.raises(TablesightError, match=f"frame {index} is damaged: its JPEG does not match"):
            source.read()
    finally:
        source.close()
        source.recording.close()


def test_replay_of_a_silently_damaged_frame_is_one_line_and_exit_1(
    flat_recorded, tmp_path, capsys, monkeypatch
):
    damaged = tmp_path / "flipped.tsr"
    index = _flip_frame(flat_recorded, damaged, "SELECT MAX(idx) FROM frames")
    real = tracker.replay.replay
    monkeypatch.setattr(tracker.replay, "replay",
                        lambda path, on_result=None: real(path, flat_pipeline, on_result))
    assert main(["replay", str(damaged)]) == 1
    said = f"frame {index} is damaged: its JPEG does not match the checksum it was recorded with"
    (line,) = [line for line in capsys.readouterr().err.splitlines() if said in line]
    assert line.startswith(f"tablesight replay: {damaged}: stopped after frame ")
    assert line.endswith(f": {said}. nothing past that can be read; if the file was copied from another "
                         "machine, copy it again")


def test_a_recording_of_format_1_has_no_checksums_and_reads_as_before(flat_recorded, tmp_path):
    """Every game recorded before (the shipped demo among them): the same frames, used as they
    decode."""
    old = tmp_path / "old.tsr"
    shutil.copy(flat_recorded, old)
    with contextlib.closing(sqlite3.connect(old)) as db, db:
        db.execute("ALTER TABLE frames DROP COLUMN crc")
        db.execute("UPDATE manifest SET value = '1' WHERE key = 'format_version'")
    flipped = tmp_path / "flipped.tsr"
    index = _flip_frame(old, flipped, "SELECT MIN(idx) FROM frames WHERE idx > 0")
    recording = Recording(flipped)
    try:
        assert recording.manifest["format_version"] == 1
        frames = [frame.index for frame in recording.frames()]
        assert index in frames and len(frames) == recording.frame_count()
        assert not recording.stopped and not recording.damaged_frames
    finally:
        recording.close()
