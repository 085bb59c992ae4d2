"""Table calibration: the map between camera pixels and table centimetres.

`calibrate` turns one photo of the table (plus, ideally, the lens's intrinsics) into a
`TableCalibration`, the only object downstream code needs to speak table cm: points both ways,
the rectified top-down image, the camera's position for parallax, and the quality figures a
player can judge it by. It serialises to the calibration JSON of CONTRACTS.md.
"""

from __future__ import annotations

import math
import reprlib
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration.aruco import Sighting, find_markers, markers_in_view, to_gray
from calibration.distortion import NEEDS_LENS_MM, estimate_radial, intrinsics_for, radial_from_edges
from calibration.homography import HomographyFit, apply, corner_moves, fit_homography, grown_corners
from calibration.intrinsics import Intrinsics, pixel_size, principal_point_problem
from calibration.layout import Layout
from calibration.lens_reach import past_fold
from calibration.pose import (
    ASSUMED_HEIGHT_CM,
    MIN_MARKERS_FOR_FOCAL,
    Pose,
    centred_K,
    focal_or_assumed,
    solve_pose,
)
from calibration.table_edges import table_edges
from rules_core.errors import TablesightError

# Table corners further than this outside the markers' hull are extrapolated, not interpolated.
EXTRAPOLATION_WARN_CM = 10.0
# Marker corners this far off the fitted plane mean the camera model is missing something.
LOOSE_FIT_MM = 1.5
# Markers still this far apart (worst corner) once a lens is modelled are not where the layout
# says: two markers swapped, the wrong table size named, every marker turned. Measured on the
# benchmark's generated tables (benchmarks/calibration.py: 24 scenes and the 16 hard ones, with
# and without intrinsics, plus wide lenses to k1 -0.3 without): good fits at most 0.87 mm
# (a 20 px motion smear); wrong layouts that no marker's removal explains 16.4 mm and more
# (122x122 named for a 183x122 table), swapped or turned markers 100-270 mm. Six markers laid by
# hand on a 244x183 table, each within 6 mm and a degree of its place, read up to 9 mm: 12 mm
# leaves them room and stays clear of the wrong layouts.
WRONG_LAYOUT_MM = 12.0
# A lens calibration is doubted when it leaves the markers further apart than this (worst corner)
# and LENS_DOUBT_RATIO times further than they are without it (a lens estimated from them). The
# benchmark's right lenses (40 scenes: glare, blur, hands, distorted lenses) leave them at most
# 0.87 mm apart and 1.42 times their own figure, 32 tables of markers laid by hand (up to 6 mm
# and a degree off) with the right lens 1.68 times; lens files of another lens or focal length
# at the same resolution 0.34-1.1 mm and 28-93 times, positions then 1.2-4.3 mm off (0.3 mm
# without the file).
LENS_DOUBT_MM = 0.3
LENS_DOUBT_RATIO = 3.0
# A doubted lens calibration is refused, not warned of, past this: the markers' disagreement
# spreads over the table about four times over. On a 183x122 table whose markers agree to 0.03 mm
# without it, lens files leaving them 0.87, 1.37, 2.65 and 9.65 mm apart put the table's points a
# median 4.4, 5.5, 13 and 39 mm off.
LENS_REFUSAL_MM = 2.0
# A lens read off the table's edges is taken where the markers' worst corner, undistorted by it,
# lies at most this many times as far off as without it (or than NEEDS_LENS_MM): something
# straight on the floor taken for an edge bends the markers apart.
EDGE_LENS_MARKERS = 1.5
# What to check when the markers are not where the layout says (calibrate, rectify, doctor).
LAYOUT_ADVICE = (
    "check each marker's id against its place on the printed map, that each lies where its page "
    "says, and that --layout is this table's size"
)
# What to do about a lens calibration that is not this camera's.
LENS_FIX = (
    "give --intrinsics a lens file from `tablesight calibrate-lens` made with this camera in this "
    "mode, or leave --intrinsics out"
)
# No two markers fit in a picture narrower than this (a 4x4 marker alone is 6 cells with its
# border), and the marker search's light map, made at an eighth of the size, would be empty.
MIN_IMAGE_SIDE_PX = 16
# OpenCV's remap refuses a destination this many pixels wide or high (SHRT_MAX).
MAX_RECTIFIED_SIDE_PX = 32767
# A marker a calibration could have been fitted to covers far more of its image than this
# (a 4x4 marker's cells need 2-3 px each); a map that shows one smaller was not fitted to it.
MIN_MARKER_AREA_PX = 25.0


