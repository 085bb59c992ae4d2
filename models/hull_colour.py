"""Shading-free colour: log colour in which a shadow moves one axis only.

Hulls are told from the mat, their sides from their own shadows and shadows from dark tracks by
colour, under light that changes across the table. A shadow scales every channel alike, so in
log colour it is one shift along grey, and the chromaticity it keeps tells the ground in shadow
(scaled darker, its hue kept) from a dark thing standing on it.
"""

from __future__ import annotations

import cv2
import numpy as np

from models.medians import row_median

# Colour: log colour with shading split off (see shading_free).
LOG_OFFSET = 5.0  # keeps the log of dark, noisy pixels tame
SHADING_BASIS = np.array(
    [[1, 1, 1], [1, -1, 0], [1, 1, -2]], dtype=np.float32
) / np.array([[np.sqrt(3)], [np.sqrt(2)], [np.sqrt(6)]], dtype=np.float32)
LIGHTNESS_WEIGHT = 0.5
SHADOW_LIGHTNESS_WEIGHT = 0.15  # darkening: what a shadow does
SHADOW_MIN_STEP = 0.15  # log lightness
SHADOW_HUE_DEG = 8.0  # a shadowed colour is the lit one scaled (ambient light tints it a little)


def shading_free(bgr: np.ndarray) -> np.ndarray:
    """Log colour turned so that a shadow (all channels scaled alike) moves only the first axis.

    Under white light a shadow multiplies B, G and R by one factor, so in log colour it is a
    shift along (1, 1, 1); the two axes across it are chromaticity, which a shadow keeps. The
    lightness axis is kept but weighted down, so grey on grey still shows.
    """
    logc = bgr.astype(np.float32)
    logc += LOG_OFFSET
    cv2.log(logc, logc)
    return cv2.transform(logc, SHADING_BASIS)


def colour_distance(difference: np.ndarray) -> np.ndarray:
    """Lengths of colour differences (..., 3): np.linalg.norm's value bit for bit, added up
    channel by channel (numpy's reduction over an axis of three took five times as long, and
    the vehicle stage takes thousands of these a frame)."""
    squared = difference * difference
    return np.sqrt(squared[..., 0] + squared[..., 1] + squared[..., 2])


def sampled(rect: np.ndarray, px: np.ndarray) -> np.ndarray:
    """The rectified table at pixel positions (..., 2), bilinear.

    The rectified image ends at the table's edge; past it the edge's own pixels are repeated,
    so a profile running off the table sees no step there (black beyond it made the edge the
    outermost straight line of a hull's far side: clean tuning tables 147 -> 148 of 153).
    """
    return cv2.remap(rect, px[..., 0], px[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def median_colours(profiles: np.ndarray, stretches: list[tuple[int, int]], weight: float) -> np.ndarray:
    """The typical shading-free colour of each stretch [start, stop) of a side's profiles
    (lines, offsets, 3), their lightness weighted by `weight` there and restored here: (stretches, 3).

    Stretches of one width are averaged in one gather and all share one median: taken one by
    one, their small numpy calls cost the vehicle stage ~2 ms a frame.
    """
    means = np.empty((profiles.shape[0], len(stretches), profiles.shape[2]), profiles.dtype)
    widths = np.array([stop - start for start, stop in stretches])
    starts = np.array([start for start, _ in stretches])
    for width in set(widths.tolist()):
        which = np.nonzero(widths == width)[0]
        means[:, which] = profiles[:, starts[which, None] + np.arange(width)].mean(axis=2)
    colours = row_median(means, axis=0)
    colours[:, 0] /= weight
    return colours


def shadowed(lit: np.ndarray, dark: np.ndarray) -> np.ndarray:
    """Whether shading-free log colour `dark` is `lit` in shadow: darker, and in linear colour a
    multiple of it (a shadow scales all channels alike; a dark track or wall has its own hue).
    `dark` may be many colours (..., 3), and then so is the answer.

    The comparison is made in linear colour because the log's offset pulls a dark colour's
    chromaticity towards grey, so a shadow on a dark mat would seem to change its hue.
    """
    darker = lit[0] - dark[..., 0] >= SHADOW_MIN_STEP
    if not darker.any():  # most lines: no need for the hue
        return darker
    a = np.exp(SHADING_BASIS.T @ lit) - LOG_OFFSET
    b = np.exp(dark @ SHADING_BASIS) - LOG_OFFSET
    cosine = (b @ a) / np.maximum(np.linalg.norm(a) * np.linalg.norm(b, axis=-1), 1e-9)
    return darker & (cosine > np.cos(np.radians(SHADOW_HUE_DEG)))
