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

from calibration.aruco import markers_in_view, to_gray
from calibration.imagefile import check_size_for_lens
from calibration.intrinsics import Intrinsics, load_intrinsics
from calibration.layout import Layout, load_layout
from calibration.table import LAYOUT_ADVICE, LOOSE_FIT_MM, TableCalibration, calibrate
from hardware.source import Frame, FrameSource, passed_over, source_file
from hardware.sources import SIZE_SIDES, RecordingReader, check_size_for, is_camera, open_source
from rules_core.errors import TablesightError

MIN_LIVE_FPS = 2.0
MAX_RMS_MM = 1.0
# A 32 mm base under 20 pixels across: from there on the detector wants the full sensor
# resolution (the detector issue's line). The Camera Module 3's binned 2304x1296 over a
# 183 x 122 table gives 1.0-1.2 mm, where the detector meets its targets.
MAX_MM_PER_PIXEL = 32 / 20
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

    def bases_missed(self) -> str:
        """A failed check as the warning of a command that goes on (`detect`, `track`)."""
        return f"{self.finding}, so bases may be missed; {self.fix}"

    def line(self) -> str:
        mark = "ok  " if self.ok else ("FAIL" if self.fatal else "FIX ")
        text = f"{mark} {self.name}: {self.finding}."
        return f"{text} {sentence(self.fix)}." if self.fix else text


def sentence(text: str) -> str:
    """A finding or a fix, which reads on inside a line, as the start of a sentence of its own."""
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
    intrinsics_path: Path | None = None,
    frames: int = 10,
    size: tuple[int, int] | None = None,
    weights_dir: Path | None = None,
    disk_path: Path | None = None,
    clock: Callable[[], float] = time.perf_counter,
    recording_reader: RecordingReader | None = None,
    recorded: tuple[Layout, Intrinsics | None] | None = None,
) -> Report:
    """The checklist for one source, a camera opened at `size` where given; `recorded` is a
    recording's own layout and lens, the layout used where no --layout is given and the lens where
    no --intrinsics is (as `track` does)."""
    checks: list[Check] = []
    layout, lens = recorded if recorded is not None else (None, None)
    if layout_path is not None:
        try:
            layout = load_layout(layout_path)
        except TablesightError as error:
            checks.append(Check("Layout", False, error.problem, error.fix, fatal=True))
    if not checks:
        try:
            if size is not None:
                check_size_for(spec, size)
            source = open_source(spec, recording_reader=recording_reader, size=size)
        except TablesightError as error:
            checks.append(Check("Camera", False, error.problem, error.fix, fatal=True))
        else:
            try:
                largest = _largest_size(source) if is_camera(spec) else None
                checks += _camera_checks(source, frames, clock, layout, intrinsics_path, largest, lens)
            finally:
                source.close()
    checks.append(check_model(weights_dir if weights_dir is not None else _default_weights_dir()))
    checks.append(check_disk(disk_path if disk_path is not None else Path.cwd()))
    return Report(checks)


def _default_weights_dir() -> Path:
    import models

    return Path(models.__file__).parent / "weights"


def _camera_checks(
    source: FrameSource,
    frames: int,
    clock: Callable[[], float],
    layout: Layout | None,
    intrinsics_path: Path | None,
    largest: tuple[int, int] | None,
    lens: Intrinsics | None = None,
) -> list[Check]:
    """`largest`: the largest `--size` the camera takes, None where its size is not ours to choose."""
    sample, seconds, failure = _sample(source, frames, clock)
    if not sample:
        return [Check("Camera", False,
                      f"{source.description} gave no picture ({failure.problem if failure else 'no frames'})",
                      (failure.fix if failure else "") or "check the camera or the files given as the source",
                      fatal=True)]
    image = sample[-1].image
    h, w = image.shape[:2]
    checks = [Check("Camera", True, f"{source.description}, {w}x{h} pixels")]
    checks.append(_frame_rate(source, sample, seconds, failure, (w, h) if largest else None))
    checks.append(check_light(image))
    try:
        intrinsics = load_intrinsics(intrinsics_path) if intrinsics_path is not None else lens
        if intrinsics_path is not None:  # a still's EXIF tag may be what turned it
            check_size_for_lens(intrinsics, image, source_file(source, sample[-1]),
                                f"the picture of {source.description}")
    except TablesightError as error:
        # Said without a layout too: a lens file that is not there was passed over in silence.
        checks.append(Check("Lens calibration", False, error.problem, error.fix))
        if layout is not None:
            return checks
    if layout is None:
        return [*checks, *check_markers_without_layout(image)]
    return [*checks, *check_calibration(image, layout, intrinsics, largest=largest)]


