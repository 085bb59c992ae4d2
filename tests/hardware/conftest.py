from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.hardware import fake_picamera2


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch):
    """The fake picamera2 installed as `picamera2`, with one Camera Module 3 plugged in."""
    fake_picamera2.rig.reset(fake_picamera2.CAMERA_MODULE_3)
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2)
    return fake_picamera2


def table_image(seed: int, size: tuple[int, int] = (320, 240)) -> np.ndarray:
    """A green mat with a few grey bases, different per seed."""
    w, h = size
    image = np.full((h, w, 3), (40, 110, 50), np.uint8)
    rng = np.random.default_rng(seed)
    for _ in range(4):
        x, y = int(rng.integers(20, w - 20)), int(rng.integers(20, h - 20))
        cv2.circle(image, (x, y), 12, (90, 90, 90), -1)
    return image


@pytest.fixture
def image_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in (2, 0, 1):
        cv2.imwrite(str(folder / f"frame_{i:03d}.png"), table_image(i))
    (folder / "notes.txt").write_text("not a frame")
    return folder
