"""A perfect calibration taken from the render's own camera, for measuring the detector alone.

It offers the same surface as `calibration.table.TableCalibration` (rectify, table_to_image,
camera_centre_cm, ...), so a benchmark can tell the detector's millimetres apart from the
calibration's by running both this and the real `calibrate()` on the same frames.
"""

from __future__ import annotations

from functools import lru_cache, partial

import cv2
import numpy as np

from calibration.camera import Camera
from calibration.table import rectify_maps


class CameraCalibration:
    """Exact table <-> image mapping of a known `Camera`."""

    def __init__(self, camera: Camera, table_cm: tuple[float, float], markers: list | None = None) -> None:
        self.camera = camera
        self.table_cm = table_cm
        self.markers_cm = [np.asarray(m.corners_cm, dtype=np.float64) for m in markers or []]
        self.marker_ids = [int(m.id) for m in markers or []]
        self.rms_mm = 0.0
        self.max_mm = 0.0
        self._maps = lru_cache(maxsize=4)(
            partial(rectify_maps, camera.table_homography(), camera.K, camera.dist, table_cm)
        )

    @property
    def camera_centre_cm(self) -> np.ndarray:
        return self.camera.centre_cm

    def table_to_image(self, points_cm: np.ndarray) -> np.ndarray:
        return self.camera.project(np.asarray(points_cm, dtype=np.float64))

    def image_to_table(self, pixels: np.ndarray) -> np.ndarray:
        ideal = self.camera.undistort_pixels(np.asarray(pixels, dtype=np.float64))
        H = np.linalg.inv(self.camera.table_homography())
        p = np.column_stack([ideal, np.ones(len(ideal))]) @ H.T
        return p[:, :2] / p[:, 2:3]

    def rectify(self, image: np.ndarray, px_per_mm: float) -> np.ndarray:
        """Top-down table image: pixel (u, v) centre = table ((u+0.5)/(10 ppm), (v+0.5)/(10 ppm)) cm."""
        m1, m2 = self._maps(float(px_per_mm))
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def to_dict(self) -> dict:
        return {"marker_ids": self.marker_ids, "rms_mm": self.rms_mm, "max_mm": self.max_mm}