def _sample(
    source: FrameSource, frames: int, clock: Callable[[], float]
) -> tuple[list[Frame], float, TablesightError | None]:
    """Up to `frames` frames and the time the ones after the first took (the first warms up).

    A failure is returned whole, so a check can quote its problem inside its own sentence
    and pass on its fix: the two as one string read as a sentence cut in two."""
    sample: list[Frame] = []
    started = 0.0
    failure = None
    for _ in range(max(frames, 1)):
        try:
            frame = source.read()
        except TablesightError as error:
            failure = error
            break
        if frame is None:
            break
        sample.append(frame)
        if len(sample) == 1:
            started = clock()
    return sample, clock() - started, failure


def _frame_rate(
    source: FrameSource, sample: list[Frame], seconds: float, failure: TablesightError | None,
    size: tuple[int, int] | None = None,
) -> Check:
    """`size`: the camera's, where `--size` can lower it."""
    if failure is not None:
        # A file's own fix (replace that image) beats cable advice, which only fits a camera.
        cable = "check the cable and the power supply, then run doctor again"
        live = getattr(source, "live", False)
        what = "camera" if live else "source"
        finding = f"the {what} stopped after {len(sample)} frames ({failure.problem})"
        return Check("Frame rate", False, finding, cable if live else failure.fix or cable)
    if damage := passed_over(source):
        return Check("Frame rate", False, damage.problem, damage.fix)
    if len(sample) < 2 or seconds <= 0:
        return Check("Frame rate", True, "not measured (fewer than 2 frames in the source)")
    fps = (len(sample) - 1) / seconds
    if not getattr(source, "live", False):
        return Check("Frame rate", True, f"frames are read at {fps:.1f} per second")
    if fps < MIN_LIVE_FPS:
        lower = "lower the resolution"
        if size is not None:
            half = (size[0] // 4 * 2, size[1] // 4 * 2)
            lower = f"run with --size {half[0]}x{half[1]} (half of {size[0]}x{size[1]})"
        return Check("Frame rate", False, f"only {fps:.1f} frames per second",
                     f"{lower} or close other programs; the tracker needs "
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


def check_markers_without_layout(image: np.ndarray) -> list[Check]:
    """Without a layout only the markers can be counted; calibration needs to know where they lie."""
    seen = markers_in_view(to_gray(image), DEFAULT_DICTIONARY)
    if not seen:
        return [Check("Markers", False, f"no {DEFAULT_DICTIONARY} markers are in view",
                      "lay the printed markers in the table's corners (`tablesight markers`)")]
    return [Check("Markers", True, f"{len(seen)} markers in view (ids {', '.join(map(str, seen))})"),
            Check("Calibration", False, "not checked, because no layout was given",
                  "run doctor with --layout LAYOUT.json to measure the calibration error")]


def check_calibration(image: np.ndarray, layout: Layout, intrinsics: Intrinsics | None = None, *,
                      largest: tuple[int, int] | None = None) -> list[Check]:
    """Calibrate as `tablesight calibrate` would, then judge the markers, the fit and the view;
    `largest`: the largest `--size` the camera takes (None: not ours to choose), for the advice on
    detail."""
    try:
        calibration = calibrate(image, layout, intrinsics)
    except TablesightError as error:
        return [Check("Markers", False, error.problem, error.fix)]
    found = set(calibration.marker_ids) | set(calibration.rejected_ids)
    missing = [i for i in layout.ids if i not in found]
    in_view = f"{len(found)} of the layout's {len(layout.ids)} markers are in view"
    checks = [Check("Markers", not missing, in_view + (f"; {_id_list(missing)} not" if missing else ""),
                    "uncover or move the missing ones into the picture" if missing else "")]
    if calibration.rejected_ids:
        checks.append(Check(
            "Marker placement", False,
            f"{_id_list(calibration.rejected_ids)} not where the layout says (left out of the calibration)",
            "put it back where the layout puts it, flat, or fix the layout file"))
    fit = f"marker corners fit to {calibration.rms_mm:.2f} mm RMS, {calibration.max_mm:.2f} mm at worst"
    loose = calibration.rms_mm > MAX_RMS_MM or calibration.max_mm > LOOSE_FIT_MM
    lens = ("recalibrate the lens" if intrinsics is not None
            else "a lens calibration (--intrinsics) removes the lens's bending")
    checks.append(Check("Calibration", not loose, fit,
                        f"check that the markers lie flat where the layout says; {lens}" if loose else ""))
    return [*checks, *_coverage(calibration, largest)]


def _id_list(ids: list[int]) -> str:
    return f"id {ids[0]} is" if len(ids) == 1 else f"ids {', '.join(map(str, ids))} are"


def _coverage(calibration: TableCalibration, largest: tuple[int, int] | None = None) -> list[Check]:
    """Whether the whole table is in the picture, and how many millimetres one pixel covers."""
    width, depth = calibration.layout.table_size_cm
    corners_cm = np.array([[0, 0], [width, 0], [width, depth], [0, depth]], dtype=np.float64)
    corners_px = calibration.table_to_image(corners_cm)
    w, h = calibration.image_size
    outside = [f"({x:g}, {y:g})" for (x, y), (u, v) in zip(corners_cm, corners_px, strict=True)
               if not (0 <= u < w and 0 <= v < h)]
    view = Check("Table in view", not outside,
                 "the whole table is in the picture" if not outside
                 else f"table corners {', '.join(outside)} cm are outside the picture",
                 "" if not outside else "raise or centre the camera (heights: docs/rig.md, Camera height)")
    return [view, check_detail(calibration, largest)]


def check_detail(calibration: TableCalibration, largest: tuple[int, int] | None = None) -> Check:
    """How many millimetres of table one pixel covers, over the whole table: past MAX_MM_PER_PIXEL
    the detector misses bases (a 244 x 183 table seen whole by the binned 2304x1296 frame).
    `largest`: the largest `--size` the camera takes (None: not ours to choose), so the fix names
    the `--size` that shows enough."""
    width, depth = calibration.layout.table_size_cm
    corners_cm = np.array([[0, 0], [width, 0], [width, depth], [0, depth]], dtype=np.float64)
    corners_px = calibration.table_to_image(corners_cm)
    area_px = cv2.contourArea(corners_px.astype(np.float32))
    if not (np.isfinite(corners_px).all() and area_px > 0):  # "one pixel covers inf mm" said nothing
        return Check("Detail", False, "not measured: the calibration maps the table onto no area of the "
                     "picture", LAYOUT_ADVICE)
    mm_per_px = float(np.sqrt(width * depth * 100.0 / area_px))
    fix = ""
    if mm_per_px > MAX_MM_PER_PIXEL:
        fix = "use the full sensor resolution or lower the camera"
        if largest is not None:
            fix = _sharper_size(tuple(calibration.image_size), mm_per_px, largest)
    return Check("Detail", not fix,
                 f"one pixel covers {mm_per_px:.2f} mm of table (a 32 mm base is {32 / mm_per_px:.0f} "
                 "pixels across)", fix)


def _sharper_size(size: tuple[int, int], mm_per_px: float, largest: tuple[int, int]) -> str:
    """The fix for too little detail where `--size` can be chosen, up to the camera's `largest`:
    a size past its sensor was advised (9216x5184 to a 4608x2592 camera), and then refused."""
    sharper = _sharp_enough(size, mm_per_px)
    if sharper[0] <= largest[0] and sharper[1] <= largest[1]:
        return f"run with --size {sharper[0]}x{sharper[1]}, or lower the camera"
    if size == tuple(largest):
        return "lower the camera (or use a wider lens, lower): it already gives its sensor's full size"
    return f"run with --size {largest[0]}x{largest[1]} (its sensor's full size) and lower the camera"


def _largest_size(source: FrameSource) -> tuple[int, int]:
    """The largest `--size` a camera takes: a Pi camera's sensor; a USB camera does not say, so
    the largest the command line accepts."""
    sensor = getattr(source, "sensor_size", None)
    return tuple(sensor) if sensor is not None else (SIZE_SIDES[1], SIZE_SIDES[1])


def _sharp_enough(size: tuple[int, int], mm_per_px: float) -> tuple[int, int]:
    """The picture's size doubled until a pixel covers MAX_MM_PER_PIXEL or less: the Pi camera's
    modes (binned 2304x1296, full 4608x2592) and common USB ones (640x480, 1280x960) are so
    related. `_sharper_size` keeps the advice within the camera's reach."""
    scale = 1
    while mm_per_px / scale > MAX_MM_PER_PIXEL:
        scale *= 2
    return size[0] * scale, size[1] * scale


def check_model(weights_dir: Path) -> Check:
    """A shipped model must load; without one the built-in detector runs, which is not a fault."""
    models = sorted(weights_dir.glob("*.onnx")) if weights_dir.is_dir() else []
    if not models:
        return Check("Detector model", True,
                     f"no .onnx model in {weights_dir}, so the built-in detector "
                     "(circle votes and rim fit) runs")
    import onnxruntime

    for path in models:
        try:
            onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as error:
            return Check("Detector model", False, f"{path.name} does not load ({type(error).__name__})",
                         "reinstall tablesight to restore the shipped model")
    names = ", ".join(p.name for p in models)
    return Check("Detector model", True, f"{names} load{'s' if len(models) == 1 else ''}")


def check_disk(path: Path) -> Check:
    free_gb = shutil.disk_usage(path).free / 1e9
    if free_gb < MIN_FREE_GB:
        return Check("Disk", False, f"only {free_gb:.1f} GB free at {path}",
                     f"free at least {MIN_FREE_GB:g} GB (old recordings) before recording a game")
    return Check("Disk", True, f"{free_gb:.1f} GB free at {path}")
