"""How blurred a frame is, read off the markers' edges, and the filter that undoes it for settling.

A blurred frame merges the two edges of a base's wall band into one, and where that edge lands
depends on the wall's and the top's colours: the settled centre moves by up to half a band
(0.5-1 mm at the table's far end). The markers lie on the table and are printed black on white,
so their straight edges show the frame's blur exactly where the bases stand: a Gaussian step's
width per axis (motion blur is wider along its direction). A Wiener filter with that width
separates the band's edges again; it is applied only to clearly blurred frames, since on sharp
ones it only adds grain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# Edge profiles: across each marker side, -4 .. 4 px in quarter pixels, averaged along its middle.
_ACROSS = np.arange(-4.0, 4.001, 0.25)
_ALONG = np.linspace(0.2, 0.8, 16)
MIN_STEP = 40  # grey levels from the black square to its white margin (a hand, glare: less)
MAX_MISFIT = 0.05  # rms misfit of the step model, as a share of the step (a shadow across it)
# The step model's grid: the edge's offset and its Gaussian width, each profile fitted to all.
_OFFSETS = np.arange(-1.5, 1.501, 0.05)
_WIDTHS = np.arange(0.3, 3.001, 0.02)
# The markers' profiles read blurrier than the bases' edges do (they are sampled through a
# second bilinear interpolation and averaged over edge positions): with the whole fit on the
# deblurred frame, 0.8 of it did better on 30 clean validation tables than 1.0 (647 bases of
# 656 found against 645, centre median 0.24 against 0.26 mm).
WIDTH_SHARE = 0.8
# Our clean renders measure 0.7-0.85 px; the filter pays from here on (validation, 30 clean
# tables blurred by 1 px: 1.2 px measured).
BLURRED_PX = 0.95
# Wiener's noise-to-signal ratio from the grain measured beside the edges: low on clean frames,
# up to 0.2 on dark, grainy ones, where sharpening amplifies the grain more than the rims.
NOISE_GAIN = 1600.0
NSR_RANGE = (0.01, 0.2)
TAPS = 17


@dataclass(frozen=True)
class FrameBlur:
    """Gaussian blur of the rectified frame along x and y (px), and its grain over the step."""

    sigma_px: tuple[float, float]
    grain: float


# The Gaussian's cumulative distribution from the standard library's erf: scipy.special's
# ndtr gives the same steps (to 2e-16) but took 0.2-0.4 s to import in every detecting
# command. Offsets and samples share one grid, so a step's ~8,000 (offset, width) pairs hold
# only ~220 distances from the edge: erf is taken once per distance and width (10 ms, where
# every sample of every step took 70).
_erf = np.frompyfunc(math.erf, 1, 1)


def _step_models() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (offset, width) step on the profile grid, centred and normalised for projection."""
    distances, which = np.unique(_ACROSS[None] - _OFFSETS[:, None], return_inverse=True)
    cdf = 0.5 * (1 + _erf(distances[None] / (_WIDTHS[:, None] * math.sqrt(2))).astype(np.float64))
    steps = cdf[:, which.reshape(len(_OFFSETS), len(_ACROSS))].transpose(1, 0, 2).reshape(-1, len(_ACROSS))
    steps -= steps.mean(1, keepdims=True)
    norm = np.sqrt((steps * steps).sum(1))
    return steps / norm[:, None], np.tile(_WIDTHS, len(_OFFSETS)), norm


_STEPS, _STEP_WIDTH, _STEP_NORM = _step_models()


# OpenBLAS (numpy's BLAS) runs a matrix product on every core from m * n * k = 65,536 * 4 on,
# and its idle thread then spins for ~0.1 s: the edges' projections on all ~8,300 step models
# (16 x 33 x 8,296) kept a core busy through the settling that follows, taking it from
# onnxruntime's and OpenCV's threads and from the other work on this 2-core machine (30
# path-traced hard validation tables: the spinning thread's 30-52 ms of CPU a frame, the
# whole frame's 365-417 against 314-317 ms after). In blocks of models under that size each
# product runs on the calling thread; nothing else in a frame reaches it.
_SINGLE_THREADED_MNK = 65_536 * 4 - 1


