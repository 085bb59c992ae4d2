"""Reading the JSON files users hand to calibration: layouts, lens intrinsics, calibrations.

All three fail the same ways (missing, unreadable, not JSON, nested or numbered past what
Python parses), and each failure must be one line naming the file and the fix.
"""

from __future__ import annotations

import json
import os
import select
from pathlib import Path
from typing import Any

from calibration.file_kind import pipe_or_device
from rules_core.errors import TablesightError


def read_json(path: str | Path, what: str, option: str, written_by: str, max_bytes: int | None = None) -> Any:
    """The parsed content of `path`, a `what` file given by `option`, as `written_by` writes it;
    refused past `max_bytes` (MAX_BYTES if not given)."""
    if not str(path).strip():  # Path("") is the current folder, which would read as a folder
        raise TablesightError(f"{option} is empty", f"give {written_by}")
    try:
        data = read_bounded(path, what, max_bytes)
        # utf-8-sig: a file saved with a byte order mark (Windows Notepad, PowerShell) reads too
        return json.loads(data.decode("utf-8-sig"))
    except UnreadFile as error:
        raise TablesightError(str(error), f"give {written_by}") from None
    except FileNotFoundError:
        raise TablesightError(f"{what} file {path} not found", f"check the {option} path") from None
    except IsADirectoryError:
        raise TablesightError(f"{what} file {path} is a folder", f"give {written_by}") from None
    except (OSError, ValueError, RecursionError) as error:  # ValueError: bad JSON, text or number
        raise TablesightError(f"{what} file {path} is not readable JSON ({error})",
                              f"give {written_by}") from None


# A pipe's writer starts with the command (`--layout <(cat layout.json)`) and writes at once; one
# silent this long is a named pipe nothing will write into, which was waited on without end.
PIPE_WAIT_S = 10.0
# Far over any layout, lens or calibration file: a device such as /dev/zero is refused at this,
# where it was read until memory ran out.
MAX_BYTES = 64 * 2**20


class UnreadFile(Exception):
    """A file not read whole, for the reason given: the caller adds the fix."""


def read_bounded(path: str | Path, what: str, max_bytes: int | None = None) -> bytes:
    """The file's content, at most `max_bytes` (MAX_BYTES if not given), from a pipe only once
    something writes into it."""
    limit = MAX_BYTES if max_bytes is None else max_bytes
    if pipe_or_device(path) == "pipe":  # else open() below says what is wrong with the path
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # returns with no writer yet
        with os.fdopen(descriptor, "rb") as pipe:
            waiting = select.poll()  # select.select refuses a descriptor past 1023
            waiting.register(descriptor, select.POLLIN)
            if not waiting.poll(PIPE_WAIT_S * 1000):
                raise UnreadFile(f"{what} file {path} is a pipe nothing wrote into for {PIPE_WAIT_S:g} s")
            os.set_blocking(descriptor, True)
            data = pipe.read(limit + 1)
    else:
        with open(path, "rb") as file:
            data = file.read(limit + 1)
    if len(data) > limit:
        raise UnreadFile(f"{what} file {path} is over {limit // 2**20} MB: no {what} file is that large")
    return data
