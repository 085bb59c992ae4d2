"""Writing a command's output file whole: a model, a report.

The output may replace one the user keeps (the shipped model, last game's report), so it is
written beside it and renamed over it; a failed write (a full disk, an interrupted run)
leaves the old file as it was instead of half a new one.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path


def replace_atomically(out: Path, write: Callable[[Path], object]) -> None:
    """`write` a file beside `out`, then rename it over `out`; its errors propagate, and
    removing the half-written file never hides them."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    try:
        write(partial)
        os.replace(partial, out)
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
