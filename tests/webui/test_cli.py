"""`tablesight serve` and `demo`: arguments, the printed PIN, and what a user sees when it cannot run."""

from __future__ import annotations

import sys
import types

import pytest

from rules_core.errors import TablesightError
from tests.webui.fake_session import FakeSession
from tracker.cli import main
from webui.serve import make_server as waitress_server


class NoServer:
    """Stands in for waitress: returns at once instead of serving for ever."""

    def __init__(self, app, host, port, viewers=24):
        self.app, self.host, self.port = app, host, port
        self.closed = False
        NoServer.last = self

    def run(self):
        assert self.app.test_client().get("/api/state").status_code == 200

    def close(self):
        self.closed = True


class SourceUnavailable(TablesightError):
    """Stands in for tracker.session's: the source itself would not open."""


@pytest.fixture
def sessions(monkeypatch):
    """A tracker.session module that hands out fake sessions and remembers the arguments."""
    module = types.SimpleNamespace(opened=[], session=FakeSession(), SourceUnavailable=SourceUnavailable)

    def open_session(source_spec, layout_path=None, ruleset="world-at-fire", recordings_dir=None,
                     intrinsics_path=None, size=None):
        module.opened.append((source_spec, layout_path, ruleset, recordings_dir))
        if ruleset == "nope":
            raise TablesightError("unknown ruleset 'nope'", "Run `tablesight rules list`")
        if source_spec == "camera:7":
            raise SourceUnavailable("camera 7 does not answer", "Check the cable")
        if source_spec == "missing.mp4":
            raise TablesightError("missing.mp4 does not exist", "Check the path")
        return module.session

    module.open_session = open_session
    module.open_demo_session = lambda: module.session
    monkeypatch.setitem(sys.modules, "tracker.session", module)
    monkeypatch.setattr("webui.serve.make_server", NoServer)
    return module


