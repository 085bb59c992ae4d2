import os

import cv2
import numpy as np

from calibration.imagefile import decode_checked, decode_quietly


def _jpeg() -> bytes:
    image = np.full((120, 160, 3), 90, np.uint8)
    cv2.circle(image, (80, 60), 30, (200, 50, 20), -1)
    return cv2.imencode(".jpg", image)[1].tobytes()


def test_a_jpeg_damaged_inside_its_data_decodes_flagged_and_libjpeg_says_nothing(capfd):
    whole = _jpeg()
    damaged = whole[: len(whole) * 2 // 3] + b"\xff\xd9"  # its data cut short, its end marker kept
    image, corrupt = decode_checked(np.frombuffer(damaged, np.uint8))
    assert image is not None and image.shape == (120, 160, 3) and corrupt
    image, corrupt = decode_checked(np.frombuffer(whole, np.uint8))
    assert image is not None and not corrupt
    assert capfd.readouterr().err == ""


def test_stderr_is_the_process_own_again_after_a_decode(capfd):
    decode_quietly(np.frombuffer(_jpeg(), np.uint8))
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"
