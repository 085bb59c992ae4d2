"""Synthetic 3D wargame tables for training and measuring the detector.

The public face of `models.synth`: describe a table (`random_scene` or by hand with the specs),
pick a rig camera (`random_camera`), and `render_scene` gives the photo and its exact truth.
"""

from models.synth.randomize import LIGHTS, PLACEMENTS, TABLES, Placement, random_camera, random_scene
from models.synth.render import RenderedScene, render_scene
from models.synth.specs import (
    BaseSpec,
    BaseTruth,
    DistractorSpec,
    Figure,
    HandSpec,
    Mat,
    TableScene,
    TerrainSpec,
    Truth,
    VehicleSpec,
    VehicleTruth,
)

__all__ = [
    "LIGHTS",
    "PLACEMENTS",
    "TABLES",
    "BaseSpec",
    "BaseTruth",
    "DistractorSpec",
    "Figure",
    "HandSpec",
    "Mat",
    "Placement",
    "RenderedScene",
    "TableScene",
    "TerrainSpec",
    "Truth",
    "VehicleSpec",
    "VehicleTruth",
    "random_camera",
    "random_scene",
    "render_scene",
]
