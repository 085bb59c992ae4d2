import os

import cv2
import numpy as np
import pytest

from calibration.imagefile import decode_checked, decode_quietly, read_image
from rules_core.errors import TablesightError


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


def _read_error(path) -> TablesightError:
    with pytest.raises(TablesightError) as caught:
        read_image(path)
    return caught.value


def test_read_image_refuses_a_jpeg_damaged_inside_its_data(tmp_path, capfd):
    """detect, calibrate and rectify used it, partly grey, and blamed the markers they lost."""
    whole = _jpeg()
    (tmp_path / "cut.jpg").write_bytes(whole[: len(whole) * 2 // 3] + b"\xff\xd9")
    error = _read_error(tmp_path / "cut.jpg")
    assert error.problem == (f"image {tmp_path / 'cut.jpg'} is damaged inside its JPEG data (cut off or "
                             "garbled by a copy): part of the picture is lost")
    assert error.fix == "copy the photo from the camera again, or take it again"
    assert capfd.readouterr().err == ""


def test_a_16_bit_png_is_read_at_the_depth_its_values_use(tmp_path):
    """12-bit data in a 16-bit PNG was read as 0-15 of 255: a black picture, no base found."""
    picture = cv2.imdecode(np.frombuffer(_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    cv2.imwrite(str(tmp_path / "12bit.png"), picture.astype(np.uint16) * 16)
    cv2.imwrite(str(tmp_path / "16bit.png"), picture.astype(np.uint16) * 257)
    assert np.array_equal(read_image(tmp_path / "12bit.png"), picture)
    assert np.array_equal(read_image(tmp_path / "16bit.png"), picture)


def test_a_float_tiff_is_read_as_the_picture_it_holds(tmp_path):
    """It was "not a picture OpenCV can decode", which OpenCV reads."""
    picture = cv2.imdecode(np.frombuffer(_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    cv2.imwrite(str(tmp_path / "float.tif"), picture.astype(np.float32) / 255)
    assert np.array_equal(read_image(tmp_path / "float.tif"), picture)


@pytest.mark.parametrize("over", [1.0001, np.inf], ids=["sharpened past 1", "infinite"])
def test_a_float_tiff_with_a_pixel_over_1_is_read_as_0_to_1(tmp_path, over):
    """One value past 1 (sharpening's overshoot, or an infinity) made the whole picture read as
    0-255: black, and no marker or base found."""
    picture = cv2.imdecode(np.frombuffer(_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    floats = picture.astype(np.float32) / 255
    floats[5, 7] = over
    cv2.imwrite(str(tmp_path / "float.tif"), floats)
    expected = picture.copy()
    expected[5, 7] = 255
    assert np.array_equal(read_image(tmp_path / "float.tif"), expected)


def test_a_float_tiff_of_0_to_255_is_read_so(tmp_path):
    picture = cv2.imdecode(np.frombuffer(_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    cv2.imwrite(str(tmp_path / "float.tif"), picture.astype(np.float32))
    assert np.array_equal(read_image(tmp_path / "float.tif"), picture)


def test_a_cut_off_png_is_called_cut_off_and_libpng_says_nothing(tmp_path, capfd):
    """libpng printed "PNG input buffer is incomplete" above "not a picture OpenCV can decode"."""
    whole = cv2.imencode(".png", np.full((120, 160, 3), 90, np.uint8))[1].tobytes()
    (tmp_path / "half.png").write_bytes(whole[: len(whole) // 2])
    error = _read_error(tmp_path / "half.png")
    assert error.problem == f"image {tmp_path / 'half.png'} is a PNG cut off or damaged: it does not decode"
    assert capfd.readouterr().err == ""


def test_a_pipe_or_stdin_is_said_not_to_be_read(tmp_path, monkeypatch):
    """`/dev/stdin` from a pipe was "cannot read image /dev/stdin (None)", and `-` "not found"."""
    monkeypatch.chdir(tmp_path)
    assert _read_error("-").problem == "photos are not read from stdin (-)"
    read, write = os.pipe()
    try:
        os.write(write, _jpeg()[:1000])
        error = _read_error(f"/dev/fd/{read}")
    finally:
        os.close(write)
        os.close(read)
    assert error.problem == f"image /dev/fd/{read} is a pipe: photos are not read from pipes or stdin"
    assert error.fix == "save the photo to a file and give its name"
