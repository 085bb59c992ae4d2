"""--weights naming a device was called a file that "does not exist"."""

from __future__ import annotations

import pytest

from models.detector import load_detector
from rules_core.errors import TablesightError


def test_weights_that_are_a_device_are_named_so() -> None:
    with pytest.raises(TablesightError) as caught:
        load_detector("/dev/zero")
    assert caught.value.problem == "model file /dev/zero is a pipe or a device, not a file"
