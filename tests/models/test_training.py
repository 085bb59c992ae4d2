"""`tablesight train` end to end on a tiny budget: dataset, one epoch, ONNX the runtime loads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.synth.specs import BaseTruth, Truth
from models.training import PHYSICAL_SEED_BASE, TRAIN_SEED_BASE, Recipe, label_candidates
from models.verifier import PAIR_DIGEST, PATCH_SHAPE, ring_path


def test_labels_follow_the_truth():
    truth = Truth([BaseTruth(10.0, 10.0, 32.0, 1.0), BaseTruth(30.0, 10.0, 65.0, 0.1)], [])
    xy = np.array([[10.05, 10.0], [10.3, 10.0], [10.0, 12.0], [30.0, 10.0], [10.0, 10.0]])
    labels = label_candidates(xy, np.array([32.0, 32.0, 32.0, 65.0, 65.0]), truth)
    # on the base; 3 mm off (ambiguous); 2 cm off; a base too hidden to ask for; wrong size class
    assert labels.tolist() == [1, -1, 0, -1, 0]


def test_training_seeds_never_overlap_the_benchmark():
    from benchmarks.detection import HARD_SEED_OFFSET

    assert HARD_SEED_OFFSET + 1000 < TRAIN_SEED_BASE
    assert TRAIN_SEED_BASE + Recipe().scenes < PHYSICAL_SEED_BASE


@pytest.mark.slow
def test_train_one_tiny_epoch_exports_a_model_the_runtime_loads(tmp_path, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from models.detector import load_detector
    from tracker.cli import main

    out = tmp_path / "rim.onnx"
    assert main(["train", "--scenes", "1", "--physical-scenes", "0", "--epochs", "1", "-o", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rims"] > 0 and report["bases"] > 0
    detector = load_detector(str(out))
    assert detector.verifier is not None
    patches = np.random.default_rng(0).normal(size=(3, *PATCH_SHAPE)).astype(np.float32)
    assert detector.verifier.probability(patches).shape == (3,)
    logits = detector.verifier.session.run(["logits"], {"rims": patches})[0]
    assert logits.shape == (3, 2)
    ring = detector.verifier.ring_probability(patches)
    np.testing.assert_allclose(ring, 1 / (1 + np.exp(-logits[:, 0])), rtol=1e-5)
    kept = detector.verifier.ring_session.get_modelmeta().custom_metadata_map
    assert ring_path(out).is_file() and PAIR_DIGEST in kept  # screening from the kept ring net


@pytest.mark.slow
def test_the_dataset_is_the_same_whatever_the_number_of_processes():
    pytest.importorskip("mitsuba", reason="needs the train extra (pip install '.[train]')")
    from models.training import make_dataset

    recipe = Recipe(scenes=2, physical_scenes=1, physical_spp=1, physical_variant="scalar_rgb")
    x1, y1, traced1 = make_dataset(recipe, log=lambda m: None, jobs=1)
    x2, y2, traced2 = make_dataset(recipe, log=lambda m: None, jobs=2)
    assert traced1[0] and not traced1[-1]  # the path-traced table's rims first, then the painter's
    assert y1[traced1].sum() > 0 and (y1[traced1] == 0).sum() > 0 and y1[~traced1].sum() > 0
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(traced1, traced2)
    np.testing.assert_array_equal(x1, x2)


def test_training_without_mitsuba_says_how_to_get_it(monkeypatch, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    import models.cli
    from tracker.cli import main

    real = models.cli.importlib.util.find_spec
    monkeypatch.setattr(
        models.cli.importlib.util, "find_spec", lambda name, *a: None if name == "mitsuba" else real(name, *a)
    )
    assert main(["train", "--scenes", "1", "--physical-scenes", "1"]) == 2
    err = capsys.readouterr().err
    assert "Mitsuba" in err and "--physical-scenes 0" in err


def test_training_on_no_tables_is_refused(capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    assert main(["train", "--scenes", "0", "--physical-scenes", "0"]) == 2
    assert "not both 0" in capsys.readouterr().err


def test_a_rims_cache_from_before_the_path_traced_tables_still_trains(tmp_path, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    rng = np.random.default_rng(0)
    cache = tmp_path / "rims.npz"
    y = np.array([0, 1] * 16, np.float32)
    np.savez_compressed(cache, x=rng.normal(size=(32, *PATCH_SHAPE)).astype(np.float32), y=y)
    out = tmp_path / "rim.onnx"
    assert main(["train", "--dataset", str(cache), "--epochs", "1", "-o", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rims"] == 32 and "path_traced" not in report["validation"] and out.exists()


def test_a_rims_cache_of_another_patch_shape_is_refused(tmp_path, capsys):
    """A cache of patches sampled another way would train a model the runtime cannot feed."""
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    cache = tmp_path / "rims.npz"
    np.savez_compressed(cache, x=np.zeros((4, 4, 56, 24), np.float32), y=np.array([0, 1, 0, 1], np.float32))
    out = tmp_path / "rim.onnx"
    assert main(["train", "--dataset", str(cache), "--epochs", "1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "(4, 56, 24)" in err and "delete the cache" in err and not out.exists()


@pytest.mark.parametrize("content", ["text", "empty", "folder", "other_arrays"])
def test_a_dataset_that_is_no_rim_cache_is_one_line(tmp_path, capsys, content):
    """A --dataset path that holds something else is said so before any training (it was a
    traceback: pickled data, EOF, a folder, a missing array)."""
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    cache = tmp_path / "rims.npz"
    if content == "text":
        cache.write_text("not a cache")
    elif content == "empty":
        cache.write_bytes(b"")
    elif content == "folder":
        cache.mkdir()
    else:
        np.savez(cache, a=np.zeros(3))
    assert main(["train", "--dataset", str(cache), "-o", str(tmp_path / "rim.onnx")]) == 2
    err = capsys.readouterr().err
    assert str(cache) in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_pickled_dataset_is_refused_without_numpys_advice_to_load_it_unsafely(tmp_path, capsys):
    """numpy's refusal of a pickle says "you can load it unsafely using allow_pickle": advice a
    user of `train` cannot take, and should not (a pickle runs code as it loads)."""
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    cache = tmp_path / "rims.npy"
    np.save(cache, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    assert main(["train", "--dataset", str(cache), "-o", str(tmp_path / "rim.onnx")]) == 2
    err = capsys.readouterr().err
    assert "pickled objects" in err and "allow_pickle" not in err and "unsafely" not in err


@pytest.mark.parametrize("where", ["folder", "unwritable"])
def test_an_output_that_cannot_be_written_is_refused_before_rendering(tmp_path, capsys, monkeypatch, where):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    import models.training
    from tracker.cli import main

    monkeypatch.setattr(models.training, "make_dataset", lambda *a, **k: pytest.fail("rendered first"))
    if where == "folder":
        out = tmp_path / "rim.onnx"
        out.mkdir()
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        monkeypatch.setattr("os.access", lambda path, mode: Path(path) != locked)
        out = locked / "new" / "rim.onnx"
    assert main(["train", "--scenes", "1", "--physical-scenes", "0", "-o", str(out)]) == 2
    assert "-o" in capsys.readouterr().err


def _which_table(index: int, hard: bool, spp: int, variant: str) -> tuple:
    return index, hard, spp, variant


def test_every_path_traced_table_goes_to_the_variant_asked_for():
    from models.training import over_tables

    recipe = Recipe(scenes=2, physical_scenes=2, physical_spp=16, physical_variant="cuda_ad_rgb")
    tables = list(over_tables(_which_table, recipe))
    assert tables == [
        (0, False, 16, "cuda_ad_rgb"),
        (1, True, 16, "cuda_ad_rgb"),
        (0, False, 0, "cuda_ad_rgb"),  # a painted table: no samples, so nothing is traced
        (1, True, 0, "cuda_ad_rgb"),
    ]


def test_an_unknown_mitsuba_variant_is_one_line_before_rendering(capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    assert main(["train", "--scenes", "1", "--physical-variant", "optix"]) == 2
    err = capsys.readouterr().err
    assert "--physical-variant optix" in err and "cuda_ad_rgb" in err and "Traceback" not in err


def test_a_variant_that_cannot_start_here_is_one_line_before_rendering(monkeypatch, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    mitsuba = pytest.importorskip("mitsuba", reason="needs the train extra (pip install '.[train]')")
    from tracker.cli import main

    def no_gpu(variant: str) -> None:
        raise ImportError("jit_init_thread_state(): the CUDA backend hasn't been initialized")

    monkeypatch.setattr(mitsuba, "set_variant", no_gpu)
    options = ["--scenes", "1", "--physical-scenes", "1", "--physical-variant", "cuda_ad_rgb"]
    assert main(["train", *options]) == 2
    err = capsys.readouterr().err
    assert "cuda_ad_rgb cannot start here" in err and "--physical-variant llvm_ad_rgb" in err


def test_an_llvm_too_old_for_the_vectorised_variant_is_named(monkeypatch, capsys):
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    mitsuba = pytest.importorskip("mitsuba", reason="needs the train extra (pip install '.[train]')")
    import drjit

    from tracker.cli import main

    monkeypatch.setattr(mitsuba, "set_variant", lambda variant: None)
    monkeypatch.setattr(drjit.detail, "llvm_version", lambda: (15, 0, 6))
    options = ["--scenes", "1", "--physical-scenes", "1", "--physical-variant", "llvm_ad_rgb"]
    assert main(["train", *options]) == 2
    err = capsys.readouterr().err
    assert "LLVM 17 or later" in err and "15.0.6" in err and "DRJIT_LIBLLVM_PATH" in err


@pytest.mark.parametrize("where", ["pseudo_fs", "a_photo", "the_cache"])
def test_an_output_the_model_must_not_go_to_is_refused_before_rendering(tmp_path, capsys, monkeypatch, where):
    """/proc passed the permission check (as root) and failed with a traceback after the
    training; a photo or the rims cache named by -o was replaced by the model."""
    pytest.importorskip("torch", reason="needs the train extra (pip install '.[train]')")
    import models.training
    from tracker.cli import main

    monkeypatch.setattr(models.training, "make_dataset", lambda *a, **k: pytest.fail("rendered first"))
    cache = tmp_path / "rims.npz"
    argv = ["train", "--scenes", "1", "--physical-scenes", "0", "--epochs", "1", "--dataset", str(cache)]
    if where == "pseudo_fs":
        if not Path("/proc/self").is_dir():
            pytest.skip("needs a /proc file system")
        out, said = Path("/proc/rim.onnx"), "/proc refuses a new file"
    elif where == "a_photo":
        out, said = tmp_path / "victim.jpg", "the name ends .onnx"
        out.write_bytes(b"\xff\xd8 a photo")
    else:
        out, said = cache.with_suffix(".onnx"), "is the input"
        cache.write_bytes(b"rims")
        out.hardlink_to(cache)
        argv[-1] = str(out)
    before = out.read_bytes() if out.is_file() else None
    assert main([*argv, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
    assert (out.read_bytes() if out.is_file() else None) == before
