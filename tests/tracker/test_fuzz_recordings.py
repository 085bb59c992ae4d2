"""Damaged recordings: flipped bytes, cut-off files, wiped pages, manifests edited by hand.

A recording copied off a Pi with a failing SD card, or half-downloaded, must either replay up
to its damage (saying where it stopped) or be refused with one clear sentence; never a
traceback and never a hang.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules_core.errors import TablesightError
from tests.tracker.flat import flat_pipeline
from tracker.recording import Recording
from tracker.replay import replay

FUZZ = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
PAGE = 4096


def read_all(path: Path) -> str:
    """Everything a replay page reads; returns where it stopped, or raises TablesightError."""
    recording = Recording(path)
    try:
        frames = [frame.index for frame in recording.frames()]
        assert frames == sorted(frames)
        assert isinstance(recording.controls, list) and isinstance(recording.events, list)
        recording.frame_count()
        return recording.stopped
    finally:
        recording.close()


def replays_cleanly(path: Path) -> None:
    try:
        replay(path, lambda manifest: flat_pipeline())
    except TablesightError as error:
        assert str(error) and "\n" not in str(error)


damage = st.one_of(
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), min_size=1, max_size=8).map(
        lambda flips: ("flip", flips)),
    st.integers(0, 10**6).map(lambda n: ("truncate", n)),
    st.integers(0, 40).map(lambda page: ("wipe", page)),
)


def damaged(source: Path, target: Path, how: tuple) -> None:
    data = bytearray(source.read_bytes())
    kind, arg = how
    if kind == "flip":
        for offset, mask in arg:
            data[offset % len(data)] ^= mask
    elif kind == "truncate":
        data = data[: arg % len(data)]
    else:
        start = (arg * PAGE) % len(data)
        data[start:start + PAGE] = bytes(len(data[start:start + PAGE]))
    target.write_bytes(bytes(data))


@FUZZ
@given(how=damage)
def test_a_damaged_file_reads_up_to_its_damage_or_is_refused(flat_recorded, tmp_path_factory, how):
    path = tmp_path_factory.mktemp("damaged") / "game.tsr"
    damaged(flat_recorded, path, how)
    try:
        stopped = read_all(path)
    except TablesightError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert isinstance(stopped, str)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=damage)
def test_a_damaged_file_replays_or_is_refused(flat_recorded, tmp_path_factory, how):
    path = tmp_path_factory.mktemp("replayed") / "game.tsr"
    damaged(flat_recorded, path, how)
    replays_cleanly(path)


junk = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=5),
                 st.just([]), st.just({}), st.just([{"action": "assign"}]), st.just({"width_cm": "wide"}),
                 st.just([[1, 2]]), st.just("{"))


@FUZZ
@given(key=st.sampled_from(["ruleset", "table", "preset", "format_version", "layout", "intrinsics"]),
       value=junk, raw=st.booleans())
def test_a_hand_edited_manifest_is_a_clear_error(flat_recorded, tmp_path_factory, key, value, raw):
    path = tmp_path_factory.mktemp("edited") / "game.tsr"
    shutil.copy(flat_recorded, path)
    with sqlite3.connect(path) as db:
        text = value if raw and isinstance(value, str) else json.dumps(value)
        db.execute("INSERT OR REPLACE INTO manifest VALUES (?, ?)", (key, text))
    try:
        read_all(path)
    except TablesightError as error:
        assert str(error) and "\n" not in str(error)
        return
    replays_cleanly(path)


@pytest.mark.parametrize("table", ["controls", "events"])
def test_damaged_control_and_event_rows_are_reported(flat_recorded, tmp_path, table):
    path = tmp_path / "game.tsr"
    shutil.copy(flat_recorded, path)
    with sqlite3.connect(path) as db:
        column = "payload" if table == "controls" else "data"
        db.execute(f"UPDATE {table} SET {column} = '{{broken'")
    replays_cleanly(path)
    recording = Recording(path)
    assert recording.stopped == f"its {table} are damaged after 0 entries (entry 1 is cut off)"
    recording.close()
