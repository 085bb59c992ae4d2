"""A second renderer: the same scene specs path-traced by Mitsuba 3, for an honest cross-check.

The detector is tuned on `render.py`'s 2.5D painter, so its figures there can flatter it: the
painter's shading, shadows and outlines are its own conventions. This renderer shares nothing
with it but the scene spec, the camera model and two point helpers. Every object is a real
mesh lit by an area light and the sky, with soft shadows, glossy paint, interreflection and
Monte Carlo noise; the lens distortion, exposure, sensor noise and JPEG are applied afterwards
in linear light. The truth's visibility is measured by casting rays at each outline point. It
needs the `physical` extra. The scalar variant (20-40 s a frame on two cores) renders the
benchmarks' tables; the training tables, hundreds of them, are traced by a vectorised one.
"""

from __future__ import annotations

import importlib.util
import tempfile
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import Camera
from models.synth.painter import box_corners, ring
from models.synth.render import RenderedScene, figure_point
from models.synth.specs import (
    BaseSpec,
    BaseTruth,
    DistractorSpec,
    Figure,
    HandSpec,
    TableScene,
    TerrainSpec,
    Truth,
    VehicleSpec,
    VehicleTruth,
)

TEXTURE_PX_PER_CM = 20  # the mat is sampled finer than the camera ever sees it
MARGIN_PX = 64  # rendered beyond the frame, so lens distortion can pull pixels in from outside
OUTLINE_POINTS = 72
LIGHT_ABOVE_CAMERA_CM = 30.0
SCALAR = "scalar_rgb"
VARIANTS = (SCALAR, "llvm_ad_rgb", "cuda_ad_rgb")
BASE_SEGMENTS = 96  # a 65 mm base's facets then stray under 0.02 mm from its circle


class Meshes:
    """Collects shapes as PLY files plus Mitsuba dicts; a mesh per object keeps the scene small."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.shapes: dict[str, dict] = {}

    def add(self, vertices: np.ndarray, faces: np.ndarray, bsdf: dict, uv: np.ndarray | None = None) -> None:
        """Vertices in the table frame with z up (cm); stored in the camera's world frame (z down)."""
        name = f"shape_{len(self.shapes)}"
        path = self.folder / f"{name}.ply"
        world = np.asarray(vertices, np.float32) * np.array([1, 1, -1], np.float32)
        _write_ply(path, world, np.asarray(faces, np.int32), uv)
        self.shapes[name] = {"type": "ply", "filename": str(path), "face_normals": True, "bsdf": bsdf}

    def loft(self, rings: list[np.ndarray], bsdf: dict, cap_bsdf: dict | None = None) -> None:
        """A solid through closed rings of equal point count (prisms, frusta, tubes), capped at both ends."""
        n = len(rings[0])
        verts = np.vstack(rings)
        faces = []
        for k in range(len(rings) - 1):
            a, b = k * n, (k + 1) * n
            for i in range(n):
                j = (i + 1) % n
                faces += [(a + i, a + j, b + j), (a + i, b + j, b + i)]
        self.add(verts, np.array(faces), bsdf)
        for end in (rings[0], rings[-1]):
            centre = end.mean(0)
            fan = np.vstack([end, centre])
            self.add(fan, np.array([(i, (i + 1) % n, n) for i in range(n)]), cap_bsdf or bsdf)

    def ellipsoid(self, centre: np.ndarray, radii: tuple[float, float, float], bsdf: dict) -> None:
        unit = ring((0.0, 0.0), 1.0, 0.0, 16)
        rings = []
        for a in np.linspace(-np.pi / 2, np.pi / 2, 10)[1:-1]:
            scale = np.array([radii[0] * np.cos(a), radii[1] * np.cos(a), 0.0])
            rings.append(np.asarray(centre) + unit * scale + np.array([0.0, 0.0, radii[2] * np.sin(a)]))
        self.loft(rings, bsdf)


