import json
import sqlite3
import time

import cv2
import numpy as np
import pytest

from calibration.layout import default_layout
from rules_core.errors import TablesightError
from tests.exif import with_orientation
from tests.tracker.test_cli import run_into_a_closed_pipe
from tracker.cli import main
from tracker.recording import Recording
from tracker.session import DEMO_RECORDING, open_demo_session


@pytest.fixture(scope="module")
def short_demo(tmp_path_factory):
    """The bundled demo cut to its first three frames: the real pipeline, quickly."""
    path = tmp_path_factory.mktemp("games") / "short.tsr"
    path.write_bytes(DEMO_RECORDING.read_bytes())
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM frames WHERE idx > 2")
        db.execute("DELETE FROM events WHERE frame > 2")
        db.execute("DELETE FROM controls WHERE frame > 1")
    with sqlite3.connect(path) as db:
        db.execute("VACUUM")
    return path


def test_track_prints_contract_json_lines_for_a_folder_of_images(short_demo, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    recording = Recording(short_demo)
    for frame in list(recording.frames())[:2]:
        cv2.imwrite(str(folder / frame.name), frame.image)
    layout = tmp_path / "layout.json"
    layout.write_text(default_layout("183x122").to_json())
    assert main(["track", str(folder), "--layout", str(layout), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["frame"] for line in lines] == [0, 1]
    assert set(lines[0]) == {"frame", "source", "settled", "models", "vehicles"}
    assert len(lines[0]["models"]) >= 15
    assert set(lines[0]["models"][0]) == {"track_id", "x_cm", "y_cm", "diameter_mm", "visible"}
    assert {"track_id", "x_cm", "y_cm", "heading_deg", "visible"} <= set(lines[0]["vehicles"][0])
    assert lines[0]["settled"] and not lines[1]["settled"]  # the demo's second kept frame has a hand
    held = [{k: v for k, v in m.items() if k != "visible"} for m in lines[1]["models"]]
    assert held == [{k: v for k, v in m.items() if k != "visible"} for m in lines[0]["models"]]
    assert not all(m["visible"] for m in lines[1]["models"])


def test_track_goes_on_past_a_still_that_cannot_be_read_and_names_it(short_demo, tmp_path, capsys):
    """A folder run ended at the first photo cut short by its copy, every later one untracked."""
    folder = tmp_path / "frames"
    folder.mkdir()
    for number, frame in enumerate(list(Recording(short_demo).frames())[:2]):
        cv2.imwrite(str(folder / f"still_{2 * number}.png"), frame.image)
    (folder / "still_1.jpg").write_bytes(b"\xff\xd8 cut short")
    layout = tmp_path / "layout.json"
    layout.write_text(default_layout("183x122").to_json())
    assert main(["track", str(folder), "--layout", str(layout), "--json"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["frame"] for line in out.splitlines()] == [0, 2]
    assert err == (f"tablesight track: 1 of the 3 images in {folder} was skipped (still_1.jpg is not an "
                   "image OpenCV can read). replace those files with good copies and run again for their "
                   "positions.\n")


def test_track_into_a_reader_that_went_away_is_quiet(short_demo, tmp_path):
    layout = tmp_path / "layout.json"
    layout.write_text(default_layout("183x122").to_json())
    done = run_into_a_closed_pipe(["track", str(short_demo), "--layout", str(layout), "--json"])
    assert (done.returncode, done.stderr) == (141, "")


def test_replay_writes_the_game_report(short_demo, tmp_path, capsys):
    # Whether the events match depends on the detector being the one the demo was made with;
    # test_record_from_a_folder_then_replay_gives_the_same_events checks that on a fresh recording.
    report = tmp_path / "report.json"
    assert main(["replay", str(short_demo), "--report", str(report)]) == 0
    assert "tablesight replay: 2 frames" in capsys.readouterr().err
    data = json.loads(report.read_text())
    assert data["ruleset"] == "world-at-fire" and data["turns"][0]["phases"][0]["phase"] == "deployment"
    assert any(m["side"] == "red" for m in data["turns"][0]["phases"][-1]["models"])


def test_bad_recording_is_one_line_and_exit_2(tmp_path, capsys):
    bogus = tmp_path / "bogus.tsr"
    bogus.write_text("hello")
    assert main(["replay", str(bogus)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tablesight replay:") and "\n" not in err


def test_record_refuses_bad_settings_before_opening_anything(tmp_path, capsys):
    assert main(["record", "--source", "camera:9", "--layout", "missing.json", "-o", str(tmp_path / "g.tsr"),
                 "--every", "0"]) == 2
    assert "--every" in capsys.readouterr().err


def test_demo_session_shows_the_demo_game():
    session = open_demo_session()
    session.start()
    try:
        deadline = time.monotonic() + 30
        while not session.state()["models"] and time.monotonic() < deadline:
            session.wait_for_change(session.state()["version"], 1.0)
        state = session.state()
        assert state["status"]["source"] == "demo recording"
        assert len(state["models"]) >= 15 and state["vehicles"]
    finally:
        session.stop()


def test_record_from_a_folder_then_replay_gives_the_same_events(short_demo, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    for frame in Recording(short_demo).frames():
        cv2.imwrite(str(folder / frame.name.replace(".jpg", ".png")), frame.image)
    layout = tmp_path / "layout.json"
    layout.write_text(default_layout("183x122").to_json())
    game = tmp_path / "game.tsr"
    assert main(["record", "--source", str(folder), "--layout", str(layout), "-o", str(game)]) == 0
    assert "2 of 2 frames" in capsys.readouterr().err
    recording = Recording(game)
    assert recording.manifest["settings"]["mode"] == "stills" and recording.frame_count() == 2
    assert main(["replay", str(game)]) == 0
    assert "the same events as recorded" in capsys.readouterr().err


def test_a_live_session_records_its_game_into_the_recordings_folder(short_demo, tmp_path):
    from tracker.session import open_session

    folder = tmp_path / "frames"
    folder.mkdir()
    for frame in Recording(short_demo).frames():
        cv2.imwrite(str(folder / frame.name.replace(".jpg", ".png")), frame.image)
    session = open_session(str(folder), recordings_dir=str(tmp_path / "games"))
    session.start()
    deadline = time.monotonic() + 30
    while session.state()["status"]["camera"] != "ended" and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 1.0)
    assert len(session.state()["models"]) >= 15
    session.stop()
    (game,) = (tmp_path / "games").glob("game-*.tsr")
    recording = Recording(game)
    assert recording.frame_count() == 2 and any(e["kind"] == "added" for e in recording.events)


def test_track_of_a_damaged_recording_prints_its_good_frames_then_says_where_it_stopped(
    short_demo, tmp_path, capsys
):
    damaged = tmp_path / "damaged.tsr"
    damaged.write_bytes(short_demo.read_bytes())
    with sqlite3.connect(damaged) as db:
        db.execute("UPDATE frames SET jpeg = x'00ff00' WHERE idx = (SELECT MAX(idx) FROM frames)")
    layout = tmp_path / "layout.json"
    layout.write_text(default_layout("183x122").to_json())
    assert main(["track", str(damaged), "--layout", str(layout), "--json"]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1
    assert err.startswith(
        "tablesight track: recording damaged.tsr failed after 1 frame (stopped after frame 0 "
    )
    assert "not a readable JPEG" in err and err.count("\n") == 1


def lens_file(tmp_path, width: int, height: int):
    """A distortion-free CAM.json for `width`x`height` frames."""
    path = tmp_path / f"cam-{width}x{height}.json"
    path.write_text(json.dumps({"K": [[1500.0, 0, width / 2], [0, 1500.0, height / 2], [0, 0, 1]],
                                "dist": [0.0] * 5, "image_size": [width, height]}))
    return path


def test_track_with_intrinsics_for_another_frame_size_is_one_line_and_exit_2(short_demo, tmp_path, capsys):
    cam = lens_file(tmp_path, 640, 480)
    assert main(["track", str(short_demo), "--layout", "183x122", "--intrinsics", str(cam), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "tablesight track: intrinsics are for 640x480 images but frame 0 of recording short.tsr "
        "is 1920x1080. calibrate the lens at 1920x1080 (`tablesight calibrate-lens`) or capture at 640x480.\n"
    )


def test_record_passes_over_a_still_the_intrinsics_do_not_fit_and_names_it(short_demo, tmp_path, capsys):
    """It ended the recording there (exit 2), as a camera changing mode does: a folder's stray
    preview is passed over and named, as in `track`."""
    folder = tmp_path / "frames"
    folder.mkdir()
    frames = list(Recording(short_demo).frames())
    for frame in frames[:2]:
        cv2.imwrite(str(folder / frame.name.replace(".jpg", ".png")), frame.image)
    cv2.imwrite(str(folder / "zz_smaller.png"), cv2.resize(frames[0].image, (960, 540)))
    game = tmp_path / "game.tsr"
    cam = lens_file(tmp_path, 1920, 1080)
    assert main(["record", "--source", str(folder), "--layout", "183x122", "--intrinsics", str(cam),
                 "-o", str(game)]) == 0
    err = capsys.readouterr().err
    assert "2 of 2 frames" in err
    assert (f"1 of the 3 images in {folder} was skipped (zz_smaller.png is 960x540, not the lens file's "
            "1920x1080). remove the stills of another size from the folder.") in err
    assert Recording(game).frame_count() == 2


def test_a_record_that_recorded_nothing_leaves_no_file_so_the_same_command_works_once_fixed(
    short_demo, tmp_path, capsys
):
    folder = tmp_path / "frames"
    folder.mkdir()
    frame = next(Recording(short_demo).frames())
    cv2.imwrite(str(folder / "a.png"), frame.image)
    game = tmp_path / "game.tsr"
    command = ["record", "--source", str(folder), "--layout", "183x122", "-o", str(game), "--intrinsics"]
    assert main([*command, str(lens_file(tmp_path, 640, 480))]) == 2
    err = capsys.readouterr().err
    assert f"intrinsics are for 640x480 images but {folder / 'a.png'} is 1920x1080" in err
    assert f"no frame recorded, so {game} was not kept" in err
    assert list(tmp_path.glob("game.tsr*")) == []
    assert main([*command, str(lens_file(tmp_path, 1920, 1080))]) == 0
    assert Recording(game).frame_count() == 1


def test_a_recordings_folder_that_cannot_be_made_is_one_line(tmp_path):
    from tracker.session import open_session

    taken = tmp_path / "games"
    taken.write_text("a file where the folder should go")
    with pytest.raises(TablesightError, match=r"cannot use .*games as the recordings folder \(File exists\)"):
        open_session(str(tmp_path), recordings_dir=str(taken))


def _first_frame_broken(short_demo, tmp_path):
    """A recording that opens but whose frames stop before the first: replays nothing, quickly."""
    damaged = tmp_path / "damaged.tsr"
    damaged.write_bytes(short_demo.read_bytes())
    with sqlite3.connect(damaged) as db:
        db.execute("UPDATE frames SET jpeg = x'00ff00' WHERE idx = (SELECT MIN(idx) FROM frames)")
    return damaged


@pytest.mark.parametrize(
    ("report", "named"), [("", "is a folder"), ("game.tsr/report.json", "is a file, not a folder")]
)
def test_a_report_path_that_cannot_be_written_is_refused_before_the_replay(short_demo, tmp_path, capsys,
                                                                          report, named):
    (tmp_path / "game.tsr").write_bytes(b"")
    assert main(["replay", str(short_demo), "--report", str(tmp_path / report)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablesight replay: --report ") and named in err and err.count("\n") == 1
    assert "frames" not in err  # refused before any frame was replayed


def test_a_report_into_a_folder_not_made_yet_is_written_there(short_demo, tmp_path):
    """As every other output of the CLI: the folder is made, not refused after a typo-free path."""
    report = tmp_path / "reports" / "game1" / "report.json"
    assert main(["replay", str(short_demo), "--report", str(report)]) == 0
    assert "events" in json.loads(report.read_text())


def test_a_report_that_fails_to_write_is_one_line_and_leaves_the_old_one(short_demo, tmp_path, capsys,
                                                                         monkeypatch):
    report = tmp_path / "report.json"
    last_good = '{"recording": "game.tsr", "events": [], "the last good": "report"}'
    report.write_text(last_good)

    def full_disk(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("calibration.output_file.os.replace", full_disk)
    assert main(["replay", str(short_demo), "--report", str(report)]) == 2
    err = capsys.readouterr().err
    assert err == f"tablesight replay: cannot write the report {report} (No space left on device). " \
                  "give --report a path in a folder you can write to.\n"
    assert report.read_text() == last_good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_report_named_like_the_players_scene_is_refused(short_demo, tmp_path, capsys):
    """`--report scene.json` replaced the player's scene with the replay's report."""
    scene = tmp_path / "scene.json"
    scene.write_text('{"ruleset": "world-at-fire", "models": []}')
    assert main(["replay", str(short_demo), "--report", str(scene)]) == 2
    err = capsys.readouterr().err
    assert "holds other JSON than a replay report" in err and err.count("\n") == 1
    assert scene.read_text() == '{"ruleset": "world-at-fire", "models": []}'


def test_a_replay_that_stops_early_does_not_write_over_an_existing_report(short_demo, tmp_path, capsys):
    damaged = _first_frame_broken(short_demo, tmp_path)
    report = tmp_path / "report.json"
    good = '{"recording": "game.tsr", "events": [], "the report of": "a good copy"}'
    report.write_text(good)
    assert main(["replay", str(damaged), "--report", str(report)]) == 2  # it replayed nothing
    err = capsys.readouterr().err
    assert f"{damaged}: stopped before its first frame: frame 0 is not a readable JPEG" in err
    assert report.read_text() == good
    with sqlite3.connect(damaged) as db:
        db.execute("UPDATE frames SET jpeg = (SELECT jpeg FROM frames WHERE idx > 0 LIMIT 1) "
                   "WHERE idx = (SELECT MIN(idx) FROM frames)")
        db.execute("UPDATE frames SET jpeg = x'00ff00' WHERE idx = (SELECT MAX(idx) FROM frames)")
    assert main(["replay", str(damaged), "--report", str(report)]) == 1  # it replayed up to the damage
    assert f"{report} was kept: the replay stopped early" in capsys.readouterr().err
    assert report.read_text() == good


def test_a_replay_cut_short_by_damage_compares_events_only_as_far_as_it_ran(short_demo, tmp_path, capsys):
    damaged = tmp_path / "damaged.tsr"
    damaged.write_bytes(short_demo.read_bytes())
    with sqlite3.connect(damaged) as db:
        db.execute("UPDATE frames SET jpeg = x'00ff00' WHERE idx = (SELECT MAX(idx) FROM frames)")
        recorded = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert main(["replay", str(damaged)]) == 1
    summary, where = capsys.readouterr().err.splitlines()
    assert summary.startswith("tablesight replay: 1 frame before the damage, ")
    assert summary.endswith(f" events where {recorded} could be read, the same as far as both go")
    assert where.startswith(f"tablesight replay: {damaged}: stopped after frame 0 (1 frame read)")
    # A recording closed by its recorder (not in WAL mode) never had a -wal file to copy with it.
    assert where.endswith("if the file was copied from another machine, copy it again")


@pytest.mark.parametrize("command", ["track", "record"])
def test_a_tsr_that_is_not_a_recording_is_named_so_not_sent_to_opencv(tmp_path, capsys, command):
    empty = tmp_path / "game.tsr"
    empty.touch()
    argv = [command, str(empty)] if command == "track" else [command, "--source", str(empty)]
    argv += ["--layout", "183x122"] + (["-o", str(tmp_path / "new.tsr")] if command == "record" else [])
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"tablesight {command}: {empty} is not a tablesight recording. "
        "give a .tsr file written by `tablesight record`.\n"
    )


def test_record_into_a_folder_says_it_is_a_folder(short_demo, tmp_path, capsys):
    assert main(["record", "--source", str(short_demo), "--layout", "183x122", "-o", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"tablesight record: {tmp_path} is a folder, not a recording file. "
        f"give a file name for the recording, e.g. {tmp_path / 'game.tsr'}.\n"
    )


def test_a_report_that_names_the_recording_is_refused_before_the_replay(short_demo, tmp_path, capsys):
    """`replay rr.tsr --report rr.tsr` replaced the whole game with its report."""
    game = tmp_path / "rr.tsr"
    game.write_bytes(short_demo.read_bytes())
    assert main(["replay", str(game), "--report", str(game)]) == 2
    err = capsys.readouterr().err
    assert f"--report {game} is the input {game}" in err and err.count("\n") == 1
    assert game.read_bytes() == short_demo.read_bytes()
    other = tmp_path / "other.tsr"
    other.write_bytes(short_demo.read_bytes())
    assert main(["replay", str(game), "--report", str(other)]) == 2
    assert "holds no JSON" in capsys.readouterr().err and other.read_bytes() == short_demo.read_bytes()


def test_a_report_into_a_pipe_is_written_into_it(short_demo, tmp_path, capsys):
    """`--report /dev/stdout` or `/dev/null`: the node is written into, never renamed over (as
    root, `--report /dev/full` turned the device into a 10 KB file)."""
    import os
    import stat
    import threading

    fifo = tmp_path / "report"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main(["replay", str(short_demo), "--report", str(fifo)]) == 0
    reader.join(30)
    assert json.loads(got[0])["frames"] == 2 and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_replay_whose_events_differ_exits_1(short_demo, tmp_path, capsys):
    """Checking the events is the command's job; a difference was exit 0, told from a match only
    in words."""
    game = tmp_path / "other.tsr"
    game.write_bytes(short_demo.read_bytes())
    with sqlite3.connect(game) as db:
        db.execute("INSERT INTO events (frame, t, turn, phase, kind, detail, data) "
                   "VALUES (0, 0.0, 1, 'deployment', 'added', 'a model that never was', '{}')")
    assert main(["replay", str(game)]) == 1
    summary, why = capsys.readouterr().err.splitlines()
    assert summary.endswith("(they differ)")
    assert why.startswith(f"tablesight replay: {game} does not replay to the events it recorded")


def test_track_on_a_recording_uses_its_layout_and_says_when_another_is_given(short_demo, capsys):
    assert main(["track", str(short_demo), "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 2 and err == ""
    assert main(["track", str(short_demo), "--layout", "244x183", "--json"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"tablesight track: --layout 244x183 is not the layout {short_demo} was recorded "
                      "with; leave --layout out to use the recording's")
    assert err[1].startswith(
        "tablesight track: frame 0: calibration failed: the markers are not where --layout says"
    )
    assert err[-1].startswith(f"tablesight track: no frame of {short_demo} could be calibrated")


def test_record_with_a_wrong_layout_keeps_its_frames_and_says_so(short_demo, tmp_path, capsys):
    """A game recorded with another table's layout calibrated no frame: `record` exited 0 with
    frames that replay to no game. It keeps them, says why on its last lines, and exits 2."""
    frames = tmp_path / "frames"
    frames.mkdir()
    with sqlite3.connect(short_demo) as db:
        for index, (jpeg,) in enumerate(db.execute("SELECT jpeg FROM frames ORDER BY idx")):
            (frames / f"f{index:03d}.jpg").write_bytes(jpeg)
    game = tmp_path / "game.tsr"
    assert main(["record", "--source", str(frames), "--layout", "244x183", "-o", str(game)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "the markers are not where --layout says" in err[-2]
    assert err[-1].startswith(f"tablesight record: no frame of {frames} could be calibrated, so the frames")
    assert game.is_file()
    # Replayed, it must say the same, not "the same events as recorded" with an empty game.
    report = tmp_path / "report.json"
    assert main(["replay", str(game), "--report", str(report)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "no frame could be calibrated (calibration failed: the markers are not where --layout" in err[-2]
    assert err[-1].startswith(f"tablesight replay: no frame of {game} could be calibrated, so it replays")
    assert json.loads(report.read_text())["problems"][0].startswith("no frame could be calibrated")


def test_track_without_a_layout_for_a_folder_is_one_line(tmp_path, capsys):
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((48, 64, 3), np.uint8))
    assert main(["track", str(tmp_path), "--json"]) == 2
    assert f"track needs --layout for {tmp_path}" in capsys.readouterr().err


def _video(path, frames: int) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    noise = np.random.default_rng(0)  # frames of some size, so a third of the file holds several
    for _ in range(frames):
        writer.write(noise.integers(0, 255, (48, 64, 3), dtype=np.uint8))
    writer.release()


def test_a_video_cut_off_is_reported_with_how_far_it_got(tmp_path, capsys):
    """A video cut to a third ended with exit 0, as if the game had been that short. (These frames
    hold no markers, so the whole one is refused too, but for that alone.)"""
    whole, cut = tmp_path / "game.avi", tmp_path / "cut.avi"
    _video(whole, 32)
    data = whole.read_bytes()
    cut.write_bytes(data[: len(data) // 3])
    assert main(["track", str(whole), "--layout", "183x122", "--json"]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 32
    assert "ended after" not in err and "could be calibrated" in err.splitlines()[-1]
    assert main(["track", str(cut), "--layout", "183x122", "--json"]) == 2
    out, err = capsys.readouterr()
    read = len(out.splitlines())
    assert 0 < read < 29
    assert f"video file {cut} ended after {read} of the 32 frames its header declares" in err
    assert err.splitlines()[-1].startswith("tablesight track: video file")


def test_a_folder_is_spaced_in_time_by_fps_and_only_a_folder_takes_it(
    short_demo, tmp_path, capsys, monkeypatch
):
    """A folder has no clock: `--fps` says how far apart its frames were (the gate's 2 s of still
    hands and the pipeline's re-detection are in seconds). A video or a recording has its own."""
    import hardware.sources

    folder = tmp_path / "frames"
    folder.mkdir()
    for frame in list(Recording(short_demo).frames())[:2]:
        cv2.imwrite(str(folder / frame.name), frame.image)
    opened = []
    real = hardware.sources.open_source
    def spied(spec, **options):
        opened.append(options)
        return real(spec, **options)

    monkeypatch.setattr(hardware.sources, "open_source", spied)
    layout = tmp_path / "layout.json"
    layout.write_text(default_layout("183x122").to_json())
    assert main(["track", str(folder), "--layout", str(layout), "--json", "--fps", "2"]) == 0
    assert opened == [{"fps": 2.0}] and len(capsys.readouterr().out.splitlines()) == 2
    assert main(["track", str(short_demo), "--json", "--fps", "2"]) == 2
    assert "is not a folder of images" in capsys.readouterr().err
    assert main(["track", str(folder), "--layout", str(layout), "--fps", "0"]) == 2
    assert "fps must be a number above 0" in capsys.readouterr().err


def _frame_damaged_inside(short_demo, tmp_path):
    """A copy whose last frame's JPEG data is cut short but still ends: it decodes, partly grey."""
    damaged = tmp_path / "smeared.tsr"
    damaged.write_bytes(short_demo.read_bytes())
    with sqlite3.connect(damaged) as db:
        index, jpeg = db.execute("SELECT idx, jpeg FROM frames ORDER BY idx DESC LIMIT 1").fetchone()
        smeared = jpeg[: len(jpeg) * 2 // 3] + b"\xff\xd9"
        db.execute("UPDATE frames SET jpeg = ? WHERE idx = ?", (smeared, index))
    return damaged, index


def test_track_names_a_frame_damaged_inside_its_jpeg_in_its_own_words(short_demo, tmp_path, capfd):
    """libjpeg printed "Corrupt JPEG data: premature end of data segment" and track said nothing."""
    damaged, index = _frame_damaged_inside(short_demo, tmp_path)
    assert main(["track", str(damaged), "--json"]) == 0
    out, err = capfd.readouterr()
    assert len(out.splitlines()) == Recording(damaged).frame_count()
    assert err == (f"tablesight track: frame {index} of smeared.tsr is damaged inside its JPEG and was used "
                   "as far as it decodes. a clean copy of the recording gives its exact positions.\n")


def test_replay_names_a_frame_damaged_inside_its_jpeg_and_keeps_it_in_the_report(short_demo, tmp_path, capfd):
    damaged, index = _frame_damaged_inside(short_demo, tmp_path)
    report = tmp_path / "report.json"
    main(["replay", str(damaged), "--report", str(report)])
    err = capfd.readouterr().err
    said = f"frame {index} of smeared.tsr is damaged inside its JPEG and was used as far as it decodes"
    assert f"tablesight replay: {said}\n" in err and "Corrupt JPEG" not in err
    assert said in json.loads(report.read_text())["problems"]


def _stills(short_demo, folder, odd: str | None = None) -> None:
    """The demo's first two frames as still_0.png and still_2.png; `odd` (a half-size preview)
    as still_1.png between them."""
    folder.mkdir()
    frames = list(Recording(short_demo).frames())
    cv2.imwrite(str(folder / "still_0.png"), frames[0].image)
    cv2.imwrite(str(folder / "still_2.png"), frames[1].image)
    if odd:
        cv2.imwrite(str(folder / odd), cv2.resize(frames[1].image, (960, 540)))


def test_track_passes_over_a_still_of_another_size_naming_its_file(short_demo, tmp_path, capsys):
    """One stray preview ended the run with exit 2 at "frame 1 of images in FOLDER" (the file's
    name unsaid), every later still untracked and the note on the others never printed. The note
    then repeated the folder's path in each still's line, and told to replace the stills with good
    copies, which would only bring the preview (or the turned photo) back."""
    folder = tmp_path / "frames"
    _stills(short_demo, folder, odd="still_1.png")
    upright = with_orientation(cv2.imencode(".jpg", cv2.imread(str(folder / "still_2.png")))[1].tobytes(), 6)
    (folder / "still_3.jpg").write_bytes(upright)
    cam = lens_file(tmp_path, 1920, 1080)
    assert main(["track", str(folder), "--layout", "183x122", "--intrinsics", str(cam), "--json"]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["source"] for line in out.splitlines()] == ["still_0.png", "still_2.png"]
    assert err.splitlines()[-1] == (
        f"tablesight track: 2 of the 4 images in {folder} were skipped (still_1.png is 960x540, not the lens "
        "file's 1920x1080, still_3.jpg is turned by its EXIF orientation tag). remove the stills of another "
        "size from the folder; strip the EXIF orientation tag from the turned stills (e.g. `exiftool "
        "-Orientation=1 -n PHOTO`) and run again for their positions."
    )


def test_track_of_a_folder_no_still_of_which_fits_the_lens_blames_the_lens(short_demo, tmp_path, capsys):
    folder = tmp_path / "frames"
    _stills(short_demo, folder)
    cam = lens_file(tmp_path, 640, 480)
    assert main(["track", str(folder), "--layout", "183x122", "--intrinsics", str(cam), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"tablesight track: intrinsics are for 640x480 images but {folder / 'still_0.png'} is 1920x1080. "
        "calibrate the lens at 1920x1080 (`tablesight calibrate-lens`) or capture at 640x480.\n"
    )


def test_track_of_stills_too_coarse_for_the_bases_warns_once_as_detect_does(short_demo, tmp_path, capsys):
    """Half the demo's size: a pixel covers ~2 mm of table, where bases are missed; detect and
    doctor said so, track did not."""
    folder = tmp_path / "coarse"
    folder.mkdir()
    for i, frame in enumerate(list(Recording(short_demo).frames())[:2]):
        half = cv2.resize(frame.image, (960, 540), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(folder / f"still_{i}.png"), half)
    assert main(["track", str(folder), "--layout", "183x122", "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 2
    warnings = [line for line in err.splitlines() if "one pixel covers" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith("tablesight track: frame 0: one pixel covers ")
    assert warnings[0].endswith("so bases may be missed; use the full sensor resolution or lower the camera")


def test_track_of_stills_at_the_rigs_resolution_says_nothing_of_detail(short_demo, tmp_path, capsys):
    folder = tmp_path / "frames"
    _stills(short_demo, folder)
    assert main(["track", str(folder), "--layout", "183x122", "--json"]) == 0
    assert "one pixel covers" not in capsys.readouterr().err
