"""What a hostile script or a clumsy phone sent the API in session 66's audit, and what it got.

Each case was taken by the rig before: numbers that are no numbers stored in the game or refused
without a field named, a list of thousands of objectives, a 200 KB field stored and pushed to every
phone, a 1 GB body written to the rig's card before it was refused.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

from rules_core import api as rules_api
from rules_core.errors import TablesightError
from tests.webui.browser import serving
from tests.webui.conftest import PIN
from tests.webui.fake_session import FakeSession
from tests.webui.test_stream import sse_events
from webui.actions import CORNERS_MAX, OBJECTIVES_MAX, TERRAIN_MAX
from webui.app import create_app

TRIANGLE = [[0, 0], [10, 0], [10, 10]]


def post_raw(client, action: str, raw: str):
    return client.post(f"/api/action/{action}", data=raw, content_type="application/json",
                       headers={"X-Table-Pin": PIN})


def objective(x_cm: str = "10", y_cm: str = "10", extra: str = "") -> str:
    return f'{{"objectives": [{{"id": "o9", "x_cm": {x_cm}, "y_cm": {y_cm}{extra}}}]}}'


def piece(corner: str = "10", extra: str = "") -> str:
    corners = f"[[0, 0], [10, 0], [{corner}, 10]]"
    return f'{{"terrain": [{{"id": "t9", "kind": "hill", "polygon_cm": {corners}{extra}}}]}}'


@pytest.mark.parametrize(
    ("action", "raw", "field"),
    [
        ("objectives", objective(x_cm="NaN"), "objectives.0.x_cm"),
        ("objectives", objective(y_cm="Infinity"), "objectives.0.y_cm"),
        ("objectives", objective(x_cm="1e309"), "objectives.0.x_cm"),
        ("objectives", objective(extra=', "diameter_mm": Infinity'), "objectives.0.diameter_mm"),
        ("terrain", piece(corner="NaN"), "terrain.0.polygon_cm.2.0"),
        ("terrain", piece(extra=', "height_cm": -Infinity'), "terrain.0.height_cm"),
        ("template", '{"kind": "grenade", "x_cm": 5, "y_cm": 5, "radius_cm": Infinity}', "radius_cm"),
        ("template", '{"kind": "grenade", "x_cm": NaN, "y_cm": 5}', "x_cm"),
    ],
)
def test_a_number_that_is_not_finite_is_refused_naming_its_field(client, session, action, raw, field):
    """`NaN` and `1e309` reached the game: the fake stored them, the real one answered "Input should
    be a finite number. Correct the scene." without saying which number."""
    before = session.state()
    response = post_raw(client, action, raw)
    assert response.status_code == 400
    told = response.get_json()["message"]
    assert f"'{field}'" in told and "finite" in told, told
    assert session.state() == before


@pytest.mark.parametrize(
    ("action", "raw", "field"),
    [
        ("objectives", objective(x_cm='"12"'), "objectives.0.x_cm"),
        ("objectives", objective(y_cm="true"), "objectives.0.y_cm"),
        ("terrain", piece(corner='"10"'), "terrain.0.polygon_cm.2.0"),
        ("terrain", piece(extra=', "level": true'), "terrain.0.level"),
        ("template", '{"kind": "grenade", "x_cm": "5", "y_cm": 5}', "x_cm"),
        ("phase", '{"to": "next", "from": {"turn": true, "phase": "movement"}}', "from.turn"),
    ],
)
def test_a_number_sent_as_text_or_true_is_refused(client, session, action, raw, field):
    """The rules core refuses a coordinate of `true` or `"12"` in a scene file; the web UI turned
    them into 1.0 and 12.0 first, so the game took them."""
    before = session.state()
    response = post_raw(client, action, raw)
    assert response.status_code == 400
    assert f"'{field}'" in response.get_json()["message"]
    assert session.state() == before