def tube_ring(p: np.ndarray, axis: np.ndarray, radius: float, n: int = 12) -> np.ndarray:
    """Points around `p` in the plane normal to `axis`: a cross-section of a limb or barrel."""
    axis = axis / np.linalg.norm(axis)
    helper = np.array([0, 0, 1.0]) if abs(axis[2]) < 0.9 else np.array([1.0, 0, 0])
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u)
    v = np.cross(axis, u)
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)[:, None]
    return p + radius * (np.cos(t) * u + np.sin(t) * v)


def box(centre_xy, length: float, width: float, heading_deg: float, z0: float, z1: float) -> list[np.ndarray]:
    return [box_corners(centre_xy, length, width, heading_deg, z) for z in (z0, z1)]


def paint(color_bgr, roughness: float = 0.5, glossy: bool = True) -> dict:
    """sRGB 0-255 BGR -> a linear-light Mitsuba material: matte, or paint with a clear coat."""
    rgb = [float(_linear(np.array(c) / 255.0)) for c in color_bgr[::-1]]
    reflectance = {"type": "rgb", "value": rgb}
    if glossy:
        inner = {
            "type": "roughplastic",
            "diffuse_reflectance": reflectance,
            "alpha": roughness * 0.4,
            "int_ior": 1.45,
        }
    else:
        inner = {"type": "diffuse", "reflectance": reflectance}
    return {"type": "twosided", "material": inner}


def _linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0, 1)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)


def _write_ply(path: Path, vertices: np.ndarray, faces: np.ndarray, uv: np.ndarray | None) -> None:
    props = "property float x\nproperty float y\nproperty float z\n"
    cols = [vertices]
    if uv is not None:
        props += "property float u\nproperty float v\n"
        cols.append(np.asarray(uv, np.float32))
    header = (
        f"ply\nformat binary_little_endian 1.0\nelement vertex {len(vertices)}\n{props}"
        f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n"
    )
    face_rows = np.zeros(len(faces), dtype=[("n", "u1"), ("i", "<i4", (3,))])
    face_rows["n"], face_rows["i"] = 3, faces
    with path.open("wb") as f:
        f.write(header.encode())
        f.write(np.hstack(cols).astype("<f4").tobytes())
        f.write(face_rows.tobytes())


def _mat_texture(scene: TableScene, rng: np.random.Generator) -> np.ndarray:
    """The mat, its printed roads and circles and the markers, as a linear-light RGB bitmap."""
    w, d = scene.table_cm
    size = (int(d * TEXTURE_PX_PER_CM), int(w * TEXTURE_PX_PER_CM))
    grain = np.zeros(size, np.float32)
    for scale_px, weight in ((1, 0.35), (4, 0.35), (20, 0.2), (120, 0.1)):
        small = rng.normal(0, 1, (size[0] // scale_px + 2, size[1] // scale_px + 2)).astype(np.float32)
        grain += weight * cv2.resize(small, size[::-1], interpolation=cv2.INTER_CUBIC)
    texture = np.array(scene.mat.color, np.float32) * (1 + scene.mat.roughness / 255 * 2.2 * grain[..., None])
    for (x0, y0), (x1, y1), width_cm, color in scene.mat.lines:
        pts = [round(v * TEXTURE_PX_PER_CM) for v in (x0, y0, x1, y1)]
        cv2.line(texture, tuple(pts[:2]), tuple(pts[2:]), color, max(1, round(width_cm * TEXTURE_PX_PER_CM)))
    for dis in scene.distractors:
        centre = (round(dis.x_cm * TEXTURE_PX_PER_CM), round(dis.y_cm * TEXTURE_PX_PER_CM))
        radius = round(dis.size_cm / 2 * TEXTURE_PX_PER_CM)
        if dis.kind == "printed_circle":
            cv2.circle(texture, centre, radius, dis.color, -1, cv2.LINE_AA)
        elif dis.kind == "printed_ring":
            cv2.circle(
                texture,
                centre,
                radius - round(0.075 * TEXTURE_PX_PER_CM),
                dis.color,
                round(0.15 * TEXTURE_PX_PER_CM),
                cv2.LINE_AA,
            )
    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, scene.dictionary))
    bits = aruco.markerSize
    for marker in scene.markers:
        corners = np.asarray(marker.corners_cm, np.float64) * TEXTURE_PX_PER_CM
        centre = corners.mean(0)
        cv2.fillConvexPoly(
            texture, np.round(centre + (corners - centre) * 1.5).astype(np.int32), (235, 238, 240)
        )
        cell = 40
        bitmap = cv2.aruco.generateImageMarker(aruco, marker.id, cell * (bits + 2), borderBits=1)
        src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32) * (cell * (bits + 2)) - 0.5
        warp = cv2.getPerspectiveTransform(src, corners.astype(np.float32) - 0.5)
        ink = cv2.warpPerspective(bitmap, warp, size[::-1], flags=cv2.INTER_AREA, borderValue=255)
        printed = cv2.warpPerspective(np.full_like(bitmap, 255), warp, size[::-1], borderValue=0) > 0
        texture[printed] = np.where(ink[printed, None] < 128, (18.0, 18.0, 20.0), (235.0, 238.0, 240.0))
    return _linear(np.clip(texture, 0, 255)[..., ::-1] / 255.0).astype(np.float32)


