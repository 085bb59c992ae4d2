"""What the tracker knows about each physical piece, and the per-frame record it publishes.

A track is one model or vehicle for the whole game. Its position is the last *settled*
position: while hands are over the table nothing moves in the record, a covered piece is only
marked not visible. That is what makes a lift-and-place move one clean step for the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tracker.appearance import Look


@dataclass
class Track:
    """One model (round base) or vehicle (hull footprint) on the table."""

    id: str
    kind: str  # "model" or "vehicle"
    xy_cm: np.ndarray
    diameter_mm: float = 0.0
    length_cm: float = 0.0
    width_cm: float = 0.0
    heading_deg: float = 0.0
    appearance: Look | None = None
    visible: bool = True
    missed: int = 0
    covered: bool = False  # missing under something laid over it (tracker.cover), not counted missed
    under_hand: bool = False  # missing under a hand resting still, not counted missed
    # For each detection that missed it, where the picture came to differ (None: everywhere):
    # where a hand may have put it meanwhile, so where it may be found again.
    lost_in: list[Callable[[np.ndarray], np.ndarray] | None] = field(default_factory=list)
    # Where the rigid move of the pieces beside it would have put it while it went missing.
    expected_xy: np.ndarray | None = None
    # When it was retired as missing (the frame's time, s), where the tracker was told the time.
    retired_s: float | None = None

    @property
    def looked_for_xy(self) -> np.ndarray:
        """Where a lost track is looked for: where that rigid move took it, else where it stood."""
        return self.xy_cm if self.expected_xy is None else self.expected_xy

    def to_model_json(self) -> dict:
        return {"track_id": self.id, "x_cm": round(float(self.xy_cm[0]), 2),
                "y_cm": round(float(self.xy_cm[1]), 2), "diameter_mm": _nominal(self.diameter_mm),
                "visible": self.visible}

    def to_vehicle_json(self) -> dict:
        return {"track_id": self.id, "x_cm": round(float(self.xy_cm[0]), 2),
                "y_cm": round(float(self.xy_cm[1]), 2),
                "heading_deg": round(float(self.heading_deg), 1) % 360.0, "visible": self.visible,
                "length_cm": round(float(self.length_cm), 2), "width_cm": round(float(self.width_cm), 2)}


def spot_points(xy_cm: np.ndarray, radius_cm: np.ndarray, reach: float) -> np.ndarray:
    """(n, 5, 2): each piece's centre and the points `reach` of its radius out, four ways: where a
    piece's spot is probed for a hand over it or a change of the picture."""
    compass = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]) * reach
    return np.asarray(xy_cm)[:, None, :] + compass[None] * np.asarray(radius_cm)[:, None, None]


def _nominal(diameter_mm: float) -> int | float:
    return int(diameter_mm) if float(diameter_mm).is_integer() else round(float(diameter_mm), 1)


@dataclass(frozen=True)
class TrackChanges:
    """What one settled update changed: the events the game logs. `returned`: pieces retired
    as missing that the detector found again (Tracker._revive), back under their old ids."""

    moved: dict[str, tuple[tuple[float, float], tuple[float, float]]] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    returned: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.moved or self.added or self.removed or self.returned)


@dataclass(frozen=True)
class FrameResult:
    """One frame through the pipeline: the JSON line of `tablesight track`."""

    frame: int
    source: str
    settled: bool
    models: list[dict]
    vehicles: list[dict]
    changes: TrackChanges = field(default_factory=TrackChanges)
    timestamp_s: float = 0.0
    detected: bool = False

    def to_json(self) -> dict:
        return {"frame": self.frame, "source": self.source, "settled": self.settled,
                "models": self.models, "vehicles": self.vehicles}
