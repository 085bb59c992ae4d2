"""Subcommands of this package for `tablesight` (see tracker/cli.py): detect and train."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from calibration.seed_tables import LAYOUT_HELP
from rules_core.errors import TablesightError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "detect",
        help="find the bases and vehicles in one photo of the table",
        description="Calibrate IMAGE against the marker layout, then list every base (bottom-disc centre, "
        "table cm) and vehicle (hull footprint) as JSON.",
    )
    p.add_argument("image", metavar="IMAGE", help="a photo of the table (any format OpenCV reads)")
    p.add_argument("--layout", required=True, metavar="LAYOUT", help=LAYOUT_HELP)
    p.add_argument("--intrinsics", metavar="CAM", help="lens calibration JSON (K, dist, image_size)")
    p.add_argument("--weights", metavar="ONNX", help="rim-verifier model (default: the shipped one)")
    p.add_argument(
        "--json", action="store_true", help="print the JSON of CONTRACTS.md (the only output form)"
    )
    p.set_defaults(func=_detect)

    t = subparsers.add_parser(
        "train",
        help="train the detector's rim verifier, base map, centring net, hull map or hull-fit net on "
        "synthetic tables (needs the train extra)",
        description="Render synthetic tables, run the detector's candidate and rim-fit stages on them, "
        "label every fitted rim from the exact truth, train the small CNN and export ONNX. "
        "The defaults reproduce the shipped models/weights/rim_verifier.onnx; --base-map, "
        "--centring, --hull-map and --hull-fit train the detector's other four nets, each to its own recipe.",
    )
    t.add_argument(
        "-o",
        "--output",
        help="where to write the ONNX model (default: the shipped one's file, "
        "models/weights/rim_verifier.onnx or, with --base-map, --centring, --hull-map or --hull-fit, "
        "models/weights/base_map.onnx, base_centring.onnx, hull_map.onnx or hull_fit.onnx)",
    )
    t.add_argument(
        "--base-map",
        action="store_true",
        help="train the base map that ranks the candidates instead of the rim verifier "
        "(its own recipe: 400 painted and 200 path-traced tables)",
    )
    t.add_argument(
        "--centring",
        action="store_true",
        help="train the net that places each accepted base's centre instead of the rim verifier "
        "(its own recipe: 400 painted and 200 path-traced tables)",
    )
    t.add_argument(
        "--hull-map",
        action="store_true",
        help="train the map that draws the vehicles' footprints instead of the rim verifier "
        "(its own recipe: 1,200 painted and 40 path-traced tables)",
    )
    t.add_argument(
        "--hull-fit",
        action="store_true",
        help="train the net that places each measured hull's footprint instead of the rim verifier "
        "(its own recipe: 1,200 painted and 200 path-traced tables)",
    )
    t.add_argument("--scenes", type=int, help="synthetic frames to render (default: the shipped recipe)")
    t.add_argument(
        "--physical-scenes",
        type=int,
        help="path-traced frames to render as well (default: the shipped recipe)",
    )
    t.add_argument(
        "--physical-variant",
        metavar="VARIANT",
        help="Mitsuba variant tracing them: the same light, other noise; llvm_ad_rgb is ~3x faster on "
        "the CPU, cuda_ad_rgb needs an NVIDIA GPU with OptiX (default: the shipped recipe's)",
    )
    t.add_argument("--epochs", type=_positive, help="passes over the rims (default: the shipped recipe)")
    t.add_argument(
        "--steps",
        type=_positive,
        help="with --base-map, --hull-map or --hull-fit: batches to train on (default: its recipe)",
    )
    t.add_argument(
        "--jobs",
        type=_positive,
        default=os.cpu_count() or 1,
        help="processes rendering the tables (default: one per CPU); the dataset is the same for any count",
    )
    t.add_argument(
        "--dataset", metavar="NPZ", help="cache: load the rims from here if it exists, else save them"
    )
    t.set_defaults(func=_train)


def _detect(args: argparse.Namespace) -> int:
    from calibration.imagefile import check_size_for_lens, read_image
    from calibration.intrinsics import load_intrinsics
    from calibration.layout import load_layout
    from calibration.table import calibrate
    from hardware.doctor import check_detail, check_light
    from models.detector import load_detector

    detector = load_detector(args.weights)
    layout = load_layout(args.layout)
    intrinsics = load_intrinsics(args.intrinsics) if args.intrinsics else None
    image = read_image(args.image)
    if intrinsics is not None:
        check_size_for_lens(intrinsics, image, args.image, f"image {args.image}")
    calibration = calibrate(image, layout, intrinsics)
    if calibration.warnings:  # a wrong --layout still calibrates, to positions off by centimetres
        print(f"tablesight detect: calibration warnings: {' | '.join(calibration.warnings)}", file=sys.stderr)
    # The markers may still calibrate in a picture whose bases are lost in the dark, or too small
    # to find (the 244 x 183 table's hard tables lost 8 % of their bases at 19-21 px).
    for check in (check_light(image), check_detail(calibration)):
        if not check.ok:
            print(f"tablesight detect: {check.bases_missed()}", file=sys.stderr)
    found = detector.detect(image, calibration)
    print(json.dumps(detection_json(args.image, calibration, found), indent=1))
    return 0


def detection_json(image_name: str, calibration, found) -> dict:
    """The `tablesight detect --json` document of CONTRACTS.md."""
    import numpy as np

    bases, vehicles = found.bases, found.vehicles
    models = [
        {
            "id": f"d{i + 1}",
            "kind": "base",
            "diameter_mm": int(np.rint(bases.diameter_mm[i])),
            "x_cm": round(float(bases.xy_cm[i, 0]), 2),
            "y_cm": round(float(bases.xy_cm[i, 1]), 2),
            "confidence": round(float(bases.confidence[i]), 3),
            "measured_diameter_mm": round(float(bases.measured_diameter_mm[i]), 2),
        }
        for i in range(len(bases))
    ]
    corners = vehicles.corners_cm()
    cars = [
        {
            "id": f"v{i + 1}",
            "corners_cm": [[round(float(v), 2) for v in c] for c in corners[i]],
            "x_cm": round(float(vehicles.xy_cm[i, 0]), 2),
            "y_cm": round(float(vehicles.xy_cm[i, 1]), 2),
            "length_cm": round(float(vehicles.length_cm[i]), 2),
            "width_cm": round(float(vehicles.width_cm[i]), 2),
            "heading_deg": round(float(vehicles.heading_deg[i]), 2) % 360,  # rounded first: never 360
            "confidence": round(float(vehicles.confidence[i]), 3),
        }
        for i in range(len(vehicles))
    ]
    summary = {
        "marker_ids": [int(i) for i in calibration.marker_ids],
        "rms_mm": round(float(calibration.rms_mm), 3),
        "max_mm": round(float(calibration.max_mm), 3),
    }
    return {"image": image_name, "calibration": summary, "models": models, "vehicles": cars}


def _positive(text: str) -> int:
    """A count of epochs, steps or processes: zero or less would train nothing and still
    overwrite the model file."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def _train(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError as error:
        raise TablesightError(
            "training needs torch, which is not installed",
            "install the train extra: pip install 'tablesight[train]'",
        ) from error
    import numpy as np

    chosen = [flag for flag, on in (("--base-map", args.base_map), ("--centring", args.centring),
                                    ("--hull-map", args.hull_map), ("--hull-fit", args.hull_fit)) if on]
    if len(chosen) > 1:
        raise TablesightError(f"{' and '.join(chosen)} each train another model", "give one of them")
    if args.base_map:
        return _train_base_map(args)
    if args.centring:
        return _train_centring(args)
    if args.hull_map:
        return _train_hull_map(args)
    if args.hull_fit:
        return _train_hull_fit(args)
    if args.steps is not None:
        raise TablesightError(
            "--steps is the base map's, the hull map's and the hull-fit net's",
            "add --base-map, --hull-map or --hull-fit, or give the model --epochs",
        )
    from models.detector import SHIPPED_WEIGHTS
    from models.training import Recipe, make_dataset, train

    output = _model_output(args.output or str(SHIPPED_WEIGHTS), args.dataset)
    recipe = _recipe(args, Recipe, "epochs")
    x, y, traced = _samples(
        args.dataset, recipe, "rims", _cached_rims,
        lambda: make_dataset(recipe, log=_log, jobs=args.jobs),
        lambda cache, rims: np.savez_compressed(cache, x=rims[0], y=rims[1], traced=rims[2]),
    )
    report = train(x, y, traced, recipe, Path(output), log=_log)
    print(json.dumps({"model": output, "rims": len(y), "bases": int(y.sum()), "validation": report}))
    return 0


