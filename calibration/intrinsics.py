"""Lens intrinsics (CAM.json): focal length, principal point and distortion of one camera mode.

Intrinsics belong to a sensor mode: the same lens binned or cropped has a different K. Using
them on an image of another size silently bends the table, so that is an error, not a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from calibration.jsonfile import read_json
from calibration.lens_reach import Reach, reach_of
from rules_core.errors import TablesightError

# OpenCV accepts 4, 5, 8, 12 or 14 distortion coefficients.
DIST_LENGTHS = (4, 5, 8, 12, 14)
# The angles of view a lens file's pinhole K may give across its image: past 170 degrees its
# focal length is a few dozen pixels, under 1 degree no table fits in the picture.
WIDEST_VIEW_DEG = 170.0
NARROWEST_VIEW_DEG = 1.0
# How far from its picture's centre a lens's principal point may lie, as a share of the half-width
# and half-height. `calibrate-lens` put it at most 0.105 out (most under 0.02) fitting the tests'
# lenses and the benchmarks' cameras (tilted, wide, barrel to k1 -0.3, the board kept to half or a
# quarter of the frame); camera modules' lie a few hundredths out. Past 0.6 the K is edited, or of
# another sensor mode: cx 0 loaded, and `detect` only warned of markers 1.66 mm apart. A binned
# mode's K filed with the full mode's size lies 0.5 out, and is left to the image size's check,
# which names the mistake.
PRINCIPAL_POINT_REACH = 0.6
# OpenCV holds an image's sides as 32-bit ints.
MAX_SIDE_PX = 2**31 - 1


@dataclass(frozen=True)
class Intrinsics:
    """K (3x3), OpenCV distortion coefficients, and the image size [w, h] they were measured at.

    `label` names where they came from in messages: a lens file that does not fit the camera is
    the user's to replace, so the message must say which file that is.
    """

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]
    label: str = field(default="the lens calibration (--intrinsics)", compare=False)

    def __post_init__(self) -> None:
        K = np.asarray(self.K, dtype=np.float64)
        dist = np.asarray(self.dist if self.dist is not None else np.zeros(5), dtype=np.float64).ravel()
        # Undistorting and projecting invert K: a singular one would surface far away, as
        # markers that "give no usable geometry".
        if (
            K.shape != (3, 3)
            or not np.all(np.isfinite(K))
            or K[0, 0] <= 0
            or K[1, 1] <= 0
            or np.linalg.matrix_rank(K) < 3
        ):
            raise TablesightError(
                "intrinsics K must be an invertible 3x3 matrix with positive focal lengths",
                "use a CAM.json written by `tablesight calibrate-lens`",
            )
        if len(dist) not in DIST_LENGTHS:
            raise TablesightError(
                f"intrinsics dist has {len(dist)} coefficients, OpenCV needs 4, 5, 8, 12 or 14",
                "use a CAM.json written by `tablesight calibrate-lens`",
            )
        if not np.all(np.isfinite(dist)):
            raise TablesightError(
                "intrinsics dist must be finite numbers (it holds NaN or infinity)",
                "use a CAM.json written by `tablesight calibrate-lens`",
            )
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "dist", dist)
        object.__setattr__(self, "image_size", (int(self.image_size[0]), int(self.image_size[1])))
        if problem := _no_camera_has(K, self.image_size):
            raise TablesightError(
                f"intrinsics K is no camera's: {problem}",
                "calibrate the lens again with `tablesight calibrate-lens` in this camera mode, the board "
                "shown in every part of the frame",
            )

    def check_image(self, image_size: tuple[int, int], source: str = "the image") -> None:
        """Refuse an image taken in another sensor mode than the lens calibration's."""
        if tuple(image_size) != self.image_size:
            w, h = image_size
            cw, ch = self.image_size
            raise TablesightError(
                f"intrinsics are for {cw}x{ch} images but {source} is {w}x{h}",
                f"calibrate the lens at {w}x{h} (`tablesight calibrate-lens`) or capture at {cw}x{ch}",
            )

    @cached_property
    def reach(self) -> Reach:
        """Where this lens model folds back, traced once per lens (a few dozen ms)."""
        return reach_of(self.K, self.dist)

    def undistort(self, pixels: np.ndarray) -> np.ndarray:
        """Raw (distorted) pixels -> ideal pinhole pixels with the same K, converged tightly."""
        from calibration.camera import undistort_converged

        if not np.any(self.dist):
            return np.asarray(pixels, dtype=np.float64).reshape(-1, 2).copy()
        return undistort_converged(pixels, self.K, self.dist)

    def distort(self, ideal: np.ndarray) -> np.ndarray:
        """Ideal pinhole pixels -> raw pixels (the lens applied), the inverse of `undistort`."""
        import cv2

        pts = np.asarray(ideal, dtype=np.float64).reshape(-1, 2)
        if not np.any(self.dist):
            return pts.copy()
        normalised = (pts - self.K[:2, 2]) / np.diag(self.K)[:2]
        rays = np.hstack([normalised, np.ones((len(pts), 1))])
        raw, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), self.K, self.dist)
        return raw.reshape(-1, 2)

    def to_dict(self) -> dict:
        return {"K": self.K.tolist(), "dist": self.dist.tolist(), "image_size": list(self.image_size)}

    @classmethod
    def from_dict(cls, data: dict, source: str = "intrinsics") -> Intrinsics:
        fix = ("use a CAM.json with K (3x3), image_size [w, h] and dist (none for a lens without "
               "distortion), as `tablesight calibrate-lens` writes")
        if not isinstance(data, dict):
            raise TablesightError(f"{source} is not a JSON object", fix)
        missing = [k for k in ("K", "image_size") if data.get(k) is None]  # null is no value
        if missing:
            raise TablesightError(f"{source} has no {missing[0]}", fix)
        size = pixel_size(data["image_size"])
        if size is None:
            raise TablesightError(f"{source} image_size must be [width, height] in pixels", fix)
        # A lens file written by other tools: K as nine numbers in a row, no dist (or null, or
        # empty) for a lens without distortion; OpenCV's own files write K flat too.
        dist = data.get("dist")
        dist = np.zeros(5) if dist is None or dist == [] else dist
        try:
            K = np.asarray(data["K"], dtype=np.float64)
            return cls(K=K.reshape(3, 3) if K.size == 9 else K, dist=np.asarray(dist, dtype=np.float64),
                       image_size=size)
        # OverflowError: a whole number too long for a float (JSON reads 400 nines as one)
        except (TypeError, ValueError, OverflowError):
            raise TablesightError(f"{source} K and dist must be numbers", fix) from None
        except TablesightError as error:
            # The lens's own checks know no file: the message names the one that holds it.
            raise TablesightError(error.problem.replace("intrinsics", source, 1), error.fix) from None