def rectify_maps(
    homography: np.ndarray,
    K: np.ndarray | None,
    dist: np.ndarray | None,
    table_cm: tuple[float, float],
    px_per_mm: float,
) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's fixed-point remap maps of the top-down table.

    Pixel (u, v) shows table point ((u + 0.5) / s, (v + 0.5) / s) cm with s = 10 * px_per_mm;
    `homography` maps table cm to undistorted pixels, and `K` and `dist` put the lens back
    (none: the image is undistorted already). cv2.initUndistortRectifyMap does exactly that for
    a virtual camera whose pixels reach the ideal image through an invertible 3x3 (newK R)^-1:
    here the table view's own homography, turned into normalised rays. It builds a 1770x1180
    table's maps in ~6 ms in C++, where mapping each pixel through the lens model with
    cv2.projectPoints took 1.3 s (and its Jacobian 74 MB a 64-row band), so every new
    calibration's first frame took 2 s instead of 0.3 s. Its maps are those of the point-wise
    projection to 1/32 px, the maps' own step.
    """
    scale = 10.0 * px_per_mm
    size = (round(table_cm[0] * scale), round(table_cm[1] * scale))
    K = np.eye(3) if K is None else np.asarray(K, np.float64)
    pixel_to_cm = np.array([[1 / scale, 0, 0.5 / scale], [0, 1 / scale, 0.5 / scale], [0, 0, 1]])
    rays = np.linalg.inv(K) @ np.asarray(homography, np.float64) @ pixel_to_cm
    lens = np.zeros(5) if dist is None else np.asarray(dist, np.float64)
    return cv2.initUndistortRectifyMap(K, lens, np.linalg.inv(rays), np.eye(3), size, cv2.CV_16SC2)


@dataclass
class TableCalibration:
    """A fitted camera-to-table map. Pixels are raw camera pixels unless stated otherwise."""

    layout: Layout
    image_size: tuple[int, int]
    homography: np.ndarray
    marker_ids: list[int]
    rms_mm: float
    max_mm: float
    warnings: list[str]
    pose_K: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    intrinsics: Intrinsics | None = None
    rejected_ids: list[int] = field(default_factory=list)
    marker_rms_mm: dict[int, float] = field(default_factory=dict)
    lens_estimated: bool = False
    _maps: dict[float, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)

    @property
    def camera_centre_cm(self) -> np.ndarray:
        """Camera centre in the table frame: (x, y, height above the table), cm."""
        R = cv2.Rodrigues(self.rvec)[0]
        return (-R.T @ self.tvec) * np.array([1.0, 1.0, -1.0])

    @property
    def projection(self) -> np.ndarray:
        """3x4 map from table (x, y, z up, 1) to undistorted pixels; equals the homography at z = 0.

        The z column comes from the pose, scaled to the homography, so points on the table map
        exactly as the homography says and raised points follow the fitted camera.
        """
        table_to_image = np.linalg.inv(self.homography)
        R = cv2.Rodrigues(self.rvec)[0]
        plane = self.pose_K @ np.column_stack([R[:, 0], R[:, 1], self.tvec])
        scale = np.sum(plane * table_to_image) / np.sum(plane * plane)
        z_up = -scale * (self.pose_K @ R[:, 2])
        return np.column_stack([table_to_image[:, 0], table_to_image[:, 1], z_up, table_to_image[:, 2]])

    def image_to_table(self, px: np.ndarray) -> np.ndarray:
        """(n, 2) raw pixels -> (n, 2) table cm, for points on the table surface."""
        pts = np.asarray(px, dtype=np.float64).reshape(-1, 2)
        if self.intrinsics is not None:
            pts = self.intrinsics.undistort(pts)
        return apply(self.homography, pts)

    def table_to_image(self, cm: np.ndarray) -> np.ndarray:
        """(n, 2) table cm, or (n, 3) with z up, -> (n, 2) raw pixels."""
        pts = np.asarray(cm, dtype=np.float64)
        pts = pts.reshape(-1, pts.shape[-1])
        if pts.shape[1] == 2:
            pts = np.hstack([pts, np.zeros((len(pts), 1))])
        mapped = np.hstack([pts, np.ones((len(pts), 1))]) @ self.projection.T
        ideal = mapped[:, :2] / mapped[:, 2:3]
        return self.intrinsics.distort(ideal) if self.intrinsics is not None else ideal

    def rectify(self, image: np.ndarray, px_per_mm: float) -> np.ndarray:
        """The whole table seen from above.

        Pixel (u, v) shows table point ((u + 0.5) / s, (v + 0.5) / s) cm with s = 10 * px_per_mm.
        The pixel maps are cached per scale, so after the first call it costs one remap.
        """
        if not px_per_mm > 0 or not math.isfinite(px_per_mm):
            raise TablesightError(
                f"--px-per-mm must be positive and finite, got {px_per_mm}", "give --px-per-mm e.g. 1 or 2"
            )
        self._check_rectified_size(px_per_mm)
        height, width = image.shape[:2]
        if (width, height) != tuple(self.image_size):
            raise TablesightError(
                f"image is {width}x{height} but the calibration is for "
                f"{self.image_size[0]}x{self.image_size[1]}",
                f"give a {self.image_size[0]}x{self.image_size[1]} photo from the calibrated camera, or "
                "calibrate again on this one with `tablesight calibrate`",
            )
        key = float(px_per_mm)
        if key not in self._maps:
            lens = self.intrinsics
            self._maps[key] = rectify_maps(
                self.projection[:, [0, 1, 3]],
                None if lens is None else lens.K,
                None if lens is None else lens.dist,
                self.layout.table_size_cm,
                key,
            )
        map1, map2 = self._maps[key]
        return cv2.remap(image, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def _check_rectified_size(self, px_per_mm: float) -> None:
        """A scale that rounds the table to no pixels, or to more than OpenCV can warp, is named
        with the range that works, before any map is built (the maps alone would take gigabytes)."""
        table = self.layout.table_size_cm
        sides = [round(side * 10.0 * px_per_mm) for side in table]
        if min(sides) >= 1 and max(sides) < MAX_RECTIFIED_SIDE_PX:
            return
        lowest = 0.5 / (10.0 * min(table))
        highest = (MAX_RECTIFIED_SIDE_PX - 1) / (10.0 * max(table))
        raise TablesightError(
            f"{px_per_mm:g} px per mm makes the {table[0]:g}x{table[1]:g} cm table "
            f"{sides[0]}x{sides[1]} pixels, which cannot be drawn",
            f"use from {lowest:.2g} to {highest:.3g} px per mm",
        )

    def to_dict(self) -> dict[str, Any]:
        """The calibration JSON of CONTRACTS.md, plus the pose and per-marker figures."""
        return {
            "layout": self.layout.to_dict(),
            "image_size": list(self.image_size),
            "K": None if self.intrinsics is None else self.intrinsics.K.tolist(),
            "dist": None if self.intrinsics is None else self.intrinsics.dist.tolist(),
            "homography": self.homography.tolist(),
            "marker_ids": list(self.marker_ids),
            "rms_mm": round(self.rms_mm, 4),
            "max_mm": round(self.max_mm, 4),
            "markers_used": len(self.marker_ids),
            "rejected_marker_ids": list(self.rejected_ids),
            "marker_rms_mm": {str(k): round(v, 4) for k, v in self.marker_rms_mm.items()},
            "warnings": list(self.warnings),
            "camera_centre_cm": [round(float(v), 3) for v in self.camera_centre_cm],
            "pose": {"K": self.pose_K.tolist(), "rvec": self.rvec.tolist(), "tvec": self.tvec.tolist()},
            "lens_estimated": self.lens_estimated,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "calibration") -> TableCalibration:
        fix = "use a calibration JSON written by `tablesight calibrate`"
        if not isinstance(data, dict):
            raise TablesightError(f"{source} is not a JSON object", fix)
        for key in ("layout", "image_size", "homography", "marker_ids", "rms_mm", "max_mm"):
            if key not in data:
                raise TablesightError(f"{source} has no {key}", fix)
        layout = Layout.from_dict(data["layout"], source=f"{source} layout")
        size = pixel_size(data["image_size"])
        if size is None:
            raise TablesightError(f"{source} image_size must be [width, height] in pixels", fix)
        intrinsics = _lens_of(data, size, source, fix)
        homography = np.asarray(data["homography"], dtype=np.float64)
        # Every use inverts it (the table-to-image map, the top-down view's pixel maps).
        if (
            homography.shape != (3, 3)
            or not np.isfinite(homography).all()
            or np.linalg.matrix_rank(homography) < 3
        ):
            raise TablesightError(f"{source} homography is not an invertible 3x3 matrix of numbers", fix)
        marker_ids = _marker_ids(data, "marker_ids", layout, source, fix)
        if len(marker_ids) < 2:
            raise TablesightError(
                f"{source} marker_ids names {len(marker_ids)} marker{'' if len(marker_ids) == 1 else 's'}, "
                "where a calibration is fitted to 2 or more", fix
            )
        rejected_ids = _marker_ids(data, "rejected_marker_ids", layout, source, fix)
        warnings = data.get("warnings", [])
        if not (isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)):
            raise TablesightError(
                f"{source} warnings must be a list of texts (it is of the wrong kind: "
                f"{reprlib.repr(warnings)})", fix
            )
        # Only the markers it was fitted to were in sight: with two or three, the others may lie
        # behind a camera low over one end of the table.
        fitted = [i for i in layout.corners_by_id if i in marker_ids]
        if not _markers_in_sight(layout, homography, fitted):
            raise TablesightError(
                f"{source} homography is not a camera's view of its table: it squashes or folds "
                "its markers out of sight", fix
            )
        if _mirrors(layout, homography, fitted):
            raise TablesightError(
                f"{source} homography shows its table mirrored, as no camera above it sees it (the file "
                "was edited)", fix
            )
        pose = data.get("pose")
        if pose is not None:
            _check_pose(pose, size, f"{source} pose", fix)
            if intrinsics is not None and not data.get("lens_estimated", False):
                _check_lens_is_the_pose_s(intrinsics, pose, source)
        if intrinsics is not None:
            _check_lens_reaches(intrinsics, layout, homography, fitted, source)
        if pose is None:
            pose = _pose_from_homography(layout, homography, intrinsics, size, fitted)
            _check_pose(pose, size, f"{source} pose", fix)
        if not isinstance(data.get("marker_rms_mm", {}), dict):
            raise TablesightError(f"{source} marker_rms_mm is not a JSON object", fix)
        for key in ("rms_mm", "max_mm"):
            _check_millimetres(data[key], f"{source} {key}", fix)
        _check_fit(data, intrinsics is None or bool(data.get("lens_estimated", False)), source)
        return cls(
            layout=layout,
            image_size=size,
            homography=homography,
            marker_ids=marker_ids,
            rms_mm=float(data["rms_mm"]),
            max_mm=float(data["max_mm"]),
            warnings=list(warnings),
            pose_K=np.asarray(pose["K"], dtype=np.float64),
            rvec=np.asarray(pose["rvec"], dtype=np.float64).ravel(),
            tvec=np.asarray(pose["tvec"], dtype=np.float64).ravel(),
            intrinsics=intrinsics,
            rejected_ids=rejected_ids,
            marker_rms_mm={int(k): float(v) for k, v in data.get("marker_rms_mm", {}).items()},
            lens_estimated=bool(data.get("lens_estimated", False)),
        )


def _lens_of(data: dict[str, Any], size: tuple[int, int], source: str, fix: str) -> Intrinsics | None:
    """The lens the calibration's homography was fitted through; None when it was fitted without
    one (`calibrate` then writes K and dist null)."""
    if not isinstance(data.get("lens_estimated", False), bool):
        raise TablesightError(f"{source} lens_estimated must be true or false", fix)
    if data.get("K") is None:
        # Its lens edited out: pixels read as if it bent nothing, the table's corners 1.5-3 cm off.
        if data.get("dist") not in (None, []):
            raise TablesightError(
                f"{source} has dist but no K: its lens was taken out after calibrating", fix
            )
        return None
    try:
        dist = np.asarray(data.get("dist") or np.zeros(5))
        return Intrinsics(K=np.asarray(data["K"]), dist=dist, image_size=size)
    except TablesightError as error:
        # Its lens came with it: the fix is a new calibration, not a lens file.
        raise TablesightError(error.problem.replace("intrinsics", source, 1), fix) from None


def _marker_ids(data: dict[str, Any], key: str, layout: Layout, source: str, fix: str) -> list[int]:
    """The ids listed under `key`, each a marker of the layout named once. Read as Python reads
    lists, "0123" was markers 0-3; ids the layout has not, or repeated, loaded as they were."""
    value = data.get(key, [])
    if not (isinstance(value, list) and all(_whole_number(v) for v in value)):
        raise TablesightError(
            f"{source} {key} must be a list of marker ids, whole numbers (it is of the wrong kind: "
            f"{reprlib.repr(value)})", fix
        )
    ids = [int(v) for v in value]
    unknown = [i for i in dict.fromkeys(ids) if i not in layout.corners_by_id]
    if unknown:
        raise TablesightError(f"{source} {key} names {_markers(unknown)}, which its layout has not", fix)
    twice = [i for i, count in Counter(ids).items() if count > 1]
    if twice:
        raise TablesightError(f"{source} {key} names {_markers(twice)} more than once", fix)
    return ids


def _whole_number(value: Any) -> bool:
    """An int, or a float with nothing after the point (as a tool that keeps numbers as floats
    writes one back); not a bool, which Python counts as an int."""
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


def _markers_in_sight(layout: Layout, homography: np.ndarray, ids: list[int]) -> bool:
    """Whether the table-to-image map shows the markers `ids` as a camera would: in front of it
    (H and -H are the same map, so one sign of depth, either), each a quadrilateral turning the
    same way as the others and covering at least MIN_MARKER_AREA_PX square pixels. A file edited
    to squash the table onto a line, or to fold it through the horizon, loaded, and the pose
    solved from it failed inside OpenCV."""
    corners = np.stack([layout.corners_by_id[i] for i in ids])  # (markers, 4, 2)
    mapped = np.concatenate([corners, np.ones((*corners.shape[:2], 1))], axis=2) @ np.linalg.inv(homography).T
    depth = mapped[..., 2]
    if not (np.all(depth > 0) or np.all(depth < 0)):
        return False
    area = _signed_areas(mapped[..., :2] / depth[..., None])
    return bool(np.all(np.abs(area) >= MIN_MARKER_AREA_PX) and (np.all(area > 0) or np.all(area < 0)))


def _mirrors(layout: Layout, homography: np.ndarray, ids: list[int]) -> bool:
    """Whether the map turns the markers (in sight) over: a camera above the table sees each turn
    the way it turns on the table, whatever its rotation or tilt; seen mirrored, a marker reads as
    none. A file edited so had `rectify` draw the table mirrored without a word."""
    corners = np.stack([layout.corners_by_id[i] for i in ids])
    mapped = apply(np.linalg.inv(homography), corners.reshape(-1, 2)).reshape(corners.shape)
    return bool(np.all(_signed_areas(mapped) * _signed_areas(corners) < 0))


def _signed_areas(quads: np.ndarray) -> np.ndarray:
    """Shoelace areas of (n, 4, 2) quadrilaterals; the sign says which way each turns."""
    x, y = quads[..., 0], quads[..., 1]
    return 0.5 * np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)


def _check_millimetres(value: Any, source: str, fix: str) -> None:
    """The fit's figures: NaN compares as nothing, and slipped a file fitted to a wrong layout
    past `_check_fit`."""
    try:
        number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan
    except OverflowError:
        number = math.inf
    if not (math.isfinite(number) and number >= 0):
        raise TablesightError(
            f"{source} must be a number of millimetres, 0 or more (it is {reprlib.repr(value)})", fix
        )


def _check_lens_is_the_pose_s(intrinsics: Intrinsics, pose: dict[str, Any], source: str) -> None:
    """`calibrate` solves the pose with the lens file's K and writes both: a K that differs from the
    pose's was edited afterwards, and the homography, fitted to pixels undistorted through the old
    one, then measures millimetres to metres off (a focal length 10% longer: 2-4 mm)."""
    if not np.allclose(intrinsics.K, np.asarray(pose["K"], dtype=np.float64), rtol=1e-9, atol=1e-9):
        raise TablesightError(
            f"{source} K is not the K its pose was solved with: one was edited after calibrating, and "
            "its homography was fitted through the other",
            "calibrate again with `tablesight calibrate` (with --intrinsics to change the lens)",
        )


def _check_lens_reaches(
    intrinsics: Intrinsics, layout: Layout, homography: np.ndarray, ids: list[int], source: str
) -> None:
    """A calibration file's lens must reach the markers it was fitted to, as `calibrate` made
    sure of (`_check_reach`); one whose K or dist was edited afterwards turns back before them,
    and every pixel it reads then undistorts to a wrong place."""
    if not np.any(intrinsics.dist):
        return
    table_to_image = np.linalg.inv(homography)
    seen = {i: apply(table_to_image, layout.corners_by_id[i]) for i in ids}
    beyond = [i for i, ideal in seen.items() if past_fold(intrinsics.K, intrinsics.dist, ideal).any()]
    if beyond:
        raise TablesightError(
            f"{source} has a lens (K, dist) that does not reach its markers: its distortion turns back "
            f"{intrinsics.reach.fold_px():.0f} px from the principal point, and its homography puts "
            f"{_markers(beyond)} beyond that, where no light comes through it (the file was edited or "
            "damaged)",
            "calibrate again with `tablesight calibrate` (for a wide lens, with --intrinsics from "
            "`tablesight calibrate-lens --wide`)",
        )


def _check_pose(pose: Any, size: tuple[int, int], source: str, fix: str) -> None:
    """The pose places raised points (parallax): a missing or non-finite part would put them
    nowhere, far from where the file was read."""
    if not isinstance(pose, dict):
        raise TablesightError(f"{source} is not a JSON object", fix)
    for key, count in (("K", 9), ("rvec", 3), ("tvec", 3)):
        value = np.asarray(pose.get(key), dtype=np.float64)
        if value.size != count or (key == "K" and value.shape != (3, 3)) or not np.isfinite(value).all():
            raise TablesightError(f"{source} {key} must be {'3x3' if key == 'K' else 3} numbers", fix)
    # An emptied K divided by zero in every raised point's projection, a negative one put the
    # camera under the table.
    K = np.asarray(pose["K"], dtype=np.float64)
    if K[0, 0] <= 0 or K[1, 1] <= 0 or not np.allclose(K[2], (0.0, 0.0, 1.0), rtol=0.0, atol=1e-9):
        raise TablesightError(
            f"{source} K must be a camera matrix: positive focal lengths and a last row of 0 0 1", fix
        )
    if problem := principal_point_problem(K, size):
        raise TablesightError(f"{source} K is no camera's: {problem}", fix)


def _check_fit(data: dict[str, Any], lens_unmeasured: bool, source: str) -> None:
    """Files written before `calibrate` refused a wrong layout: without a measured lens no good
    fit leaves its markers WRONG_LAYOUT_MM apart, and such a map puts pieces off the table (one
    read 269 mm with its camera 1,900 km away). With a measured lens it may be the lens's."""
    worst = float(data["max_mm"])
    if lens_unmeasured and worst > WRONG_LAYOUT_MM:
        raise TablesightError(
            f"{source} was fitted to markers that are not where its layout says (markers disagree "
            f"by up to {worst:.0f} mm)",
            f"calibrate again with `tablesight calibrate`: {LAYOUT_ADVICE}",
        )


