"""One frame at a time: source -> calibration (drift-watched) -> motion gate -> detection -> tracks.

The expensive steps run only when they can help: calibration once (again when the drift
watch sees the camera knocked and the markers are in view), detection only on settled frames
where something may have changed. On every other frame the tracker just holds positions and
marks what the hands cover. The same object runs live, in `tablesight track` and in replay,
so a replay of recorded frames gives the same tracks and the same events.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from hardware.source import Frame
from models.detections import Detections
from rules_core.errors import TablesightError
from tracker.appearance import LitFrame, describe, seen
from tracker.cover import Covers
from tracker.lighting import Lighting
from tracker.motion import MotionGate
from tracker.tracking import Tracker
from tracker.tracks import FrameResult, TrackChanges, spot_points

if TYPE_CHECKING:
    from calibration.drift import DriftReport

# A hand resting in view may hold a piece it lifted from anywhere on the table (a player
# weighing a move), so for this long no missing piece is retired: the lifted one was taken for
# a casualty while still in the hand and took a new id when put down. Longer, a piece taken off
# for good must still count as a casualty, even with a player leaning on the table.
HELD_S = 20.0
# A camera seen moved on this many settled frames in a row is calibrated again, and while its
# markers refuse that (a hand on one), tried again this often.
DRIFT_FRAMES = 2
DRIFT_RETRY_S = 2.0
# A calibration whose table lies within this of the last one's (px, anywhere on the table) sees
# the same view: calibrations of one frame darkened to 2-12 % of its light agreed within 0.14 px.
SAME_VIEW_PX = 2.0
# A view moved this little (thumbnail px) the gate compares across as it is (the stills of the
# tracking benchmark shifted by 2-16 px of 2304 settled on the shift's second frame), so a
# recalibration after it starts the gate again only past it: the frame after a new start is
# taken for the settled table, hands and all.
GATE_REACH_PX = 2.0
TOO_DARK = ("the table is too dark or too bright to see its pieces (a light off?); every piece is held "
            "where it was until it can be seen")


class Calibration(Protocol):
    """What the pipeline needs of calibration.table.TableCalibration."""

    marker_ids: list[int]

    def table_to_image(self, points_cm: np.ndarray) -> np.ndarray: ...


class Detector(Protocol):
    def detect(self, image: np.ndarray, calibration: Any) -> Detections: ...


Calibrate = Callable[[np.ndarray], Calibration]
DriftWatchFactory = Callable[[Calibration, np.ndarray], Any]


@dataclass
class PipelineStatus:
    """What the pipeline would tell a user about itself: shown by the web UI and the CLI."""

    calibrated: bool = False
    message: str = ""
    drift: bool = False


class Pipeline:
    """Turns frames into `FrameResult`s; owns the tracker, the gate and the calibration.

    `confirm`: detections run on this many settled frames after a change, so a missed piece
    is only retired when it is missing twice (see Tracker.confirm_missing).
    `redetect_s`: a settled scene is re-detected this often to catch slow changes. It is in
    the frames' own time, not a frame count, so a replay of a stills recording (which skips
    unchanged frames) re-detects on the very frames the live run did.
    """

    def __init__(self, calibrate: Calibrate, detector: Detector, tracker: Tracker | None = None,
                 gate: MotionGate | None = None, drift_watch: DriftWatchFactory | None = None,
                 redetect_s: float = 10.0) -> None:
        self.calibrate = calibrate
        self.detector = detector
        self.tracker = tracker or Tracker()
        self.gate = gate or MotionGate()
        self.drift_watch = drift_watch
        self.redetect_s = redetect_s
        self.calibration: Calibration | None = None
        self.status = PipelineStatus()
        self._watch: Any = None
        self._last_detection_s: float | None = None
        self._recalibrate = False
        self._drift_failed_s: float | None = None  # when a calibration after drift last failed
        self._drifted_frames = 0  # settled frames in a row whose markers moved
        self._in_play: np.ndarray | None = None
        self._handled: np.ndarray | None = None  # where the picture changed while hands were over the table
        self._touched: set[str] = set()
        self._lighting = Lighting()
        self._covers = Covers()
        self._last_seen: LitFrame | None = None  # the last detection's frame: where missing pieces were seen
        self._blind = False  # the last frame showed no marker and calibrated none (see `_unseen`)
        # The frame's px per cm and width a new calibration measured, for the gate's thumbnail.
        self._thumbnail_due: tuple[float, int] | None = None

    def process(self, frame: Frame) -> FrameResult:
        if self._new_image_size(frame.image):
            self.calibration, self.status.calibrated = None, False
            self._new_view()
        watched = self._watch is not None and self.calibration is not None
        markers = self._watch.check(frame.image) if watched else None
        if markers is not None and not markers.markers_seen:
            # No marker looks as it did: the camera was knocked far, or sees nothing (covered,
            # dark, a dead frame). Only a calibration on this frame tells which.
            calibration = self._calibration_of(frame.image)
            if calibration is None:
                return self._unseen(frame)
            if self._same_view(calibration):
                # The markers are where they were, too faint (or blown) for the watch to know
                # them: the light changed, not the camera. Taken for a new view, the gate started
                # again from a frame where every piece was missed, and called the hand that came
                # with the light settled: pieces under it were retired and new ids made.
                self.status.message = TOO_DARK
                return self._unseen(frame)
            self._adopt(calibration, frame.image)
            self._new_view()
            markers = None
        elif self._blind:  # the markers are back as they were: what the failed calibrations said is past
            self._blind, self.status.message = False, ""
        reading = self.gate.observe(frame.image, frame.timestamp_s)
        if self._in_play is not None:  # None after a new view (`_new_view`): no stale thumbnail's shape
            self._in_play |= reading.changed
            if not reading.settled:
                self._handled |= reading.changed
        drifted = reading.settled and markers is not None and self._drifted(markers)
        self._drifted_frames = self._drifted_frames + 1 if drifted else 0
        if self.calibration is None or self._recalibrate:
            self._recalibrate = False
            self._calibrate(frame.image)
        elif drifted:
            moved_px = self._recalibrate_after_drift(frame.image, reading.just_settled, frame.timestamp_s)
            if moved_px is not None and moved_px > GATE_REACH_PX * frame.image.shape[1] / self.gate.width:
                self._new_view()
        if self._thumbnail_due is not None and reading.settled and reading.resting_hand is None:
            # Resized only on a settled frame with no hand: the gate, rebased, takes the frame it
            # is given for the settled table, and one with a hand in it would then be called so.
            if self.gate.fit_to(*self._thumbnail_due):
                self._new_view()
                reading = self.gate.observe(frame.image, frame.timestamp_s)
            self._thumbnail_due = None
        changes = TrackChanges()
        detected = False
        if self.calibration is None:
            self._hold_all()  # a camera back in another mode, not yet calibrated: nothing is seen
        elif not reading.settled:
            # Once under a hand, a piece stays unseen until detection finds it again: it may have
            # been swapped with a look-alike the thumbnail cannot tell apart.
            self._touched.update(self._covered(reading))
            self.tracker.hold(self._touched)
        elif self._should_detect(reading, frame.timestamp_s):
            changes = self._detect(frame.image, frame.timestamp_s, reading)
            detected = True
        else:
            self.tracker.hold(())
        return self._result(frame, reading.settled, changes, detected)

    def _result(self, frame: Frame, settled: bool, changes: TrackChanges, detected: bool) -> FrameResult:
        return FrameResult(
            frame=frame.index, source=frame.name, settled=settled,
            models=[t.to_model_json() for t in self.tracker.models()],
            vehicles=[t.to_vehicle_json() for t in self.tracker.vehicles()],
            changes=changes, timestamp_s=frame.timestamp_s, detected=detected)

    def request_recalibration(self) -> None:
        """A user's request: calibrate again on the next frame (the markers must be in view)."""
        self._recalibrate = True

    def _calibrate(self, image: np.ndarray) -> bool:
        """Calibrate on `image`; False (the old calibration kept, the failure said) when its
        markers do not allow it."""
        calibration = self._calibration_of(image)
        if calibration is None:
            return False
        self._adopt(calibration, image)
        return True

    def _calibration_of(self, image: np.ndarray) -> Calibration | None:
        try:
            return self.calibrate(image)
        except TablesightError as error:
            self.status.message = f"calibration failed: {error}"
            return None

    def _same_view(self, calibration: Calibration) -> bool:
        return _moved_px(self.calibration, calibration) <= SAME_VIEW_PX

    def _adopt(self, calibration: Calibration, image: np.ndarray) -> None:
        self.calibration = calibration
        self._last_detection_s = None  # what the new calibration measures is looked at at once
        self._thumbnail_due = (self._table_px_per_cm(calibration), image.shape[1])
        self.gate.measure(*self._thumbnail_due)  # at its width until a settled frame resizes it
        self.status.calibrated = True
        self._last_seen = None
        self.status.drift = False
        self.status.message = ""
        self._drifted_frames, self._drift_failed_s = 0, None
        self._watch = self.drift_watch(calibration, image) if self.drift_watch else None

    def _recalibrate_after_drift(self, image: np.ndarray, just_settled: bool,
                                 timestamp_s: float) -> float | None:
        """Calibrate again on a settled frame whose markers moved; how far the view moved (px),
        None when not calibrated. Not only as hands leave: a bump of a few pixels with the table
        still (a knee against the rig's leg) unsettles no frame, and every position stayed 2-4 mm
        off until a hand next came and went (a blind check's 3 px bump: 12.6 s). Still, only a
        move seen on `DRIFT_FRAMES` frames in a row: a shake that passes (someone walking by the
        rig) leaves the calibration as it was. A calibration the markers refuse is tried again
        as hands leave or after `DRIFT_RETRY_S`, not on every frame."""
        failed = self._drift_failed_s
        waited = failed is None or timestamp_s - failed >= DRIFT_RETRY_S
        if not just_settled and (self._drifted_frames < DRIFT_FRAMES or not waited):
            return None
        before = self.calibration
        if self._calibrate(image):
            return _moved_px(before, self.calibration)
        self._drift_failed_s = timestamp_s
        return None

    def _new_view(self) -> None:
        """The camera now sees the table from elsewhere (knocked, or back in another mode): its
        pictures before and after cannot be compared, so the gate starts again from the next
        frame and the next detection may find any piece anywhere (moved while it happened)."""
        self.gate.rebase()
        self._in_play = self._handled = None

    def _unseen(self, frame: Frame) -> FrameResult:
        """A frame where no marker looks as it did and none calibrates, or they calibrate where
        they were (too dark to know them): nothing on it can be measured. Every piece is held
        where it was, unseen, and the gate never takes the frame in, so the view coming back is
        compared with the table as last seen: a piece moved meanwhile shows there as a change.
        Detecting on such frames had retired every piece after three black frames, and taken the
        view's return for a hand that never left."""
        self._hold_all()
        self._blind, self._last_detection_s = True, None
        return self._result(frame, False, TrackChanges(), False)

    def _hold_all(self) -> None:
        self.tracker.hold(self.tracker.tracks)

    @staticmethod
    def _table_px_per_cm(calibration: Calibration) -> float:
        """The frame's detail, read over 10 cm at the table's middle: what the gate's thumbnail
        is sized by and its piece sizes are measured in."""
        middle = np.asarray(_table_cm(calibration), dtype=np.float64) / 2
        ends = calibration.table_to_image(np.stack([middle, middle + np.array([10.0, 0.0])]))
        return float(np.linalg.norm(ends[1] - ends[0]) / 10.0)

    def _new_image_size(self, image: np.ndarray) -> bool:
        """A camera that came back in another mode: the old calibration's pixels mean nothing
        there, so it is dropped (pieces are held) until the markers calibrate the new size."""
        size = getattr(self.calibration, "image_size", None)
        return size is not None and tuple(size) != (image.shape[1], image.shape[0])

    def _drifted(self, report: DriftReport) -> bool:
        """The drift report said once as it begins, not on every frame: a recalibration the markers
        refuse says why, and that stays up until one succeeds or the markers are back."""
        if report.drifted and not self.status.drift:
            self.status.message = f"camera moved: {report.reason}; recalibrating"
        elif not report.drifted and self.status.drift:  # a shake that passed: the calibration stands
            self.status.message = ""
        self.status.drift = bool(report.drifted)
        return bool(report.drifted)

    def _should_detect(self, reading, timestamp_s: float) -> bool:
        # A piece missed once is looked for again at once; one missed past that is still a track
        # only because a resting hand may hold it (`HELD_S`), and waits for the gate to see a change.
        pending = (any(0 < t.missed < self.tracker.confirm_missing for t in self.tracker.tracks.values())
                   or any(self.tracker.candidates.values()))
        return (reading.just_settled or reading.pieces_moved or pending or self._last_detection_s is None
                or timestamp_s - self._last_detection_s >= self.redetect_s)

    def _covered(self, reading) -> list[str]:
        tracks = list(self.tracker.tracks.values())
        if not tracks:
            return []
        pixels = self.calibration.table_to_image(np.array([t.xy_cm for t in tracks]))
        covered = reading.covers(pixels)
        return [t.id for t, hidden in zip(tracks, covered, strict=True) if hidden]

    def _detect(self, image: np.ndarray, timestamp_s: float, reading) -> TrackChanges:
        """Detect and associate; only where the picture changed since the last detection may
        pieces move far, vanish or appear (see Tracker.update)."""
        detections = self.detector.detect(image, self.calibration)
        self._last_detection_s = timestamp_s
        bases, vehicles = detections.bases_to_track(), detections.vehicles
        # The inner 60 % of the base: the miniature's paint, not the rim and base top that a
        # whole army shares (measured on benchmark renders: 2.4x the contrast between models).
        light = self._lighting.field(image)
        frame = seen(image, light)
        model_look = self._appearance(frame, bases.xy_cm, 0.6 * bases.diameter_mm / 20.0)
        vehicle_look = self._appearance(frame, vehicles.xy_cm, vehicles.width_cm / 2.0)
        in_play = None
        if self._in_play is not None:
            played = replace(reading, changed=self._in_play)
            in_play = lambda xy: played.covers(self.calibration.table_to_image(xy))  # noqa: E731
        under_hand = None
        if reading.resting_hand is not None:
            under_hand = lambda xy: reading.under_resting_hand(self.calibration.table_to_image(xy))  # noqa: E731
            model_look = _unread_by_hand(model_look, bases.xy_cm, bases.diameter_mm / 20.0, under_hand)
            vehicle_look = _unread_by_hand(vehicle_look, vehicles.xy_cm, vehicles.width_cm / 2.0, under_hand)
        # Where a resting hand just left, the picture is compared with the table before it came: a
        # squad it hid that stood still is seen to have stood still (see `Tracker._stood_still`).
        now_differs = lambda xy: (reading.covers(self.calibration.table_to_image(xy))  # noqa: E731
                                  & ~reading.before_hand(self.calibration.table_to_image(xy)))
        unhanded = None
        if self._in_play is not None:
            handled = replace(reading, changed=self._handled)
            unhanded = lambda xy: ~handled.covers(self.calibration.table_to_image(xy))  # noqa: E731
        covered = lambda tracks: self._covers.covered(  # noqa: E731
            tracks, self._last_seen, frame, self.calibration.table_to_image, self.tracker.models(),
            timestamp_s)
        changes = self.tracker.update(detections, model_look, vehicle_look, in_play, under_hand, now_differs,
                                      unhanded, light.changed(),
                                      hand_holds=under_hand is not None and reading.rested_s < HELD_S,
                                      covered=covered, now_s=timestamp_s)
        self._covers.seen(list(self.tracker.tracks.values()))
        self._last_seen = frame
        self._in_play = np.zeros_like(reading.changed)
        self._handled = np.zeros_like(reading.changed)
        self._touched = set()
        return changes

    def _appearance(self, frame: LitFrame, xy_cm: np.ndarray, radius_cm: np.ndarray) -> list:
        if not len(xy_cm):
            return []
        centres = self.calibration.table_to_image(xy_cm)
        rims = self.calibration.table_to_image(xy_cm + np.stack([radius_cm, np.zeros_like(radius_cm)], 1))
        return describe(frame, centres, np.linalg.norm(rims - centres, axis=1))


