"""Whether a base the detector no longer finds was taken off the table or is covered.

A card, a tape measure or a template laid over a squad hides its bases from the detector for
as long as it lies there. Taken for casualties, they were reported removed and came back as
`returned` when it went (a blind check's tape and card sequences): the phones showed
casualties that were not. A base taken off leaves bare mat where it stood; a covered one
leaves something else there. So the spot now (its inner three quarters) is compared with the
mat around the base when it was last seen (a ring at 1.3-1.9 radii, other bases' footprints
left out), both in the reference light (`tracker.lighting`): where at least half the spot's
pixels are as that mat was, it is bare. On the blind check's painted tables a base taken off
left 100 % of its spot as the mat, the tape 0 % and the card 0-7 %, and a base the card's edge
half hid 29 %.

A cover is believed for `COVER_S` at most: a token put on a casualty's spot must not keep it
in play for the rest of the game. Vehicles are left to the usual count of misses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from tracker.appearance import LitFrame
from tracker.tracks import Track

COVER_S = 15.0
RING = (1.3, 1.9)  # the mat around a base, in its radii: past its rim and its shadow's crescent
SPOT = 0.75  # the spot, in radii: inside the rim a hand sets a base down within
NEIGHBOUR = 1.15  # another base's footprint, in its radii, left out of the ring
BARE_SHARE = 0.5
SAME_GROUND = 15.0  # Lab units: the least a pixel may differ from the mat's median and be mat
SPREADS = 3.0  # or this many of the ring's own median spread, on a textured mat
FEWEST_PIXELS = 20
SHADOW_L = 45.0  # Lab lightness a shadow may take off the mat: a shadow's half of the light, and more

ToImage = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Ground:
    """The mat around a base when it was last seen: its median Lab colour, how far a pixel of it
    may stray, and since when the base has been covered (None: not yet found covered)."""

    median: np.ndarray
    tolerance: float
    covered_since_s: float | None = None


class Covers:
    """The mat each missing base stood on, kept from its last sighting until it is seen again."""

    def __init__(self) -> None:
        self._ground: dict[str, Ground | None] = {}

    def covered(self, tracks: list[Track], seen_before: LitFrame | None, now: LitFrame, to_image: ToImage,
                bases: list[Track], now_s: float) -> np.ndarray:
        """Which of `tracks` (missing from this detection) are covered, not taken: their spot is
        not bare, and has not been covered for longer than `COVER_S`. `seen_before`: the last
        detection's frame, where a base missing for the first time was last seen; `bases`: every
        tracked base, whose footprints are left out of the mat around each."""
        out = np.zeros(len(tracks), bool)
        for i, track in enumerate(tracks):
            if track.kind != "model":
                continue
            if track.id not in self._ground:
                self._ground[track.id] = (None if seen_before is None
                                          else _ground(seen_before, track, to_image, bases))
            ground = self._ground[track.id]
            if ground is None or _bare(now, track, to_image, ground):
                continue
            since = now_s if ground.covered_since_s is None else ground.covered_since_s
            self._ground[track.id] = Ground(ground.median, ground.tolerance, since)
            out[i] = now_s - since <= COVER_S
        return out

    def seen(self, tracks: list[Track]) -> None:
        """Keep the mat of bases still missing among `tracks` (all tracked): one seen again is
        read anew the next time it goes missing, and one retired is forgotten."""
        missing = {t.id for t in tracks if not t.visible}
        self._ground = {key: ground for key, ground in self._ground.items() if key in missing}


def _on_rim(base: Track) -> np.ndarray:
    return base.xy_cm + np.array([base.diameter_mm / 20.0, 0.0])


def _window(frame: LitFrame, track: Track, to_image: ToImage, reach: float):
    """The Lab pixels within `reach` radii of a base, their distance from its centre in radii,
    and the window's corner; None where the base is not in the picture."""
    centre, rim = to_image(np.array([track.xy_cm, _on_rim(track)]))
    radius = float(np.linalg.norm(rim - centre))
    h, w = frame.bgr.shape[:2]
    x0, y0 = (np.floor(centre - reach * radius)).astype(int).clip(0, [w, h])
    x1, y1 = (np.ceil(centre + reach * radius) + 1).astype(int).clip(0, [w, h])
    if x1 - x0 < 3 or y1 - y0 < 3 or radius < 1.0:
        return None
    patch = frame.bgr[y0:y1, x0:x1].astype(np.float32)
    if frame.light is not None:
        patch /= frame.light.gains(centre[None, :])[0].astype(np.float32)
    lab = cv2.cvtColor(np.clip(patch / 255.0, 0.0, 1.0), cv2.COLOR_BGR2LAB)  # L 0-100, a and b signed
    ys, xs = np.mgrid[y0:y1, x0:x1]
    return lab, np.hypot(xs - centre[0], ys - centre[1]) / radius, np.array([x0, y0])


def _ground(frame: LitFrame, track: Track, to_image: ToImage, bases: list[Track]) -> Ground | None:
    window = _window(frame, track, to_image, RING[1])
    if window is None:
        return None
    lab, radii, corner = window
    ring = (radii > RING[0]) & (radii < RING[1])
    near = RING[1] * track.diameter_mm / 20.0 + NEIGHBOUR * 6.5 / 2.0
    others = [b for b in bases if b.id != track.id and np.linalg.norm(b.xy_cm - track.xy_cm) < near]
    if others:
        centres = to_image(np.array([b.xy_cm for b in others]))
        rims = to_image(np.array([_on_rim(b) for b in others]))
        ys, xs = np.mgrid[0:lab.shape[0], 0:lab.shape[1]]
        pixels = np.stack([xs + corner[0], ys + corner[1]], axis=-1).reshape(-1, 1, 2)
        reach = NEIGHBOUR * np.linalg.norm(rims - centres, axis=1)
        inside = (np.linalg.norm(pixels - centres[None, :, :], axis=2) < reach[None, :]).any(axis=1)
        ring &= ~inside.reshape(ring.shape)
    mat = lab[ring]
    if len(mat) < FEWEST_PIXELS:
        return None
    median = np.median(mat, axis=0)
    spread = float(np.median(np.linalg.norm(mat - median, axis=1)))
    return Ground(median, max(SAME_GROUND, SPREADS * spread))


def _bare(frame: LitFrame, track: Track, to_image: ToImage, ground: Ground) -> bool:
    window = _window(frame, track, to_image, SPOT)
    if window is None:
        return True
    lab, radii, _ = window
    spot = lab[radii < SPOT]
    if len(spot) < FEWEST_PIXELS:
        return True
    as_the_mat = np.linalg.norm(_off_the_mat(spot, ground.median), axis=1) < ground.tolerance
    return bool(as_the_mat.mean() >= BARE_SHARE)


def _off_the_mat(lab: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """How far Lab pixels are from the mat's colour, a shadow not counted: a neighbour's shadow
    falls where a base stood once it is gone (a low light casts them long), and the mat in it is
    darker, its chroma shrunk with its lightness. A pixel lighter than the mat is compared as it is."""
    lightness = lab[:, 0] - mat[0]
    darker = (lightness < 0) & (lightness > -SHADOW_L)
    shrink = np.where(darker, np.clip(lab[:, 0] / max(float(mat[0]), 1.0), 0.0, 1.0), 1.0)
    off = lab - mat[None, :] * np.stack([np.ones_like(shrink), shrink, shrink], axis=1)
    off[darker, 0] = 0.0
    return off
