"""Printable marker sheets at exact physical scale, one marker per page.

Every millimetre of printing error is a millimetre of calibration error, so the markers are
drawn as vector rectangles in millimetre units (no raster to be resampled by the printer
driver), each page carries a 10 cm scale bar to check that nothing was scaled "to fit", and
each page says where on the table its marker goes, in words and on a small map.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from fpdf import FPDF

from calibration.layout import Layout
from calibration.marker_sheet import QUIET_ZONE, SHEET_SCALE
from calibration.output_file import using
from rules_core.errors import TablesightError

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MARGIN_MM = 12.0
SCALE_BAR_MM = 100.0
HEADER_MM = 32.0  # title and placement text above the marker
MAP_MM = 60.0  # the table map beside the scale bar


def marker_bits(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker's cells including the black border: 1 = black."""
    import cv2

    aruco = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    cells = aruco.markerSize + 2
    image = cv2.aruco.generateImageMarker(aruco, marker_id, cells, borderBits=1)
    return (image < 128).astype(np.uint8)


def _placement(corners: np.ndarray) -> tuple[np.ndarray, float, float]:
    centre = corners.mean(0)
    top = corners[1] - corners[0]
    rotation = float(np.degrees(np.arctan2(top[1], top[0])) % 360)
    return centre, float(np.linalg.norm(top)), rotation


def _draw_marker(pdf: FPDF, bits: np.ndarray, x: float, y: float, size: float) -> None:
    """The black square as one rectangle, the white cells cut back out of it."""
    cell = size / bits.shape[0]
    pdf.set_fill_color(0, 0, 0)
    pdf.rect(x, y, size, size, style="F")
    pdf.set_fill_color(255, 255, 255)
    for row, col in zip(*np.nonzero(bits == 0), strict=True):
        pdf.rect(x + col * cell, y + row * cell, cell, cell, style="F")


def _draw_scale_bar(pdf: FPDF, x: float, y: float) -> None:
    pdf.set_fill_color(0, 0, 0)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.2)
    pdf.rect(x, y, SCALE_BAR_MM, 2.0, style="F")
    for cm in range(11):
        pdf.line(x + cm * 10, y, x + cm * 10, y - (3.0 if cm % 5 == 0 else 1.5))
    pdf.set_font("Helvetica", size=8)
    pdf.set_xy(x, y + 3)
    pdf.multi_cell(
        SCALE_BAR_MM,
        3.5,
        "10 cm: measure it. If it is not exactly 10 cm, print again at 100% (actual size, no 'fit to page').",
        align="C",
    )


def _draw_table_map(pdf: FPDF, layout: Layout, marker_id: int, x: float, y: float, width: float) -> None:
    table_w, table_d = layout.table_size_cm
    scale = width / table_w
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.3)
    pdf.rect(x, y, width, table_d * scale)
    for other, corners in layout.corners_by_id.items():
        points = [(x + cx * scale, y + cy * scale) for cx, cy in corners]
        pdf.set_fill_color(*((0, 0, 0) if other == marker_id else (190, 190, 190)))
        pdf.polygon(points, style="F")
    pdf.set_font("Helvetica", size=7)
    pdf.set_xy(x, y - 4)
    pdf.cell(width, 4, "table seen from the camera; top-left corner = (0, 0)", align="L")


