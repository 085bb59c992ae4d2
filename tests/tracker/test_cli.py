"""The `tablesight` entry point itself: what every command shares."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence


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
