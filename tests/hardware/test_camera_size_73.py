"""`--size WxH` on serve, record, track and doctor: the camera's resolution, chosen.

Only benchmarks could pass `size=` to a camera: a USB camera opened at OpenCV's default (often
640x480, about 2.9 mm a pixel over 183 cm), the Pi camera always at its full 4608x2592 sensor
while the detector's figures are at the binned 2304x1296, and doctor advised "lower the
resolution" with no way to do it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import Camera, focal_to_fit
from calibration.layout import Layout
from calibration.synthetic import render_markers
from hardware.doctor import run_doctor
from tests.demo_files import demo_stills
from tests.hardware.test_usb_camera import Webcam
from tracker.cli import main
from tracker.session import DEMO_RECORDING

FORM = "WIDTHxHEIGHT"


def lens_file(folder: Path, width: int, height: int) -> Path:
    """A distortion-free CAM.json for `width`x`height` frames."""
    path = folder / f"cam-{width}x{height}.json"
    path.write_text(json.dumps({"K": [[1500.0, 0, width / 2], [0, 1500.0, height / 2], [0, 0, 1]],
                                "dist": [0.0] * 5, "image_size": [width, height]}))
    return path


def command(name: str, source: str, tmp_path: Path, *more: str) -> list[str]:
    """`name` on `source` with what else it needs to get as far as opening it."""
    if name == "record":
        return ["record", "--source", source, "--layout", "183x122", "-o", str(tmp_path / "game.tsr"), *more]
    if name == "track":
        return ["track", source, "--layout", "183x122", *more]
    return [name, "--source", source, *more]


@pytest.mark.parametrize("name", ["serve", "record", "track", "doctor"])
@pytest.mark.parametrize("text", ["0x0", "2305x1296", "2304x1297", "99999x99999", "2304", "2304x", "big",
                                  "-2304x1296", "2304x1296x3", "2304 x 1296"])
def test_a_size_not_of_the_form_is_one_line_naming_the_form(name, text, tmp_path, capsys) -> None:
    assert main(command(name, "camera:0", tmp_path, "--size", text)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and FORM in err and repr(text) in err, err


def test_doctor_opens_the_pi_camera_at_the_size_asked(picamera2, capsys) -> None:
    main(["doctor", "--source", "picamera2", "--size", "2304x1296", "--frames", "2"])
    assert "ok   Camera: Raspberry Pi camera 0, 2304x1296 pixels." in capsys.readouterr().out


@pytest.mark.parametrize("name", ["record", "track"])
def test_record_and_track_open_the_pi_camera_at_the_size_asked(name, picamera2, tmp_path, capsys) -> None:
    """A lens file for the full sensor meets the frames of the size asked, and says their size."""
    cam = lens_file(tmp_path, 4608, 2592)
    assert main(command(name, "picamera2", tmp_path, "--size", "2304x1296", "--intrinsics", str(cam))) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith(f"tablesight {name}: intrinsics are for 4608x2592 images but frame 0 of Raspberry "
                           "Pi camera 0 is 2304x1296."), last
    assert not (tmp_path / "game.tsr").exists()


def test_a_size_beyond_the_pi_camera_s_sensor_is_refused_naming_it(picamera2, tmp_path, capsys) -> None:
    assert main(command("record", "picamera2", tmp_path, "--size", "9216x5184")) == 2
    assert capsys.readouterr().err == (
        "tablesight record: Raspberry Pi camera 0 cannot deliver 9216x5184. give --size an even size up to "
        "its sensor's 4608x2592, or leave --size out.\n")


@pytest.fixture
def webcam(monkeypatch):
    """test_usb_camera's 640x480-only webcam: V4L2 leaves a size it cannot do unset, silently."""
    Webcam.held, Webcam.frames_left = False, 1000
    monkeypatch.setattr(cv2, "VideoCapture", Webcam)


@pytest.mark.parametrize("name", ["serve", "record", "track"])
def test_a_usb_camera_that_delivers_another_size_is_refused_naming_the_one_it_gives(
        name, webcam, tmp_path, capsys) -> None:
    assert main(command(name, "camera:0", tmp_path, "--size", "1920x1080")) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].endswith("USB camera 0 does not support 1920x1080: it delivers 640x480. "
                                         "give --size 640x480, or leave --size out."), err


def test_doctor_says_a_usb_camera_cannot_do_the_size(webcam, capsys) -> None:
    assert main(["doctor", "--source", "camera:0", "--size", "1920x1080"]) == 2
    out = capsys.readouterr().out
    assert "FAIL Camera: USB camera 0 does not support 1920x1080: it delivers 640x480." in out


@pytest.fixture
def stills(tmp_path: Path) -> Path:
    return demo_stills(tmp_path, 2) / "frames"


