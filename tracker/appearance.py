"""What a model looks like from above: the colours of its base and miniature, and how light it is.

Two miniatures swapped between positions in one hand move land where the other stood; only
their paint tells them apart. A hue/saturation histogram of the disc around the base is cheap,
robust to the small shifts of a re-placed model, and lighting changes move it little. Two
models painted in one hue but different shades (a squad's blues) have alike histograms,
though: in path-traced light the benchmark's swapped pair read 0.04-0.08 apart, less than one
of them differs from itself after a move. Their lightness tells them apart (0.06-0.09 apart
in log brightness against at most 0.02 for either after the swap), so a look carries it too,
taken against the frame's median brightness (mostly mat) so that the camera's exposure does
not move it, and in the reference light (`tracker.lighting`), so that a white balance or a
lamp does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tracker.lighting import LightField

HUE_BINS = 12
SAT_BINS = 4
FRAME_SAMPLE = 8  # every 8th pixel each way: the frame's median brightness in well under 1 ms


@dataclass(frozen=True)
class Look:
    """`colours`: normalised hue/saturation histogram of the disc; `lightness`: log of the disc's
    mean brightness over the frame's median brightness (0: as light as the mat)."""

    colours: np.ndarray
    lightness: float


@dataclass(frozen=True)
class LitFrame:
    """A frame as looks are taken from it: its pixels, the light's gain at each place against the
    reference light (`tracker.lighting`; None: the reference light itself), and its median
    brightness (HSV value) in that light: mostly the mat under an overhead camera, so the
    exposure's and the room light's share of every model's brightness."""

    bgr: np.ndarray
    light: LightField | None
    value: float


def seen(image_bgr: np.ndarray, light: LightField | None = None) -> LitFrame:
    sample = image_bgr[::FRAME_SAMPLE, ::FRAME_SAMPLE]
    pixels = sample.reshape(-1, sample.shape[2]).astype(np.float64)
    if light is not None:
        ys, xs = np.mgrid[0:sample.shape[0], 0:sample.shape[1]] * FRAME_SAMPLE
        pixels = pixels / light.gains(np.stack([xs.ravel(), ys.ravel()], axis=1))
    return LitFrame(image_bgr, light, float(np.median(pixels.max(axis=1))))


def describe(frame: LitFrame, centres_px: np.ndarray, radii_px: np.ndarray) -> list[Look | None]:
    """One look per disc, in the reference light; None where the disc falls off the image."""
    image = frame.bgr
    h, w = image.shape[:2]
    centres = np.asarray(centres_px, float).reshape(-1, 2)
    gains = frame.light.gains(centres) if frame.light is not None else None
    out: list[Look | None] = []
    for i, ((cx, cy), r) in enumerate(zip(centres, np.asarray(radii_px, float), strict=True)):
        r = max(round(float(r)), 2)
        x0, y0, x1, y1 = int(cx) - r, int(cy) - r, int(cx) + r + 1, int(cy) + r + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            out.append(None)
            continue
        patch = image[y0:y1, x0:x1]
        if gains is not None:
            patch = np.clip(patch / gains[i], 0, 255).astype(np.uint8)
        hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)
        mask = np.zeros(patch.shape[:2], np.uint8)
        cv2.circle(mask, (int(cx) - x0, int(cy) - y0), r, 255, -1)
        hist = cv2.calcHist([hsv], [0, 1], mask, [HUE_BINS, SAT_BINS], [0, 180, 0, 256]).ravel()
        total = hist.sum()
        if total <= 0:
            out.append(None)
            continue
        value = float(cv2.mean(hsv[..., 2], mask)[0])
        out.append(Look(hist / total, float(np.log((value + 1.0) / (frame.value + 1.0)))))
    return out


def colour_distance(a: Look, b: Look) -> float:
    """Hellinger distance between two looks' histograms: 0 identical, 1 nothing in common."""
    return float(np.sqrt(max(0.0, 1.0 - np.sum(np.sqrt(a.colours * b.colours)))))


def lightness_difference(a: Look, b: Look) -> float:
    """How far apart two looks' lightness is, in log brightness (0.1: about 10 %)."""
    return abs(a.lightness - b.lightness)


def blend(old: Look | None, new: Look | None, keep: float = 0.7) -> Look | None:
    """Follow slow lighting changes without forgetting what the model looked like."""
    if old is None or new is None:
        return new if old is None else old
    mixed = keep * old.colours + (1.0 - keep) * new.colours
    return Look(mixed / mixed.sum(), keep * old.lightness + (1.0 - keep) * new.lightness)
