"""Keep a game going when the camera drops out.

Cables get kicked and Wi-Fi cameras stall. `ReconnectingSource` stands between the pipeline
and a live source: when the source raises, or delivers nothing for `stall_s`, it closes it,
reopens it with exponential backoff (capped, so a returning camera is picked up within
`max_delay_s`), and tells the UI and the log what is going on through `status`. Corrupt
frames (not an 8-bit BGR picture) are dropped, and count as no frame. Its `read()`
waits through all of that and never raises for a camera fault, so the tracker and the game
state simply see a pause; it returns None only when a finite source has ended, or after
`close()`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from hardware.source import Frame, FrameSource
from rules_core.errors import TablesightError

log = logging.getLogger(__name__)

State = Literal["ok", "lost", "reconnecting"]


@dataclass(frozen=True)
class SourceStatus:
    """What the UI shows about the camera: a state to colour and a sentence to read."""

    state: State
    message: str


def _usable(image: object) -> bool:
    """A BGR picture the pipeline can use; anything else is a corrupt frame, dropped."""
    return (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
            and image.shape[2] == 3 and image.size > 0)


class ReconnectingSource:
    """A `FrameSource` that reopens the source `opener` builds whenever it fails or stalls."""

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        *,
        stall_s: float = 2.0,
        poll_s: float = 0.02,
        first_delay_s: float = 0.25,
        max_delay_s: float = 4.0,
        on_status: Callable[[SourceStatus], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self._opener = opener
        self._stall_s = stall_s
        self._poll_s = poll_s
        self._first_delay_s = first_delay_s
        self._max_delay_s = max_delay_s
        self._on_status = on_status
        self._clock = clock
        self._closing = threading.Event()
        self._sleep = sleep if sleep is not None else self._closing.wait
        self._inner: FrameSource | None = opener()
        self.description = self._inner.description
        self._index = 0
        self.corrupt_frames = 0
        self._size: tuple[int, int] | None = None
        self._last_frame_s = clock()
        self.status = SourceStatus("ok", f"{self.description} is delivering frames")

    def __getattr__(self, name: str) -> Any:
        """Optional methods of the camera (preview, lock_focus, ...) reach the current one."""
        inner = self.__dict__.get("_inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)

    def _report(self, state: State, message: str) -> None:
        if state == self.status.state and message == self.status.message:
            return
        self.status = SourceStatus(state, message)
        (log.info if state == "ok" else log.warning)("camera %s: %s", state, message)
        if self._on_status is not None:
            self._on_status(self.status)

    def read(self) -> Frame | None:
        while not self._closing.is_set():
            if self._inner is None:
                self._reconnect()
                continue
            live = getattr(self._inner, "live", False)
            try:
                frame = self._inner.read()
            except Exception as error:
                if not live:
                    raise  # a bad file is the user's to fix, not a camera to wait for
                log.debug("read from %s failed", self.description, exc_info=True)
                named = isinstance(error, TablesightError)  # already names the camera
                self._drop(error.problem if named else f"{self.description} failed: {error}")
                continue
            if frame is not None and _usable(frame.image):
                return self._deliver(frame)
            if frame is not None:
                self.corrupt_frames += 1
                log.debug("dropped a corrupt frame from %s", self.description)
            elif not live:
                return None
            if live:
                self._wait_or_drop()
        return None

    def _wait_or_drop(self) -> None:
        if self._clock() - self._last_frame_s >= self._stall_s:
            self._drop(f"{self.description} delivered nothing for {self._stall_s:g} s")
        else:
            self._sleep(self._poll_s)

    def _deliver(self, frame: Frame) -> Frame:
        self._last_frame_s = self._clock()
        size = (frame.image.shape[1], frame.image.shape[0])
        if self.status.state != "ok":
            changed = f", now {size[0]}x{size[1]} (was {self._size[0]}x{self._size[1]})" if (
                self._size is not None and size != self._size) else ""
            self._report("ok", f"{self.description} is back{changed}")
        self._size = size
        frame = replace(frame, index=self._index)
        self._index += 1
        return frame

    def _drop(self, reason: str) -> None:
        self._report("lost", reason)
        if self._inner is not None:
            try:
                self._inner.close()
            except Exception:
                log.debug("closing %s failed", self.description, exc_info=True)
        self._inner = None

    def _reconnect(self) -> None:
        delay = self._first_delay_s
        attempts = 0
        while not self._closing.is_set():
            attempts += 1
            try:
                self._inner = self._opener()
            except Exception as error:
                log.debug("reopening %s failed", self.description, exc_info=True)
                self._report(
                    "reconnecting",
                    f"{self.description} is not back yet ({error}); attempt {attempts}, next in {delay:g} s",
                )
                self._sleep(delay)
                delay = min(delay * 2, self._max_delay_s)
                continue
            self._last_frame_s = self._clock()
            return

    def close(self) -> None:
        """Stop for good; wakes a read() that is waiting for the camera to come back."""
        self._closing.set()
        inner, self._inner = self._inner, None
        if inner is not None:
            inner.close()
