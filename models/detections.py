"""The currency of the pipeline: what the detector found, in table centimetres.

Modelled on supervision's `Detections`: parallel numpy arrays whose shapes are checked once,
`empty()` and `merge()` so no caller special-cases "nothing found". Pixels never get past this
point; everything downstream (tracker, rules, web UI) reads table cm.

>>> bases = Bases(xy_cm=np.array([[41.27, 18.9]]), diameter_mm=np.array([32.0]),
...               confidence=np.array([0.98]))
>>> len(Bases.merge([bases, Bases.empty()]))
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


def heading_axes(heading_deg: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors along a heading and a quarter turn on (table +x towards +y): (2,) each for one
    heading, (n, 2) for n. Every frame a hull is measured in is these two."""
    theta = np.radians(heading_deg)
    along = np.stack([np.cos(theta), np.sin(theta)], axis=-1)
    return along, np.stack([-along[..., 1], along[..., 0]], axis=-1)


def _check(name: str, array: np.ndarray, shape: tuple[int, ...]) -> None:
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {array.shape}")


@dataclass(frozen=True)
class Bases:
    """Round bases: centre of the bottom disc on the table plane, nominal size class.

    `measured_diameter_mm` is what the rim fit found (NaN where not measured); `diameter_mm`
    is the nominal class (32, 65, ...) that rules and the contract speak of.
    """

    xy_cm: np.ndarray
    diameter_mm: np.ndarray
    confidence: np.ndarray
    measured_diameter_mm: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        n = len(self.xy_cm)
        if self.measured_diameter_mm is None:
            object.__setattr__(self, "measured_diameter_mm", np.full(n, np.nan))
        _check("xy_cm", self.xy_cm, (n, 2))
        for name in ("diameter_mm", "confidence", "measured_diameter_mm"):
            _check(name, getattr(self, name), (n,))

    def __len__(self) -> int:
        return len(self.xy_cm)

    def __getitem__(self, index: np.ndarray | slice | int) -> Bases:
        index = np.atleast_1d(index) if isinstance(index, int) else index
        return Bases(self.xy_cm[index], self.diameter_mm[index], self.confidence[index],
                     self.measured_diameter_mm[index])

    @classmethod
    def empty(cls) -> Bases:
        return cls(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0))

    @classmethod
    def merge(cls, parts: list[Bases]) -> Bases:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                     ("xy_cm", "diameter_mm", "confidence", "measured_diameter_mm")))


@dataclass(frozen=True)
class Vehicles:
    """Vehicle hull footprints as oriented rectangles on the table plane.

    `heading_deg` follows the table frame (from +x towards +y, [0, 360)); `length_cm` runs
    along the heading. A hull is symmetric front to back for the camera unless the detector
    can tell the front, so callers should treat heading as known modulo 180 where it matters.
    """

    xy_cm: np.ndarray
    length_cm: np.ndarray
    width_cm: np.ndarray
    heading_deg: np.ndarray
    confidence: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.xy_cm)
        _check("xy_cm", self.xy_cm, (n, 2))
        for name in ("length_cm", "width_cm", "heading_deg", "confidence"):
            _check(name, getattr(self, name), (n,))

    def __len__(self) -> int:
        return len(self.xy_cm)

    def __getitem__(self, index: np.ndarray | slice | int) -> Vehicles:
        index = np.atleast_1d(index) if isinstance(index, int) else index
        return Vehicles(self.xy_cm[index], self.length_cm[index], self.width_cm[index],
                        self.heading_deg[index], self.confidence[index])

    def corners_cm(self) -> np.ndarray:
        """(n, 4, 2) hull corners: rear-left, front-left, front-right, rear-right (left is -y at
        heading 0), the order of CONTRACTS.md's example, whose hull at heading 0 starts at its
        smallest x and y."""
        along, across = heading_axes(self.heading_deg)
        half_l = (self.length_cm / 2)[:, None]
        half_w = (self.width_cm / 2)[:, None]
        signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
        return np.stack([self.xy_cm + a * half_l * along + b * half_w * across for a, b in signs], axis=1)

    @classmethod
    def empty(cls) -> Vehicles:
        return cls(np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0))

    @classmethod
    def placed(cls, hulls: Sequence) -> Vehicles:
        """Vehicles standing exactly as `hulls` say (a scene's specs or a render's truth: each
        with x_cm, y_cm, length_cm, width_cm and heading_deg), each sure."""
        return cls(
            np.array([[h.x_cm, h.y_cm] for h in hulls]).reshape(-1, 2),
            np.array([h.length_cm for h in hulls], dtype=np.float64),
            np.array([h.width_cm for h in hulls], dtype=np.float64),
            np.array([h.heading_deg for h in hulls], dtype=np.float64),
            np.ones(len(hulls)),
        )

    @classmethod
    def merge(cls, parts: list[Vehicles]) -> Vehicles:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                     ("xy_cm", "length_cm", "width_cm", "heading_deg", "confidence")))


@dataclass(frozen=True)
class Detections:
    """Everything found in one frame, in table cm."""

    bases: Bases = field(default_factory=Bases.empty)
    vehicles: Vehicles = field(default_factory=Vehicles.empty)
    # Rims the verifier was unsure of: enough to keep a tracked piece where it stands, never to
    # start one (a tracker's second, lower threshold); not part of what `detect` reports.
    faint: Bases = field(default_factory=Bases.empty)

    def bases_to_track(self) -> Bases:
        """The accepted bases, then the faint ones: a tracker tells them apart by this order."""
        return Bases.merge([self.bases, self.faint])

    @classmethod
    def empty(cls) -> Detections:
        return cls()
