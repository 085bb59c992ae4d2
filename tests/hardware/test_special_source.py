"""A --source naming something that exists but is no file or folder: a named pipe, a device."""

from __future__ import annotations

import os

import pytest

from hardware.sources import open_source
from rules_core.errors import TablesightError


@pytest.mark.parametrize("make", ["pipe", "device"])
def test_a_pipe_or_device_is_named_so_not_called_missing(tmp_path, make) -> None:
    """It was "neither a camera nor an existing file or folder", sending the user to look for a
    file that is there."""
    if make == "pipe":
        spec = str(tmp_path / "frames.mp4")
        os.mkfifo(spec)
    else:
        spec = "/dev/null"
    with pytest.raises(TablesightError) as caught:
        open_source(spec)
    assert caught.value.problem == f"{spec} is a pipe or a device, not a video, image or folder"
    assert caught.value.fix.startswith("save what it carries to a file")
