from __future__ import annotations

import numpy as np

from hardware.preview import preview_image
from hardware.source import Frame
from hardware.sources import open_source


class Still:
    description = "a still"

    def read(self) -> Frame | None:
        return None

    def close(self) -> None:
        pass


def test_a_large_frame_is_scaled_down_keeping_its_shape() -> None:
    frame = Frame(np.zeros((2592, 4608, 3), np.uint8), 0, 0.0, "f")
    assert preview_image(Still(), frame).shape == (360, 640, 3)


def test_a_small_frame_is_shown_as_it_is() -> None:
    frame = Frame(np.zeros((240, 320, 3), np.uint8), 0, 0.0, "f")
    assert preview_image(Still(), frame) is frame.image


def test_the_pi_camera_lores_stream_is_used_without_rescaling(picamera2) -> None:
    source = open_source("picamera2", reconnect=True)
    frame = source.read()
    assert preview_image(source, frame) is source.preview()
    source.close()
