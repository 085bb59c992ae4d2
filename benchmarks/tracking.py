"""Tracking through hands on scripted synthetic games: identities, positions, settle time, speed.

    python -m benchmarks.tracking [--seed 3] [--fps 5] [--sensor cm3-binned] [--flaky 0.15 --noise-mm 1]
                                  [--still-s 11] [--renderer physical [--spp 16]] [--table 244x183]
                                  [--height 190] [--tilt 4]

A scripted game (tracker/demo/scenario.py: four bases lifted past a covered marker, a swap, a
whole squad moved to its allowance, a casualty, a tank driven and turned, a reinforcement,
cavalry moved 25 cm) is rendered with models.synth (or, with `--renderer physical`,
path-traced with Mitsuba 3 as the detection benchmark's second renderer does: ~30 s a
picture, 26 pictures), JPEG-compressed like a camera's frames, and run through:

- tablesight: the pipeline (motion gate, detection on settled frames, re-association);
- baseline: detection on every frame, Hungarian nearest-neighbour association frame to frame;
- the tracker alone: tablesight's pipeline fed the script's true positions as detections, to
  tell tracking errors from detector errors (missed bases, phantom bases); with `--flaky`,
  some pieces seen only now and then and `--noise-mm` on every position, the detector's
  misses as the path-traced tables have them, but on the tracker alone.

Identity is scored with motmetrics (IDF1, identity switches) on every frame with no hand in
the picture, against the true position of every piece on the table (3 cm match radius).
tablesight's tracks marked `visible: false` (held at their last settled position, e.g. on the
frame the hands leave, before the scene settles) are not claims about where a piece is, so they
are left out; the baseline has no such notion. The settle time is counted from the first
hand-free frame after each move.

`--table` plays the game on another seed table with its default marker layout, under a rig
camera fitted to it as the detection benchmark's are: each unit's place scales with the table's
sides, squads' spacing and the moves' lengths stay (tracker/demo/scenario.py). `--height` and
`--tilt` move the rig's camera (190 cm up, 4 degrees off straight down by default), its focal
length fitted to show the whole table again.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import motmetrics as mm
import numpy as np
from scipy.optimize import linear_sum_assignment

# Run as a script, this folder comes first on sys.path and its calibration.py would shadow the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.layout import default_layout
from calibration.table import calibrate
from models.detections import Bases, Detections, Vehicles
from models.detector import load_detector
from models.synth.physical import NEEDS_MITSUBA, path_tracer
from models.synth.scene import TABLES
from tracker.demo.scenario import (
    TABLE,
    benchmark_script,
    encode,
    painted,
    render_shots,
    rig_camera,
    truth_positions,
)
from tracker.pipeline import Pipeline, build_pipeline

MATCH_CM = 3.0


class TruthDetector:
    """The script's truth as detections, with `noise_mm` of noise: the tracker alone, no
    detector errors. With `flaky` > 0 that share of the pieces is seen on each detection only
    with a chance drawn once per piece from 0.3-0.9 (a base coloured like the mat), as a
    detector's misses come: piece by piece, not frame by frame."""

    def __init__(self, flaky: float = 0.0, noise_mm: float = 0.3, seed: int = 0) -> None:
        self.shot = None
        self.rng = np.random.default_rng(seed)
        self.flaky = flaky
        self.noise_cm = noise_mm / 10
        self.seen_chance: dict[str, float] = {}

    def detect(self, image: np.ndarray, calibration) -> Detections:
        vehicles = self.shot.vehicles
        pieces = self.shot.pieces
        if self.flaky:
            for p in pieces:
                if p.id not in self.seen_chance:
                    flaky = self.rng.random() < self.flaky
                    self.seen_chance[p.id] = self.rng.uniform(0.3, 0.9) if flaky else 1.0
            pieces = [p for p in pieces if self.rng.random() < self.seen_chance[p.id]]
        xy = np.array([[p.base.x_cm, p.base.y_cm] for p in pieces]).reshape(-1, 2)
        xy = xy + self.rng.normal(0, self.noise_cm, xy.shape)
        bases = Bases(xy, np.array([p.base.diameter_mm for p in pieces]), np.ones(len(pieces)))
        return Detections(bases=bases, vehicles=Vehicles.placed([v for _, v in vehicles]))


