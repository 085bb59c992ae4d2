"""USB cameras through a stand-in for cv2.VideoCapture, since CI has no camera plugged in."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.errors import CameraFault
from hardware.sources import open_source
from rules_core.errors import TablesightError


class Webcam:
    """A 640x480-only webcam (V4L2 ignores sizes it cannot do), optionally held by another program."""

    held = False
    frames_left = 1000

    def __init__(self, index: int, *args: object) -> None:
        self.index = index
        self.size = (640, 480)

    def isOpened(self) -> bool:
        return self.index == 0

    def set(self, prop: int, value: float) -> bool:
        return False

    def get(self, prop: int) -> float:
        return 30.0 if prop == cv2.CAP_PROP_FPS else 0.0

    def read(self) -> tuple[bool, np.ndarray | None]:
        if Webcam.held or Webcam.frames_left <= 0:
            return False, None
        Webcam.frames_left -= 1
        return True, np.zeros((self.size[1], self.size[0], 3), np.uint8)

    def release(self) -> None:
        pass


@pytest.fixture(autouse=True)
def webcam(monkeypatch: pytest.MonkeyPatch):
    Webcam.held, Webcam.frames_left = False, 1000
    monkeypatch.setattr(cv2, "VideoCapture", Webcam)
    return Webcam


def test_a_usb_camera_delivers_live_frames() -> None:
    source = open_source("camera:0")
    assert source.live and source.description == "USB camera 0"
    assert source.read().image.shape == (480, 640, 3)


def test_a_resolution_the_camera_cannot_do_names_what_it_can() -> None:
    with pytest.raises(TablesightError) as caught:
        open_source("camera:0", size=(1920, 1080))
    assert caught.value.problem == "USB camera 0 does not support 1920x1080: it delivers 640x480"
    assert caught.value.fix == "give --size 640x480, or leave --size out"


def test_a_camera_held_by_another_program() -> None:
    Webcam.held = True
    with pytest.raises(TablesightError, match="opened but delivers no picture") as caught:
        open_source("camera:0")
    assert "close any other program" in caught.value.fix


def test_a_camera_unplugged_mid_game_is_a_camera_fault() -> None:
    source = open_source("camera:0")
    Webcam.frames_left = 0
    assert source.read() is not None  # the frame taken on opening
    with pytest.raises(CameraFault, match="USB camera 0 stopped delivering frames"):
        source.read()
