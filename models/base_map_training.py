"""Train the base map (models/base_map.py) on synthetic tables and export it to ONNX.

Its tables are the verifier's first training tables (the same seeds, scenes and cameras), seen
as the candidate stage sees them: rectified and reduced to the vote scale. The target is a
Gaussian of one cell's width at each base whose rim shows, in its class's channel; around a
base that is mostly hidden the net is neither rewarded nor punished. torch is imported here
only (the `train` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.base_map import CLASS_SPLIT_MM, STRIDE, cell_coordinates, normalised
from models.synth.physical import SCALAR


@dataclass
class BaseMapRecipe:
    """Everything that decides the shipped base map; `tablesight train --base-map` reproduces it."""

    scenes: int = 400  # painted tables, the verifier's first (seeds from TRAIN_SEED_BASE)
    # Path-traced tables (its first too): the grain, flock and contact shadows that the painter
    # does not draw, where the votes miss most. Traced by Mitsuba's LLVM variant on the CPU
    # (~9 s a table on two cores): 200 of them, where session 22's map had 32, found 20 more
    # bases on the eight validation sets with 3 fewer false rims.
    physical_scenes: int = 200
    physical_spp: int = 16
    physical_variant: str = "llvm_ad_rgb"  # Mitsuba's (models/synth/physical.py VARIANTS)
    hard_share: float = 0.5
    steps: int = 2400
    batch: int = 16
    crop_px: int = 256  # 51 cm of table at the vote scale: several squads and their context
    learning_rate: float = 3e-3
    min_visible: float = 0.4  # a base with less of its rim in view is neither target nor background
    sigma_cells: float = 0.7
    seed: int = 0


@dataclass(frozen=True)
class MapTable:
    """A table at the vote scale and its bases: (n, 4) x, y (its pixels), diameter mm, rim visible."""

    image: np.ndarray
    bases: np.ndarray
    traced: bool


def map_table(index: int, hard: bool, spp: int = 0, variant: str = SCALAR) -> MapTable:
    """The vote-scale image and bases of the verifier's training table `index`."""
    from models.candidates import vote_image
    from models.detector import rectified
    from models.training import training_table

    rendered, calibration = training_table(index, hard, spp, variant)
    rect, ppm = rectified(rendered.image, calibration)
    small, f = vote_image(rect, ppm)
    scale = 10 * ppm * f
    truth = rendered.truth.bases
    bases = np.array([[b.x_cm, b.y_cm, b.diameter_mm, b.rim_visible] for b in truth]).reshape(-1, 4)
    bases[:, :2] = bases[:, :2] * scale - 0.5
    return MapTable(small, bases, spp > 0)


def make_tables(recipe: BaseMapRecipe, log=print, jobs: int = 1) -> list[MapTable]:
    """Every table of the recipe (`models.training.over_tables`: path-traced first)."""
    from models.training import collect_tables

    return collect_tables(map_table, recipe, log, jobs)


def targets(
    bases: np.ndarray, shape: tuple[int, int], recipe: BaseMapRecipe
) -> tuple[np.ndarray, np.ndarray]:
    """(2, h, w) target and ignore maps on the map's grid for an image of `shape` (rows, cols)."""
    h, w = shape[0] // STRIDE, shape[1] // STRIDE
    target, ignore = np.zeros((2, h, w), np.float32), np.zeros((2, h, w), np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    # Each base peaks at exactly 1 in its nearest cell: the loss counts a base found only where
    # the target is 1, and a bump centred between cells would leave the base without such a cell.
    cells = np.round(cell_coordinates(bases[:, :2]))
    for (gx, gy), diameter, visible in zip(cells, bases[:, 2], bases[:, 3], strict=True):
        bump = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * recipe.sigma_cells**2))
        channel = int(diameter > CLASS_SPLIT_MM)
        if visible >= recipe.min_visible:
            np.maximum(target[channel], bump, out=target[channel])
        else:
            np.maximum(ignore[channel], (bump > 0.1).astype(np.float32), out=ignore[channel])
    return target, ignore


