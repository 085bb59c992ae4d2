"""How high the camera must hang to see the whole table, per camera model.

The docs' height table comes from here, so the numbers users read are the numbers the code
computes. A camera straight above the table's centre sees a rectangle 2 H tan(fov / 2) wide;
the table's long side goes along the image's long side, with a margin so the corner markers
are not at the very edge where the lens blurs and bends most.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class CameraModel:
    """A camera and lens as the rig uses them: full-sensor field of view and pixels."""

    key: str
    name: str
    hfov_deg: float
    vfov_deg: float
    pixels: tuple[int, int]

    def height_cm(self, table_cm: tuple[float, float], margin: float = 1.1) -> float:
        """Lowest height above the table at which all of it (times `margin`) is in view."""
        long_side, short_side = max(table_cm), min(table_cm)
        along_width = long_side * margin / 2 / math.tan(math.radians(self.hfov_deg) / 2)
        along_height = short_side * margin / 2 / math.tan(math.radians(self.vfov_deg) / 2)
        return max(along_width, along_height)

    def mm_per_pixel(self, height_cm: float) -> float:
        """Table millimetres one pixel covers under the centre of the picture, at `height_cm`."""
        seen_cm = 2 * height_cm * math.tan(math.radians(self.hfov_deg) / 2)
        return seen_cm * 10 / self.pixels[0]


def _hq_with(focal_mm: float) -> tuple[float, float]:
    """Field of view of the HQ camera's IMX477 (4056 x 3040 pixels of 1.55 um) behind a lens."""
    width_mm, height_mm = 4056 * 1.55e-3, 3040 * 1.55e-3
    return (math.degrees(2 * math.atan(width_mm / 2 / focal_mm)),
            math.degrees(2 * math.atan(height_mm / 2 / focal_mm)))


CAMERAS = {
    camera.key: camera
    for camera in (
        # Raspberry Pi Camera Module 3 datasheet: 66 x 41 degrees; wide: 102 x 67 degrees.
        CameraModel("cm3", "Camera Module 3", 66.0, 41.0, (4608, 2592)),
        CameraModel("cm3-wide", "Camera Module 3 Wide", 102.0, 67.0, (4608, 2592)),
        CameraModel("hq-6mm", "HQ Camera + 6 mm lens", *_hq_with(6.0), (4056, 3040)),
    )
}

TABLES_CM = ((122.0, 122.0), (183.0, 122.0), (244.0, 183.0))


def height_table() -> list[tuple[str, str, float, float]]:
    """(table, camera, height cm, mm per pixel) for every seed table and camera model."""
    rows = []
    for table in TABLES_CM:
        for camera in CAMERAS.values():
            height = camera.height_cm(table)
            rows.append((f"{table[0]:g} x {table[1]:g}", camera.name, height, camera.mm_per_pixel(height)))
    return rows


if __name__ == "__main__":
    for table, camera, height, mm in height_table():
        print(f"| {table} | {camera} | {height:.0f} | {mm:.2f} |")