def _table(meshes: Meshes, scene: TableScene, rng: np.random.Generator) -> None:
    import mitsuba as mi

    w, d = scene.table_cm
    corners = np.array([[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0]], np.float64)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    bitmap = {
        "type": "bitmap",
        "bitmap": mi.Bitmap(_mat_texture(scene, rng)),
        "raw": True,
        "filter_type": "bilinear",
    }
    bsdf = {
        "type": "twosided",
        "material": {"type": "roughplastic", "diffuse_reflectance": bitmap, "alpha": 0.35, "int_ior": 1.3},
    }
    meshes.add(corners, np.array([(0, 1, 2), (0, 2, 3)]), bsdf, uv)


def _base(meshes: Meshes, base: BaseSpec) -> None:
    r, t = base.diameter_mm / 20, base.thickness_mm / 10
    centre = (base.x_cm, base.y_cm)
    rings = [ring(centre, r, 0.0, BASE_SEGMENTS), ring(centre, r - base.bevel_mm / 10, t, BASE_SEGMENTS)]
    meshes.loft(rings, paint(base.rim_color, 0.4), paint(base.top_color, 0.9, glossy=False))
    for fig in base.figures:
        _figure(meshes, base, fig)


def _figure(meshes: Meshes, base: BaseSpec, fig: Figure) -> None:
    top_z = base.thickness_mm / 10
    at = partial(figure_point, base, fig)

    def limb(a: np.ndarray, b: np.ndarray, radius: float, color) -> None:
        axis = b - a
        meshes.loft([tube_ring(a, axis, radius), tube_ring(b, axis, radius * 0.85)], paint(color, 0.6))

    h = fig.height_cm
    dark = tuple(c * 0.7 for c in fig.color)
    if fig.kind == "gun":
        meshes.loft(
            box(at(0)[:2], h * 1.2, h * 0.9, fig.facing_deg, top_z + 0.3, top_z + h * 0.45), paint(dark)
        )
        limb(at(h * 0.5), at(h * 0.55, fig.reach_cm), 0.25, fig.color)
        return
    if fig.kind == "rider":
        limb(at(h * 0.35, -h * 0.45), at(h * 0.4, h * 0.45), h * 0.16, dark)
        limb(at(h * 0.45), at(h * 0.85), h * 0.1, fig.color)
        meshes.ellipsoid(at(h * 0.95), (h * 0.08,) * 3, paint((120, 150, 200), 0.7))
        return
    body = max(0.45, h * 0.13)
    limb(at(0.0), at(h * 0.78), body, fig.color)
    meshes.ellipsoid(at(h * 0.9), (body * 0.6,) * 3, paint((120, 150, 200), 0.7))
    if fig.reach_cm > 0:
        limb(at(h * 0.6), at(h * 0.65, fig.reach_cm), 0.18, (40, 40, 45))


