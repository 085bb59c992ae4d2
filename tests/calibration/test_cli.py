"""The calibration commands end to end, and every bad input as one line and exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.calibration.conftest import Shot
from tests.calibration.test_layout import SQUARE, layout_data, with_marker
from tests.calibration.test_table import cover
from tracker.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory, straight_shot: Shot) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("cli")
    names = ("table.png", "layout.json", "blank.png", "one.png", "twice.png")
    paths = {name: folder / name for name in names}
    cv2.imwrite(str(paths["table.png"]), straight_shot.image)
    paths["layout.json"].write_text(straight_shot.layout.to_json())
    cv2.imwrite(str(paths["blank.png"]), np.full_like(straight_shot.image, 90))
    cv2.imwrite(str(paths["one.png"]), cover(straight_shot, [0, 1, 2]))
    twice = straight_shot.image.copy()
    box = np.round(straight_shot.camera.project(straight_shot.layout.corners_by_id[3])).astype(int)
    (x0, y0), (x1, y1) = box.min(0) - 25, box.max(0) + 25
    twice[500:500 + y1 - y0, 900:900 + x1 - x0] = twice[y0:y1, x0:x1]
    cv2.imwrite(str(paths["twice.png"]), twice)
    return paths


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_calibrate_then_rectify(files, capsys, tmp_path):
    calib = tmp_path / "calib.json"
    code, out, _ = run(capsys, "calibrate", files["table.png"], "--layout", files["layout.json"], "-o", calib)
    assert code == 0
    assert out.startswith("4 of 4 markers used (0, 1, 2, 3), rms 0.") and out.count("\n") == 1
    data = json.loads(calib.read_text())
    assert data["marker_ids"] == [0, 1, 2, 3] and data["K"] is None and data["rms_mm"] < 0.2
    top = tmp_path / "top.png"
    code, out, _ = run(capsys, "rectify", files["table.png"], "--calibration", calib, "--px-per-mm", "0.5",
                       "-o", top)
    assert code == 0 and cv2.imread(str(top)).shape == (610, 915, 3)


def write(tmp_path: Path, name: str, data: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


MARKER_1 = {"center_cm": [176.0, 7.0], "size_cm": 10.0}
LAYOUT_PROBLEMS = {
    "missing id": (with_marker(1, MARKER_1), "markers.1.id: Field required"),
    "unknown id": (with_marker(1, {"id": 77, **MARKER_1}), "not in DICT_4X4_50"),
    "non-square": (with_marker(0, {"id": 0, "corners_cm": [[2, 2], [12, 2], [12, 15], [2, 15]]}),
                   "not a square"),
    "self-intersecting": (with_marker(0, {"id": 0, "corners_cm": [SQUARE[i] for i in (0, 2, 1, 3)]}),
                          "self-intersecting"),
    "unknown dictionary": (layout_data(dictionary="DICT_4X4_51"), "unknown ArUco dictionary"),
    "three markers": (layout_data(markers=layout_data()["markers"][:3]), "at least 4"),
}


@pytest.mark.parametrize("problem", sorted(LAYOUT_PROBLEMS))
def test_bad_layouts(files, capsys, tmp_path, problem):
    data, message = LAYOUT_PROBLEMS[problem]
    layout = write(tmp_path, "layout.json", data)
    code, _, err = run(capsys, "calibrate", files["table.png"], "--layout", layout, "-o", tmp_path / "c.json")
    assert code == 2
    assert err.startswith(f"tablesight calibrate: layout {layout}") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(("image", "message"), [
    ("missing.png", "not found"),
    ("garbage.png", "cannot read image"),
    ("blank.png", "found no layout markers in the image"),
    ("one.png", "found only marker 3 in the image"),
    ("twice.png", "marker id 3 is seen twice"),
])
def test_bad_images(files, capsys, tmp_path, image, message):
    (tmp_path / "garbage.png").write_bytes(b"not a picture")
    path = files[image] if image in files else tmp_path / image
    code, _, err = run(capsys, "calibrate", path, "--layout", files["layout.json"], "-o", tmp_path / "c.json")
    assert code == 2 and message in err
    assert err.startswith("tablesight calibrate: ") and err.count("\n") == 1


def test_intrinsics_of_the_wrong_image_size(files, capsys, tmp_path, straight_shot):
    cam = write(tmp_path, "cam.json", {"K": straight_shot.camera.K.tolist(), "dist": [0, 0, 0, 0, 0],
                                       "image_size": [4608, 2592]})
    code, _, err = run(capsys, "calibrate", files["table.png"], "--layout", files["layout.json"],
                       "--intrinsics", cam, "-o", tmp_path / "c.json")
    assert code == 2
    assert "intrinsics are for 4608x2592 images but image" in err and "calibrate-lens" in err
    assert err.count("\n") == 1


def test_rectify_with_a_broken_calibration_file(files, capsys, tmp_path):
    calib = write(tmp_path, "calib.json", {"layout": {}})
    code, _, err = run(capsys, "rectify", files["table.png"], "--calibration", calib,
                       "-o", tmp_path / "t.png")
    assert code == 2 and "has no image_size" in err


def test_rectify_given_the_layout_as_its_calibration_says_what_to_make_first(files, capsys, tmp_path):
    """It said "layout.json has no layout", though the file is nothing but one."""
    code, _, err = run(capsys, "rectify", files["table.png"], "--calibration", files["layout.json"],
                       "-o", tmp_path / "t.png")
    assert code == 2 and "is a marker layout, not a calibration" in err and "tablesight calibrate" in err


def test_a_calibration_or_lens_file_given_as_the_layout_is_named_for_what_it_is(files, capsys, tmp_path):
    """The rig's three JSON files look alike in a folder: a calibration given as --layout said
    "dictionary: Field required"."""
    calib = tmp_path / "calib.json"
    assert run(capsys, "calibrate", files["table.png"], "--layout", files["layout.json"], "-o", calib)[0] == 0
    code, _, err = run(capsys, "calibrate", files["table.png"], "--layout", calib, "-o", tmp_path / "c2.json")
    assert code == 2 and f"{calib} is a calibration (`tablesight calibrate`), not a marker layout" in err
    assert "--layout 183x122" in err
    lens = write(tmp_path, "cam.json", {"K": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "dist": [0] * 5,
                                        "image_size": [2304, 1296]})
    code, _, err = run(capsys, "detect", files["table.png"], "--layout", lens, "--json")
    assert code == 2 and f"{lens} is a lens calibration, not a marker layout" in err


@pytest.mark.parametrize("output", ["top.txt", "top", "top.exr"])
def test_rectify_to_a_name_no_image_format_writes(files, capsys, tmp_path, output):
    calib = tmp_path / "calib.json"
    assert run(capsys, "calibrate", files["table.png"], "--layout", files["layout.json"], "-o", calib)[0] == 0
    code, _, err = run(capsys, "rectify", files["table.png"], "--calibration", calib, "-o", tmp_path / output)
    assert code == 2 and "cannot write an image as" in err and "Traceback" not in err
    assert err.startswith("tablesight rectify: ") and err.endswith(".png or .jpg.\n")


def _kept(path: Path, content: bytes, capsys, said: str) -> None:
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1 and "Traceback" not in err
    assert path.read_bytes() == content


@pytest.mark.parametrize("command", ["calibrate", "rectify", "calibrate-lens"])
def test_an_output_that_names_the_input_photo_is_refused(tmp_path, capsys, command):
    """`-o a.jpg` over the photo `a.jpg` replaced the only copy with the JSON (or the top view)."""
    photo = tmp_path / "a.jpg"
    content = b"\xff\xd8\xff\xe0 the only photo of the table"
    photo.write_bytes(content)
    options = {"calibrate": ["--layout", "183x122"], "rectify": ["--calibration", "c.json"],
               "calibrate-lens": []}[command]
    assert main([command, str(photo), *options, "-o", str(photo)]) == 2
    _kept(photo, content, capsys, f"-o {photo} is the input {photo}")


def test_calibrate_does_not_replace_a_file_that_holds_no_json(tmp_path, capsys, files):
    other = tmp_path / "b.jpg"
    content = b"\xff\xd8\xff\xe0 another photo"
    other.write_bytes(content)
    assert main(["calibrate", str(files["table.png"]), "--layout", str(files["layout.json"]),
                 "-o", str(other)]) == 2
    _kept(other, content, capsys, "holds no JSON")


def test_calibrate_does_not_replace_its_own_layout(tmp_path, capsys, files):
    layout = tmp_path / "layout.json"
    layout.write_bytes(files["layout.json"].read_bytes())
    assert main(["calibrate", str(files["table.png"]), "--layout", str(layout), "-o", str(layout)]) == 2
    _kept(layout, files["layout.json"].read_bytes(), capsys, "is the input")


def test_calibrate_writes_over_an_earlier_calibration(tmp_path, capsys, files):
    out = tmp_path / "calib.json"
    out.write_text('{"image_size": [640, 480], "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}')
    assert main(["calibrate", str(files["table.png"]), "--layout", str(files["layout.json"]),
                 "-o", str(out)]) == 0
    assert json.loads(out.read_text())["image_size"] != [640, 480]


@pytest.mark.parametrize("command", ["calibrate", "calibrate-lens"])
def test_an_output_holding_the_users_scene_is_not_replaced(tmp_path, capsys, files, command):
    """`-o scene.json` (a slip of the finger, or a name reused) replaced the player's scene with a
    calibration: only a JSON file of the kind the command writes is written over."""
    scene = tmp_path / "scene.json"
    content = b'{"ruleset": "world-at-fire", "table": {"width_cm": 183, "depth_cm": 122}, "models": []}'
    scene.write_bytes(content)
    options = ["--layout", str(files["layout.json"])] if command == "calibrate" else []
    assert main([command, str(files["table.png"]), *options, "-o", str(scene)]) == 2
    _kept(scene, content, capsys, "holds other JSON than a")


def test_rectify_writes_over_its_own_view_but_not_over_a_photo(tmp_path, capsys, files):
    """`rectify -o p1.jpg` over another photo of the game (not its input) replaced the only copy."""
    calib = tmp_path / "calib.json"
    assert run(capsys, "calibrate", files["table.png"], "--layout", files["layout.json"], "-o", calib)[0] == 0
    photo = tmp_path / "p1.png"
    photo.write_bytes(files["table.png"].read_bytes())
    assert main(["rectify", str(files["table.png"]), "--calibration", str(calib), "-o", str(photo)]) == 2
    _kept(photo, files["table.png"].read_bytes(), capsys, "top-down view of this table")
    top = tmp_path / "top.png"
    for _ in range(2):  # the second run writes over the first's view
        assert main(["rectify", str(files["table.png"]), "--calibration", str(calib), "-o", str(top)]) == 0


def test_an_empty_output_name_is_said_so(capsys, files):
    assert main(["calibrate", str(files["table.png"]), "--layout", str(files["layout.json"]), "-o", ""]) == 2
    assert "-o is empty: it needs a file name" in capsys.readouterr().err


def test_rectify_into_a_folder_says_it_is_a_folder(tmp_path, capsys, files):
    (tmp_path / "top.png").mkdir()
    assert main(["rectify", str(files["table.png"]), "--calibration", "c.json",
                 "-o", str(tmp_path / "top.png")]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err


def test_calibrate_into_a_pipe_writes_only_the_json_there(files):
    """`calibrate ... -o /dev/stdout | jq` read the summary line as the start of the JSON: with the
    output a stream the summary goes to stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "calibrate", str(files["table.png"]), "--layout",
         str(files["layout.json"]), "-o", "/dev/stdout"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["marker_ids"] == [0, 1, 2, 3]
    assert done.stderr.startswith("4 of 4 markers used (0, 1, 2, 3), rms ")


