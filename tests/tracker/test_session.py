import threading
import time
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from hardware.source import Frame
from rules_core.errors import TablesightError
from tests.tracker.flat import (
    BlobDetector,
    GatedFrames,
    TopDownCalibration,
    flat_pipeline,
    game_frames,
    until,
)
from tracker.game import Game
from tracker.pipeline import Pipeline
from tracker.runner import GameRunner
from tracker.session import TableSession


class ListSource:
    description = "test frames"

    def __init__(self, frames, fail_after: int | None = None) -> None:
        self.frames = list(frames)
        self.fail_after = fail_after
        self.read_count = 0

    def read(self):
        if self.fail_after is not None and self.read_count >= self.fail_after:
            raise TablesightError("the test camera stopped delivering frames", "plug it back in")
        self.read_count += 1
        return self.frames.pop(0) if self.frames else None

    def close(self) -> None:
        pass


def run_session(fail_after: int | None = None) -> TableSession:
    session = TableSession(lambda: ListSource(game_frames(), fail_after),
                           lambda: GameRunner(flat_pipeline(), Game()), description="test frames")
    session.start()
    deadline = time.monotonic() + 20
    while session.state()["status"]["camera"] == "ok" and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 0.5)
    return session


@pytest.fixture(scope="module")
def finished() -> TableSession:
    session = run_session()
    yield session
    session.stop()


def test_state_follows_the_contract_schema(finished):
    state = finished.state()
    for key in ("version", "status", "ruleset", "table", "turn", "phase", "phases", "models", "vehicles",
                "objectives", "terrain", "deployment", "deployment_zones", "check", "moves", "templates",
                "events"):
        assert key in state
    assert state["status"]["camera"] == "ended"
    assert sorted(m["id"] for m in state["models"]) == ["m1", "m2", "m3"]
    assert state["models"][0]["side"] is None
    assert finished.latest_jpeg().startswith(b"\xff\xd8")


class CoarseCalibration(TopDownCalibration):
    """The flat game's exact calibration (3 px per cm, 3.3 mm a pixel) with a layout, as a real
    one has: a table seen far too coarsely for the detector."""

    layout = SimpleNamespace(table_size_cm=(183.0, 122.0))


class FineCalibration(CoarseCalibration):
    """The same table at 10 px per cm, 1 mm a pixel: the detail the detector meets its targets at."""

    def table_to_image(self, points_cm):
        return super().table_to_image(points_cm) * (10.0 / 3.0)

    def image_to_table(self, pixels):
        return super().image_to_table(pixels) / (10.0 / 3.0)


def _detail_said(calibration) -> str:
    pipeline = Pipeline(calibrate=lambda image: calibration, detector=BlobDetector())
    session = TableSession(lambda: ListSource(game_frames()), lambda: GameRunner(pipeline, Game()),
                           description="test frames")
    session.start()
    until(session, lambda: session.state()["status"]["calibration"]["ok"])
    detail = session.state()["status"]["calibration"]["detail"]
    session.stop()
    return detail


def test_the_state_says_when_a_pixel_covers_too_much_table_for_the_detector(finished):
    """As `detect` and `track` warn, for the phones; a calibration fine enough says nothing."""
    assert _detail_said(CoarseCalibration()) == (
        "One pixel covers 3.33 mm of table (a 32 mm base is 10 pixels across), so bases may be "
        "missed; use the full sensor resolution or lower the camera.")
    assert _detail_said(FineCalibration()) == ""
    assert finished.state()["status"]["calibration"]["detail"] == ""  # its calibration knows no table


def _status_once_ended(folder, pipeline) -> dict:
    """The status a session on the images in `folder` shows once they have all been played."""
    from hardware.folder import FolderSource

    session = TableSession(lambda: FolderSource(folder), lambda: GameRunner(pipeline, Game()),
                           description=f"images in {folder}")
    session.start()
    deadline = time.monotonic() + 20
    while session.state()["status"]["camera"] == "ok" and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 0.5)
    status = session.state()["status"]
    session.stop()
    return status


