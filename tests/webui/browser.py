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
    port = port or free_port()
    server = make_server(app, "127.0.0.1", port)
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