@pytest.mark.parametrize("name", ["serve", "record", "track", "doctor"])
@pytest.mark.parametrize("kind", ["folder", "image", "recording"])
def test_a_size_for_a_file_a_folder_or_a_recording_is_refused_in_one_line(
        name, kind, stills, tmp_path, capsys) -> None:
    source = {"folder": stills, "image": stills / "f0000.jpg", "recording": DEMO_RECORDING}[kind]
    assert main(command(name, str(source), tmp_path, "--size", "2304x1296")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"--size 2304x1296: {source} is not a camera" in err and "leave --size out" in err, err
    assert not (tmp_path / "game.tsr").exists()


def test_a_size_for_a_network_camera_is_refused_as_set_in_the_camera(tmp_path, capsys) -> None:
    assert main(command("record", "rtsp://10.0.0.9/table", tmp_path, "--size", "2304x1296")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--size 2304x1296" in err and "camera's own settings" in err, err


def table_scene(size: tuple[int, int],
                seen_cm: tuple[float, float] = (183.0, 122.0)) -> tuple[np.ndarray, Layout]:
    """The 183 x 122 table with its corner markers, from 1.8 m, a picture of `size` showing
    `seen_cm` of it and round it (the table alone by default)."""
    centres = [[7, 7], [176, 7], [176, 115], [7, 115]]
    markers = [{"id": i, "center_cm": c, "size_cm": 10.0} for i, c in enumerate(centres)]
    layout = Layout.from_dict({"dictionary": "DICT_4X4_50", "table": {"width_cm": 183.0, "depth_cm": 122.0},
                               "markers": markers})
    camera = Camera.looking_at((91.5, 61.0), 180.0, image_size=size,
                               focal_px=focal_to_fit(seen_cm, 180.0, size))
    drawn = layout.markers_as_synthetic()
    return render_markers(camera, layout.table_size_cm, drawn, layout.dictionary).image, layout


def test_doctor_names_the_size_that_gives_a_base_enough_pixels(picamera2, tmp_path) -> None:
    """At 1152x648 a 32 mm base is 14 pixels across; twice that size (the binned mode) is 28."""
    image, layout = table_scene((2304, 1296))
    picamera2.rig.sensors[0].scene = image
    layout_path = tmp_path / "layout.json"
    layout_path.write_text(layout.to_json())
    report = run_doctor("picamera2", layout_path, frames=2, size=(1152, 648), weights_dir=tmp_path,
                        disk_path=tmp_path)
    detail = {check.name: check for check in report.checks}["Detail"]
    assert not detail.ok and detail.fix == "run with --size 2304x1296, or lower the camera"


@pytest.mark.parametrize(("size", "fix"), [
    (None, "lower the camera (or use a wider lens, lower): it already gives its sensor's full size"),
    ((2304, 1296), "run with --size 4608x2592 (its sensor's full size) and lower the camera"),
])
def test_doctor_never_names_a_size_past_the_camera_s_sensor(picamera2, tmp_path, size, fix) -> None:
    """Seen from far too high, doubling the size went past the sensor: "run with --size
    9216x5184", which the camera then refused."""
    image, layout = table_scene(size or (4608, 2592), seen_cm=(183 * 4.5, 122 * 4.5))
    picamera2.rig.sensors[0].scene = image
    layout_path = tmp_path / "layout.json"
    layout_path.write_text(layout.to_json())
    report = run_doctor("picamera2", layout_path, frames=2, size=size, weights_dir=tmp_path,
                        disk_path=tmp_path)
    detail = {check.name: check for check in report.checks}["Detail"]
    assert not detail.ok and detail.fix == fix


def test_doctor_names_a_smaller_size_for_a_slow_camera(picamera2, tmp_path) -> None:
    ticks = iter([0.0, 10.0])
    report = run_doctor("picamera2", frames=3, weights_dir=tmp_path, disk_path=tmp_path,
                        clock=lambda: next(ticks))
    rate = {check.name: check for check in report.checks}["Frame rate"]
    assert not rate.ok and rate.fix.startswith("run with --size 2304x1296 (half of 4608x2592)"), rate.fix


def test_doctor_on_files_keeps_its_words_for_more_pixels(tmp_path) -> None:
    image, layout = table_scene((1152, 648))
    cv2.imwrite(str(tmp_path / "table.png"), image)
    layout_path = tmp_path / "layout.json"
    layout_path.write_text(layout.to_json())
    report = run_doctor(str(tmp_path / "table.png"), layout_path, weights_dir=tmp_path, disk_path=tmp_path)
    detail = {check.name: check for check in report.checks}["Detail"]
    assert not detail.ok and detail.fix == "use the full sensor resolution or lower the camera"


def test_serve_with_a_size_and_no_camera_still_says_no_camera_and_the_demo(monkeypatch, capsys) -> None:
    """The size was taken to mean a camera is there: a missing picamera2 lost serve's "No camera"
    and the demo it offers."""
    monkeypatch.setitem(sys.modules, "picamera2", None)  # not installed: importing it fails
    assert main(["serve", "--source", "picamera2", "--size", "2304x1296"]) == 2
    err = capsys.readouterr().err
    assert "No camera: picamera2 is not installed" in err and "tablesight demo" in err, err
