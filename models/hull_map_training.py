"""Train the hull map (models/hull_map.py) on synthetic tables and export it to ONNX.

Its tables are the verifier's training tables (the same seeds, scenes and cameras), seen as the
vehicle stage sees them: rectified and reduced to its coarse scale. The target is each cell's
share of a hull's footprint, the whole footprint even where an arm or a tree covers part of it;
around a hull that is mostly hidden the net is neither rewarded nor punished. Hulls are few, so
most crops are drawn around one. torch is imported here only (the `train` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.base_map import normalised
from models.hull_map import ALIGN, STRIDE, lean
from models.hull_view import PX_PER_CM
from models.synth.physical import SCALAR

SUPERSAMPLE = 8  # footprints are drawn this much finer than the map's cells (1 mm), then averaged


@dataclass
class HullMapRecipe:
    """Everything that decides the shipped hull map; `tablesight train --hull-map` reproduces it."""

    scenes: int = 1200  # painted tables, the verifier's first (seeds from TRAIN_SEED_BASE)
    # Path-traced tables (its first too): contact shadows and soft light on the hulls' walls.
    physical_scenes: int = 40
    physical_spp: int = 16
    physical_variant: str = SCALAR  # Mitsuba's (models/synth/physical.py VARIANTS)
    hard_share: float = 0.5
    steps: int = 8000
    batch: int = 16
    crop_px: int = 160  # 64 cm of table at 4 mm a pixel: the longest hull and what lies around it
    around_a_hull: float = 0.7  # share of crops drawn with a hull in them
    learning_rate: float = 3e-3
    min_visible: float = 0.3  # a hull with less of its outline in view is neither target nor background
    seed: int = 0


@dataclass(frozen=True)
class HullTable:
    """A table at the coarse scale, the camera (x, y, height in table cm) and its hulls'
    footprints: (n, 4, 2) corners in the image's pixels and the share of each outline in view."""

    image: np.ndarray
    camera_cm: np.ndarray
    footprints: np.ndarray
    visible: np.ndarray


def hull_table(index: int, hard: bool, spp: int = 0, variant: str = SCALAR) -> HullTable:
    """The coarse image and hulls of the verifier's training table `index`."""
    from models.detections import Vehicles
    from models.detector import rectified
    from models.hull_view import coarse_table
    from models.training import training_table

    rendered, calibration = training_table(index, hard, spp, variant)
    rect, ppm = rectified(rendered.image, calibration)
    truth = rendered.truth.vehicles
    corners = Vehicles.placed(truth).corners_cm().reshape(-1, 4, 2) * PX_PER_CM - 0.5
    visible = np.array([v.visible for v in truth])
    camera = np.asarray(calibration.camera_centre_cm, np.float64)
    return HullTable(coarse_table(rect, ppm), camera, corners, visible)


def make_tables(recipe: HullMapRecipe, log=print, jobs: int = 1) -> list[HullTable]:
    """Every table of the recipe (`models.training.over_tables`: path-traced first)."""
    from models.training import collect_tables

    return collect_tables(hull_table, recipe, log, jobs, every=50)


