"""The motion gate: are hands over the table, and where has the picture changed?

Detection is the expensive step, and a frame with a hand in it is the one frame where it is
useless. So every frame is first shrunk to a thumbnail and differenced twice:

- against the last settled frame: a blob reaching the picture's edge is a hand (an arm comes
  in from outside the picture), even one held still;
- against the previous frame: something big moving inside the picture (bigger than any piece,
  `max_piece_cm2`) is a hand too, if the frame still differs from the settled one by more
  than a piece could: that catches a hand without an arm in view. Motion at the picture's
  edge with no arm left against the settled frame is the arm leaving, so the very frame the
  hands leave is settled, even when what they moved (a tank, a tight squad) changed more
  than one piece could (it counted as a hand until session 32: the moved pieces were held a
  frame longer, IDF1 0.984 on the tracking benchmark's seed 19).

Smaller blobs inside the picture are pieces that moved, which detection should see, not wait
out: a sequence of still photos, each a few models different from the last, is settled on
every frame.

An arm-shaped change may also be an arm the settled frame holds and this frame does not: the
rig started with a hand in view, or a hand rested long enough to be taken into the settled
frame (below). Differences alone cannot tell an arm leaving from one arriving and held still;
the picture that holds the arm can: its outline runs along the changed blob's rim, where the
other picture shows the mat carrying on. So when every edge blob's rim has lost far more
sharpness since the settled frame than it gained, pixel by pixel, the arm has gone and this
frame is settled at once (until session 53 it waited out `rebase_s` of stillness, and with
moves 0.6 s apart never did: every piece touched afterwards stayed hidden and undetected).

If the settled frame is wrong in another way, nothing would ever match it again; so a
picture that has not changed at all for `rebase_s` becomes the new settled frame whatever it
shows.

Both pictures are brought to one exposure first (each colour channel's median, mostly mat):
a lamp switched on or an auto-exposure step changes every pixel by more than `threshold`,
and the blob reaching the edge was taken for a hand (every piece hidden until the next
settled frame; a flickering lamp hid them for as long as it flickered).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tracker.lighting import light_change

# Past this share of the picture changed, a change of light is looked for: hands and the pieces
# they move changed at most 5.5 % of it on a blind check's sequences (2304x1296, 183 cm wide).
SPREAD = 0.08
# A hand resting on the table drifts by up to this and still counts as still; the thumbnail's
# blur spreads an outline's change by BLUR_PX more (its 5x5 kernel's reach).
REST_TREMOR_CM = 1.0
BLUR_PX = 2
# The thumbnail's detail where its thresholds were measured was the rig over 183 x 122 (or 122 x
# 122) at 320 px, 1.31 px a cm; a rig showing its table a little smaller keeps 320 px. A table
# that fills much less of the picture (244 x 183 in the same frame: 0.87 px a cm) gets a wider
# thumbnail, so pieces and arms keep their size in pixels: at 0.87 a 32 mm base taken off with
# no hand in view was seen 8 times of 20 (18 at 1.22 px a cm), and a forearm whose cuff blurred
# into the mat read as a hand with no arm in view (docs/tracking.md, the 244 x 183 game).
MIN_PX_PER_CM = 1.2
WIDTH_STEP_PX = 64


@dataclass(frozen=True)
class Blobs:
    """What differs between two thumbnails, sorted by what it can be: blobs reaching the
    picture's edge are arms, blobs too big for one piece are hands or vehicles, the rest pieces."""

    changed: np.ndarray
    edge: bool
    big: bool
    piece: bool
    arms: np.ndarray
    bulk: np.ndarray
    pieces: np.ndarray
    pictures: tuple[np.ndarray, np.ndarray]  # the two as compared: brought to one exposure and light


