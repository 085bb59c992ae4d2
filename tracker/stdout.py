"""The command's stdout as it meets the world: closed (`>&-`), gone (`| head`), or full (`> out.json`
on a full disk). Each is the user's setting, not a bug, so each ends in one line or in silence."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO


class WatchedStdout:
    """sys.stdout, remembering a write it could not make: an OSError that reaches the CLI is a
    bug of ours unless it came from here, and only stdout itself can tell which."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.error: OSError | None = None

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except OSError as error:
            self.error = error
            raise

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as error:
            self.error = error
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def fill_closed_streams() -> None:
    """`tablesight ... >&-` starts with no stdout (Python sets it to None): the command still
    runs and its output goes nowhere. Opening devnull also takes the closed descriptor, so a file
    the command opens later (a recording, a report) cannot land on it and receive the output."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the process


def discard_stdout() -> None:
    """Point stdout at devnull, so the interpreter's last flush does not fail a second time."""
    with open(os.devnull, "wb") as devnull:
        os.dup2(devnull.fileno(), sys.stdout.fileno())
