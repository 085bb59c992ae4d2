"""Subcommands of the calibration package for `tablesight` (see tracker/cli.py).

Handlers import OpenCV and the calibration modules lazily, so other subcommands start fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from calibration.jsonfile import read_json
from calibration.seed_tables import LAYOUT_HELP
from rules_core.errors import TablesightError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "markers",
        help="printable ArUco marker sheets at exact scale, with their layout JSON",
        description="Write one page per marker (exact physical size, a 10 cm scale bar, "
        "where it goes on the table) and the matching layout JSON beside the PDF.",
    )
    p.add_argument("--table", default="183x122", help="table WIDTHxDEPTH in cm (default 183x122)")
    p.add_argument("--size-cm", type=float, default=10.0, help="side of the black square (default 10)")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="sheet to print on (default a4)")
    p.add_argument(
        "-o", "--output", required=True, help="PDF to write; the layout goes to the same name .json"
    )
    p.set_defaults(func=_markers)

    p = subparsers.add_parser(
        "calibrate",
        help="camera-to-table calibration from a photo of the markers",
        description="Find the layout's markers in IMAGE and write the calibration JSON.",
    )
    p.add_argument("image")
    p.add_argument("--layout", required=True, help=LAYOUT_HELP)
    p.add_argument("--intrinsics", help="lens calibration CAM.json (from `tablesight calibrate-lens`)")
    p.add_argument("-o", "--output", required=True, help="calibration JSON to write")
    p.set_defaults(func=_calibrate)

    p = subparsers.add_parser(
        "rectify",
        help="top-down image of the table from a calibrated photo",
        description="Warp IMAGE to a top-down view of the whole table at N px per mm.",
    )
    p.add_argument("image")
    p.add_argument("--calibration", required=True, help="calibration JSON (from `tablesight calibrate`)")
    p.add_argument("--px-per-mm", type=float, default=1.0,
                   help="scale of the top-down image (default 1: a 183x122 cm table is 1830x1220 px)")
    p.add_argument("-o", "--output", required=True, help="image to write (PNG or JPEG, by its name)")
    p.set_defaults(func=_rectify)

    p = subparsers.add_parser(
        "charuco-board",
        help="printable ChArUco board for lens calibration",
        description="Write the lens-calibration board as a PDF at exact scale or a PNG.",
    )
    p.add_argument(
        "-o", "--output", required=True, help="board.pdf (print it) or board.png (show it on a screen)"
    )
    p.set_defaults(func=_charuco_board)

    p = subparsers.add_parser(
        "calibrate-lens",
        help="lens intrinsics (CAM.json) from ChArUco board photos or a video",
        description="Calibrate K and distortion from photos or videos of the ChArUco board.",
    )
    p.add_argument("sources", nargs="+", metavar="IMAGES_OR_VIDEO")
    p.add_argument("--wide", action="store_true", help="rational distortion model, for wide-angle lenses")
    p.add_argument("-o", "--output", required=True, help="CAM.json to write")
    p.set_defaults(func=_calibrate_lens)


def _json_output(name: str, inputs: list[str], kind: tuple[str, Callable[[object], bool]]) -> Path:
    """Checked before the work: `-o` must not replace an input, nor a file that holds no JSON
    (a photo named by a slip of the finger is the only copy), nor JSON of another `kind`."""
    from calibration.output_file import check_output

    fix = "give -o a new .json file name"
    return check_output(name, "-o", fix, inputs=inputs, json_only=True, same_kind=kind, make_folders=True)


def _a_calibration(data: object) -> bool:
    return isinstance(data, dict) and "homography" in data


def _a_lens(data: object) -> bool:
    return isinstance(data, dict) and "K" in data and "homography" not in data


def _write_json(path: Path, data: dict) -> None:
    from calibration.output_file import replace_atomically

    try:
        replace_atomically(path, lambda partial: partial.write_text(json.dumps(data, indent=2) + "\n"))
    except OSError as error:
        raise TablesightError(
            f"cannot write {path} ({error.strerror})", "choose a writable -o path"
        ) from None


def _markers(args: argparse.Namespace) -> int:
    from calibration.layout import corner_layout, parse_table
    from calibration.sheets import write_marker_sheets

    layout = corner_layout(parse_table(args.table), args.size_cm)
    json_path = write_marker_sheets(layout, args.output, args.paper)
    print(f"wrote {args.output} ({len(layout.markers)} pages, {args.paper}) and layout {json_path}")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from calibration.imagefile import check_size_for_lens, read_image
    from calibration.intrinsics import load_intrinsics
    from calibration.layout import load_layout
    from calibration.table import calibrate

    inputs = [args.image, args.layout, *filter(None, [args.intrinsics])]
    output = _json_output(args.output, inputs, ("calibration", _a_calibration))
    layout = load_layout(args.layout)
    image = read_image(args.image)
    intrinsics = None
    if args.intrinsics:
        intrinsics = load_intrinsics(args.intrinsics)
        check_size_for_lens(intrinsics, image, args.image, f"image {args.image}")
    calibration = calibrate(image, layout, intrinsics)
    _write_json(output, calibration.to_dict())
    warnings = f"; warnings: {' | '.join(calibration.warnings)}" if calibration.warnings else ""
    _summary(
        output,
        f"{len(calibration.marker_ids)} of {len(layout.markers)} markers used "
        f"({', '.join(map(str, calibration.marker_ids))}), rms {calibration.rms_mm:.2f} mm, "
        f"max {calibration.max_mm:.2f} mm{warnings}",
    )
    return 0


def _summary(output: Path, line: str) -> None:
    """The line for the person at the terminal: on stderr when the JSON itself goes to a stream
    (`-o /dev/stdout | jq`), where it would have been read as the start of the JSON."""
    from calibration.output_file import is_stream

    print(line, file=sys.stderr if is_stream(output) else sys.stdout)


# A calibration JSON is a few KB; one for a 1,024-marker layout, every marker seen and named in
# its warnings, half a MB. One padded to 24 MB (8 million marker ids) took 2.35 s and 235 MB to read.
CALIBRATION_MAX_BYTES = 2 * 2**20


def load_calibration(path: str):
    from calibration.table import TableCalibration

    data = read_json(path, "calibration", "--calibration", "the JSON written by `tablesight calibrate`",
                     CALIBRATION_MAX_BYTES)
    if isinstance(data, dict) and "markers" in data and "homography" not in data:
        raise TablesightError(
            f"{path} is a marker layout, not a calibration",
            f"make one first: tablesight calibrate PHOTO --layout {path} -o calib.json",
        )
    if _a_lens(data):  # "has no layout" sent the user looking for a layout in the wrong file
        raise TablesightError(
            f"{path} is a lens calibration (from `tablesight calibrate-lens`), not a table calibration",
            "give the table calibration `tablesight calibrate` writes: "
            f"tablesight calibrate PHOTO --layout LAYOUT.json --intrinsics {path} -o calib.json",
        )
    try:
        return TableCalibration.from_dict(data, source=f"calibration {path}")
    # a field of the wrong shape, or a number too large for its kind (an id of 1e400)
    except (KeyError, TypeError, ValueError, IndexError, OverflowError) as error:
        raise TablesightError(
            f"calibration file {path} has a field of the wrong kind ({error})",
            "give the JSON written by `tablesight calibrate`",
        ) from None


def _rectify(args: argparse.Namespace) -> int:
    from calibration.imagefile import read_image, write_image
    from calibration.output_file import check_output, replace_atomically

    fix = "give -o a new image name, e.g. top.png"
    inputs = [args.image, args.calibration]
    output = check_output(args.output, "-o", fix, inputs=inputs, streams=False, make_folders=True)
    _check_image_writer(args.output)
    calibration = load_calibration(args.calibration)
    top = calibration.rectify(read_image(args.image), args.px_per_mm)
    _check_not_another_picture(output, top.shape[:2], fix)
    fix = "choose a writable -o path ending in .png or .jpg, or free some disk space"

    def write(partial: Path) -> None:
        if not write_image(partial, top):
            raise TablesightError(f"cannot write {args.output}", fix)

    try:
        # beside, then renamed over: a full disk keeps the old image
        replace_atomically(output, write)
    except OSError as error:
        raise TablesightError(f"cannot write {args.output} ({error.strerror})", fix) from None
    print(f"wrote {args.output} ({top.shape[1]}x{top.shape[0]} px, {args.px_per_mm:g} px/mm)")
    return 0


def _check_not_another_picture(output: Path, shape: tuple[int, ...], fix: str) -> None:
    """An existing -o is written over only when it is a top-down view of this size, an earlier
    rectify's: a photo of the game that bears the name is the only copy of it."""
    import numpy as np

    from calibration.imagefile import decode_quietly

    # check_output (streams=False) has refused anything but a regular file or no file at all
    if not output.is_file() or output.stat().st_size == 0:
        return
    with output.open("rb") as handle:
        found = decode_quietly(np.frombuffer(handle.read(), np.uint8))
    if found is None or found.shape[:2] != tuple(shape):
        what = "no picture" if found is None else f"a {found.shape[1]}x{found.shape[0]} picture"
        raise TablesightError(
            f"-o {output} holds {what}, not a {shape[1]}x{shape[0]} top-down view of this table, "
            "so it is not replaced",
            fix,
        )