def _vehicle(meshes: Meshes, v: VehicleSpec) -> None:
    h, centre = v.height_cm, (v.x_cm, v.y_cm)
    meshes.loft(box(centre, v.length_cm, v.width_cm, v.heading_deg, 0.0, h * 0.4), paint(v.track_color, 0.8))
    meshes.loft(
        box(centre, v.length_cm * 0.97, v.width_cm * 0.96, v.heading_deg, h * 0.4, h),
        paint(v.hull_color, 0.5),
    )
    if v.turret:
        t = np.radians(v.heading_deg)
        along = np.array([np.cos(t), np.sin(t)])
        tc = np.asarray(centre) - along * v.length_cm * 0.08
        radius = v.width_cm * 0.32
        meshes.loft(
            [ring(tc, radius, h, 24), ring(tc, radius * 0.85, h * 1.45, 24)],
            paint(v.turret_color, 0.5),
        )
        muzzle = np.array([*(tc + along * v.length_cm * 0.62), h * 1.2])
        start = np.array([*tc, h * 1.2])
        meshes.loft(
            [
                tube_ring(start, muzzle - start, max(0.25, v.width_cm * 0.04)),
                tube_ring(muzzle, muzzle - start, max(0.25, v.width_cm * 0.04)),
            ],
            paint(v.turret_color, 0.5),
        )


def _terrain(meshes: Meshes, t: TerrainSpec) -> None:
    foot = np.asarray(t.footprint_cm, np.float64)
    centre = foot.mean(0)
    if t.kind == "tree":
        radius = float(np.linalg.norm(foot - centre, axis=1).mean())
        meshes.loft(
            [ring(centre, 0.7, 0, 12), ring(centre, 0.5, t.height_cm * 0.6, 12)],
            paint((40, 55, 70), glossy=False),
        )
        meshes.ellipsoid(
            np.array([*centre, t.height_cm * 0.72]),
            (radius, radius * 0.9, t.height_cm * 0.28),
            paint(t.color, glossy=False),
        )
        return
    shrink = 0.6 if t.kind == "hill" else 1.0
    bottom = np.column_stack([foot, np.zeros(len(foot))])
    top = np.column_stack([centre + (foot - centre) * shrink, np.full(len(foot), t.height_cm)])
    meshes.loft([bottom, top], paint(t.color, glossy=False), paint(t.top_color, glossy=False))


def _distractor(meshes: Meshes, d: DistractorSpec) -> None:
    c, s = (d.x_cm, d.y_cm), d.size_cm
    if d.kind == "die":
        meshes.loft(box(c, s, s, d.heading_deg, 0, s), paint(d.color, 0.3))
    elif d.kind in ("token", "coin"):
        thick = 0.25 if d.kind == "token" else 0.18
        material = (
            {"type": "roughconductor", "material": "Cu" if sum(d.color) < 450 else "Ag", "alpha": 0.25}
            if d.kind == "coin"
            else paint(d.color, 0.5)
        )
        meshes.loft([ring(c, s / 2, 0, BASE_SEGMENTS), ring(c, s / 2, thick, BASE_SEGMENTS)], material)
    elif d.kind == "tape":
        t = np.radians(d.heading_deg)
        blade = np.asarray(c) + np.array([np.cos(t), np.sin(t)]) * (s / 2 + d.length_cm / 2)
        meshes.loft(box(blade, d.length_cm, 1.9, d.heading_deg, 0, 0.02), paint((40, 200, 230), 0.3))
        meshes.loft(box(c, s, s, d.heading_deg, 0, s * 0.5), paint(d.color, 0.3))
    elif d.kind == "card":
        meshes.loft(box(c, 8.8, 6.3, d.heading_deg, 0, 0.03), paint(d.color, 0.6, glossy=False))


def _hand(meshes: Meshes, hand: HandSpec) -> None:
    wrist = np.array([hand.x_cm, hand.y_cm, hand.height_cm])
    shoulder = np.asarray(hand.shoulder_cm, np.float64)
    elbow = (wrist + shoulder) / 2 + np.array([0, 0, 4.0])
    for a, b, radius, color in (
        (shoulder, elbow, hand.size_cm * 0.5, hand.sleeve),
        (elbow, wrist, hand.size_cm * 0.32, hand.skin),
    ):
        meshes.loft(
            [tube_ring(a, b - a, radius, 16), tube_ring(b, b - a, radius, 16)], paint(color, glossy=False)
        )
    reach = (wrist - elbow)[:2]
    reach = reach / (np.linalg.norm(reach) + 1e-9)
    palm = wrist + np.array([*(reach * hand.size_cm * 0.5), -hand.size_cm * 0.1])
    meshes.ellipsoid(
        palm, (hand.size_cm * 0.5, hand.size_cm * 0.5, hand.size_cm * 0.2), paint(hand.skin, glossy=False)
    )