def _pose_from_homography(
    layout: Layout, homography: np.ndarray, intrinsics: Intrinsics | None, size: tuple[int, int],
    ids: list[int],
) -> dict[str, Any]:
    """A pose for calibration files written without one: from the corners of the markers `ids`
    (those it was fitted to, in sight) via H."""
    table = np.concatenate([layout.corners_by_id[i] for i in ids])
    table_to_image = np.linalg.inv(homography)
    pose = solve_pose(
        table,
        apply(table_to_image, table),
        None if intrinsics is None else intrinsics.K,
        size,
        table_to_image,
        markers=len(ids),
    )
    return {"K": pose.K, "rvec": pose.rvec, "tvec": pose.tvec}


def _check_image(image: Any) -> tuple[int, int]:
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise TablesightError(
            "the image is empty or not a picture", "give a photo of the table (JPEG or PNG)"
        )
    width, height = image.shape[1], image.shape[0]
    if min(width, height) < MIN_IMAGE_SIDE_PX:
        raise TablesightError(
            f"the image is only {width}x{height} pixels, too small to show the markers",
            "give a photo of the whole table from the camera, at its full size",
        )
    return width, height


def _mirrored(image: np.ndarray, layout: Layout) -> list[int]:
    """The layout's markers that read only in the image's mirror image (2 or more, else none).

    A printed marker seen mirrored decodes as no marker at all, so a photo flipped by a front
    camera's or an app's mirror setting looked like a table without markers."""
    ids = sorted(set(markers_in_view(cv2.flip(to_gray(image), 1), layout.dictionary)) & set(layout.ids))
    return ids if len(ids) >= 2 else []


