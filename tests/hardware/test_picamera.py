from __future__ import annotations

import subprocess
import sys

import cv2
import numpy as np
import pytest

from hardware.errors import CameraFault
from hardware.picamera import PicameraSource, preview_size
from hardware.sources import open_source
from rules_core.errors import TablesightError


def test_picamera2_is_only_imported_when_a_camera_is_opened() -> None:
    check = "import sys, hardware.sources, hardware.cli; print('picamera2' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_without_picamera2_installed_the_fix_is_the_pi_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(TablesightError, match=r"install-pi\.sh"):
        open_source("picamera2")


def test_picamera2_built_for_another_numpy_says_how_to_mend_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_import(name: str):
        raise ValueError("numpy.dtype size changed, may indicate binary incompatibility")

    monkeypatch.setattr("hardware.picamera.importlib.import_module", broken_import)
    with pytest.raises(TablesightError, match="force-reinstall --no-deps simplejpeg"):
        open_source("picamera2")


def test_full_resolution_main_and_small_lores_from_one_configuration(picamera2) -> None:
    source = open_source("picamera2")
    frame = source.read()
    assert frame.image.shape == (2592, 4608, 3) and frame.image.dtype == np.uint8
    assert source.preview_size == (640, 360)
    assert source.preview().shape == (360, 640, 3)
    source.close()


def test_frames_are_bgr_as_opencv_expects(picamera2) -> None:
    scene = np.zeros((480, 640, 3), np.uint8)
    scene[:, :, 2] = 255  # pure red in BGR
    picamera2.rig.sensors[0].scene = scene
    source = PicameraSource(size=(640, 480))
    frame = source.read()
    assert tuple(frame.image[240, 320]) == (0, 0, 255)
    b, g, r = source.preview()[120, 160].astype(int)
    assert r > 200 and g < 60 and b < 60
    source.close()


def test_the_lores_stride_padding_is_cut_off(picamera2) -> None:
    scene = np.zeros((400, 600, 3), np.uint8)
    cv2.rectangle(scene, (540, 0), (599, 399), (255, 255, 255), -1)
    picamera2.rig.sensors[0].scene = scene
    source = PicameraSource(size=(600, 400))  # lores rows are padded to 640 bytes
    source.read()
    preview = source.preview()
    assert preview.shape == (400, 600, 3)
    assert preview[:, -3:].mean() > 200  # the right edge is the white band, not padding
    source.close()


def test_each_capture_waits_only_as_long_as_the_timeout(picamera2) -> None:
    source = PicameraSource(timeout_s=0.5)
    source.read()
    assert picamera2.rig.sensors[0].last_wait == 0.5
    source.close()


def test_no_camera_is_a_clear_error(picamera2) -> None:
    picamera2.rig.reset()
    with pytest.raises(TablesightError) as caught:
        open_source("picamera2")
    assert "no Raspberry Pi camera found at number 0" in caught.value.problem
    assert "ribbon cable" in caught.value.fix


def test_second_camera_missing(picamera2) -> None:
    with pytest.raises(TablesightError, match="number 1"):
        open_source("picamera2:1")


def test_busy_camera_names_the_fix(picamera2) -> None:
    picamera2.rig.sensors[0].held_elsewhere = True
    with pytest.raises(TablesightError) as caught:
        open_source("picamera2")
    assert "in use by another program" in caught.value.problem
    assert "systemctl stop tablesight" in caught.value.fix


def test_the_same_camera_cannot_be_opened_twice_until_closed(picamera2) -> None:
    first = open_source("picamera2")
    with pytest.raises(TablesightError, match="in use"):
        open_source("picamera2")
    first.close()
    open_source("picamera2").close()


@pytest.mark.parametrize("size", [(9000, 3000), (641, 480), (0, 480)])
def test_unsupported_resolution(picamera2, size) -> None:
    with pytest.raises(TablesightError, match="cannot deliver") as caught:
        open_source("picamera2", size=size)
    assert "4608x2592" in caught.value.fix
    assert not picamera2.rig.sensors[0].acquired, "a refused camera must be released"


def test_hq_camera_has_its_own_sensor_size_and_no_autofocus(picamera2) -> None:
    picamera2.rig.reset(picamera2.HQ_CAMERA)
    source = open_source("picamera2")
    assert source.read().image.shape == (3040, 4056, 3)
    assert source.lock_focus() is None
    source.close()


def test_autofocus_runs_until_locked(picamera2) -> None:
    source = PicameraSource(size=(640, 480))
    positions = {source.read() and source.metadata["LensPosition"] for _ in range(3)}
    assert source.controls["AfMode"] == 2 and len(positions) == 3


def test_focus_lock_holds_the_lens_where_autofocus_left_it(picamera2) -> None:
    source = PicameraSource(size=(640, 480))
    source.read()
    position = source.lock_focus()
    for _ in range(3):
        source.read()
    assert source.metadata["LensPosition"] == position
    assert source.controls["AfMode"] == 0


def test_exposure_lock_freezes_exposure_gain_and_white_balance(picamera2) -> None:
    source = PicameraSource(size=(640, 480))
    source.read()
    exposures = {source.read() and source.metadata["ExposureTime"] for _ in range(3)}
    assert len(exposures) == 3, "auto exposure drifts while unlocked"
    locked = source.lock_exposure()
    assert locked["AeEnable"] is False and locked["AwbEnable"] is False
    seen = {source.read() and source.metadata["ExposureTime"] for _ in range(3)}
    assert seen == {locked["ExposureTime"]}
    source.unlock()
    assert source.controls["AeEnable"] is True and "ExposureTime" not in source.controls


def test_a_reopened_camera_keeps_its_locks(picamera2) -> None:
    controls: dict = {}
    source = PicameraSource(size=(640, 480), controls=controls)
    source.read()
    locked = source.lock_exposure()
    source.close()
    again = PicameraSource(size=(640, 480), controls=controls)
    again.read()
    assert again.metadata["ExposureTime"] == locked["ExposureTime"]
    again.close()


def test_a_camera_that_stops_delivering_raises_a_camera_fault(picamera2) -> None:
    source = PicameraSource(size=(640, 480))
    source.read()
    picamera2.rig.sensors[0].delivering = False
    with pytest.raises(CameraFault, match="stopped delivering"):
        source.read()
    source.close()


def test_preview_keeps_the_main_stream_shape() -> None:
    assert preview_size((4608, 2592)) == (640, 360)
    assert preview_size((4056, 3040)) == (640, 480)
    assert preview_size((320, 240)) == (320, 240)
