"""A video whose file name is not UTF-8 (a Latin-1 é, copied off an older system's stick):
OpenCV takes names as UTF-8 and died of a segmentation fault on it, with no word at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
READ = ("import os, sys; from pathlib import Path; from hardware.sources import open_source\n"
        "source = open_source(os.fsdecode(sys.argv[1].encode('latin-1')))\n"
        "count = 0\n"
        "while source.read() is not None: count += 1\n"
        "print(count, ascii(source.description))")


def test_a_video_named_in_latin_1_is_read_whole(tmp_path: Path) -> None:
    plain = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(plain), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for shade in range(6):
        writer.write(np.full((48, 64, 3), 40 * shade, np.uint8))
    writer.release()
    latin = os.fsencode(tmp_path) + b"/g\xe9me.avi"
    os.rename(plain, latin)
    # In a child: the crash this guards against would take the test run down with it.
    done = subprocess.run([sys.executable, "-c", READ, latin.decode("latin-1")], capture_output=True,
                          text=True, timeout=60, check=False, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, (done.returncode, done.stderr)
    count, description = done.stdout.split(" ", 1)
    assert int(count) == 6 and description.startswith("'video file ") and "g\\udce9me.avi" in description
