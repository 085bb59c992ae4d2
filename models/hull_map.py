"""The learned look at hulls: how likely each coarse pixel of the table lies in a vehicle's footprint.

The classical masks find a hull by its colour against the mat and by its outline, so a hull
painted like its mat, or one an arm lies across, makes no hull-shaped blob (on the hard
validation tables 10 of the 16 hulls missed without any blob had an arm across them). A small
fully convolutional net reads the vehicle stage's own coarse table (4 mm a pixel) and draws
every footprint whole, the part under an arm included: it has seen hulls, arms, buildings and
cards, and a hull's running gear, turret and shadow together say where its footprint lies.

A roof is seen pushed away from the camera's nadir by its height's parallax, and the footprint
lies under it; so the net also reads, at each pixel, the offset from the nadir over the
camera's height (how far a thing of unit height there leans outward), and can draw the
footprint rather than the roof anywhere on the table.

Runs with onnxruntime; torch is only needed to train it (`models.hull_map_training`).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from models.base_map import normalised

STRIDE = 2  # the map's cells, in pixels of the coarse table it reads (8 mm)
ALIGN = 8  # the net halves the table three times: its input's sides are padded to this
SHIPPED_HULL_MAP = Path(__file__).parent / "weights" / "hull_map.onnx"
LOWEST_LOGIT = -80.0  # within float32's exp; a probability of 1.8e-35


def lean(shape: tuple[int, int], camera_cm: np.ndarray, px_per_cm: float) -> np.ndarray:
    """(2, rows, cols) float32: each pixel's offset from the camera's nadir (table x, y) over
    the camera's height, the outward lean of a thing of unit height standing there."""
    rows, cols = shape
    x = ((np.arange(cols, dtype=np.float32) + 0.5) / px_per_cm - camera_cm[0]) / camera_cm[2]
    y = ((np.arange(rows, dtype=np.float32) + 0.5) / px_per_cm - camera_cm[1]) / camera_cm[2]
    return np.stack(np.broadcast_arrays(x[None, :], y[:, None])).astype(np.float32)


def net_input(image: np.ndarray, lean_map: np.ndarray) -> np.ndarray:
    """(1, 5, rows', cols') float32: the normalised table and its lean, padded with zeros to ALIGN."""
    rows, cols = image.shape[:2]
    padded = np.zeros((1, 5, -(-rows // ALIGN) * ALIGN, -(-cols // ALIGN) * ALIGN), np.float32)
    padded[0, :3, :rows, :cols] = normalised(image)
    padded[0, 3:, :rows, :cols] = lean_map
    return padded


class HullMap:
    """An ONNX hull map: (1, 5, h, w) normalised table and lean in, (1, 1, h/2, w/2) logits out."""

    def __init__(self, path: Path) -> None:
        from models.verifier import cpu_session

        self.session = cpu_session(str(path))
        self.input = self.session.get_inputs()[0].name
        channels = self.session.get_inputs()[0].shape[1]
        if channels != 5 or self.session.get_outputs()[0].shape[1] != 1:
            raise ValueError(f"takes {channels} channels: not a hull map (table and lean, 5)")

    def probability(self, image: np.ndarray, camera_cm: np.ndarray, px_per_cm: float) -> np.ndarray:
        """(rows, cols) float32 on the coarse table `image`: the probability that each pixel lies
        in a hull's footprint (the map's cells interpolated to the pixels)."""
        rows, cols = image.shape[:2]
        x = net_input(image, lean((rows, cols), camera_cm, px_per_cm))
        logits = self.session.run(None, {self.input: x})[0][0, 0]
        size = (logits.shape[1] * STRIDE, logits.shape[0] * STRIDE)
        fine = cv2.resize(logits, size, interpolation=cv2.INTER_LINEAR)[:rows, :cols]
        # float32's exp overflows past 88: a camera a wrong lens file put 1.4 km off gave leans
        # of hundreds, logits of -388 and numpy's overflow warning on stderr. Below -80 the
        # probability is under 2e-35, nothing at any threshold: the logits are cut there, and
        # every probability above it is the same as before.
        return (1 / (1 + np.exp(-np.maximum(fine, LOWEST_LOGIT)))).astype(np.float32)


def footprints(probability: np.ndarray, px_per_cm: float, threshold: float = 0.5) -> list[tuple]:
    """The map's hulls: (centre cm, length cm, width cm, heading deg mod 180) of each blob over
    `threshold`, measured by the moments of its probability.

    The moments of a rectangle's coverage give its centre, axis and area exactly, and a
    blurred edge moves none of them (the blur keeps the mass and is symmetric), where the
    outline at a threshold moves with the blur.
    """
    count, labels, stats, _ = cv2.connectedComponentsWithStats((probability > threshold).astype(np.uint8))
    rows, cols = probability.shape
    found = []
    for i in range(1, count):
        x, y, w, h = stats[i, :4]
        window = (slice(max(0, y - 2), min(rows, y + h + 2)), slice(max(0, x - 2), min(cols, x + w + 2)))
        own = cv2.dilate((labels[window] == i).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        p = np.where(own, probability[window], 0).astype(np.float64)
        mass = p.sum()
        ys, xs = np.mgrid[window]
        cx, cy = (p * xs).sum() / mass, (p * ys).sum() / mass
        dx, dy = xs - cx, ys - cy
        cross = (p * dx * dy).sum()
        cov = np.array([[(p * dx * dx).sum(), cross], [cross, (p * dy * dy).sum()]]) / mass
        values, vectors = np.linalg.eigh(cov)
        major = vectors[:, 1]
        ratio = np.sqrt(max(values[1], 1e-9) / max(values[0], 1e-9))
        area_cm2 = mass / px_per_cm**2
        length = np.sqrt(area_cm2 * ratio)
        heading = np.degrees(np.arctan2(major[1], major[0])) % 180
        centre = (np.array([cx, cy]) + 0.5) / px_per_cm
        width = area_cm2 / length
        found.append((centre, float(length), float(width), float(heading)))
    return found
