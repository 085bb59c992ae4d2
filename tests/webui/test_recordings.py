"""Replay: the recordings folder, its guard against traversal, timelines and the report."""

from __future__ import annotations

import pytest

from tests.webui.conftest import PIN
from tests.webui.fake_replay import load_report
from tests.webui.fake_session import FakeSession
from webui.app import create_app


def test_list_recordings(client):
    body = client.get("/api/recordings").get_json()
    names = [r["name"] for r in body["recordings"]]
    assert names == ["game-2026-11-29", "skirmish.tsr"]
    assert body["recordings"][0]["size_bytes"] == 100


def test_without_a_recordings_folder_the_list_is_empty_and_says_why():
    client = create_app(FakeSession(), "1234").test_client()
    body = client.get("/api/recordings").get_json()
    assert body["recordings"] == [] and "folder" in body["message"]
    assert client.get("/api/recordings/game").status_code == 404


def test_timeline_is_flat_snapshots_with_turn_starts(client):
    body = client.get("/api/recordings/game-2026-11-29").get_json()
    assert [(s["turn"], s["phase"]) for s in body["snapshots"]] == [
        (1, "movement"),
        (1, "shooting"),
        (2, "movement"),
        (2, "shooting"),
    ]
    assert body["turns"] == [{"turn": 1, "index": 0}, {"turn": 2, "index": 2}]
    assert body["table"] == {"width_cm": 183.0, "depth_cm": 122.0}
    assert body["snapshots"][0]["moves"]["models"]["r3"]["legal"] is False


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("..%2Fsecret.txt", 400),
        ("../secret.txt", 400),
        ("%2E%2E", 400),
        ("game-2026-11-29%2F..%2F..%2Fsecret.txt", 400),
        ("%2Fetc%2Fpasswd", 400),
        ("nothing-like-this", 404),
    ],
)
def test_names_outside_the_folder_are_refused(client, name, status):
    for suffix in ("", "/report"):
        response = client.get(f"/api/recordings/{name}{suffix}", follow_redirects=True)
        assert response.status_code == status, (name, suffix)
        assert response.get_json()["message"]


def test_a_symlink_out_of_the_folder_is_refused(client, recordings_dir, tmp_path):
    (recordings_dir / "escape").symlink_to(tmp_path / "secret.txt")
    assert client.get("/api/recordings/escape").status_code == 400


def test_report_is_self_contained_html_with_a_plot_per_turn(client):
    response = client.get("/api/recordings/game-2026-11-29/report")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert "attachment" in response.headers["Content-Disposition"]
    html = response.get_data(as_text=True)
    assert html.count("<svg") == 2
    assert "<script" not in html and "src=" not in html and "href=" not in html
    assert "moved 16.2 cm, infantry may move 15 cm" in html
    assert 'points="20.0,40.0 36.2,40.0"' in html  # r3's turn-1 trail
    assert '<span style="color: #d32f2f">&#9679; red</span>' in html  # the legend


def test_a_recording_the_replay_engine_cannot_read_is_a_400(session, recordings_dir):
    from rules_core.errors import TablesightError

    def broken(path):
        raise TablesightError(f"Recording {path.name} is truncated at frame 12", "It opens up to there")

    client = create_app(session, "1234", str(recordings_dir), report_loader=broken).test_client()
    response = client.get("/api/recordings/skirmish.tsr")
    assert response.status_code == 400
    assert "truncated" in response.get_json()["message"]


def test_report_escapes_names(session, recordings_dir):
    from tests.webui.fake_replay import demo_report

    def hostile(path):
        report = demo_report()
        report["turns"][0]["phases"][0]["models"][0]["id"] = "<script>alert(1)</script>"
        return report

    client = create_app(session, "1234", str(recordings_dir), report_loader=hostile).test_client()
    html = client.get("/api/recordings/skirmish.tsr/report").get_data(as_text=True)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_a_recording_is_replayed_once_however_many_phones_open_it(session, recordings_dir):
    import threading

    from tests.webui.fake_replay import demo_report

    calls = []

    def slow(path):
        calls.append(path)
        threading.Event().wait(0.2)
        return demo_report()

    app = create_app(session, "1234", str(recordings_dir), report_loader=slow)
    phones = [
        threading.Thread(target=lambda: app.test_client().get("/api/recordings/skirmish.tsr"))
        for _ in range(4)
    ]
    for phone in phones:
        phone.start()
    for phone in phones:
        phone.join()
    assert len(calls) == 1


def test_the_kept_report_gives_moves_in_the_game_s_unit(session, recordings_dir):
    """A combined-arms game's moves were said in cm, where the table and the replay said inches."""
    def in_inches(path):
        return {**load_report(path), "ruleset": "combined-arms", "unit": "in", "unit_cm": 2.54}

    client = create_app(session, PIN, str(recordings_dir), report_loader=in_inches).test_client()
    html = client.get("/api/recordings/game-2026-11-29/report").get_data(as_text=True)
    assert "<td>r3</td><td>red</td><td>6.4 in</td>" in html and "<td>16.2 cm</td>" not in html
