"""A folder of stills that goes away mid-run (deleted, its USB stick pulled), and a folder with
many stills unreadable: the camera that vanishes, for a source with no camera."""

from __future__ import annotations

import shutil

import cv2
import numpy as np
import pytest

from hardware.folder import FolderSource
from rules_core.errors import TablesightError


def _stills(folder, count: int) -> None:
    folder.mkdir()
    for index in range(count):
        cv2.imwrite(str(folder / f"f{index:03d}.jpg"), np.full((24, 32, 3), 90, np.uint8))


def test_a_folder_gone_mid_run_ends_it_named_so(tmp_path) -> None:
    """Each later still was skipped as "cannot be read (No such file or directory)", the run
    ended with exit 0 and a note listing every name with "replace those files with good copies"."""
    folder = tmp_path / "stills"
    _stills(folder, 5)
    source = FolderSource(folder)
    assert source.read() is not None and source.read() is not None
    shutil.rmtree(folder)
    with pytest.raises(TablesightError) as caught:
        source.read()
    assert caught.value.problem == (f"the folder {folder} is gone after 2 of its 5 images "
                                    "(deleted, moved, or its drive unplugged)")
    assert caught.value.fix == "put the folder back and run again"


def test_many_unreadable_stills_are_counted_not_all_named(tmp_path) -> None:
    """300 stills skipped made a line of 15,000 characters."""
    folder = tmp_path / "stills"
    _stills(folder, 1)
    for index in range(1, 31):
        (folder / f"f{index:03d}.jpg").write_text("not a photo")
    source = FolderSource(folder)
    while source.read() is not None:
        pass
    problem = source.damage().problem
    assert problem.startswith("30 of the 31 images in")
    assert problem.endswith("(f001.jpg is not an image OpenCV can read, f002.jpg is not an image OpenCV can "
                            "read, f003.jpg is not an image OpenCV can read and 27 more)")