def _samples(
    dataset: str | None, recipe, what: str, cached: Callable, make: Callable, save: Callable
) -> tuple:
    """A training's samples (patches first): from the `--dataset` cache where it exists, else
    made from the recipe's tables (Mitsuba checked first) and saved there when one is named."""
    from calibration.output_file import using
    from models.verifier import PATCH_SHAPE

    cache = Path(dataset) if dataset else None
    with using(dataset or ""):  # a folder on the way the user may not enter, a name too long
        found = cache is not None and cache.exists()
    if found:
        samples = cached(cache)
        shape = samples[0].shape[1:]
        if shape != PATCH_SHAPE:
            raise TablesightError(
                f"the {what} cached in {cache} are {shape} patches; this model takes {PATCH_SHAPE}",
                "delete the cache (or give another --dataset path) to render the tables again",
            )
        return samples
    _need_mitsuba(recipe.physical_scenes, recipe.physical_variant)
    if cache is not None:
        _writable(str(cache), "--dataset")
    samples = make()
    if cache is not None:
        _save_cache(cache, samples, save)
    return samples


def _save_cache(cache: Path, samples: tuple, save: Callable) -> None:
    """Beside, then renamed over: a disk that fills up mid-write leaves no broken cache (which
    the next run would refuse) and keeps any old one. Written into an open file, so numpy adds
    no .npz to the name. The samples are made, so a cache that cannot be kept stops nothing."""
    from calibration.output_file import replace_atomically

    def write(partial: Path) -> None:
        with partial.open("wb") as handle:
            save(handle, samples)

    try:
        replace_atomically(cache, write)
    except OSError as error:
        _log(f"tablesight train: --dataset {cache} was not saved ({error.strerror or error}); "
             "training goes on with the tables just made. free some space to keep them next time")


