"""The bundled demo recording's layout and frames, for tests that run commands on real files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tracker.session import DEMO_RECORDING


def demo_layout_and_frames() -> tuple[str, list[bytes]]:
    """The layout JSON the demo game was recorded with, and its frames' JPEGs in order."""
    with sqlite3.connect(f"file:{DEMO_RECORDING}?mode=ro", uri=True) as db:
        manifest = dict(db.execute("SELECT key, value FROM manifest"))
        jpegs = [row[0] for row in db.execute("SELECT jpeg FROM frames ORDER BY idx")]
    return manifest["layout"], jpegs


def demo_stills(folder: Path, count: int) -> Path:
    """The demo game's layout (layout.json) and `count` of its frames as stills in frames/ (the
    frames again from the first once they run out), for `record` and `track` on a folder."""
    layout, jpegs = demo_layout_and_frames()
    (folder / "layout.json").write_text(layout)
    (folder / "frames").mkdir()
    for index in range(count):
        (folder / "frames" / f"f{index:04d}.jpg").write_bytes(jpegs[index % len(jpegs)])
    return folder
