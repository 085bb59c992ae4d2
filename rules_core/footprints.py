"""Footprints as a core shape plus a radius, so circle distances stay exact.

A round base is its centre point with radius r; a hull is its rectangle with radius 0. The
edge distance of two footprints is then `distance(core_a, core_b) - r_a - r_b` (floored at 0),
exact for circle-circle, circle-rectangle and rectangle-rectangle, where a polygon
approximation of the circle would be off by up to a millimetre and flip strict thresholds
such as World at Fire's "less than 5 cm". Arrays of cores feed shapely 2's vectorised
functions and one STRtree.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import shapely
from shapely import STRtree

if TYPE_CHECKING:
    from rules_core.scene import ModelSpec, Scene

CIRCLE_SEGMENTS = 16


def hull_corners(x: float, y: float, heading_deg: float, length: float, width: float) -> np.ndarray:
    """Corners of a hull rectangle: length along the heading (from +x towards +y), width across."""
    angle = np.radians(heading_deg)
    along = np.array([np.cos(angle), np.sin(angle)]) * length / 2
    across = np.array([-np.sin(angle), np.cos(angle)]) * width / 2
    centre = np.array([x, y])
    return np.array(
        [centre + along + across, centre + along - across, centre - along - across, centre - along + across]
    )


@dataclass(frozen=True)
class Footprints:
    core: np.ndarray
    radius: np.ndarray

    @classmethod
    def of_models(cls, models: tuple[ModelSpec, ...] | list[ModelSpec]) -> Footprints:
        n = len(models)
        xy = np.array([[m.x_cm, m.y_cm] for m in models], dtype=float).reshape(n, 2)
        rounded = np.array([m.base.shape == "round" for m in models], dtype=bool)
        radius = np.array([m.base.diameter_mm / 20.0 if m.base.shape == "round" else 0.0 for m in models])
        core = np.empty(n, dtype=object)
        if rounded.any():
            core[rounded] = shapely.points(xy[rounded])
        if (~rounded).any():
            hulls = [m for m in models if m.base.shape == "rect"]
            heading = np.radians([m.heading_deg or 0.0 for m in hulls])
            half_length = np.array([m.base.length_mm for m in hulls]) / 20.0
            half_width = np.array([m.base.width_mm for m in hulls]) / 20.0
            along = np.stack([np.cos(heading), np.sin(heading)], axis=1) * half_length[:, None]
            across = np.stack([-np.sin(heading), np.cos(heading)], axis=1) * half_width[:, None]
            centre = xy[~rounded]
            corners = np.stack(
                [
                    centre + along + across,
                    centre + along - across,
                    centre - along - across,
                    centre - along + across,
                ],
                axis=1,
            )
            core[~rounded] = shapely.polygons(corners)
        return cls(core, radius)

    @classmethod
    def of_scene(cls, scene: Scene) -> Footprints:
        return cls.of_models(scene.models)

    def __len__(self) -> int:
        return len(self.radius)

    @cached_property
    def tree(self) -> STRtree:
        return STRtree(self.core)

    @cached_property
    def shapes(self) -> np.ndarray:
        """Drawable polygons (circles approximated), for zones and templates, never for thresholds."""
        return shapely.buffer(self.core, self.radius, quad_segs=CIRCLE_SEGMENTS // 4)

    def edge(self, i: np.ndarray | int, j: np.ndarray | int) -> np.ndarray:
        gap = shapely.distance(self.core[i], self.core[j]) - self.radius[i] - self.radius[j]
        return np.maximum(gap, 0.0)

    def edge_to(self, geometry: shapely.Geometry, i: np.ndarray | int | slice = slice(None)) -> np.ndarray:
        """Edge distance from footprints `i` (all by default) to a point, line or piece of terrain
        (0 touching or inside)."""
        return np.maximum(shapely.distance(self.core[i], geometry) - self.radius[i], 0.0)

    def centre_distance(self, i: np.ndarray | int, j: np.ndarray | int) -> np.ndarray:
        return shapely.distance(shapely.centroid(self.core[i]), shapely.centroid(self.core[j]))

    def pairs_within(self, distance_cm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All pairs i < j whose edge distance is at most distance_cm (candidates for any threshold)."""
        if len(self) < 2:
            empty = np.empty(0, dtype=int)
            return empty, empty, np.empty(0)
        reach = distance_cm + 2 * float(self.radius.max()) + 1e-6
        i, j = self.tree.query(self.core, predicate="dwithin", distance=reach)
        keep = i < j
        i, j = i[keep], j[keep]
        edge = self.edge(i, j)
        close = edge <= distance_cm + 1e-6
        return i[close], j[close], edge[close]

    def overlapping(self, i: np.ndarray, j: np.ndarray, tolerance_cm: float) -> np.ndarray:
        """True where footprints i and j overlap by more than the contact tolerance (touching is fine)."""
        return overlapping_across(self, i, self, j, tolerance_cm)


