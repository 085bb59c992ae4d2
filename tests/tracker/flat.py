"""Small flat renders for pipeline, recording and replay tests: a grey mat, painted discs, a hand.

Pixels matter here only for the motion gate, appearance and JPEG round trips, so the scene is
top-down at 3 px/cm with an exact fake calibration and a colour-blob detector.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from hardware.source import Frame
from models.detections import Bases, Detections
from tracker.pipeline import Pipeline

if TYPE_CHECKING:
    from tracker.session import TableSession

PX_PER_CM = 3.0
TABLE_CM = (183.0, 122.0)
SIZE = (int(TABLE_CM[0] * PX_PER_CM), int(TABLE_CM[1] * PX_PER_CM))


@dataclass(frozen=True)
class Piece:
    x_cm: float
    y_cm: float
    colour: tuple[int, int, int]
    diameter_mm: float = 32.0


class TopDownCalibration:
    marker_ids = (0, 1, 2, 3)
    rms_mm = 0.0
    max_mm = 0.0

    def table_to_image(self, points_cm: np.ndarray) -> np.ndarray:
        return np.asarray(points_cm, dtype=np.float64) * PX_PER_CM

    def image_to_table(self, pixels: np.ndarray) -> np.ndarray:
        return np.asarray(pixels, dtype=np.float64) / PX_PER_CM


class BlobDetector:
    """Saturated blobs on the grey mat are bases; their area says the size class."""

    def detect(self, image: np.ndarray, calibration) -> Detections:
        saturation = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)[..., 1]
        count, _, stats, centroids = cv2.connectedComponentsWithStats((saturation > 90).astype(np.uint8))
        keep = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 12]
        area = np.array([stats[i, cv2.CC_STAT_AREA] for i in keep], dtype=np.float64)
        xy = calibration.image_to_table(centroids[keep]) if keep else np.zeros((0, 2))
        diameter = np.where(area > np.pi * (4.8 * PX_PER_CM / 2) ** 2, 65.0, 32.0)
        return Detections(bases=Bases(np.asarray(xy).reshape(-1, 2), diameter, np.ones(len(keep))))


def flat_pipeline(manifest: dict | None = None) -> Pipeline:
    return Pipeline(calibrate=lambda image: TopDownCalibration(), detector=BlobDetector())


def render(pieces: list[Piece], hand: tuple[float, float] | None = None, seed: int = 0,
           arm: bool = True, card: tuple[float, float] | None = None,
           other_hand: tuple[float, float] | None = None) -> np.ndarray:
    """`card`: the middle of a white 9 x 6 cm card lying over whatever is there (table cm);
    `other_hand`: a second player's hand, arm and all."""
    rng = np.random.default_rng(seed)
    image = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    image = cv2.add(image, rng.integers(0, 4, image.shape, dtype=np.uint8))
    for piece in pieces:
        centre = (round(piece.x_cm * PX_PER_CM), round(piece.y_cm * PX_PER_CM))
        cv2.circle(image, centre, round(piece.diameter_mm / 20 * PX_PER_CM), piece.colour, -1, cv2.LINE_AA)
    if card is not None:
        corners = np.array([[card[0] - 4.5, card[1] - 3.0], [card[0] + 4.5, card[1] + 3.0]]) * PX_PER_CM
        cv2.rectangle(image, tuple(corners[0].round().astype(int)), tuple(corners[1].round().astype(int)),
                      (232, 235, 235), -1)
    for tip_cm, with_arm in ((hand, arm), (other_hand, True)):
        if tip_cm is None:
            continue
        tip = (round(tip_cm[0] * PX_PER_CM), round(tip_cm[1] * PX_PER_CM))
        if with_arm:
            cv2.line(image, (tip[0], SIZE[1] + 10), tip, (150, 170, 215), 24)
        cv2.circle(image, tip, 22, (140, 165, 215), -1)
    return image


RED, BLUE, GREEN, YELLOW = (40, 40, 200), (200, 60, 40), (50, 170, 60), (40, 200, 220)


def game_frames(fps: float = 5.0) -> list[Frame]:
    """A short game: setup, a hand moves two models (one past the other), one is taken off."""
    start = [Piece(40, 40, RED), Piece(46, 40, BLUE), Piece(100, 80, GREEN), Piece(108, 80, YELLOW)]
    moved = [Piece(50, 44, RED), Piece(56, 44, BLUE), *start[2:]]
    casualty = [*moved[:3]]
    scenes: list[tuple[list[Piece], tuple[float, float] | None]] = [
        (start, None), (start, None),
        (start, (42, 42)), (start[2:], (48, 45)), (moved, (56, 48)), (moved, None), (moved, None),
        (moved, (108, 82)), (casualty, (108, 90)), (casualty, None), (casualty, None), (casualty, None),
    ]
    return [Frame(render(pieces, hand, seed=i), i, i / fps, f"frame_{i:03d}.png")
            for i, (pieces, hand) in enumerate(scenes)]


class GameFrames:
    """The flat game as a FrameSource, for sessions driven end to end in tests."""

    description = "the flat test game"

    def __init__(self) -> None:
        self.frames = list(game_frames())

    def read(self) -> Frame | None:
        return self.frames.pop(0) if self.frames else None

    def close(self) -> None:
        pass


class GatedFrames(GameFrames):
    """The flat game read only as far as the test lets it, one permit a read: a session's reader
    thread is held where the test looks at it, e.g. across a looping replay's restart."""

    def __init__(self, permits: threading.Semaphore) -> None:
        super().__init__()
        self.permits = permits

    def read(self) -> Frame | None:
        assert self.permits.acquire(timeout=20), "the test stopped feeding frames"
        return super().read()


def until(session: TableSession, done: Callable[[], bool], timeout_s: float = 20.0) -> None:
    """Wait for `done()`, looked at again on each change the session publishes (and at least every
    0.2 s, as a runner's own fields change without one)."""
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        session.wait_for_change(session.state()["version"], 0.2)
    assert done()