def test_objectives_and_terrain_keep_only_the_fields_a_scene_has(client, session):
    """A 100 KB field beside an objective was stored and sent to every phone with every state."""
    junk = ', "note": "' + "x" * 100_000 + '"'
    assert post_raw(client, "objectives", objective(extra=junk)).status_code == 200
    assert post_raw(client, "terrain", piece(extra=junk + ', "level": 1')).status_code == 200
    state = session.state()
    assert state["objectives"] == [{"id": "o9", "x_cm": 10.0, "y_cm": 10.0}]
    corners = [(0, 0), (10, 0), (10, 10)]
    assert state["terrain"] == [{"id": "t9", "kind": "hill", "polygon_cm": corners, "level": 1}]
    assert len(client.get("/api/state").data) < 20_000


def objectives(count: int) -> dict:
    return {"objectives": [{"id": f"o{i}", "x_cm": 10 + i, "y_cm": 10} for i in range(count)]}


def terrain(count: int, corners: int = 3) -> dict:
    first = [[50 + 20 * (i % 2), 50 + i / corners] for i in range(corners)]  # a zigzag: only counted
    return {"terrain": [{"id": f"t{i}", "kind": "hill", "polygon_cm": first if i == 0 else TRIANGLE}
                        for i in range(count)]}


@pytest.mark.parametrize(
    ("action", "body", "told"),
    [
        ("objectives", objectives(OBJECTIVES_MAX + 1),
         f"A table takes at most {OBJECTIVES_MAX} objectives, not {OBJECTIVES_MAX + 1}. Tap Clear"),
        ("terrain", terrain(TERRAIN_MAX + 1),
         f"A table takes at most {TERRAIN_MAX} terrain pieces, not {TERRAIN_MAX + 1}. Tap Clear terrain"),
        ("terrain", terrain(1, corners=CORNERS_MAX + 1),
         f"Terrain piece t0 has {CORNERS_MAX + 1} corners: a piece takes at most {CORNERS_MAX}. Draw it"),
    ],
)
def test_more_objectives_terrain_or_corners_than_a_table_holds_are_refused(
    client, session, action, body, told
):
    """4000 objectives were taken (390 ms a post, an 800 KB state to every phone, and, replayed into
    each loop of the demo, 1.2 MB of the rig's memory a post), and so were 160 terrain pieces
    (3.1 s a post, the pipeline held the while)."""
    before = session.state()
    response = post_raw(client, action, json.dumps(body))
    assert response.status_code == 400
    assert response.get_json()["message"].startswith(told), response.get_json()["message"]
    assert session.state() == before


def test_a_table_full_of_objectives_terrain_and_corners_is_taken(client, session):
    assert post_raw(client, "objectives", json.dumps(objectives(OBJECTIVES_MAX))).status_code == 200
    assert post_raw(client, "terrain", json.dumps(terrain(TERRAIN_MAX, CORNERS_MAX))).status_code == 200
    assert len(session.state()["terrain"]) == TERRAIN_MAX


def test_a_null_body_is_told_to_be_an_object_not_called_invalid_json(client, session):
    response = post_raw(client, "phase", "null")
    assert response.status_code == 400
    assert response.get_json()["message"].startswith("The body of 'phase' must be a JSON object")


def test_a_crossed_terrain_piece_is_named_with_what_to_do_on_the_phone(client, session, monkeypatch):
    """Corners tapped out of order make a bow tie: the phone said "Not a simple polygon
    (Self-intersection[5 5]). Correct the scene." The refusal here is the rules core's own."""
    bow_tie = {"id": "terrain2", "kind": "forest", "polygon_cm": [[0, 0], [10, 10], [10, 0], [0, 10]]}
    terrain = [{"id": "terrain1", "kind": "hill", "polygon_cm": TRIANGLE}, bow_tie]

    def the_rules_cores_refusal(action, payload):
        rules_api.parse_scene({"ruleset": "world-at-fire", "table": {"width_cm": 183, "depth_cm": 122},
                               "models": [], "terrain": payload["terrain"]}, allow_off_table=True)

    monkeypatch.setattr(session, "apply", the_rules_cores_refusal)
    with pytest.raises(TablesightError):
        the_rules_cores_refusal("terrain", {"terrain": terrain})
    response = post_raw(client, "terrain", json.dumps({"terrain": terrain}))
    assert response.status_code == 400
    told = response.get_json()["message"]
    assert told.startswith("Terrain piece terrain2: not a simple polygon"), told
    assert told.endswith("Draw it again, tapping its corners in order round its edge, "
                         "or tap Clear terrain under Terrain."), told