def _cached_rims(cache: Path):
    """The rims `tablesight train --dataset` saved: patches, labels and which came from
    path-traced tables (a cache from before those tables holds painted rims only)."""
    import numpy as np

    def read(data):
        if not {"x", "y"} <= set(data.files):
            return None
        traced = data["traced"] if "traced" in data.files else np.zeros(len(data["y"]), bool)
        return data["x"], data["y"], traced

    return _cached(cache, "rim", "tablesight train", read)


def _cached(cache: Path, what: str, saved_by: str, read: Callable):
    """What `read` takes from a `--dataset` npz (None: not such a cache), or one line saying
    the file is not one or cannot be read. The arrays load lazily, so `read` is guarded too."""
    import zipfile

    import numpy as np

    fix = "delete it (or give another --dataset path) to render the tables again"
    try:
        data = np.load(cache)
        samples = read(data) if isinstance(data, np.lib.npyio.NpzFile) else None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        # numpy's own words for a pickle suggest loading it unsafely: not advice to pass on.
        why = "it holds pickled objects, which a cache never does" if "pickle" in str(error) else str(error)
        raise TablesightError(f"--dataset {cache} cannot be read as a {what} cache ({why})", fix) from None
    if samples is None:
        raise TablesightError(f"--dataset {cache} is not a {what} cache that `{saved_by}` saved", fix)
    return samples


