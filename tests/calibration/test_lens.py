"""Lens calibration from rendered ChArUco views recovers the lens that rendered them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import Camera
from calibration.lens import BOARD_SQUARES, SQUARE_MM, board_image, calibrate_lens
from calibration.synthetic import Canvas, Look
from rules_core.errors import TablesightError
from tracker.cli import main

ROOT = Path(__file__).resolve().parents[2]
SIZE = (960, 720)
FOCAL = 760.0
DIST = np.array([-0.18, 0.06, 0.0, 0.0, 0.0])


def board_view(tilt_deg: float, towards_deg: float, target_cm: tuple[float, float], seed: int) -> np.ndarray:
    width_cm, depth_cm = (n * SQUARE_MM / 10 for n in BOARD_SQUARES)
    camera = Camera.looking_at(target_cm, 22.0, image_size=SIZE, focal_px=FOCAL, tilt_deg=tilt_deg,
                               tilt_towards_deg=towards_deg, dist=DIST)
    canvas = Canvas(camera, supersample=1)
    canvas.draw_table((width_cm, depth_cm), cv2.cvtColor(board_image(4.0), cv2.COLOR_GRAY2BGR),
                      surround_bgr=(255, 255, 255))
    return canvas.finish(Look(light_gradient=0.1, vignette=0.1, noise_sigma=1.5, jpeg_quality=None),
                         np.random.default_rng(seed))


@pytest.fixture(scope="module")
def views() -> list[np.ndarray]:
    poses = [(35, 0, (10.5, 7.5)), (35, 90, (10.5, 7.5)), (35, 200, (8, 6)), (30, 300, (13, 9)),
             (20, 45, (6, 10)), (40, 150, (14, 5)), (10, 250, (10.5, 7.5))]
    return [board_view(tilt, towards, target, i) for i, (tilt, towards, target) in enumerate(poses)]


def test_calibrate_lens_recovers_focal_length_and_distortion(tmp_path, capsys, views):
    paths = []
    for i, view in enumerate(views):
        paths.append(tmp_path / f"view{i}.png")
        cv2.imwrite(str(paths[-1]), view)
    cam = tmp_path / "cam.json"
    assert main(["calibrate-lens", *map(str, paths), "-o", str(cam)]) == 0
    assert capsys.readouterr().out.startswith(f"{len(views)} of {len(views)} views used")
    data = json.loads(cam.read_text())
    assert data["image_size"] == list(SIZE) and data["rms_px"] < 0.5
    K = np.array(data["K"])
    assert abs(K[0, 0] / FOCAL - 1) < 0.02 and abs(K[1, 1] / FOCAL - 1) < 0.02
    # The fitted lens moves a point far off-centre where the true lens does.
    corner = np.array([[[150.0, 110.0]]])
    fitted = cv2.undistortPoints(corner, K, np.array(data["dist"]), P=K)
    true = cv2.undistortPoints(corner, K, DIST, P=K)
    assert np.abs(fitted - true).max() < 1.0  # of a 23 px distortion there


def test_a_video_of_the_board_works_too(tmp_path, capsys, views):
    video = tmp_path / "sweep.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, SIZE)
    for view in views:
        writer.write(view)
    writer.release()
    cam = tmp_path / "cam.json"
    assert main(["calibrate-lens", str(video), "--wide", "-o", str(cam)]) == 0
    assert "rational model" in capsys.readouterr().out
    data = json.loads(cam.read_text())
    assert len(data["dist"]) == 8 and abs(data["K"][0][0] / FOCAL - 1) < 0.03


def test_a_video_named_in_latin_1_is_read(tmp_path, views):
    """OpenCV takes file names as UTF-8 and died of a segmentation fault on a Latin-1 one (an é
    off an older system's stick), with no word at all."""
    video = tmp_path / "sweep.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, SIZE)
    for view in views:
        writer.write(view)
    writer.release()
    latin = os.fsencode(tmp_path) + b"/balay\xe9.avi"
    os.rename(video, latin)
    cam = tmp_path / "cam.json"
    run = ("import os, sys; from tracker.cli import main\n"
           "video = os.fsdecode(sys.argv[1].encode('latin-1'))\n"
           "sys.exit(main(['calibrate-lens', video, '-o', sys.argv[2]]))")
    # In a child: the crash this guards against would take the test run down with it.
    done = subprocess.run([sys.executable, "-c", run, latin.decode("latin-1"), str(cam)], capture_output=True,
                          text=True, timeout=120, check=False, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert abs(json.loads(cam.read_text())["K"][0][0] / FOCAL - 1) < 0.03


def test_too_few_views_is_a_user_error(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((SIZE[1], SIZE[0]), 128, np.uint8))
    assert main(["calibrate-lens", str(blank), "-o", str(tmp_path / "cam.json")]) == 2
    err = capsys.readouterr().err
    assert "readable in only 0 of 1 views" in err and err.count("\n") == 1


def test_a_missing_board_photo_is_our_line_alone(tmp_path, capfd):
    with pytest.raises(TablesightError, match=r"missing\.jpg not found\. give JPEG/PNG photos"):
        calibrate_lens([tmp_path / "missing.jpg"])
    assert capfd.readouterr().err == ""


def test_a_damaged_board_photo_is_to_be_copied_again(tmp_path, capfd, views):
    """Its fix was "give JPEG/PNG photos of the ChArUco board", for what is one: only a good copy helps."""
    jpeg = cv2.imencode(".jpg", views[0])[1].tobytes()
    damaged = tmp_path / "damaged.jpg"
    damaged.write_bytes(jpeg[: len(jpeg) * 2 // 3] + b"\xff\xd9")
    with pytest.raises(TablesightError) as caught:
        calibrate_lens([damaged])
    assert caught.value.problem.startswith(f"image {damaged} is damaged inside its JPEG data")
    assert caught.value.fix == "copy the photo from the camera again, or take it again"
    assert capfd.readouterr().err == ""
