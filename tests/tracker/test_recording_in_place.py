"""A recording its recorder never closed (a kill, a power cut, a full disk) is read where it lies,
not copied whole into a temporary folder at every open (1.6 s and 608 MB of /tmp, a RAM disk on
the Pi, for a 1000-frame game; 0.28 s in place); one still being recorded is read from a copy, as
its recorder goes on folding its log into it and starting it over. Either way nothing beside the
recording changes."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tests.tracker.test_recording_integrity import MANIFEST, ROOT, _files, _unclosed
from tracker.recording import Recording, RecordingWriter, encode_jpeg

JPEG = encode_jpeg(np.full((48, 64, 3), 90, np.uint8), 85)


def _torn(folder: Path) -> Path:
    """A power cut during a commit: the log ends in half a page after its last whole commit."""
    path = _unclosed(folder)
    with path.with_name("game.tsr-wal").open("ab") as log:
        log.write(b"\x01" * 2000)
    return path


@pytest.mark.parametrize("left", [_unclosed, lambda folder: _unclosed(folder, merged=True), _torn],
                         ids=["with-its-wal", "log-folded-in", "torn-log"])
def test_a_never_closed_recording_is_read_in_place_without_a_temporary_copy(tmp_path, monkeypatch, left):
    path = left(tmp_path / "games")
    before = _files(path.parent)
    with monkeypatch.context() as patched:
        patched.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))  # a copy would fail
        recording = Recording(path)
    assert [e["detail"] for e in recording.events] == ["m0", "m1", "m2"]
    assert [f.name for f in recording.frames()] == ["f0", "f1", "f2"] and not recording.stopped
    recording.close()
    assert _files(path.parent) == before


def test_a_never_closed_recording_is_read_through_a_link_in_another_folder(tmp_path):
    """Its -wal and -shm lie beside the file, not beside the link: read through one, its game was
    "damaged beyond its header (no such table: manifest)" and its log "not beside it"."""
    path = _unclosed(tmp_path / "games")
    before = _files(path.parent)
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "game.tsr"
    link.symlink_to(path)
    recording = Recording(link)
    assert [f.name for f in recording.frames()] == ["f0", "f1", "f2"] and not recording.stopped
    recording.close()
    assert _files(path.parent) == before and [p.name for p in link.parent.iterdir()] == ["game.tsr"]


def _write(writer: RecordingWriter, first: int, count: int) -> None:
    """Frames big enough that the log passes SQLite's checkpoint size and starts over."""
    noise = np.random.default_rng(first).integers(0, 256, (320, 320, 3), np.uint8)
    for index in range(first, first + count):
        writer.add_frame(index, index * 0.2, f"f{index}", encode_jpeg(noise, 95))
        writer.commit()


def test_a_recording_this_process_is_still_writing_reads_whole_and_its_recorder_goes_on(tmp_path):
    """`serve` records into the folder its replay page lists: the game in progress may be opened
    while the log it was read from is folded into the file and started over."""
    path = tmp_path / "game.tsr"
    writer = RecordingWriter(path, MANIFEST)
    _write(writer, 0, 3)
    recording = Recording(path)
    _write(writer, 3, 60)
    assert [f.name for f in recording.frames()] == ["f0", "f1", "f2"] and not recording.stopped
    recording.close()
    writer.close()
    assert Recording(path).frame_count() == 63


RECORDER = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from tests.tracker.test_recording_in_place import MANIFEST, RecordingWriter, _write
writer = RecordingWriter(sys.argv[1], MANIFEST)
_write(writer, 0, 3)
print("3", flush=True)
sys.stdin.readline()
_write(writer, 3, 60)
print("63", flush=True)
sys.stdin.readline()
writer.close()
"""


def test_a_recording_another_process_is_still_writing_reads_whole_and_its_recorder_goes_on(tmp_path):
    """`tablesight replay` of the game `tablesight record` is still recording."""
    path = tmp_path / "game.tsr"
    recorder = subprocess.Popen([sys.executable, "-c", RECORDER, str(path)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
    try:
        assert recorder.stdout.readline() == "3\n"
        recording = Recording(path)
        recorder.stdin.write("\n")
        recorder.stdin.flush()
        assert recorder.stdout.readline() == "63\n"
        assert [f.name for f in recording.frames()] == ["f0", "f1", "f2"] and not recording.stopped
        recording.close()
        recorder.stdin.write("\n")
        recorder.stdin.flush()
        assert recorder.wait(timeout=60) == 0
    finally:
        recorder.kill()
    assert Recording(path).frame_count() == 63