def _writable(path: str, option: str, inputs: tuple[str | None, ...] = ()) -> str:
    """Checked before an hour of rendering and training, whose result would be lost at the end:
    the folder must take a new file, and the file must be no input nor anything but a regular one."""
    from calibration.output_file import check_folder_writable, check_output, nearest_existing_folder, using

    target = Path(path)
    fix = f"give {option} a file name in a folder you can write to"
    with using(path):  # a folder on the way the user may not enter, a name too long
        if target.is_dir():
            raise TablesightError(f"{option} {path} is a folder, not a file", fix)
        folder = nearest_existing_folder(target)
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise TablesightError(f"{option} {path} cannot be written: {folder} is not writable", fix)
    if folder == target.parent:
        check_output(path, option, fix, inputs=[i for i in inputs if i], streams=False)
    check_folder_writable(target, option, fix)
    return path


def _model_output(path: str, dataset: str | None = None) -> str:
    """Where a trained model goes: a `.onnx` file (a photo or a cache given by a slip of the
    finger would be replaced by the model) in a folder that takes a new file."""
    if Path(path).suffix.lower() != ".onnx":
        raise TablesightError(
            f"-o {path}: the model is written as ONNX, so the name ends .onnx", "give -o e.g. rim.onnx"
        )
    return _writable(path, "-o", (dataset,))


def _log(message: str) -> None:
    print(message, file=sys.stderr)


def _recipe(args: argparse.Namespace, kind: type, length: str):
    """The shipped recipe of `kind` with the options' tables, Mitsuba variant and training
    `length` (its epochs or steps) where given."""
    shipped = kind()
    scenes, physical = _table_counts(args, shipped.scenes, shipped.physical_scenes)
    return kind(
        scenes=scenes,
        physical_scenes=physical,
        physical_variant=_variant(args, shipped.physical_variant),
        **{length: getattr(args, length) or getattr(shipped, length)},
    )


def _table_counts(args: argparse.Namespace, scenes: int, physical: int) -> tuple[int, int]:
    """The painted and path-traced tables to train on: the options', else the recipe's."""
    scenes = scenes if args.scenes is None else args.scenes
    physical = physical if args.physical_scenes is None else args.physical_scenes
    if min(scenes, physical) < 0 or scenes + physical == 0:
        raise TablesightError(
            f"cannot train on {scenes} painted and {physical} path-traced tables",
            "give --scenes and --physical-scenes counts of 0 or more, not both 0",
        )
    return scenes, physical


def _variant(args: argparse.Namespace, shipped: str) -> str:
    """The Mitsuba variant to trace the tables with: the option's, else the recipe's."""
    from models.synth.physical import VARIANTS

    if args.physical_variant is not None and args.physical_variant not in VARIANTS:
        raise TablesightError(
            f"--physical-variant {args.physical_variant} is not one this renderer uses",
            f"give one of {', '.join(VARIANTS)}",
        )
    return args.physical_variant or shipped


def _need_mitsuba(physical: int, variant: str) -> None:
    """Checked before any table is rendered: a variant that cannot run here would fail every
    path-traced table, after the painted ones' hour of work."""
    if physical == 0:
        return
    if importlib.util.find_spec("mitsuba") is None:
        raise TablesightError(
            "the path-traced training tables need Mitsuba 3, which is not installed",
            "install the train extra again (pip install 'tablesight[train]') or pass --physical-scenes 0",
        )
    import drjit
    import mitsuba

    on_the_cpu = "trace them on the CPU: --physical-variant llvm_ad_rgb (LLVM 17 or later) or scalar_rgb"
    try:
        mitsuba.set_variant(variant)
    except ImportError as error:
        raise TablesightError(f"Mitsuba's {variant} cannot start here ({error})", on_the_cpu) from None
    # LLVM 15's code generator aborts the process on the instructions Dr.Jit 1.5 emits.
    if variant.startswith("llvm") and drjit.detail.llvm_version() < (17,):
        version = ".".join(map(str, drjit.detail.llvm_version()))
        raise TablesightError(
            f"Mitsuba's {variant} needs LLVM 17 or later, and the libLLVM found is {version}",
            "point DRJIT_LIBLLVM_PATH at a newer libLLVM.so, or pass --physical-variant scalar_rgb",
        )


