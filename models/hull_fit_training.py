"""Train the hull-fit net (models/hull_fit.py) on synthetic tables and export it to ONNX.

Its tables are the verifier's training tables (the same seeds, scenes and cameras). Each hull
whose outline shows at least MIN_VISIBLE is kept as a window of table around it; every step
views hulls from measured axes drawn around their truth (as far off as the vehicle stage ends
up: a few millimetres, a degree or two, now and then an end 2 cm out), mirrored at random, and
the target is the true footprint in that view's frame. torch is imported here only (the
`train` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.detections import heading_axes
from models.hull_fit import (
    ANSWERS,
    CHANNELS,
    CROP_PX,
    MIRRORED_SIGNS,
    OUTPUT,
    VIEW_REACH_CM,
    mirrored,
    table_statistics,
    view,
    window,
)
from models.synth.physical import SCALAR

MIN_VISIBLE = 0.4  # a little under the judged half: an arm across a hull is what the net must see past
OFF_CM = 1.0  # the measured centre's spread around the truth, each way
MOST_OFF_CM = 3.0
TURN_DEG = 1.5  # ... and its heading's
MOST_TURN_DEG = 5.0
WINDOW_CM = VIEW_REACH_CM + MOST_OFF_CM + 1.0
ANSWER_SCALE = np.array([1.0, 1.0, 1.0, 1.0, 0.3], np.float32)  # a degree counts as 3 mm in the loss


@dataclass
class HullFitRecipe:
    """Everything that decides the shipped net; `tablesight train --hull-fit` reproduces it."""

    scenes: int = 1200  # painted tables, the verifier's first
    physical_scenes: int = 200  # path-traced (LLVM variant), the verifier's first too
    physical_spp: int = 16
    physical_variant: str = "llvm_ad_rgb"
    hard_share: float = 0.5
    steps: int = 6000
    batch: int = 32
    learning_rate: float = 2e-3
    seed: int = 0


@dataclass(frozen=True)
class HullWindows:
    """A table's hulls, each as a `window` of table around its truth: the windows, their corners
    (cm), the footprints (x, y, length, width, heading), the camera and the table's statistics."""

    windows: list[np.ndarray]
    origins: np.ndarray
    footprints: np.ndarray
    camera_cm: np.ndarray
    statistics: tuple[np.ndarray, float]


def hull_windows(index: int, hard: bool, spp: int = 0, variant: str = SCALAR) -> HullWindows:
    """The hulls of the verifier's training table `index` (those at least MIN_VISIBLE in view)."""
    from models.detector import rectified
    from models.training import training_table

    rendered, calibration = training_table(index, hard, spp, variant)
    rect, ppm = rectified(rendered.image, calibration)
    hulls = [v for v in rendered.truth.vehicles if v.visible >= MIN_VISIBLE]
    pieces = [window(rect, ppm, (v.x_cm, v.y_cm), WINDOW_CM) for v in hulls]
    return HullWindows(
        [p for p, _ in pieces],
        np.array([o for _, o in pieces]).reshape(-1, 2),
        np.array([[v.x_cm, v.y_cm, v.length_cm, v.width_cm, v.heading_deg] for v in hulls]).reshape(-1, 5),
        np.asarray(calibration.camera_centre_cm, np.float64),
        table_statistics(rect),
    )


def make_windows(recipe: HullFitRecipe, log=print, jobs: int = 1) -> list[HullWindows]:
    """Every table of the recipe (`models.training.over_tables`: path-traced first)."""
    from models.training import collect_tables

    return collect_tables(hull_windows, recipe, log, jobs, every=50)


def _hulls(tables: list[HullWindows]) -> list[tuple[HullWindows, int]]:
    return [(t, i) for t in tables for i in range(len(t.windows))]


