"""Shared synthetic frames: rendering is the slow part, so each scene is made once per session."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import Camera, focal_to_fit
from calibration.synthetic import Look
from models.synth.randomize import table_markers
from models.synth.scene import BaseSpec, Figure, Mat, TableScene, VehicleSpec, render_scene

TABLE = (183.0, 122.0)


def rig_camera(tilt_deg: float = 4.0) -> Camera:
    size = (2304, 1296)
    return Camera.looking_at(
        (91.5, 61.0),
        190.0,
        image_size=size,
        focal_px=focal_to_fit(TABLE, 190.0, size),
        tilt_deg=tilt_deg,
        tilt_towards_deg=30.0,
    )


def squad_scene() -> TableScene:
    """Two squads of 32 mm bases (one touching, one spread), three 65 mm bases and a tank."""
    dictionary, markers = table_markers("183x122")
    bases = []
    for i in range(5):
        bases.append(
            BaseSpec(
                30.0 + 3.2 * i,
                40.0,
                32.0,
                3.5,
                (25, 25, 25),
                (80, 140, 90),
                figures=(Figure("trooper", 0.1, -0.1, 3.5, (40, 40, 200), 6.0, 45.0),),
            )
        )
        bases.append(
            BaseSpec(
                120.0 + 5.5 * i,
                95.0 + (i % 2) * 4.0,
                32.0,
                3.5,
                (30, 45, 70),
                (60, 150, 180),
                figures=(Figure("trooper", 0.0, 0.0, 4.5, (200, 60, 60), 10.0, 200.0, 0.0, 1.5),),
            )
        )
    for x in (60.0, 75.0, 90.0):
        bases.append(
            BaseSpec(
                x,
                80.0,
                65.0,
                3.5,
                (25, 25, 25),
                (90, 120, 140),
                figures=(Figure("rider", 0.0, 0.0, 5.0, (50, 90, 160), 0.0, 0.0, 30.0),),
            )
        )
    vehicles = [VehicleSpec(140.0, 35.0, 22.0, 11.0, 30.0, 4.0, (60, 110, 90))]
    return TableScene(
        TABLE,
        dictionary,
        markers,
        Mat("felt_green", (55, 120, 50), 6.0),
        bases=bases,
        vehicles=vehicles,
        look=Look(noise_sigma=1.5, jpeg_quality=92),
    )


@pytest.fixture(scope="session")
def squad_frame():
    scene = squad_scene()
    camera = rig_camera()
    return scene, camera, render_scene(scene, camera, seed=3)


@pytest.fixture(scope="session")
def empty_frame():
    dictionary, markers = table_markers("183x122")
    scene = TableScene(TABLE, dictionary, markers, Mat("felt_blue", (120, 60, 30), 6.0))
    camera = rig_camera(0.0)
    return scene, camera, render_scene(scene, camera, seed=4)


@pytest.fixture(scope="session")
def detector():
    from models.detector import load_detector

    return load_detector()


def nearest_errors_mm(found_xy: np.ndarray, truth_xy: np.ndarray) -> np.ndarray:
    """For each truth point, the distance to the nearest found point (mm)."""
    if not len(found_xy):
        return np.full(len(truth_xy), np.inf)
    return np.linalg.norm(truth_xy[:, None] - found_xy[None], axis=-1).min(1) * 10


class FixedVerifier:
    """A verifier that gives every rim the same verdict, for tests that decide what it likes."""

    def __init__(self, probability: float) -> None:
        self.value = probability

    def probability(self, patches: np.ndarray) -> np.ndarray:
        return np.full(len(patches), self.value)

    ring_probability = probability