class NearestNeighbourBaseline:
    """Per-frame detection, frame-to-frame Hungarian association within `gate_cm`."""

    def __init__(self, gate_cm: float = 5.0, table: str = TABLE) -> None:
        self.detector = load_detector()
        self.layout = default_layout(table)
        self.calibration = None
        self.gate_cm = gate_cm
        self.tracks: dict[str, np.ndarray] = {}
        self.count = 0

    def process(self, image: np.ndarray) -> dict[str, tuple[float, float]]:
        if self.calibration is None:
            self.calibration = calibrate(image, self.layout)
        found = self.detector.detect(image, self.calibration)
        points = np.concatenate([found.bases.xy_cm, found.vehicles.xy_cm]).reshape(-1, 2)
        ids = list(self.tracks)
        taken: dict[int, str] = {}
        if ids and len(points):
            old = np.array([self.tracks[i] for i in ids])
            cost = np.linalg.norm(old[:, None] - points[None], axis=2)
            for r, c in zip(*linear_sum_assignment(cost), strict=True):
                if cost[r, c] <= self.gate_cm:
                    taken[int(c)] = ids[r]
        self.tracks = {}
        for j, point in enumerate(points):
            if j not in taken:
                self.count += 1
                taken[j] = f"n{self.count}"
            self.tracks[taken[j]] = point
        return {k: (float(v[0]), float(v[1])) for k, v in self.tracks.items()}


def score(truth: list[dict], hypotheses: list[dict], frames: list[int]) -> tuple[dict, list[float]]:
    accumulator = mm.MOTAccumulator(auto_id=True)
    errors_mm: list[float] = []
    number: dict[str, int] = {}  # motmetrics wants numeric ids
    for i in frames:
        gt_ids = [number.setdefault(f"truth:{k}", len(number)) for k in truth[i]]
        hyp_ids = [number.setdefault(f"track:{k}", len(number)) for k in hypotheses[i]]
        gt = np.array(list(truth[i].values())).reshape(-1, 2)
        hyp = np.array(list(hypotheses[i].values())).reshape(-1, 2)
        distances = mm.distances.norm2squared_matrix(gt, hyp, max_d2=MATCH_CM ** 2)
        accumulator.update(gt_ids, hyp_ids, distances)
        finite = np.isfinite(distances)
        if finite.any():
            cost = np.where(finite, distances, 1e9)
            for r, c in zip(*linear_sum_assignment(cost), strict=True):
                if finite[r, c]:
                    errors_mm.append(float(np.sqrt(distances[r, c])) * 10)
    summary = mm.metrics.create().compute(accumulator, metrics=["idf1", "num_switches", "mota"], name="x")
    return {k: float(summary[k].iloc[0]) for k in ("idf1", "num_switches", "mota")}, errors_mm