def _check_image_writer(path: str) -> None:
    """Before the warp, so a name OpenCV cannot write costs no work (and is not its traceback)."""
    import cv2

    suffix = Path(path).suffix
    try:
        # Asked of the suffix alone: OpenCV died of a name not in UTF-8 (a Latin-1 é).
        known = suffix.isascii() and cv2.haveImageWriter(f"image{suffix}")
    except cv2.error:  # a format this OpenCV build has switched off, such as OpenEXR
        known = False
    if not known:
        raise TablesightError(
            f"cannot write an image as {path!r}: no image format "
            + (f"is written as {suffix}" if suffix else "without a suffix"),
            "name the -o file .png or .jpg",
        )


def _charuco_board(args: argparse.Namespace) -> int:
    from calibration.lens import write_board
    from calibration.output_file import check_output

    check_output(args.output, "-o", "give -o a board.pdf or board.png name", make_folders=True)
    write_board(args.output)
    print(f"wrote {args.output}")
    return 0


def _calibrate_lens(args: argparse.Namespace) -> int:
    from calibration.lens import calibrate_lens

    output = _json_output(args.output, args.sources, ("lens calibration", _a_lens))
    result = calibrate_lens(args.sources, wide=args.wide)
    _write_json(output, result.to_dict())
    notes = f"; {' | '.join(result.notes)}" if result.notes else ""
    _summary(
        output,
        f"{result.views_used} of {result.views_total} views used, rms {result.rms_px:.3f} px, "
        f"{result.model} model -> {args.output}{notes}",
    )
    return 0
