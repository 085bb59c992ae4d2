"""Marker sheets and the ChArUco board print at exact physical scale."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from calibration.layout import corner_layout, default_layout
from calibration.lens import BOARD_SQUARES, SQUARE_MM, _board_pdf, write_board
from calibration.sheets import marker_sheets
from rules_core.errors import TablesightError

PT_PER_MM = 72 / 25.4
RECT = re.compile(rb"([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re ([fS])")


def pdf_ops(pdf) -> tuple[list[tuple[float, float]], list[list[tuple[float, float, float, float, str]]]]:
    """Page sizes (mm) and each page's rectangles (x, y from the top, w, h in mm, fill or stroke)."""
    pdf.set_compression(False)
    data = bytes(pdf.output())
    sizes = [(float(w) / PT_PER_MM, float(h) / PT_PER_MM)
             for w, h in re.findall(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)]
    pages = []
    for stream in re.findall(rb"stream\n(.*?)endstream", data, re.S):
        rects = [(float(x), float(y), float(w), float(h), op.decode())
                 for x, y, w, h, op in RECT.findall(stream)]
        if rects:
            height_pt = sizes[0][1] * PT_PER_MM
            pages.append([(x / PT_PER_MM, (height_pt - y) / PT_PER_MM, w / PT_PER_MM, -h / PT_PER_MM, op)
                          for x, y, w, h, op in rects])
    return sizes, pages


@pytest.mark.parametrize(("paper", "size_mm"), [("a4", (210.0, 297.0)), ("letter", (215.9, 279.4))])
def test_each_marker_is_printed_at_its_exact_size_with_a_10_cm_scale_bar(paper, size_mm):
    layout = corner_layout((183.0, 122.0), size_cm=11.0)
    sizes, pages = pdf_ops(marker_sheets(layout, paper))
    assert len(pages) == 4
    assert all(abs(w - size_mm[0]) < 0.01 and abs(h - size_mm[1]) < 0.01 for w, h in sizes)
    for marker_id, rects in enumerate(pages):
        filled = [r for r in rects if r[4] == "f"]
        square = [r for r in filled if abs(r[2] - 110.0) < 0.01 and abs(r[3] - 110.0) < 0.01]
        assert len(square) == 1, f"page {marker_id}: no 11 cm black square"
        bar = [r for r in filled if abs(r[2] - 100.0) < 0.01 and abs(r[3] - 2.0) < 0.01]
        assert len(bar) == 1, f"page {marker_id}: no 10 cm scale bar"
        x, y, side = square[0][:3]
        assert x > 0 and x + side < size_mm[0] and y > 0 and y + side < size_mm[1]
        # The white cells cut out of the square spell this marker's id.
        cell = side / 6
        bits = np.ones((6, 6), np.uint8)
        for cx, cy, w, _, _ in filled:
            if abs(w - cell) < 0.01 and x - 0.01 <= cx < x + side:
                bits[round((cy - y) / cell), round((cx - x) / cell)] = 0
        image = cv2.resize((1 - bits) * 255, (120, 120), interpolation=cv2.INTER_NEAREST)
        image = cv2.copyMakeBorder(image, 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=255)
        detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
        assert detector.detectMarkers(image)[1].ravel().tolist() == [marker_id]


def test_markers_command_writes_the_matching_layout(tmp_path):
    from tracker.cli import main

    pdf = tmp_path / "markers.pdf"
    assert main(["markers", "--table", "244x183", "--paper", "letter", "-o", str(pdf)]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    assert (tmp_path / "markers.json").read_text() == default_layout("244x183").to_json()


@pytest.mark.parametrize(("output", "message"), [
    ("", "-o is empty"),
    (".", "names a folder"),
    ("sheets/", "names a folder"),
    ("markers.json", "would overwrite the sheets"),
])
def test_an_output_that_would_lose_a_file_is_refused_before_writing(tmp_path, capsys, monkeypatch,
                                                                    output, message):
    from tracker.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["markers", "-o", output]) == 2
    err = capsys.readouterr().err
    assert message in err and "markers.pdf" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_marker_too_big_for_the_paper_is_refused():
    with pytest.raises(TablesightError, match="does not fit on a4"):
        marker_sheets(corner_layout((183.0, 122.0), size_cm=15.0), "a4")


def test_charuco_board_squares_are_exact(tmp_path):
    sizes, pages = pdf_ops(_board_pdf())
    squares = [r for r in pages[0] if abs(r[2] - SQUARE_MM) < 0.01 and abs(r[3] - SQUARE_MM) < 0.01]
    cols, rows = BOARD_SQUARES
    assert len(squares) == cols * rows // 2 + (cols * rows) % 2
    assert abs(sizes[0][0] - 297.0) < 0.01
    write_board(tmp_path / "board.png")
    assert cv2.imread(str(tmp_path / "board.png")) is not None
    with pytest.raises(TablesightError, match=r"name the output \.pdf"):
        write_board(tmp_path / "board.gif")


def test_a_layout_place_taken_by_a_folder_is_refused_before_the_sheets_are_written(tmp_path, capsys):
    from tracker.cli import main

    (tmp_path / "markers.json").mkdir()
    assert main(["markers", "-o", str(tmp_path / "markers.pdf")]) == 2
    err = capsys.readouterr().err
    assert f"at {tmp_path / 'markers.json'}, and that is a folder" in err and err.count("\n") == 1
    assert [p.name for p in tmp_path.iterdir()] == ["markers.json"]


@pytest.mark.parametrize(("argv", "said"), [
    (["--size-cm", "0"], "a marker size of 0 cm cannot be printed. give --size-cm a positive size"),
    (["--size-cm", "nan"], "a marker size of nan cm cannot be printed"),
    (["--table", "100000x122"], "table size '100000x122' is 1 km or more across. write it in cm"),
    # A value starting with a minus and a digit is the option's, not another option: these met
    # argparse's "expected one argument".
    (["--table", "-5x100"], "table size '-5x100' must be positive and finite. write it like 183x122"),
    (["--table", "-.5x100"], "table size '-.5x100' must be positive and finite"),
    (["--size-cm", "-1e3"], "a marker size of -1000 cm cannot be printed"),
])
def test_a_bad_markers_option_is_named_not_blamed_on_a_layout_file(tmp_path, capsys, argv, said):
    from tracker.cli import main

    assert main(["markers", *argv, "-o", str(tmp_path / "markers.pdf")]) == 2
    err = capsys.readouterr().err
    assert said in err and "layout JSON" not in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_layout_file_beside_the_sheets_is_kept_unless_it_is_the_same_layout(tmp_path, capsys):
    """`markers -o keep.pdf` wrote its layout over keep.json, a hand-measured layout or any JSON."""
    from tracker.cli import main

    kept = tmp_path / "keep.json"
    kept.write_text('{"custom": 1}')
    assert main(["markers", "-o", str(tmp_path / "keep.pdf")]) == 2
    err = capsys.readouterr().err
    assert f"at {kept}, which holds another layout or file" in err and err.count("\n") == 1
    assert kept.read_text() == '{"custom": 1}' and not (tmp_path / "keep.pdf").exists()
    kept.write_text(default_layout("183x122").to_json())
    assert main(["markers", "-o", str(tmp_path / "keep.pdf")]) == 0


def test_the_sheets_are_named_as_a_pdf(tmp_path, capsys):
    from tracker.cli import main

    assert main(["markers", "-o", str(tmp_path / "x.png")]) == 2
    assert "the marker sheets are a PDF, so the name ends .pdf" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
