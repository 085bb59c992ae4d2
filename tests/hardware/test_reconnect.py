from __future__ import annotations

import threading

import numpy as np
import pytest

from hardware.errors import CameraFault
from hardware.reconnect import ReconnectingSource, SourceStatus
from hardware.source import Frame
from hardware.sources import open_source
from rules_core.errors import TablesightError


class Clock:
    """Time that passes only when the code under test sleeps or a camera takes a frame."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Camera:
    """A live camera that follows a script shared by all its reopenings.

    The world: `down_until` (clock time) during which opening fails and reading raises;
    `silent` makes reads return None (a stalled stream) without raising.
    """

    opened = 0

    def __init__(self, world: dict, clock: Clock) -> None:
        if clock.now < world["down_until"]:
            raise TablesightError("no camera answers at index 0", "plug it in")
        Camera.opened += 1
        self.world, self.clock = world, clock
        self.description = "USB camera 0"
        self.live = True
        self.index = 0
        self.closed = False

    def read(self) -> Frame | None:
        self.clock.now += 0.05
        if self.clock.now < self.world["down_until"]:
            raise CameraFault("USB camera 0 stopped delivering frames", "check its cable")
        if self.world.get("crash"):
            self.world["crash"] = False
            raise OSError("[Errno 19] No such device")
        if self.world.get("silent"):
            return None
        self.index += 1
        if self.world.get("corrupt"):
            return Frame(np.zeros((6, 8), np.float32), self.index - 1, self.clock.now, "torn")
        w, h = self.world.get("size", (8, 6))
        return Frame(np.zeros((h, w, 3), np.uint8), self.index - 1, self.clock.now, f"f{self.index}")

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def rig():
    clock = Clock()
    world = {"down_until": 0.0}
    statuses: list[SourceStatus] = []
    Camera.opened = 0
    source = ReconnectingSource(
        lambda: Camera(world, clock), stall_s=2.0, first_delay_s=0.25, max_delay_s=4.0,
        on_status=statuses.append, clock=clock, sleep=clock.sleep,
    )
    return source, world, clock, statuses


def test_frames_pass_through_while_the_camera_is_well(rig) -> None:
    source, _, _, statuses = rig
    assert [source.read().index for _ in range(3)] == [0, 1, 2]
    assert source.status.state == "ok" and statuses == []


def test_a_camera_pulled_for_ten_seconds_comes_back_without_read_raising(rig) -> None:
    source, world, clock, statuses = rig
    source.read()
    world["down_until"] = clock.now + 10.0
    frame = source.read()
    assert frame is not None and frame.index == 1, "indices carry on across the reconnect"
    assert clock.now >= world["down_until"]
    states = [s.state for s in statuses]
    assert states[0] == "lost" and "reconnecting" in states and states[-1] == "ok"
    assert statuses[0].message == "USB camera 0 stopped delivering frames"
    assert statuses[-1].message == "USB camera 0 is back"


def test_any_error_from_a_live_camera_is_a_fault_to_recover_from(rig) -> None:
    source, world, _, statuses = rig
    source.read()
    world["crash"] = True
    assert source.read() is not None
    assert statuses[0].message == "USB camera 0 failed: [Errno 19] No such device"
    assert statuses[-1].state == "ok"


def test_backoff_doubles_up_to_its_cap_and_picks_the_camera_up_soon_after_it_returns(rig) -> None:
    source, world, clock, _ = rig
    source.read()
    world["down_until"] = clock.now + 30.0
    source.read()
    assert clock.sleeps[:6] == [0.25, 0.5, 1.0, 2.0, 4.0, 4.0]
    assert max(clock.sleeps) == 4.0
    assert clock.now - world["down_until"] <= 4.0 + 0.1


def test_a_stream_that_stalls_without_failing_is_reopened(rig) -> None:
    source, world, clock, statuses = rig
    source.read()
    world["silent"] = True
    started = clock.now

    def recover(seconds: float) -> None:
        Clock.sleep(clock, seconds)
        if clock.now - started > 2.5:
            world["silent"] = False

    source._sleep = recover
    assert source.read() is not None
    assert statuses[0].state == "lost" and "nothing for 2 s" in statuses[0].message
    assert Camera.opened == 2


def test_corrupt_frames_are_dropped_and_a_camera_sending_only_those_is_reopened(rig) -> None:
    source, world, clock, statuses = rig
    source.read()
    world["corrupt"] = True
    started = clock.now

    def recover(seconds: float) -> None:
        Clock.sleep(clock, seconds)
        if clock.now - started > 2.5:
            world["corrupt"] = False

    source._sleep = recover
    frame = source.read()
    assert frame.image.shape == (6, 8, 3) and frame.image.dtype == np.uint8
    assert source.corrupt_frames > 10
    assert statuses[0].state == "lost" and Camera.opened == 2


def test_the_status_reports_a_new_resolution_after_the_camera_returns(rig) -> None:
    source, world, clock, statuses = rig
    source.read()
    world["down_until"] = clock.now + 1.0
    world["size"] = (16, 12)
    assert source.read().image.shape == (12, 16, 3)
    assert statuses[-1].message == "USB camera 0 is back, now 16x12 (was 8x6)"


def test_close_wakes_a_read_that_waits_for_the_camera() -> None:
    clock = Clock()
    world = {"down_until": float("inf")}
    opened = []

    def opener():
        if opened:
            raise TablesightError("camera 0 missing", "plug it in")
        opened.append(1)
        return Camera({"down_until": 0.0}, clock)

    source = ReconnectingSource(opener, clock=clock, first_delay_s=0.05)
    first = source._inner
    first.world = world
    result: list = []
    reader = threading.Thread(target=lambda: result.append(source.read()))
    reader.start()
    while source.status.state != "reconnecting":
        threading.Event().wait(0.005)
    source.close()
    reader.join(timeout=1.0)
    assert not reader.is_alive() and result == [None]


def test_a_finite_source_still_ends(image_folder) -> None:
    source = open_source(str(image_folder), reconnect=True)
    assert not isinstance(source, ReconnectingSource)
    wrapped = ReconnectingSource(lambda: open_source(str(image_folder)))
    assert [wrapped.read() is not None for _ in range(4)] == [True, True, True, False]


def test_a_bad_file_in_a_finite_source_is_raised_not_retried(tmp_path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"not a jpeg")
    source = ReconnectingSource(lambda: open_source(str(tmp_path)))
    with pytest.raises(TablesightError, match="not an image"):
        source.read()


def test_open_source_wraps_live_cameras_and_reaches_their_own_methods(picamera2) -> None:
    statuses: list[SourceStatus] = []
    source = open_source("picamera2", reconnect=True, on_status=statuses.append, size=(640, 480))
    assert isinstance(source, ReconnectingSource)
    source.read()
    locked = source.lock_exposure()
    picamera2.rig.sensors[0].plugged = False

    def replug(seconds: float) -> None:
        picamera2.rig.sensors[0].plugged = True

    source._sleep = replug
    frame = source.read()
    assert frame.image.shape == (480, 640, 3)
    assert source.metadata["ExposureTime"] == locked["ExposureTime"], "locks survive the reconnect"
    assert [s.state for s in statuses] == ["lost", "reconnecting", "ok"]
    source.close()


def test_the_first_open_still_fails_loudly(picamera2) -> None:
    picamera2.rig.reset()
    with pytest.raises(TablesightError, match="no Raspberry Pi camera"):
        open_source("picamera2", reconnect=True)
