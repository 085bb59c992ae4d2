"""Pushed state (SSE), the MJPEG stream and the stills."""

from __future__ import annotations

import json
import threading
import zlib

from tests.webui.fake_session import FakeSession
from webui.app import create_app


def sse_events(body: str) -> list[dict]:
    """The states pushed (beats carry only the version)."""
    return [
        json.loads(line[len("data: ") :])
        for block in body.split("\n\n")
        if "event: state" in block.splitlines()
        for line in block.splitlines()
        if line.startswith("data: ")
    ]


def test_events_push_the_state_then_every_change(session):
    # The model moves once the stream has sent the first state and waits for a change, not
    # after a fixed delay: on a busy machine that could fall before the stream began (then the
    # first state is already the moved one) or after its end.
    waiting = threading.Event()
    wait_for_change = session.wait_for_change

    def watched(version, timeout_s):
        waiting.set()
        return wait_for_change(version, timeout_s)

    session.wait_for_change = watched
    mover = threading.Thread(target=lambda: waiting.wait(10) and session.move_model("r1", 33.0, 31.0))
    mover.start()
    app = create_app(session, "1234", config={"SSE_MAX_S": 1.5, "SSE_HEARTBEAT_S": 0.1})
    response = app.test_client().get("/api/events")
    body = response.get_data(as_text=True)
    mover.join()
    assert response.mimetype == "text/event-stream"
    states = sse_events(body)
    assert [s["version"] for s in states] == [1, 2]
    assert next(m for m in states[1]["models"] if m["id"] == "r1")["x_cm"] == 33.0
    assert body.startswith("retry: 1000")
    assert "event: beat\ndata: 2\n\n" in body  # an event the page hears, not a comment


def test_events_come_gzipped_to_a_browser_each_readable_as_it_is_sent(session):
    """Every state whole (9 KB) was 65-85 kbit/s on the demo game, more than weak club Wi-Fi
    carries; a phone fell further behind while its pill said "ok"."""
    app = create_app(session, "1234", config={"SSE_MAX_S": 30, "SSE_HEARTBEAT_S": 30})
    response = app.test_client().get("/api/events", headers={"Accept-Encoding": "gzip, deflate, br"},
                                     buffered=False)
    assert response.headers["Content-Encoding"] == "gzip" and response.mimetype == "text/event-stream"
    unpacker, text, sent = zlib.decompressobj(16 + zlib.MAX_WBITS), "", 0
    chunks = iter(response.response)
    while "data: " not in text or not text.endswith("\n\n"):  # no more than the first state is waited for
        chunk = next(chunks)
        sent += len(chunk)
        text += unpacker.decompress(chunk).decode()
    response.close()
    assert sse_events(text)[0]["version"] == 1
    assert sent < len(text)


def test_events_come_plain_to_a_client_that_takes_no_gzip(client):
    response = client.get("/api/events", headers={"Last-Event-ID": "1"})
    assert "Content-Encoding" not in response.headers
    assert response.get_data(as_text=True).startswith("retry: 1000")


def event_ids(body: str) -> list[str]:
    return [line[len("id: ") :] for line in body.splitlines() if line.startswith("id: ")]


def test_events_resume_without_repeating_a_state_already_seen(client):
    seen = event_ids(client.get("/api/events").get_data(as_text=True))[-1]
    response = client.get("/api/events", headers={"Last-Event-ID": seen})
    assert sse_events(response.get_data(as_text=True)) == []


def test_the_state_names_the_run_of_the_rig_that_serves_it(session):
    """A phone left open tells a restarted rig (a new game) from the one it was talking to."""
    first, second = (create_app(session, "1234", config={"SSE_MAX_S": 0.3}).test_client() for _ in range(2))
    run = first.get("/api/state").get_json()["status"]["run"]
    assert run and first.get("/api/state").get_json()["status"]["run"] == run
    assert sse_events(first.get("/api/events").get_data(as_text=True))[0]["status"]["run"] == run
    assert second.get("/api/state").get_json()["status"]["run"] != run


