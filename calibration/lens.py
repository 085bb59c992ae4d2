"""Lens intrinsics from photos (or a video) of a printed ChArUco board.

The board mixes a chessboard (whose saddle corners locate to a hundredth of a pixel) with
ArUco markers (which name each corner, so a board half out of frame still counts). That lets
the user sweep the board into the frame's corners, where distortion lives and where a plain
chessboard would be rejected. Wide lenses get OpenCV's rational model: its extra terms follow
the strong barrel of a 120-degree lens that the 5-term model cannot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
from fpdf import FPDF

from calibration.file_kind import pipe_or_device
from calibration.imagefile import read_image, write_image
from calibration.intrinsics import Intrinsics
from calibration.videofile import open_video
from rules_core.errors import TablesightError

BOARD_SQUARES = (7, 5)
SQUARE_MM = 30.0
MARKER_MM = 22.0
BOARD_DICTIONARY = "DICT_5X5_100"  # not the table markers' 4x4, so a board on the table never confuses them
MIN_CORNERS = 8
MIN_VIEWS = 4
VIDEO_FRAMES = 40
VIDEO_SUFFIXES = {".mp4", ".mov", ".avi", ".mkv", ".h264", ".webm"}


def board() -> cv2.aruco.CharucoBoard:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, BOARD_DICTIONARY))
    return cv2.aruco.CharucoBoard(BOARD_SQUARES, SQUARE_MM / 10, MARKER_MM / 10, dictionary)


def board_image(px_per_mm: float = 10.0) -> np.ndarray:
    """The board as a grayscale raster, `px_per_mm` pixels per printed millimetre, no margin."""
    cols, rows = BOARD_SQUARES
    size = (round(cols * SQUARE_MM * px_per_mm), round(rows * SQUARE_MM * px_per_mm))
    return board().generateImage(size, marginSize=0, borderBits=1)


def write_board(path: str | Path) -> None:
    """PDF at exact scale on A4 landscape, or a PNG at 10 px/mm, chosen by the suffix."""
    from calibration.output_file import replace_atomically

    path = Path(path)

    def write_png(partial: Path) -> None:
        image = cv2.copyMakeBorder(board_image(), 150, 150, 150, 150, cv2.BORDER_CONSTANT, value=255)
        if not write_image(partial, image):
            raise TablesightError(f"cannot write {path}", "choose a writable -o path, or free some space")

    try:
        # beside, then renamed over: a full disk keeps the old board
        if path.suffix.lower() == ".pdf":
            board = _board_pdf()
            replace_atomically(path, lambda partial: board.output(str(partial)))
        elif path.suffix.lower() == ".png":
            replace_atomically(path, write_png)
        else:
            raise TablesightError(
                f"cannot write a board as {path.suffix or 'a file without suffix'}",
                "name the output .pdf (for printing) or .png (for a screen)",
            )
    except OSError as error:
        raise TablesightError(
            f"cannot write {path} ({error.strerror})", "choose a writable -o path"
        ) from None


def _board_pdf() -> FPDF:
    """Vector board: chess squares and marker cells as exact rectangles, never a resampled raster."""
    from calibration.sheets import marker_bits

    pdf = FPDF(unit="mm", format="A4", orientation="L")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    cols, rows = BOARD_SQUARES
    left, top = (297 - cols * SQUARE_MM) / 2, (210 - rows * SQUARE_MM) / 2 + 4
    charuco = board()
    markers = {
        tuple((np.asarray(corners)[:, :2].mean(0) * 10 // SQUARE_MM).astype(int)): (int(i), corners)
        for i, corners in zip(charuco.getIds().ravel(), charuco.getObjPoints(), strict=True)
    }
    pdf.set_fill_color(0, 0, 0)
    for row in range(rows):
        for col in range(cols):
            if (col, row) not in markers:
                pdf.rect(left + col * SQUARE_MM, top + row * SQUARE_MM, SQUARE_MM, SQUARE_MM, style="F")
    for marker_id, corners in markers.values():
        x, y = np.asarray(corners)[0, :2] * 10
        bits = marker_bits(BOARD_DICTIONARY, marker_id)
        cell = MARKER_MM / bits.shape[0]
        pdf.set_fill_color(0, 0, 0)
        for r, c in zip(*np.nonzero(bits), strict=True):
            pdf.rect(left + x + c * cell, top + y + r * cell, cell, cell, style="F")
    pdf.set_font("Helvetica", size=9)
    pdf.set_xy(left, top - 8)
    pdf.cell(
        cols * SQUARE_MM,
        5,
        f"tablesight ChArUco board: {cols}x{rows} squares of {SQUARE_MM:g} mm, "
        f"markers {MARKER_MM:g} mm, {BOARD_DICTIONARY}. Print at 100%; check one square is {SQUARE_MM:g} mm.",
    )
    return pdf


@dataclass(frozen=True)
class LensCalibration:
    intrinsics: Intrinsics
    rms_px: float
    views_used: int
    views_total: int
    model: str
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            **self.intrinsics.to_dict(),
            "rms_px": round(self.rms_px, 4),
            "views_used": self.views_used,
            "views_total": self.views_total,
            "model": self.model,
        }


def _frames(sources: Iterable[str | Path]) -> Iterable[tuple[str, np.ndarray]]:
    for source in map(Path, sources):
        if source.suffix.lower() in VIDEO_SUFFIXES:
            if pipe_or_device(source):  # OpenCV would wait on it for a writer, deaf to Ctrl-C and SIGTERM
                raise TablesightError(
                    f"video {source} is a pipe or a device, not a video file",
                    "save the video to a file and give its name",
                )
            capture = open_video(source)
            count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
            if not capture.isOpened() or count <= 0:
                raise TablesightError(
                    f"cannot read video {source}", "give an MP4/MOV/AVI file OpenCV can open"
                )
            for index in np.linspace(0, count - 1, min(VIDEO_FRAMES, count)).astype(int):
                capture.set(cv2.CAP_PROP_POS_FRAMES, int(index))
                ok, frame = capture.read()
                if ok:
                    yield f"{source}#{index}", frame
            capture.release()
        else:
            yield str(source), read_image(source, "give JPEG/PNG photos of the ChArUco board")


def calibrate_lens(sources: Iterable[str | Path], wide: bool = False) -> LensCalibration:
    """K and dist from board views; every view must share one image size."""
    charuco = board()
    detector = cv2.aruco.CharucoDetector(charuco)
    objects, images, size, total = [], [], None, 0
    for name, frame in _frames(sources):
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        frame_size = (gray.shape[1], gray.shape[0])
        if size is not None and frame_size != size:
            raise TablesightError(
                f"{name} is {frame_size[0]}x{frame_size[1]} but earlier views are {size[0]}x{size[1]}",
                "calibrate one camera mode at a time",
            )
        size, total = frame_size, total + 1
        corners, ids, _, _ = detector.detectBoard(gray)
        if ids is None or len(ids) < MIN_CORNERS:
            continue
        obj, img = charuco.matchImagePoints(corners, ids)
        objects.append(obj.astype(np.float32))
        images.append(img.astype(np.float32))
    if len(objects) < MIN_VIEWS:
        raise TablesightError(
            f"the board is readable in only {len(objects)} of {total} views, {MIN_VIEWS} needed",
            "take 10-20 sharp photos of the whole board (`tablesight charuco-board`) at different "
            "angles and in every part of the frame",
        )
    return replace(fit_lens(objects, images, size, wide), views_total=total)


def fit_lens(objects: list[np.ndarray], images: list[np.ndarray], size: tuple[int, int],
             wide: bool) -> LensCalibration:
    """The model asked for, unless the standard one turns back inside the picture (a wide lens,
    or views that kept off its corners): past its fold it sends no ray, and `calibrate` refuses
    a lens file whose markers lie there. The rational model follows such a lens, so it is fitted
    instead, and said so; one that still folds is kept with a note of where."""
    fitted = _fitted(objects, images, size, wide)
    fold = _fold_in_picture(fitted.intrinsics)
    if fold is None:
        return fitted
    if not wide:
        rational = _fitted(objects, images, size, True)
        if _fold_in_picture(rational.intrinsics) is None:
            note = (f"the standard model turns back inside the picture ({fold}), so the rational one "
                    "was fitted, as --wide does")
            return replace(rational, notes=(note,))
    return replace(fitted, notes=(f"the lens model turns back inside the picture ({fold}): a marker seen "
                                  "past that is refused; take views with the board in every corner of the "
                                  "frame",))


def _fitted(objects: list[np.ndarray], images: list[np.ndarray], size: tuple[int, int],
            wide: bool) -> LensCalibration:
    flags = cv2.CALIB_RATIONAL_MODEL if wide else 0
    rms, K, dist, _, _ = cv2.calibrateCamera(objects, images, size, None, None, flags=flags)
    # OpenCV pads to 14 terms; keep the ones the model fitted (k1 k2 p1 p2 k3 [k4 k5 k6]).
    terms = 8 if wide else 5
    return LensCalibration(Intrinsics(K=K, dist=dist.ravel()[:terms], image_size=size), float(rms),
                           len(objects), len(objects), "rational" if wide else "standard")


def _fold_in_picture(lens: Intrinsics) -> str | None:
    """Where the model's fold cuts the picture's edge, in words; None where it does not."""
    width, height = lens.image_size
    edge = np.array([[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1],
                     [width / 2, 0], [width / 2, height - 1], [0, height / 2], [width - 1, height / 2]])
    if not lens.reach.beyond(edge).any():
        return None
    return f"{lens.reach.fold_px():.0f} px from its centre, its corners {np.hypot(width, height) / 2:.0f}"
