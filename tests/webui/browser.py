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
def serving(app) -> Iterator[str]:
    """The app on 127.0.0.1 in a background thread; yields its base URL."""
    port = free_port()
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
