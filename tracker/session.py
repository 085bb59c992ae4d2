"""`TableSession`: the live game the web UI shows and controls (see docs/session-contract.md).

One background thread reads frames and drives the `GameRunner`; web threads only read the
cached state and send controls. A lock serialises the two, a Condition wakes long-polling
clients when the state's version moves. A camera that fails does not end the session: the
status says so, the game state stays, and a reconnecting source picks the camera up again.
"""

from __future__ import annotations

import contextlib
import datetime
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2

from hardware.errors import SizeRefused
from hardware.preview import preview_image
from hardware.source import Frame, FrameSource, let_go, passed_over
from rules_core import api as rules
from rules_core.errors import TablesightError
from tracker.game import EVENTS_KEPT
from tracker.recording import (
    Control,
    Recording,
    RecordingSource,
    RecordingWriter,
    holding_frames,
    meant_as_recording,
    recorded_layout,
)
from tracker.replay import game_from_manifest, pipeline_from_manifest
from tracker.runner import GameRunner, RecordPolicy

if TYPE_CHECKING:
    from calibration.intrinsics import Intrinsics

DEMO_RECORDING = Path(__file__).parent / "demo" / "demo.tsr"

# The players' settings a looping replay carries into each fresh game (see TableSession).
CARRIED = frozenset({"setup", "assign", "terrain", "objectives", "deployment", "template", "clear_templates"})
# What each carried setting makes moot when it comes again: the lists sent whole, and the templates
# a clearing took away. Kept, every objectives tap was made again at each loop for ever.
OUTDATES = {"terrain": {"terrain"}, "objectives": {"objectives"}, "deployment": {"deployment"},
            "clear_templates": {"template", "clear_templates"}}

Opener = Callable[[], FrameSource]
_RETRY = object()
RunnerFactory = Callable[[], GameRunner]
Join = Callable[[Any], dict]  # the game's list or settings as they stand -> the payload (`apply`)


class SourceUnavailable(TablesightError):
    """The source could not be opened, told apart from a bad setting (ruleset, layout,
    recordings folder) so `serve` blames the camera only when the camera is at fault."""


# Turn controls that may say the turn and phase they were tapped at (`from`): one is applied
# only while the game is still there, under the lock the pipeline thread takes too, so a double
# tap on Next turn, or two phones' taps at once, takes one step (2 -> 4 and a skipped shooting
# phase before). The contract's form without `from` applies as it always did.
ADVANCES = ("phase", "next_turn", "undo")


def stale_advance(action: str, payload: dict, turn: int, phase: str) -> tuple[dict, dict | None]:
    """The payload without its `from`, and the answer to a turn control the game has already
    moved on from (nothing applied), or None where it is to be applied."""
    if action not in ADVANCES or "from" not in payload:
        return payload, None
    payload = dict(payload)
    came_from = payload.pop("from")  # null: as if left out
    if came_from is None or (came_from.get("turn"), came_from.get("phase")) == (turn, phase):
        return payload, None
    note = (f"The game had already moved on to turn {turn}, {phase} (from turn {came_from.get('turn')}, "
            f"{came_from.get('phase')}), so that tap changed nothing.")
    return payload, {"ok": True, "applied": False, "turn": turn, "phase": phase, "note": note}


