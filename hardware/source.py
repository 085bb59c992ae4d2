"""The narrow interface between a camera (or a file, or a recording) and the pipeline.

The tracker and the web UI only ever call `read()` and `close()`; which device or file is
behind it is decided once, by `open_source()` in hardware.sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
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


def source_file(source: FrameSource, frame: Frame) -> Path | None:
    """The file a frame was read from (a folder's still), to name it by and read its EXIF tag;
    None where frames come from no file of their own (a camera, a video, a recording)."""
    file_of = getattr(source, "file_of", None)
    return file_of(frame) if file_of is not None else None


def passed_over(source: FrameSource) -> TablesightError | None:
    """What a source skipped or used damaged (a folder's unreadable stills, a recording's corrupt
    frames), with what to do; None when nothing was, or the source never does (a camera)."""
    damage = getattr(source, "damage", None)
    return damage() if damage is not None else None


def hold_for_the_game(source: FrameSource) -> bool:
    """Lock a camera's focus and exposure for the game once the table is calibrated (see
    hardware/picamera.py); a source without such controls (a file, a USB camera) is left as it
    is. True when the camera was locked just now."""
    hold = getattr(source, "hold_for_the_game", None)
    return bool(hold()) if callable(hold) else False


def let_go(source: FrameSource) -> bool:
    """Back to automatic focus and exposure, to be held again once calibrated anew: a player
    recalibrates after the light or the camera changed. False where there is no camera to let go
    just now (a file, or a camera away and being reconnected)."""
    unlock = getattr(source, "unlock", None)
    if callable(unlock):
        unlock()
    return callable(unlock)
