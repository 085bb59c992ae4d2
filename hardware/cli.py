"""Subcommands of this package for `tablesight` (see tracker/cli.py)."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

from calibration.seed_tables import LAYOUT_HELP
from hardware.sources import SIZE_SIDES
from rules_core.errors import TablesightError

SIZE_HELP = ("the camera's resolution, e.g. 2304x1296 (the Pi camera's binned mode, faster); picamera2 "
             "and camera:N only (default: the Pi camera's full sensor, a USB camera's own default)")
_SIZE = re.compile(r"(\d+)x(\d+)")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this package's subcommands."""
    doctor = subparsers.add_parser(
        "doctor",
        help="check the camera, markers, calibration, model and disk, and say what to fix",
        description="Check that this rig is ready for a game: the camera (found, resolution, frame "
        "rate), the light, the markers in view and their calibration error, the detector model and "
        "the free disk. Exit 0 when all is well, 1 with something to fix, 2 when it cannot run.",
    )
    doctor.add_argument("--source", default=None,
                        help="picamera2, camera:N, a URL, a video file or a folder "
                        "(default: picamera2 on a Pi, else camera:0)")
    doctor.add_argument("--layout", type=Path, default=None, help=LAYOUT_HELP + ", to check calibration")
    doctor.add_argument("--intrinsics", type=Path, default=None,
                        help="lens calibration CAM.json (from `tablesight calibrate-lens`)")
    doctor.add_argument("--size", type=camera_size, metavar="WxH", help=SIZE_HELP)
    doctor.add_argument("--frames", type=_frame_count, default=10,
                        help="frames to read to measure the frame rate, 2 or more (default 10)")
    doctor.set_defaults(func=run_doctor_command)


def _frame_count(text: str) -> int:
    """A rate needs two frames at least; fewer used to pass as a source too short to measure."""
    if not text.isdigit() or int(text) < 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count of 2 or more frames")
    return int(text)


def camera_size(text: str) -> tuple[int, int]:
    """`--size WxH` as (width, height): one line naming the form for anything else, rather than
    a camera's own refusal (or a picture of 0 pixels) once it is opened."""
    match = _SIZE.fullmatch(text.strip().lower())
    sides = tuple(int(side) for side in match.groups()) if match else ()
    low, high = SIZE_SIDES
    if len(sides) != 2 or any(side % 2 or not low <= side <= high for side in sides):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a camera size: give WIDTHxHEIGHT in pixels, both even, {low} to {high}, "
            "e.g. 2304x1296")
    return sides


def _recording_frames(path: Path):
    """The tracker's reader of recorded games, so a .tsr is checked like any video: the
    hardware package leaves the format to the tracker, and only the command line joins them."""
    from tracker.recording import Recording, meant_as_recording

    if not meant_as_recording(path):
        return None
    recording = Recording(path)

    def frames():
        yield from recording.frames()
        if recording.frames_stopped:  # damage is a finding, not the recording's end
            raise TablesightError(recording.frames_stopped, "use another copy of the recording")

    return frames()


def _recorded_setup(path: Path):
    """A recording's own layout and lens calibration, which doctor measures with where no --layout
    or --intrinsics is given, as `track` does; None for any other source, or a recording whose
    manifest cannot be read (opening it as the source says what is wrong)."""
    from tracker.recording import Recording, meant_as_recording, recorded_layout, recorded_lens

    try:
        if not meant_as_recording(path):
            return None
        recording = Recording(path)
    except (TablesightError, OSError):
        return None
    try:
        layout = recorded_layout(recording.manifest)
        return None if layout is None else (layout, recorded_lens(recording.manifest))
    except TablesightError:
        return None
    finally:
        recording.close()


def default_source() -> str:
    """The Pi camera where picamera2 is installed (a Pi), otherwise the first USB camera."""
    return "picamera2" if importlib.util.find_spec("picamera2") is not None else "camera:0"


def run_doctor_command(args: argparse.Namespace) -> int:
    from hardware.doctor import run_doctor

    recorded = _recorded_setup(Path(args.source)) if args.source else None
    report = run_doctor(args.source or default_source(), args.layout, intrinsics_path=args.intrinsics,
                        frames=args.frames, size=args.size, recording_reader=_recording_frames,
                        recorded=recorded)
    for check in report.checks:
        print(check.line())
    for check in report.checks:
        if check.fatal:
            print(f"tablesight doctor: {check.finding}. {check.fix}.", file=sys.stderr)
    return report.exit_code
