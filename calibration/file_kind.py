"""What kind of file a path names, where a regular file is expected.

A named pipe or a device passes `exists()` and opens like a file, then hangs the read (a pipe
nothing writes into), reads without end (/dev/zero) or reads as empty (its size is 0): each reader
of the users' files asks here first, without importing what reads the files themselves.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def pipe_or_device(path: str | Path) -> str | None:
    """"pipe" or "device" for a path naming one (what it names, for `/dev/stdin`), else None."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISFIFO(mode):
        return "pipe"
    return "device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else None
