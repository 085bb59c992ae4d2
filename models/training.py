"""Train the rim verifier on synthetic tables, and export it to ONNX for the runtime.

The dataset is made by the runtime itself: every synthetic frame goes through the same
rectify -> candidates -> rim fit path as a real one, and each plausible fitted rim becomes a
polar patch labelled against the render's exact truth. So the verifier learns exactly the
decision the detector must take, on exactly the candidates it will see. torch is imported
here only (the `train` extra); the runtime needs onnxruntime alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from calibration.output_file import replace_atomically
from models.detector import Detector
from models.synth.physical import SCALAR
from models.synth.scene import RenderedScene, random_camera, random_scene, render_scene
from models.synth.truth_calibration import CameraCalibration
from models.verifier import rim_patches
from rules_core.errors import TablesightError

# Seeds at or above this are training data; the benchmark uses seeds below it.
TRAIN_SEED_BASE = 1_000_000
# The path-traced training tables have their own seeds, so the painter's do not move with their count.
PHYSICAL_SEED_BASE = 2_000_000
POSITIVE_MM = 2.0  # a fitted rim this close to a real base of its class is that base
NEGATIVE_MM = 5.0  # farther than this from any base of its class it is not a base
MIN_VISIBLE = 0.25
CHANNEL_GAIN = (0.75, 1.25)  # per colour channel of a normalised patch
NOISE_SIGMA = 0.15  # up to this much grain, in patch standard deviations


@dataclass
class Recipe:
    """Everything that decides the shipped model; `tablesight train` defaults reproduce it."""

    scenes: int = 480
    hard_share: float = 0.5
    # Path-traced tables (models/synth/physical.py): crisp contact shadows, shaded flock, grain
    # and colour bleeding that the painter does not draw. With 144 (and the cosine schedule
    # below) the verifier found 218 of the 271 path-traced hard validation bases where 48 had
    # found 207, both with 4 false rims; with 353 (session 40), on six validation sets of 30
    # tables, 3,664 bases with 33 false rims where 144 had found 3,647 with 43 (path-traced hard
    # 559 -> 573 of 636). Traced by Mitsuba's CUDA variant: 2 tables a second with an H200 and 16
    # CPUs, where the scalar variant takes 20-40 s a table on two cores.
    physical_scenes: int = 353
    physical_spp: int = 16
    # Mitsuba variant tracing them (models/synth/physical.py VARIANTS): the same light, other noise.
    physical_variant: str = "cuda_ad_rgb"
    # In the loss. Now that the path-traced tables give half the rims, 1: at 2 the same tables
    # found 3,663 validation bases with 47 false rims (path-traced hard 566).
    physical_weight: float = 1.0
    epochs: int = 30
    batch: int = 256
    learning_rate: float = 2e-3
    seed: int = 0


def label_candidates(xy_cm: np.ndarray, diameter_mm: np.ndarray, truth) -> np.ndarray:
    """1 base, 0 not a base, -1 ambiguous (skipped)."""
    labels = np.zeros(len(xy_cm), np.int8)
    for i, (xy, d) in enumerate(zip(xy_cm, diameter_mm, strict=True)):
        same = [b for b in truth.bases if b.diameter_mm == d]
        if not same:
            continue
        dist = np.linalg.norm(np.array([[b.x_cm, b.y_cm] for b in same]) - xy, axis=1) * 10
        j = int(np.argmin(dist))
        if dist[j] <= POSITIVE_MM:
            labels[i] = 1 if same[j].rim_visible >= MIN_VISIBLE else -1
        elif dist[j] < NEGATIVE_MM:
            labels[i] = -1
    return labels


def training_table(
    index: int, hard: bool, spp: int = 0, variant: str = SCALAR
) -> tuple[RenderedScene, CameraCalibration]:
    """One synthetic training frame (seeded by `index`) and its exact calibration.

    `spp` > 0 path-traces the table at that many samples per pixel through Mitsuba's `variant`,
    on the Camera Module 3's binned mode only: a full-resolution frame would take four times as
    long.
    """
    seed = (PHYSICAL_SEED_BASE if spp else TRAIN_SEED_BASE) + index
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, hard=hard)
    sensor = "cm3-binned" if spp or rng.random() < 0.7 else None
    camera = random_camera(rng, scene.table_cm, sensor=sensor, wide=hard and rng.random() < 0.3)
    if spp:
        from models.synth.physical import render_physical

        rendered = render_physical(scene, camera, seed, spp=spp, variant=variant)
    else:
        rendered = render_scene(scene, camera, seed)
    return rendered, CameraCalibration(camera, scene.table_cm, scene.markers)


def scene_samples(
    index: int, hard: bool, spp: int = 0, variant: str = SCALAR
) -> tuple[np.ndarray, np.ndarray]:
    """Polar patches and labels of one synthetic frame (see `training_table`).

    The candidates are ranked by their votes alone, as when the shipped verifier was trained:
    a base map's ranking would make this dataset depend on another model's file.
    """
    rendered, calibration = training_table(index, hard, spp, variant)
    c = Detector().fitted_candidates(rendered.image, calibration)
    idx = np.nonzero(c.plausible)[0]
    labels = label_candidates(c.xy_cm[idx], c.diameter_mm[idx], rendered.truth)
    patches = rim_patches(c.rect, c.centres_px[idx], c.radius_px[idx], c.nadir_px, c.diameter_mm[idx])
    keep = labels >= 0
    return patches[keep], labels[keep].astype(np.float32)


def _hard(count: int, share: float) -> list[bool]:
    every = max(1, round(1 / share)) if share > 0 else 0
    return [bool(every) and i % every == every - 1 for i in range(count)]


def path_traced_count(physical_scenes: int, spp: int) -> int:
    """How many of a recipe's tables are path-traced: none without samples per pixel. They come
    first (`over_tables`), so a table's index tells whether it was traced."""
    return physical_scenes if spp > 0 else 0


