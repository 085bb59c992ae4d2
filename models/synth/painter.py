"""3D primitives drawn through the camera onto calibration's `Canvas`, in painter's order.

Every solid here is convex (cylinders, frusta, boxes, ellipsoids, capsules), so its image is
exactly the convex hull of its projected vertices: perspective and parallax come out right
without a ray tracer, and the cost stays at one `fillPoly` per face. A second canvas of
labels records which object owns each pixel, which is how the ground truth knows how much of
every base's rim the camera really sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.synthetic import Canvas

RING = 48


def ring(centre_xy: Sequence[float], radius: float, z: float, n: int = RING) -> np.ndarray:
    """(n, 3) points of a horizontal circle, for discs and cylinder rims."""
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack(
        [centre_xy[0] + radius * np.cos(a), centre_xy[1] + radius * np.sin(a), np.full(n, float(z))]
    )


def box_corners(
    centre_xy: Sequence[float], length: float, width: float, heading_deg: float, z: float
) -> np.ndarray:
    """(4, 3) corners of a horizontal rectangle, length along the heading."""
    t = np.radians(heading_deg)
    along, across = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    pts = [
        np.asarray(centre_xy) + sa * length / 2 * along + sc * width / 2 * across
        for sa, sc in ((1, -1), (1, 1), (-1, 1), (-1, -1))
    ]
    return np.column_stack([np.array(pts), np.full(4, float(z))])


def ellipsoid(centre: Sequence[float], radii: Sequence[float], n: int = 16) -> np.ndarray:
    """Points on an axis-aligned ellipsoid surface; their hull is its outline from any view."""
    lat = np.linspace(-np.pi / 2, np.pi / 2, n // 2 + 1)
    lon = np.linspace(0, 2 * np.pi, n, endpoint=False)
    la, lo = np.meshgrid(lat, lon)
    unit = np.column_stack(
        [(np.cos(la) * np.cos(lo)).ravel(), (np.cos(la) * np.sin(lo)).ravel(), np.sin(la).ravel()]
    )
    return np.asarray(centre) + unit * np.asarray(radii)


def capsule(p0: Sequence[float], p1: Sequence[float], radius: float) -> np.ndarray:
    """Points of a capsule (two spheres and what joins them): limbs, arms, barrels, trunks."""
    sphere = ellipsoid((0, 0, 0), (radius, radius, radius), 12)
    return np.vstack([sphere + np.asarray(p0), sphere + np.asarray(p1)])


@dataclass
class Item:
    """One face to paint: a convex solid's outline or a planar polygon, with its owner's label."""

    points_cm: np.ndarray
    color: tuple[float, float, float]
    label: int
    depth: float
    convex: bool = True
    shadow: bool = True


class Painter:
    """Collects faces, then paints them far-to-near onto a `Canvas` and a label image."""

    def __init__(self, canvas: Canvas) -> None:
        self.canvas = canvas
        self.items: list[Item] = []
        self.labels = np.zeros(canvas.image.shape[:2], np.uint16)

    def add(
        self,
        points_cm: np.ndarray,
        color: Sequence[float],
        label: int,
        *,
        convex: bool = True,
        lift: float = 0.0,
        shadow: bool = True,
    ) -> None:
        """Queue a face; `lift` nudges the painting order for faces that sit on another (a top)."""
        pts = np.asarray(points_cm, dtype=np.float64)
        depth = float(self.canvas.camera.depth_cm(pts).min()) - lift
        self.items.append(Item(pts, tuple(float(c) for c in color), label, depth, convex, shadow))

    def solid(self, points_cm: np.ndarray, color: Sequence[float], label: int, shadow: bool = True) -> None:
        self.add(points_cm, color, label, shadow=shadow)

    def prism(
        self,
        bottom: np.ndarray,
        top: np.ndarray,
        side: Sequence[float],
        top_color: Sequence[float],
        label: int,
        shadow: bool = True,
    ) -> None:
        """A convex prism or frustum: the side silhouette, then its top face over it."""
        self.add(np.vstack([bottom, top]), side, label, shadow=shadow)
        self.add(top, top_color, label, convex=False, lift=1e-3, shadow=False)

    def flat(self, polygon_cm: np.ndarray, color: Sequence[float], label: int = 0) -> None:
        """Something printed or lying flat on the mat: painted first, casts no shadow."""
        pts = np.asarray(polygon_cm, dtype=np.float64)
        if pts.shape[1] == 2:
            pts = np.column_stack([pts, np.zeros(len(pts))])
        self.items.append(Item(pts, tuple(float(c) for c in color), label, np.inf, False, False))

    def _pixels(self, item: Item) -> np.ndarray | None:
        px = self.canvas.to_canvas(item.points_cm)
        if not np.all(np.isfinite(px)):
            return None
        if item.convex:
            px = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        return np.round(px * 16).astype(np.int32)

    def paint(self, light_dir: np.ndarray, shadow_strength: float) -> None:
        """Flat prints, then shadows on the mat, then solids far to near (the painter's order)."""
        order = sorted(self.items, key=lambda it: -it.depth)
        for item in (it for it in order if np.isinf(it.depth)):
            self._fill(item)
        if shadow_strength > 0:
            self._shadows([it for it in order if it.shadow], light_dir, shadow_strength)
        for item in (it for it in order if not np.isinf(it.depth)):
            self._fill(item)

    def _fill(self, item: Item) -> None:
        pts = self._pixels(item)
        if pts is None:
            return
        cv2.fillPoly(self.canvas.image, [pts], item.color, lineType=cv2.LINE_8, shift=4)
        cv2.fillPoly(self.labels, [pts], int(item.label), lineType=cv2.LINE_8, shift=4)

    def _shadows(self, items: list[Item], light_dir: np.ndarray, strength: float) -> None:
        """Each solid's outline cast along the light onto the table, as soft darkening."""
        mask = np.zeros(self.canvas.image.shape[:2], np.uint8)
        step = light_dir / -light_dir[2]
        for item in items:
            pts = item.points_cm
            ground = pts[:, :2] + step[:2] * pts[:, 2:3]
            px = self.canvas.to_canvas(np.column_stack([ground, np.zeros(len(ground))]))
            hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
            cv2.fillPoly(mask, [np.round(hull * 16).astype(np.int32)], 255, lineType=cv2.LINE_8, shift=4)
        soft = cv2.GaussianBlur(mask, (0, 0), 1.5 * self.canvas.scale).astype(np.float32) / 255.0
        factor = 1.0 - strength * soft
        self.canvas.image[:] = np.clip(self.canvas.image * factor[..., None], 0, 255).astype(np.uint8)