def sample(table: HullWindows, i: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One view of hull `i` from an axis drawn around its truth, and the footprint as the net
    states it there (`models.hull_fit.ANSWERS`)."""
    x, y, length, width, heading = table.footprints[i]
    off = np.clip(rng.normal(0, OFF_CM, 2), -MOST_OFF_CM, MOST_OFF_CM)
    turn = float(np.clip(rng.normal(0, TURN_DEG), -MOST_TURN_DEG, MOST_TURN_DEG))
    measured = heading + turn + 180.0 * rng.integers(2)  # either end may be taken as the front
    along, across = heading_axes(measured)
    centre = np.array([x, y]) + off
    seen = view(table.windows[i], table.origins[i], centre, measured, table.camera_cm, table.statistics)
    back = -off
    answer = np.array([back @ along, back @ across, length, width, -turn], np.float32)
    return seen, answer


def batch(hulls: list, recipe: HullFitRecipe, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Views (b, CHANNELS, *CROP_PX) of hulls drawn at random, mirrored at random, with a colour
    cast and grain, and their answers."""
    xs, ys = [], []
    for k in rng.integers(len(hulls), size=recipe.batch):
        table, i = hulls[k]
        seen, answer = sample(table, i, rng)
        for way in ("along", "across"):
            if rng.random() < 0.5:
                seen = mirrored(seen[None], way)[0]
                answer = answer * MIRRORED_SIGNS[way].astype(np.float32)
        seen[:3] = seen[:3] * rng.uniform(0.75, 1.25, (3, 1, 1)) + rng.normal(0, 0.1, (3, 1, 1))
        seen[:3] += rng.standard_normal(seen[:3].shape, np.float32) * np.float32(rng.uniform(0, 0.1))
        xs.append(seen.astype(np.float32))
        ys.append(answer)
    return np.stack(xs), np.stack(ys)


def _network():
    """Strided convolutions down to 6 cm cells, then dense layers that keep where in the view
    each feature lies (the answer is a place): ~0.3M weights."""
    from torch import nn

    def block(inputs: int, outputs: int, stride: int) -> list:
        conv = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        return [conv, nn.BatchNorm2d(outputs), nn.ReLU(inplace=True)]

    rows, cols = CROP_PX
    for _ in range(5):
        rows, cols = (rows + 1) // 2, (cols + 1) // 2
    return nn.Sequential(
        *block(CHANNELS, 16, 2), *block(16, 16, 1), *block(16, 32, 2), *block(32, 32, 1),
        *block(32, 48, 2), *block(48, 64, 2), *block(64, 64, 2),
        nn.Flatten(), nn.Linear(64 * rows * cols, 128), nn.ReLU(inplace=True), nn.Linear(128, ANSWERS),
    )


def held_out_report(answer: np.ndarray, truth: np.ndarray) -> dict:
    """Median and P95 of the centre's distance (mm), the heading's error (degrees) and the length's
    and width's (mm) of answers against the truth."""
    centre = np.linalg.norm(answer[:, :2] - truth[:, :2], axis=1) * 10
    heading = np.abs(answer[:, 4] - truth[:, 4])
    size = np.abs(answer[:, 2:4] - truth[:, 2:4]) * 10

    def spread(values: np.ndarray) -> list[float]:
        return [round(float(np.median(values)), 2), round(float(np.percentile(values, 95)), 2)]

    return {"centre_mm": spread(centre), "heading_deg": spread(heading), "length_mm": spread(size[:, 0]),
            "width_mm": spread(size[:, 1])}


def train_hull_fit(tables: list[HullWindows], recipe: HullFitRecipe, out: Path, log=print) -> dict:
    """Fit the net on views of the tables' hulls (a tenth of the tables held out) and export it to
    `out`; the held-out views' errors before (the drawn axes: centre and heading) and after."""
    import torch

    from models.training import export_onnx, fit_steps
    from rules_core.errors import TablesightError

    torch.manual_seed(recipe.seed)
    rng = np.random.default_rng(recipe.seed)
    order = rng.permutation(len(tables))
    split = max(1, len(tables) // 10) if len(tables) > 1 else 0
    held = _hulls([tables[k] for k in order[:split]])
    kept = _hulls([tables[k] for k in order[split:]]) or held
    if not kept:
        raise TablesightError(
            f"none of the {len(tables)} training tables has a hull in view", "train on more --scenes"
        )
    net = _network()
    scale = torch.from_numpy(ANSWER_SCALE)

    def loss_of(net, b):
        x, y = (torch.from_numpy(a) for a in b)
        return torch.nn.functional.smooth_l1_loss(net(x) * scale, y * scale, beta=0.2)

    log(f"training on {len(kept)} hulls, {len(held)} held out")
    steps = (batch(kept, recipe, np.random.default_rng((recipe.seed, step))) for step in range(recipe.steps))
    loss = fit_steps(net, steps, loss_of, recipe, "hull fit", log, digits=4)
    export_onnx(net, out, (1, CHANNELS, *CROP_PX), {"hulls": {0: "n"}, OUTPUT: {0: "n"}})
    report = {"loss": round(loss, 5), "hulls": len(kept)}
    if held:
        report.update(_held_out(net, held, recipe))
    return report


def _held_out(net, held: list, recipe: HullFitRecipe) -> dict:
    import torch

    rng = np.random.default_rng((recipe.seed, recipe.steps))  # no step draws with this seed
    views, answers = zip(*(sample(t, i, rng) for t, i in held), strict=True)
    x, truth = np.stack(views), np.stack(answers)
    net.eval()
    with torch.no_grad():
        answer = np.concatenate([net(torch.from_numpy(x[s : s + 64])).numpy() for s in range(0, len(x), 64)])
    start = truth.copy()
    start[:, :2] = 0
    start[:, 4] = 0
    before = held_out_report(start, truth)
    return {"held_out": len(held), "before": {k: before[k] for k in ("centre_mm", "heading_deg")},
            "after": held_out_report(answer, truth)}