def _too_few_markers(
    layout: Layout, seen: list[int], ignored: list[int], mirrored: list[int]
) -> TablesightError:
    if mirrored:
        return TablesightError(
            f"the image is mirrored: markers {', '.join(map(str, mirrored))} read only when it is "
            "flipped left to right",
            "turn off the camera's mirror or flip setting, or flip the photo back left to right",
        )
    what = "no layout markers" if not seen else f"only marker {seen[0]}"
    others = (
        f" (it did see markers {', '.join(map(str, ignored))}, which are not in the layout)"
        if ignored
        else ""
    )
    return TablesightError(
        f"found {what} in the image{others}; calibration needs at least 2",
        f"make sure at least 2 of markers {', '.join(map(str, layout.ids))} ({layout.dictionary}) "
        "are in view, "
        "flat, lit and not covered, and that --layout matches the printed sheets",
    )


def _layout_mismatch(max_mm: float, lens_given: bool) -> TablesightError:
    """Markers that no lens model brings together: the layout does not describe this table."""
    fix = LAYOUT_ADVICE
    if not lens_given:
        fix += "; if both are right, give --intrinsics from `tablesight calibrate-lens`"
    return TablesightError(
        f"the markers are not where --layout says (they disagree by up to {max_mm:.0f} mm)", fix
    )