def overlapping_across(
    first: Footprints, i: np.ndarray | int, second: Footprints, j: np.ndarray | int, tolerance_cm: float
) -> np.ndarray:
    """`Footprints.overlapping` between two scenes' footprints (where a model ended against where
    another stood)."""
    i, j = np.broadcast_arrays(np.asarray(i), np.asarray(j))
    gap = gaps(first.core[i], first.radius[i], second.core[j], second.radius[j], tolerance_cm)
    return np.asarray(gap < -tolerance_cm)


def gaps(
    shape: np.ndarray | shapely.Geometry,
    radius: np.ndarray | float,
    cores: np.ndarray,
    radii: np.ndarray,
    tolerance_cm: float,
) -> np.ndarray:
    """Edge gaps from shapes of `radius` (a base's centre or the line it swept, a hull or the
    ground it swept) to `cores`, pair by pair (broadcast), negative where they overlap. Two hulls
    have no radius to subtract: where the one, shrunk by the tolerance, still meets the other
    they overlap (-inf), else the plain distance (a tank drove through another tank unseen:
    their distance is 0, never less); only those pairs pay for the shrinking."""
    gap = np.asarray(shapely.distance(shape, cores) - radius - radii, dtype=float)
    hulls = np.asarray((radius + radii) == 0)
    if hulls.any():
        shape, cores = np.broadcast_arrays(np.asarray(shape, dtype=object), np.asarray(cores, dtype=object))
        hulls = np.broadcast_to(hulls, gap.shape)
        shrunk = shapely.buffer(shape[hulls], -tolerance_cm)
        gap[hulls] = np.where(shapely.intersects(shrunk, cores[hulls]), -np.inf, gap[hulls])
    return gap


def reaches_into(shape: shapely.Geometry, polygon: shapely.Geometry, tolerance_cm: float) -> bool:
    """Whether a hull (or the ground it swept) reaches into `polygon` by more than the contact
    tolerance: a tank set against a wall touches it, and the camera may put it a millimetre in,
    so it is shrunk by the tolerance first, as two hulls are in `gaps`."""
    return bool(shapely.intersection(shapely.buffer(shape, -tolerance_cm), polygon).area > 1e-6)


def stands_in(footprints: Footprints, i: int, polygon: shapely.Geometry, tolerance_cm: float) -> bool:
    """Whether model i stands in the polygon, not merely against it: a round base whose rim
    overlaps the outline by no more than the contact tolerance is beside it, as is a hull."""
    radius = footprints.radius[i]
    if radius > 0:
        return bool(shapely.distance(footprints.core[i], polygon) < radius - tolerance_cm - 1e-6)
    return reaches_into(footprints.shapes[i], polygon, tolerance_cm)


def distance_to_point(footprints: Footprints, x: float, y: float) -> np.ndarray:
    """Edge distance from every footprint to a point (0 inside)."""
    return footprints.edge_to(shapely.Point(x, y))


def measured(footprints: Footprints, i: np.ndarray | int, j: np.ndarray | int, how: str) -> np.ndarray:
    """The distance a ruleset threshold names: base edge to edge, or centre to centre."""
    return footprints.centre_distance(i, j) if how == "centre" else footprints.edge(i, j)
