"""The bundled demo recording's layout and frames, for tests that run commands on real files."""

from __future__ import annotations

import sqlite3

from tracker.session import DEMO_RECORDING


def demo_layout_and_frames() -> tuple[str, list[bytes]]:
    """The layout JSON the demo game was recorded with, and its frames' JPEGs in order."""
    with sqlite3.connect(f"file:{DEMO_RECORDING}?mode=ro", uri=True) as db:
        manifest = dict(db.execute("SELECT key, value FROM manifest"))
        jpegs = [row[0] for row in db.execute("SELECT jpeg FROM frames ORDER BY idx")]
    return manifest["layout"], jpegs
