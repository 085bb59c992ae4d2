"""Camera faults, told apart from bad input.

A `CameraFault` is a camera that was working and then failed (cable kicked, stream stalled).
It is still a `TablesightError`, so a CLI prints it in one line, but `ReconnectingSource`
catches it and tries again, because the fix is usually the camera coming back by itself.
"""

from __future__ import annotations

from rules_core.errors import TablesightError


class CameraFault(TablesightError):
    """A camera that was delivering frames stopped doing so."""


class SizeRefused(TablesightError):
    """A camera that is there but cannot deliver the `--size` asked of it: the fix is another
    size, not another camera (`serve` says "No camera" for the others)."""