def test_a_folder_that_ends_says_which_stills_it_passed_over(tmp_path):
    import cv2

    for frame in game_frames()[:2]:
        cv2.imwrite(str(tmp_path / f"{frame.name}.png"), frame.image)
    (tmp_path / "zz.jpg").write_bytes(b"cut short")
    status = _status_once_ended(tmp_path, flat_pipeline())
    assert status["camera"] == "ended"
    assert status["message"] == (f"images in {tmp_path} has ended. 1 of the 3 images in {tmp_path} was "
                                 "skipped (zz.jpg is not an image OpenCV can read). replace those files with "
                                 "good copies and run again for their positions.")


@pytest.mark.parametrize(("action", "payload"), [
    ("fly", {}),
    ("assign", {"model_ids": ["m99"], "side": "red", "unit": "r1", "type": "infantry"}),
    ("assign", {"model_ids": ["m1"], "side": "red", "unit": "r1", "type": "dragon"}),
    ("assign", {"model_ids": "m1", "side": "red", "unit": "r1", "type": "infantry"}),
    ("phase", {"to": "lunch"}),
    ("reset_model", {"model_id": "m42"}),
    ("template", {"kind": "blast", "x_cm": "here", "y_cm": 3}),
    ("undo", {}),
    ("setup", {"ruleset": "no-such-game", "table": {"width_cm": 183, "depth_cm": 122}}),
])
def test_bad_controls_raise_and_change_nothing(finished, action, payload):
    before = finished.state()
    with pytest.raises(TablesightError):
        finished.apply(action, payload)
    assert finished.state() == before


def test_assign_then_phase_then_undo(finished):
    finished.apply("assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": "infantry"})
    models = {m["id"]: m for m in finished.state()["models"]}
    assert (models["m1"]["side"], models["m1"]["unit"]) == ("red", "red-1")
    assert finished.apply("phase", {"to": "next"})["phase"] == "movement"
    assert finished.apply("undo", {})["phase"] == "deployment"
    assert finished.state()["phase"] == "deployment"


def test_reset_model_puts_it_back_where_the_phase_began():
    session = TableSession(lambda: ListSource(game_frames()[:2]), lambda: GameRunner(flat_pipeline(), Game()),
                           description="test frames")
    session.start()
    session._thread.join(10)
    session.apply("phase", {"to": "movement"})
    for frame in game_frames()[2:7]:
        session.runner.step(frame)
    moved = session.runner.game.pieces["m1"]
    assert (moved["x_cm"], moved["y_cm"]) == (50.0, 44.0)
    reply = session.apply("reset_model", {"model_id": "m1"})
    assert (reply["x_cm"], reply["y_cm"]) == (40.0, 40.0)
    model = next(m for m in session.state()["models"] if m["id"] == "m1")
    assert (model["x_cm"], model["y_cm"]) == (40.0, 40.0)
    session.stop()


def test_a_failing_camera_is_reported_and_the_game_is_kept():
    session = run_session(fail_after=6)
    state = session.state()
    assert state["status"]["camera"] == "lost"
    assert "stopped delivering frames" in state["status"]["message"]
    assert len(state["models"]) == 4
    session.stop()


def test_a_folder_that_ends_still_says_why_its_frames_were_not_calibrated(tmp_path):
    """`serve --source FOLDER --layout` of another table: while the frames ran the phones said the
    calibration failed, and once they ended only "has ended", with calibration off and no reason."""
    import cv2

    from tests.tracker.flat import BlobDetector
    from tracker.pipeline import Pipeline

    def wrong_layout(image):
        raise TablesightError("the markers are not where --layout says", "check --layout")

    for frame in game_frames()[:2]:
        cv2.imwrite(str(tmp_path / f"{frame.name}.png"), frame.image)
    status = _status_once_ended(tmp_path, Pipeline(calibrate=wrong_layout, detector=BlobDetector()))
    assert status["camera"] == "ended" and not status["calibration"]["ok"]
    ended = f"images in {tmp_path} has ended. Before it ended: calibration failed"
    assert status["message"].startswith(ended)
    assert "the markers are not where --layout says" in status["message"]