def timed(step: Callable, *args) -> tuple[object, float]:
    start = time.perf_counter()
    out = step(*args)
    return out, (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--fps", type=float, default=5.0)
    parser.add_argument("--sensor", default="cm3-binned")
    parser.add_argument("--dump", help="also pickle the per-frame truth and tracks here, for a closer look")
    parser.add_argument("--flaky", type=float, default=0.0,
                        help="tracker alone: this share of pieces seen by a detection only now and then")
    parser.add_argument("--noise-mm", type=float, default=0.3, help="tracker alone: position noise (mm)")
    parser.add_argument("--misses-seed", type=int, default=0,
                        help="tracker alone: which pieces are flaky, and when")
    parser.add_argument("--still-s", type=float, default=0.6,
                        help="seconds without hands after each move (11: the settled table is re-detected)")
    parser.add_argument("--renderer", default="painter", choices=["painter", "physical"],
                        help="painter: the training renderer; physical: Mitsuba 3 (~30 s a picture)")
    parser.add_argument("--spp", type=int, default=16, help="samples per pixel for --renderer physical")
    parser.add_argument("--table", default=TABLE, choices=list(TABLES),
                        help="the table's size in cm, with its default marker sheets (default 183x122)")
    parser.add_argument("--height", type=float, default=190.0, help="the camera's height over the table (cm)")
    parser.add_argument("--tilt", type=float, default=4.0, help="the camera's tilt off vertical (degrees)")
    args = parser.parse_args()
    if not 50 <= args.height <= 1000 or not 0 <= args.tilt <= 45:  # NaN fails both
        parser.error("--height takes 50-1000 cm over the table and --tilt 0-45 degrees off vertical")
    render = path_tracer(args.spp) if args.renderer == "physical" else painted
    if render is None:
        sys.exit(NEEDS_MITSUBA)

    script = benchmark_script(settle_frames=max(1, round(args.still_s * args.fps)), table=args.table)
    camera = rig_camera(args.sensor, height_cm=args.height, tilt_deg=args.tilt, table=args.table)
    layout = default_layout(args.table)
    pipeline = build_pipeline(layout)
    baseline = NearestNeighbourBaseline(table=args.table)
    oracle = TruthDetector(args.flaky, args.noise_mm, args.misses_seed)
    tracker_alone = Pipeline(calibrate=lambda image: calibrate(image, layout), detector=oracle)
    truth, ours, alone, theirs, hands, settled = [], [], [], [], [], []
    our_ms, detect_ms, their_ms = [], [], []
    shots = render_shots(script.shots, camera, args.seed, fps=args.fps, render=render, table=args.table)
    for frame, shot in shots:
        frame = type(frame)(encode(frame.image, 90), frame.index, frame.timestamp_s, frame.name)
        result, ms = timed(pipeline.process, frame)
        our_ms.append(ms)
        if result.detected:
            detect_ms.append(ms)
        tracks = {m["track_id"]: (m["x_cm"], m["y_cm"]) for m in [*result.models, *result.vehicles]
                  if m["visible"]}
        oracle.shot = shot
        seen = tracker_alone.process(frame)
        alone.append({m["track_id"]: (m["x_cm"], m["y_cm"]) for m in [*seen.models, *seen.vehicles]
                      if m["visible"]})
        nn, ms = timed(baseline.process, frame.image)
        their_ms.append(ms)
        truth.append(truth_positions(shot))
        ours.append(tracks)
        theirs.append(nn)
        hands.append(shot.hand is not None)
        settled.append(result.settled)

    if args.dump:
        import pickle

        with open(args.dump, "wb") as handle:
            pickle.dump((truth, ours, theirs, hands, settled), handle)
    frames = [i for i, hand in enumerate(hands) if not hand]
    our_scores, our_errors = score(truth, ours, frames)
    their_scores, their_errors = score(truth, theirs, frames)
    alone_scores, _ = score(truth, alone, frames)
    delays = []
    for i in range(1, len(hands)):
        if hands[i - 1] and not hands[i]:
            later = [j for j in range(i, len(hands)) if settled[j] and not hands[j]]
            delays.append(later[0] - i if later else float("inf"))
    table = "" if args.table == TABLE else f", {args.table} table"
    print(f"{len(hands)} frames at {args.fps:g} fps ({sum(hands)} with a hand), {len(delays)} hand moves, "
          f"{len(truth[0])} pieces, {camera.image_size[0]}x{camera.image_size[1]}, seed {args.seed}{table}")
    print()
    print("| | tablesight | baseline (per-frame detection + Hungarian NN) |")
    print("| --- | --- | --- |")
    print(f"| identity switches | {our_scores['num_switches']:.0f} | {their_scores['num_switches']:.0f} |")
    print(f"| IDF1 | {our_scores['idf1']:.3f} | {their_scores['idf1']:.3f} |")
    print(f"| MOTA | {our_scores['mota']:.3f} | {their_scores['mota']:.3f} |")
    errors = f" ({args.flaky:g} of pieces flaky, {args.noise_mm:g} mm noise, misses seed {args.misses_seed})"
    print(f"| tracker alone on true detections{errors if args.flaky else ''}: switches, IDF1 | "
          f"{alone_scores['num_switches']:.0f}, {alone_scores['idf1']:.3f} | |")
    print(f"| position error, median / 95th pct | {np.median(our_errors):.1f} / "
          f"{np.percentile(our_errors, 95):.1f} mm | {np.median(their_errors):.1f} / "
          f"{np.percentile(their_errors, 95):.1f} mm |")
    worst = max(delays) if delays else 0
    print(f"| hands out to settled, worst | {worst} frames ({worst / args.fps:.2f} s) | (no gate) |")
    print(f"| ms per frame, mean | {np.mean(our_ms):.0f} (detection frames {np.mean(detect_ms):.0f}, "
          f"{len(detect_ms)} of {len(our_ms)}) | {np.mean(their_ms):.0f} |")


if __name__ == "__main__":
    main()
