"""A camera that drops out mid-game, seen through the whole live stack.

A `TableSession` over a `ReconnectingSource` over a scripted camera, all on a simulated clock
(time passes when the camera takes a frame or the reconnect loop sleeps), so a 30 s outage
takes milliseconds. The session's state is sampled at every camera status change, at the
simulated time it happened: the UI must say so within 2 s, be back within 5 s of the camera,
and the game (positions, assignments, phase) must come through untouched.
"""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from hardware.errors import CameraFault
from hardware.reconnect import ReconnectingSource
from hardware.source import Frame
from rules_core.errors import TablesightError
from tests.tracker.flat import PX_PER_CM, TABLE_CM, BlobDetector, flat_pipeline, game_frames
from tracker.game import Game
from tracker.pipeline import Pipeline
from tracker.runner import GameRunner
from tracker.session import TableSession

FPS = 5.0
SAID_WITHIN_S = 2.0
BACK_WITHIN_S = 5.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds
        time.sleep(0.0005)  # let the test thread look in


class Camera:
    """A live camera following `world`: `outage` = (start, end, how) in clock seconds, where how
    is "unplugged" (reads and opens raise), "stalled" (reads return nothing) or "corrupt"
    (frames that are not pictures); `scale` resizes frames after the outage (another mode)."""

    def __init__(self, world: dict, clock: Clock) -> None:
        self.world, self.clock = world, clock
        if self._down("unplugged"):
            raise TablesightError("no camera answers at index 0", "plug it in")
        self.description, self.live = "USB camera 0", True

    def _down(self, how: str) -> bool:
        start, end, kind = self.world["outage"]
        return kind == how and start <= self.clock.now < end

    def read(self) -> Frame | None:
        self.clock.sleep(1.0 / FPS)
        if self._down("unplugged"):
            raise CameraFault("USB camera 0 stopped delivering frames", "check its cable")
        if self._down("stalled"):
            return None
        frames = self.world["frames"]
        image = frames[min(self.world["next"], len(frames) - 1)].image
        self.world["next"] += 1
        if self._down("corrupt"):
            image = np.zeros(image.shape[:2], np.float32)
        elif self.clock.now >= self.world["outage"][1] and self.world.get("scale"):
            image = cv2.resize(image, None, fx=self.world["scale"], fy=self.world["scale"],
                               interpolation=cv2.INTER_AREA)
        return Frame(image, 0, self.clock.now, "live")

    def close(self) -> None:
        pass


class SizedCalibration:
    """The flat test calibration for any frame size: it knows the size it was made for."""

    marker_ids = (0, 1, 2, 3)
    rms_mm = max_mm = 0.0

    def __init__(self, image: np.ndarray) -> None:
        self.image_size = (image.shape[1], image.shape[0])
        self.px_per_cm = image.shape[1] / TABLE_CM[0]

    def table_to_image(self, points_cm):
        return np.asarray(points_cm, dtype=np.float64) * self.px_per_cm

    def image_to_table(self, pixels):
        return np.asarray(pixels, dtype=np.float64) / self.px_per_cm


def sized_pipeline() -> Pipeline:
    return Pipeline(calibrate=SizedCalibration, detector=BlobDetector())


def live_session(world: dict, make_pipeline=flat_pipeline):
    clock = Clock()
    seen: list[tuple[float, str, str, str]] = []  # time, the UI's camera state and sentence, the source's
    holder: dict[str, TableSession] = {}

    def on_status(status) -> None:
        session = holder["session"]
        session.on_source_status(status)
        camera = session.state()["status"]
        seen.append((clock.now, camera["camera"], camera["message"], status.message))

    source = ReconnectingSource(lambda: Camera(world, clock), stall_s=2.0, on_status=on_status,
                                clock=clock, sleep=clock.sleep)
    session = TableSession(lambda: source, lambda: GameRunner(make_pipeline(), Game()),
                           description="USB camera 0", retry=True)
    holder["session"] = session
    return session, clock, seen