def test_a_file_whose_first_frame_cannot_be_read_is_refused_at_the_start(tmp_path):
    """Not served with the reason only on the phones, and no empty game left in the folder."""
    from tracker.session import open_session

    broken = tmp_path / "table.jpg"
    broken.write_bytes(b"")
    recordings = tmp_path / "games"
    with pytest.raises(TablesightError, match=r"table.jpg is not an image OpenCV can read"):
        open_session(str(broken), recordings_dir=str(recordings))
    assert not recordings.exists()


def test_a_serve_that_cannot_start_takes_back_the_recordings_folder_it_made(tmp_path):
    """`serve --source camera:0 --recordings ~/games` with no camera left an empty ~/games; a
    folder that was there before stays, as does one something was put in."""
    from tracker.session import open_session

    made = tmp_path / "club" / "games"
    with pytest.raises(TablesightError):
        open_session(str(tmp_path / "no-such-video.mp4"), recordings_dir=str(made))
    assert not (tmp_path / "club").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(TablesightError):
        open_session(str(tmp_path / "no-such-video.mp4"), recordings_dir=str(kept))
    assert kept.is_dir()


@pytest.mark.parametrize(("damage", "said"), [
    ("UPDATE frames SET jpeg = x'00' WHERE idx = (SELECT MIN(idx) FROM frames)",
     "recording game.tsr .*stopped before its first frame: frame 0 is not a readable JPEG"),
    # It asked for a video or a folder of photos, as of a file that never was a recording.
    ("DELETE FROM frames", "game.tsr holds no frame to serve: its frames were deleted or lost"),
])
def test_a_recording_whose_first_frame_cannot_be_read_is_refused_at_the_start(tmp_path, damage, said):
    """Folders were refused so; a .tsr was served, its damage said only on the phones."""
    import sqlite3

    from tracker.session import DEMO_RECORDING, open_session

    game = tmp_path / "game.tsr"
    game.write_bytes(DEMO_RECORDING.read_bytes())
    with sqlite3.connect(game) as db:
        db.execute(damage)
    with pytest.raises(TablesightError, match=said):
        open_session(str(game))


def test_a_session_stopped_before_any_frame_leaves_no_recording(tmp_path):
    """`serve` on a busy port opens the session, then stops it without starting it."""
    import cv2
    import numpy as np

    from tracker.session import open_session

    cv2.imwrite(str(tmp_path / "table.png"), np.full((64, 64, 3), 128, np.uint8))
    recordings = tmp_path / "games"
    session = open_session(str(tmp_path / "table.png"), recordings_dir=str(recordings))
    assert len(list(recordings.glob("*.tsr"))) == 1
    session.stop()
    assert list(recordings.iterdir()) == []


def test_a_session_whose_file_holds_a_control_keeps_it_though_its_game_logged_no_event(tmp_path):
    """Whether a recording is empty is the file's to say: a player's setting committed before any
    frame, that logged nothing in the game, was thrown away with the file."""
    import cv2
    import numpy as np

    from tracker.recording import Recording
    from tracker.session import open_session

    cv2.imwrite(str(tmp_path / "table.png"), np.full((64, 64, 3), 128, np.uint8))
    recordings = tmp_path / "games"
    session = open_session(str(tmp_path / "table.png"), recordings_dir=str(recordings))
    session.runner.writer.add_control(-1, "setup", {"table": {"width_cm": 120, "depth_cm": 120}})
    session.stop()
    (kept,) = recordings.glob("*.tsr")
    assert [c.action for c in Recording(kept).controls] == ["setup"]


def _stepped(session: TableSession) -> int | None:
    result = session.runner.last_result
    return None if result is None else result.frame


