"""Calibration accuracy and speed on generated tables, clean and under hard conditions.

For each scene a table with its markers is rendered through a known camera; the calibration's
image_to_table is applied to the exact projections of a 2 cm grid over the whole table and
compared with the grid (mm). Beside ours it prints the bare baseline: cv2.findHomography over
OpenCV's sub-pixel ArUco corners (undistorted when intrinsics are given). Run:

    python benchmarks/calibration.py            # 24 scenes + hard conditions, 3-8 minutes
    python benchmarks/calibration.py --quick    # 8 scenes + hard conditions
    python benchmarks/calibration.py --hard-only
"""

# ruff: noqa: E402  (imports follow the sys.path fix below)
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

# This script is named like the package it measures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import cv2
import numpy as np

from calibration.aruco import find_markers
from calibration.camera import SENSORS, Camera, focal_to_fit
from calibration.drift import DriftWatch
from calibration.intrinsics import Intrinsics
from calibration.layout import Layout, default_layout
from calibration.synthetic import Canvas, Look, Marker, mat_texture
from calibration.table import calibrate
from rules_core.errors import TablesightError

SKIN_BGR = (120, 150, 205)


@dataclass
class Scene:
    name: str
    layout: Layout
    camera: Camera
    look: Look
    intrinsics: bool = True
    placed: list[Marker] | None = None  # where markers really lie, if not where the layout says
    hand_over: int | None = None  # marker id half covered by a hand
    seed: int = 0


def render(scene: Scene) -> np.ndarray:
    rng = np.random.default_rng(scene.seed)
    table = scene.layout.table_size_cm
    canvas = Canvas(scene.camera, supersample=2)
    canvas.draw_table(table, mat_texture(rng, (int(table[0] * 4), int(table[1] * 4))))
    for marker in scene.placed if scene.placed is not None else scene.layout.markers_as_synthetic():
        canvas.draw_marker(marker, scene.layout.dictionary)
    if scene.hand_over is not None:
        _draw_hand(canvas, scene.layout.corners_by_id[scene.hand_over])
    return canvas.finish(scene.look, rng)


def _draw_hand(canvas: Canvas, corners: np.ndarray) -> None:
    """A palm and fingers 4 cm above the table reaching over the right half of a marker."""
    centre, side = corners.mean(0), np.linalg.norm(corners[1] - corners[0])
    t = np.linspace(0, 2 * np.pi, 40)
    palm = centre + np.array([side * 0.95, 0.0])
    outline = np.stack(
        [palm[0] + side * 0.55 * np.cos(t), palm[1] + side * 0.7 * np.sin(t), np.full(40, 4.0)], axis=1
    )
    canvas.fill_polygon(outline, SKIN_BGR)
    for k, dy in enumerate((-0.45, -0.15, 0.15, 0.45)):
        tip = centre + np.array([side * (0.05 + 0.08 * abs(k - 1.5)), side * dy])
        finger = np.array(
            [
                [tip[0], tip[1] - side * 0.1, 3.0],
                [palm[0], tip[1] - side * 0.1, 4.0],
                [palm[0], tip[1] + side * 0.1, 4.0],
                [tip[0], tip[1] + side * 0.1, 3.0],
            ]
        )
        canvas.fill_polygon(finger, SKIN_BGR)


def camera_for(layout: Layout, height: float, tilt: float, sensor: str, seed: int, k1: float = 0.0) -> Camera:
    rng = np.random.default_rng(seed)
    size = SENSORS[sensor]
    table = layout.table_size_cm
    dist = np.array([k1, -0.3 * k1, 0.0, 0.0, 0.0]) if k1 else None
    return Camera.looking_at(
        (table[0] / 2, table[1] / 2),
        height,
        image_size=size,
        focal_px=focal_to_fit(table, height, size, margin=1.08),
        tilt_deg=tilt,
        tilt_towards_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-2, 2)),
        dist=dist,
        principal_offset_px=tuple(rng.uniform(-15, 15, 2)),
    )


def scenes(quick: bool) -> list[Scene]:
    tables = ("183x122", "122x122", "244x183")
    heights = (150, 170, 190, 220)
    tilts = (0.0, 2.5, 5.0, 7.5, 10.0)
    out = []
    count = 8 if quick else 24
    for i in range(count):
        layout = default_layout(tables[i % 3])
        sensor = "hq" if i % 6 == 5 else "cm3-binned"
        k1 = -0.06 if i % 4 == 3 else 0.0
        rng = np.random.default_rng(100 + i)
        look = Look(
            light_gradient=rng.uniform(0.1, 0.4),
            vignette=rng.uniform(0.1, 0.4),
            blur_px=rng.uniform(0.3, 1.0),
            noise_sigma=rng.uniform(1.5, 4.0),
            jpeg_quality=int(rng.integers(80, 96)),
        )
        camera = camera_for(layout, heights[i % 4], tilts[i % 5], sensor, seed=i, k1=k1)
        name = f"{tables[i % 3]} h{heights[i % 4]} t{tilts[i % 5]:g} {sensor}{' dist' if k1 else ''}"
        out.append(Scene(name, layout, camera, look, seed=i))
        if k1:
            out.append(replace(out[-1], name=name + " no-K", intrinsics=False))
    return out