def _sensor(camera: Camera, spp: int, seed: int) -> dict:
    """A pinhole with the camera's K and pose, on a film MARGIN_PX larger all round."""
    import mitsuba as mi

    w, h = camera.image_size
    fw, fh = w + 2 * MARGIN_PX, h + 2 * MARGIN_PX
    fx = camera.K[0, 0]
    # Mitsuba's camera looks down +z with +y up and +x left; OpenCV's has +y down and +x right.
    to_world = np.eye(4)
    to_world[:3, :3] = camera.R.T @ np.diag([-1.0, -1.0, 1.0])
    to_world[:3, 3] = -camera.R.T @ camera.tvec
    return {
        "type": "perspective",
        "fov_axis": "x",
        "fov": float(np.degrees(2 * np.arctan(fw / 2 / fx))),
        "principal_point_offset_x": float((camera.K[0, 2] + 0.5 + MARGIN_PX - fw / 2) / fw),
        "principal_point_offset_y": float((camera.K[1, 2] + 0.5 + MARGIN_PX - fh / 2) / fh),
        "near_clip": 1.0,
        "far_clip": 2000.0,
        "to_world": mi.ScalarTransform4f(to_world.tolist()),
        "film": {
            "type": "hdrfilm",
            "width": fw,
            "height": fh,
            "pixel_format": "rgb",
            "rfilter": {"type": "gaussian"},
        },
        "sampler": {"type": "independent", "sample_count": spp, "seed": seed},
    }


def _lights(scene: TableScene, camera: Camera, rng: np.random.Generator) -> dict:
    """A soft key light along the scene's light direction, plus a sky for the shadows' fill.

    The light hangs higher than the camera: lower, its panel could stand in the camera's view
    (an emitter's back is black; one table came out all black).
    """
    import mitsuba as mi

    w, d = scene.table_cm
    direction = np.asarray(scene.light_dir, np.float64)
    direction /= np.linalg.norm(direction)
    above_camera = (camera.centre_cm[2] + LIGHT_ABOVE_CAMERA_CM) / abs(direction[2])
    distance = max(rng.uniform(180, 320), above_camera)
    size = rng.uniform(20, 90)
    centre_up = np.array([w / 2, d / 2, 0.0]) - direction * distance  # z up frame
    target = np.array([w / 2, d / 2, 0.0])
    fill = 1.0 - scene.shadow_strength
    key = (distance / 100) ** 2 / (size / 100) ** 2 * rng.uniform(0.8, 1.2)
    tint = rng.uniform(0.9, 1.1, 3)
    flip = np.array([1, 1, -1])
    return {
        "key": {
            "type": "rectangle",
            "to_world": mi.ScalarTransform4f().look_at(
                origin=(centre_up * flip).tolist(), target=(target * flip).tolist(), up=[0, 1, 0]
            )
            @ mi.ScalarTransform4f().scale([size / 2, size / 2, 1]),
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": (key * tint).tolist()}},
        },
        "sky": {
            "type": "constant",
            "radiance": {"type": "rgb", "value": (fill * 0.25 * np.array([0.9, 0.95, 1.0])).tolist()},
        },
    }