@dataclass(frozen=True)
class GateReading:
    """One frame's verdict. `changed` is a thumbnail mask of where the frame differs from the
    last settled frame; `scale` maps full-image pixels to thumbnail pixels."""

    settled: bool
    just_settled: bool
    changed: np.ndarray
    scale: float
    pieces_moved: bool = False
    resting_hand: np.ndarray | None = None
    rested_s: float = 0.0  # how long the hand `resting_hand` marks has rested in view
    # On the frame a resting hand leaves: where it rested that looks as before it came (see
    # `MotionGate._bare`). None on every other frame.
    as_before_hand: np.ndarray | None = None

    def before_hand(self, pixels: np.ndarray) -> np.ndarray:
        """Which full-image pixel positions the resting hand that just left had hidden and that
        look now as they did before it came."""
        if self.as_before_hand is None:
            return np.zeros(len(np.asarray(pixels).reshape(-1, 2)), bool)
        return GateReading(True, False, self.as_before_hand, self.scale).covers(pixels)

    def under_resting_hand(self, pixels: np.ndarray) -> np.ndarray:
        """Where a hand that stayed still long enough to count as settled may still lie."""
        if self.resting_hand is None:
            return np.zeros(len(np.asarray(pixels).reshape(-1, 2)), bool)
        return GateReading(True, False, self.resting_hand, self.scale).covers(pixels)

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
    """Frame differencing on a blurred colour thumbnail `width` pixels wide, or wider where the
    table fills less of the picture (`fit_to`).

    `threshold`: levels any colour channel of a thumbnail pixel must change by (above sensor noise and JPEG);
    `min_blob_px`: smaller changed blobs are noise; `grow_px`: how far around a changed blob a
    piece counts as covered; `outline_ratio`: how many times the sharpness an edge blob's rim
    lost since the settled frame must outweigh what it gained for the arm to count as gone.
    Measured on rendered tables (rested hands taken away at 12 spots on 4 benchmark tables, and
    the review's break tests): hands still in view read at most 1.53 (one drawn back over the
    table, its old and new outline in one blob), hands gone at least 4.3 (beside the tank, mud
    mat), save a mat-coloured sleeve on a flat sand mat (2.46, still waited out); 3 lies between.
    """

    def __init__(self, width: int = 320, threshold: int = 18, min_blob_px: int = 4, grow_px: int = 2,
                 rebase_s: float = 2.0, max_piece_cm2: float = 110.0, outline_ratio: float = 3.0) -> None:
        self.width = self.least_width = width
        self.max_piece_cm2 = max_piece_cm2
        self.px_per_cm = width / 200.0  # until the pipeline knows the calibration
        self.threshold = threshold
        self.min_blob_px = min_blob_px
        self.grow_px = grow_px
        self.rebase_s = rebase_s
        self.outline_ratio = outline_ratio
        self._previous: np.ndarray | None = None
        self._reference: np.ndarray | None = None
        self._rest_start: np.ndarray | None = None  # the picture when the stillness began
        # Where a hand rests, from the frame it was taken into the settled frame to the one it
        # leaves: once in the settled frame it no longer differs from it, yet it is still there.
        self._hand: np.ndarray | None = None
        self._hand_since = 0.0
        # The table as last settled with no hand resting over it, pixel by pixel: a hand still for
        # `rebase_s` is taken into the settled frame, and as it leaves, all it hid looks changed.
        self._bare: np.ndarray | None = None
        self._still_since = 0.0
        self._settled = False

    def fit_to(self, image_px_per_cm: float, image_width: int) -> bool:
        """Sizes the thumbnail for a calibration whose frame shows `image_px_per_cm` pixels a cm
        at the table's middle: MIN_PX_PER_CM or finer, no narrower than it was made and no wider
        than the frame. A width that already serves, up to two steps past what is needed, is
        kept, so calibrations a hair apart near a step do not change it back and forth. True
        when the width changed, so its pictures before and after are no longer alike (`rebase`)."""
        needed = max(self.least_width, min(image_width, MIN_PX_PER_CM * image_width / image_px_per_cm))
        before = self.width
        if not needed <= self.width < needed + 2 * WIDTH_STEP_PX:
            self.width = WIDTH_STEP_PX * math.ceil(needed / WIDTH_STEP_PX)
        self.measure(image_px_per_cm, image_width)
        return self.width != before

    def measure(self, image_px_per_cm: float, image_width: int) -> None:
        """How big a piece looks in the thumbnail at its width, from the frame's own detail: the
        size its piece-sized changes and a resting hand's tremor are judged by."""
        self.px_per_cm = image_px_per_cm * self.width / image_width

    def rebase(self) -> None:
        """Take the next frame as the settled picture, as the first one is: after the camera
        was knocked, its pictures before differ from those after everywhere, which read as a
        hand over most of the table that never left (no new piece tracked, none retired)."""
        self._previous = None

    def thumbnail(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        scale = self.width / image.shape[1]
        small = cv2.resize(image, (self.width, max(1, round(image.shape[0] * scale))),
                           interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (5, 5), 0), scale

    def _blobs(self, a: np.ndarray, b: np.ndarray) -> Blobs:
        a, b, changed = _same_light(a, b, self.threshold)
        mask = changed.astype(np.uint8)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        h, w = mask.shape
        biggest = self.max_piece_cm2 * self.px_per_cm ** 2
        edge = big = piece = False
        arms, bulk, pieces = (np.zeros(mask.shape, bool) for _ in range(3))
        for label, (x, y, bw, bh, area) in enumerate(stats[1:count], start=1):
            if area < self.min_blob_px:
                continue
            if x <= 0 or y <= 0 or x + bw >= w or y + bh >= h:
                edge = True
                arms |= labels == label
            elif area > biggest:
                big = True
                bulk |= labels == label
            else:
                piece = True
                pieces |= labels == label
        return Blobs(mask, edge, big, piece, arms, bulk, pieces, (a, b))

    def observe(self, image: np.ndarray, timestamp_s: float) -> GateReading:
        thumb, scale = self.thumbnail(image)
        if self._previous is None or self._previous.shape != thumb.shape:
            self._previous = self._reference = self._rest_start = self._bare = thumb
            self._still_since = timestamp_s
            self._hand = None
        motion = self._blobs(thumb, self._previous)
        if (motion.edge or motion.big or motion.piece) and not self._resting(thumb):
            self._still_since = timestamp_s
            self._rest_start = thumb
        change = self._blobs(thumb, self._reference)
        arm_gone = change.edge and self._arm_gone(change)
        self._previous = thumb
        was_settled = self._settled and not arm_gone
        hands = not arm_gone and (self._another_arm(change) or (motion.big and change.big))
        self._settled = not hands or timestamp_s - self._still_since >= self.rebase_s
        pieces_moved = self._pieces_moved(change)
        if self._settled:
            self._reference = thumb
        kernel = np.ones((2 * self.grow_px + 1, 2 * self.grow_px + 1), np.uint8)
        as_before = None
        if arm_gone and self._hand is not None:
            since_bare = _same_light(thumb, self._bare, self.threshold)[2].astype(np.uint8)
            as_before = self._resting_reach() & (cv2.dilate(since_bare, kernel) == 0)
        if arm_gone:
            self._hand = None
        if hands and self._settled:  # settled only by waiting: a hand rests there
            arms = cv2.dilate(change.arms.astype(np.uint8), kernel) > 0
            if self._hand is None:
                self._hand, self._hand_since = arms, timestamp_s
            else:  # once in the settled frame, the hand shows only where its tremor moved it
                self._hand = self._hand | arms
        if self._settled:
            if self._hand is None:
                self._bare = thumb
            else:
                hidden = self._resting_reach()
                self._bare = np.where(hidden[..., None] if thumb.ndim == 3 else hidden, self._bare, thumb)
        changed = cv2.dilate(change.changed, kernel) if self.grow_px else change.changed
        return GateReading(settled=self._settled, just_settled=self._settled and not was_settled,
                           changed=changed > 0, scale=scale, pieces_moved=pieces_moved and self._settled,
                           resting_hand=self._hand,
                           rested_s=0.0 if self._hand is None else timestamp_s - self._hand_since,
                           as_before_hand=as_before)

    def _resting(self, thumb: np.ndarray) -> bool:
        """Whether all that changed since the stillness began is a thin band, the outline of a
        hand shifted by no more than a resting hand's tremor (`REST_TREMOR_CM`): a hand leaning
        on the table's edge never holds its outline to the pixel, and stillness waited for that
        never came, so the rig stayed unsettled, tracking nothing, for as long as a player
        leaned there. A hand shifted by d changes only pixels within d of its outline; one that
        drifted further since the stillness began, a piece put down or taken away, is thicker."""
        drift = _same_light(thumb, self._rest_start, self.threshold)[2].astype(np.uint8)
        thickest = cv2.distanceTransform(drift, cv2.DIST_L2, 3).max() if drift.any() else 0.0
        return thickest <= REST_TREMOR_CM * self.px_per_cm + BLUR_PX

    def _pieces_moved(self, change: Blobs) -> bool:
        """Whether something piece-sized or bigger changed away from any arm. Not the bits of a
        resting hand's outline its tremor breaks off: they asked for a detection every other frame
        while a forearm leant on the table (5 in 15 frames of a blind check, ~350 ms each here)."""
        if self._hand is None:
            return change.piece or change.big
        return bool(((change.pieces | change.bulk) & ~self._resting_reach()).any())

    def _resting_reach(self) -> np.ndarray:
        """Where the resting hand may lie now: its mark grown by the tremor and the blur."""
        reach = round(REST_TREMOR_CM * self.px_per_cm) + BLUR_PX
        return cv2.dilate(self._hand.astype(np.uint8), np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)) > 0

    def _another_arm(self, change: Blobs) -> bool:
        """Whether an arm reaches in other than the one resting in the settled frame. Against
        that frame a resting hand's tremor changes only a band about its outline, within the
        tremor and the blur of where it rested: with nothing else at the edge, the frame another
        hand leaves (a player moving a piece while the other leans on the table) is settled at
        once, where it waited out the 2 s a hand still in view needs."""
        if not change.edge:
            return False
        if self._hand is None:
            return True
        return bool((change.arms & ~self._resting_reach()).any())

    def _arm_gone(self, change: Blobs) -> bool:
        """Whether the `change` against the settled frame is something that frame holds and this
        frame does not: the picture holding an arm has its outline along the changed blob's rim, the
        other the mat carrying on.

        Judged per rim pixel on the exposure-matched pair, as the masks are: how much sharpness
        the rim lost since the settled frame against how much it gained. Edges sharp in both
        pictures (a marker, the table's border, mat texture, bases beside the hand) cancel
        pixel by pixel; averaged, they diluted the outline until 7 of 48 hands rested and taken
        away were not seen to leave. Every arm (blob at the picture's edge) must read as gone.
        Blobs too big for a piece need not: a tank the leaving hand drove is sharp at its new
        spot. They count in the total instead, so a hand without an arm in view (the arm as
        dim as the mat: a tiny stray arm blob then reads either way) keeps the frame unsettled.
        """
        now, settled = change.pictures
        arms = change.arms
        lost = _edges(settled) - _edges(now)
        count, labels = cv2.connectedComponents((arms | change.bulk).astype(np.uint8), connectivity=8)
        square = np.ones((3, 3), np.uint8)
        lost_all = gained_all = 0.0
        for label in range(1, count):
            blob = (labels == label).astype(np.uint8)
            # BORDER_REPLICATE on the erode: an arm's blob ends at the picture's border, which is
            # no outline of anything; with the default border the rim would run along it.
            rim = (cv2.dilate(blob, square) - cv2.erode(blob, square, borderType=cv2.BORDER_REPLICATE)) > 0
            lost_here = float(np.maximum(lost[rim], 0.0).sum())
            gained_here = float(np.maximum(-lost[rim], 0.0).sum())
            if arms[blob > 0].any() and not lost_here > self.outline_ratio * gained_here:
                return False
            lost_all += lost_here
            gained_all += gained_here
        return lost_all > self.outline_ratio * gained_all


