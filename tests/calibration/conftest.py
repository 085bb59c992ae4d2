"""Rendered tables shared by the calibration tests: each costs about a second, so render once."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from calibration.camera import SENSORS, Camera, focal_to_fit
from calibration.intrinsics import Intrinsics
from calibration.layout import Layout, default_layout
from calibration.synthetic import Look, render_markers


@dataclass
class Shot:
    layout: Layout
    camera: Camera
    image: np.ndarray

    @property
    def intrinsics(self) -> Intrinsics:
        return Intrinsics(self.camera.K, self.camera.dist, self.camera.image_size)


def table_camera(layout: Layout, tilt_deg: float = 4.0, roll_deg: float = 0.0,
                 dist: np.ndarray | None = None) -> Camera:
    size = SENSORS["cm3-binned"]
    table = layout.table_size_cm
    return Camera.looking_at((table[0] / 2, table[1] / 2), 180.0, image_size=size,
                             focal_px=focal_to_fit(table, 180.0, size), tilt_deg=tilt_deg,
                             tilt_towards_deg=30.0, roll_deg=roll_deg, dist=dist)


def shoot(layout: Layout, camera: Camera, markers=None, seed: int = 3, look: Look | None = None) -> Shot:
    rendered = render_markers(camera, layout.table_size_cm,
                              layout.markers_as_synthetic() if markers is None else markers,
                              layout.dictionary, look=look or Look(blur_px=0.6), seed=seed)
    return Shot(layout, camera, rendered.image)


@pytest.fixture(scope="session")
def layout() -> Layout:
    return default_layout("183x122")


@pytest.fixture(scope="session")
def table_shot(layout: Layout) -> Shot:
    """A 183x122 table from 1.8 m, tilted 4 degrees, through a lens with barrel distortion."""
    return shoot(layout, table_camera(layout, dist=np.array([-0.05, 0.015, 0.0, 0.0, 0.0])))


@pytest.fixture(scope="session")
def straight_shot(layout: Layout) -> Shot:
    """The same table through a distortion-free lens (calibrated without intrinsics)."""
    return shoot(layout, table_camera(layout), seed=4)


@pytest.fixture(scope="session")
def grid_cm(layout: Layout) -> np.ndarray:
    w, d = layout.table_size_cm
    xs, ys = np.meshgrid(np.linspace(0, w, 25), np.linspace(0, d, 17))
    return np.stack([xs.ravel(), ys.ravel()], axis=1)