def hard_scenes() -> list[Scene]:
    layout = default_layout("183x122")
    camera = camera_for(layout, 180, 4.0, "cm3-binned", seed=7)
    base = Look(blur_px=0.6, noise_sigma=2.5, jpeg_quality=88)
    markers = layout.markers_as_synthetic()
    moved = [m if m.id != 2 else Marker(2, m.corners_cm + np.array([-3.0, -2.0])) for m in markers]
    turned = [m if m.id != 2 else Marker(2, np.roll(m.corners_cm, 1, axis=0)) for m in markers]
    c1, c2 = layout.corners_by_id[1].mean(0), layout.corners_by_id[2].mean(0)
    return [
        Scene("clean", layout, camera, base, seed=50),
        Scene("glare over marker 1", layout, camera, replace(base, glare=[(*c1, 9.0, 0.9)]), seed=51),
        Scene(
            "glare, strong, off-centre",
            layout,
            camera,
            replace(base, glare=[(c1[0] - 3, c1[1] + 2, 6.0, 1.6)]),
            seed=52,
        ),
        Scene(
            "glare on an edge of marker 1",
            layout,
            camera,
            replace(base, glare=[(c1[0] + 4, c1[1], 5.0, 0.7)]),
            seed=51,
        ),
        Scene(
            "glare on markers 1 and 2",
            layout,
            camera,
            replace(base, glare=[(c1[0] - 3, c1[1] + 3, 7.0, 0.6), (c2[0] + 2, c2[1] - 4, 6.0, 0.8)]),
            seed=52,
        ),
        Scene(
            "wide soft glare, paper clipped",
            layout,
            camera,
            replace(base, glare=[(c1[0] - 3, c1[1] + 3, 15.0, 0.4), (c2[0] + 2, c2[1] - 4, 12.0, 0.5)]),
            seed=52,
        ),
        Scene(
            "dim, noisy, JPEG 60",
            layout,
            camera,
            replace(base, brightness=0.3, noise_sigma=6, jpeg_quality=60),
            seed=60,
        ),
        Scene("very uneven light", layout, camera, replace(base, light_gradient=0.9, vignette=0.8), seed=61),
        Scene(
            "motion blur, 12 px smear",
            layout,
            camera,
            replace(base, motion_blur_px=6, motion_angle_deg=25),
            seed=53,
        ),
        Scene(
            "motion blur, 20 px smear",
            layout,
            camera,
            replace(base, motion_blur_px=10, motion_angle_deg=70),
            seed=63,
        ),
        Scene("defocus blur 2.5 px", layout, camera, replace(base, blur_px=2.5), seed=54),
        Scene("hand over half of marker 1", layout, camera, base, hand_over=1, seed=55),
        Scene("marker 2 moved 3.6 cm", layout, camera, base, placed=moved, seed=56),
        Scene("marker 2 turned 90 deg", layout, camera, base, placed=turned, seed=57),
        Scene("2 of 4 visible (diagonal)", layout, camera, base, placed=markers[0:3:2], seed=58),
        Scene("2 of 4 visible (same edge)", layout, camera, base, placed=markers[0:2], seed=59),
    ]


def grid(layout: Layout, step_cm: float = 2.0) -> np.ndarray:
    w, d = layout.table_size_cm
    xs, ys = np.meshgrid(np.arange(0, w + 1e-9, step_cm), np.arange(0, d + 1e-9, step_cm))
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def baseline_map(image: np.ndarray, scene: Scene, intrinsics: Intrinsics | None):
    """Bare cv2.findHomography over OpenCV sub-pixel corners of every layout marker seen."""
    undistort = intrinsics.undistort if intrinsics is not None else None
    seen = find_markers(image, scene.layout, "subpix", undistort).corners
    if len(seen) < 2:
        return None
    src = np.concatenate(list(seen.values()))
    dst = np.concatenate([scene.layout.corners_by_id[i] for i in seen])
    H, _ = cv2.findHomography(src, dst, 0)

    def to_table(px: np.ndarray) -> np.ndarray:
        pts = undistort(px) if undistort else px
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)

    return to_table


def corner_errors(image: np.ndarray, scene: Scene, intrinsics: Intrinsics | None) -> dict[str, float]:
    """RMS corner error (px) of each corner refinement, over the markers lying where the layout says."""
    placed = scene.placed if scene.placed is not None else scene.layout.markers_as_synthetic()
    truth = {
        m.id: m.corners_cm for m in placed if np.allclose(m.corners_cm, scene.layout.corners_by_id[m.id])
    }
    project = scene.camera.project_ideal if intrinsics is not None else scene.camera.project
    undistort = intrinsics.undistort if intrinsics is not None else None
    out = {}
    for method in ("lines", "subpix", "apriltag", "contour"):
        seen = find_markers(image, scene.layout, method, undistort).corners
        errors = [np.linalg.norm(seen[i] - project(truth[i]), axis=1) for i in seen if i in truth]
        out[method] = float(np.sqrt(np.nanmean(np.concatenate(errors) ** 2))) if errors else float("nan")
    return out