def test_a_body_far_over_the_limit_is_cut_off_before_the_rig_stores_it():
    """Waitress took up to 1 GB of a body into a file on the rig's card before the app refused it
    (200 MB seen in /tmp for one request): it now answers as soon as the length is said."""
    with serving(create_app(FakeSession(), PIN)) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5) as phone:
            phone.sendall(b"POST /api/action/terrain HTTP/1.1\r\nHost: rig\r\nX-Table-Pin: " + PIN.encode()
                          + b"\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n")
            started = time.monotonic()
            answer = phone.recv(200)
        assert answer.startswith(b"HTTP/1.1 413") and time.monotonic() - started < 5


@pytest.mark.parametrize("seen", ["9" * 5000, "0" * 4301], ids=["5000 nines", "4301 zeros"])
def test_a_last_event_id_of_thousands_of_digits_starts_the_stream_afresh(app, client, session, seen):
    """The rig's own run and a 5000-digit version: `int()` refused it (Python takes 4300 digits at
    most) and the state stream was a 500 with a traceback in the rig's log."""
    run = app.extensions["tablesight"]["run"]
    response = client.get("/api/events", headers={"Last-Event-ID": f"{run}.{seen}"})
    assert response.status_code == 200
    assert sse_events(response.get_data(as_text=True))[0]["version"] == session.state()["version"]


@pytest.mark.parametrize("query", ["a=red-inf-1&b=b1", "a=r1&b=blue-inf-1"])
def test_a_ruler_from_a_unit_says_it_runs_between_models(client, query):
    """A unit's name took the ruler past the web UI's check to the rules core, which answered in the
    CLI's words: "A: unknown model id 'red-inf-1'. use an id from the scene's models."."""
    response = client.get(f"/api/measure?{query}")
    assert response.status_code == 400
    told = response.get_json()["message"]
    assert told.startswith("No model '"), told
    assert told.endswith("Tap a model that is shown, or a point on the table."), told


@pytest.mark.parametrize(("name", "shown"), [("red\u202einf", "U+202E"), ("red\x00inf", "U+0000"),
                                             ("red\ninf", "U+000A")])
def test_a_name_with_a_control_character_is_refused(client, name: str, shown: str) -> None:
    """A right-to-left override shows a unit's name backwards on every other phone ("fni-der"), and a
    NUL or a line break is no name a player types: they were taken."""
    body = {"model_ids": ["r1"], "side": "red", "unit": name, "type": "infantry"}
    reply = post_raw(client, "assign", json.dumps(body))
    assert reply.status_code == 400
    assert reply.get_json()["message"] == (f"Unit holds a control character ({shown}), which no name "
                                           "has. Type it again with letters, digits and spaces.")


@pytest.mark.parametrize(("name", "shown"), [("red\u061cinf", "U+061C"), ("red\u2028inf", "U+2028")])
def test_a_name_with_an_arabic_letter_mark_or_a_line_separator_is_refused(client, name: str,
                                                                          shown: str) -> None:
    body = {"model_ids": ["r1"], "side": "red", "unit": name, "type": "infantry"}
    reply = post_raw(client, "assign", json.dumps(body))
    assert reply.status_code == 400 and f"({shown})" in reply.get_json()["message"]


def test_a_refusal_shows_a_refused_key_s_control_character_as_its_code(client) -> None:
    """The key is where the refusal names the field: said raw, the override turned the message."""
    body = {"ruleset": "world-at-fire", "retype": {"a\u202e": "b"}}
    message = post_raw(client, "setup", json.dumps(body)).get_json()["message"]
    assert "\u202e" not in message and "a\\u202e" in message


def test_a_terrain_level_written_as_a_whole_float_is_taken(client) -> None:
    """A preset may hold level 2.0 (the rules core takes it); the page sends the live terrain back
    with each new piece, and every later piece was refused."""
    def level(written: str) -> str:
        piece = f'{{"id": "t1", "kind": "hill", "polygon_cm": {TRIANGLE}, "level": {written}}}'
        return f'{{"terrain": [{piece}]}}'

    assert post_raw(client, "terrain", level("2.0")).status_code == 200
    assert post_raw(client, "terrain", level("2.5")).status_code == 400
