from __future__ import annotations

from pathlib import Path

import pytest

from tests.tracker.recorded import record_flat_game


@pytest.fixture(scope="module")
def flat_recorded(tmp_path_factory) -> Path:
    """A short recorded game of the flat test pipeline, made once per module."""
    path = tmp_path_factory.mktemp("game") / "game.tsr"
    record_flat_game(path)
    return path
