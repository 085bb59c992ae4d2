"""How the room's light changed since the pieces' looks were first taken.

A model is told from its squad-mates by its paint (`appearance`), and paint seen under other
light reads as other paint: a camera's white balance stepping warmer, or a lamp switched on at
one side of the table, moved a model's colours further from its own look than from its
neighbour's, and a squad standing still swapped identities with no hand near it (a blind
tracking check: 5 and 13 switches on two such sequences). Exposure alone was already taken out
(the frame's median brightness); colour and a change across the table were not.

The light's change is read off the whole table, which is mostly mat: the log of a small
blurred picture now against the same picture in the reference light, fitted per colour channel
by a smooth quadratic over the picture (a lamp's fall-off, a window's), the pieces that moved
and hands being outliers to the fit. Looks are then taken in the reference light, dividing each
piece's pixels by the gain there. The reference is the first detection's light; after each
detection the picture is brought into it, so what changed on the table since (pieces moved,
terrain placed) never reads as light. The motion gate brings its two thumbnails to one light
by the same fit (`light_change`), so a lamp at one side is not taken for an arm.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

WIDTH = 64  # thumbnail pixels across: light changes over tens of centimetres, not millimetres
# Residuals past this many median absolute deviations (and past `FLOOR` in log gain) are the
# table's changes, not the light's: pieces moved, a hand, a shadow cast by one.
OUTLIER_MADS = 3.0
FLOOR = 0.05
# A change of light worth the name (5 %): the fit's own noise on a still table is a tenth of it.
STEP = 0.05


@dataclass(frozen=True)
class LightField:
    """Per channel, log gain = quadratic in the picture's position (scaled to 0..1 across its
    width); the gain a pixel's value carries against the reference light."""

    coefficients: np.ndarray  # (6, channels); zeros: the reference light itself
    width_px: float
    height_px: float

    def gains(self, pixels: np.ndarray) -> np.ndarray:
        """(n, channels) gains at full-image pixel positions (n, 2)."""
        pixels = np.asarray(pixels, dtype=np.float64).reshape(-1, 2) / self.width_px
        return np.exp(_terms(pixels[:, 0], pixels[:, 1]) @ self.coefficients)

    def changed(self) -> bool:
        """Whether the light moved by more than `STEP` anywhere in the picture, in any channel."""
        xs, ys = np.meshgrid(np.linspace(0, self.width_px, 9), np.linspace(0, self.height_px, 5))
        gains = self.gains(np.stack([xs.ravel(), ys.ravel()], axis=1))
        return bool(np.abs(np.log(gains)).max() > STEP)


class Lighting:
    """The reference light and the change from it, one detection frame at a time."""

    def __init__(self) -> None:
        self._reference: np.ndarray | None = None

    def field(self, image: np.ndarray) -> LightField:
        """The light of `image` against the reference, which then moves to what `image` shows."""
        log = _log_thumbnail(image)
        height, width = log.shape[:2]
        flat = log.reshape(-1, log.shape[2])
        if self._reference is None or self._reference.shape != flat.shape:
            self._reference = flat
            return LightField(np.zeros((6, flat.shape[1])), float(image.shape[1]), float(image.shape[0]))
        ys, xs = np.mgrid[0:height, 0:width]
        terms = _terms((xs.ravel() + 0.5) / width, (ys.ravel() + 0.5) / width)
        coefficients = _fit(terms, flat - self._reference)
        self._reference = flat - terms @ coefficients
        return LightField(coefficients, float(image.shape[1]), float(image.shape[0]))


def _log_thumbnail(image: np.ndarray) -> np.ndarray:
    scale = WIDTH / image.shape[1]
    small = cv2.resize(image, (WIDTH, max(1, round(image.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    small = small.reshape(small.shape[0], small.shape[1], -1).astype(np.float64)
    return np.log(small + 1.0)


def _terms(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


def _fit(terms: np.ndarray, change: np.ndarray) -> np.ndarray:
    """(terms, channels) coefficients of each channel's log change (points, channels)."""
    return np.stack([_robust_fit(terms, change[:, c]) for c in range(change.shape[1])], axis=1)


def _robust_fit(terms: np.ndarray, change: np.ndarray) -> np.ndarray:
    """Least squares, then again without the residuals that are no light's (two rounds)."""
    keep = np.ones(len(change), bool)
    for _ in range(2):
        coefficients = np.linalg.lstsq(terms[keep], change[keep], rcond=None)[0]
        residual = np.abs(change - terms @ coefficients)
        spread = np.median(residual[keep]) * 1.4826
        keep = residual <= max(OUTLIER_MADS * spread, FLOOR)
    return np.linalg.lstsq(terms[keep], change[keep], rcond=None)[0]


def light_change(before: np.ndarray, after: np.ndarray, step: int = 8) -> np.ndarray:
    """Per pixel and channel, the log gain of the light from `before` to `after` (two colour
    pictures of one size, uint8): the same smooth fit as `Lighting.field`, over every `step`th
    pixel, spread back over the picture (a quadratic is smooth enough to interpolate)."""
    height, width, channels = before.shape
    a = np.log(before[::step, ::step].astype(np.float64) + 1.0)
    b = np.log(after[::step, ::step].astype(np.float64) + 1.0)
    ys, xs = np.mgrid[0:height:step, 0:width:step]
    terms = _terms(xs.ravel() / width, ys.ravel() / width)
    coarse = (terms @ _fit(terms, (b - a).reshape(-1, channels))).reshape(a.shape).astype(np.float32)
    spread = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_LINEAR)
    return spread.reshape(height, width, channels)
