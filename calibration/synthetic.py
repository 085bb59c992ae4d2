"""Synthetic photos of a table seen through a known `Camera`, with exact ground truth.

Calibration and detection are judged in millimetres, so the renderer must be exact where it
matters: marker corners and base rims are warped from their table-cm geometry with sub-pixel
vertex precision into a supersampled pinhole canvas, area-averaged down, then pushed through
the lens model. Everything a real photo adds (light falloff, glare, blur, noise, JPEG) comes
after, so ground truth never depends on it.

The `Canvas` is the extension point: the detector's scene generator draws 3D objects onto it
with `fill_polygon` in table coordinates (z up) before `finish()`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import Camera

ARUCO_BITS = {"DICT_4X4_50": 4, "DICT_4X4_100": 4, "DICT_4X4_250": 4, "DICT_4X4_1000": 4,
              "DICT_5X5_50": 5, "DICT_5X5_100": 5, "DICT_5X5_250": 5, "DICT_5X5_1000": 5,
              "DICT_6X6_50": 6, "DICT_6X6_100": 6, "DICT_6X6_250": 6, "DICT_6X6_1000": 6,
              "DICT_7X7_50": 7, "DICT_7X7_100": 7, "DICT_7X7_250": 7, "DICT_7X7_1000": 7}


@dataclass(frozen=True)
class Marker:
    """An ArUco marker lying on the table: black-square corners in OpenCV order, in cm."""

    id: int
    corners_cm: np.ndarray


@dataclass
class Look:
    """What makes a render look like a photo: all of it is applied after the geometry."""

    light_gradient: float = 0.15
    vignette: float = 0.25
    brightness: float = 1.0
    glare: Sequence[tuple[float, float, float, float]] = ()  # (x_cm, y_cm, radius_cm, strength)
    blur_px: float = 0.0
    motion_blur_px: float = 0.0
    motion_angle_deg: float = 0.0
    noise_sigma: float = 2.0
    jpeg_quality: int | None = 92


@dataclass
class Rendered:
    """A synthetic frame and what is exactly true about it."""

    image: np.ndarray
    camera: Camera
    marker_corners_px: dict[int, np.ndarray] = field(default_factory=dict)


def mat_texture(rng: np.random.Generator, size_px: tuple[int, int],
                base_bgr: Sequence[float] | None = None, roughness: float = 18.0) -> np.ndarray:
    """A gaming-mat-like texture: a base colour with multi-scale blotches and grain."""
    w, h = size_px
    base = np.array(base_bgr if base_bgr is not None else rng.uniform(40, 200, 3), dtype=np.float32)
    texture = np.broadcast_to(base, (h, w, 3)).copy()
    for cells in (4, 16, 64):
        noise = rng.normal(0, 1, (cells * h // max(w, h) + 2, cells + 2, 3)).astype(np.float32)
        weight = roughness * (1.0 if cells == 4 else 0.6)
        texture += cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC) * weight
    texture += rng.normal(0, roughness * 0.5, (h, w, 1)).astype(np.float32)
    return np.clip(texture, 0, 255).astype(np.uint8)


class Canvas:
    """A supersampled, undistorted pinhole image with room around it for the lens to pull in."""

    def __init__(self, camera: Camera, supersample: int = 2) -> None:
        self.camera = camera
        self.scale = supersample
        w, h = camera.image_size
        pad_x, pad_y = self._lens_padding()
        self.offset = np.array([pad_x, pad_y], dtype=np.float64)
        size = (int(w + 2 * pad_x) * supersample, int(h + 2 * pad_y) * supersample)
        self.image = np.zeros((size[1], size[0], 3), dtype=np.uint8)

    def _lens_padding(self) -> tuple[int, int]:
        if not np.any(self.camera.dist):
            return 8, 8
        w, h = self.camera.image_size
        border = np.concatenate([
            np.stack([np.linspace(0, w - 1, 64), np.zeros(64)], 1),
            np.stack([np.linspace(0, w - 1, 64), np.full(64, h - 1)], 1),
            np.stack([np.zeros(64), np.linspace(0, h - 1, 64)], 1),
            np.stack([np.full(64, w - 1), np.linspace(0, h - 1, 64)], 1)])
        ideal = self.camera.undistort_pixels(border)
        pad_x = max(-ideal[:, 0].min(), ideal[:, 0].max() - (w - 1), 0)
        pad_y = max(-ideal[:, 1].min(), ideal[:, 1].max() - (h - 1), 0)
        return int(min(pad_x, w * 0.6)) + 8, int(min(pad_y, h * 0.6)) + 8

    def to_canvas(self, points_cm: np.ndarray) -> np.ndarray:
        """Table points (z up) -> canvas pixel coordinates (pixel centres at integers)."""
        ideal = self.camera.project_ideal(points_cm)
        return (ideal + self.offset + 0.5) * self.scale - 0.5

    def fill_polygon(self, points_cm: np.ndarray, color: Sequence[float]) -> None:
        """Fill the projection of a planar 3D polygon (or any convex-ish outline) with a colour."""
        pts = np.round(self.to_canvas(points_cm) * 16).astype(np.int32)
        cv2.fillPoly(self.image, [pts], tuple(float(c) for c in color), lineType=cv2.LINE_8, shift=4)

    def warp_onto(self, picture: np.ndarray, corners_cm: np.ndarray, mask: np.ndarray | None = None) -> None:
        """Paste `picture` so its outer corners land on the table quad `corners_cm` (TL, TR, BR, BL)."""
        ph, pw = picture.shape[:2]
        src = np.array([[-0.5, -0.5], [pw - 0.5, -0.5], [pw - 0.5, ph - 0.5], [-0.5, ph - 0.5]], np.float64)
        dst = self.to_canvas(np.asarray(corners_cm, dtype=np.float64))
        x0, y0 = np.floor(dst.min(0)).astype(int) - 2
        x1, y1 = np.ceil(dst.max(0)).astype(int) + 2
        H_img, W_img = self.image.shape[:2]
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W_img), min(y1, H_img)
        if x1 <= x0 or y1 <= y0:
            return
        H = cv2.getPerspectiveTransform(src.astype(np.float32), (dst - [x0, y0]).astype(np.float32))
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(picture, H, size, flags=cv2.INTER_LINEAR)
        coverage_src = np.full((ph, pw), 255, np.uint8) if mask is None else mask
        coverage = cv2.warpPerspective(coverage_src, H, size, flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        alpha = (coverage.astype(np.float32) / 255.0)[..., None]
        roi = self.image[y0:y1, x0:x1]
        roi[:] = np.clip(roi * (1 - alpha) + warped * alpha + 0.5, 0, 255).astype(np.uint8)

    def draw_table(self, table_cm: tuple[float, float], texture: np.ndarray,
                   surround_bgr: tuple[int, int, int] = (35, 30, 28)) -> None:
        """The room floor around, then the mat covering the table top."""
        self.image[:] = np.array(surround_bgr, dtype=np.uint8)
        w, d = table_cm
        self.warp_onto(texture, np.array([[0, 0], [w, 0], [w, d], [0, d]], dtype=np.float64))

    def draw_marker(self, marker: Marker, dictionary: str, quiet_zone: float = 0.25) -> None:
        """A printed marker: white paper around the black square, then the square itself.

        `quiet_zone` is the white margin as a fraction of the marker side, as the sheets print it.
        """
        bits = ARUCO_BITS[dictionary]
        aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        corners = np.asarray(marker.corners_cm, dtype=np.float64)
        side_px = np.linalg.norm(np.diff(self.to_canvas(corners), axis=0, append=self.to_canvas(corners[:1])),
                                 axis=1).max()
        cell = max(4, int(np.ceil(side_px / (bits + 2))))
        bitmap = cv2.aruco.generateImageMarker(aruco, marker.id, cell * (bits + 2), borderBits=1)
        centre = corners.mean(0)
        paper = centre + (corners - centre) * (1 + 2 * quiet_zone)
        self.warp_onto(np.full((8, 8, 3), 245, np.uint8), paper)
        self.warp_onto(cv2.cvtColor(bitmap, cv2.COLOR_GRAY2BGR), corners)

    def finish(self, look: Look, rng: np.random.Generator) -> np.ndarray:
        """Area-average down, apply the lens, the light and the sensor: the final photo."""
        ideal = cv2.resize(self.image, None, fx=1 / self.scale, fy=1 / self.scale,
                           interpolation=cv2.INTER_AREA)
        w, h = self.camera.image_size
        if np.any(self.camera.dist):
            grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)), -1)
            und = self.camera.undistort_pixels(grid.reshape(-1, 2)).reshape(h, w, 2) + self.offset
            photo = cv2.remap(ideal, und[..., 0].astype(np.float32), und[..., 1].astype(np.float32),
                              cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        else:
            ox, oy = self.offset.astype(int)
            photo = ideal[oy:oy + h, ox:ox + w]
        return _apply_look(photo.astype(np.float32), self.camera, look, rng)


def _apply_look(photo: np.ndarray, camera: Camera, look: Look, rng: np.random.Generator) -> np.ndarray:
    h, w = photo.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    nx, ny = (xs - w / 2) / (w / 2), (ys - h / 2) / (h / 2)
    angle = rng.uniform(0, 2 * np.pi)
    light = look.brightness * (1 + look.light_gradient * (np.cos(angle) * nx + np.sin(angle) * ny) / 2)
    light *= 1 - look.vignette * 0.5 * (nx**2 + ny**2) / 2
    photo *= light[..., None]
    for x_cm, y_cm, radius_cm, strength in look.glare:
        centre = camera.project(np.array([[x_cm, y_cm]]))[0]
        edge = camera.project(np.array([[x_cm + radius_cm, y_cm]]))[0]
        radius_px = max(np.linalg.norm(edge - centre), 1.0)
        d2 = ((xs - centre[0]) ** 2 + (ys - centre[1]) ** 2) / radius_px**2
        photo += (255 * strength * np.exp(-d2 * 2.0))[..., None]
    if look.blur_px > 0:
        photo = cv2.GaussianBlur(photo, (0, 0), look.blur_px)
    if look.motion_blur_px >= 1:
        length = round(look.motion_blur_px)
        kernel = np.zeros((2 * length + 1, 2 * length + 1), np.float32)
        a = np.radians(look.motion_angle_deg)
        p0 = (length - length * np.cos(a), length - length * np.sin(a))
        p1 = (length + length * np.cos(a), length + length * np.sin(a))
        cv2.line(kernel, tuple(round(v) for v in p0), tuple(round(v) for v in p1), 1.0, 1)
        photo = cv2.filter2D(photo, -1, kernel / kernel.sum())
    if look.noise_sigma > 0:
        photo += rng.normal(0, look.noise_sigma, photo.shape).astype(np.float32)
    image = np.clip(photo, 0, 255).astype(np.uint8)
    if look.jpeg_quality:
        _, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality)])
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return image


def render_markers(camera: Camera, table_cm: tuple[float, float], markers: Sequence[Marker],
                   dictionary: str = "DICT_4X4_50", *, look: Look | None = None, seed: int = 0,
                   supersample: int = 2, mat_bgr: Sequence[float] | None = None) -> Rendered:
    """A table with its calibration markers and nothing else: the calibration test scene."""
    rng = np.random.default_rng(seed)
    canvas = Canvas(camera, supersample)
    texture = mat_texture(rng, (int(table_cm[0] * 4), int(table_cm[1] * 4)), mat_bgr)
    canvas.draw_table(table_cm, texture)
    for marker in markers:
        canvas.draw_marker(marker, dictionary)
    image = canvas.finish(look or Look(), rng)
    truth = {m.id: camera.project(np.asarray(m.corners_cm, dtype=np.float64)) for m in markers}
    return Rendered(image=image, camera=camera, marker_corners_px=truth)
