"""Render a `TableScene` through a `Camera`: the photo and its exact ground truth.

Objects become convex 3D solids (see painter.py) projected through the same camera model that
calibration recovers, so a tall miniature far from the nadir leans outward and a base's top
rim shows r*h/(H-h) further out than its bottom rim, exactly as in a real photo.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import cv2
import numpy as np

from calibration.camera import Camera
from calibration.synthetic import Canvas, mat_texture
from models.synth.painter import Painter, box_corners, capsule, ellipsoid, ring
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

FIGURE_LABEL = 30000
CLUTTER_LABEL = 40000
VEHICLE_LABEL = 20000
WALL_SHADE = 0.8
TEXTURE_PX_PER_CM = 4


@dataclass
class RenderedScene:
    image: np.ndarray
    camera: Camera
    truth: Truth


def shade(color, factor: float) -> tuple[float, float, float]:
    return tuple(float(np.clip(c * factor, 0, 255)) for c in color)


def figure_point(base: BaseSpec, fig: Figure, height: float, forward: float = 0.0) -> np.ndarray:
    """A point of a figure: `height` above its base's top along its lean, `forward` the way it faces."""
    towards = np.radians(fig.lean_towards_deg)
    tilt = np.array([np.cos(towards), np.sin(towards)]) * np.tan(np.radians(fig.lean_deg))
    face = np.array([np.cos(np.radians(fig.facing_deg)), np.sin(np.radians(fig.facing_deg))])
    xy = np.array([base.x_cm + fig.dx_cm, base.y_cm + fig.dy_cm]) + tilt * height + face * forward
    return np.array([xy[0], xy[1], base.thickness_mm / 10 + height])


def _figure(p: Painter, base: BaseSpec, fig: Figure) -> None:
    top_z = base.thickness_mm / 10
    at = partial(figure_point, base, fig)
    h = fig.height_cm
    dark = shade(fig.color, 0.7)
    if fig.kind == "gun":
        p.solid(
            np.vstack(
                [
                    box_corners(at(0)[:2], h * 1.2, h * 0.9, fig.facing_deg, top_z + 0.3),
                    box_corners(at(0)[:2], h * 1.2, h * 0.9, fig.facing_deg, top_z + h * 0.45),
                ]
            ),
            dark,
            FIGURE_LABEL,
        )
        p.solid(capsule(at(h * 0.5), at(h * 0.55, fig.reach_cm), 0.25), fig.color, FIGURE_LABEL)
        return
    if fig.kind == "rider":
        p.solid(capsule(at(h * 0.35, -h * 0.45), at(h * 0.4, h * 0.45), h * 0.16), dark, FIGURE_LABEL)
        p.solid(capsule(at(h * 0.45), at(h * 0.85), h * 0.1), fig.color, FIGURE_LABEL)
        p.solid(ellipsoid(at(h * 0.95), (h * 0.08,) * 3, 10), shade(fig.color, 1.3), FIGURE_LABEL)
        return
    body = max(0.45, h * 0.13)
    p.solid(capsule(at(body * 0.8), at(h * 0.78), body), fig.color, FIGURE_LABEL)
    p.solid(ellipsoid(at(h * 0.9), (body * 0.6,) * 3, 10), (120, 150, 200), FIGURE_LABEL)
    if fig.reach_cm > 0:
        p.solid(capsule(at(h * 0.6), at(h * 0.65, fig.reach_cm), 0.18), (40, 40, 45), FIGURE_LABEL)


def _base(p: Painter, base: BaseSpec, label: int) -> None:
    r = base.diameter_mm / 20
    t = base.thickness_mm / 10
    bottom = ring((base.x_cm, base.y_cm), r, 0.0)
    top = ring((base.x_cm, base.y_cm), r - base.bevel_mm / 10, t)
    # The wall faces sideways, so it catches less of the overhead light than the top; and a
    # 3-4 mm base casts a thin shadow crescent. Both are what shows a base flocked like the mat.
    p.prism(bottom, top, shade(base.rim_color, WALL_SHADE), base.top_color, label)
    for fig in base.figures:
        _figure(p, base, fig)


def _vehicle(p: Painter, v: VehicleSpec, label: int) -> None:
    h = v.height_cm
    centre = (v.x_cm, v.y_cm)
    lower = [box_corners(centre, v.length_cm, v.width_cm, v.heading_deg, z) for z in (0.0, h * 0.4)]
    p.prism(*lower, v.track_color, shade(v.track_color, 1.2), label)
    upper = [
        box_corners(centre, v.length_cm * 0.97, v.width_cm * 0.96, v.heading_deg, z) for z in (h * 0.4, h)
    ]
    p.prism(*upper, shade(v.hull_color, 0.7), v.hull_color, label)
    if v.turret:
        t = np.radians(v.heading_deg)
        along = np.array([np.cos(t), np.sin(t)])
        tc = np.asarray(centre) - along * v.length_cm * 0.08
        radius = v.width_cm * 0.32
        p.prism(
            ring(tc, radius, h, 8),
            ring(tc, radius * 0.85, h * 1.45, 8),
            shade(v.turret_color, 0.75),
            v.turret_color,
            label,
        )
        muzzle = tc + along * v.length_cm * 0.62
        p.solid(
            capsule((*tc, h * 1.2), (*muzzle, h * 1.2), max(0.25, v.width_cm * 0.04)),
            shade(v.turret_color, 0.8),
            label,
        )