def _markers_own(image: np.ndarray, layout: Layout, refinement: str) -> TableCalibration | None:
    """The calibration without the lens calibration given, a lens estimated from the markers:
    what that lens calibration is judged against (None when the markers alone give none)."""
    try:
        return calibrate(image, layout, None, refinement)
    except TablesightError:
        return None


def _lens_fits_worse(worst_mm: float, used_ids: list[int], own: TableCalibration | None) -> bool:
    """The lens calibration leaves the markers clearly further apart than they are without it.
    Only over the same markers: hand-laid ones a few mm out of place, read without the lens,
    once dropped half of them and agreed to 0.4 mm (5.6 mm with the right lens). Two markers fit
    a free homography almost exactly, whatever the lens: no measure either."""
    return (
        own is not None
        and len(own.marker_ids) >= 3
        and set(used_ids) <= set(own.marker_ids)
        and worst_mm > max(LENS_DOUBT_MM, LENS_DOUBT_RATIO * own.max_mm)
    )


def _lens_comparison(worst_mm: float, own: TableCalibration) -> str:
    return f"with it the markers disagree by up to {worst_mm:.2f} mm, without it by {own.max_mm:.2f} mm"


def _wrong_lens(intrinsics: Intrinsics, worst_mm: float, own: TableCalibration) -> TablesightError:
    """Markers that agree without the lens calibration are where the layout says: the lens file
    is another camera's, lens's, sensor mode's or resolution's (or its K is transposed)."""
    return TablesightError(
        f"{intrinsics.label} does not fit this camera ({_lens_comparison(worst_mm, own)}): it is "
        "likely another camera's, or of another lens, sensor mode or resolution",
        LENS_FIX,
    )


