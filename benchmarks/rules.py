"""Rules core timings: `check` on a 200-model table and `move` of 40 models (targets 10 ms, 50 ms).

Run: `python benchmarks/rules.py`. Prints the median and worst of repeated runs in ms; scene
parsing is timed apart, because the tracker parses once per settled frame and checks many times.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable

from rules_core import api
from rules_core.scene import Scene

WIDTH, DEPTH = 183.0, 122.0


def table(seed: int = 7) -> dict:
    """Two armies of 10-model infantry squads, tanks and guns with crews, objectives and terrain."""
    rng = random.Random(seed)
    models = []
    for side, x0 in (("red", 12.0), ("blue", 130.0)):
        for squad in range(8):
            x, y = x0 + (squad % 2) * 20, 8 + squad * 14
            for k in range(10):
                models.append(
                    {
                        "id": f"{side}-{squad}-{k}",
                        "side": side,
                        "unit": f"{side}-inf-{squad}",
                        "type": "infantry",
                        "x_cm": x + (k % 5) * 3.8 + rng.uniform(0, 0.3),
                        "y_cm": y + (k // 5) * 4.0 + rng.uniform(0, 0.3),
                        "base": {"shape": "round", "diameter_mm": 32},
                    }
                )
        for tank in range(12):
            models.append(
                {
                    "id": f"{side}-tank-{tank}",
                    "side": side,
                    "unit": f"{side}-armour",
                    "type": "vehicle",
                    "x_cm": x0 + 35 + (tank % 3) * 8,
                    "y_cm": 10 + (tank // 3) * 28,
                    "heading_deg": 0.0 if side == "red" else 180.0,
                    "base": {"shape": "rect", "length_mm": 70, "width_mm": 40},
                }
            )
        for gun in range(2):
            gid = f"{side}-gun-{gun}"
            gx, gy = x0 + 48, 20 + gun * 70
            models.append(
                {
                    "id": gid,
                    "side": side,
                    "unit": gid,
                    "type": "heavy_gun",
                    "x_cm": gx,
                    "y_cm": gy,
                    "heading_deg": 0.0,
                    "base": {"shape": "rect", "length_mm": 50, "width_mm": 40},
                }
            )
            for k in range(3):
                models.append(
                    {
                        "id": f"{gid}-c{k}",
                        "side": side,
                        "unit": gid,
                        "type": "infantry",
                        "crew_of": gid,
                        "x_cm": gx - 6 + k * 3.5,
                        "y_cm": gy + 5,
                        "base": {"shape": "round", "diameter_mm": 32},
                    }
                )
    objectives = [{"id": f"o{k}", "x_cm": 40 + 50 * k, "y_cm": 61.0} for k in range(3)]
    terrain = [
        {"id": "wood", "kind": "forest", "polygon_cm": [[80, 20], [100, 20], [100, 45], [80, 45]]},
        {"id": "lake", "kind": "water", "polygon_cm": [[85, 80], [100, 80], [100, 100], [85, 100]]},
    ]
    return {
        "ruleset": "world-at-fire",
        "table": {"width_cm": WIDTH, "depth_cm": DEPTH},
        "models": models,
        "objectives": objectives,
        "terrain": terrain,
        "phase": "movement",
    }


def as_combined_arms(data: dict) -> dict:
    """The same table under combined-arms: guns, officers, radio operators, medics, wounded."""
    models = []
    for k, model in enumerate(data["models"]):
        model = {**model, "type": "gun" if model["type"] == "heavy_gun" else model["type"]}
        if model["type"] == "infantry":
            model["role"] = ("officer", "radio", "medic", None, None)[k % 5]
            model["wounded"] = k % 7 == 0
        models.append(model)
    return {**data, "ruleset": "combined-arms", "models": models, "objectives": [], "terrain": []}


def moved(data: dict) -> dict:
    """Four red squads (40 models) advance 10-14 cm; one squad must step round the wood."""
    after = {**data, "models": [dict(m) for m in data["models"]]}
    for model in after["models"]:
        if model["unit"] in {"red-inf-0", "red-inf-1", "red-inf-2", "red-inf-3"}:
            model["x_cm"] += 12.0 if model["unit"] != "red-inf-3" else 14.0
    return after


def fresh(scene: Scene) -> Scene:
    """The same parsed scene without its cached footprints, so their cost is timed too."""
    return Scene(scene.spec, scene.ruleset, scene.cm_per_unit, scene.models, scene.index)


def timed(label: str, call: Callable[[], object], repeat: int, target_ms: float | None = None) -> None:
    """Wall time (best, median) and CPU time of this thread (median): on a shared machine the wall
    clock also counts other people's jobs, the CPU time counts only ours."""
    call()
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.thread_time()
        call()
        cpu.append((time.thread_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    target = f" (target <= {target_ms:g} ms)" if target_ms else ""
    print(
        f"{label:34s} wall best {min(wall):6.2f} median {statistics.median(wall):6.2f}  "
        f"cpu median {statistics.median(cpu):6.2f} ms{target}"
    )


def main() -> None:
    data = table()
    scene = api.parse_scene(data)
    after = api.parse_scene(moved(data))
    n_models = len(scene.models)
    judged = api.move(scene, after)["models"]
    detours = sum("path_cm" in entry for entry in judged.values())
    reasons = Counter(reason["code"] for entry in judged.values() for reason in entry["reasons"])
    print(
        f"{n_models} models on a {WIDTH:g}x{DEPTH:g} cm table, {len(judged)} moved, "
        f"{detours} needed a way round, reasons {dict(reasons)}"
    )
    timed("parse_scene (200 models)", lambda: api.parse_scene(data), 20)
    timed("check (200 models, parsed)", lambda: api.check(fresh(scene)), 30, 10)
    combined = api.parse_scene(as_combined_arms(data))
    timed("check (200 models, combined-arms)", lambda: api.check(fresh(combined)), 30)
    timed("move (40 of 200 models, parsed)", lambda: api.move(fresh(scene), fresh(after)), 20, 50)
    timed("ranges (one squad vs army)", lambda: api.ranges(scene, "red-inf-0"), 30)


if __name__ == "__main__":
    main()