class TableSession:
    """The pipeline in one thread, a JSON-ready state for everyone else.

    `open_frames` opens the source (again, after it ended when `loop`); `make_runner` builds a
    fresh pipeline and game (each loop of a replay starts from the recording's beginning).
    `controls` are recorded controls to re-apply while replaying, by frame. When it loops, the
    players' own settings (`CARRIED`) are made again in each fresh game right after the
    recording's preset, in the order they were made: a fresh game each loop took back every
    unit assigned, terrain drawn or template laid on the demo half a minute later, and made
    again only after the frame each followed, the ruleset or the terrain was gone for part of
    every loop. One the fresh game refuses there (a model not yet on the table) is tried after
    its frame. The game's flow (phases, turns, undo) is the recording's own each loop.
    `realtime`: pace frames by their timestamps (a recording plays at the speed it was taken).
    `retry`: a source that fails is reopened every `retry_s` (the game carries on meanwhile);
    without it a failed source ends the session's frames, as an ended one does.
    """

    def __init__(self, open_frames: Opener, make_runner: RunnerFactory, *, description: str,
                 loop: bool = False, realtime: bool = False, retry: bool = False, retry_s: float = 2.0,
                 controls: list | None = None, preset: list[dict] | None = None,
                 on_close: Callable[[], None] | None = None) -> None:
        self._open_frames = open_frames
        self._make_runner = make_runner
        self.description = description
        self.loop = loop
        self._loops = 0  # a looping replay's fresh games so far (status.loop)
        self.realtime = realtime
        self.retry = retry
        self.retry_s = retry_s
        self._recorded_controls = list(controls or [])
        self._players_settings: list[Control] = []
        self._preset = list(preset or [])
        self._on_close = on_close
        self._lock = threading.RLock()
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._source: FrameSource | None = None
        self._letting_go = False  # a player recalibrates: the camera's focus and exposure to be let go
        self.runner = make_runner()
        self._pending_controls = list(self._recorded_controls)
        self._fresh = True  # the preset (and players' settings) are still to be made
        self._camera = {"camera": "ok", "message": ""}
        self._frame: Frame | None = None
        self._jpeg: tuple[int, bytes] | None = None
        self._topdown: tuple[Frame, bytes] | None = None
        self._fps = 0.0
        self._last_tick: float | None = None
        self._version = 0
        self._built = self._stored = 0  # states built, and the last stored's number
        self._state: dict = {}
        self._signature: tuple = ()
        self._publish(force=True)

    # --- the contract ---------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="tablesight-pipeline", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)
            if self._thread.is_alive():  # waiting in read() for a camera that is gone: closing wakes it
                self._close_source()
                self._thread.join(timeout=10)
        with self._lock:
            self._close_source()
            if self._on_close is not None:
                self._on_close()
                self._on_close = None

    def state(self) -> dict:
        with self._changed:
            return self._state

    def wait_for_change(self, version: int, timeout_s: float) -> int:
        with self._changed:
            self._changed.wait_for(lambda: self._version > version, timeout=max(0.0, timeout_s))
            return self._version

    def latest_jpeg(self) -> bytes | None:
        """The phones' live view: at most `PREVIEW_WIDTH` wide (the Pi camera's own small stream
        where it has one). The full frame went to every phone: 179 KB a demo frame rather than 26,
        at 5 frames a second to each of them over the club's Wi-Fi."""
        frame = self._frame
        if frame is None:
            return None
        cached = self._jpeg
        if cached is not None and cached[0] == frame.index:
            return cached[1]
        shown = preview_image(self._source, frame)
        ok, buffer = cv2.imencode(".jpg", shown, [cv2.IMWRITE_JPEG_QUALITY, 80])
        self._jpeg = (frame.index, buffer.tobytes()) if ok else None
        return self._jpeg[1] if self._jpeg else None

    def topdown_jpeg(self) -> bytes | None:
        """The frame shown, seen from above: made once a frame, and kept while the frame is (a
        looping replay's fresh game cannot make it again: see `_restart`)."""
        frame, made = self._frame, self._topdown
        if frame is not None and made is not None and made[0] is frame:
            return made[1]
        calibration = self.runner.pipeline.calibration
        if frame is None or calibration is None or not hasattr(calibration, "rectify"):
            return None
        topdown = calibration.rectify(frame.image, 0.4)
        ok, buffer = cv2.imencode(".jpg", topdown, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return None
        made = self._topdown = (frame, buffer.tobytes())  # read back from the local: threads share it
        return made[1]

    def apply(self, action: str, payload: dict, join: Join | None = None) -> dict:
        """`join`: for terrain, objectives and setup, makes the payload from the game's list or
        settings as they stand (`_as_it_stands`), under the lock the pipeline thread changes the game
        under. A phone's one added piece joined to the list it was last shown lost what the game took
        meanwhile (a recorded control, or a state still to be published); a setting it left out,
        filled from what it was shown, undid another phone's change of a moment before."""
        with self._lock:
            if join is not None:
                payload = join(_as_it_stands(self.runner.game, action))
            payload, stale = stale_advance(action, payload, self.runner.game.turn, self.runner.game.phase)
            if stale is not None:
                return stale
            reply = self.runner.control(action, payload)
            self._letting_go = self._letting_go or action == "recalibrate"
            if self.loop and action in CARRIED:
                result = self.runner.last_result
                followed = result.frame if result is not None else -1
                outdated = OUTDATES.get(action, set())
                self._players_settings = [c for c in self._players_settings if c.action not in outdated]
                self._players_settings.append(Control(followed, action, payload))
        self._publish(force=True)
        return reply

    # --- the pipeline thread ----------------------------------------------------------------

    def _run(self) -> None:
        started = time.monotonic()
        first_t: float | None = None
        while not self._stopping.is_set():
            frame = self._read()
            if frame is _RETRY:
                continue
            if frame is None:
                if self.loop and not self._stopping.is_set():
                    self._restart()
                    started, first_t = time.monotonic(), None
                    continue
                break
            if self.realtime:
                first_t = frame.timestamp_s if first_t is None else first_t
                delay = (frame.timestamp_s - first_t) - (time.monotonic() - started)
                if delay > 0 and self._stopping.wait(delay):
                    break
            with self._lock:
                self._apply_pending_controls(frame.index)
                try:
                    result = self.runner.step(frame)
                except TablesightError:  # the recording failed (a full disk): the game plays on, unrecorded
                    result = None
                    self._signature = ()
                if result is not None and self._fresh:
                    self._set_up()
            if result is not None:
                self._hold_camera()
            self._frame = frame
            if result is not None:
                now = time.monotonic()
                if self._last_tick is not None:
                    rate = 1.0 / max(now - self._last_tick, 1e-3)
                    self._fps = 0.8 * self._fps + 0.2 * rate if self._fps else rate
                self._last_tick = now
            self._publish()

    def _read(self) -> Frame | object | None:
        """The next frame; None when the source has ended (or failed for good); _RETRY after a
        failure that will be retried."""
        try:
            if self._source is None:
                self._source = self._open_frames()
                self._set_camera("ok", "")
            frame = self._source.read()
        except TablesightError as error:
            self._set_camera("lost", f"{error} The game state is kept.")
            self._close_source()
            if not self.retry:
                return None
            self._stopping.wait(self.retry_s)
            return _RETRY
        if frame is None:
            # What the source passed over (a folder's unreadable still) is said where players look.
            # A looping replay starts again at once: "ended", then "not calibrated" until the
            # fresh game's first frame, flashed on the phones at every loop.
            damage = passed_over(self._source)
            if not self.loop:
                # What the game was last told (a calibration that failed: the wrong --layout) stays
                # said: the source's end replaces the pipeline's message on the phones.
                last = self.runner.pipeline.status.message
                said = "".join(f" {part}" for part in (damage, last and f"Before it ended: {last}") if part)
                self._set_camera("ended", f"{self.description} has ended.{said}")
            self._close_source()
        return frame

    def _restart(self) -> None:
        """A fresh game from the recording's start. It has no calibration until it steps its first
        frame, while the last loop's last frame is still the one shown, so while phones look at the
        top-down view that frame's is made first: missing, it was a 503 at every loop of the demo."""
        if self._topdown is not None:
            self.topdown_jpeg()
        with self._lock:
            self.runner = self._make_runner()
            self._pending_controls = list(self._recorded_controls)
            self._fresh = True
            self._loops += 1
        self._set_camera("ok", "")

    def _set_up(self) -> None:
        """After a fresh game's first frame: the recording's preset, then the players' own
        settings; one refused now is tried again after the frame it followed. Stable: a
        player's control made after frame f came before the recorded ones after f, which are
        applied only as frame f + 1 is stepped."""
        self._fresh = False
        if self._preset:
            self.runner.apply_preset(self._preset)
        later = []
        for control in self._players_settings:
            try:
                self.runner.control(control.action, control.payload)
            except TablesightError:
                later.append(control)
        self._pending_controls = sorted(later + self._pending_controls, key=lambda control: control.frame)

    def _apply_pending_controls(self, frame_index: int) -> None:
        while self._pending_controls and self._pending_controls[0].frame < frame_index:
            control = self._pending_controls.pop(0)
            with contextlib.suppress(TablesightError):
                self.runner.control(control.action, control.payload, control.frame)

    def _hold_camera(self) -> None:
        """Focus and exposure locked once calibrated (`GameRunner.hold_camera`, the session's lock
        held around its recorded control alone); let go when a player recalibrates (kept asked for
        while a reconnecting camera is away), to be locked again where they settle. Done on the
        thread that reads the camera; a camera that cannot be locked plays on unlocked."""
        source = self._source
        if source is None:
            return
        try:
            if self._letting_go:
                self._letting_go = not let_go(source)
            else:
                self.runner.hold_camera(source, self._lock)
        except TablesightError:  # a camera failing as it is let go is met by its next read
            pass

    def _close_source(self) -> None:
        if self._source is not None:
            with contextlib.suppress(Exception):
                self._source.close()
            self._source = None

    def _set_camera(self, camera: str, message: str) -> None:
        if self._camera != {"camera": camera, "message": message}:
            self._camera = {"camera": camera, "message": message}
            self._publish(force=True)

    def on_source_status(self, status) -> None:
        """hardware.reconnect's callback: ok / lost / reconnecting, with its sentence."""
        self._set_camera(status.state, "" if status.state == "ok" else status.message)

    # --- state ------------------------------------------------------------------------------

    def _publish(self, force: bool = False) -> None:
        with self._lock:
            runner = self.runner
            result = runner.last_result
            signature = (id(runner), result.frame if result is not None and result.detected else None,
                         result.settled if result is not None else None,
                         tuple(m["visible"] for m in result.models) if result is not None else (),
                         runner.pipeline.status.message, len(runner.game.events))
            if not force and signature == self._signature:
                return
            self._signature = signature
            state = self._build_state()
            self._built += 1
            built = self._built
        with self._changed:
            # Built under the lock but stored outside it: a state the pipeline thread built before
            # a control was applied, stored after the control's, took the control back out of what
            # phones were shown (and what a phone's added objective was joined to) until next frame.
            if built < self._stored:
                return
            self._stored = built
            self._version += 1
            self._state = {**state, "version": self._version}
            self._changed.notify_all()

    def _build_state(self) -> dict:
        runner = self.runner
        game, pipeline = runner.game, runner.pipeline
        calibration = pipeline.calibration
        check, moves = game.verdicts()
        ruleset = rules.load_ruleset(game.ruleset_id)
        result = runner.last_result
        return {
            "status": {"source": self.description, **self._camera, "loop": self._loops,
                       "message": self._camera["message"] or getattr(runner.writer, "error", "")
                       or pipeline.status.message,
                       "settled": bool(result.settled) if result is not None else False,
                       "fps": round(self._fps, 1),
                       "calibration": {"ok": calibration is not None,
                                       "marker_ids": list(getattr(calibration, "marker_ids", []) or []),
                                       "rms_mm": getattr(calibration, "rms_mm", None),
                                       "max_mm": getattr(calibration, "max_mm", None),
                                       "drift": pipeline.status.drift,
                                       "table_cm": _markers_table(calibration),
                                       "detail": _coarse_detail(calibration)}},
            "ruleset": {"id": ruleset.id, "title": ruleset.title, **game.unit(),
                        "premeasure_allowed": bool(getattr(ruleset, "premeasure_allowed", True))},
            "table": dict(game.table), "turn": game.turn, "phase": game.phase, "phases": list(game.phases),
            **game.snapshot(),
            "objectives": game.objectives, "terrain": game.terrain, "deployment": game.deployment,
            "deployment_zones": _zones(game),
            "check": check, "moves": moves,
            "templates": [{k: v for k, v in t.items() if k != "report"} for t in game.templates],
            "events": [{k: v for k, v in e.items() if k != "data"} for e in game.events[-EVENTS_KEPT:]],
        }


def _as_it_stands(game, action: str) -> list[dict] | dict:
    """What `apply`'s `join` is given: the game's list for terrain and objectives; for setup its
    settings, shaped as in the state (`ruleset` with its unit, `table`)."""
    if action == "setup":
        return {"ruleset": {"id": game.ruleset_id, **game.unit()}, "table": dict(game.table)}
    return list(getattr(game, action))


def _zones(game) -> dict:
    if not game.deployment:
        return {}
    try:
        return rules.deployment_zones(rules.parse_scene(game.scene(), allow_off_table=True))
    except TablesightError:
        return {}


def _recording_session(path: Path, *, loop: bool, description: str,
                       make_pipeline=pipeline_from_manifest) -> TableSession:
    recording = Recording(path)
    manifest, controls = recording.manifest, recording.controls
    recording.close()

    def make_runner() -> GameRunner:
        return GameRunner(make_pipeline(manifest), game_from_manifest(manifest))

    return TableSession(lambda: RecordingSource(Recording(path)), make_runner, description=description,
                        loop=loop, realtime=True, controls=controls, preset=manifest.get("preset"))


def _make_recordings_folder(folder: str) -> list[Path]:
    """Before the camera is opened: a folder that cannot be made is a setting to fix, not a
    traceback after the camera started. Returns the folders it made, deepest first, so that a
    session that never starts takes them back (`_take_back`)."""
    path = Path(folder).absolute()
    made = [each for each in (path, *path.parents) if not each.exists()]
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise TablesightError(
            f"cannot use {folder} as the recordings folder ({error.strerror})",
            "give --recordings a folder you can write to",
        ) from None
    return made


def _take_back(made: list[Path]) -> None:
    """A serve that failed to start leaves no empty recordings folder behind (`serve --source
    camera:0 --recordings ~/games` with no camera made ~/games); one something was put in stays."""
    for folder in made:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _markers_table(calibration) -> list[float] | None:
    """The table the markers are laid out for, which the top-down picture shows: the game may be
    set to another (a 122 x 122 game on 183 x 122 markers squeezed the picture on the phones)."""
    layout = getattr(calibration, "layout", None)
    return None if layout is None else list(layout.table_size_cm)


def _coarse_detail(calibration) -> str:
    """The warning `detect` and `track` print when a pixel covers too much table for the detector
    (a 244 x 183 table seen whole by a binned frame is about at the bar), for the players; ""
    when the detail is enough. The phones are where a game on such a rig is watched, so it is
    said there too."""
    from hardware.doctor import check_detail, sentence

    if getattr(calibration, "layout", None) is None:
        return ""
    detail = check_detail(calibration)
    return "" if detail.ok else f"{sentence(detail.bases_missed())}."


def open_session(source_spec: str, layout_path: str | None = None, ruleset: str = "world-at-fire",
                 recordings_dir: str | None = None, intrinsics_path: str | None = None,
                 size: tuple[int, int] | None = None) -> TableSession:
    """A session on a camera, a video, a folder of images or a recording (`tablesight serve`),
    measured through the lens calibration at `intrinsics_path` where given (a recording's own
    otherwise, as `track`), a camera opened at `size` where given."""
    from calibration.intrinsics import load_intrinsics
    from hardware.sources import check_size_for, open_source
    from tracker.pipeline import build_pipeline

    if size is not None:
        check_size_for(source_spec, size)
    lens = load_intrinsics(intrinsics_path) if intrinsics_path else None
    if meant_as_recording(source_spec):
        path = Path(source_spec)
        session = _recording_session(
            path, loop=False, description=f"recording {path.name}",
            make_pipeline=pipeline_from_manifest if lens is None
            else lambda manifest: build_pipeline(recorded_layout(manifest), lens))
        _check_first_frame(source_spec, lens)
        return session
    from calibration.layout import default_layout, load_layout

    layout = load_layout(layout_path) if layout_path else default_layout("183x122")
    rules.load_ruleset(ruleset)
    table = layout.table_size_cm
    made = _make_recordings_folder(recordings_dir) if recordings_dir else []
    holder: dict[str, TableSession] = {}
    try:
        first = open_source(source_spec, reconnect=True, size=size,
                            on_status=lambda status: holder["session"].on_source_status(status)
                            if "session" in holder else None)
    except SizeRefused:  # a camera that is there: its refusal names the sizes it can do
        _take_back(made)
        raise
    except TablesightError as error:
        _take_back(made)
        raise SourceUnavailable(error.problem, error.fix) from None
    live = getattr(first, "live", False)
    try:
        if not live:
            _check_first_frame(source_spec, lens)
        elif lens is not None:
            _first_fitting_frame(first, lens)
    except TablesightError:
        first.close()
        _take_back(made)
        raise
    sources = [first]
    writer = None
    if recordings_dir:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
        writer = RecordingWriter(Path(recordings_dir) / f"game-{stamp}.tsr",
                                 {"layout": layout.to_dict(), "intrinsics": lens.to_dict() if lens else None,
                                  "ruleset": ruleset,
                                  "table": {"width_cm": table[0], "depth_cm": table[1]},
                                  "source": source_spec, "settings": {"mode": "stills", "jpeg_quality": 85}})

    def make_runner():
        from tracker.game import Game

        game = Game(ruleset, table, log=writer.add_event if writer else None)
        return GameRunner(build_pipeline(layout, lens), game, writer=writer, policy=RecordPolicy())

    def close_recording() -> None:
        """A file with nothing in it (no frame came, or the server never started) is not left:
        on the replay page it would only be a game that cannot be opened. Asked of the file, as
        `record` does: the game in memory may hold what never reached it, or miss a control."""
        writer.close()
        if writer.holds_nothing:
            writer.discard()

    session = TableSession(lambda: sources.pop() if sources else open_source(source_spec, reconnect=True,
                                                                               size=size),
                           make_runner, description=first.description, retry=True,
                           on_close=close_recording if writer else None)
    holder["session"] = session
    return session


def _check_first_frame(source_spec: str, lens: Intrinsics | None = None) -> None:
    """A file or folder whose first frame cannot be read never gives one: the session would
    retry it every few seconds and serve an empty table with the reason only on the phones.
    Read once here, from a copy opened for it, so `serve` says it and exits as `track` does;
    so is one none of whose frames fits the `lens` calibration (`_first_fitting_frame`)."""
    from calibration.imagefile import UnfitForLens
    from hardware.sources import open_source

    recorded = meant_as_recording(source_spec)
    if recorded:
        probe = RecordingSource(holding_frames(Recording(source_spec), "serve"))
    else:
        probe = open_source(source_spec)
    try:
        frame = _first_fitting_frame(probe, lens)
    except UnfitForLens:
        raise
    except TablesightError as error:
        if not recorded:  # a folder's error names the file already
            raise
        # as `doctor` says it: the recording's damage alone does not name the file
        raise TablesightError(f"{probe.description} gave no picture ({error.problem})",
                              "use another copy of the recording") from None
    finally:
        probe.close()
    if frame is None:
        raise TablesightError(
            f"{probe.description} holds no frames", "give a video or a folder of photos of the table"
        )


def _first_fitting_frame(source: FrameSource, lens: Intrinsics | None) -> Frame | None:
    """The first frame `source` gives, checked against the `lens` calibration's size as `record`
    and `track` check each: a camera in another mode than the lens was calibrated in would only
    fail to calibrate at every frame, said on the phones alone. A folder's still of another size
    is passed over, as `track` does, unless none fits: then the lens is what is wrong."""
    from calibration.imagefile import UnfitForLens, check_size_for_lens
    from hardware.source import source_file

    unfit = None
    while (frame := source.read()) is not None:
        if lens is None:
            return frame
        path = source_file(source, frame)
        where = str(path) if path is not None else f"frame {frame.index} of {source.description}"
        try:
            check_size_for_lens(lens, frame.image, path, where)
            return frame
        except UnfitForLens as error:
            pass_over = getattr(source, "pass_over", None)
            if pass_over is None or not pass_over(frame, error):
                raise
            unfit = unfit or error
    if unfit is not None:
        raise unfit
    return None


def open_demo_session() -> TableSession:
    """The bundled demo game, replayed in a loop at real time: no camera needed."""
    if not DEMO_RECORDING.exists():
        raise TablesightError(f"the demo recording {DEMO_RECORDING} is missing",
                              "reinstall tablesight, or rebuild it with python -m tracker.demo.make")
    return _recording_session(DEMO_RECORDING, loop=True, description="demo recording")