def _lens_doubt(intrinsics: Intrinsics, worst_mm: float, own: TableCalibration) -> str:
    return (
        f"{intrinsics.label} may not be this camera's ({_lens_comparison(worst_mm, own)}): positions "
        f"may be millimetres off; {LENS_FIX}"
    )


def _extrapolation_warning(layout: Layout, marker_ids: list[int]) -> str | None:
    """Warn when the markers used leave a band of the table's width or depth beyond them."""
    corners = np.concatenate([layout.corners_by_id[i] for i in marker_ids])
    low, high = corners.min(axis=0), corners.max(axis=0)
    size = np.array(layout.table_size_cm)
    gap = max(np.max(low), np.max(size - high))
    if gap <= EXTRAPOLATION_WARN_CM:
        return None
    return (
        f"the markers used only span x {low[0]:g}-{high[0]:g} cm, y {low[1]:g}-{high[1]:g} cm: "
        f"positions up to {gap:.0f} cm beyond them are extrapolated; put markers near every table corner"
    )


def calibrate(
    image: np.ndarray, layout: Layout, intrinsics: Intrinsics | None = None, refinement: str = "lines"
) -> TableCalibration:
    """Calibrate from one photo of the table showing at least 2 of the layout's markers.

    `refinement` picks the corner method ("lines", or OpenCV's "subpix", "apriltag",
    "contour"); only the benchmark needs anything but the default.
    """
    size = _check_image(image)
    layout.check_markers_can_show(size)
    if intrinsics is not None:
        intrinsics.check_image(size)
    undistort = intrinsics.undistort if intrinsics is not None and np.any(intrinsics.dist) else None
    sighting = find_markers(image, layout, refinement, undistort)
    if undistort is not None:
        _check_reach(intrinsics, sighting.pixels)
    if len(sighting.corners) < 2:
        raise _too_few_markers(layout, list(sighting.corners), sighting.ignored_ids, _mirrored(image, layout))
    judge = _judging_camera(sighting.corners, layout, intrinsics, size)
    # Without a lens calibration an uncorrected lens shrinks the outer markers too: whether a
    # lens is estimated is decided on the markers as laid out, before their edge offset is.
    lens_given = intrinsics is not None
    fit = _fit(sighting.corners, layout, judge, stray_corners=lens_given, edge_offset=lens_given)
    lens_estimated = focal_assumed = False
    if intrinsics is None:
        estimate = _estimate_lens(image, sighting.corners, layout, fit, size)
        if estimate is not None:
            intrinsics, corners, fit, told_by, focal_assumed = estimate
            sighting = replace(sighting, corners=corners)
            lens_estimated = True
        else:
            fit = _fit(sighting.corners, layout, judge)
    residuals = np.concatenate([fit.corner_residuals_mm[i] for i in fit.used_ids])
    # Checked before the pose: a wrong layout's fit can put the camera 1,900 km away.
    worst = float(residuals.max())
    own = _markers_own(image, layout, refinement) if lens_given and worst > LENS_DOUBT_MM else None
    doubted = own if _lens_fits_worse(worst, fit.used_ids, own) else None
    if doubted is not None and worst > LENS_REFUSAL_MM and doubted.max_mm <= WRONG_LAYOUT_MM:
        raise _wrong_lens(intrinsics, worst, doubted)
    if worst > WRONG_LAYOUT_MM:
        raise _layout_mismatch(worst, lens_given)
    table_corners = grown_corners(layout.corners_by_id, fit.edge_offset_cm)
    used_table = np.concatenate([table_corners[i] for i in fit.used_ids])
    used_image = np.concatenate([fit.corners[i] for i in fit.used_ids])
    measured = np.isfinite(used_image).all(axis=1)
    used_table, used_image = used_table[measured], used_image[measured]
    table_to_image = np.linalg.inv(fit.image_to_table)
    K = None if intrinsics is None else intrinsics.K
    pose = solve_pose(
        used_table, used_image, K, size, table_to_image / table_to_image[2, 2], markers=len(fit.used_ids)
    )
    # A lens estimated straight down has the focal length of a camera ASSUMED_HEIGHT_CM up.
    pose = replace(pose, height_assumed=pose.height_assumed or focal_assumed)
    measured_lens = None if lens_estimated else intrinsics
    doubt = None if doubted is None else _lens_doubt(intrinsics, worst, doubted)
    warnings = _warnings(layout, sighting, fit, pose, worst, measured_lens, doubt)
    if lens_estimated:
        warnings.append(
            f"no lens calibration: lens distortion estimated from {told_by} "
            f"(k1 {intrinsics.dist[0]:+.3f}, k2 {intrinsics.dist[1]:+.3f}); "
            "`tablesight calibrate-lens` is more exact"
        )
    return TableCalibration(
        layout=layout,
        image_size=size,
        homography=fit.image_to_table,
        marker_ids=fit.used_ids,
        rms_mm=float(np.sqrt(np.mean(residuals**2))),
        max_mm=float(residuals.max()),
        warnings=warnings,
        pose_K=pose.K,
        rvec=pose.rvec,
        tvec=pose.tvec,
        intrinsics=intrinsics,
        rejected_ids=fit.rejected_ids,
        marker_rms_mm={i: float(np.sqrt(np.mean(fit.corner_residuals_mm[i] ** 2))) for i in fit.used_ids},
        lens_estimated=lens_estimated,
    )


