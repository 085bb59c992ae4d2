"""`train --dataset PATH` (audit 19, P3): checked before the tables are made, and saved whole or
not at all: a missing folder is made, a full disk leaves no broken cache."""

from __future__ import annotations

import errno
from types import SimpleNamespace

import numpy as np
import pytest

from models.cli import _samples
from rules_core.errors import TablesightError

RECIPE = SimpleNamespace(physical_scenes=0, physical_variant="")


def samples() -> tuple:
    return np.zeros((3, 5, 56, 32), np.float32), np.array([0, 1, 0]), np.zeros(3, bool)


def save(cache, made) -> None:
    np.savez(cache, x=made[0], y=made[1], traced=made[2])


def cached(cache):
    data = np.load(cache)
    return data["x"], data["y"], data["traced"]


def test_a_dataset_in_a_missing_folder_is_saved_there(tmp_path) -> None:
    cache = tmp_path / "nodir" / "rims.npz"
    _samples(str(cache), RECIPE, "rims", cached, samples, save)
    assert cached(cache)[0].shape == (3, 5, 56, 32)
    assert sorted(p.name for p in cache.parent.iterdir()) == ["rims.npz"]


def test_a_dataset_name_without_npz_is_saved_under_that_very_name(tmp_path) -> None:
    cache = tmp_path / "rims.cache"  # numpy would add .npz, and the next run would not find it
    _samples(str(cache), RECIPE, "rims", cached, samples, save)
    assert [p.name for p in tmp_path.iterdir()] == ["rims.cache"]


def test_a_dataset_path_that_cannot_be_used_is_refused_before_the_tables_are_made(tmp_path) -> None:
    made = []
    with pytest.raises(TablesightError, match="File name too long"):
        _samples(str(tmp_path / ("a" * 300 + ".npz")), RECIPE, "rims", cached,
                 lambda: made.append(1) or samples(), save)
    assert not made


def test_a_full_disk_leaves_no_broken_cache_and_the_tables_made_are_trained_on(tmp_path, capsys) -> None:
    def half_then_full(handle, made) -> None:
        handle.write(b"PK half a zip")
        raise OSError(errno.EFBIG, "File too large")

    got = _samples(str(tmp_path / "rims.npz"), RECIPE, "rims", cached, samples, half_then_full)
    assert got[0].shape == (3, 5, 56, 32)
    assert "--dataset" in capsys.readouterr().err
    assert not list(tmp_path.iterdir()), "no broken cache for the next run to refuse"