def errors_mm(to_table, camera: Camera, points: np.ndarray) -> tuple[float, float]:
    err = np.linalg.norm(to_table(camera.project(points)) - points, axis=1) * 10
    return float(np.sqrt(np.mean(err**2))), float(err.max())


def measure(scene: Scene) -> dict:
    image = render(scene)
    cam = scene.camera
    intrinsics = Intrinsics(cam.K, cam.dist, cam.image_size) if scene.intrinsics else None
    points = grid(scene.layout)
    row: dict = {"scene": scene.name}
    try:
        start = time.perf_counter()
        calibration = calibrate(image, scene.layout, intrinsics)
        row["calib_ms"] = (time.perf_counter() - start) * 1000
    except TablesightError as error:
        row["error"] = str(error)
        return row
    row["ours"] = errors_mm(calibration.image_to_table, cam, points)
    row["corners_px"] = corner_errors(image, scene, intrinsics)
    row["markers"] = calibration.marker_ids
    row["residual"] = (calibration.rms_mm, calibration.max_mm)
    row["height_err_cm"] = float(calibration.camera_centre_cm[2] - cam.centre_cm[2])
    base = baseline_map(image, scene, intrinsics)
    row["baseline"] = errors_mm(base, cam, points) if base else (float("nan"),) * 2
    watch = DriftWatch(calibration, image)
    start = time.perf_counter()
    for _ in range(5):
        watch.check(image)
    row["drift_ms"] = (time.perf_counter() - start) / 5 * 1000
    return row


def report(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    print(
        f"{'scene':34} {'markers':10} {'ours rms/max mm':>16} {'baseline rms/max':>17} "
        f"{'resid rms/max':>14} {'dH cm':>6} {'calib ms':>8} {'drift ms':>8}"
    )
    for r in rows:
        if "error" in r:
            print(f"{r['scene']:34} ERROR {r['error']}")
            continue
        print(
            f"{r['scene']:34} {','.join(map(str, r['markers'])):10} "
            f"{r['ours'][0]:7.3f}/{r['ours'][1]:<8.3f} {r['baseline'][0]:8.3f}/{r['baseline'][1]:<8.3f} "
            f"{r['residual'][0]:6.3f}/{r['residual'][1]:<7.3f} {r['height_err_cm']:6.1f} "
            f"{r['calib_ms']:8.0f} {r['drift_ms']:8.1f}"
        )


def corner_report(rows: list[dict]) -> None:
    methods = ("lines", "subpix", "apriltag", "contour")
    print(f"\nCorner RMS error (px) by refinement\n{'scene':34} " + " ".join(f"{m:>9}" for m in methods))
    for r in rows:
        if "corners_px" in r:
            print(f"{r['scene']:34} " + " ".join(f"{r['corners_px'][m]:9.3f}" for m in methods))
    good = [r for r in rows if "corners_px" in r]
    print(
        f"{'RMS over these scenes':34} "
        + " ".join(f"{np.sqrt(np.mean([r['corners_px'][m] ** 2 for r in good])):9.3f}" for m in methods)
    )


def summary(label: str, rows: list[dict]) -> None:
    good = [r for r in rows if "ours" in r]
    if not good:
        return
    ours_rms = np.sqrt(np.mean([r["ours"][0] ** 2 for r in good]))
    base_rms = np.sqrt(np.nanmean([r["baseline"][0] ** 2 for r in good]))
    print(
        f"{label}: {len(good)} scenes, ours RMS {ours_rms:.3f} mm (worst scene RMS "
        f"{max(r['ours'][0] for r in good):.3f}), max {max(r['ours'][1] for r in good):.3f} mm; "
        f"baseline RMS {base_rms:.3f} mm, max {np.nanmax([r['baseline'][1] for r in good]):.3f} mm; "
        f"calibration {np.median([r['calib_ms'] for r in good]):.0f} ms, drift check "
        f"{np.median([r['drift_ms'] for r in good]):.1f} ms (medians)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8 generated scenes instead of 24")
    parser.add_argument("--hard-only", action="store_true", help="only the hard conditions")
    args = parser.parse_args()
    hard = [measure(s) for s in hard_scenes()]
    report("Hard conditions (183x122, h180 t4, intrinsics)", hard)
    summary("\nHard conditions", hard)
    if args.hard_only:
        corner_report(hard)
        return
    generated = [measure(s) for s in scenes(args.quick)]
    report("Generated scenes (2 cm grid over the whole table, mm)", generated)
    with_k = [r for r, s in zip(generated, scenes(args.quick), strict=True) if s.intrinsics]
    no_k_dist = [r for r in generated if r["scene"].endswith("no-K")]
    summary("\nWith intrinsics (incl. distorted lenses)", with_k)
    summary("Distorted lens WITHOUT intrinsics", no_k_dist)
    corner_report(generated + hard)


if __name__ == "__main__":
    main()