def _check_reach(intrinsics: Intrinsics, pixels: dict[int, np.ndarray]) -> None:
    """Refuse a lens file whose model folds back before markers the picture shows: no ray
    through it lands there, so their undistorted corners would be numbers of no meaning."""
    beyond = [i for i, corners in pixels.items() if intrinsics.reach.beyond(corners).any()]
    if beyond:
        raise TablesightError(
            f"{intrinsics.label} does not reach the markers: its distortion turns back "
            f"{intrinsics.reach.fold_px():.0f} px from the principal point, and markers "
            f"{', '.join(map(str, beyond))} are seen beyond that, where it sends no light (another "
            "camera's file, or a wide lens fitted without --wide)",
            "make the lens file again with `tablesight calibrate-lens --wide`, the board shown in every "
            "corner of the frame, or leave --intrinsics out",
        )


def _judging_camera(
    corners: dict[int, np.ndarray], layout: Layout, intrinsics: Intrinsics | None, size: tuple[int, int]
) -> np.ndarray:
    """The K markers are judged by (calibration/homography.py): the lens calibration's, else one
    read off the homography judged without K (an assumed height when the camera looks straight
    down, where the focal length hardly matters). That judged fit, not the plain fit over all
    markers, is needed: a marker moved 2 cm bends the plain fit's focal length so far that the
    pose then finds no marker off. Its focal length counts only where the judged fit kept four
    markers (MIN_MARKERS_FOR_FOCAL): one dropped for its corners' noise left three, whose
    homography read 1.6-1.7 times the camera's focal length, and the pose so judged then
    dropped a good marker (a barrel lens, corners 0.3 px off: 3 of 20 draws)."""
    if intrinsics is not None:
        return intrinsics.K
    judged = _fit(corners, layout)
    table_to_image = np.linalg.inv(judged.image_to_table)
    table_to_image = table_to_image / table_to_image[2, 2]
    return centred_K(size, focal_or_assumed(table_to_image, size, len(judged.used_ids))[0])


def _fit(
    corners: dict[int, np.ndarray],
    layout: Layout,
    K: np.ndarray | None = None,
    stray_corners: bool = False,
    edge_offset: bool = True,
) -> HomographyFit:
    try:
        return fit_homography(corners, layout.corners_by_id, K, stray_corners, edge_offset)
    except np.linalg.LinAlgError:
        raise TablesightError(
            "the markers in view give no usable geometry (all in a line or overlapping)",
            "bring markers from different table corners into view",
        ) from None


