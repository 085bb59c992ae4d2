"""Train the base-centring net (models/centring.py) on synthetic tables and export it to ONNX.

Its tables are the verifier's (the same seeds, scenes and cameras). Each base whose rim shows
at least half is viewed from a few starts scattered around its true centre, as far off as the
rim fit ends up (a third within 1 mm, half within 3 mm, a sixth 3-5 mm), and the target is the
way back to the truth in the view's frame. torch is imported here only (the `train` extra).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.centring import MIRRORED_ROWS, OUTPUT, in_patch_frame
from models.synth.physical import SCALAR
from models.verifier import PATCH_SHAPE, SIZE_CHANNEL, rim_patches

MIN_VISIBLE = 0.5  # the bases the detector is judged on
RADIUS_MM = (16.0, 32.5)  # each size class's radius: the loss is in millimetres, not radii


@dataclass
class CentringRecipe:
    """Everything that decides the shipped net; `tablesight train --centring` reproduces it."""

    scenes: int = 400  # painted tables, the verifier's first
    # Path-traced tables, the verifier's first too, traced by Mitsuba's LLVM variant on the CPU
    # (10-15 s a table on two cores): 200 of them gave 25,000 views beside the painted 51,000.
    physical_scenes: int = 200
    physical_spp: int = 16
    physical_variant: str = "llvm_ad_rgb"
    hard_share: float = 0.5
    starts: int = 6  # views of each base
    epochs: int = 10
    batch: int = 256
    learning_rate: float = 3e-3  # the one-cycle schedule's peak
    seed: int = 0


def centring_samples(
    index: int, hard: bool, spp: int = 0, variant: str = SCALAR, starts: int = CentringRecipe.starts
):
    """Views (float16) of one training table's bases from starts around their truth, and the
    offsets (radii, view frame) back to it."""
    from models.detector import rectified
    from models.training import training_table

    rendered, calibration = training_table(index, hard, spp, variant)
    rect, ppm = rectified(rendered.image, calibration)
    nadir = np.asarray(calibration.camera_centre_cm, np.float64)[:2] * 10 * ppm - 0.5
    rng = np.random.default_rng([index, spp])
    bases = [b for b in rendered.truth.bases if b.rim_visible >= MIN_VISIBLE]
    if not bases:
        return np.zeros((0, *PATCH_SHAPE), np.float16), np.zeros((0, 2), np.float32)
    truth = np.repeat(np.array([[b.x_cm, b.y_cm] for b in bases]) * 10 * ppm - 0.5, starts, axis=0)
    diameter = np.repeat(np.array([b.diameter_mm for b in bases], np.float64), starts)
    n = len(truth)
    near, far = n // 3, n // 6
    distance = np.concatenate(
        [rng.uniform(0, 1, near), rng.uniform(0, 3, n - near - far), rng.uniform(3, 5, far)]
    )
    rng.shuffle(distance)
    angle = rng.uniform(0, 2 * np.pi, n)
    centres = truth + np.stack([np.cos(angle), np.sin(angle)], 1) * (distance * ppm)[:, None]
    radius = diameter / 2 * ppm * (1 + rng.normal(0, 0.02, n))  # as a measured radius might be
    patches = rim_patches(rect, centres, radius, nadir, diameter)
    offsets = in_patch_frame(truth - centres, centres, nadir, radius)
    return patches.astype(np.float16), offsets.astype(np.float32)


def make_views(recipe: CentringRecipe, log=print, jobs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Every table's views and offsets (`models.training.over_tables`: path-traced first)."""
    from functools import partial

    from models.training import over_tables, path_traced_count

    total = path_traced_count(recipe.physical_scenes, recipe.physical_spp) + recipe.scenes
    xs, ys = [], []
    t0 = time.perf_counter()
    for x, y in over_tables(partial(centring_samples, starts=recipe.starts), recipe, jobs):
        xs.append(x)
        ys.append(y)
        if len(xs) % 10 == 0 or len(xs) == total:
            log(f"table {len(xs)}/{total}: {sum(map(len, ys))} views, {time.perf_counter() - t0:.0f} s")
    return np.concatenate(xs), np.concatenate(ys)


