"""Who may do what on a club's Wi-Fi: anyone watches, only the PIN controls, nothing leaks.

These go over a real socket where the point is where the server listens, and through the
Flask test client (with a client address per request) for everything else.
"""

from __future__ import annotations

import json
import logging
import os
import types
import urllib.request

import pytest

from tests.webui.browser import serving
from tests.webui.conftest import PIN
from tests.webui.fake_session import FakeSession
from tracker.cli import build_parser
from webui import pin as pin_guard
from webui.actions import ACTIONS
from webui.app import create_app
from webui.serve import make_server

SAMPLE_PAYLOADS = {
    "setup": {"ruleset": "world-at-fire", "table": {"width_cm": 183, "depth_cm": 122}},
    "assign": {"model_ids": ["m9"], "side": "red", "unit": "red-inf-2", "type": "infantry"},
    "terrain": {"terrain": [{"id": "w", "kind": "forest", "polygon_cm": [[1, 1], [9, 1], [9, 9]]}]},
    "objectives": {"objectives": [{"id": "o", "x_cm": 90, "y_cm": 60}]},
    "deployment": {"kind": "breakthrough", "sides": {"red": "left", "blue": "right"}},
    "phase": {"to": "next"},
    "reset_model": {"model_id": "r3"},
    "template": {"kind": "grenade", "x_cm": 50, "y_cm": 50},
}


def post(client, action, pin, address="10.0.0.7", headers=None, **kwargs):
    headers = {**({"X-Table-Pin": pin} if pin is not None else {}), **(headers or {})}
    return client.post(
        f"/api/action/{action}",
        data=json.dumps(SAMPLE_PAYLOADS.get(action, {})),
        content_type="application/json",
        headers=headers,
        environ_base={"REMOTE_ADDR": address},
        **kwargs,
    )


def test_demo_and_serve_listen_on_the_lan_unless_told_otherwise():
    parser = build_parser()
    assert parser.parse_args(["demo"]).host == "0.0.0.0"
    assert parser.parse_args(["serve"]).host == "0.0.0.0"
    assert parser.parse_args(["demo", "--host", "127.0.0.1"]).host == "127.0.0.1"


def test_the_server_binds_only_the_address_it_is_given():
    server = make_server(create_app(FakeSession(), PIN), "127.0.0.1", 0)
    try:
        host, port = server.socket.getsockname()[:2]
        assert host == "127.0.0.1" and port > 0
    finally:
        server.close()


@pytest.mark.parametrize(
    "route",
    [
        "/",
        "/api/state",
        "/api/rulesets",
        "/frame.jpg",
        "/api/events",
        "/api/recordings",
        "/stream.mjpg",
        "/static/app.js",
    ],
)
def test_watching_needs_no_pin(client, route):
    response = client.get(route)
    assert response.status_code == 200
    response.close()


@pytest.mark.parametrize("action", sorted(ACTIONS))
@pytest.mark.parametrize("pin", [None, "", "0000", PIN + "0", PIN[:-1], f" {PIN}", "4821\x00"])
def test_every_control_needs_the_exact_pin_and_changes_nothing_without_it(app, session, action, pin):
    client = app.test_client()
    before = session.state()
    response = post(client, action, pin, address=f"10.1.{len(pin or '')}.{hash(action) % 250}")
    assert response.status_code == 403
    assert "PIN" in response.get_json()["message"]
    assert session.state() == before


def test_the_pin_counts_only_in_its_header(client, session):
    before = session.state()
    body = {**SAMPLE_PAYLOADS["phase"], "pin": PIN, "X-Table-Pin": PIN}
    for response in (
        client.post("/api/action/phase", json=body),
        client.post(f"/api/action/phase?pin={PIN}&X-Table-Pin={PIN}", json=SAMPLE_PAYLOADS["phase"]),
        client.post("/api/action/phase", json=SAMPLE_PAYLOADS["phase"], headers={"Cookie": f"pin={PIN}"}),
    ):
        assert response.status_code == 403
    assert session.state() == before


