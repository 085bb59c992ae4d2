"""The camera's focus and exposure locked for the game once the table is calibrated.

docs/rig.md told the player to call `lock_focus()` and `lock_exposure()` from Python; no command
did, so a Camera Module 3 kept hunting focus whenever a hand came close, changing the picture's
scale under the calibration.
"""

from __future__ import annotations

from hardware import picamera
from hardware.picamera import PicameraSource
from tests.tracker.flat import flat_pipeline, game_frames, until
from tracker.game import Game
from tracker.runner import GameRunner
from tracker.session import TableSession


def held(source: PicameraSource) -> bool:
    controls = source.controls
    return controls.get("AeEnable") is False and controls.get("AfMode") == picamera.AF_MODE_MANUAL


def test_focus_and_exposure_are_held_once_they_had_time_to_settle(picamera2, monkeypatch) -> None:
    source = PicameraSource(size=(640, 480))
    source.read()
    assert not source.hold_for_the_game() and not held(source), "just started: autofocus still sweeping"
    monkeypatch.setattr(picamera, "SETTLE_S", 0.0)
    assert source.hold_for_the_game() and held(source)
    assert not source.hold_for_the_game(), "held already"
    source.unlock()
    monkeypatch.setattr(picamera, "SETTLE_S", 3.0)
    assert not source.hold_for_the_game() and not held(source), "just let go"
    source.close()


class Counting:
    """flat_pipeline's calibration, counted."""

    def __init__(self) -> None:
        self.pipeline = flat_pipeline()
        self.calls = 0
        calibrate = self.pipeline.calibrate

        def counted(image):
            self.calls += 1
            return calibrate(image)

        self.pipeline.calibrate = counted


def test_a_calibrated_game_holds_the_camera_and_calibrates_again_under_the_lock(
        picamera2, monkeypatch) -> None:
    monkeypatch.setattr(picamera, "SETTLE_S", 0.0)
    source = PicameraSource(size=(640, 480))
    counting = Counting()
    runner = GameRunner(counting.pipeline, Game())
    for _ in range(4):
        runner.step(source.read())
        runner.hold_camera(source)
    assert held(source)
    assert counting.calls == 2, "once on the first frame, once more under the lock"
    source.close()


def test_a_source_without_a_camera_s_controls_is_left_alone() -> None:
    counting = Counting()
    runner = GameRunner(counting.pipeline, Game())
    for frame in game_frames()[:3]:
        runner.step(frame)
        runner.hold_camera(object())
    assert counting.calls == 1


def test_the_table_session_holds_the_camera_and_lets_it_go_when_a_player_recalibrates(
        picamera2, monkeypatch) -> None:
    monkeypatch.setattr(picamera, "SETTLE_S", 0.0)
    opened: list[PicameraSource] = []
    released: list[int] = []

    def open_camera() -> PicameraSource:
        opened.append(PicameraSource(size=(640, 480)))
        return opened[-1]

    unlock = PicameraSource.unlock

    def counted_unlock(self) -> None:
        released.append(1)
        unlock(self)

    monkeypatch.setattr(PicameraSource, "unlock", counted_unlock)
    session = TableSession(open_camera, lambda: GameRunner(flat_pipeline(), Game()),
                           description="a Pi camera")
    session.start()
    try:
        until(session, lambda: bool(opened) and held(opened[0]))
        session.apply("recalibrate", {})
        until(session, lambda: bool(released) and held(opened[0]))
    finally:
        session.stop()
    assert len(opened) == 1


def test_a_monochrome_camera_is_held_without_white_balance(picamera2, monkeypatch) -> None:
    """It has no AwbEnable or ColourGains: locking them raised KeyError in the session's thread,
    which died, and the phones' game froze with the camera still "ok"."""
    picamera2.rig.reset(picamera2.MONO_GLOBAL_SHUTTER)
    monkeypatch.setattr(picamera, "SETTLE_S", 0.0)
    source = PicameraSource()
    source.read()
    assert source.hold_for_the_game()
    assert source.controls["AeEnable"] is False and "AwbEnable" not in source.controls
    source.unlock()
    assert source.controls["AeEnable"] is True and "AwbEnable" not in source.controls
    source.close()


def test_a_camera_that_refuses_to_be_locked_plays_on_unlocked(picamera2, monkeypatch) -> None:
    monkeypatch.setattr(picamera, "SETTLE_S", 0.0)
    opened: list[PicameraSource] = []

    def open_camera() -> PicameraSource:
        opened.append(PicameraSource(size=(640, 480)))
        return opened[-1]

    tries: list[int] = []

    def refuses(self) -> dict:
        tries.append(1)
        raise KeyError("ExposureTime")  # metadata without what the lock reads

    monkeypatch.setattr(PicameraSource, "lock_exposure", refuses)
    session = TableSession(open_camera, lambda: GameRunner(flat_pipeline(), Game()),
                           description="a Pi camera")
    session.start()
    try:
        until(session, lambda: bool(opened) and opened[0]._index > 10)
        assert session._thread.is_alive()
    finally:
        session.stop()
    assert len(tries) == 1, "tried at every frame, each try waiting on the camera"


def test_a_recorded_game_goes_on_when_the_camera_cannot_be_locked(picamera2, monkeypatch) -> None:
    """`record` calls the same hold: a camera's refusal stopped the recording."""
    monkeypatch.setattr(picamera, "SETTLE_S", 0.0)
    tries: list[int] = []

    def refuses(self) -> dict:
        tries.append(1)
        raise RuntimeError("Control ColourGains is not advertised by libcamera")

    monkeypatch.setattr(PicameraSource, "lock_exposure", refuses)
    source = PicameraSource(size=(640, 480))
    runner = GameRunner(flat_pipeline(), Game())
    for _ in range(4):
        runner.step(source.read())
        runner.hold_camera(source)
    assert len(tries) == 1 and not held(source)
    source.unlock()  # a player's Recalibrate: tried again
    runner.step(source.read())
    runner.hold_camera(source)
    assert len(tries) == 2
    source.close()
