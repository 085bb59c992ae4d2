"""The learned look at the whole table: how likely a base of each class is centred near a point.

The vote maps rank candidates by how much of a circle's edge shows. On a grainy, dim or
flocked table (sand bases on sand, green flock on grass) a real rim gathers fewer votes than
the mat's own texture peaks, and 400 candidates stop short of it: on the path-traced hard
validation tables 18 of 271 bases had their peak ranked below the cut (with the map, 1). A small fully
convolutional net sees what the votes cannot weigh, a figure standing in the middle, the
base's shadow, a squad's spacing, and says where bases of each class are likely, in cells of
16 mm; the peaks are ranked by their votes times the square root of that likelihood. The
peaks still place the candidates: the map is too coarse for that, and need not be finer.

Runs with onnxruntime on the candidates' own reduced image (0.5 px/mm); torch is only needed
to train it (`models.base_map_training`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

STRIDE = 8  # the map's cells, in pixels of the image it reads (16 mm at 0.5 px/mm)
CLASS_SPLIT_MM = 50.0  # channel 0 below (32 mm bases), channel 1 above (65 mm)
SHIPPED_BASE_MAP = Path(__file__).parent / "weights" / "base_map.onnx"


def normalised(image: np.ndarray) -> np.ndarray:
    """(3, h, w) float32: each channel less its table-wide mean, over the table's spread.

    A whole-table statistic, not a per-pixel one: the net must still see that a patch is darker
    than the mat (a shadow), but not whether the room was dim. OpenCV's statistics: numpy's
    over the interleaved channels took 55 ms a frame, these 3 ms.
    """
    mean, spread = cv2.meanStdDev(image)
    scale = np.float32(1.0 / (float(spread.mean()) + 1.0))
    out = np.empty((3, *image.shape[:2]), np.float32)
    for channel, plane in enumerate(cv2.split(image)):
        out[channel] = plane
        out[channel] -= np.float32(mean[channel, 0])
        out[channel] *= scale
    return out


def cell_coordinates(points_px: np.ndarray) -> np.ndarray:
    """Points in the read image's pixels (n, 2) as positions on the map's grid (float32)."""
    return ((points_px + 0.5) / STRIDE - 0.5).astype(np.float32)


def map_peaks(probability: np.ndarray, bar: float) -> tuple[np.ndarray, np.ndarray]:
    """The cells where a channel of a map (`BaseMap.probabilities`) reaches `bar` and none of
    their 8 neighbours is higher: (n, 2) their centres in the read image's pixels and (n,)
    their channels."""
    centres, channels = [], []
    for channel, plane in enumerate(probability):
        ys, xs = np.nonzero((plane == cv2.dilate(plane, np.ones((3, 3), np.uint8))) & (plane >= bar))
        centres.append((np.column_stack([xs, ys]) + 0.5) * STRIDE - 0.5)
        channels.append(np.full(len(xs), channel))
    return np.vstack(centres).astype(np.float64), np.concatenate(channels)


class BaseMap:
    """An ONNX base map: (1, 3, h, w) normalised image in, (1, 2, h/8, w/8) logits out."""

    def __init__(self, path: Path) -> None:
        from models.verifier import cpu_session

        self.session = cpu_session(str(path))
        self.input = self.session.get_inputs()[0].name

    def probabilities(self, image: np.ndarray) -> np.ndarray:
        """(2, h/8, w/8) float32: per cell, the probability that a base of each class is centred there."""
        logits = self.session.run(None, {self.input: normalised(image)[None]})[0][0]
        return (1 / (1 + np.exp(-logits))).astype(np.float32)

    def likelihood(self, image: np.ndarray, points_px: np.ndarray, diameter_mm: np.ndarray) -> np.ndarray:
        """The map's probability at each point (image pixels) for its size class."""
        return likelihood_at(self.probabilities(image), points_px, diameter_mm)


def likelihood_at(probability: np.ndarray, points_px: np.ndarray, diameter_mm: np.ndarray) -> np.ndarray:
    """A map's probability (from `BaseMap.probabilities`) at points of the image it read, each
    for its size class: kept, the map answers later stages without running again."""
    grid = cell_coordinates(np.asarray(points_px, dtype=np.float64).reshape(-1, 2))
    larger = np.asarray(diameter_mm) > CLASS_SPLIT_MM
    out = np.empty(len(grid))
    for channel, chosen in enumerate((~larger, larger)):
        if not chosen.any():
            continue
        # One row of points: remap takes fewer than 32,767 rows, a frame has thousands of peaks.
        sampled = cv2.remap(
            probability[channel], grid[None, :, 0], grid[None, :, 1], cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        out[chosen] = sampled[0, chosen]
    return out