def _table_cm(calibration: Calibration) -> tuple[float, float]:
    return getattr(getattr(calibration, "layout", None), "table_size_cm", (183.0, 122.0))


def _moved_px(before: Calibration | None, after: Calibration) -> float:
    """How far the table moved in the picture from one calibration to the other (px, the most
    anywhere on it); none before (or one dropped for a frame of another size) is a new view."""
    if before is None:
        return math.inf
    width, depth = _table_cm(after)
    points = np.array([[0.0, 0.0], [width, 0.0], [width, depth], [0.0, depth], [width / 2, depth / 2]])
    return float(np.linalg.norm(after.table_to_image(points) - before.table_to_image(points), axis=1).max())


def _unread_by_hand(looks: list, xy_cm: np.ndarray, radius_cm: np.ndarray,
                    under_hand: Callable[[np.ndarray], np.ndarray]) -> list:
    """The looks, none for a piece a resting hand reaches over: read through the hand's edge, a
    look is part hand, and it matched a squad-mate's id to a half-covered base its own track stood
    on (a blind check's forearm leant for 14 s: an untouched model moved there and back). With no
    look the association goes by where the pieces stood."""
    if not len(xy_cm):
        return looks
    points = spot_points(xy_cm, radius_cm, 1.0)
    reached = under_hand(points.reshape(-1, 2)).reshape(points.shape[:2]).any(axis=1)
    return [None if touched else look for look, touched in zip(looks, reached, strict=True)]


def build_pipeline(layout: Any = None, intrinsics: Any = None, table: str = "183x122") -> Pipeline:
    """The real pipeline: ArUco calibration with drift watch, the shipped detector (one a process).

    `layout`/`intrinsics` are paths, loaded objects or None (the default layout for `table`).
    """
    from calibration.drift import DriftWatch
    from calibration.intrinsics import load_intrinsics
    from calibration.layout import default_layout, load_layout
    from calibration.table import calibrate
    from models.detector import shipped_detector

    if layout is None:
        layout = default_layout(table)
    elif isinstance(layout, str | Path):
        layout = load_layout(layout)
    if isinstance(intrinsics, str | Path):
        intrinsics = load_intrinsics(intrinsics)
    return Pipeline(calibrate=lambda image: calibrate(image, layout, intrinsics), detector=shipped_detector(),
                    drift_watch=DriftWatch)