def wait_for(condition, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def game_view(session: TableSession) -> dict:
    state = session.state()
    return {"turn": state["turn"], "phase": state["phase"],
            "models": sorted((m["id"], round(m["x_cm"], 1), round(m["y_cm"], 1), m["side"], m["unit"])
                             for m in state["models"])}


def settled_world(outage, **extra) -> dict:
    frames = game_frames()
    return {"frames": frames[:2] * 100, "next": 0, "outage": outage, **extra}


@pytest.mark.parametrize("how", ["unplugged", "stalled", "corrupt"])
@pytest.mark.parametrize("outage_s", [3.0, 30.0])
def test_an_outage_is_shown_within_2_s_and_recovered_within_5_s_with_the_game_intact(how, outage_s):
    start = 6.0
    world = settled_world((start, start + outage_s, how))
    session, clock, seen = live_session(world)
    session.start()
    wait_for(lambda: len(session.state()["models"]) == 4 or clock.now > 4.0)
    session.apply("assign", {"model_ids": ["m1", "m2"], "side": "red", "unit": "red-1", "type": "infantry"})
    session.apply("phase", {"to": "movement"})
    before = game_view(session)
    wait_for(lambda: clock.now > start + outage_s + BACK_WITHIN_S + 1)
    after = game_view(session)
    session.stop()

    lost = [t for t, camera, *_ in seen if camera != "ok"]
    back = [t for t, camera, *_ in seen if camera == "ok" and t > start]
    assert lost and start <= lost[0] <= start + SAID_WITHIN_S + 0.25, seen
    assert back and back[0] <= start + outage_s + BACK_WITHIN_S, seen
    assert all(message for _, camera, message, _ in seen if camera != "ok")
    assert after == before
    assert len(before["models"]) == 4 and before["phase"] == "movement"


def test_a_camera_gone_for_good_leaves_the_service_up_and_saying_so():
    world = settled_world((6.0, float("inf"), "unplugged"))
    session, clock, _ = live_session(world)
    session.start()
    wait_for(lambda: clock.now > 6.0 + 600)  # ten simulated minutes of reconnect attempts
    state = session.state()
    assert state["status"]["camera"] in ("lost", "reconnecting")
    assert "not back yet" in state["status"]["message"]
    assert len(state["models"]) == 4
    reply = session.apply("assign", {"model_ids": ["m3"], "side": "blue", "unit": "b-1", "type": "infantry"})
    assert reply["ok"]
    stopping = time.monotonic()
    session.stop()
    assert time.monotonic() - stopping < 5
    assert not session._thread.is_alive()


def test_a_camera_back_in_another_mode_is_recalibrated_and_pieces_stay_put():
    world = settled_world((6.0, 9.0, "unplugged"), scale=2 / 3)
    session, clock, seen = live_session(world, sized_pipeline)
    session.start()
    wait_for(lambda: len(session.state()["models"]) == 4 or clock.now > 4.0)
    before = game_view(session)
    wait_for(lambda: clock.now > 9.0 + 15.0)  # past the pipeline's 10 s re-detection
    after = game_view(session)
    session.stop()
    width, height = round(TABLE_CM[0] * PX_PER_CM * 2 / 3), round(TABLE_CM[1] * PX_PER_CM * 2 / 3)
    assert any(f"now {width}x{height}" in said for _, camera, _, said in seen if camera == "ok"), seen
    assert session.runner.pipeline.calibration.image_size == (width, height)
    assert len(after["models"]) == 4
    for (mid, x0, y0, *_), (mid_after, x1, y1, *_) in zip(before["models"], after["models"], strict=True):
        assert mid == mid_after and abs(x0 - x1) < 1.0 and abs(y0 - y1) < 1.0


def test_frames_of_another_size_never_use_the_old_calibration():
    pipeline = sized_pipeline()
    frames = game_frames()
    for frame in frames[:2]:
        pipeline.process(frame)
    first = {m["track_id"]: (m["x_cm"], m["y_cm"]) for m in pipeline.process(frames[1]).models}
    small = cv2.resize(frames[1].image, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    for t in range(30):
        result = pipeline.process(Frame(small, 10 + t, 10.0 + t, "small"))
    assert pipeline.calibration.image_size == (small.shape[1], small.shape[0])
    for model in result.models:
        x, y = first[model["track_id"]]
        assert abs(model["x_cm"] - x) < 1.0 and abs(model["y_cm"] - y) < 1.0
