"""A camera that delivers something other than a colour picture: a grey or BGRA frame (a
monochrome USB camera, a 32-bit format) is converted; garbage (a raw buffer, 16-bit or float
samples) ends `track` and `record` with one line, everything before it kept. A grey frame
reached the detector's white balance and ended `track` with a traceback; a raw buffer was
recorded as a picture. `serve`'s reconnecting source still drops such a frame and goes on.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from hardware.sources import open_source
from tests.demo_files import demo_layout_and_frames
from tracker.cli import main

COLOUR = np.full((48, 64, 3), (40, 110, 50), np.uint8)
CONVERTED = {
    "grey": cv2.cvtColor(COLOUR, cv2.COLOR_BGR2GRAY),
    "grey-one-channel": cv2.cvtColor(COLOUR, cv2.COLOR_BGR2GRAY)[:, :, None],
    "bgra": cv2.cvtColor(COLOUR, cv2.COLOR_BGR2BGRA),
}
GARBAGE = {
    "raw-buffer": np.zeros((1, 48 * 64 * 2), np.uint8),
    "16-bit": COLOUR.astype(np.uint16) * 256,
    "float": COLOUR.astype(np.float32) / 255,
    "two-channels": np.zeros((48, 64, 2), np.uint8),
}


class Webcam:
    """A USB camera whose frames a test sets: `frames` in turn, then no more."""

    frames: ClassVar[list[np.ndarray]] = []

    def __init__(self, index: int, *args: object) -> None:
        self.given = 0

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        return False

    def get(self, prop: int) -> float:
        return 30.0 if prop == cv2.CAP_PROP_FPS else 0.0

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.given == len(Webcam.frames):
            return False, None
        self.given += 1
        return True, Webcam.frames[self.given - 1]

    def release(self) -> None:
        pass


@pytest.fixture(autouse=True)
def webcam(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(cv2, "VideoCapture", Webcam)
    return Webcam


@pytest.mark.parametrize("name", CONVERTED)
def test_a_grey_or_bgra_frame_comes_out_as_the_colour_picture(name: str) -> None:
    Webcam.frames = [COLOUR, CONVERTED[name]]
    source = open_source("camera:0")
    source.read()
    image = source.read().image
    expected = COLOUR if name == "bgra" else cv2.cvtColor(CONVERTED["grey"], cv2.COLOR_GRAY2BGR)
    assert image.dtype == np.uint8 and np.array_equal(image, expected)


def test_a_picamera_grey_frame_comes_out_in_colour(picamera2, monkeypatch) -> None:
    source = open_source("picamera2")
    monkeypatch.setattr(picamera2.Picamera2, "_array", lambda self, name: np.full((48, 64), 77, np.uint8)
                        if name == "main" else np.zeros((36, 64), np.uint8))
    assert np.array_equal(source.read().image, np.full((48, 64, 3), 77, np.uint8))


@pytest.mark.parametrize("name", GARBAGE)
def test_track_ends_at_a_frame_that_is_no_picture_with_one_line(name: str, capsys) -> None:
    Webcam.frames = [COLOUR, COLOUR, GARBAGE[name], COLOUR]
    assert main(["track", "camera:0", "--layout", "183x122", "--json"]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith(
        "tablesight track: USB camera 0 failed after 2 frames (USB camera 0 delivered a frame that is not a "
        "colour picture (")


def test_a_reconnecting_camera_still_drops_a_frame_that_is_no_picture() -> None:
    """`serve` rides out one bad frame without reopening the camera (the phones' status stays ok)."""
    Webcam.frames = [COLOUR, GARBAGE["raw-buffer"], COLOUR]
    source = open_source("camera:0", reconnect=True)
    assert np.array_equal(source.read().image, COLOUR) and np.array_equal(source.read().image, COLOUR)
    assert source.corrupt_frames == 1 and source.status.state == "ok"


def test_record_keeps_every_frame_before_a_garbage_one_and_says_what_came(tmp_path: Path, capsys) -> None:
    layout, jpegs = demo_layout_and_frames()
    (tmp_path / "layout.json").write_text(layout)
    pictures = [cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR) for jpeg in jpegs[:3]]
    Webcam.frames = [*pictures, GARBAGE["raw-buffer"]]
    game = tmp_path / "game.tsr"
    argv = ["record", "--source", "camera:0", "--layout", str(tmp_path / "layout.json"), "--every", "1",
            "-o", str(game)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1].startswith(
        "tablesight record: USB camera 0 failed after 3 frames (USB camera 0 delivered a frame that is not a "
        "colour picture (")
    with contextlib.closing(sqlite3.connect(f"file:{game}?mode=ro", uri=True)) as db:
        assert [row[0] for row in db.execute("SELECT idx FROM frames ORDER BY idx")] == [0, 1, 2]


def test_a_camera_that_stops_ends_track_without_promising_to_keep_trying(capsys) -> None:
    """Only `serve` reopens a camera; `track` and `record` said "tablesight keeps trying" and exited."""
    Webcam.frames = [COLOUR, COLOUR]
    assert main(["track", "camera:0", "--layout", "183x122", "--json"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tablesight track: USB camera 0 failed after 2 frames (USB camera 0 stopped delivering frames). "
        "check its cable or network, then start again: what came before was kept.")