def _edges(thumb: np.ndarray) -> np.ndarray:
    """Morphological gradient, the strongest colour channel's: how sharp the picture is at each pixel."""
    gradient = cv2.morphologyEx(thumb, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    return (gradient.max(axis=2) if gradient.ndim == 3 else gradient).astype(np.float32)


def _changed(a: np.ndarray, b: np.ndarray, threshold: int) -> np.ndarray:
    difference = cv2.absdiff(a, b)
    if difference.ndim == 3:  # two models swapped may differ in colour only, not in brightness
        channels = cv2.split(difference)  # numpy's max over the colour axis took 4 ms a thumbnail
        difference = channels[0]
        for channel in channels[1:]:
            difference = cv2.max(difference, channel)
    return difference > threshold


def _same_light(a: np.ndarray, b: np.ndarray, threshold: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`a` and `b` brought to one exposure (`_same_exposure`) and where they then differ by more
    than `threshold`. Where that is more than `SPREAD` of the picture, they are brought to one
    light too: a lamp switched on at one side brightens the picture unevenly, and the
    brightened part, reaching the picture's edge, was taken for an arm (every piece hidden, and
    matched on changed looks after). The light's change is fitted as the tracker's looks take
    it (`tracker.lighting`), a smooth gain per channel that hands and moved pieces do not
    follow, and kept only if it explains at least half the change: a hand it cannot explain
    stays whole."""
    a, b = _same_exposure(a, b)
    changed = _changed(a, b, threshold)
    before = changed.mean()
    if before <= SPREAD or a.ndim != 3:
        return a, b, changed
    gain = np.exp(light_change(a, b)).astype(np.float32)
    lit_a = np.clip(a * np.maximum(gain, 1.0), 0, 255).astype(np.uint8)
    lit_b = np.clip(b / np.minimum(gain, 1.0), 0, 255).astype(np.uint8)
    lit_changed = _changed(lit_a, lit_b, threshold)
    if lit_changed.mean() <= 0.5 * before:
        return lit_a, lit_b, lit_changed
    return a, b, changed


def _same_exposure(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`a` and `b` with the darker one's channels scaled up to the other's medians, clipped as the
    sensor clips: a global gain change (lamp, auto-exposure) leaves no difference, a hand does
    (it covers too little of the picture to move the medians)."""
    channels = a.shape[2] if a.ndim == 3 else 1
    ratio = ((np.median(a[::2, ::2].reshape(-1, channels), axis=0) + 1.0)
             / (np.median(b[::2, ::2].reshape(-1, channels), axis=0) + 1.0))
    if np.all(np.abs(ratio - 1.0) < 0.02):
        return a, b
    return _scaled(a, np.maximum(1.0 / ratio, 1.0)), _scaled(b, np.maximum(ratio, 1.0))


def _scaled(image: np.ndarray, gain: np.ndarray) -> np.ndarray:
    shape = (1, 1, len(gain)) if image.ndim == 3 else (1, 1)
    return np.clip(image.astype(np.float32) * gain.reshape(shape), 0, 255).astype(np.uint8)
