"""The `tablesight` entry point itself: what every command shares."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

# An MP4 cut off after its header: FFmpeg says "moov atom not found" when it opens it.
CUT_MP4 = b"\x00\x00\x00\x1cftypisom\x00\x00\x02\x00isomiso2mp41\x00\x00\x00\x08free"


def run_quietly_configured(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`tablesight ARGV` as a user runs it: with none of OpenCV's log settings in the environment."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("OPENCV_")}
    return subprocess.run([sys.executable, "-m", "tracker", *argv], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=120, check=False)


def run_into_a_closed_pipe(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """`tablesight ARGV | head -0`, without the race: the reader is gone before the first write."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run([sys.executable, "-m", "tracker", *argv], stdout=writer,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    finally:
        os.close(writer)


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    done = run_into_a_closed_pipe(["rules", "list"])
    assert done.stderr == ""
    assert done.returncode == 141  # as a shell reports a process ended by SIGPIPE


@pytest.mark.parametrize(("argv", "ours"), [
    (["track", "cut.mp4", "--layout", "183x122"], "cut.mp4 is not a video OpenCV can read"),  # FFmpeg's
    (["rectify", "cut.mp4", "--calibration", "c.json", "-o", "x.exr"], "no image format"),  # OpenCV's
])
def test_opencv_and_ffmpeg_print_nothing_before_our_line(tmp_path: Path, argv: list[str], ours: str) -> None:
    (tmp_path / "cut.mp4").write_bytes(CUT_MP4)
    done = run_quietly_configured(argv, tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"tablesight {argv[0]}: ") and ours in done.stderr
    assert done.stderr.count("\n") == 1