def _hand(p: Painter, hand: HandSpec) -> None:
    wrist = np.array([hand.x_cm, hand.y_cm, hand.height_cm])
    shoulder = np.asarray(hand.shoulder_cm, dtype=np.float64)
    elbow = (wrist + shoulder) / 2 + np.array([0, 0, 4.0])
    p.solid(capsule(shoulder, elbow, hand.size_cm * 0.5), hand.sleeve, CLUTTER_LABEL)
    p.solid(capsule(elbow, wrist, hand.size_cm * 0.32), hand.skin, CLUTTER_LABEL)
    reach = (wrist - elbow)[:2]
    reach = reach / (np.linalg.norm(reach) + 1e-9)
    palm = wrist + np.array([*(reach * hand.size_cm * 0.5), -hand.size_cm * 0.1])
    p.solid(
        ellipsoid(palm, (hand.size_cm * 0.5, hand.size_cm * 0.5, hand.size_cm * 0.2), 12),
        shade(hand.skin, 1.05),
        CLUTTER_LABEL,
    )


def _terrain(p: Painter, t: TerrainSpec) -> None:
    foot = np.asarray(t.footprint_cm, dtype=np.float64)
    centre = foot.mean(0)
    if t.kind == "tree":
        radius = np.linalg.norm(foot - centre, axis=1).mean()
        p.solid(capsule((*centre, 0.0), (*centre, t.height_cm * 0.6), 0.7), (40, 55, 70), CLUTTER_LABEL)
        p.solid(
            ellipsoid((*centre, t.height_cm * 0.72), (radius, radius * 0.9, t.height_cm * 0.28), 14),
            t.color,
            CLUTTER_LABEL,
        )
        return
    shrink = 0.6 if t.kind == "hill" else 1.0
    bottom = np.column_stack([foot, np.zeros(len(foot))])
    top = np.column_stack([centre + (foot - centre) * shrink, np.full(len(foot), t.height_cm)])
    p.prism(bottom, top, t.color, t.top_color, CLUTTER_LABEL)


def _distractor(p: Painter, d: DistractorSpec) -> None:
    c = (d.x_cm, d.y_cm)
    s = d.size_cm
    if d.kind == "die":
        p.prism(
            box_corners(c, s, s, d.heading_deg, 0),
            box_corners(c, s, s, d.heading_deg, s),
            shade(d.color, 0.75),
            d.color,
            CLUTTER_LABEL,
        )
    elif d.kind in ("token", "coin"):
        thick = 0.25 if d.kind == "token" else 0.18
        p.prism(
            ring(c, s / 2, 0),
            ring(c, s / 2, thick),
            shade(d.color, 0.7),
            d.color,
            CLUTTER_LABEL,
            shadow=False,
        )
    elif d.kind == "tape":
        t = np.radians(d.heading_deg)
        blade_centre = np.asarray(c) + np.array([np.cos(t), np.sin(t)]) * (s / 2 + d.length_cm / 2)
        p.flat(box_corners(blade_centre, d.length_cm, 1.9, d.heading_deg, 0)[:, :2], (40, 200, 230))
        p.prism(
            box_corners(c, s, s, d.heading_deg, 0),
            box_corners(c, s, s, d.heading_deg, s * 0.5),
            shade(d.color, 0.7),
            d.color,
            CLUTTER_LABEL,
        )
    elif d.kind == "card":
        p.flat(box_corners(c, 8.8, 6.3, d.heading_deg, 0)[:, :2], d.color)
    elif d.kind == "printed_circle":
        p.flat(ring(c, s / 2, 0)[:, :2], d.color)
    elif d.kind == "printed_ring":
        inner, outer = ring(c, s / 2 - 0.15, 0)[:, :2], ring(c, s / 2, 0)[:, :2]
        for i in range(len(inner)):
            j = (i + 1) % len(inner)
            p.flat(np.array([outer[i], outer[j], inner[j], inner[i]]), d.color)