def test_events_after_a_restart_push_the_new_games_state_whatever_version_was_seen(session):
    """A restarted rig counts its versions from 1 again: a phone back with the old run's last id,
    the same number, was sent nothing, and kept showing the old game until the table changed."""
    old = create_app(FakeSession(), "1234", config={"SSE_MAX_S": 0.3}).test_client()
    seen = event_ids(old.get("/api/events").get_data(as_text=True))[-1]
    restarted = create_app(session, "1234", config={"SSE_MAX_S": 0.3}).test_client()
    response = restarted.get("/api/events", headers={"Last-Event-ID": seen})
    assert [s["version"] for s in sse_events(response.get_data(as_text=True))] == [1]


def test_events_connection_ends_so_threads_are_not_held(session):
    app = create_app(session, "1234", config={"SSE_MAX_S": 0.3, "SSE_HEARTBEAT_S": 0.1})
    body = app.test_client().get("/api/events").get_data(as_text=True)
    assert body.count("event: beat") <= 4


def test_mjpeg_sends_frames_at_a_capped_rate(client, session):
    response = client.get("/stream.mjpg")
    assert response.mimetype == "multipart/x-mixed-replace"
    body = response.get_data()
    parts = body.count(b"--tablesightframe\r\n")
    assert 1 <= parts <= 2  # one frame, resent only when it changes or as a keep-alive
    assert session.latest_jpeg() in body


def test_stills_are_jpeg(client):
    for route in ("/frame.jpg", "/topdown.jpg"):
        response = client.get(route)
        assert response.status_code == 200
        assert response.mimetype == "image/jpeg"
        assert response.data[:2] == b"\xff\xd8"


def test_stills_before_the_first_frame_are_503_with_a_message():
    session = FakeSession()
    session.latest_jpeg = lambda: None
    session.topdown_jpeg = lambda: None
    client = create_app(session, "1234").test_client()
    for route, word in (("/frame.jpg", "camera"), ("/topdown.jpg", "calibrated")):
        response = client.get(route)
        assert response.status_code == 503
        assert word in response.get_json()["message"]


def test_the_page_loads_local_assets_only(client):
    page = client.get("/").get_data(as_text=True)
    assert "<svg" in page or "app.js" in page
    assert "http://" not in page and "https://" not in page
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200


def test_the_top_down_picture_is_rectified_once_for_all_phones(session):
    calls = []
    rectify = session.topdown_jpeg
    session.topdown_jpeg = lambda: calls.append(1) or rectify()
    client = create_app(session, "1234", config={"TOPDOWN_MAX_AGE_S": 60}).test_client()
    bodies = {client.get("/topdown.jpg").data for _ in range(5)}
    assert len(calls) == 1 and len(bodies) == 1


def test_the_page_may_load_only_what_the_rig_serves(client):
    response = client.get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_non_finite_numbers_reach_the_page_as_null(client, session):
    with session._changed:
        session._state["status"]["fps"] = float("inf")
        session._state["status"]["calibration"]["rms_mm"] = float("nan")
        session._state["version"] += 1
        session._changed.notify_all()
    state = json.loads(client.get("/api/state").get_data(as_text=True))
    assert state["status"]["fps"] is None and state["status"]["calibration"]["rms_mm"] is None
    pushed = sse_events(client.get("/api/events").get_data(as_text=True))
    assert pushed[0]["status"]["fps"] is None


def test_streams_beyond_the_cap_are_refused_so_the_controls_keep_a_thread(session):
    app = create_app(session, "1234", config={"MAX_STREAMS": 2, "MJPEG_MAX_S": 5.0})
    phone = app.test_client()
    watching = [phone.get("/api/events", buffered=False), phone.get("/stream.mjpg", buffered=False)]
    assert [r.status_code for r in watching] == [200, 200]
    refused = phone.get("/stream.mjpg")
    assert refused.status_code == 503
    assert "Too many phones" in refused.get_json()["message"]
    assert phone.get("/api/state").status_code == 200
    watching[0].close()
    again = phone.get("/api/events", buffered=False)
    assert again.status_code == 200
    again.close()
    watching[1].close()


def test_events_come_plain_to_a_client_that_refuses_gzip_by_its_quality(client):
    response = client.get("/api/events", headers={"Accept-Encoding": "gzip;q=0", "Last-Event-ID": "1"})
    assert "Content-Encoding" not in response.headers
