"""`systemctl stop` (SIGTERM) while a game is recorded: the rig closes the recording cleanly.

A SIGTERM that kills the process outright still leaves a readable recording (see the tracker's
power-cut tests), but its last second is lost and its newest data sits in a `-wal` file beside
it, which a user copying only the `.tsr` off the Pi leaves behind. So the server must leave
through its clean stop: exit 0, recording closed, no `-wal` file.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import cv2
import pytest

from tests.tracker.flat import game_frames
from tracker.recording import Recording
from webui.app import create_app
from webui.stream import end_streams

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_stops_serving_and_closes_the_recording(tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    for frame in game_frames():
        cv2.imwrite(str(frames / frame.name), frame.image)
    recordings = tmp_path / "recordings"
    holder, port = reserved_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tracker", "serve", "--source", str(frames), "--host", "127.0.0.1",
         "--port", str(port), "--pin", "1234", "--recordings", str(recordings)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    try:
        with holder:  # until the server says it is listening
            started = server.stdout.readline()
        assert "live table on http://127.0.0.1:" in started, started
        assert "1234" in started  # the rig prints the PIN it was given, once, for the players
        deadline = time.monotonic() + 30  # until the folder's frames have gone into the recording
        while camera_state(port) != "ended" and time.monotonic() < deadline:
            time.sleep(0.2)
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) == 0
    finally:
        if server.poll() is None:
            server.kill()
    (recorded,) = recordings.glob("*.tsr")
    assert not Path(f"{recorded}-wal").exists()
    recording = Recording(recorded)
    assert recording.frame_count() > 0 and not recording.stopped
    recording.close()


def camera_state(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as reply:
        return json.loads(reply.read())["status"]["camera"]


@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["SIGTERM", "SIGINT", "SIGHUP"]
)
def test_a_phone_watching_does_not_hold_the_stop(tmp_path, signum):
    """Phones keep the state stream and the camera open all game. Waitress's own stop waits up
    to 5 s for their threads and then says "thread(s) still running" (then closed the trigger
    under them): the streams are told to end first, so every thread finishes."""
    holder, port = reserved_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tracker", "demo", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    try:
        with holder:  # until the server says it is listening
            started = server.stdout.readline()
        assert "demo game on http://127.0.0.1:" in started
        with socket.create_connection(("127.0.0.1", port), timeout=10) as events, \
                socket.create_connection(("127.0.0.1", port), timeout=10) as camera:
            for viewer, path in ((events, "/api/events"), (camera, "/stream.mjpg")):
                viewer.sendall(f"GET {path} HTTP/1.1\r\nHost: table\r\n\r\n".encode())
                assert viewer.recv(64).startswith(b"HTTP/1.1 200")
            server.send_signal(signum)
            assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
    said = server.stdout.read()
    assert "still running" not in said and "Traceback" not in said, said


def test_end_streams_ends_an_open_state_stream(session):
    app = create_app(session, "1234", config={"SSE_MAX_S": 20.0, "SSE_HEARTBEAT_S": 5.0})
    body = iter(app.test_client().get("/api/events", buffered=False).response)
    assert next(body).startswith(b"retry:")
    end_streams(app)
    assert [chunk[:4] for chunk in body] == [b"id: "]  # the state it had, then nothing more


def reserved_port() -> tuple[socket.socket, int]:
    """A free port, held for the server about to start until it listens: bound with
    SO_REUSEADDR and not listening, so the server (waitress sets SO_REUSEADDR too) may bind it
    while no other process can take it in between, as it could a port found free and let go."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", 0))
    return holder, holder.getsockname()[1]
