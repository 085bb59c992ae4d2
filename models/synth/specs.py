"""What stands on a synthetic table: plain, editable descriptions of every object.

Specs hold only physical facts (positions in table cm, sizes, colours), never pixels, so the
tracker's tests can move a base between frames or add a hand and render again: the picture
is a pure function of (scene, camera, seed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.synthetic import Look, Marker

BGR = tuple[float, float, float]


@dataclass(frozen=True)
class Figure:
    """One miniature (or gun, or horse) standing on a base, relative to the base centre."""

    kind: str  # "trooper", "rider", "gun", "crew"
    dx_cm: float
    dy_cm: float
    height_cm: float
    color: BGR
    lean_deg: float = 0.0
    lean_towards_deg: float = 0.0
    facing_deg: float = 0.0
    reach_cm: float = 0.0  # how far a weapon or limb sticks out, overhanging the rim


@dataclass(frozen=True)
class BaseSpec:
    """A round base: the bottom disc lies on the table with its centre at (x_cm, y_cm)."""

    x_cm: float
    y_cm: float
    diameter_mm: float = 32.0
    thickness_mm: float = 3.5
    rim_color: BGR = (25, 25, 25)
    top_color: BGR = (60, 110, 70)
    bevel_mm: float = 0.0  # top disc this much smaller in radius than the bottom
    figures: tuple[Figure, ...] = ()


@dataclass(frozen=True)
class VehicleSpec:
    """A vehicle: the hull footprint is the rectangle (x, y, length along heading, width)."""

    x_cm: float
    y_cm: float
    length_cm: float
    width_cm: float
    heading_deg: float
    height_cm: float = 4.0
    hull_color: BGR = (50, 80, 70)
    track_color: BGR = (30, 30, 32)
    turret: bool = True
    turret_color: BGR = (55, 90, 75)


@dataclass(frozen=True)
class HandSpec:
    """A player's hand above the table with the arm reaching in from the nearest edge."""

    x_cm: float
    y_cm: float
    height_cm: float = 12.0
    size_cm: float = 9.0
    shoulder_cm: tuple[float, float, float] = (90.0, -40.0, 45.0)
    skin: BGR = (130, 160, 210)
    sleeve: BGR = (90, 60, 50)


@dataclass(frozen=True)
class TerrainSpec:
    """A terrain piece: `footprint_cm` on the table, built up to `height_cm`."""

    kind: str  # "hill", "tree", "wall", "ruins", "building"
    footprint_cm: tuple[tuple[float, float], ...]
    height_cm: float
    color: BGR
    top_color: BGR


@dataclass(frozen=True)
class DistractorSpec:
    """Things on a table that are not models: dice, tokens, coins, tape measures, cards."""

    kind: str  # "die", "token", "coin", "tape", "card", "printed_circle", "printed_ring"
    x_cm: float
    y_cm: float
    size_cm: float
    heading_deg: float = 0.0
    color: BGR = (200, 200, 200)
    length_cm: float = 0.0


@dataclass(frozen=True)
class Mat:
    """The playing surface: a style name (for the report), base colour and printed overlays."""

    style: str
    color: BGR
    roughness: float = 18.0
    lines: tuple[tuple[tuple[float, float], tuple[float, float], float, BGR], ...] = ()  # printed roads


@dataclass
class TableScene:
    """Everything on one table at one moment, plus how the light and the sensor look."""

    table_cm: tuple[float, float]
    dictionary: str
    markers: list[Marker]
    mat: Mat
    bases: list[BaseSpec] = field(default_factory=list)
    vehicles: list[VehicleSpec] = field(default_factory=list)
    terrain: list[TerrainSpec] = field(default_factory=list)
    distractors: list[DistractorSpec] = field(default_factory=list)
    hands: list[HandSpec] = field(default_factory=list)
    look: Look = field(default_factory=Look)
    light_dir: tuple[float, float, float] = (0.3, 0.2, -1.0)
    shadow_strength: float = 0.35


@dataclass(frozen=True)
class BaseTruth:
    x_cm: float
    y_cm: float
    diameter_mm: float
    rim_visible: float  # fraction of the outline the camera sees, 0..1


@dataclass(frozen=True)
class VehicleTruth:
    x_cm: float
    y_cm: float
    length_cm: float
    width_cm: float
    heading_deg: float
    visible: float


@dataclass
class Truth:
    bases: list[BaseTruth]
    vehicles: list[VehicleTruth]

    def base_xy_cm(self) -> np.ndarray:
        return np.array([[b.x_cm, b.y_cm] for b in self.bases]).reshape(-1, 2)