def _network():
    """Four convolutions over (ray, radius), then dense layers that keep where on the ring each
    feature lies (pooling would lose which way the centre is off): ~81k weights."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(PATCH_SHAPE[0], 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.Flatten(), nn.Linear(32 * 7 * 4, 64), nn.ReLU(), nn.Linear(64, 2),
    )


def _radius_mm(xb):
    """Each view's base radius in millimetres, read off its size channel."""
    import torch

    return torch.where(xb[:, SIZE_CHANNEL, 0, 0] > 0, RADIUS_MM[1], RADIUS_MM[0])[:, None]


def train_centring(x: np.ndarray, y: np.ndarray, recipe: CentringRecipe, out: Path, log=print) -> dict:
    """Fit the net (a tenth of the views held out), export it to `out`; the held-out errors.

    The loss is the smooth L1 distance in millimetres, so a 65 mm base's view counts as much as
    a 32 mm one's. Views get the verifier's colour casts and grain, and half are mirrored.
    """
    import torch
    from torch import nn

    from models.training import colour_cast

    torch.manual_seed(recipe.seed)
    rng = np.random.default_rng(recipe.seed)
    order = rng.permutation(len(x))
    split = max(1, len(x) // 10)
    held, kept = order[:split], order[split:]
    net = _network()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    mirror = torch.from_numpy(MIRRORED_ROWS)
    opt = torch.optim.Adam(net.parameters(), lr=recipe.learning_rate)
    batches = max(1, len(kept) // recipe.batch)  # a tiny run still takes a step
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=recipe.learning_rate, total_steps=max(1, recipe.epochs * batches)
    )
    log(f"training on {len(kept)} views, {len(held)} held out")
    t0 = time.perf_counter()
    for epoch in range(recipe.epochs):
        net.train()
        perm = rng.permutation(kept)
        for start in range(0, batches * recipe.batch, recipe.batch):
            b = torch.from_numpy(perm[start : start + recipe.batch])
            xb, yb = xt[b].float(), yt[b].clone()
            xb[:, :SIZE_CHANNEL] = colour_cast(xb, rng)
            flip = torch.from_numpy(rng.random(len(b)) < 0.5)
            xb[flip] = xb[flip][:, :, mirror]
            yb[flip, 1] = -yb[flip, 1]
            radius = _radius_mm(xb)
            loss = nn.functional.smooth_l1_loss(net(xb) * radius, yb * radius, beta=0.5)
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
        report = _held_out(net, xt, yt, held)
        log(f"centring, epoch {epoch + 1}/{recipe.epochs}: loss {loss.item():.3f}, held out {report}, "
            f"{time.perf_counter() - t0:.0f} s")
    from models.training import export_onnx

    export_onnx(net, out, (1, *PATCH_SHAPE), {"rims": {0: "n"}, OUTPUT: {0: "n"}})
    return {**_held_out(net, xt, yt, held), "views": len(x)}


def _held_out(net, xt, yt, held: np.ndarray) -> dict:
    """Median and P95 distance (mm) from the truth of the held-out views' starts, and after the net."""
    import torch

    net.eval()
    before, after = [], []
    with torch.no_grad():
        for start in range(0, len(held), 1024):
            b = torch.from_numpy(held[start : start + 1024])
            xb = xt[b].float()
            radius = _radius_mm(xb)
            before.append((yt[b] * radius).norm(dim=1).numpy())
            after.append(((net(xb) - yt[b]) * radius).norm(dim=1).numpy())
    start_mm, left_mm = np.concatenate(before), np.concatenate(after)
    return {
        "start_mm": [round(float(np.median(start_mm)), 3), round(float(np.percentile(start_mm, 95)), 3)],
        "after_mm": [round(float(np.median(left_mm)), 3), round(float(np.percentile(left_mm, 95)), 3)],
    }