def targets(
    footprints: np.ndarray, visible: np.ndarray, shape: tuple[int, int], min_visible: float
) -> tuple[np.ndarray, np.ndarray]:
    """(h, w) target (each cell's share of a footprint) and ignore maps on the map's grid for a
    coarse image of `shape` (rows, cols)."""
    cells = (shape[1] // STRIDE, shape[0] // STRIDE)
    drawn, hidden = (np.zeros((cells[1] * SUPERSAMPLE, cells[0] * SUPERSAMPLE), np.uint8) for _ in range(2))
    for corners, seen in zip(footprints, visible, strict=True):
        polygon = np.round((corners + 0.5) * SUPERSAMPLE / STRIDE - 0.5).astype(np.int32)
        cv2.fillPoly(drawn if seen >= min_visible else hidden, [polygon], 1)
    target = cv2.resize(drawn.astype(np.float32), cells, interpolation=cv2.INTER_AREA)
    # A mostly hidden hull, and a cell's width around it, is left out of the loss.
    under = cv2.resize(hidden.astype(np.float32), cells, interpolation=cv2.INTER_AREA) > 0
    ignore = cv2.dilate(under.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(np.float32)
    return target, ignore * (target < 0.5)


def _turned(points: np.ndarray, turns: int, mirror: bool, size: int) -> np.ndarray:
    """Points (..., 2) of a square crop's pixels where np.rot90 (`turns`) and a left-right mirror put them."""
    x, y = points[..., 0], points[..., 1]
    for _ in range(turns):
        x, y = y, size - 1 - x
    if mirror:
        x = size - 1 - x
    return np.stack([x, y], axis=-1)


def _crop_origin(table: HullTable, size: int, around: bool, rng: np.random.Generator) -> tuple[int, int]:
    rows, cols = table.image.shape[:2]
    seen = table.visible >= 0.5
    if around and seen.any():
        centre = table.footprints[rng.choice(np.nonzero(seen)[0])].mean(axis=0)
        x0, y0 = centre + rng.uniform(-size / 3, size / 3, 2) - size / 2
    else:
        x0, y0 = rng.uniform(0, max(1, cols - size)), rng.uniform(0, max(1, rows - size))
    x0 = int(np.clip(x0, 0, max(0, cols - size))) // STRIDE * STRIDE
    y0 = int(np.clip(y0, 0, max(0, rows - size))) // STRIDE * STRIDE
    return x0, y0


def crops(tables: list[HullTable], ready: list[np.ndarray], recipe: HullMapRecipe, rng: np.random.Generator):
    """A batch of crops: net inputs (b, 5, s, s), targets and ignore maps (b, 1, s/2, s/2); each
    crop turned and mirrored (its footprints and the nadir with it), with a colour cast and grain."""
    size = recipe.crop_px
    xs, ts, gs = [], [], []
    for _ in range(recipe.batch):
        k = int(rng.integers(len(tables)))
        table, image = tables[k], ready[k]
        x0, y0 = _crop_origin(table, size, rng.random() < recipe.around_a_hull, rng)
        crop = np.zeros((3, size, size), np.float32)
        part = image[:, y0 : y0 + size, x0 : x0 + size]
        crop[:, : part.shape[1], : part.shape[2]] = part
        turns, mirror = int(rng.integers(4)), bool(rng.random() < 0.5)
        crop = np.rot90(crop, turns, axes=(1, 2))
        if mirror:
            crop = crop[:, :, ::-1]
        nadir = table.camera_cm[:2] * PX_PER_CM - 0.5 - [x0, y0]
        nadir = _turned(nadir, turns, mirror, size)
        camera = np.array([*(nadir + 0.5) / PX_PER_CM, table.camera_cm[2]])
        footprints = _turned(table.footprints - [x0, y0], turns, mirror, size)
        target, ignore = targets(footprints, table.visible, (size, size), recipe.min_visible)
        crop = crop * rng.uniform(0.7, 1.3, (3, 1, 1)) + rng.normal(0, 0.2, (3, 1, 1))
        crop += rng.standard_normal(crop.shape, np.float32) * np.float32(rng.uniform(0, 0.15))
        blank = part.shape[1] < size or part.shape[2] < size
        if blank:  # past the table's edge the net sees nothing at all, as at run time
            inside = np.zeros((size, size), bool)
            inside[: part.shape[1], : part.shape[2]] = True
            inside = np.rot90(inside, turns)
            crop = crop * (inside[:, ::-1] if mirror else inside)
        xs.append(np.concatenate([crop, lean((size, size), camera, PX_PER_CM)]).astype(np.float32))
        ts.append(target[None])
        gs.append(ignore[None])
    return np.stack(xs), np.stack(ts), np.stack(gs)


def _network():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def block(inputs: int, outputs: int, stride: int = 1, dilation: int = 1) -> nn.Module:
        conv = nn.Conv2d(inputs, outputs, 3, stride, dilation, dilation, bias=False)
        return nn.Sequential(conv, nn.BatchNorm2d(outputs), nn.ReLU(inplace=True))

    class HullNet(nn.Module):
        """Down to 32 mm cells, where dilated blocks see ~60 cm of table (a hull and the arm
        across it), and back up to 8 mm cells past the finer layers' edges."""

        def __init__(self) -> None:
            super().__init__()
            self.fine = block(5, 12, 2)
            self.middle = nn.Sequential(block(12, 24, 2), block(24, 24))
            self.coarse = nn.Sequential(
                block(24, 40, 2), block(40, 40, 1, 2), block(40, 40, 1, 4), block(40, 40, 1, 8)
            )
            self.up_middle = block(40 + 24, 24)
            self.up_fine = block(24 + 12, 12)
            self.head = nn.Conv2d(12, 1, 1)
            nn.init.constant_(self.head.bias, -2.19)  # start near "no hull anywhere" (p = 0.1)

        def forward(self, x):
            fine = self.fine(x)
            middle = self.middle(fine)
            coarse = self.coarse(middle)
            middle = self.up_middle(torch.cat([F.interpolate(coarse, scale_factor=2.0), middle], 1))
            fine = self.up_fine(torch.cat([F.interpolate(middle, scale_factor=2.0), fine], 1))
            return self.head(fine)

    return HullNet()


_shared: dict = {}


def _share(tables: list[HullTable], recipe: HullMapRecipe) -> None:
    _shared.update(tables=tables, ready=[normalised(t.image) for t in tables], recipe=recipe)


def _batch(step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step `step`'s batch, seeded by the step: the same whichever process makes it."""
    recipe = _shared["recipe"]
    return crops(_shared["tables"], _shared["ready"], recipe, np.random.default_rng((recipe.seed, step)))


def batches(tables: list[HullTable], recipe: HullMapRecipe, jobs: int = 1):
    """Every step's batch in order; with `jobs` > 1 made ahead by that many processes (spawned,
    as in `models.training.over_tables`), a few per process, so that a GPU need not wait."""
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    if jobs == 1:
        _share(tables, recipe)
        yield from map(_batch, range(recipe.steps))
        return
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn"), initializer=_share,
                             initargs=(tables, recipe)) as pool:
        ahead: deque = deque()
        for step in range(recipe.steps):
            ahead.append(pool.submit(_batch, step))
            if len(ahead) > 4 * jobs:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()


def train_hull_map(
    tables: list[HullTable], recipe: HullMapRecipe, out: Path, log=print, jobs: int = 1
) -> dict:
    """Fit the net on crops of the tables and export it to `out`; the last steps' loss. The
    batches do not depend on `jobs`; on a GPU (when torch sees one) the net trains there."""
    import torch
    import torch.nn.functional as F

    from models.training import export_onnx, fit_steps

    if recipe.crop_px % ALIGN:
        raise ValueError(f"crop_px must be a multiple of {ALIGN}")
    torch.manual_seed(recipe.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = _network().to(device)

    def loss_of(net, batch):  # binary cross-entropy over the cells not left out
        x, target, ignore = (torch.from_numpy(a).to(device) for a in batch)
        weight = 1 - ignore
        loss = F.binary_cross_entropy_with_logits(net(x), target, reduction="none")
        return (loss * weight).sum() / weight.sum()

    loss = fit_steps(net, batches(tables, recipe, jobs), loss_of, recipe, "hull map", log, digits=4)
    export_onnx(net, out, (1, 5, 160, 160), {"table": {2: "h", 3: "w"}, "logits": {2: "gh", 3: "gw"}})
    return {"loss": round(loss, 5), "tables": len(tables)}