def test_demo_prints_the_address_and_a_random_pin(sessions, capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert ":8080/" in out and "table PIN " in out
    pin = out.split("table PIN ")[1].strip()
    assert pin.isdigit() and 4 <= len(pin) <= 6
    assert (NoServer.last.host, NoServer.last.port) == ("0.0.0.0", 8080)
    assert NoServer.last.closed and sessions.session.started is False


def test_serve_passes_its_options_to_the_session(sessions, capsys, tmp_path):
    argv = [
        "serve",
        "--source",
        "game.mp4",
        "--layout",
        "l.json",
        "--ruleset",
        "tankomaster",
        "--recordings",
        str(tmp_path),
        "--host",
        "127.0.0.1",
        "--port",
        "9000",
        "--pin",
        "123456",
    ]
    assert main(argv) == 0
    assert sessions.opened == [("game.mp4", "l.json", "tankomaster", str(tmp_path))]
    assert "http://127.0.0.1:9000/  table PIN 123456" in capsys.readouterr().out


def test_serve_without_a_camera_says_how_to_start_the_demo(sessions, capsys):
    assert main(["serve", "--source", "camera:7"]) == 2
    err = capsys.readouterr().err
    assert "No camera" in err and "tablesight demo" in err and "Check the cable; or start the demo" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("source", ["picamera2", "camera:7"])
def test_a_bad_setting_with_a_camera_source_is_not_blamed_on_the_camera(sessions, capsys, source):
    assert main(["serve", "--source", source, "--ruleset", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown ruleset 'nope'" in err and "No camera" not in err


@pytest.mark.parametrize(("option", "named"), [("--ruleset", "ruleset"), ("--layout", "nope.json")])
def test_the_real_session_names_a_bad_setting_before_the_camera(capsys, option, named):
    assert main(["serve", "--source", "camera:0", option, "nope.json"]) == 2
    err = capsys.readouterr().err
    assert named in err and "No camera" not in err and err.count("\n") == 1


def test_a_bad_file_source_is_reported_as_it_is(sessions, capsys):
    assert main(["serve", "--source", "missing.mp4"]) == 2
    assert "missing.mp4 does not exist" in capsys.readouterr().err


def test_a_pin_from_the_environment_stays_out_of_ps_and_the_log(sessions, capsys, monkeypatch):
    monkeypatch.setenv("TABLESIGHT_PIN", "4821")
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "4821" not in out and "TABLESIGHT_PIN" in out
    phone = NoServer.last.app.test_client()
    assert phone.post("/api/action/undo", json={}, headers={"X-Table-Pin": "4821"}).status_code != 403


@pytest.mark.parametrize("pin", ["12", "abcd", "1234567"])
def test_a_pin_that_is_not_4_to_6_digits_is_refused(sessions, capsys, pin):
    assert main(["demo", "--pin", pin]) == 2
    assert "4-6 digits" in capsys.readouterr().err


def test_a_busy_port_is_a_message_not_a_traceback(sessions, capsys, monkeypatch):
    def busy(*args, **kwargs):
        raise OSError(98, "Address already in use")

    monkeypatch.setattr("webui.serve.make_server", busy)
    assert main(["demo", "--port", "8080"]) == 2
    assert "Cannot listen on 0.0.0.0:8080 (Address already in use)" in capsys.readouterr().err


def test_a_host_of_another_machine_is_said_to_be_the_host_not_the_port(sessions, capsys, monkeypatch):
    """An address this machine does not have (a phone's, the router's) said 'Pick another --port'."""
    def elsewhere(*args, **kwargs):
        raise OSError(99, "Cannot assign requested address")

    monkeypatch.setattr("webui.serve.make_server", elsewhere)
    assert main(["demo", "--host", "10.255.255.1", "--port", "8080"]) == 2
    err = capsys.readouterr().err
    assert "Cannot listen on 10.255.255.1: not an address of this machine" in err
    assert "--port" not in err and "--host 0.0.0.0" in err


@pytest.mark.parametrize("port", ["-5", "0", "70000", "http"])
def test_a_port_out_of_range_is_refused_before_serving(sessions, capsys, port):
    assert main(["demo", "--port", port]) == 2
    err = capsys.readouterr().err
    assert "1 to 65535" in err and err.count("\n") == 1
    assert sessions.session.started is False


def test_a_host_that_does_not_resolve_is_a_message_not_a_traceback(sessions, capsys, monkeypatch):
    monkeypatch.setattr("webui.serve.make_server", waitress_server)  # the real one, which refuses it
    assert main(["demo", "--host", "999.1.1.1", "--port", "8080"]) == 2
    err = capsys.readouterr().err
    assert "Cannot listen on 999.1.1.1" in err and "--host 0.0.0.0" in err
    assert sessions.session.started is False


def test_without_the_tracker_session_the_cli_says_so(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tracker.session", None)
    assert main(["demo"]) == 2
    assert "table session is missing" in capsys.readouterr().err


def test_demo_offers_the_demo_recording_for_replay(sessions, tmp_path, capsys):
    sessions.DEMO_RECORDING = tmp_path / "demo" / "demo.tsr"
    assert main(["demo"]) == 0
    assert NoServer.last.app.extensions["tablesight"]["recordings_dir"] == (tmp_path / "demo").resolve()


@pytest.mark.parametrize("what", ["missing", "a file"])
def test_demo_refuses_a_recordings_folder_that_is_not_one(sessions, tmp_path, capsys, what):
    recordings = tmp_path / "games"
    if what == "a file":
        recordings.write_text("not a folder")
    assert main(["demo", "--recordings", str(recordings)]) == 2
    assert capsys.readouterr().err == (
        f"tablesight demo: --recordings {recordings} is not a folder. "
        "give the folder that holds the .tsr recordings, or leave --recordings out.\n"
    )
    assert sessions.session.started is False


@pytest.mark.parametrize(("pin", "said"), [("1234", "Address already in use"), ("12", "not 4-6 digits")])
def test_serve_that_cannot_start_leaves_no_empty_recording(tmp_path, capsys, monkeypatch, pin, said):
    """The real session: it made a recording for the game when it opened; nothing was played."""
    import cv2
    import numpy as np

    def busy(*args, **kwargs):
        raise OSError(98, "Address already in use")

    monkeypatch.setattr("webui.serve.make_server", busy)
    cv2.imwrite(str(tmp_path / "table.png"), np.full((64, 64, 3), 128, np.uint8))
    recordings = tmp_path / "games"
    argv = ["serve", "--source", str(tmp_path / "table.png"), "--recordings", str(recordings)]
    assert main([*argv, "--pin", pin]) == 2
    assert said in capsys.readouterr().err
    assert list(recordings.iterdir()) == []
