"""Serve the web UI over the fake session for a look by hand: python -m tests.webui.dev_server [PORT]."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.webui.fake_replay import load_report
from tests.webui.fake_session import FakeSession
from webui.app import create_app
from webui.serve import make_server

if __name__ == "__main__":
    recordings = Path(tempfile.mkdtemp()) / "recordings"
    (recordings / "demo-game").mkdir(parents=True)
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    app = create_app(FakeSession(), "1234", str(recordings), report_loader=load_report)
    print(f"http://127.0.0.1:{port}/  PIN 1234", flush=True)
    make_server(app, "127.0.0.1", port).run()
