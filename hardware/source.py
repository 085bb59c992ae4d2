"""The narrow interface between a camera (or a file, or a recording) and the pipeline.

The tracker and the web UI only ever call `read()` and `close()`; which device or file is
behind it is decided once, by `open_source()` in hardware.sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from rules_core.errors import TablesightError


@dataclass(frozen=True)
class Frame:
    """One picture of the table, BGR as OpenCV expects, with where and when it came from."""

    image: np.ndarray
    index: int
    timestamp_s: float
    name: str


class FrameSource(Protocol):
    """A stream of frames. `read()` returns None once the source has ended for good."""

    description: str

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


def passed_over(source: FrameSource) -> TablesightError | None:
    """What a source skipped or used damaged (a folder's unreadable stills, a recording's corrupt
    frames), with what to do; None when nothing was, or the source never does (a camera)."""
    damage = getattr(source, "damage", None)
    return damage() if damage is not None else None
