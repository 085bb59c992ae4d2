"""`tablesight detect` per CONTRACTS.md, its one-line errors for bad input, and `train`'s refusals."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.layout import default_layout
from tests.exif import with_orientation
from tracker.cli import main


@pytest.fixture(scope="module")
def layout_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("layout") / "layout.json"
    path.write_text(json.dumps(default_layout("183x122").to_dict()))
    return path


@pytest.fixture(scope="module")
def squad_photo(tmp_path_factory, squad_frame):
    path = tmp_path_factory.mktemp("photo") / "frame.png"
    cv2.imwrite(str(path), squad_frame[2].image)
    return path


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_detect_prints_the_contract_json(capsys, layout_file, squad_photo, squad_frame):
    assert main(["detect", str(squad_photo), "--layout", str(layout_file), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["image"] == str(squad_photo)
    assert set(doc["calibration"]) >= {"marker_ids", "rms_mm", "max_mm"}
    assert doc["calibration"]["marker_ids"] == [0, 1, 2, 3]
    truth = squad_frame[2].truth.base_xy_cm()
    assert len(doc["models"]) >= len(truth) - 1
    for i, model in enumerate(doc["models"]):
        assert model["id"] == f"d{i + 1}" and model["kind"] == "base"
        assert model["diameter_mm"] in (32, 65)
        assert set(model) >= {"x_cm", "y_cm", "confidence", "measured_diameter_mm"}
        assert np.min(np.linalg.norm(truth - [model["x_cm"], model["y_cm"]], axis=1)) < 0.2
    (tank,) = doc["vehicles"]
    assert tank["id"] == "v1" and len(tank["corners_cm"]) == 4
    assert set(tank) >= {"x_cm", "y_cm", "length_cm", "width_cm", "heading_deg", "confidence"}
    assert 0 <= tank["heading_deg"] < 360
    # Corners in the contract example's order: rear-left, front-left, front-right, rear-right.
    t = np.radians(tank["heading_deg"])
    along, across = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    half_l, half_w = tank["length_cm"] / 2, tank["width_cm"] / 2
    centre = np.array([tank["x_cm"], tank["y_cm"]])
    signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    expected = [centre + a * half_l * along + b * half_w * across for a, b in signs]
    assert np.allclose(tank["corners_cm"], expected, atol=0.02)


def test_the_contract_examples_hull_has_the_contract_examples_corners() -> None:
    """CONTRACTS.md: a hull at (110, 55), 20 x 10 cm, heading 0 has corners
    [[100, 50], [120, 50], [120, 60], [100, 60]]; ours started one corner on, at [120, 50]."""
    from models.detections import Vehicles
    from models.synth.specs import VehicleTruth

    hull = Vehicles.placed([VehicleTruth(110.0, 55.0, 20.0, 10.0, 0.0, 1.0)])
    assert np.allclose(hull.corners_cm()[0], [[100, 50], [120, 50], [120, 60], [100, 60]])


def test_the_default_sheets_need_no_layout_file(capsys, layout_file, squad_photo, monkeypatch):
    assert main(["detect", str(squad_photo), "--layout", str(layout_file), "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    monkeypatch.chdir(layout_file.parent)
    assert main(["detect", str(squad_photo), "--layout", "183x122", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == from_file
    assert main(["detect", str(squad_photo), "--layout", "100x100", "--json"]) == 2
    assert "no default layout for a 100x100 table" in _error_line(capsys)


def test_a_photo_without_a_table_is_one_line_exit_2(capsys, tmp_path, layout_file):
    blank = tmp_path / "wall.png"
    cv2.imwrite(str(blank), np.full((1296, 2304, 3), 128, np.uint8))
    assert main(["detect", str(blank), "--layout", str(layout_file), "--json"]) == 2
    assert _error_line(capsys).startswith("tablesight detect: ")


def test_an_unreadable_image_is_one_line_exit_2(capfd, tmp_path, layout_file):
    # capfd: OpenCV's own warnings go straight to the process's stderr, past capsys.
    assert main(["detect", str(tmp_path / "none.jpg"), "--layout", str(layout_file), "--json"]) == 2
    assert "none.jpg not found" in _error_line(capfd)
    corrupt = tmp_path / "half.png"
    corrupt.write_bytes(b"\x89PNG\r\n\x1a\n cut off")
    assert main(["detect", str(corrupt), "--layout", str(layout_file), "--json"]) == 2
    line = _error_line(capfd)
    assert "half.png" in line and "decode" in line


def test_intrinsics_for_another_image_size_is_one_line_exit_2(capsys, tmp_path, layout_file, squad_photo):
    cam = tmp_path / "cam.json"
    cam.write_text(
        json.dumps(
            {
                "K": [[3000, 0, 2027.5], [0, 3000, 1519.5], [0, 0, 1]],
                "dist": [0, 0, 0, 0, 0],
                "image_size": [4056, 3040],
            }
        )
    )
    code = main(
        ["detect", str(squad_photo), "--layout", str(layout_file), "--intrinsics", str(cam), "--json"]
    )
    assert code == 2
    assert "4056" in _error_line(capsys)


def test_a_corrupt_model_file_is_one_line_exit_2(capsys, tmp_path, layout_file, squad_photo):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00garbage")
    code = main(["detect", str(squad_photo), "--layout", str(layout_file), "--weights", str(bad), "--json"])
    assert code == 2
    assert "bad.onnx" in _error_line(capsys)


def test_a_folder_as_the_model_file_is_named_a_folder(capsys, tmp_path, layout_file, squad_photo):
    folder = str(tmp_path)
    code = main(["detect", str(squad_photo), "--layout", str(layout_file), "--weights", folder, "--json"])
    assert code == 2
    line = _error_line(capsys)
    assert f"--weights {tmp_path} is a folder, not a model file" in line and "does not exist" not in line


def test_a_table_with_no_models_gives_empty_lists(capsys, tmp_path, layout_file, empty_frame):
    path = tmp_path / "empty.png"
    cv2.imwrite(str(path), empty_frame[2].image)
    assert main(["detect", str(path), "--layout", str(layout_file), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["models"] == [] and doc["vehicles"] == []


@pytest.mark.parametrize(
    "option", [["--base-map", "--steps", "-1"], ["--epochs", "0"], ["--jobs", "0"], ["--epochs", "two"]]
)
def test_train_refuses_counts_below_one_before_rendering_anything(tmp_path, capsys, option):
    out = tmp_path / "never-written.onnx"
    assert main(["train", *option, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert option[-2] in err and err.count("\n") == 1
    assert not out.exists()


def test_a_wrong_layout_is_refused_in_one_line(capsys, squad_photo):
    """A 244x183 layout on a 183x122 table: its markers disagree by centimetres, so every position
    would be off by as much (`detect` printed bases past the table's edge with a warning). It is
    refused, naming the layout, with nothing on stdout."""
    assert main(["detect", str(squad_photo), "--layout", "244x183", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("tablesight detect: the markers are not where --layout says")
    assert err.count("\n") == 1


def test_a_photo_damaged_inside_its_jpeg_is_refused_naming_the_damage(capfd, tmp_path, layout_file,
                                                                       squad_frame):
    """It was detected on, partly grey, exit 0, with a warning that blamed the markers."""
    jpeg = cv2.imencode(".jpg", squad_frame[2].image)[1].tobytes()
    damaged = tmp_path / "damaged.jpg"
    damaged.write_bytes(jpeg[: len(jpeg) * 2 // 3] + b"\xff\xd9")
    assert main(["detect", str(damaged), "--layout", str(layout_file), "--json"]) == 2
    assert _error_line(capfd) == (
        f"tablesight detect: image {damaged} is damaged inside its JPEG data (cut off or garbled by a copy): "
        "part of the picture is lost. copy the photo from the camera again, or take it again."
    )


def test_a_dark_photo_is_detected_with_doctors_warning(capsys, tmp_path, layout_file, squad_frame):
    """Markers still calibrate in it, but bases were missed with nothing said (doctor said why)."""
    dark = tmp_path / "dark.png"
    cv2.imwrite(str(dark), squad_frame[2].image // 8)
    assert main(["detect", str(dark), "--layout", str(layout_file), "--json"]) == 0
    out, err = capsys.readouterr()
    assert "models" in json.loads(out)
    assert "tablesight detect: the picture is dark (mean brightness " in err
    assert "so bases may be missed; light the table evenly from above" in err


def test_a_photo_turned_by_its_exif_tag_is_named_so_not_its_lens(capsys, tmp_path, layout_file, squad_frame):
    """Its stored pixels are the lens calibration's size; the message said to calibrate the lens
    at the turned size."""
    image = squad_frame[2].image
    height, width = image.shape[:2]
    photo = tmp_path / "upright.jpg"
    photo.write_bytes(with_orientation(cv2.imencode(".jpg", image)[1].tobytes(), 6))
    cam = tmp_path / "cam.json"
    cam.write_text(json.dumps({"K": [[1500, 0, width / 2], [0, 1500, height / 2], [0, 0, 1]],
                               "dist": [0] * 5, "image_size": [width, height]}))
    code = main(["detect", str(photo), "--layout", str(layout_file), "--intrinsics", str(cam), "--json"])
    assert code == 2
    assert _error_line(capsys) == (
        f"tablesight detect: image {photo} is stored {width}x{height}, the size the intrinsics are for, "
        f"but is read turned to {height}x{width} by its EXIF orientation tag. remove the tag so the photo is "
        "read as stored (e.g. `exiftool -Orientation=1 -n PHOTO`), or take it holding the camera as for the "
        "lens calibration."
    )


def test_a_thumbnail_is_blamed_on_its_size_not_on_the_markers(capsys, tmp_path, layout_file, squad_frame):
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), cv2.resize(squad_frame[2].image, (64, 48), interpolation=cv2.INTER_AREA))
    assert main(["detect", str(tiny), "--layout", str(layout_file), "--json"]) == 2
    assert _error_line(capsys) == (
        "tablesight detect: the image is only 64x48 pixels: the layout's 10 cm markers would be 3 "
        "pixels across at most, too few to be read. give the photo at the camera's full size."
    )


def test_detect_writes_a_heading_a_hair_under_a_full_turn_as_0_not_360():
    from types import SimpleNamespace

    from models.cli import detection_json
    from models.detections import Bases, Detections, Vehicles

    found = Detections(bases=Bases(np.zeros((0, 2)), np.zeros(0), np.zeros(0)),
                       vehicles=Vehicles(np.array([[100.0, 60.0]]), np.array([20.0]), np.array([10.0]),
                                         np.array([359.998]), np.array([0.9])))
    calibration = SimpleNamespace(marker_ids=[0, 1, 2, 3], rms_mm=0.1, max_mm=0.2)
    assert detection_json("table.jpg", calibration, found)["vehicles"][0]["heading_deg"] == 0.0


def test_a_photo_too_coarse_for_the_bases_is_detected_with_doctors_warning(capsys, tmp_path, layout_file,
                                                                          squad_frame):
    """Half the rig's resolution: a 32 mm base some 14 pixels across, where bases are missed (a
    244 x 183 table in the binned frame); doctor said so, detect did not."""
    image = squad_frame[2].image
    coarse = tmp_path / "coarse.png"
    half = (image.shape[1] // 2, image.shape[0] // 2)
    cv2.imwrite(str(coarse), cv2.resize(image, half, interpolation=cv2.INTER_AREA))
    assert main(["detect", str(coarse), "--layout", str(layout_file), "--json"]) == 0
    out, err = capsys.readouterr()
    assert "models" in json.loads(out)
    assert "tablesight detect: one pixel covers " in err
    assert "so bases may be missed; use the full sensor resolution or lower the camera" in err


def test_a_photo_at_the_rigs_resolution_gets_no_detail_warning(capsys, tmp_path, layout_file, squad_frame):
    photo = tmp_path / "rig.png"
    cv2.imwrite(str(photo), squad_frame[2].image)
    assert main(["detect", str(photo), "--layout", str(layout_file), "--json"]) == 0
    assert "one pixel covers" not in capsys.readouterr().err
