"""Replay reports, each made once and kept a while: a replay reruns the whole pipeline.

Loads of different recordings run side by side, `at_once` of them at most (each holds a
pipeline's memory): behind one lock for all, a phone opening a short game waited for another
phone's long one. A recording asked for while it loads is waited for, never loaded twice. The
`kept` reports used last stay; kept all, every game opened stayed in memory for the rig's life.
One report a recording: a new version's (the rig's own game, still being written) takes the old
one's place, which no phone can be shown again; kept beside it, a game opened a few times while it
was played pushed every other game out. A load that fails is not kept: the
recording, copied again in full, is loaded again.

An ask that gets no report within `wait_s` (every slot loading other recordings, or another phone's
load of the same one still running) is answered `Busy`, to be asked again: waiting without limit, it
held a server thread the while, and phones opening recordings ran the server out of them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


class Busy(Exception):
    """No report within the wait: `same` when another ask is loading this recording, else every
    slot is loading others."""

    def __init__(self, same: bool, at_once: int) -> None:
        super().__init__("the replay loads are busy")
        self.same = same
        self.at_once = at_once


class _Load:
    """One recording's load in progress, which later askers wait on."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.report: dict | None = None
        self.error: BaseException | None = None


class ReportCache:
    def __init__(self, kept: int, at_once: int, wait_s: float) -> None:
        self._kept = kept
        self._at_once = at_once
        self._wait_s = wait_s
        self._slots = threading.BoundedSemaphore(at_once)
        self._lock = threading.Lock()
        # A recording's version, and its report: the one used last at the end.
        self._reports: OrderedDict[Hashable, tuple[Hashable, dict]] = OrderedDict()
        self._loading: dict[tuple[Hashable, Hashable], _Load] = {}

    def get(self, recording: Hashable, version: Hashable, load: Callable[[], dict]) -> dict:
        """The report kept of `recording` at `version`, else the one `load()` makes (or is making)."""
        key = (recording, version)
        with self._lock:
            if self._reports.get(recording, (None,))[0] == version:
                self._reports.move_to_end(recording)
                return self._reports[recording][1]
            pending = self._loading.get(key)
            if pending is None:
                mine = self._loading[key] = _Load()
        if pending is not None:
            if not pending.done.wait(self._wait_s):
                raise Busy(same=True, at_once=self._at_once)
            if pending.error is not None:
                raise pending.error
            return pending.report
        try:
            if not self._slots.acquire(timeout=self._wait_s):
                raise Busy(same=False, at_once=self._at_once)  # its waiters too are told to ask again
            try:
                mine.report = load()
            finally:
                self._slots.release()
        except BaseException as error:
            mine.error = error
            raise
        finally:
            with self._lock:
                del self._loading[key]
                if mine.error is None:
                    self._keep(recording, version, mine.report)
            mine.done.set()
        return mine.report

    def _keep(self, recording: Hashable, version: Hashable, report: dict) -> None:
        self._reports.pop(recording, None)  # another version of it: the last made is the one kept
        self._reports[recording] = (version, report)
        while len(self._reports) > self._kept:
            self._reports.popitem(last=False)