def _train_base_map(args: argparse.Namespace) -> int:
    from models import base_map_training
    from models.base_map import SHIPPED_BASE_MAP

    def train(tables, recipe, out, log, jobs):  # its small crops are cut in the training process
        return base_map_training.train_base_map(tables, recipe, out, log=log)

    return _train_map(args, "--base-map", "the base map", SHIPPED_BASE_MAP, base_map_training.BaseMapRecipe,
                      base_map_training.make_tables, train)


def _train_hull_map(args: argparse.Namespace) -> int:
    from models import hull_map_training
    from models.hull_map import SHIPPED_HULL_MAP

    return _train_map(args, "--hull-map", "the hull map", SHIPPED_HULL_MAP, hull_map_training.HullMapRecipe,
                      hull_map_training.make_tables, hull_map_training.train_hull_map)


def _train_hull_fit(args: argparse.Namespace) -> int:
    from models import hull_fit_training
    from models.hull_fit import SHIPPED_HULL_FIT

    def train(tables, recipe, out, log, jobs):  # its views are cut in the training process
        return hull_fit_training.train_hull_fit(tables, recipe, out, log=log)

    return _train_map(args, "--hull-fit", "the hull-fit net", SHIPPED_HULL_FIT,
                      hull_fit_training.HullFitRecipe, hull_fit_training.make_windows, train)


def _train_map(
    args: argparse.Namespace, flag: str, name: str, shipped: Path, recipe_class, make_tables: Callable,
    train: Callable,
) -> int:
    """`tablesight train --base-map`, `--hull-map` or `--hull-fit`: the verifier's options that fit a map
    (--scenes, --physical-scenes, --physical-variant, --jobs) apply; --epochs and --dataset
    belong to the verifier's rims."""
    if args.epochs is not None or args.dataset is not None:
        raise TablesightError(
            f"--epochs and --dataset are the rim verifier's; {name} trains for a number of --steps",
            f"leave them out with {flag}",
        )
    recipe = _recipe(args, recipe_class, "steps")
    _need_mitsuba(recipe.physical_scenes, recipe.physical_variant)
    output = _model_output(args.output or str(shipped))
    tables = make_tables(recipe, log=_log, jobs=args.jobs)
    report = train(tables, recipe, Path(output), _log, args.jobs)
    print(json.dumps({"model": output, **report}))
    return 0


def _train_centring(args: argparse.Namespace) -> int:
    """`tablesight train --centring`: the verifier's options apply but --steps; --dataset
    caches the views (patches and offsets) instead of the rims."""
    import numpy as np

    from models.centring import SHIPPED_CENTRING
    from models.centring_training import CentringRecipe, make_views, train_centring

    if args.steps is not None:
        raise TablesightError(
            "--steps is for --base-map, --hull-map and --hull-fit", "give the centring net --epochs"
        )
    recipe = _recipe(args, CentringRecipe, "epochs")
    output = _model_output(args.output or str(SHIPPED_CENTRING), args.dataset)
    x, y = _samples(
        args.dataset, recipe, "views", _cached_views,
        lambda: make_views(recipe, log=_log, jobs=args.jobs),
        lambda cache, views: np.savez(cache, x=views[0], y=views[1]),
    )
    report = train_centring(x, y, recipe, Path(output), log=_log)
    print(json.dumps({"model": output, **report}))
    return 0


def _cached_views(cache: Path):
    """The views `tablesight train --centring --dataset` saved: patches and offsets."""

    def read(data):
        if set(data.files) != {"x", "y"} or data["y"].ndim != 2:
            return None
        return data["x"], data["y"]

    return _cached(cache, "view", "tablesight train --centring", read)
