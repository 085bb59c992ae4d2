"""`tablesight doctor`: is this rig ready for a game, and if not, what to do about it.

Each check is a plain sentence a club member can act on without knowing the code: the camera
and its frame rate, the light, the markers in view, how well they calibrate, whether the
table fits in the picture, the detector model, the free disk. A camera that cannot be opened
stops the camera checks (nothing else can be judged without a picture) but the model and disk
are still checked, so one run lists everything that needs fixing.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from hardware.source import Frame, FrameSource
from hardware.sources import open_source
from rules_core.errors import TablesightError

MIN_LIVE_FPS = 2.0
MAX_RMS_MM = 1.0
MAX_MM_PER_PIXEL = 1.0
MIN_FREE_GB = 2.0
DEFAULT_DICTIONARY = "DICT_4X4_50"


@dataclass(frozen=True)
class Check:
    """One line of the checklist: what was found and, when it is not right, what to do."""

    name: str
    ok: bool
    finding: str
    fix: str = ""
    fatal: bool = False

    def line(self) -> str:
        mark = "ok  " if self.ok else ("FAIL" if self.fatal else "FIX ")
        text = f"{mark} {self.name}: {self.finding}."
        return f"{text} {_sentence(self.fix)}." if self.fix else text


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Report:
    checks: list[Check]

    @property
    def exit_code(self) -> int:
        if any(c.fatal for c in self.checks):
            return 2
        return 0 if all(c.ok for c in self.checks) else 1


def run_doctor(
    spec: str,
    layout_path: Path | None = None,
    *,
    frames: int = 10,
    weights_dir: Path | None = None,
    disk_path: Path | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Report:
    checks: list[Check] = []
    layout = None
    if layout_path is not None:
        try:
            layout = _load_layout(layout_path)
        except TablesightError as error:
            checks.append(Check("Layout", False, error.problem, error.fix, fatal=True))
    if not checks:
        try:
            source = open_source(spec)
        except TablesightError as error:
            checks.append(Check("Camera", False, error.problem, error.fix, fatal=True))
        else:
            try:
                checks += _camera_checks(source, frames, clock, layout)
            finally:
                source.close()
    checks.append(check_model(weights_dir if weights_dir is not None else _default_weights_dir()))
    checks.append(check_disk(disk_path if disk_path is not None else Path.cwd()))
    return Report(checks)


def _load_layout(path: Path):
    from calibration.layout import load_layout

    return load_layout(path)


def _default_weights_dir() -> Path:
    import models

    return Path(models.__file__).parent / "weights"


def _camera_checks(source: FrameSource, frames: int, clock: Callable[[], float], layout) -> list[Check]:
    sample, seconds, failure = _sample(source, frames, clock)
    if not sample:
        return [Check("Camera", False, f"{source.description} gave no picture ({failure or 'no frames'})",
                      "check the camera or the files given as the source", fatal=True)]
    last = sample[-1]
    h, w = last.image.shape[:2]
    checks = [Check("Camera", True, f"{source.description} delivers {w}x{h} pictures")]
    checks.append(_frame_rate(source, sample, seconds, failure))
    checks.append(check_light(last.image))
    dictionary = layout.dictionary if layout is not None else DEFAULT_DICTIONARY
    seen = find_markers(last.image, dictionary)
    checks += check_markers(seen, layout, (w, h), dictionary)
    return checks


def _sample(source: FrameSource, frames: int, clock: Callable[[], float]) -> tuple[list[Frame], float, str]:
    """Up to `frames` frames and the time the ones after the first took (the first warms up)."""
    sample: list[Frame] = []
    started = 0.0
    failure = ""
    for _ in range(max(frames, 1)):
        try:
            frame = source.read()
        except TablesightError as error:
            failure = str(error)
            break
        if frame is None:
            break
        sample.append(frame)
        if len(sample) == 1:
            started = clock()
    return sample, clock() - started, failure


def _frame_rate(source: FrameSource, sample: list[Frame], seconds: float, failure: str) -> Check:
    if failure:
        return Check("Frame rate", False, f"the camera stopped after {len(sample)} frames ({failure})",
                     "check the cable and the power supply, then run doctor again")
    if len(sample) < 2 or seconds <= 0:
        return Check("Frame rate", True, "not measured (fewer than 2 frames in the source)")
    fps = (len(sample) - 1) / seconds
    if not getattr(source, "live", False):
        return Check("Frame rate", True, f"frames are read at {fps:.1f} per second")
    if fps < MIN_LIVE_FPS:
        return Check("Frame rate", False, f"only {fps:.1f} frames per second",
                     "lower the resolution (--size) or close other programs; the tracker needs "
                     f"{MIN_LIVE_FPS:g} per second to see hands come and go")
    return Check("Frame rate", True, f"{fps:.1f} frames per second")


def check_light(image: np.ndarray) -> Check:
    """Too dark hides the markers' edges; blown highlights hide the bases' rims."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    mean = float(gray.mean())
    blown = float((gray >= 250).mean())
    if mean < 40:
        return Check("Light", False, f"the picture is dark (mean brightness {mean:.0f} of 255)",
                     "light the table evenly from above, e.g. two LED panels either side of the camera")
    if blown > 0.05:
        return Check("Light", False, f"{blown:.0%} of the picture is burnt out white",
                     "move lamps away from the camera's line of sight and use a matt mat")
    return Check("Light", True, f"exposure looks right (mean brightness {mean:.0f} of 255)")


def find_markers(image: np.ndarray, dictionary: str) -> dict[int, np.ndarray]:
    """ArUco markers in the picture: id -> 4 corner pixels (TL, TR, BR, BL), sub-pixel refined."""
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), parameters)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners, strict=True)}


