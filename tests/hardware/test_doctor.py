from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import Camera, focal_to_fit
from calibration.layout import Layout, load_layout
from calibration.synthetic import render_markers
from hardware import doctor
from hardware.doctor import check_calibration, check_disk, check_model, run_doctor
from tracker.cli import main

DATA = Path(__file__).parent / "data"
SMALL_TABLE = {
    "dictionary": "DICT_4X4_50",
    "table": {"width_cm": 60.0, "depth_cm": 40.0},
    "markers": [
        {"id": 0, "center_cm": [5.0, 5.0], "size_cm": 6.0},
        {"id": 1, "center_cm": [55.0, 5.0], "size_cm": 6.0},
        {"id": 2, "center_cm": [55.0, 35.0], "size_cm": 6.0},
        {"id": 3, "center_cm": [5.0, 35.0], "size_cm": 6.0},
    ],
}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A folder with two photos of a small table seen from 60 cm, and its layout file."""
    root = tmp_path_factory.mktemp("rig")
    layout_path = root / "layout.json"
    layout_path.write_text(json.dumps(SMALL_TABLE))
    layout = load_layout(layout_path)
    size = (1152, 648)
    camera = Camera.looking_at((30.0, 20.0), 60.0, image_size=size,
                               focal_px=focal_to_fit(layout.table_size_cm, 60.0, size))
    folder = root / "frames"
    folder.mkdir()
    for seed in (0, 1):
        rendered = render_markers(camera, layout.table_size_cm, layout.markers_as_synthetic(),
                                  layout.dictionary, seed=seed)
        cv2.imwrite(str(folder / f"frame_{seed}.png"), rendered.image)
    return folder, layout_path


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    folder = tmp_path / "weights"
    folder.mkdir()
    shutil.copy(DATA / "identity.onnx", folder / "detector.onnx")
    return folder


def by_name(report) -> dict:
    return {check.name: check for check in report.checks}


def test_a_ready_rig_passes_every_check(table, weights, tmp_path) -> None:
    folder, layout = table
    report = run_doctor(str(folder), layout, weights_dir=weights, disk_path=tmp_path)
    assert [c.line() for c in report.checks if not c.ok] == []
    assert report.exit_code == 0
    checks = by_name(report)
    assert "1152x648" in checks["Camera"].finding
    assert checks["Markers"].finding == "4 of the layout's 4 markers are in view"
    rms = float(checks["Calibration"].finding.split(" fit to ")[1].split(" mm")[0])
    assert rms < 0.5
    assert "detector.onnx loads" in checks["Detector model"].finding


def test_a_covered_marker_is_named(table, weights, tmp_path) -> None:
    folder, layout = table
    covered = tmp_path / "covered"
    covered.mkdir()
    image = cv2.imread(str(folder / "frame_0.png"))
    camera_px = np.argwhere(image.sum(axis=2) < 60)  # the markers' black squares
    right = camera_px[camera_px[:, 1] > image.shape[1] * 0.75]
    bottom_right = right[right[:, 0] > image.shape[0] * 0.5]
    y0, x0 = bottom_right.min(axis=0)
    y1, x1 = bottom_right.max(axis=0)
    cv2.rectangle(image, (int(x0) - 5, int(y0) - 5), (int(x1) + 5, int(y1) + 5), (200, 180, 170), -1)
    cv2.imwrite(str(covered / "hand.png"), image)
    report = run_doctor(str(covered), layout, weights_dir=weights, disk_path=tmp_path)
    markers = by_name(report)["Markers"]
    assert not markers.ok and markers.finding.endswith("; id 2 is not")
    assert by_name(report)["Calibration"].ok, "three markers still calibrate"
    assert report.exit_code == 1


def test_no_markers_in_view(tmp_path, weights, table) -> None:
    _, layout = table
    blank = tmp_path / "blank"
    blank.mkdir()
    cv2.imwrite(str(blank / "mat.png"), np.full((480, 640, 3), (60, 120, 60), np.uint8))
    report = run_doctor(str(blank), layout, weights_dir=weights, disk_path=tmp_path)
    markers = by_name(report)["Markers"]
    assert not markers.ok and "no layout markers" in markers.finding and "at least 2" in markers.finding
    assert "Calibration" not in by_name(report)
    assert report.exit_code == 1


def test_dark_picture_gets_a_lighting_tip(tmp_path, weights) -> None:
    dark = tmp_path / "dark"
    dark.mkdir()
    cv2.imwrite(str(dark / "night.png"), np.full((480, 640, 3), 15, np.uint8))
    light = by_name(run_doctor(str(dark), weights_dir=weights, disk_path=tmp_path))["Light"]
    assert not light.ok and "dark" in light.finding


def test_missing_camera_cannot_run_but_still_checks_model_and_disk(capsys, tmp_path) -> None:
    assert main(["doctor", "--source", "camera:57"]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith("FAIL Camera: no camera answers at index 57")
    assert any(line.split(":")[0].endswith("Disk") for line in out.splitlines())
    assert err.startswith("tablesight doctor: no camera answers at index 57")


def test_missing_pi_camera(picamera2, capsys) -> None:
    picamera2.rig.reset()
    assert main(["doctor", "--source", "picamera2"]) == 2
    assert "no Raspberry Pi camera found" in capsys.readouterr().err


def test_empty_folder_cannot_run(tmp_path, capsys) -> None:
    assert main(["doctor", "--source", str(tmp_path)]) == 2
    assert "holds no images" in capsys.readouterr().err


def test_bad_layout_cannot_run(tmp_path, capsys) -> None:
    (tmp_path / "layout.json").write_text("{not json")
    assert main(["doctor", "--source", str(tmp_path), "--layout", str(tmp_path / "layout.json")]) == 2
    assert "layout" in capsys.readouterr().err


def test_cli_warnings_exit_1(table, capsys, monkeypatch, tmp_path) -> None:
    folder, _ = table
    monkeypatch.setattr(doctor, "_default_weights_dir", lambda: tmp_path / "none")
    assert main(["doctor", "--source", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "ok   Detector model: no .onnx model in" in out and "the built-in detector" in out
    assert "FIX  Calibration: not checked, because no layout was given. Run doctor with --layout" in out


SMALL_SENSOR = {"Model": "imx708", "sensor": (640, 360), "autofocus": True}


def test_slow_live_camera_is_flagged(picamera2, weights, tmp_path) -> None:
    picamera2.rig.reset(SMALL_SENSOR)
    ticks = iter([0.0, 10.0])
    report = run_doctor("picamera2", frames=3, weights_dir=weights, disk_path=tmp_path,
                        clock=lambda: next(ticks))
    rate = by_name(report)["Frame rate"]
    assert not rate.ok and rate.finding == "only 0.2 frames per second"


def test_camera_that_stalls_during_the_check(picamera2, weights, tmp_path, monkeypatch) -> None:
    from hardware import picamera

    picamera2.rig.reset(SMALL_SENSOR)
    real_read = picamera.PicameraSource.read
    reads = []

    def stalling(self):
        reads.append(1)
        if len(reads) == 3:
            picamera2.rig.sensors[0].delivering = False
        return real_read(self)

    monkeypatch.setattr(picamera.PicameraSource, "read", stalling)
    rate = by_name(run_doctor("picamera2", frames=5, weights_dir=weights, disk_path=tmp_path))["Frame rate"]
    assert not rate.ok and rate.finding.startswith("the camera stopped after 2 frames")


def test_broken_model_file(tmp_path) -> None:
    (tmp_path / "detector.onnx").write_bytes(b"not a model")
    check = check_model(tmp_path)
    assert not check.ok and "detector.onnx does not load" in check.finding


def test_low_disk(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(100e9, 99.5e9, 0.5e9))
    check = check_disk(tmp_path)
    assert not check.ok and check.finding.startswith("only 0.5 GB free")


def test_a_camera_too_low_for_the_table_is_told_to_rise() -> None:
    centres = [[20, 13], [40, 13], [40, 27], [20, 27]]
    markers = [{"id": i, "center_cm": c, "size_cm": 4.0} for i, c in enumerate(centres)]
    inner = {**SMALL_TABLE, "markers": markers}
    layout = Layout.from_dict(inner)
    size = (1152, 648)
    focal = focal_to_fit((48.0, 32.0), 60.0, size, margin=1.0)  # sees 57 x 32 cm of the 60 x 40 table
    camera = Camera.looking_at((30.0, 20.0), 60.0, image_size=size, focal_px=focal)
    markers = layout.markers_as_synthetic()
    image = render_markers(camera, layout.table_size_cm, markers, layout.dictionary).image
    checks = {c.name: c for c in check_calibration(image, layout)}
    assert checks["Calibration"].ok and checks["Markers"].ok
    view = checks["Table in view"]
    assert not view.ok
    assert view.finding == "table corners (0, 0), (60, 0), (60, 40), (0, 40) cm are outside the picture"
    assert "raise or centre the camera" in view.fix
    mm_per_px = 600.0 / focal  # camera height in mm over the focal length in pixels
    assert checks["Detail"].finding.startswith(f"one pixel covers {mm_per_px:.2f} mm")


@pytest.mark.parametrize(("size", "ok"), [((2304, 1296), True), ((1152, 648), False)])
def test_detail_asks_for_more_pixels_only_where_a_base_is_under_20(size: tuple[int, int], ok: bool) -> None:
    """The 183 x 122 table filling a 2304x1296 frame (the Camera Module 3 binned, the size the
    contracts take as an example) is about 1.1 mm a pixel, a 32 mm base 28 pixels across: the
    detector meets its targets there, yet doctor warned (exit 1) on every such rig. At 1152x648
    a base is 14 pixels: it still warns."""
    centres = [[7, 7], [176, 7], [176, 115], [7, 115]]
    markers = [{"id": i, "center_cm": c, "size_cm": 10.0} for i, c in enumerate(centres)]
    table = {"width_cm": 183.0, "depth_cm": 122.0}
    layout = Layout.from_dict({**SMALL_TABLE, "table": table, "markers": markers})
    focal = focal_to_fit(layout.table_size_cm, 180.0, size)
    camera = Camera.looking_at((91.5, 61.0), 180.0, image_size=size, focal_px=focal)
    drawn = layout.markers_as_synthetic()
    image = render_markers(camera, layout.table_size_cm, drawn, layout.dictionary).image
    detail = {c.name: c for c in check_calibration(image, layout)}["Detail"]
    assert detail.ok is ok, detail.finding


def test_a_moved_marker_is_left_out_and_named(table, tmp_path) -> None:
    folder, layout_path = table
    moved = json.loads(layout_path.read_text())
    moved["markers"][1]["center_cm"] = [52.0, 5.0]  # the layout says 3 cm left of where it lies
    layout = Layout.from_dict(moved)
    checks = {c.name: c for c in check_calibration(cv2.imread(str(folder / "frame_0.png")), layout)}
    placement = checks["Marker placement"]
    assert not placement.ok and placement.finding.startswith("id 1 is not where the layout says")
    assert checks["Calibration"].ok, "the other three still calibrate well"


def test_a_missing_lens_calibration_is_named(table, weights, tmp_path) -> None:
    folder, layout = table
    report = run_doctor(str(folder), layout, intrinsics_path=tmp_path / "cam.json", weights_dir=weights,
                        disk_path=tmp_path)
    lens = by_name(report)["Lens calibration"]
    assert not lens.ok and "cam.json not found" in lens.finding
    assert report.exit_code == 1


@pytest.mark.parametrize("frames", ["0", "1", "-3", "ten"])
def test_too_few_frames_to_measure_a_rate_is_refused(capsys, frames) -> None:
    assert main(["doctor", "--source", "camera:57", "--frames", frames]) == 2
    err = capsys.readouterr().err
    assert "argument --frames" in err and "2 or more" in err and err.count("\n") == 1


def test_a_recording_is_checked_like_a_video(capsys) -> None:
    from tracker.session import DEMO_RECORDING

    assert main(["doctor", "--source", str(DEMO_RECORDING), "--frames", "2"]) in (0, 1)
    assert f"ok   Camera: recording {DEMO_RECORDING}, 1920x1080 pixels." in capsys.readouterr().out


def test_a_recording_is_calibrated_with_its_own_layout(capsys) -> None:
    """A recording holds the layout it was made with, and `track` uses it; doctor, given no
    --layout, said "Calibration: not checked, because no layout was given" (exit 1)."""
    from tracker.session import DEMO_RECORDING

    assert main(["doctor", "--source", str(DEMO_RECORDING), "--frames", "2"]) == 0
    assert "ok   Calibration: marker corners fit to" in capsys.readouterr().out


def test_an_empty_tsr_is_named_a_broken_recording_not_a_video(tmp_path, capsys) -> None:
    (tmp_path / "game.tsr").touch()
    assert main(["doctor", "--source", str(tmp_path / "game.tsr")]) == 2
    assert capsys.readouterr().err == (
        f"tablesight doctor: {tmp_path / 'game.tsr'} is not a tablesight recording. "
        "give a .tsr file written by `tablesight record`.\n"
    )


def test_a_broken_image_gets_the_file_fix_not_cable_advice(table, weights, tmp_path, capsys) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    shutil.copy(next(table[0].iterdir()), folder / "a.png")
    (folder / "b.png").write_bytes(b"")
    rate = by_name(run_doctor(str(folder), weights_dir=weights, disk_path=tmp_path))["Frame rate"]
    assert not rate.ok
    assert rate.finding == (f"1 of the 2 images in {folder} was skipped "
                            "(b.png is not an image OpenCV can read)")
    assert rate.fix == "replace those files with good copies and run again for their positions"
    (folder / "a.png").unlink()
    assert main(["doctor", "--source", str(folder)]) == 2
    assert capsys.readouterr().err == (
        f"tablesight doctor: images in {folder} gave no picture (none of the images in {folder} can be read "
        "(b.png is not an image OpenCV can read)). remove or replace those files in the folder.\n"
    )


def test_a_recording_lens_is_kept_when_only_the_layout_is_given(monkeypatch, tmp_path) -> None:
    """`track REC --layout L` keeps the recording's lens calibration; doctor dropped it, so the
    same game was measured without the lens by one command and with it by the other."""
    import sqlite3

    from calibration.intrinsics import Intrinsics
    from tracker.session import DEMO_RECORDING

    lens = Intrinsics(np.array([[1500.0, 0, 960], [0, 1500.0, 540], [0, 0, 1]]), np.zeros(5), (1920, 1080))
    game = tmp_path / "game.tsr"
    shutil.copyfile(DEMO_RECORDING, game)
    with sqlite3.connect(game) as db:
        db.execute("UPDATE manifest SET value = ? WHERE key = 'intrinsics'", (json.dumps(lens.to_dict()),))
    used = []
    monkeypatch.setattr(doctor, "_camera_checks", lambda *args: used.append(args[-1]) or [])
    main(["doctor", "--source", str(game), "--layout", "183x122", "--frames", "2"])
    assert len(used) == 1 and np.array_equal(used[0].K, lens.K)


def test_a_photo_its_exif_tag_turns_is_named_not_sent_to_calibrate_the_lens(table, weights, tmp_path) -> None:
    """doctor said "calibrate the lens at 648x1152" for the camera's own 1152x648 pixels tagged
    as held upright, a lens already measured."""
    from tests.exif import with_orientation

    folder, layout = table
    turned = tmp_path / "turned"
    turned.mkdir()
    jpeg = cv2.imencode(".jpg", cv2.imread(str(folder / "frame_0.png")))[1].tobytes()
    (turned / "frame_0.jpg").write_bytes(with_orientation(jpeg, 6))
    cam = tmp_path / "cam.json"
    cam.write_text(json.dumps({"K": [[900.0, 0, 576], [0, 900.0, 324], [0, 0, 1]], "dist": [0, 0, 0, 0, 0],
                               "image_size": [1152, 648]}))
    report = run_doctor(str(turned), layout, intrinsics_path=cam, weights_dir=weights, disk_path=tmp_path)
    lens = by_name(report)["Lens calibration"]
    assert not lens.ok
    assert "read turned to 648x1152 by its EXIF orientation tag" in lens.finding
    assert "exiftool -Orientation=1" in lens.fix