def over_tables(job: Callable, recipe, jobs: int = 1):
    """`job(index, hard, spp, variant)` of every table of `recipe` (the verifier's `Recipe` or
    the base map's: scenes, physical_scenes, physical_spp, physical_variant, hard_share),
    path-traced first, in that order whatever `jobs` is, so what is made of them depends on the
    recipe only.

    Rendering a table takes seconds and the tables are independent, so `jobs` processes share
    them (spawned, not forked: OpenCV's thread pool does not survive a fork). The path-traced
    tables go first, as they are the slow ones to share out.
    """
    physical = path_traced_count(recipe.physical_scenes, recipe.physical_spp)
    indices = [*range(physical), *range(recipe.scenes)]
    hard = _hard(physical, recipe.hard_share) + _hard(recipe.scenes, recipe.hard_share)
    samples = [recipe.physical_spp] * physical + [0] * recipe.scenes
    variants = [recipe.physical_variant] * len(indices)
    with ExitStack() as stack:
        if jobs > 1:
            pool = stack.enter_context(ProcessPoolExecutor(jobs, mp_context=get_context("spawn")))
            yield from pool.map(job, indices, hard, samples, variants)
        else:
            yield from map(job, indices, hard, samples, variants)


def fit_steps(
    net, batches: Iterable, loss_of: Callable, recipe, name: str, log=print, digits: int = 3
) -> float:
    """The maps' training: AdamW (weight decay 1e-4) along a one-cycle schedule peaking at the
    recipe's learning rate, one step per batch (`recipe.steps` of them), the loss of a batch
    being `loss_of(net, batch)`; logged every 100 steps. The last 50 steps' mean loss."""
    import torch

    opt = torch.optim.AdamW(net.parameters(), recipe.learning_rate, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, recipe.learning_rate, total_steps=recipe.steps)
    recent: list[float] = []
    t0 = time.perf_counter()
    for step, batch in enumerate(batches):
        net.train()
        loss = loss_of(net, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        schedule.step()
        recent = [*recent[-49:], loss.item()]
        if (step + 1) % 100 == 0 or step + 1 == recipe.steps:
            seconds = time.perf_counter() - t0
            log(f"{name}, step {step + 1}/{recipe.steps}: loss {np.mean(recent):.{digits}f}, {seconds:.0f} s")
    return float(np.mean(recent))


def collect_tables(job: Callable, recipe, log=print, jobs: int = 1, every: int = 10) -> list:
    """What `job` makes of every table of the recipe (`over_tables`), progress logged every
    `every` tables: the maps' datasets are their tables whole."""
    total = path_traced_count(recipe.physical_scenes, recipe.physical_spp) + recipe.scenes
    tables = []
    t0 = time.perf_counter()
    for table in over_tables(job, recipe, jobs):
        tables.append(table)
        if len(tables) % every == 0 or len(tables) == total:
            log(f"table {len(tables)}/{total}: {time.perf_counter() - t0:.0f} s")
    return tables


def make_dataset(recipe: Recipe, log=print, jobs: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every scene's rims and whether each came from a path-traced table (`over_tables`)."""
    physical = path_traced_count(recipe.physical_scenes, recipe.physical_spp)
    total = physical + recipe.scenes
    xs, ys, traced = [], [], []
    t0 = time.perf_counter()
    tables = over_tables(scene_samples, recipe, jobs)
    for i, (x, y) in enumerate(tables):
        xs.append(x)
        ys.append(y)
        traced.append(np.full(len(y), i < physical))
        if (i + 1) % 10 == 0 or i + 1 == total:
            log(
                f"scene {i + 1}/{total}: {sum(map(len, ys))} rims, "
                f"{int(sum(v.sum() for v in ys))} bases, {time.perf_counter() - t0:.0f} s"
            )
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(traced)


def _network():
    """The ring net and the middle net (models/verifier.py), in one module so one ONNX file
    holds both; its outputs are one logit per net and the ring net's alone."""
    import torch
    from torch import nn

    from models.verifier import CHANNELS, RING_CHANNELS, ring_part

    def rim_net(channels: int) -> nn.Module:
        """Three small convolutions over (ray, radius), pooled: ~11k weights."""
        return nn.Sequential(
            nn.Conv2d(channels, 16, 3),
            nn.ReLU(),
            nn.Conv2d(16, 24, 3, stride=2),
            nn.ReLU(),
            nn.Conv2d(24, 32, 3, stride=2),
            nn.ReLU(),
            nn.AdaptiveMaxPool2d(1),
            nn.Flatten(),
            nn.Linear(32, 1),
        )

    class RimNets(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ring = rim_net(RING_CHANNELS)
            self.middle = rim_net(CHANNELS)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            """Both nets' logits, and the ring net's alone: the exported model's two outputs."""
            ring = self.ring(ring_part(x))
            return torch.cat([ring, self.middle(x)], dim=1), ring

    return RimNets()


def train(x: np.ndarray, y: np.ndarray, traced: np.ndarray, recipe: Recipe, out: Path, log=print) -> dict:
    """Fit both nets, export them to `out` (one ONNX file), and report held-out accuracy.

    The nets are trained one after the other, each on its own order of batches and its own
    colour casts and grain: an ensemble gains from errors that differ. (Trained side by side on
    the same batches, the pair's ring net scored a road line crossing the demo's mat 0.62 where
    session 10's, trained alone, scored it 0.005; the middle net 0.99.)

    The learning rate falls to zero along a cosine: at a constant rate the last batches moved the
    weights enough that held-out precision swung between 0.73 and 0.95 from one fifth of the
    epochs to the next, so the exported nets were whatever the final step happened to leave.
    """
    import torch

    from models.verifier import ring_part

    torch.manual_seed(recipe.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rng = np.random.default_rng(recipe.seed)
    order = rng.permutation(len(x))
    split = max(1, len(x) // 10)
    val, tr = order[:split], order[split:]
    net = _network().to(device)
    pos = max(1.0, float(y[tr].sum()))
    loss_fn = torch.nn.BCEWithLogitsLoss(
        pos_weight=torch.tensor((len(tr) - pos) / pos, device=device), reduction="none"
    )
    xt, yt = torch.from_numpy(x).to(device), torch.from_numpy(y).to(device)
    weight = torch.from_numpy(np.where(traced, recipe.physical_weight, 1.0).astype(np.float32)).to(device)
    log(f"training on {device}: {len(tr)} rims, {len(val)} held out")
    steps = recipe.epochs * -(-len(tr) // recipe.batch)  # batches per net, for the schedule
    for k, (name, part, view) in enumerate([("ring", net.ring, ring_part), ("middle", net.middle, None)]):
        own = np.random.default_rng([recipe.seed, k + 1])
        opt = torch.optim.Adam(part.parameters(), lr=recipe.learning_rate)
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
        for epoch in range(recipe.epochs):
            part.train()
            perm = torch.from_numpy(own.permutation(tr)).to(device)
            for start in range(0, len(perm), recipe.batch):
                b = perm[start : start + recipe.batch]
                xb = _augment(xt[b], own)
                opt.zero_grad()
                loss = (loss_fn(part(xb if view is None else view(xb)).squeeze(1), yt[b]) * weight[b]).mean()
                loss.backward()
                opt.step()
                schedule.step()
            if (epoch + 1) % 5 == 0 or epoch + 1 == recipe.epochs:
                # Only this net's figures: until both are trained, the pair's say nothing.
                scores = _report(net, xt, yt, val, traced)
                traced_scores = scores["path_traced"][name] if "path_traced" in scores else None
                log(f"{name} net, epoch {epoch + 1}/{recipe.epochs}: loss {loss.item():.4f},"
                    f" validation {scores[name]}, path-traced {traced_scores}")
    export(net, out)
    return _report(net, xt, yt, val, traced)


def export(net, out: Path) -> None:
    """Write the nets to one ONNX file: the pair's `logits`, and the ring net's own logit as a
    second output, which the runtime screens with (models/verifier.py); the ring net cut from
    it is kept beside it, so the runtime need not cut it at every start."""
    from models.verifier import PATCH_SHAPE, RING_OUTPUT, keep_ring_net

    export_onnx(net, out, (1, *PATCH_SHAPE), {"rims": {0: "n"}, "logits": {0: "n"}, RING_OUTPUT: {0: "n"}})
    keep_ring_net(out)


def export_onnx(net, out: Path, example: tuple[int, ...], axes: dict[str, dict[int, str]]) -> None:
    """Any of the detector's trained nets to `out` as ONNX, atomically (a failed export leaves the
    file as it was). `axes` names the input, then each output, with the axes that vary. A disk
    that fills during the hour of training is the user's to fix: one line, not a traceback."""
    import torch

    first, *rest = axes
    net.cpu().eval()
    try:
        replace_atomically(out, lambda partial: torch.onnx.export(
            net, torch.zeros(example), str(partial), input_names=[first], output_names=rest,
            dynamic_axes=axes, dynamo=False,
        ))
    except OSError as error:
        raise TablesightError(
            f"cannot write the model {out} ({error.strerror})",
            "free some space, or give -o a folder you can write to",
        ) from None


def _report(net, xt, yt, val: np.ndarray, traced: np.ndarray) -> dict:
    """Held-out accuracy on all rims, and on the path-traced tables' alone where there are any."""
    report = _accuracy(net, xt, yt, val)
    if traced[val].any():
        report["path_traced"] = _accuracy(net, xt, yt, val[traced[val]])
    return report


def _augment(xb, rng: np.random.Generator):
    """Variations a real camera adds that one renderer does not: colour casts, grain, mirroring.

    The patches are already normalised per rim, so only what that leaves is varied: the
    balance between colour channels and the noise (not in the size and radius channels,
    which are not colours). The mirror image of a base is a base.
    """
    import torch

    from models.verifier import SIZE_CHANNEL

    xb = torch.cat([colour_cast(xb, rng), xb[:, SIZE_CHANNEL:]], dim=1)
    return torch.flip(xb, dims=[2]) if rng.random() < 0.5 else xb


def colour_cast(xb, rng: np.random.Generator):
    """The colour channels of a batch of patches with each patch's own cast (a gain per channel)
    and grain: what a real camera's colour balance and noise vary (the centring net's training
    casts its views alike)."""
    import torch

    from models.verifier import SIZE_CHANNEL

    n = len(xb)
    gain = torch.from_numpy(rng.uniform(*CHANNEL_GAIN, (n, SIZE_CHANNEL, 1, 1)).astype(np.float32))
    noise = torch.from_numpy(rng.uniform(0, NOISE_SIGMA, (n, 1, 1, 1)).astype(np.float32))
    grain = torch.randn(xb[:, :SIZE_CHANNEL].shape, device=xb.device)
    return xb[:, :SIZE_CHANNEL] * gain.to(xb.device) + grain * noise.to(xb.device)


def _accuracy(net, xt, yt, idx) -> dict:
    """Of both nets together (the runtime's verdict over 0.5), and of each alone."""
    import torch

    from models.verifier import verdict

    net.eval()
    device = next(net.parameters()).device

    def logits_of(patches: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return net(torch.from_numpy(patches).to(device))[0].cpu().numpy()

    patches = xt[idx].cpu().numpy()
    logits = logits_of(patches)
    y = yt[idx].cpu().numpy() > 0.5

    def scores(p: np.ndarray) -> dict:
        return {
            "recall": round(float((p & y).sum() / max(1, y.sum())), 4),
            "precision": round(float((p & y).sum() / max(1, p.sum())), 4),
        }

    return {
        **scores(verdict(logits, patches, logits_of) > 0.5),
        "samples": len(idx),
        "ring": scores(logits[:, 0] > 0),
        "middle": scores(logits[:, 1] > 0),
    }
