"""Where the camera hangs over the table: the height parallax corrections need.

With a lens calibration the pose comes from solvePnP on the marker corners. Without one, the
focal length is read off the homography itself (principal point at the image centre, square
pixels): the images of the table's x and y axes must be perpendicular and equally long after
undoing K. A camera looking nearly straight down leaves that focal length undetermined (height
and focal trade off exactly), so then a camera height is assumed and the caller is warned.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Straight down, the markers fix only the focal length's ratio to the height (a lens of twice the
# focal length from twice as high shows them alike), so the height is assumed: the middle of the
# 150-220 cm a rig hangs its camera at. Assuming a lens instead (the Camera Module 3's 66 degrees)
# put path-traced cameras 169-204 cm up at 184-307 cm, this at 185 (8 near-overhead tables: at
# most 104 cm off before, 19 now).
ASSUMED_HEIGHT_CM = 185.0
# Below this tilt the focal length from the homography is noise.
MIN_TILT_FOR_FOCAL_DEG = 2.0
# So it is from fewer markers: the homography's 8 unknowns are all but fixed by three markers'
# 12 corners (two markers' 8 fix them exactly), so nothing checks its perspective. On the
# path-traced hard validation tables (300,000+ and 350,000+, 120 in all) read with three markers
# or two, 5 of 9 put the camera 33-334 cm off (focal length 0.84-3.0 times the camera's), all
# within 27 cm at the assumed height; four markers kept the focal length within 10 % above 2
# degrees of tilt. With corners 0.3 px off, a camera 4 degrees tilted: four markers 16 cm off at
# most, three 182, two 569.
MIN_MARKERS_FOR_FOCAL = 4


@dataclass(frozen=True)
class Pose:
    """K used for the pose, rvec/tvec as in cv2.projectPoints (world = table, z down)."""

    K: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    height_assumed: bool

    @property
    def centre_cm(self) -> np.ndarray:
        R = cv2.Rodrigues(self.rvec)[0]
        return (-R.T @ self.tvec) * np.array([1.0, 1.0, -1.0])


def centred_K(image_size: tuple[int, int], focal: float) -> np.ndarray:
    """The camera matrix of a lens known only by its focal length: square pixels, principal
    point at the image centre."""
    w, h = image_size
    return np.array([[focal, 0.0, (w - 1) / 2], [0.0, focal, (h - 1) / 2], [0.0, 0.0, 1.0]])


def fit_pose(table_cm: np.ndarray, image_px: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """rvec, tvec of the camera that best projects these table points (z = 0) onto these
    undistorted pixels (at least 4)."""
    objects = np.hstack([table_cm, np.zeros((len(table_cm), 1))]).astype(np.float64)
    pixels = image_px.astype(np.float64)
    ok, rvec, tvec = cv2.solvePnP(objects, pixels, K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        ok, rvec, tvec = cv2.solvePnP(objects, pixels, K, None)
    return cv2.solvePnPRefineLM(objects, pixels, K, None, rvec, tvec)


def assumed_focal(table_to_image: np.ndarray, image_size: tuple[int, int]) -> float:
    """Focal length (px) of a camera looking straight down from ASSUMED_HEIGHT_CM that sees the
    table at the scale the homography shows under the picture's centre (f / height px per cm)."""
    w, h = image_size
    centre = np.array([[(w - 1) / 2, (h - 1) / 2], [(w + 1) / 2, (h - 1) / 2], [(w - 1) / 2, (h + 1) / 2]])
    table = cv2.perspectiveTransform(centre.reshape(-1, 1, 2), np.linalg.inv(table_to_image)).reshape(-1, 2)
    cm_per_px2 = abs(np.linalg.det(np.column_stack([table[1] - table[0], table[2] - table[0]])))
    return float(ASSUMED_HEIGHT_CM / np.sqrt(cm_per_px2))


def focal_or_assumed(
    table_to_image: np.ndarray, image_size: tuple[int, int], markers: int
) -> tuple[float, bool]:
    """The focal length (px) the homography fitted to `markers` markers implies, else the assumed
    height's (`assumed_focal`), and whether it was assumed."""
    focal = focal_from_homography(table_to_image, image_size) if markers >= MIN_MARKERS_FOR_FOCAL else None
    return (assumed_focal(table_to_image, image_size), True) if focal is None else (focal, False)


def focal_from_homography(table_to_image: np.ndarray, image_size: tuple[int, int]) -> float | None:
    """Focal length in px implied by a table->pixel homography, or None when it is not implied."""
    w, h = image_size
    centre = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]], dtype=np.float64)
    A = centre @ table_to_image
    A = A / np.linalg.norm(A[:, :2])
    (a11, a12), (a21, a22), (a31, a32) = A[0, :2], A[1, :2], A[2, :2]
    # In w = 1/f^2: orthogonal axes, and axes of equal length.
    c = np.array([a11 * a12 + a21 * a22, a11**2 + a21**2 - a12**2 - a22**2])
    d = np.array([a31 * a32, a31**2 - a32**2])
    if c @ c == 0:
        return None
    inv_f2 = -(c @ d) / (c @ c)
    if inv_f2 <= 0:
        return None
    focal = 1 / np.sqrt(inv_f2)
    # The table normal in the camera frame, from the two axes' directions once K is undone.
    normal = np.cross([a11 / focal, a21 / focal, a31], [a12 / focal, a22 / focal, a32])
    tilt = np.degrees(np.arccos(min(abs(normal[2]) / np.linalg.norm(normal), 1.0)))
    if not (0.2 * w < focal < 10 * w) or tilt < MIN_TILT_FOR_FOCAL_DEG:
        return None
    return float(focal)


def solve_pose(
    table_cm: np.ndarray,
    image_px: np.ndarray,
    K: np.ndarray | None,
    image_size: tuple[int, int],
    table_to_image: np.ndarray,
    *,
    markers: int,
) -> Pose:
    """Camera pose from the corners (table cm) of `markers` markers and their undistorted pixels
    (the count said, not read off the corners: unmeasured ones are left out)."""
    assumed = False
    if K is None:
        focal, assumed = focal_or_assumed(table_to_image, image_size, markers)
        K = centred_K(image_size, focal)
    rvec, tvec = fit_pose(table_cm, image_px, K)
    return Pose(K=K, rvec=rvec.ravel(), tvec=tvec.ravel(), height_assumed=assumed)