def test_rectify_given_a_lens_calibration_says_which_file_to_give(files, capsys, tmp_path, straight_shot):
    """It said "cam.json has no layout", which sent the user looking for a layout."""
    cam = write(tmp_path, "cam.json", {"K": straight_shot.camera.K.tolist(), "dist": [0, 0, 0, 0, 0],
                                       "image_size": [1920, 1080]})
    code, _, err = run(capsys, "rectify", files["table.png"], "--calibration", cam, "-o", tmp_path / "t.png")
    assert code == 2
    assert err == (
        f"tablesight rectify: {cam} is a lens calibration (from `tablesight calibrate-lens`), not a table "
        "calibration. give the table calibration `tablesight calibrate` writes: tablesight calibrate PHOTO "
        f"--layout LAYOUT.json --intrinsics {cam} -o calib.json.\n"
    )


def test_every_output_may_go_into_a_folder_that_does_not_exist_yet(files, capsys, tmp_path):
    """`markers -o new/markers.pdf` made the folder while `calibrate -o new/calib.json` refused it:
    every `-o` makes the missing folders now, as markers and train did."""
    calib = tmp_path / "calibrations" / "day 1" / "calib.json"
    code, _, err = run(capsys, "calibrate", files["table.png"], "--layout", files["layout.json"], "-o", calib)
    assert code == 0 and json.loads(calib.read_text())["marker_ids"] == [0, 1, 2, 3], err
    outputs = {
        "rectify": [files["table.png"], "--calibration", calib, "--px-per-mm", "0.2"],
        "charuco-board": [],
        "markers": [],
    }
    for command, options in outputs.items():
        made = tmp_path / command / "out" / ("top.png" if command == "rectify" else "sheet.pdf")
        code, _, err = run(capsys, command, *options, "-o", made)
        assert code == 0 and made.stat().st_size > 0, (command, err)


def test_an_output_folder_that_cannot_be_made_is_said_before_the_work(files, capsys, tmp_path):
    """A file on the way (`-o photo.png/calib.json`) leaves no folder to make: said at once, one line."""
    code, _, err = run(capsys, "calibrate", files["table.png"], "--layout", files["layout.json"],
                       "-o", files["table.png"] / "new" / "calib.json")
    assert code == 2 and err.count("\n") == 1
    assert f"{files['table.png']} is a file, not a folder" in err
