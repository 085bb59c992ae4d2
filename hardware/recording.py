"""Frames from a recorded game, whatever reads the recording.

The recording format belongs to tracker/recording.py; this source only needs its frames, as
`Frame`s or as (image, timestamp_s, name) tuples, so the tracker plugs its reader in and the
hardware package never learns the format.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from hardware.source import Frame

RecordedFrame = Frame | tuple[np.ndarray, float, str]


class RecordingSource:
    """Replays the frames a reader yields, in the reader's order."""

    live = False

    def __init__(self, frames: Iterable[RecordedFrame], description: str = "a recording") -> None:
        self.description = description
        self._frames: Iterator[RecordedFrame] = iter(frames)
        self._index = 0
        self._closed = False

    def read(self) -> Frame | None:
        if self._closed:
            return None
        recorded = next(self._frames, None)
        if recorded is None:
            return None
        image, timestamp_s, name = (
            (recorded.image, recorded.timestamp_s, recorded.name) if isinstance(recorded, Frame) else recorded
        )
        frame = Frame(image=image, index=self._index, timestamp_s=float(timestamp_s), name=name)
        self._index += 1
        return frame

    def close(self) -> None:
        self._closed = True
        close = getattr(self._frames, "close", None)
        if callable(close):
            close()
