"""Fixtures: the web UI over the fake session, with a recordings folder of two games, and that
UI served on loopback and open in Chromium at a phone's size (the browser tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.webui.browser import PHONE, PIN, chromium, chromium_path, serving, settled
from tests.webui.fake_replay import load_report
from tests.webui.fake_rules import FakeRules
from tests.webui.fake_session import FakeSession
from webui import measuring
from webui.app import create_app

__all__ = ["PIN"]
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


@pytest.fixture(scope="module")
def browser():
    try:
        chromium_path()
    except RuntimeError as error:
        pytest.fail(str(error))  # CI installs Chromium: its absence is a failure, never a skip
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser, session, recordings_dir, monkeypatch):
    monkeypatch.setattr(measuring, "_rules_api", lambda: FakeRules())
    app = create_app(
        session,
        PIN,
        str(recordings_dir),
        report_loader=load_report,
        config={"SSE_HEARTBEAT_S": 0.5, "MJPEG_MAX_S": 5},
    )
    with serving(app) as url:
        # Playwright's waits evaluate strings, which the page's CSP forbids; one test below
        # loads the page under its real policy.
        context = browser.new_context(**PHONE, bypass_csp=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url + "/")
        page.wait_for_selector("#pieces circle[data-id='r1']")
        settled(page)
        yield page
        context.close()
        assert errors == []