def _crops(tables: list[tuple[np.ndarray, np.ndarray]], recipe: BaseMapRecipe, rng: np.random.Generator):
    """A batch of random crops (on the map's grid), turned, mirrored, with a colour cast and grain."""
    import torch

    size = recipe.crop_px
    xs, ts, gs = [], [], []
    for _ in range(recipe.batch):
        image, bases = tables[rng.integers(len(tables))]
        rows, cols = image.shape[1:]
        y0 = rng.integers(0, max(1, rows - size)) // STRIDE * STRIDE
        x0 = rng.integers(0, max(1, cols - size)) // STRIDE * STRIDE
        crop = np.zeros((3, size, size), np.float32)
        part = image[:, y0 : y0 + size, x0 : x0 + size]
        crop[:, : part.shape[1], : part.shape[2]] = part
        target, ignore = targets(bases - [x0, y0, 0, 0], (size, size), recipe)
        turns, mirror = int(rng.integers(4)), rng.random() < 0.5
        crop, target, ignore = (np.rot90(a, turns, axes=(1, 2)) for a in (crop, target, ignore))
        if mirror:
            crop, target, ignore = (a[:, :, ::-1] for a in (crop, target, ignore))
        crop = crop * rng.uniform(0.7, 1.3, (3, 1, 1)) + rng.normal(0, 0.2, (3, 1, 1))
        crop = crop + rng.normal(0, rng.uniform(0, 0.15), crop.shape)
        xs.append(crop.astype(np.float32))
        ts.append(np.ascontiguousarray(target))
        gs.append(np.ascontiguousarray(ignore))
    return (torch.from_numpy(np.stack(a)) for a in (xs, ts, gs))


def _network():
    import torch.nn as nn

    def block(inputs: int, outputs: int, stride: int = 1) -> nn.Module:
        conv = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        return nn.Sequential(conv, nn.BatchNorm2d(outputs), nn.ReLU(inplace=True))

    # Three halvings to the 16 mm grid; the three blocks on it see ~22 cm of table around a cell.
    net = nn.Sequential(
        block(3, 12, 2), block(12, 16, 2), block(16, 24), block(24, 32, 2),
        block(32, 32), block(32, 32), block(32, 32), nn.Conv2d(32, 2, 1),
    )
    nn.init.constant_(net[-1].bias, -2.19)  # start near "no base anywhere" (p = 0.1), as CenterNet does
    return net


def focal_loss(logits, target, ignore):
    """CenterNet's penalty-reduced focal loss: a cell near a base is punished less for glowing."""
    import torch

    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    centre = (target > 0.99).float()
    background = (1 - centre) * (1 - ignore)
    found = -torch.log(p) * (1 - p) ** 2 * centre
    false = -torch.log(1 - p) * p**2 * (1 - target) ** 4 * background
    return (found.sum() + false.sum()) / centre.sum().clamp(min=1)


def train_base_map(tables: list[MapTable], recipe: BaseMapRecipe, out: Path, log=print) -> dict:
    """Fit the net on random crops of the tables and export it to `out`; the last steps' loss."""
    import torch

    from models.training import export_onnx, fit_steps

    torch.manual_seed(recipe.seed)
    rng = np.random.default_rng(recipe.seed)
    ready = [(normalised(t.image), t.bases) for t in tables]
    net = _network()
    batches = (tuple(_crops(ready, recipe, rng)) for _ in range(recipe.steps))
    loss = fit_steps(net, batches, lambda net, b: focal_loss(net(b[0]), b[1], b[2]), recipe, "base map", log)
    export_onnx(net, out, (1, 3, 256, 256), {"table": {2: "h", 3: "w"}, "logits": {2: "gh", 3: "gw"}})
    return {"loss": round(loss, 4), "tables": len(tables)}
