"""`serve --intrinsics CAM.json`: the lens calibration the rig's own command could not take.

The 244 x 183 table needs the Camera Module 3 Wide, whose barrel distortion wants a lens
calibration, and the rig's service runs `serve`: record, track, detect and doctor took
`--intrinsics`, serve built its pipeline without a lens and recorded games that replayed
without one.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.demo_files import demo_stills
from tests.hardware import fake_picamera2
from tracker.cli import main
from tracker.recording import Recording
from tracker.session import DEMO_RECORDING, open_session


def lens_file(folder: Path, width: int, height: int) -> Path:
    """A distortion-free CAM.json for `width`x`height` frames (the demo's camera calibrates with it)."""
    path = folder / f"cam-{width}x{height}.json"
    path.write_text(json.dumps({"K": [[1500.0, 0, width / 2], [0, 1500.0, height / 2], [0, 0, 1]],
                                "dist": [0.0] * 5, "image_size": [width, height]}))
    return path


class ServeUntilEnded:
    """Stands in for waitress: serves until the session's source has ended, then returns."""

    def __init__(self, app, host, port, viewers=24):
        self.client = app.test_client()
        ServeUntilEnded.served = True

    def run(self):
        deadline = time.monotonic() + 60
        while self.client.get("/api/state").json["status"]["camera"] != "ended":
            assert time.monotonic() < deadline, "the session never reached the end of its source"
            time.sleep(0.05)

    def close(self):
        pass


@pytest.fixture
def no_server(monkeypatch):
    ServeUntilEnded.served = False
    monkeypatch.setattr("webui.serve.make_server", ServeUntilEnded)
    return ServeUntilEnded


@pytest.fixture
def stills(tmp_path: Path) -> Path:
    return demo_stills(tmp_path, 2)


def serve(source: str, *more: str) -> int:
    return main(["serve", "--source", source, "--pin", "4821", "--port", "8123", *more])


def test_serve_measures_with_the_lens_and_records_it_for_the_replay(stills, tmp_path, no_server) -> None:
    cam = lens_file(tmp_path, 1920, 1080)
    games = tmp_path / "games"
    assert serve(str(stills / "frames"), "--layout", str(stills / "layout.json"), "--intrinsics", str(cam),
                 "--recordings", str(games)) == 0
    (game,) = games.glob("game-*.tsr")
    recording = Recording(game)
    assert recording.manifest["intrinsics"] == json.loads(cam.read_text())
    assert recording.frame_count() == 2, "calibrated with the lens, so its frames were kept"


def test_the_session_s_pipeline_calibrates_through_the_lens(stills, tmp_path) -> None:
    cam = lens_file(tmp_path, 1920, 1080)
    session = open_session(str(stills / "frames"), layout_path=str(stills / "layout.json"),
                           intrinsics_path=str(cam))
    session.start()
    deadline = time.monotonic() + 60
    while session.state()["status"]["camera"] != "ended" and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 1.0)
    session.stop()
    calibration = session.runner.pipeline.calibration
    assert calibration is not None and calibration.intrinsics is not None
    assert calibration.intrinsics.image_size == (1920, 1080)


@pytest.mark.parametrize("content", [None, "not json", '{"K": [[1, 0, 0]]}'])
def test_a_bad_lens_file_is_one_line_before_the_server_starts_as_record_says_it(
        content, stills, tmp_path, no_server, capsys) -> None:
    cam = tmp_path / "cam.json"
    if content is not None:
        cam.write_text(content)
    frames, layout = str(stills / "frames"), str(stills / "layout.json")
    assert main(["record", "--source", frames, "--layout", layout, "--intrinsics", str(cam),
                 "-o", str(tmp_path / "game.tsr")]) == 2
    recorded = capsys.readouterr().err
    games = tmp_path / "games"
    assert serve(frames, "--layout", layout, "--intrinsics", str(cam), "--recordings", str(games)) == 2
    served = capsys.readouterr().err
    assert served.count("\n") == 1 and not no_server.served
    assert served.removeprefix("tablesight serve: ") == recorded.removeprefix("tablesight record: ")
    assert not games.exists()


