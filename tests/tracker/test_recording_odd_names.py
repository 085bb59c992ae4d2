"""Recordings under names a user's own machine gives them: a folder or file named on a Latin-1
system (bytes that are not UTF-8), spaces, and the characters a URI gives a meaning to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tracker.recorded import record_flat_game
from tracker.recording import Recording

NAMES = [b"g\xe9me.tsr", "gäme 1 #2 ?x=%41.tsr".encode()]


@pytest.mark.parametrize("name", NAMES, ids=["latin-1", "uri-characters"])
def test_a_recording_under_any_name_the_disk_allows_reads_whole(tmp_path: Path, name: bytes) -> None:
    """A file named in Latin-1 (g\\xe9me.tsr, from a USB stick written on an older system) was
    "damaged beyond its header: its manifest cannot be read"; the file was whole."""
    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/" + name))
    events = record_flat_game(path)
    recording = Recording(path)
    try:
        assert len(list(recording.frames())) == recording.frame_count() > 0
        assert len(recording.events) == len(events) and not recording.stopped
    finally:
        recording.close()
