"""The Replay list with a recording the server may not read (audit 19, P1, W-01): the others
still show, and the unreadable one is listed so that opening it says why."""

from __future__ import annotations

import errno

import pytest

from rules_core.errors import TablesightError


def test_one_unreadable_recording_hides_none_of_the_others(client, recordings_dir, monkeypatch) -> None:
    from tracker import recording

    (recordings_dir / "locked.tsr").write_bytes(b"")
    (recordings_dir / "locked.bin").write_bytes(b"")
    real = recording.is_recording

    def is_recording(path) -> bool:
        if path.name.startswith("locked"):  # as it raised before it said so in one line
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(recording, "is_recording", is_recording)
    response = client.get("/api/recordings")
    assert response.status_code == 200
    names = [r["name"] for r in response.get_json()["recordings"]]
    assert names == ["game-2026-11-29", "locked.tsr", "skirmish.tsr"]

    def says_so(path) -> bool:
        if path.name.startswith("locked"):
            raise TablesightError(f"cannot read {path} (Permission denied)", "check")
        return real(path)

    monkeypatch.setattr(recording, "is_recording", says_so)
    names = [r["name"] for r in client.get("/api/recordings").get_json()["recordings"]]
    assert names == ["game-2026-11-29", "locked.tsr", "skirmish.tsr"]


def test_a_recordings_folder_the_server_may_not_list_says_so(client, recordings_dir, monkeypatch) -> None:
    def refuses(self):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(type(recordings_dir), "iterdir", refuses)
    response = client.get("/api/recordings")
    assert response.status_code == 200
    body = response.get_json()
    assert body["recordings"] == []
    assert "cannot list its recordings folder (Permission denied)" in body["message"]


def test_a_recording_that_cannot_be_replayed_is_named_without_the_rigs_path(app, recordings_dir) -> None:
    """Opening it on a phone showed the rig's folder and the CLI's fix ('give a .tsr file written
    by `tablesight record`')."""
    def broken(path):
        raise TablesightError(f"{path} is not a tablesight recording (file is not a database)",
                              "give a .tsr file written by `tablesight record`")

    app.extensions["tablesight"]["report_loader"] = broken
    response = app.test_client().get("/api/recordings/skirmish.tsr")
    message = response.get_json()["message"]
    assert response.status_code == 400 and str(recordings_dir) not in message
    assert message.startswith("skirmish.tsr cannot be replayed: it is not a tablesight recording")
    assert "`tablesight record`" not in message and "Pick another recording" in message


def test_a_recording_with_no_frame_is_refused_on_the_phone_not_shown_as_a_game_of_0_frames(
    app, recordings_dir
) -> None:
    import sqlite3

    from tracker.replay import game_report
    from tracker.session import DEMO_RECORDING

    empty = recordings_dir / "empty.tsr"
    empty.write_bytes(DEMO_RECORDING.read_bytes())
    with sqlite3.connect(empty) as db:
        db.execute("DELETE FROM frames")
    app.extensions["tablesight"]["report_loader"] = game_report
    response = app.test_client().get("/api/recordings/empty.tsr")
    assert response.status_code == 400
    assert response.get_json()["message"].startswith(
        "empty.tsr cannot be replayed: it holds no frame to replay: its frames were deleted or lost"
    )


@pytest.mark.parametrize(("fix", "wal"), [
    ("update tablesight to replay it", False),  # a newer format: no -wal would mend it
    ("copy its -wal file beside it, or record anew", True),
])
def test_the_wal_advice_is_given_only_where_the_recording_s_own_fix_speaks_of_it(app, fix, wal) -> None:
    def refused(path):
        raise TablesightError(f"{path} was recorded by a newer tablesight", fix)

    app.extensions["tablesight"]["report_loader"] = refused
    message = app.test_client().get("/api/recordings/skirmish.tsr").get_json()["message"]
    assert message.endswith("Pick another recording from the list; a copy from another machine needs its "
                            "-wal file beside it." if wal else "Pick another recording from the list.")