def _estimate_lens(
    image: np.ndarray, corners: dict[int, np.ndarray], layout: Layout, fit: HomographyFit,
    size: tuple[int, int],
) -> tuple[Intrinsics, dict[int, np.ndarray], HomographyFit, str, bool] | None:
    """Without a lens calibration: a radial lens from the markers, if it explains them; else
    from the table's edges where the photo shows them bent, if the markers agree with it. Both
    want three markers: two fit any homography, so they neither tell a lens nor check one. The
    last of the answer: whether its focal length was assumed (`assumed_focal`: straight down the
    markers give only focal length over height), so the camera's height is too."""
    if len(fit.used_ids) < 3:
        return None
    worst = _worst_mm(fit)
    sides = table_edges(image, fit.image_to_table, layout)
    radial = None
    if worst > NEEDS_LENS_MM:
        image_pts = np.concatenate([corners[i] for i in fit.used_ids])
        table_pts = np.concatenate([layout.corners_by_id[i] for i in fit.used_ids])
        moves = np.concatenate([corner_moves(layout.corners_by_id[i]) for i in fit.used_ids])
        measured = np.isfinite(image_pts).all(axis=1)
        radial = estimate_radial(image_pts[measured], table_pts[measured], moves[measured], size, sides)
    from_edges = radial is None
    if from_edges:
        radial = radial_from_edges(sides, size)
    if radial is None:
        return None
    reference = intrinsics_for(radial, size, float(max(size)))
    ideal = {i: reference.undistort(c) for i, c in corners.items()}
    # Judged by a camera, as before the lens: the free homography's judgement of blurred markers
    # (0.3-0.5 px off) put a good one millimetres off the other three's fit even with the true lens,
    # and dropped it (path-traced tables: the table then 3.1-4.5 mm off in the median).
    straightened = _fit(ideal, layout, _judging_camera(ideal, layout, None, size))
    if from_edges and _worst_mm(straightened) > EDGE_LENS_MARKERS * max(worst, NEEDS_LENS_MM):
        return None
    table_to_image = np.linalg.inv(straightened.image_to_table)
    table_to_image = table_to_image / table_to_image[2, 2]
    focal, assumed = focal_or_assumed(table_to_image, size, len(straightened.used_ids))
    told_by = "the table's edges" if from_edges else "the markers"
    return intrinsics_for(radial, size, focal), ideal, straightened, told_by, assumed


def _worst_mm(fit: HomographyFit) -> float:
    """The worst marker corner's residual on the table (mm)."""
    return float(max(r.max() for r in fit.corner_residuals_mm.values()))


def _ids(ids: list[int]) -> str:
    return ", ".join(map(str, ids))


def _markers(ids: list[int]) -> str:
    return f"marker{'' if len(ids) == 1 else 's'} {_ids(ids)}"


def _warnings(
    layout: Layout,
    sighting: Sighting,
    fit: HomographyFit,
    pose: Pose,
    max_mm: float,
    intrinsics: Intrinsics | None,
    lens_doubt: str | None = None,
) -> list[str]:
    """What a player should know about this calibration, most actionable first. A doubted lens
    calibration is named in place of the loose fit's list of causes: it is the likely one."""
    warnings = []
    missing = [i for i in layout.ids if i not in sighting.corners]
    if missing:
        warnings.append(f"{_markers(missing)} not found (covered, out of view or glared)")
    rough = [i for i in fit.used_ids if i not in sighting.refined_by_lines]
    if sighting.refined_by_lines and rough:
        warnings.append(
            f"{_markers(rough)}: edges unmeasurable (glare or blur), their corners are less exact; "
            "shade the light or refocus"
        )
    if fit.rejected_ids:
        warnings.append(
            f"{_markers(fit.rejected_ids)} ignored: they disagree with the others "
            "(moved, bent or not where the layout says)"
        )
    if fit.stray_ids:
        warnings.append(
            f"{_markers(fit.stray_ids)}: a corner left out, it disagrees with all the others "
            "(something lying over the marker's edge?)"
        )
    if len(fit.used_ids) == 2:
        warnings.append("only 2 markers used: a misplaced marker could not be noticed")
    extrapolated = _extrapolation_warning(layout, fit.used_ids)
    if extrapolated:
        warnings.append(extrapolated)
    if lens_doubt is not None:
        warnings.append(lens_doubt)
    elif max_mm > LOOSE_FIT_MM:
        lens = (
            "recalibrate the lens"
            if intrinsics is not None
            else "give --intrinsics from `tablesight calibrate-lens`"
        )
        # Under WRONG_LAYOUT_MM a wrong layout is still possible: with two markers in view the
        # fit absorbs most of their wrong distance (150x90 named for a 183x122 table: 7.8 mm).
        warnings.append(
            f"markers disagree by up to {max_mm:.1f} mm (lens distortion, or markers not flat or "
            f"not where --layout says): {lens}; {LAYOUT_ADVICE}; and that the markers lie flat"
        )
    if pose.height_assumed:
        why = (
            "too few markers in view to measure it"
            if len(fit.used_ids) < MIN_MARKERS_FOR_FOCAL
            else "camera too square to the table to measure it"
        )
        warnings.append(
            f"camera height assumed to be {ASSUMED_HEIGHT_CM:.0f} cm ({why}); "
            "give --intrinsics for exact parallax correction"
        )
    return warnings