def test_wrong_pins_are_rate_limited_per_device_and_the_limit_ends(session, recordings_dir, monkeypatch):
    # The guard's clock stands still unless the test moves it: on a busy machine the guesses
    # below could otherwise take longer than the 1 s window, and the limit end before it is seen.
    now = [1000.0]
    monkeypatch.setattr(pin_guard, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    app = create_app(session, PIN, str(recordings_dir), config={"PIN_MAX_FAILURES": 5, "PIN_WINDOW_S": 1.0})
    client = app.test_client()
    for guess in range(5):
        assert post(client, "phase", f"{guess:04d}").status_code == 403
    limited = post(client, "phase", PIN)  # even the right PIN waits: the guesser must not learn it
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
    spoofed = post(client, "phase", "9999", headers={"X-Forwarded-For": "10.9.9.9", "X-Real-IP": "10.9.9.9"})
    assert spoofed.status_code == 429  # proxy headers from a phone are not trusted
    assert post(client, "phase", PIN, address="10.0.0.8").status_code == 200  # other players unaffected
    now[0] += 1.1  # the window has passed
    assert post(client, "phase", PIN).status_code == 200


def test_guessing_a_four_digit_pin_takes_hours_per_device(client):
    """5 wrong guesses a minute from one address: 10 000 PINs take 2000 minutes to try."""
    answers = [post(client, "undo", f"{guess:04d}", address="10.3.3.3").status_code for guess in range(50)]
    assert answers.count(403) == 5 and answers.count(429) == 45


@pytest.mark.parametrize(
    "name",
    [
        "../secret.txt",
        "..%2Fsecret.txt",
        "%2e%2e%2fsecret.txt",
        "..\\secret.txt",
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
        "....//secret.txt",
        "notes.txt/../../secret.txt",
        "%00",
        ".",
        "..",
    ],
)
def test_no_path_leaves_the_recordings_folder(client, name):
    for route in (f"/api/recordings/{name}", f"/api/recordings/{name}/report"):
        response = client.get(route, follow_redirects=True)  # "//" is merged by a redirect first
        assert response.status_code in (400, 404), (route, response.status_code)
        assert "not a recording" in response.get_data(as_text=True) or response.status_code == 404


def test_a_symlink_out_of_the_recordings_folder_is_refused(client, recordings_dir):
    outside = recordings_dir.parent / "outside.tsr"
    outside.write_bytes(b"SQLite format 3\x00" + b"\0" * 84)
    os.symlink(outside, recordings_dir / "link.tsr")
    assert client.get("/api/recordings/link.tsr").status_code == 400
    assert client.get("/api/recordings/link.tsr/report").status_code == 400


@pytest.mark.parametrize(
    "path", ["../app.py", "..%2Fapp.py", "%2e%2e/api.py", "../../pyproject.toml", "/etc/passwd", "..\\app.py"]
)
def test_static_files_stay_in_the_static_folder(client, path):
    assert client.get(f"/static/{path}", follow_redirects=True).status_code == 404


def test_a_body_over_the_size_limit_is_refused_before_it_is_read(client, session):
    before = session.state()
    huge = json.dumps({"terrain": [{"id": "t", "kind": "forest", "polygon_cm": [[0, 0]] * 40000}]})
    assert len(huge) > 256 * 1024
    response = client.post(
        "/api/action/terrain", data=huge, content_type="application/json", headers={"X-Table-Pin": PIN}
    )
    assert response.status_code == 413 and response.get_json()["message"]
    assert session.state() == before


def test_the_pin_never_reaches_the_log(app, caplog):
    client = app.test_client()
    with caplog.at_level(logging.DEBUG):
        post(client, "phase", PIN)
        post(client, "phase", "1357")
        client.post(
            "/api/action/assign",
            data="{not json",
            content_type="application/json",
            headers={"X-Table-Pin": PIN},
        )
        client.post(
            "/api/action/assign",
            json={"model_ids": ["nobody"], "side": "red", "unit": "u", "type": "infantry"},
            headers={"X-Table-Pin": PIN},
        )
        app.extensions["tablesight"]["session"].apply = boom
        client.post("/api/action/undo", json={}, headers={"X-Table-Pin": PIN})
    assert caplog.records, "the unexpected error must be logged"
    for record in caplog.records:
        assert PIN not in record.getMessage() and PIN not in (record.exc_text or "")


def boom(action, payload):
    raise RuntimeError("the pipeline thread fell over")


def test_a_real_server_answers_watchers_and_refuses_controls_without_the_pin():
    with serving(create_app(FakeSession(), PIN)) as base:
        with urllib.request.urlopen(f"{base}/api/state", timeout=5) as reply:
            assert reply.status == 200
        request = urllib.request.Request(
            f"{base}/api/action/undo",
            data=b"{}",
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 403


def test_another_site_gets_no_cors_permission_to_send_the_pin(client):
    """The PIN header makes a browser ask first; the rig never says yes to another origin."""
    asked = client.options("/api/action/phase", headers={
        "Origin": "http://evil.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "X-Table-Pin, Content-Type"})
    assert "Access-Control-Allow-Origin" not in asked.headers
    assert "Access-Control-Allow-Headers" not in asked.headers
