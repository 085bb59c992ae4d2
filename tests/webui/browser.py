"""Driving Debian's Chromium at a phone's size against the app served by waitress on loopback.

Used by the browser tests and by benchmarks/webui.py. Chromium comes from the system
(`apt install chromium`), never from `playwright install`: a machine without it fails the
browser tests with that instruction rather than skipping them.
"""

from __future__ import annotations

import shutil
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.webui.fake_session import RULESETS
from webui.serve import make_server

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 2,
}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PIN = "4821"  # the table PIN of the test apps (conftest.PIN)


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise RuntimeError(
            "Debian's Chromium is not installed: run `apt-get install chromium` (never `playwright install`)."
        )
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(app, port: int | None = None) -> Iterator[str]:
    """The app on 127.0.0.1 (on `port`, to stand in for a rig restarted) in a background thread;
    yields its base URL."""
    # Port 0: the kernel's pick, bound at once (a port found free and bound later may be taken
    # by another process in between).
    server = make_server(app, "127.0.0.1", port or 0)
    port = server.effective_port
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.task_dispatcher.shutdown(timeout=5)
        # Close every socket from waitress's own loop thread: its loop ends when none is left,
        # rather than finding a descriptor closed under its select().
        server.trigger.pull_trigger(lambda: [dispatcher.close() for dispatcher in list(server._map.values())])
        thread.join(timeout=5)


def hold_port(url: str) -> socket.socket:
    """The port of `url`, kept from other processes while nothing listens on it (bound with
    SO_REUSEADDR, not listening: connections are refused as by a rig that is gone), so the app
    can be served on it again (waitress sets SO_REUSEADDR too). Close it when done."""
    holder = socket.socket()
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.bind(("127.0.0.1", int(url.rsplit(":", 1)[1])))
    return holder


@contextmanager
def chromium() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"webui-{name}.png"))


def tap_table(page, x_cm: float, y_cm: float) -> None:
    """A finger on the table view at a table position."""
    x, y = page.evaluate(
        """([x, y]) => { const svg = document.querySelector('#overlay');
             const p = svg.createSVGPoint(); p.x = x; p.y = y;
             const s = p.matrixTransform(svg.getScreenCTM()); return [s.x, s.y]; }""",
        [x_cm, y_cm],
    )
    page.touchscreen.tap(x, y)


def settled(page) -> None:
    """Wait for what the page fetches once at start, after the first state: the live ruleset's
    tools (templates, deployment kinds) and the installed rulesets. Until then panels change
    size and content under a test's taps and reads."""
    page.wait_for_function(
        """() => Boolean(window.tablesight && window.tablesight.tools)
             && document.querySelectorAll('#ruleset option').length > 1"""
    )


def pushed(page, session) -> None:
    """Wait until the page has the state `session` holds now: a change made on the rig side
    reaches the page over the state stream a moment later, and the page decides what to send
    from the state it has."""
    page.wait_for_function(
        "version => Boolean(window.tablesight.live) && window.tablesight.live.version >= version",
        arg=session.state()["version"],
    )


def combined_arms(page, session) -> None:
    """The live game under Combined Arms (measured in inches, with templates), no deployment."""
    with session._changed:
        session._state["ruleset"] = dict(RULESETS["combined-arms"])
        session._state["deployment"] = None
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)
    page.wait_for_selector("[data-mode='template']:not([hidden])")


def enter_pin(page, pin: str = PIN) -> None:
    page.fill("#pin-input", pin)
    page.click("#pin-form button[value='ok']")


def assert_phone_friendly(page) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"horizontal scroll: {widths}"
    small = page.evaluate(
        """() => [...document.querySelectorAll('button, select, input, a.button')]
             .filter(e => e.offsetParent !== null && !e.closest('dialog'))
             .map(e => [e.textContent.trim() || e.id, e.getBoundingClientRect()])
             .filter(([, r]) => r.height < 44 || r.width < 44)
             .map(([name, r]) => `${name} ${r.width}x${r.height}`)"""
    )
    assert small == []
