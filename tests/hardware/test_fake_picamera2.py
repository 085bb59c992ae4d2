"""The fake must fail where picamera2 fails, or the source's tests prove nothing."""

from __future__ import annotations

import pytest

from tests.hardware import fake_picamera2


@pytest.fixture
def camera(picamera2):
    cam = picamera2.Picamera2()
    yield cam
    cam.close()


def test_configure_only_while_stopped(camera) -> None:
    camera.configure(camera.create_video_configuration(main={"size": (640, 480), "format": "RGB888"}))
    camera.start()
    with pytest.raises(RuntimeError, match="must be stopped before configuring"):
        camera.configure(camera.create_video_configuration())
    camera.stop()
    camera.configure(camera.create_video_configuration())


def test_arrays_have_the_configured_shapes(camera) -> None:
    config = camera.create_video_configuration(main={"size": (640, 480), "format": "RGB888"},
                                               lores={"size": (320, 240), "format": "YUV420"})
    camera.configure(config)
    camera.start()
    (main, lores), metadata = camera.capture_arrays(["main", "lores"], wait=1.0)
    assert main.shape == (480, 640, 3) and lores.shape == (360, 320)
    assert {"ExposureTime", "AnalogueGain", "ColourGains", "SensorTimestamp"} <= set(metadata)
    with pytest.raises(RuntimeError, match="Stream 'raw' is not defined"):
        camera.capture_array("raw", wait=1.0)


def test_a_capture_before_start_times_out(camera) -> None:
    camera.configure(camera.create_video_configuration())
    with pytest.raises(TimeoutError):
        camera.capture_array("main", wait=0.1)


@pytest.mark.parametrize(("lores", "message"), [
    ({"size": (1280, 960), "format": "YUV420"}, "may not exceed main"),
    ({"size": (320, 240), "format": "RGB888"}, "lores stream must be YUV"),
    ({"size": (321, 240), "format": "YUV420"}, "should be even"),
])
def test_bad_configurations_are_refused(camera, lores, message) -> None:
    config = camera.create_video_configuration(main={"size": (640, 480), "format": "RGB888"}, lores=lores)
    with pytest.raises(RuntimeError, match=message):
        camera.configure(config)


def test_unadvertised_controls_are_refused(picamera2) -> None:
    picamera2.rig.reset(fake_picamera2.HQ_CAMERA)
    camera = picamera2.Picamera2()
    with pytest.raises(RuntimeError, match="Control AfMode is not advertised"):
        camera.set_controls({"AfMode": 2})
    camera.close()


def test_missing_and_busy_cameras_fail_as_picamera2_does(picamera2) -> None:
    with pytest.raises(IndexError):
        picamera2.Picamera2(1)
    first = picamera2.Picamera2()
    with pytest.raises(RuntimeError, match="Camera __init__ sequence did not complete") as caught:
        picamera2.Picamera2()
    assert "Device or resource busy" in str(caught.value.__cause__)
    first.close()
    first.close()
    picamera2.Picamera2().close()