def test_a_looping_replay_makes_the_players_settings_again_from_each_loops_first_frame():
    """The demo starts a fresh game every loop: what players set up was taken back, and made
    again only after the frame it followed it was gone for part of every loop. The game's flow
    (a phase ended) is the recording's own in each loop, and the phones see no "ended" between."""
    permits = threading.Semaphore(0)
    session = TableSession(lambda: GatedFrames(permits), lambda: GameRunner(flat_pipeline(), Game()),
                           description="test frames", loop=True)
    first = session.runner
    said: list[str] = []
    set_camera = session._set_camera
    session._set_camera = lambda camera, message: (said.append(camera), set_camera(camera, message))
    session.start()
    try:
        permits.release(3)
        until(session, lambda: _stepped(session) == 2)
        assert session.state()["status"]["loop"] == 0
        red = {"side": "red", "type": "infantry"}
        session.apply("assign", {"model_ids": ["m1", "m2"], "unit": "red-1", **red})
        with pytest.raises(TablesightError):
            session.apply("assign", {"model_ids": ["m99"], "unit": "red-2", **red})
        session.apply("phase", {"to": "movement"})
        # The rest of the first loop (9 frames and its end), then only the second loop's first.
        permits.release(10 + 1)

        def assigned() -> bool:
            # The state published last may still be the first loop's, where m1 was assigned too,
            # while the fresh game is about to step: its phase, the recording's first, tells them apart.
            state = session.state()
            models = {m["id"]: m for m in state["models"]}
            fresh = session.runner is not first and state["phase"] == "deployment"
            return fresh and models.get("m1", {}).get("unit") == "red-1"

        until(session, assigned)
        assert _stepped(session) == 0
        state = session.state()
        models = {m["id"]: m for m in state["models"]}
        assert models["m2"]["unit"] == "red-1" and models["m3"]["unit"] is None
        assert state["phase"] == "deployment"
        assert [e for e in session.runner.game.events if "red-2" in str(e)] == []
        assert "ended" not in said and state["status"]["camera"] == "ok"  # no flash at the loop
        assert state["status"]["loop"] == 1  # but a loop the phones can tell
    finally:
        permits.release(100)
        session.stop()


def test_a_looping_replay_carries_the_last_of_each_whole_list_a_player_sent():
    """Terrain, objectives and the deployment are sent whole each time: every one was kept and made
    again at each loop, and the demo grew 1.2 MB with each objectives tap of a hostile phone."""
    permits = threading.Semaphore(0)
    session = TableSession(lambda: GatedFrames(permits),
                           lambda: GameRunner(flat_pipeline(), Game("combined-arms", (183.0, 122.0))),
                           description="test frames", loop=True)
    session.start()
    try:
        permits.release(2)
        until(session, lambda: _stepped(session) == 1)
        for x in (10.0, 20.0, 30.0):
            session.apply("objectives", {"objectives": [{"id": "o1", "x_cm": x, "y_cm": 40.0}]})
        session.apply("template", {"kind": "grenade", "x_cm": 50.0, "y_cm": 50.0})
        session.apply("clear_templates", {})
        carried = [(c.action, c.payload) for c in session._players_settings]
        assert carried == [("objectives", {"objectives": [{"id": "o1", "x_cm": 30.0, "y_cm": 40.0}]}),
                           ("clear_templates", {})]
    finally:
        permits.release(100)
        session.stop()


def test_phones_are_sent_a_small_live_view_of_a_large_frame():
    """The camera's full 2304x1296 frame went to every phone 5 times a second."""
    big = [Frame(cv2.resize(frame.image, (2304, 1296)), frame.index, frame.timestamp_s, frame.name)
           for frame in game_frames()[:2]]
    session = TableSession(lambda: ListSource(big), lambda: GameRunner(flat_pipeline(), Game()),
                           description="a camera's full frames")
    session.start()
    try:
        until(session, lambda: session.state()["status"]["camera"] == "ended")
        shown = cv2.imdecode(np.frombuffer(session.latest_jpeg(), np.uint8), cv2.IMREAD_COLOR)
    finally:
        session.stop()
    assert shown.shape == (360, 640, 3)
