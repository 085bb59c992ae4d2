"""The learned step: is this fitted rim a base, or mat texture, a coin, a printed circle?

Hand-set thresholds on edge coverage and contrast cannot separate a green-on-green flocked base
from grass blotches. A small CNN can, if it looks at the right thing: the base's ring unrolled
into polar coordinates around the fitted centre (rays x radius), so every base, whatever its
size class or place on the table, becomes the same picture. Ray 0 points away from the
camera's nadir, so parallax (the top rim pushed outward on the far side) always appears in
the same rows. Runs with onnxruntime alone; torch is only needed to train it.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

RAYS = 48
WRAP = 4  # rays repeated at each end so convolutions see the ring as closed
SAMPLES = 24
INNER, OUTER = 0.55, 1.45  # radius range sampled, in units of the base radius
CHANNELS = 4  # B, G, R normalised, plus the size class
PATCH_SHAPE = (CHANNELS, RAYS + 2 * WRAP, SAMPLES)


def polar_view(
    image: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    angles: np.ndarray,
    fractions: np.ndarray,
) -> np.ndarray:
    """(n, K, S, 3) float32 colours along K rays per disc (`angles` (n, K)), at `fractions` of its radius.

    Coordinates are float32: remap quantises them to 1/32 px anyway.
    """
    n = len(centres_px)
    rho = (radius_px[:, None] * fractions[None]).astype(np.float32)  # (n, S)
    cx, cy = np.asarray(centres_px, np.float32).T
    mx = cx[:, None, None] + np.cos(angles).astype(np.float32)[..., None] * rho[:, None, :]
    my = cy[:, None, None] + np.sin(angles).astype(np.float32)[..., None] * rho[:, None, :]
    polar = cv2.remap(
        image, mx.reshape(n, -1), my.reshape(n, -1), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return polar.reshape(n, angles.shape[1], len(fractions), 3).astype(np.float32)


def rim_patches(
    image: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    nadir_px: np.ndarray,
    diameter_mm: np.ndarray,
) -> np.ndarray:
    """(n, CHANNELS, RAYS + 2*WRAP, SAMPLES) float32 polar views of each candidate rim."""
    n = len(centres_px)
    if n == 0:
        return np.zeros((0, *PATCH_SHAPE), np.float32)
    away = centres_px - nadir_px
    start = np.arctan2(away[:, 1], away[:, 0])
    # The wrapped rays are sampled again rather than copied, so the patch is built in place.
    angles = start[:, None] + np.arange(-WRAP, RAYS + WRAP)[None] * (2 * np.pi / RAYS)  # (n, K)
    fractions = np.linspace(INNER, OUTER, SAMPLES)
    polar = polar_view(image, centres_px, radius_px, angles, fractions).transpose(0, 3, 1, 2)
    ring = polar[:, :, WRAP:-WRAP]
    mean = ring.mean(axis=(2, 3), keepdims=True)
    spread = ring.std(axis=(1, 2, 3), keepdims=True)
    out = np.empty((n, *PATCH_SHAPE), np.float32)
    np.divide(polar - mean, spread + 8.0, out=out[:, :3])
    out[:, 3] = np.where(diameter_mm > 50, 1.0, -1.0)[:, None, None]
    return out


class RimVerifier:
    """An ONNX model mapping polar rim views to the probability of a real base."""

    def __init__(self, path: str | Path) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 2
        self.path = Path(path)
        self.session = ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.input = self.session.get_inputs()[0].name
        shape = self.session.get_inputs()[0].shape
        if tuple(shape[1:]) != PATCH_SHAPE:
            raise ValueError(f"expects input {shape}, not a rim verifier")

    def probability(self, patches: np.ndarray) -> np.ndarray:
        if not len(patches):
            return np.zeros(0)
        logits = self.session.run(None, {self.input: patches})[0].reshape(-1)
        return 1.0 / (1.0 + np.exp(-logits.astype(np.float64)))