def test_a_bad_lens_file_with_a_camera_is_not_blamed_on_the_camera(tmp_path, no_server, capsys) -> None:
    assert serve("camera:7", "--intrinsics", str(tmp_path / "missing.json")) == 2
    err = capsys.readouterr().err
    assert err == (f"tablesight serve: intrinsics file {tmp_path / 'missing.json'} not found. "
                   "check the --intrinsics path.\n")


def test_stills_of_another_size_than_the_lens_are_refused_at_the_start(
        stills, tmp_path, no_server, capsys) -> None:
    cam = lens_file(tmp_path, 640, 480)
    games = tmp_path / "games"
    assert serve(str(stills / "frames"), "--layout", str(stills / "layout.json"), "--intrinsics", str(cam),
                 "--recordings", str(games)) == 2
    assert capsys.readouterr().err == (
        f"tablesight serve: intrinsics are for 640x480 images but {stills / 'frames' / 'f0000.jpg'} is "
        "1920x1080. calibrate the lens at 1920x1080 (`tablesight calibrate-lens`) or capture at 640x480.\n")
    assert not no_server.served and not games.exists()


def test_a_recording_is_served_with_the_lens_given_as_track_does(tmp_path, no_server, capsys) -> None:
    cam = lens_file(tmp_path, 640, 480)
    assert serve(str(DEMO_RECORDING), "--intrinsics", str(cam)) == 2
    assert capsys.readouterr().err == (
        "tablesight serve: intrinsics are for 640x480 images but frame 0 of recording demo.tsr is 1920x1080. "
        "calibrate the lens at 1920x1080 (`tablesight calibrate-lens`) or capture at 640x480.\n")


@pytest.fixture
def picamera2(monkeypatch):
    """The fake picamera2 with one Camera Module 3 (4608x2592) plugged in."""
    fake_picamera2.rig.reset(fake_picamera2.CAMERA_MODULE_3)
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2)
    return fake_picamera2


def test_a_pi_camera_of_another_size_than_the_lens_is_refused_at_the_start(
        picamera2, tmp_path, no_server, capsys) -> None:
    cam = lens_file(tmp_path, 2304, 1296)
    assert serve("picamera2", "--intrinsics", str(cam), "--recordings", str(tmp_path / "games")) == 2
    assert capsys.readouterr().err == (
        "tablesight serve: intrinsics are for 2304x1296 images but frame 0 of Raspberry Pi camera 0 is "
        "4608x2592. calibrate the lens at 4608x2592 (`tablesight calibrate-lens`) or capture at 2304x1296.\n")
    assert not no_server.served and not (tmp_path / "games").exists()
    assert not picamera2.rig.sensors[0].acquired, "the camera was let go"


def test_the_pi_camera_at_the_lens_s_size_is_served(picamera2, tmp_path, monkeypatch, capsys) -> None:
    """The binned mode the lens was calibrated at, asked for with --size."""
    served = []

    class OneLook:
        def __init__(self, app, host, port, viewers=24):
            self.client = app.test_client()

        def run(self):
            served.append(self.client.get("/api/state").json["status"]["source"])

        def close(self):
            pass

    monkeypatch.setattr("webui.serve.make_server", OneLook)
    cam = lens_file(tmp_path, 2304, 1296)
    assert serve("picamera2", "--intrinsics", str(cam), "--size", "2304x1296") == 0
    assert served == ["Raspberry Pi camera 0"]
    assert not picamera2.rig.sensors[0].acquired


def test_a_recording_served_with_a_lens_is_measured_through_it(tmp_path) -> None:
    cam = lens_file(tmp_path, 1920, 1080)
    session = open_session(str(DEMO_RECORDING), intrinsics_path=str(cam))
    session.start()
    deadline = time.monotonic() + 60
    while not session.state()["status"]["calibration"]["ok"] and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 1.0)
    session.stop()
    calibration = session.runner.pipeline.calibration
    assert calibration is not None and calibration.intrinsics.image_size == (1920, 1080)