def _projections(yc: np.ndarray) -> np.ndarray:
    """(edges, models) `yc @ _STEPS.T`, a block of models at a time (`_SINGLE_THREADED_MNK`).

    The blocks' products may round differently from the whole one's in the last bit (another
    kernel: half of random profiles differ somewhere), which moved no step's width and no
    measured grain on 180 validation tables (painted and path-traced, clean and hard).
    """
    cols = max(1, _SINGLE_THREADED_MNK // max(yc.size, 1))
    return np.concatenate([yc @ _STEPS[j : j + cols].T for j in range(0, len(_STEPS), cols)], axis=1)


def measure_blur(rect: np.ndarray, squares_cm: list[np.ndarray], px_per_mm: float) -> FrameBlur | None:
    """The frame's blur from the marker squares' sides; None when no side reads as a clean step.

    Each side's averaged profile is fitted by a blurred step (least squares over a grid of
    offsets and widths, its two grey levels solved in closed form); sides that are hidden,
    in glare or crossed by a shadow do not fit and are left out.
    """
    if not len(squares_cm):
        return None
    grey = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY) if rect.ndim == 3 else rect
    # Every side's sampling grid at once: one remap and array-wide medians, where a loop over
    # the sides took 5-8 ms a frame in small numpy calls.
    px = np.asarray(squares_cm, dtype=np.float64) * 10 * px_per_mm - 0.5  # (squares, 4, 2)
    p0, p1 = px, np.roll(px, -1, axis=1)
    tangent = (p1 - p0) / (np.linalg.norm(p1 - p0, axis=2, keepdims=True) + 1e-9)
    outward = np.stack([-tangent[..., 1], tangent[..., 0]], axis=2)
    inward = np.einsum("ski,ski->sk", outward, (p0 + p1) / 2 - px.mean(1, keepdims=True)) < 0
    outward = np.where(inward[..., None], -outward, outward).reshape(-1, 2)
    p0, p1 = p0.reshape(-1, 2), p1.reshape(-1, 2)
    points = (
        p0[:, None, None]
        + _ALONG[None, :, None, None] * (p1 - p0)[:, None, None]
        + _ACROSS[None, None, :, None] * outward[:, None, None]
    )  # (sides, along, across, 2)
    sides = len(points)
    samples = cv2.remap(
        grey,
        points[..., 0].reshape(sides * len(_ALONG), -1).astype(np.float32),
        points[..., 1].reshape(sides * len(_ALONG), -1).astype(np.float32),
        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float64).reshape(sides, len(_ALONG), len(_ACROSS))
    seen = np.median(np.ptp(samples, axis=2), axis=1) >= MIN_STEP
    if not seen.any():
        return None
    samples = samples[seen]
    profiles = samples.mean(1)
    axis = np.where(np.abs(outward[seen, 0]) > np.abs(outward[seen, 1]), 0, 1)
    flat = np.concatenate([samples[:, :, :5], samples[:, :, -5:]], 2)
    spread = np.abs(flat - np.median(flat, axis=1, keepdims=True)).reshape(len(flat), -1)
    grain = np.median(spread, axis=1) * 1.4826
    yc = profiles - profiles.mean(1, keepdims=True)
    fit = _projections(yc)  # (edges, models): projection of each profile on each unit step
    best = fit.argmax(1)  # the step rising outward, black square to white margin
    projection = fit[np.arange(len(yc)), best]
    step = projection / _STEP_NORM[best]
    misfit = np.sqrt(np.maximum((yc * yc).sum(1) - projection**2, 0) / len(_ACROSS))
    good = (step > MIN_STEP) & (misfit < MAX_MISFIT * step)
    if not good.any():
        return None
    width, axis = _STEP_WIDTH[best][good], axis[good]
    overall = float(np.median(width))
    sigma = tuple(float(np.median(width[axis == a])) if (axis == a).any() else overall for a in (0, 1))
    return FrameBlur(sigma, float(np.median(grain[good] / step[good])))


def _wiener_taps(sigma_px: float, nsr: float) -> np.ndarray:
    """1-D Wiener inverse of a Gaussian of `sigma_px`, as FIR taps (identity when sharp)."""
    if sigma_px < BLURRED_PX:
        taps = np.zeros(TAPS, np.float32)
        taps[TAPS // 2] = 1.0
        return taps
    f = np.fft.fftfreq(4 * TAPS)
    gain = np.exp(-2 * np.pi**2 * (WIDTH_SHARE * sigma_px) ** 2 * f * f)
    kernel = np.fft.fftshift(np.real(np.fft.ifft(gain / (gain * gain + nsr))))
    mid = len(kernel) // 2
    taps = kernel[mid - TAPS // 2 : mid + TAPS // 2 + 1]
    return (taps / taps.sum()).astype(np.float32)


def deblurred(
    rect: np.ndarray,
    blur: FrameBlur | None,
    centres_px: np.ndarray | None = None,
    reach_px: np.ndarray | None = None,
) -> np.ndarray:
    """`rect` with the measured blur undone; `rect` itself when the frame is sharp enough.

    With `centres_px` and `reach_px` only the squares within reach of those centres are
    sharpened, the rest of the frame left as it is: settling reads a few accepted rims, and
    filtering the whole frame cost 9-25 ms a blurred hard frame where their squares cost a
    fraction. Each square is filtered with the taps' margin around it, so its pixels come out
    as they would from the whole frame (the frame's own border reflected alike).

    The result stays float32: rounding the sharpened frame back to uint8 moved the settled
    centres (hard validation median 0.52 / 0.62 mm in float32, 0.53 / 0.66 mm rounded), and
    costs the same time.
    """
    if blur is None or max(blur.sigma_px) < BLURRED_PX:
        return rect
    nsr = float(np.clip(NOISE_GAIN * blur.grain**2, *NSR_RANGE))
    kx, ky = (_wiener_taps(s, nsr) for s in blur.sigma_px)
    if centres_px is None:
        return cv2.sepFilter2D(rect, cv2.CV_32F, kx, ky, borderType=cv2.BORDER_REFLECT)
    out = rect.astype(np.float32)
    height, width = rect.shape[:2]
    margin = TAPS // 2
    centres = np.asarray(centres_px, np.float64).reshape(-1, 2)
    reach = np.broadcast_to(np.asarray(reach_px, np.float64), len(centres))
    low = np.clip(np.floor(centres - reach[:, None]).astype(int), 0, [width, height])
    high = np.clip(np.ceil(centres + reach[:, None]).astype(int) + 1, 0, [width, height])
    for (x0, y0), (x1, y1) in zip(low, high, strict=True):
        if x1 <= x0 or y1 <= y0:
            continue
        wx0, wy0 = max(0, x0 - margin), max(0, y0 - margin)
        wx1, wy1 = min(width, x1 + margin), min(height, y1 + margin)
        sharp = cv2.sepFilter2D(rect[wy0:wy1, wx0:wx1], cv2.CV_32F, kx, ky, borderType=cv2.BORDER_REFLECT)
        out[y0:y1, x0:x1] = sharp[y0 - wy0 : y1 - wy0, x0 - wx0 : x1 - wx0]
    return out
