"""A real MJPEG-over-HTTP stream, served in-process, through OpenCV's FFmpeg backend."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np
import pytest

from hardware.capture import CaptureSource
from hardware.errors import CameraFault
from hardware.reconnect import ReconnectingSource, SourceStatus


class Camera(ThreadingHTTPServer):
    """An IP camera: streams JPEGs until `frozen` is set, as a camera whose network hangs."""

    frozen: threading.Event
    closing: threading.Event


class Stream(BaseHTTPRequestHandler):
    server: Camera

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        _, jpeg = cv2.imencode(".jpg", np.full((120, 160, 3), 90, np.uint8))
        part = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(jpeg)
        try:
            while not self.server.closing.is_set():
                if self.server.frozen.is_set():
                    self.server.closing.wait(0.05)
                    continue
                self.wfile.write(part + jpeg.tobytes() + b"\r\n")
                self.server.closing.wait(0.01)
        except OSError:
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def ip_camera() -> Iterator[tuple[str, Camera]]:
    server = Camera(("127.0.0.1", 0), Stream)
    server.frozen, server.closing = threading.Event(), threading.Event()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/stream.mjpg", server
    server.closing.set()
    server.shutdown()
    server.server_close()


def test_a_stream_that_hangs_is_a_camera_fault_within_its_timeout(ip_camera) -> None:
    url, camera = ip_camera
    source = CaptureSource(url, timeout_s=0.3)
    assert source.live and source.read().image.shape == (120, 160, 3)
    camera.frozen.set()
    with pytest.raises(CameraFault, match="stopped delivering frames"):
        for _ in range(5000):  # frames already on the wire come first
            source.read()
    source.close()


def test_a_hung_stream_is_reopened_when_it_comes_back(ip_camera) -> None:
    url, camera = ip_camera
    statuses: list[SourceStatus] = []

    def thaw(seconds: float) -> None:
        camera.frozen.clear()

    source = ReconnectingSource(lambda: CaptureSource(url, timeout_s=0.3), on_status=statuses.append,
                                sleep=thaw)
    source.read()
    camera.frozen.set()
    for _ in range(5000):  # frames already on the wire come first
        assert source.read() is not None
        if statuses and statuses[-1].state == "ok":
            break
    assert statuses[0].state == "lost" and statuses[-1].state == "ok"
    source.close()