def _mat(scene: TableScene, rng: np.random.Generator) -> np.ndarray:
    w, d = scene.table_cm
    size = (int(w * TEXTURE_PX_PER_CM), int(d * TEXTURE_PX_PER_CM))
    # Real mats vary in brightness (flock, grain) far more than in hue: a little chroma from
    # calibration's texture, the rest as one luminance field shared by all channels.
    texture = mat_texture(rng, size, scene.mat.color, scene.mat.roughness * 0.25).astype(np.float32)
    luminance = mat_texture(rng, size, (128, 128, 128), scene.mat.roughness)[..., :1].astype(np.float32)
    texture = np.clip(texture * (luminance / 128.0), 0, 255).astype(np.uint8)
    for (x0, y0), (x1, y1), width_cm, color in scene.mat.lines:
        pts = [(round(v * TEXTURE_PX_PER_CM)) for v in (x0, y0, x1, y1)]
        cv2.line(texture, tuple(pts[:2]), tuple(pts[2:]), color, max(1, round(width_cm * TEXTURE_PX_PER_CM)))
    return texture


def _rim_visibility(painter: Painter, camera: Camera, base: BaseSpec, label: int) -> float:
    """Share of the base's outline that is in the frame and not hidden by anything."""
    r, t = base.diameter_mm / 20, base.thickness_mm / 10
    pts = np.vstack(
        [ring((base.x_cm, base.y_cm), r, 0, 72), ring((base.x_cm, base.y_cm), r - base.bevel_mm / 10, t, 72)]
    )
    canvas = painter.canvas
    px = canvas.to_canvas(pts)
    hull = cv2.convexHull(px.astype(np.float32), returnPoints=False).ravel()
    outline = pts[hull]
    centre_px = canvas.to_canvas(np.array([[base.x_cm, base.y_cm, t / 2]]))[0]
    probe = px[hull] + (centre_px - px[hull]) * (
        1.5 * canvas.scale / max(np.linalg.norm(px[hull] - centre_px, axis=1).mean(), 1)
    )
    h, w = painter.labels.shape
    ij = np.round(probe).astype(int)
    inside = (ij[:, 0] >= 0) & (ij[:, 0] < w) & (ij[:, 1] >= 0) & (ij[:, 1] < h)
    own = np.zeros(len(ij), bool)
    own[inside] = painter.labels[ij[inside, 1], ij[inside, 0]] == label
    in_frame = _in_frame(camera, outline)
    return float(np.mean(own & in_frame))


def _in_frame(camera: Camera, points_cm: np.ndarray) -> np.ndarray:
    px = camera.project(points_cm)
    w, h = camera.image_size
    return (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)


def _vehicle_visibility(painter: Painter, camera: Camera, v: VehicleSpec, label: int) -> float:
    corners = box_corners((v.x_cm, v.y_cm), v.length_cm * 0.9, v.width_cm * 0.9, v.heading_deg, 0.0)
    edge = np.vstack([np.linspace(corners[i], corners[(i + 1) % 4], 10, endpoint=False) for i in range(4)])
    px = np.round(painter.canvas.to_canvas(edge)).astype(int)
    h, w = painter.labels.shape
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    own = np.zeros(len(px), bool)
    own[inside] = painter.labels[px[inside, 1], px[inside, 0]] == label
    return float(np.mean(own & _in_frame(camera, edge)))


def render_scene(scene: TableScene, camera: Camera, seed: int, supersample: int = 2) -> RenderedScene:
    """The photo of `scene` through `camera`, deterministic in `seed`, with exact truth."""
    rng = np.random.default_rng(seed)
    canvas = Canvas(camera, supersample)
    canvas.draw_table(scene.table_cm, _mat(scene, rng))
    for marker in scene.markers:
        canvas.draw_marker(marker, scene.dictionary)
    painter = Painter(canvas)
    for d in scene.distractors:
        _distractor(painter, d)
    for t in scene.terrain:
        _terrain(painter, t)
    for i, base in enumerate(scene.bases):
        _base(painter, base, i + 1)
    for i, v in enumerate(scene.vehicles):
        _vehicle(painter, v, VEHICLE_LABEL + i)
    for hand in scene.hands:
        _hand(painter, hand)
    light = np.asarray(scene.light_dir, dtype=np.float64)
    painter.paint(light / np.linalg.norm(light), scene.shadow_strength)
    bases = [
        BaseTruth(b.x_cm, b.y_cm, b.diameter_mm, _rim_visibility(painter, camera, b, i + 1))
        for i, b in enumerate(scene.bases)
    ]
    vehicles = [
        VehicleTruth(
            v.x_cm,
            v.y_cm,
            v.length_cm,
            v.width_cm,
            v.heading_deg % 360,
            _vehicle_visibility(painter, camera, v, VEHICLE_LABEL + i),
        )
        for i, v in enumerate(scene.vehicles)
    ]
    image = canvas.finish(scene.look, rng)
    return RenderedScene(image=image, camera=camera, truth=Truth(bases, vehicles))