def marker_sheets(layout: Layout, paper: str = "a4") -> FPDF:
    """A PDF with one page per layout marker, all at exact scale on `paper`."""
    if paper not in PAPER_MM:
        raise TablesightError(f"unknown paper {paper!r}", "use a4 or letter")
    page_w, page_h = PAPER_MM[paper]
    pdf = FPDF(unit="mm", format=(page_w, page_h))
    pdf.set_auto_page_break(False)
    pdf.set_title(f"tablesight markers for a {layout.table.width_cm:g}x{layout.table.depth_cm:g} cm table")
    for marker_id, corners in layout.corners_by_id.items():
        centre, side_cm, rotation = _placement(corners)
        size = side_cm * 10
        paper_side = size * SHEET_SCALE
        map_w = MAP_MM * min(1.0, layout.table.width_cm / layout.table.depth_cm)
        map_h = map_w * layout.table.depth_cm / layout.table.width_cm
        room = min(page_w - 2 * MARGIN_MM, page_h - HEADER_MM - 14 - map_h - MARGIN_MM)
        if paper_side > room:
            raise TablesightError(
                f"a {side_cm:g} cm marker does not fit on {paper} paper with its white margin",
                f"use --size-cm {(page_w - 2 * MARGIN_MM) / SHEET_SCALE / 10:.0f} or less",
            )
        pdf.add_page()
        pdf.set_font("Helvetica", style="B", size=14)
        pdf.set_xy(MARGIN_MM, MARGIN_MM)
        pdf.cell(0, 7, f"Marker {marker_id}   ({layout.dictionary}, {side_cm:g} cm)")
        pdf.set_font("Helvetica", size=9)
        pdf.set_xy(MARGIN_MM, MARGIN_MM + 8)
        turn = (
            "top edge of the black square along the table's top edge"
            if rotation == 0
            else f"turned {rotation:g} degrees clockwise from the table's top edge"
        )
        pdf.multi_cell(
            page_w - 2 * MARGIN_MM,
            4.5,
            f"Centre at x = {centre[0]:g} cm, y = {centre[1]:g} cm from the table's top-left corner, "
            f"{turn}. Cut along the dashed line; keep the white margin. Lay it flat.",
        )
        left = (page_w - paper_side) / 2
        top = HEADER_MM
        pdf.set_draw_color(150, 150, 150)
        pdf.set_line_width(0.2)
        pdf.set_dash_pattern(dash=2, gap=2)
        pdf.rect(left, top, paper_side, paper_side)
        pdf.set_dash_pattern()
        _draw_marker(
            pdf,
            marker_bits(layout.dictionary, marker_id),
            left + size * QUIET_ZONE,
            top + size * QUIET_ZONE,
            size,
        )
        pdf.set_font("Helvetica", style="B", size=10)
        pdf.set_xy(left, top + 1)
        pdf.cell(paper_side, 4, f"{marker_id}  ^ top", align="C")
        below = top + paper_side + 10
        _draw_scale_bar(pdf, MARGIN_MM, below + 4)
        _draw_table_map(pdf, layout, marker_id, page_w - MARGIN_MM - map_w, below + 4, map_w)
    return pdf


def write_marker_sheets(layout: Layout, pdf_path: str | Path, paper: str = "a4") -> Path:
    """Write the sheets and the matching layout JSON beside them; returns the JSON's path."""
    from calibration.output_file import replace_atomically

    json_path = _layout_path_beside(str(pdf_path))
    _keep_another_layout(json_path, layout)
    pdf_path = Path(pdf_path)
    sheets = marker_sheets(layout, paper)
    writing = pdf_path  # the file an error names: the sheets', then the layout's
    try:
        # beside, then renamed over: a full disk keeps the old sheets and layout whole
        replace_atomically(pdf_path, lambda partial: sheets.output(str(partial)))
        writing = json_path
        replace_atomically(json_path, lambda partial: partial.write_text(layout.to_json()))
    except OSError as error:
        raise TablesightError(
            f"cannot write {writing} ({error.strerror})", "choose a writable -o path"
        ) from None
    return json_path


def _layout_path_beside(pdf_path: str) -> Path:
    """Checked before anything is written, so a refused -o loses nothing: one that names no file
    cannot hold the sheets, and one ending .json would be overwritten by the layout beside it."""
    fix = "give -o the PDF's file name, e.g. markers.pdf (the layout goes beside it as markers.json)"
    path = Path(pdf_path)
    if not pdf_path.strip():
        raise TablesightError("-o is empty: the marker sheets need a file name", fix)
    with using(pdf_path):  # a folder on the way the user may not enter, a name too long
        folder = path.is_dir()
        json_folder = path.with_suffix(".json").is_dir() if path.suffix else False
    if folder or pdf_path.endswith(os.sep):
        raise TablesightError(f"-o {pdf_path} names a folder, not a file for the marker sheets", fix)
    if path.suffix.lower() == ".json":
        raise TablesightError(
            f"-o {pdf_path} is where the layout JSON goes, so it would overwrite the sheets", fix
        )
    if path.suffix.lower() != ".pdf":
        raise TablesightError(f"-o {pdf_path}: the marker sheets are a PDF, so the name ends .pdf", fix)
    json_path = path.with_suffix(".json")
    if json_folder:
        raise TablesightError(
            f"the layout JSON goes beside the sheets, at {json_path}, and that is a folder",
            "give -o another name, or move that folder away",
        )
    return json_path


def _keep_another_layout(json_path: Path, layout: Layout) -> None:
    """A layout file already beside the sheets may be the one the markers were measured into by
    hand: only the very layout these sheets print may be written over it."""
    if not json_path.exists():
        return
    try:
        same = json_path.read_text() == layout.to_json()
    except (OSError, ValueError):
        same = False
    if not same:
        raise TablesightError(
            f"the layout JSON goes beside the sheets, at {json_path}, which holds another layout or file",
            "move that file away, or give -o another name",
        )
