"""The motion gate: are hands over the table, and where has the picture changed?

Detection is the expensive step, and a frame with a hand in it is the one frame where it is
useless. So every frame is first shrunk to a thumbnail and differenced, against the previous
frame (motion) and against the last settled frame (what is covered or changed since then).

A changed blob counts as a hand when it is bigger than any piece can make it, or when it
reaches the edge of the picture (an arm always comes in from outside). Smaller blobs away from
the edge are pieces that moved, which detection should see, not wait out: so a sequence of
still photos, each a few models different from the last, is settled on every frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class GateReading:
    """One frame's verdict. `changed` is a thumbnail mask of where the frame differs from the
    last settled frame; `scale` maps full-image pixels to thumbnail pixels."""

    settled: bool
    just_settled: bool
    changed: np.ndarray
    scale: float
    pieces_moved: bool = False

    def covers(self, pixels: np.ndarray) -> np.ndarray:
        """Which full-image pixel positions fall on changed parts of the picture."""
        pixels = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        h, w = self.changed.shape
        inside = ((pixels[:, 0] >= 0) & (pixels[:, 1] >= 0)
                  & (pixels[:, 0] * self.scale < w) & (pixels[:, 1] * self.scale < h))
        x = np.clip(np.round(pixels[:, 0] * self.scale).astype(int), 0, w - 1)
        y = np.clip(np.round(pixels[:, 1] * self.scale).astype(int), 0, h - 1)
        return self.changed[y, x] & inside


class MotionGate:
    """Frame differencing on a blurred grey thumbnail `width` pixels wide.

    `threshold`: grey levels a thumbnail pixel must change by (above sensor noise and JPEG);
    `max_piece_fraction`: the largest blob, as a share of the thumbnail, that a moved piece can
    leave (a 65 mm base moved a few cm, a tank nudged); anything bigger is a hand.
    """

    def __init__(self, width: int = 320, threshold: int = 18, min_blob_px: int = 4,
                 max_piece_fraction: float = 0.006, grow_px: int = 2) -> None:
        self.width = width
        self.threshold = threshold
        self.min_blob_px = min_blob_px
        self.max_piece_fraction = max_piece_fraction
        self.grow_px = grow_px
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._settled = False

    def thumbnail(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        scale = self.width / image.shape[1]
        small = cv2.resize(image, (self.width, max(1, round(image.shape[0] * scale))),
                           interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        return cv2.GaussianBlur(grey, (5, 5), 0), scale

    def _mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return (cv2.absdiff(a, b) > self.threshold).astype(np.uint8)

    def _blobs(self, mask: np.ndarray, by_size: bool) -> tuple[bool, bool]:
        """(a hand is there, some piece-sized change is there).

        A hand is a blob reaching the picture's edge or, when `by_size`, one too big for a
        piece. Against the last settled frame only the edge counts: a tank that moved leaves a
        big blob there until the next settled frame, and it is not a hand.
        """
        count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        h, w = mask.shape
        biggest = self.max_piece_fraction * h * w
        hand = piece = False
        for x, y, bw, bh, area in stats[1:count]:
            if area < self.min_blob_px:
                continue
            if (by_size and area > biggest) or x <= 0 or y <= 0 or x + bw >= w or y + bh >= h:
                hand = True
            else:
                piece = True
        return hand, piece

    def observe(self, image: np.ndarray) -> GateReading:
        thumb, scale = self.thumbnail(image)
        if self._previous is None or self._previous.shape != thumb.shape:
            self._previous = self._reference = thumb
        moving, _ = self._blobs(self._mask(thumb, self._previous), by_size=True)
        since_settled = self._mask(thumb, self._reference)
        held_still, pieces_moved = self._blobs(since_settled, by_size=False)
        hand_present = moving or held_still
        self._previous = thumb
        was_settled = self._settled
        self._settled = not hand_present
        if self._settled:
            self._reference = thumb
        changed = since_settled
        if self.grow_px:
            kernel = np.ones((2 * self.grow_px + 1, 2 * self.grow_px + 1), np.uint8)
            changed = cv2.dilate(changed, kernel)
        return GateReading(settled=self._settled, just_settled=self._settled and not was_settled,
                           changed=changed > 0, scale=scale, pieces_moved=pieces_moved)
