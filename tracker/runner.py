"""The deterministic heart of a game: frames and controls in, tracks and events out.

Live sessions, `tablesight record` and `tablesight replay` all drive a `GameRunner`, so a
replay is the same code on the same inputs. Two things make that exact: when recording, the
pipeline works on the JPEG-decoded frame that goes into the file (not the raw one), and every
control a player gives is recorded with the frame it followed, and applied at the same point
on replay.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field

import cv2
import numpy as np

from hardware.source import Frame, FrameSource, hold_for_the_game
from rules_core.errors import TablesightError
from tracker.game import Game
from tracker.pipeline import Pipeline
from tracker.recording import RecordingWriter, encode_jpeg
from tracker.tracks import FrameResult


@dataclass(frozen=True)
class RecordPolicy:
    """Which frames go into a recording.

    "stills": every frame while hands are over the table and every frame detection ran on
    (a replay needs exactly those to make the same decisions), else one every `heartbeat_s`.
    "every": every `every`-th frame, and the pipeline only sees those (so replay sees the same).
    """

    mode: str = "stills"
    every: int = 1
    jpeg_quality: int = 85
    heartbeat_s: float = 5.0


@dataclass
class GameRunner:
    pipeline: Pipeline
    game: Game
    writer: RecordingWriter | None = None
    policy: RecordPolicy = field(default_factory=RecordPolicy)
    phases: list[dict] = field(default_factory=list)
    last_result: FrameResult | None = None
    _last_written_s: float = float("-inf")

    def step(self, frame: Frame) -> FrameResult | None:
        """One frame through the pipeline and the game; None when the policy skips it."""
        if self.writer is not None and self.policy.mode == "every" and frame.index % self.policy.every:
            return None
        jpeg = None
        if self.writer is not None:
            jpeg = encode_jpeg(frame.image, self.policy.jpeg_quality)
            image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            frame = Frame(image=image, index=frame.index, timestamp_s=frame.timestamp_s, name=frame.name)
        with self._together():
            result = self.pipeline.process(frame)
            self.game.observe(result)
            if self.writer is not None and jpeg is not None and self._keep(result):
                self.writer.add_frame(frame.index, frame.timestamp_s, frame.name, jpeg)
                self._last_written_s = frame.timestamp_s
        self.last_result = result
        return result

    def hold_camera(self, source: FrameSource,
                    guard: contextlib.AbstractContextManager | None = None) -> None:
        """Once the table is calibrated, lock the camera's focus and exposure and calibrate again
        under the lock, as a recorded control (a replay calibrates where the game did): the first
        calibration was taken while autofocus and auto-exposure still moved. `guard` is held
        around the control alone, not the camera's waits (the live session's lock, which the
        phones' controls take)."""
        if self.pipeline.calibration is not None and hold_for_the_game(source):
            with guard or contextlib.nullcontext():
                self.control("recalibrate", {})

    def _together(self) -> contextlib.AbstractContextManager:
        """A frame or a control is written whole or not at all (see `RecordingWriter.together`)."""
        return self.writer.together() if self.writer is not None else contextlib.nullcontext()

    def _keep(self, result: FrameResult) -> bool:
        if self.policy.mode == "every":
            return True
        return (not result.settled or result.detected
                or result.timestamp_s - self._last_written_s >= self.policy.heartbeat_s)

    def apply_preset(self, preset: list[dict], near_cm: float = 3.0) -> list[str]:
        """A game's setup given by position, not track id: `{"action", "payload"}` items whose
        assign payload names `near_cm` points instead of `model_ids`. Ids depend on what the
        detector found; positions do not, so a preset survives a better detector. Returns the
        problems (a point with no model near it, a control refused), applying all it can.
        It is part of the recording's manifest and applied after the first frame, live and on
        replay alike, so it is not recorded as controls.
        """
        problems = []
        for item in preset:
            action, payload = item["action"], dict(item["payload"])
            if "near_cm" in payload:
                points = payload.pop("near_cm")
                ids = [self._nearest(point, near_cm) for point in points]
                problems += [f"no model near {p}" for p, i in zip(points, ids, strict=True) if i is None]
                payload["model_ids"] = sorted({i for i in ids if i is not None})
            try:
                self.control(action, payload, record=False)
            except TablesightError as error:
                problems.append(str(error))
        return problems

    def _nearest(self, point: list[float], within_cm: float) -> str | None:
        best = min(self.game.pieces.values(), default=None,
                   key=lambda p: (p["x_cm"] - point[0]) ** 2 + (p["y_cm"] - point[1]) ** 2)
        if best is None or np.hypot(best["x_cm"] - point[0], best["y_cm"] - point[1]) > within_cm:
            return None
        return best["track_id"]

    def control(self, action: str, payload: dict, frame: int | None = None, record: bool = True) -> dict:
        """A player's control; validated before anything changes, recorded when it succeeded.

        `frame`: the frame the control followed when it was recorded (replay passes it, so
        the event lands on the same frame as it did live).
        """
        if frame is not None:
            self.game.frame = frame
        if not isinstance(payload, dict):
            raise TablesightError(f"{action}: the payload must be a JSON object", "send {} for no arguments")
        with self._together():
            if action == "recalibrate":
                self.pipeline.request_recalibration()
                reply: dict = {"ok": True}
            else:
                ending = self._phase_record() if action in ("phase", "next_turn") else None
                reply = self.game.apply(action, payload)
                if action == "reset_model":
                    self.pipeline.tracker.place(reply["model_id"], (reply["x_cm"], reply["y_cm"]))
                if ending is not None:
                    self.phases.append(ending)
                if action == "undo" and self.phases:
                    self.phases.pop()
            self.sync_tracker()
            if self.writer is not None and record:
                frame = self.last_result.frame if self.last_result is not None else -1
                self.writer.add_control(frame, action, payload)
        return reply

    def sync_tracker(self) -> None:
        """Units and move allowances from the game steer the tracker's re-association."""
        tracker = self.pipeline.tracker
        tracker.unit_of = {pid: a.unit for pid, a in self.game.assignments.items()}
        tracker.allowance_cm = self.game.allowances_cm()

    def _phase_record(self) -> dict:
        """The phase now ending, as the game report shows it: positions, starts and verdicts."""
        _, moves = self.game.verdicts()
        return {"turn": self.game.turn, "phase": self.game.phase, "t": round(self.game.t, 3),
                "frame": self.game.frame, **copy.deepcopy(self.game.snapshot()),
                "moves": copy.deepcopy(moves)}

    def report(self) -> dict:
        """The game so far as the web UI's report page reads it (see webui/report.py)."""
        turns: dict[int, list[dict]] = {}
        for record in [*self.phases, self._phase_record()]:
            turns.setdefault(record["turn"], []).append({k: v for k, v in record.items() if k != "turn"})
        return {"ruleset": self.game.ruleset_id, **self.game.unit(), "table": self.game.table,
                "terrain": self.game.terrain,
                "objectives": self.game.objectives, "deployment": self.game.deployment,
                "turns": [{"turn": turn, "phases": phases} for turn, phases in sorted(turns.items())]}