def _visible(mi_scene, camera: Camera, points: np.ndarray) -> np.ndarray:
    """Which table-frame points (z up) the camera sees unhidden and inside the frame."""
    origin = -camera.R.T @ camera.tvec
    rays = points * np.array([1, 1, -1]) - origin
    dist = np.linalg.norm(rays, axis=1)
    px = camera.project(points)
    w, h = camera.image_size
    inside = (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
    out = np.zeros(len(points), bool)
    if inside.any():
        out[inside] = _unhidden(mi_scene, origin, rays[inside] / dist[inside, None], dist[inside])
    return out


def _unhidden(mi_scene, origin: np.ndarray, directions: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Whether nothing lies between `origin` and each point `dist` along its direction. The
    vectorised variants cast every ray at once; the scalar one casts them one by one."""
    import mitsuba as mi

    if mi.variant().startswith("scalar"):
        hits = [mi_scene.ray_intersect(mi.Ray3f(mi.Point3f(*origin), mi.Vector3f(*d))) for d in directions]
        return np.array([(not si.is_valid()) or si.t > t - 0.03 for si, t in zip(hits, dist, strict=True)])
    n = len(directions)
    start = mi.Point3f(*(mi.Float(np.full(n, c, np.float32)) for c in origin))
    ray = mi.Ray3f(start, mi.Vector3f(*(mi.Float(directions[:, k].astype(np.float32)) for k in range(3))))
    si = mi_scene.ray_intersect(ray)
    return ~np.array(si.is_valid(), bool) | (np.array(si.t) > dist - 0.03)


def _outline_visibility(
    mi_scene, camera: Camera, bottom: np.ndarray, top: np.ndarray, normals: np.ndarray
) -> float:
    """The outline at each angle is the bottom edge where the wall faces the camera, else the top edge."""
    eye = camera.centre_cm
    faces_camera = np.sum((eye[:2] - bottom[:, :2]) * normals, axis=1) > 0
    lift = np.array([0, 0, 0.03])
    probe = np.where(
        faces_camera[:, None],
        bottom + lift + 0.01 * np.column_stack([normals, np.zeros(len(normals))]),
        top + lift,
    )
    return float(np.mean(_visible(mi_scene, camera, probe)))


def _truth(mi_scene, scene: TableScene, camera: Camera) -> Truth:
    bases = []
    t = np.linspace(0, 2 * np.pi, OUTLINE_POINTS, endpoint=False)
    normals = np.column_stack([np.cos(t), np.sin(t)])
    for b in scene.bases:
        r, h = b.diameter_mm / 20, b.thickness_mm / 10
        rt = r - b.bevel_mm / 10 - 0.02
        bottom = np.column_stack([b.x_cm + r * normals[:, 0], b.y_cm + r * normals[:, 1], np.zeros(len(t))])
        top = np.column_stack([b.x_cm + rt * normals[:, 0], b.y_cm + rt * normals[:, 1], np.full(len(t), h)])
        bases.append(
            BaseTruth(
                b.x_cm, b.y_cm, b.diameter_mm, _outline_visibility(mi_scene, camera, bottom, top, normals)
            )
        )
    vehicles = []
    for v in scene.vehicles:
        # The outline is the tracks' foot where a side faces the camera, else the hull's roof edge.
        lower = box_corners((v.x_cm, v.y_cm), v.length_cm, v.width_cm, v.heading_deg, 0.0)
        upper = box_corners(
            (v.x_cm, v.y_cm), v.length_cm * 0.97, v.width_cm * 0.96, v.heading_deg, v.height_cm
        )
        bottom, top, side_normals = [], [], []
        for i in range(4):
            a, b = lower[i], lower[(i + 1) % 4]
            edge = b - a
            normal = np.array([edge[1], -edge[0]]) / np.linalg.norm(edge[:2])
            if np.dot(normal, a[:2] - [v.x_cm, v.y_cm]) < 0:
                normal = -normal
            for s in np.linspace(0.05, 0.95, 18):
                bottom.append(a + s * edge)
                top.append(upper[i] + s * (upper[(i + 1) % 4] - upper[i]) - [*normal * 0.03, 0.0])
                side_normals.append(normal)
        vis = _outline_visibility(mi_scene, camera, np.array(bottom), np.array(top), np.array(side_normals))
        vehicles.append(VehicleTruth(v.x_cm, v.y_cm, v.length_cm, v.width_cm, v.heading_deg % 360, vis))
    return Truth(bases, vehicles)


def _develop(radiance: np.ndarray, scene: TableScene, camera: Camera, rng: np.random.Generator) -> np.ndarray:
    """Linear film -> the camera's JPEG: lens distortion, exposure, blur, shot and read noise."""
    w, h = camera.image_size
    grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)), -1).reshape(
        -1, 2
    )
    ideal = camera.undistort_pixels(grid).reshape(h, w, 2) + MARGIN_PX
    image = cv2.remap(
        radiance.astype(np.float32),
        ideal[..., 0].astype(np.float32),
        ideal[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
    )
    look = scene.look
    luminance = image @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    exposure = 0.22 * look.brightness / max(float(np.percentile(luminance, 50)), 1e-6)
    image *= exposure
    if look.blur_px > 0:
        image = cv2.GaussianBlur(image, (0, 0), look.blur_px)
    if look.motion_blur_px >= 1:
        size = 2 * int(np.ceil(look.motion_blur_px)) + 1
        kernel = np.zeros((size, size), np.float32)
        a = np.radians(look.motion_angle_deg)
        half = np.array([np.cos(a), np.sin(a)]) * look.motion_blur_px
        c = size // 2
        cv2.line(
            kernel,
            tuple(np.round((c - half) * 16).astype(int)),
            tuple(np.round((c + half) * 16).astype(int)),
            1.0,
            1,
            cv2.LINE_AA,
            shift=4,
        )
        image = cv2.filter2D(image, -1, kernel / kernel.sum())
    full_well = rng.uniform(1500, 6000)  # electrons at white: sets the shot noise
    electrons = rng.poisson(np.clip(image, 0, 4) * full_well).astype(np.float32) / full_well
    electrons += rng.normal(0, look.noise_sigma / 255 * 0.3, electrons.shape).astype(np.float32)
    photo = np.round(_srgb(electrons)[..., ::-1] * 255).astype(np.uint8)
    _, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, int(look.jpeg_quality or 92)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


NEEDS_MITSUBA = "--renderer physical needs Mitsuba 3: pip install '.[physical]'"


def path_tracer(spp: int) -> partial[RenderedScene] | None:
    """`render_physical` at `spp` samples a pixel, the renderer a benchmark's `--renderer
    physical` passes on; None where Mitsuba 3 (the `physical` extra) is not installed."""
    if importlib.util.find_spec("mitsuba") is None:
        return None
    return partial(render_physical, spp=spp)


def render_physical(
    scene: TableScene, camera: Camera, seed: int, spp: int = 32, variant: str = SCALAR
) -> RenderedScene:
    """The photo of `scene` path-traced through `camera`, deterministic in `seed` (for one
    Mitsuba build and `variant`), with exact truth.

    The same scene, seed and samples render the same light through any of `VARIANTS`; only
    the Monte Carlo noise differs. The scalar variant needs nothing but the wheel, and it made
    the benchmarks' path-traced tables; for training tables the vectorised ones are faster: LLVM
    12 CPU-seconds a table against 35, CUDA (with OptiX) two tables a second on an H200.
    """
    import mitsuba as mi

    if variant not in VARIANTS:
        raise ValueError(f"unknown Mitsuba variant {variant!r}: one of {', '.join(VARIANTS)}")
    mi.set_variant(variant)
    rng = np.random.default_rng(seed + 0x5EED)
    with tempfile.TemporaryDirectory(prefix="tablesight-physical-") as folder:
        meshes = Meshes(Path(folder))
        _table(meshes, scene, rng)
        for d in scene.distractors:
            _distractor(meshes, d)
        for t in scene.terrain:
            _terrain(meshes, t)
        for b in scene.bases:
            _base(meshes, b)
        for v in scene.vehicles:
            _vehicle(meshes, v)
        for hand in scene.hands:
            _hand(meshes, hand)
        mi_scene = mi.load_dict(
            {
                "type": "scene",
                "integrator": {"type": "path", "max_depth": 4},
                "sensor": _sensor(camera, spp, seed),
                **_lights(scene, camera, rng),
                **meshes.shapes,
            }
        )
        radiance = np.array(mi.render(mi_scene, seed=seed))
        truth = _truth(mi_scene, scene, camera)
    return RenderedScene(image=_develop(radiance, scene, camera, rng), camera=camera, truth=truth)
