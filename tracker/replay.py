"""Replay a recorded game: the same pipeline on the recorded frames, the same controls at the
same frames, so the same events come out; and the game report the web UI renders.

A damaged recording replays up to its last good frame; the report says where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rules_core.errors import TablesightError
from tracker.game import Game
from tracker.pipeline import Pipeline, build_pipeline
from tracker.recording import Recording, recorded_layout, recorded_lens
from tracker.runner import GameRunner
from tracker.tracks import FrameResult

PipelineFactory = Callable[[dict], Pipeline]


@dataclass
class Replay:
    """What a replay gave: every frame's tracks, the events, the report, and where it stopped."""

    results: list[FrameResult] = field(default_factory=list)
    events: list[dict] = field(default_factory=list)
    recorded_events: list[dict] = field(default_factory=list)
    control_frames: set[int] = field(default_factory=set)  # the frames recorded controls followed
    report: dict = field(default_factory=dict)
    stopped: str = ""
    frames_stopped: str = ""  # where the frames met damage; `stopped` may be earlier damage elsewhere
    damage: str = ""
    problems: list[str] = field(default_factory=list)
    calibrated: bool = False  # some frame was calibrated, so some position was measured
    in_wal_mode: bool = False  # the recording was never closed, so a -wal file belongs with it
    # The recording holds no frame, and no damage stopped its reading: what it is, to refuse it.
    no_frame: TablesightError | None = None

    @property
    def events_match(self) -> bool:
        return _comparable(self.events) == _comparable(self.recorded_events)

    def agreement(self) -> str:
        """How the replayed events compare with the recorded ones, in words.

        A replay stopped by damage ran only the frames before it (or read only the events
        before it), so the two lists can only agree as far as both go; calling them different
        would blame the pipeline for the file.
        """
        if not self.stopped:
            if self.events_match:
                return "the same events as recorded"
            return f"{len(self.events)} events where {len(self.recorded_events)} were recorded (they differ)"
        if not self.events and not self.recorded_events:
            return "no events"
        both = min(len(self.events), len(self.recorded_events))
        same = _comparable(self.events[:both]) == _comparable(self.recorded_events[:both])
        return (
            f"{len(self.events)} events where {len(self.recorded_events)} could be read, "
            + ("the same as far as both go" if same else "differing before the damage")
        )

    def frames_missing(self) -> tuple[int, int] | None:
        """The last frame replayed and the last one the recorded events reach, where they show
        frames missing from the end of the recording (cut off or deleted, its events kept);
        None where they do not.

        That is: the events agree up to the last frame replayed, and some recorded event lies
        past it at a frame no recorded control followed. Past its last frame kept, a whole
        recording holds only events of controls, which carry the frame they followed (one the
        "stills" policy need not keep); a replay applies them at that frame, so it makes no
        event past its last frame at any other, and one recorded there could only have come
        from a frame the file no longer holds. Events that differ within the frames replayed,
        or only in what a control past them made, are left to the detector's version.
        """
        if self.stopped or not self.results:
            return None
        last = self.results[-1].frame
        if _comparable([e for e in self.events if e["frame"] <= last]) != _comparable(
            [e for e in self.recorded_events if e["frame"] <= last]
        ):
            return None
        beyond = [e["frame"] for e in self.recorded_events
                  if e["frame"] > last and e["frame"] not in self.control_frames]
        return (last, max(beyond)) if beyond else None


def _apply(runner: GameRunner, control) -> list[str]:
    """A recorded control; one the replayed game refuses is a problem to report, not a crash."""
    try:
        runner.control(control.action, control.payload, control.frame)
    except TablesightError as error:
        return [f"frame {control.frame}: {control.action} refused: {error}"]
    return []


def _comparable(events: list[dict]) -> list[tuple]:
    return [(e["frame"], e["turn"], e["phase"], e["kind"], e["detail"]) for e in events]


def pipeline_from_manifest(manifest: dict) -> Pipeline:
    """The real pipeline with the layout and lens calibration the game was recorded with."""
    return build_pipeline(recorded_layout(manifest), recorded_lens(manifest))


def game_from_manifest(manifest: dict, log: Callable[[dict], None] | None = None) -> Game:
    table = manifest.get("table") or {"width_cm": 183.0, "depth_cm": 122.0}
    return Game(manifest.get("ruleset", "world-at-fire"), (table["width_cm"], table["depth_cm"]), log=log)


def replay(
    path: str | Path,
    make_pipeline: PipelineFactory = pipeline_from_manifest,
    on_result: Callable[[FrameResult], None] | None = None,
) -> Replay:
    recording = Recording(path)
    out = Replay(recorded_events=recording.events, in_wal_mode=recording.in_wal_mode,
                 control_frames={control.frame for control in recording.controls})
    if not recording.stopped and recording.holds_no_frame():
        out.no_frame = recording.no_frame("replay")
    try:
        runner = GameRunner(
            make_pipeline(recording.manifest), game_from_manifest(recording.manifest, out.events.append)
        )
        controls = list(recording.controls)
        preset = recording.manifest.get("preset")
        for frame in recording.frames():
            while controls and controls[0].frame < frame.index:
                out.problems += _apply(runner, controls.pop(0))
            result = runner.step(frame)
            out.calibrated = out.calibrated or runner.pipeline.calibration is not None
            if preset and result is not None:
                out.problems += runner.apply_preset(preset)
                preset = None
            if result is not None:
                out.results.append(result)
                if on_result is not None:
                    on_result(result)
        if not recording.stopped:
            for control in controls:
                out.problems += _apply(runner, control)
        if out.results and not out.calibrated:
            # A game recorded with another table's layout: it replays, to no game at all.
            why = runner.pipeline.status.message or "no markers found"
            out.problems.append(f"no frame could be calibrated ({why}), so no position was measured")
        out.stopped, out.frames_stopped = recording.stopped, recording.frames_stopped
        out.damage = recording.damage()
        if out.damage:
            out.problems.append(out.damage)
        out.report = {
            **runner.report(),
            "recording": Path(path).name,
            "frames": len(out.results),
            "stopped": out.stopped,
            "problems": out.problems,
            "events": out.events,
        }
    finally:
        recording.close()
    return out


def game_report(path: str | Path) -> dict:
    """The report of a recorded game (the web UI's replay page calls this); a recording that
    holds no frame is refused, as `replay` refuses it, not shown as a game of 0 frames."""
    outcome = replay(path)
    if outcome.no_frame is not None:
        raise outcome.no_frame
    return outcome.report
