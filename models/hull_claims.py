"""Bases and hulls, told apart: a turret ring, a hatch or a wheel seen from above looks like a
base, but nothing stands on a hull; a blob holding several bases, though, is a squad standing
close, not a vehicle.

The hulls are found twice: roughly, from the foreground alone, to take the rims on them out
of the bases the measuring pass looks around; then measured, and only a measured hull takes
a base away for good.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from models.detections import Bases, Vehicles
from models.hull_shape import HULL_HEIGHT_CM

if TYPE_CHECKING:
    from models.fitted import FittedCandidates
    from models.hull_fit import HullFit
    from models.hull_map import HullMap

MAX_BASES_ON_A_HULL = 2
EDGE_RADII = 1.25


def hulls_and_bases(
    c: FittedCandidates,
    bases: Bases,
    faint: Bases,
    markers: list[np.ndarray],
    hull_map: HullMap | None,
    hull_fit: HullFit | None,
) -> tuple[Bases, Vehicles, Bases]:
    """The vehicles of the frame `c` was fitted on, and the `bases` and `faint` rims that are
    not theirs. With a `hull_fit` net each measured hull's sides move halfway to where it
    places them."""
    from models.hull_view import foreground
    from models.vehicles import ON_A_HULL_CM, clear_of_bases, find_vehicles

    view = foreground(c.rect, c.px_per_mm, markers, hull_map, c.camera_cm)
    hulls = find_vehicles(view, c.camera_cm, Bases.empty(), refine=False)
    on_hull = np.zeros(len(bases), bool)
    for i in range(len(hulls)):
        inside = on_vehicles(bases.xy_cm, hulls[i]) & ~against(bases, hulls[i], c.camera_cm)
        if inside.sum() <= MAX_BASES_ON_A_HULL:
            on_hull |= inside
    faint = faint[~on_vehicles(faint.xy_cm, hulls)]
    vehicles = find_vehicles(view, c.camera_cm, bases[~on_hull], hull_fit=hull_fit)
    if hull_fit is not None:
        vehicles = hull_fit.fitted(c.rect, c.px_per_mm, c.camera_cm, vehicles)
    # A rough blob is not yet a hull: a base it swallowed (a gun's crew beside a wall, a
    # squad in a sharpened frame) comes back unless a measured vehicle stands on it.
    on_hull &= on_vehicles(bases.xy_cm, vehicles)
    for i in range(len(vehicles)):
        # A rim on a measured hull or just past its side (ON_A_HULL_CM) is the hull's own
        # edge or turret, which the rough blob may have missed.
        inside = on_vehicles(bases.xy_cm, vehicles[i], ON_A_HULL_CM)
        if inside.sum() <= MAX_BASES_ON_A_HULL:
            on_hull |= inside
    bases = bases[~on_hull]
    return bases, clear_of_bases(vehicles, bases), faint


def on_vehicles(xy_cm: np.ndarray, vehicles: Vehicles, margin_cm: float = 1.0) -> np.ndarray:
    """Base centres inside a hull footprint (turret rings, hatches, wheels seen from above)."""
    hit = np.zeros(len(xy_cm), bool)
    for i in range(len(vehicles)):
        hit |= depth_inside(xy_cm, vehicles[i]) > -margin_cm
    return hit


def depth_inside(xy_cm: np.ndarray, hull: Vehicles) -> np.ndarray:
    """How far each point lies inside one hull's footprint, to its nearest side (cm; negative
    outside, along or across)."""
    t = np.radians(hull.heading_deg[0])
    rel = xy_cm - hull.xy_cm[0]
    along = np.abs(rel @ [np.cos(t), np.sin(t)])
    across = np.abs(rel @ [-np.sin(t), np.cos(t)])
    return np.minimum(hull.length_cm[0] / 2 - along, hull.width_cm[0] / 2 - across)


def against(bases: Bases, hull: Vehicles, camera_cm: np.ndarray) -> np.ndarray:
    """Bases standing against a rough hull (a squad beside a tank), which its blob took in, not
    turret rings: seen where a ring on the roof would stand on the footprint (the parallax of
    a roof's height undone), their centres lie within EDGE_RADII of their radius inside the
    outline, where a turret ring sits a radius and a half in (it spans 0.64 of the width)."""
    nadir = camera_cm[:2]
    on_roof = nadir + (bases.xy_cm - nadir) * (camera_cm[2] - HULL_HEIGHT_CM) / camera_cm[2]
    return depth_inside(on_roof, hull) < EDGE_RADII * bases.diameter_mm / 20
