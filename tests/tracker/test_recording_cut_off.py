"""A recording cut short (a copy or a download stopped early) is said to be cut off, with how
much of it is there, wherever the cut falls: it was "damaged beyond its header", or "has no
format version in its manifest ... give a .tsr file written by `tablesight record`" (it was),
or "damaged there (database disk image is malformed)", none of which says to copy it again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rules_core.errors import TablesightError
from tests.tracker.recorded import record_flat_game
from tracker.recording import Recording

PAGE = 4096


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("whole") / "game.tsr"
    record_flat_game(path)
    return path


def cut(whole: Path, folder: Path, keep: int) -> Path:
    path = folder / "cut.tsr"
    path.write_bytes(whole.read_bytes()[:keep])
    return path


def said(path: Path) -> str:
    """What reading the whole recording says: the refusal, or where it stopped."""
    try:
        recording = Recording(path)
    except TablesightError as error:
        return str(error)
    try:
        list(recording.frames())
        return recording.stopped
    finally:
        recording.close()


@pytest.mark.parametrize("pages", [1, 2], ids=["page-1", "page-2"])
def test_a_file_cut_before_its_manifest_is_said_cut_off_with_what_to_do(whole, tmp_path, pages) -> None:
    path = cut(whole, tmp_path, pages * PAGE - 7)
    size = whole.stat().st_size
    with pytest.raises(TablesightError) as refused:
        Recording(path)
    assert refused.value.problem == (f"{path} is cut off before its manifest (it holds "
                                     f"{pages * PAGE - 7:,} of the {size:,} bytes its header gives)")
    assert refused.value.fix.startswith("nothing in it can be replayed; copy the whole file again")


def test_a_file_cut_among_its_frames_says_so_where_it_stopped(whole, tmp_path) -> None:
    with sqlite3.connect(f"file:{whole}?mode=ro", uri=True) as db:
        frames = db.execute("SELECT count(*) FROM frames").fetchone()[0]
    size = whole.stat().st_size
    stops = {said(cut(whole, tmp_path, keep)) for keep in range(size // 3, size, size // 7)}
    assert stops and all("cut off" in stop and f"of the {size:,} bytes its header gives" in stop
                         for stop in stops), stops
    assert frames > 1


def test_a_whole_file_damaged_inside_is_not_said_cut_off(whole, tmp_path) -> None:
    data = bytearray(whole.read_bytes())
    data[PAGE * 4: PAGE * 6] = b"\xa5" * (2 * PAGE)
    path = tmp_path / "damaged.tsr"
    path.write_bytes(bytes(data))
    assert "cut off" not in said(path)
