"""Fixtures: the web UI over the fake session, with a recordings folder of two games."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webui.fake_replay import load_report
from tests.webui.fake_session import FakeSession
from webui.app import create_app

PIN = "4821"
SQLITE_HEADER = b"SQLite format 3\x00"  # what the tracker's recordings start with


@pytest.fixture
def session() -> FakeSession:
    return FakeSession()


@pytest.fixture
def recordings_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "recordings"
    folder.mkdir()
    (folder / "game-2026-11-29").write_bytes(SQLITE_HEADER + b"\0" * 84)
    (folder / "skirmish.tsr").write_bytes(SQLITE_HEADER)
    (folder / "notes.txt").write_text("not a recording")
    (tmp_path / "secret.txt").write_text("not a recording")
    return folder


@pytest.fixture
def app(session, recordings_dir):
    return create_app(
        session,
        PIN,
        str(recordings_dir),
        report_loader=load_report,
        config={"SSE_MAX_S": 0.5, "SSE_HEARTBEAT_S": 0.1, "MJPEG_MAX_S": 0.5, "MJPEG_MAX_FPS": 20.0},
    )


@pytest.fixture
def client(app):
    return app.test_client()