def check_markers(
    seen: dict[int, np.ndarray], layout, image_size: tuple[int, int], dictionary: str
) -> list[Check]:
    if layout is None:
        if not seen:
            return [Check("Markers", False, f"no {dictionary} markers are in view",
                          "lay the printed markers in the table's corners (`tablesight markers`)")]
        return [Check("Markers", True, f"{len(seen)} markers in view (ids {_ids(seen)})"),
                Check("Calibration", False, "not checked, because no layout was given",
                      "run doctor with --layout LAYOUT.json to measure the calibration error")]
    expected = set(layout.ids)
    found = sorted(expected & set(seen))
    missing = sorted(expected - set(seen))
    if len(found) < 2:
        return [Check("Markers", False,
                      f"{len(found)} of the layout's {len(expected)} markers are in view"
                      + (f" (missing ids {', '.join(map(str, missing))})" if missing else ""),
                      "calibration needs at least 2: check that each marker lies flat, uncovered and "
                      "inside the picture")]
    in_view = f"{len(found)} of the layout's {len(expected)} markers are in view"
    markers = Check("Markers", not missing,
                    in_view + (f"; {_id_list(missing)} not" if missing else ""),
                    "uncover or move the missing ones into the picture" if missing else "")
    return [markers, *check_calibration({i: seen[i] for i in found}, layout, image_size)]


def _id_list(ids: list[int]) -> str:
    return f"id {ids[0]} is" if len(ids) == 1 else f"ids {', '.join(map(str, ids))} are"


def _ids(seen: dict[int, np.ndarray]) -> str:
    return ", ".join(map(str, sorted(seen)))


def check_calibration(seen: dict[int, np.ndarray], layout, image_size: tuple[int, int]) -> list[Check]:
    """Fit pixels -> table cm on the marker corners, then judge the fit and what it implies."""
    pixels = np.concatenate([seen[i] for i in sorted(seen)])
    table = np.concatenate([layout.corners_by_id[i] for i in sorted(seen)])
    homography, _ = cv2.findHomography(pixels, table, 0)
    if homography is None:
        return [Check("Calibration", False, "the markers in view do not fit the layout",
                      "check that the layout file matches the printed sheet and the table size")]
    fitted = cv2.perspectiveTransform(pixels.reshape(-1, 1, 2), homography).reshape(-1, 2)
    errors_mm = np.linalg.norm(fitted - table, axis=1) * 10.0
    rms, worst = float(np.sqrt(np.mean(errors_mm**2))), float(errors_mm.max())
    finding = f"marker corners fit to {rms:.2f} mm RMS, {worst:.2f} mm at worst"
    checks = [Check("Calibration", rms <= MAX_RMS_MM, finding,
                    "" if rms <= MAX_RMS_MM else "check that the markers lie flat and match the layout; "
                    "a lens calibration (--intrinsics) removes the lens's bending")]
    checks += _coverage(homography, layout, image_size)
    return checks


def _coverage(homography: np.ndarray, layout, image_size: tuple[int, int]) -> list[Check]:
    """Whether the whole table is in the picture, and how many millimetres one pixel covers."""
    width, depth = layout.table_size_cm
    corners_cm = np.array([[0, 0], [width, 0], [width, depth], [0, depth]], dtype=np.float64)
    to_pixels = np.linalg.inv(homography)
    corners_px = cv2.perspectiveTransform(corners_cm.reshape(-1, 1, 2), to_pixels).reshape(-1, 2)
    w, h = image_size
    outside = [f"({x:g}, {y:g})" for (x, y), (u, v) in zip(corners_cm, corners_px, strict=True)
               if not (0 <= u < w and 0 <= v < h)]
    area_px = cv2.contourArea(corners_px.astype(np.float32))
    mm_per_px = float(np.sqrt(width * depth * 100.0 / area_px)) if area_px > 0 else float("inf")
    view = Check("Table in view", not outside,
                 "the whole table is in the picture" if not outside
                 else f"table corners {', '.join(outside)} cm are outside the picture",
                 "" if not outside else "raise or centre the camera (see docs/hardware.md for heights)")
    detail = Check("Detail", mm_per_px <= MAX_MM_PER_PIXEL,
                   f"one pixel covers {mm_per_px:.2f} mm of table (a 32 mm base is {32 / mm_per_px:.0f} "
                   "pixels across)",
                   "" if mm_per_px <= MAX_MM_PER_PIXEL
                   else "use the full sensor resolution or lower the camera")
    return [view, detail]


def check_model(weights_dir: Path) -> Check:
    models = sorted(weights_dir.glob("*.onnx")) if weights_dir.is_dir() else []
    if not models:
        return Check("Detector model", False, f"no .onnx model in {weights_dir}",
                     "reinstall tablesight, or train one with `tablesight train`")
    import onnxruntime

    for path in models:
        try:
            onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as error:
            return Check("Detector model", False, f"{path.name} does not load ({type(error).__name__})",
                         "reinstall tablesight to restore the shipped model")
    names = ", ".join(p.name for p in models)
    return Check("Detector model", True, f"{names} loads")


def check_disk(path: Path) -> Check:
    free_gb = shutil.disk_usage(path).free / 1e9
    if free_gb < MIN_FREE_GB:
        return Check("Disk", False, f"only {free_gb:.1f} GB free at {path}",
                     f"free at least {MIN_FREE_GB:g} GB (old recordings) before recording a game")
    return Check("Disk", True, f"{free_gb:.1f} GB free at {path}")
