"""What is pushed rather than asked for: the state as Server-Sent Events, the camera as MJPEG.

Both hold a waitress thread per viewer, so both are bounded: an SSE connection ends after
`SSE_MAX_S` (the browser reconnects by itself, resuming from the version it saw last) and
MJPEG is capped at `MJPEG_MAX_FPS` and `MJPEG_MAX_S`. Both end within `WAKE_S` of
`end_streams`, so stopping the server does not wait out every phone's stream. Stills serve the
phones that only want one picture.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from flask import Blueprint, Flask, Response, current_app, request
from werkzeug.exceptions import ServiceUnavailable

from webui.compression import gzipped, takes_gzip
from webui.state_json import dumps_state, served

stream = Blueprint("stream", __name__)

BOUNDARY = "tablesightframe"
# How often a waiting stream looks whether the server is stopping: waitress gives its threads
# 5 s to finish, and one phone's open state stream held `systemctl stop` that long.
WAKE_S = 0.25


def _session():
    return current_app.extensions["tablesight"]["session"]


def end_streams(app: Flask) -> None:
    """Tell every open stream to finish, before the server waits for its threads."""
    app.extensions["tablesight"]["closing"].set()


def streams_ending(app: Flask) -> bool:
    return app.extensions["tablesight"]["closing"].is_set()


def _streamed(body: Iterator, **kwargs) -> Response:
    """A streaming response holding one of the app's stream slots until the phone goes away."""
    slots = current_app.extensions["tablesight"]["stream_slots"]
    if not slots.acquire(blocking=False):
        raise ServiceUnavailable(
            "Too many phones are streaming from this table. Close a tab or try again in a minute."
        )
    response = Response(body, **kwargs)
    response.call_on_close(slots.release)
    return response


@stream.get("/api/events")
def events():
    session, config = _session(), current_app.config
    extension = current_app.extensions["tablesight"]
    # An event's id is the rig's run and the state's version: a phone back from a restarted rig
    # (versions from 1 again) is sent the new game even where its last version has the same number.
    run, _, seen = request.headers.get("Last-Event-ID", "").rpartition(".")
    # "²".isdigit() too; and `int()` takes 4300 digits at most, far past any version a rig reaches.
    resumed = run == extension["run"] and seen.isascii() and seen.isdigit() and len(seen) <= 18
    last_version = int(seen) if resumed else -1
    body = _state_events(session, extension["run"], last_version, config["SSE_MAX_S"],
                         config["SSE_HEARTBEAT_S"], extension["closing"])
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Vary": "Accept-Encoding"}
    if takes_gzip():
        body, headers["Content-Encoding"] = gzipped(body), "gzip"
    return _streamed(body, mimetype="text/event-stream", headers=headers)


def _state_events(
    session, run: str, last_version: int, max_s: float, heartbeat_s: float, closing: threading.Event
) -> Iterator[str]:
    deadline = time.monotonic() + max_s
    yield "retry: 1000\n\n"
    state = session.state()
    version = int(state["version"])
    if version != last_version:
        yield _event(state, run)
    said_at = time.monotonic()
    while (remaining := deadline - time.monotonic()) > 0 and not closing.is_set():
        newest = session.wait_for_change(version, min(WAKE_S, remaining))
        if newest > version:
            state = session.state()
            version = int(state["version"])
            yield _event(state, run)
            said_at = time.monotonic()
        elif time.monotonic() - said_at >= heartbeat_s:
            yield f"event: beat\ndata: {version}\n\n"  # an event, not a comment: the page's watchdog hears it
            said_at = time.monotonic()


def _event(state: dict, run: str) -> str:
    return f"id: {run}.{state['version']}\nevent: state\ndata: {dumps_state(served(state, run))}\n\n"


@stream.get("/stream.mjpg")
def mjpeg():
    config = current_app.config
    closing = current_app.extensions["tablesight"]["closing"]
    return _streamed(
        _frames(_session(), config["MJPEG_MAX_FPS"], config["MJPEG_MAX_S"], closing),
        mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
        headers={"Cache-Control": "no-store"},
    )


def _frames(session, max_fps: float, max_s: float, closing: threading.Event) -> Iterator[bytes]:
    """New frames only, at most `max_fps`; the last one again every few seconds as a keep-alive."""
    interval, deadline = 1.0 / max_fps, time.monotonic() + max_s
    sent, sent_at = None, 0.0
    while time.monotonic() < deadline and not closing.is_set():
        started = time.monotonic()
        jpeg = session.latest_jpeg()
        if jpeg is not None and (jpeg is not sent or started - sent_at > 5.0):
            yield (
                f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpeg)}\r\n\r\n"
            ).encode()
            yield jpeg + b"\r\n"
            sent, sent_at = jpeg, started
        closing.wait(max(0.0, interval - (time.monotonic() - started)))


@stream.get("/frame.jpg")
def frame():
    return _still(_session().latest_jpeg(), "No camera frame yet. Check the camera, or wait a moment.")


@stream.get("/topdown.jpg")
def topdown():
    return _still(_shared_topdown(), "No top-down view until the camera is calibrated. Show it the markers.")


def _shared_topdown() -> bytes | None:
    """One rectified picture shared by every phone for `TOPDOWN_MAX_AGE_S`.

    Rectifying and encoding a frame costs the Pi a few hundred ms; twenty phones refreshing
    their table view must not multiply that.
    """
    extension = current_app.extensions["tablesight"]
    max_age = current_app.config["TOPDOWN_MAX_AGE_S"]
    with extension["topdown_lock"]:
        made_at, jpeg = extension.get("topdown", (0.0, None))
        if jpeg is None or time.monotonic() - made_at > max_age:
            jpeg = _session().topdown_jpeg()
            extension["topdown"] = (time.monotonic(), jpeg)
        return jpeg


def _still(jpeg: bytes | None, missing: str) -> Response:
    if jpeg is None:
        raise ServiceUnavailable(missing)
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})
