"""A pinhole camera placed over the table, in table coordinates.

The table frame of CONTRACTS.md has x right, y down (along the depth) and heights pointing up.
Internally the camera works in the right-handed frame (x, y, -z_up): with y down on the table,
"down into the table" is +z. A camera looking straight down, its image rows along the table's y,
then has the identity rotation, which keeps every formula here short.

Both the synthetic renderer and calibration's pose estimate use this one model, so the ground
truth of a rendered scene and the pose recovered from it are directly comparable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

# Sensor modes a rig may use: Camera Module 3 binned, full and its fast cropped mode; HQ camera
# full and binned.
SENSORS: dict[str, tuple[int, int]] = {
    "cm3-binned": (2304, 1296),
    "cm3-full": (4608, 2592),
    "cm3-fast": (1536, 864),
    "hq": (4056, 3040),
    "hq-binned": (2028, 1520),
}


# OpenCV 4 names the undistortPoints that takes a stopping rule undistortPointsIter; OpenCV 5
# folds it into undistortPoints.
_UNDISTORT_UNTIL = getattr(cv2, "undistortPointsIter", cv2.undistortPoints)


def undistort_converged(pixels: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Distorted -> ideal pixels with the same K, iterated to convergence: cv2.undistortPoints
    stops after 5 iterations, which leaves strong (wide-angle) distortion up to a pixel off at
    the frame's corners."""
    pts = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-10)
    return _UNDISTORT_UNTIL(pts, K, dist, R=None, P=K, criteria=criteria).reshape(-1, 2)


def _to_camera_frame(points_cm: np.ndarray) -> np.ndarray:
    """(n, 2) or (n, 3) table points (z up) -> (n, 3) right-handed points (z down)."""
    points = np.asarray(points_cm, dtype=np.float64).reshape(-1, points_cm.shape[-1])
    if points.shape[1] == 2:
        points = np.hstack([points, np.zeros((len(points), 1))])
    return points * np.array([1.0, 1.0, -1.0])


@dataclass(frozen=True)
class Camera:
    """Intrinsics, lens distortion and pose (world = table frame with z flipped down).

    `rvec`/`tvec` map world points into the camera frame exactly as in `cv2.projectPoints`.
    """

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    image_size: tuple[int, int]
    R: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "K", np.asarray(self.K, dtype=np.float64).reshape(3, 3))
        object.__setattr__(self, "dist", np.asarray(self.dist, dtype=np.float64).ravel())
        object.__setattr__(self, "rvec", np.asarray(self.rvec, dtype=np.float64).reshape(3))
        object.__setattr__(self, "tvec", np.asarray(self.tvec, dtype=np.float64).reshape(3))
        object.__setattr__(self, "R", cv2.Rodrigues(self.rvec)[0])

    @classmethod
    def looking_at(
        cls,
        target_cm: tuple[float, float],
        height_cm: float,
        *,
        image_size: tuple[int, int] = SENSORS["cm3-binned"],
        focal_px: float,
        tilt_deg: float = 0.0,
        tilt_towards_deg: float = 0.0,
        roll_deg: float = 0.0,
        dist: np.ndarray | None = None,
        principal_offset_px: tuple[float, float] = (0.0, 0.0),
    ) -> Camera:
        """A camera `height_cm` above the table whose optical axis hits `target_cm`.

        The axis leans `tilt_deg` from vertical; the camera itself stands displaced from the
        target away from `tilt_towards_deg` (a table-frame angle), as a rig arm would hold it.
        `roll_deg` turns the image about the optical axis.
        """
        tilt = np.radians(tilt_deg)
        towards = np.radians(tilt_towards_deg)
        direction = np.array([np.cos(towards), np.sin(towards)])
        centre_xy = np.asarray(target_cm, dtype=np.float64) - direction * height_cm * np.tan(tilt)
        centre = np.array([centre_xy[0], centre_xy[1], -height_cm])
        forward = np.array([target_cm[0], target_cm[1], 0.0]) - centre
        forward /= np.linalg.norm(forward)
        # Image "down" is the table's +y projected onto the image plane; then roll about the axis.
        down = np.array([0.0, 1.0, 0.0]) - forward * forward[1]
        down /= np.linalg.norm(down)
        right = np.cross(down, forward)
        roll = np.radians(roll_deg)
        right, down = (np.cos(roll) * right + np.sin(roll) * down,
                       -np.sin(roll) * right + np.cos(roll) * down)
        R = np.stack([right, down, forward])
        w, h = image_size
        K = np.array([[focal_px, 0.0, (w - 1) / 2 + principal_offset_px[0]],
                      [0.0, focal_px, (h - 1) / 2 + principal_offset_px[1]],
                      [0.0, 0.0, 1.0]])
        return cls(K=K, dist=np.zeros(5) if dist is None else dist,
                   rvec=cv2.Rodrigues(R)[0], tvec=-R @ centre, image_size=image_size)

    @property
    def centre_cm(self) -> np.ndarray:
        """Camera centre in the table frame (x, y, height above the table)."""
        centre = -self.R.T @ self.tvec
        return centre * np.array([1.0, 1.0, -1.0])

    def project(self, points_cm: np.ndarray) -> np.ndarray:
        """Table points, (n, 2) on the surface or (n, 3) with z up, -> (n, 2) distorted pixels."""
        world = _to_camera_frame(np.asarray(points_cm, dtype=np.float64))
        pixels, _ = cv2.projectPoints(world, self.rvec, self.tvec, self.K, self.dist)
        return pixels.reshape(-1, 2)

    def project_ideal(self, points_cm: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """As `project` but without lens distortion, for a pinhole image `scale` times larger."""
        world = _to_camera_frame(np.asarray(points_cm, dtype=np.float64))
        cam = world @ self.R.T + self.tvec
        pixels = cam[:, :2] / cam[:, 2:3]
        return (pixels @ self.K[:2, :2].T + self.K[:2, 2] + 0.5) * scale - 0.5

    def depth_cm(self, points_cm: np.ndarray) -> np.ndarray:
        """Distance along the optical axis, for painter's-order drawing of 3D objects."""
        world = _to_camera_frame(np.asarray(points_cm, dtype=np.float64))
        return (world @ self.R.T + self.tvec)[:, 2]

    def table_homography(self) -> np.ndarray:
        """3x3 map from table cm (z = 0) to undistorted pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.tvec])
        return H / H[2, 2]

    def undistort_pixels(self, pixels: np.ndarray) -> np.ndarray:
        """Distorted -> ideal pixels (same K), the inverse of the lens model."""
        return undistort_converged(pixels, self.K, self.dist)


def focal_to_fit(table_cm: tuple[float, float], height_cm: float, image_size: tuple[int, int],
                 margin: float = 1.12) -> float:
    """Focal length (px) at which a table of `table_cm` fills the image with `margin` to spare."""
    w, h = image_size
    return min(w * height_cm / (table_cm[0] * margin), h * height_cm / (table_cm[1] * margin))
