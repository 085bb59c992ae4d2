"""Every HTTP route and query parameter, fed what a broken page or a hostile script might send.

Runs over the tracker's real TableSession (the flat test game), so a payload that slips past
the web UI's validation reaches the real game. Whatever comes in, the answer is a status
below 500 with a JSON `message` (or the route's own content), never a traceback, and a refused
control changes nothing.
"""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.tracker.flat import GameFrames, flat_pipeline
from tracker.game import Game
from tracker.runner import GameRunner
from tracker.session import TableSession
from webui.actions import ACTIONS
from webui.app import create_app

PIN = "5173"
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["m1", "m2", "m3", "red", "infantry", "next", "blast", "world-at-fire", ""]),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
# Payloads shaped like the real ones, with fields swapped for junk, reach deeper than pure noise.
FIELDS = [
    "ruleset",
    "table",
    "width_cm",
    "depth_cm",
    "step_cm",
    "model_ids",
    "side",
    "unit",
    "type",
    "terrain",
    "objectives",
    "kind",
    "sides",
    "to",
    "model_id",
    "x_cm",
    "y_cm",
    "radius_cm",
    "polygon_cm",
    "id",
    "diameter_mm",
    "weapons",
    "heading_deg",
    "length_cm",
    "width_cm",
]
payloads = st.dictionaries(st.sampled_from(FIELDS), json_value, max_size=6) | json_value
query_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40) | st.sampled_from(
    [
        "m1",
        "m2",
        "red-1",
        "1,2",
        "-5.5,3",
        "9" * 400 + ",1",
        "1e999,0",
        "../etc/passwd",
        "%00",
        "m1\x00",
        "\u00b2",
        "12\u00b3",
    ]
)


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    recordings = tmp_path_factory.mktemp("recordings")
    (recordings.parent / "outside.tsr").write_bytes(b"SQLite format 3\x00" + b"\0" * 100)
    session = TableSession(GameFrames, lambda: GameRunner(flat_pipeline(), Game()), description="flat game")
    session.start()
    deadline = time.monotonic() + 30
    while session.state()["status"]["camera"] == "ok" and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 0.5)
    session.apply("assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": "infantry"})
    session.apply("assign", {"model_ids": ["m3"], "side": "blue", "unit": "blue-1", "type": "infantry"})
    app = create_app(
        session,
        PIN,
        str(recordings),
        config={"SSE_MAX_S": 0.05, "SSE_HEARTBEAT_S": 0.02, "MJPEG_MAX_S": 0.05, "PIN_MAX_FAILURES": 10**9},
    )
    yield app.test_client(), session
    session.stop()


def strict_json(text: str) -> object:
    """JSON as a browser's JSON.parse reads it: NaN and Infinity are not JSON."""

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} in a JSON reply")

    return json.loads(text, parse_constant=refuse)


def assert_clean(response) -> None:
    """A 503 (no picture yet) is an answer too; any other 5xx is a crash."""
    assert response.status_code < 500 or response.status_code == 503, response.get_data(as_text=True)[:300]
    if response.status_code >= 400:
        body = strict_json(response.get_data(as_text=True))
        assert isinstance(body, dict) and body.get("message"), body
        assert "Traceback" not in body["message"]
    elif response.mimetype == "application/json":
        strict_json(response.get_data(as_text=True))


@FUZZ
@given(action=st.sampled_from(sorted(ACTIONS)) | st.text(max_size=12), payload=payloads)
def test_any_action_body_is_answered_cleanly_and_a_refusal_changes_nothing(rig, action, payload):
    client, session = rig
    before = session.state()
    response = client.post(
        f"/api/action/{action}",
        data=json.dumps(payload),
        headers={"X-Table-Pin": PIN},
        content_type="application/json",
    )
    assert_clean(response)
    if response.status_code >= 400:
        assert session.state() == before


@FUZZ
@given(
    body=st.binary(max_size=300),
    content_type=st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
    ),
)
def test_raw_bytes_of_any_type_are_a_clean_400(rig, body, content_type):
    client, session = rig
    before = session.state()
    response = client.post(
        "/api/action/phase", data=body, headers={"X-Table-Pin": PIN}, content_type=content_type
    )
    assert_clean(response)
    if response.status_code >= 400:
        assert session.state() == before


@FUZZ
@example(a="9" * 400 + ",1", b="m1", route="/api/measure")  # a float that overflows to inf
@given(a=query_text, b=query_text, route=st.sampled_from(["/api/measure", "/api/ranges"]))
def test_measure_and_ranges_take_any_query(rig, a, b, route):
    client, _ = rig
    query = {"a": a, "b": b} if route == "/api/measure" else {"from": a, "junk": b}
    assert_clean(client.get(route, query_string=query))


@FUZZ
@example(name="9" * 300)  # longer than a file name may be
@given(name=query_text)
def test_recording_names_never_reach_outside_the_folder(rig, name):
    client, _ = rig
    for route in (f"/api/recordings/{name}", f"/api/recordings/{name}/report", f"/static/{name}"):
        response = client.get(route)
        assert response.status_code < 500
        assert response.status_code != 200 or route.startswith("/static/")


@FUZZ
@given(
    last_event_id=query_text,
    path=st.sampled_from(
        ["/api/events", "/api/state", "/", "/stream.mjpg", "/frame.jpg", "/topdown.jpg", "/api/rulesets"]
    ),
)
def test_read_routes_take_any_header_and_query(rig, last_event_id, path):
    client, _ = rig
    last_event_id = last_event_id.replace("\n", "").replace("\r", "")  # HTTP cannot carry these
    if any(ord(c) > 255 for c in last_event_id):  # a header is Latin-1 on the wire
        last_event_id = last_event_id.encode().decode("latin-1")
    response = client.get(path, query_string={"x": last_event_id}, headers={"Last-Event-ID": last_event_id})
    assert_clean(response)
    response.close()