def pixel_size(size: object) -> tuple[int, int] | None:
    """[width, height] in whole pixels, also written as floats (2028.0, as numpy's JSON gives it);
    None when it is not that, or past the sides OpenCV can hold (a whole number too long for a
    float ended the loaders in a traceback)."""
    if not (isinstance(size, list) and len(size) == 2):
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and 0 < v <= MAX_SIDE_PX
               and float(v).is_integer() for v in size):
        return None
    return int(size[0]), int(size[1])


def _no_camera_has(K: np.ndarray, image_size: tuple[int, int]) -> str | None:
    """What in K no camera has, or None. Such a file loaded, and `detect` measured with it
    without a word: a principal point 10 km off made the pose and every parallax absurd."""
    width, height = image_size
    if not np.allclose(K[2], (0.0, 0.0, 1.0), rtol=0.0, atol=1e-9) or abs(K[1, 0]) > 1e-9:
        return f"its last row must be 0 0 1 and K[1][0] 0, as in every camera matrix (it is {K.tolist()})"
    if problem := principal_point_problem(K, image_size):
        return problem
    views = np.degrees(2 * np.arctan(np.array([width, height]) / (2 * np.diag(K)[:2])))
    if np.any(views > WIDEST_VIEW_DEG) or np.any(views < NARROWEST_VIEW_DEG):
        return (f"its focal lengths ({K[0, 0]:g}, {K[1, 1]:g} px) see {views[0]:.3g} x {views[1]:.3g} "
                f"degrees, where a lens sees {NARROWEST_VIEW_DEG:g}-{WIDEST_VIEW_DEG:g}")
    return None


def principal_point_problem(K: np.ndarray, image_size: tuple[int, int]) -> str | None:
    """Where K's principal point lies, in words, when no lens puts it there; else None. A
    calibration's pose K is held to it too: it places raised points as a lens file's K does."""
    half = np.array(image_size, dtype=np.float64) / 2
    out = float(np.max(np.abs(K[:2, 2] - half) / half))  # 0 at the centre, 1 at the edge
    if out <= PRINCIPAL_POINT_REACH:
        return None
    image = f"its {image_size[0]}x{image_size[1]} image"
    where = f"outside {image}" if out > 1 else f"{out:.0%} of the way from the centre of {image} to the edge"
    return (f"its principal point ({K[0, 2]:g}, {K[1, 2]:g}) lies {where}, where a lens's lies less "
            f"than {PRINCIPAL_POINT_REACH:.0%} of the way out from the centre")


def load_intrinsics(path: str | Path) -> Intrinsics:
    """Read CAM.json, named by its path in messages; the images it is used on are checked against
    its size where they are read (`check_image`, `calibration.imagefile.check_size_for_lens`)."""
    data = read_json(path, "intrinsics", "--intrinsics",
                     "the CAM.json written by `tablesight calibrate-lens`")
    return replace(Intrinsics.from_dict(data, source=f"intrinsics {path}"), label=f"lens file {path}")
