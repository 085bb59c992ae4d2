"""A recording whose manifest key is damaged into bytes that are not UTF-8 (one bit flipped, as
the fuzz test once drew) raised a traceback: Python's sqlite3 says so with an OperationalError
that carries no SQLite result code, and reading that code raised AttributeError."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.cli import main
from tracker.session import DEMO_RECORDING


def test_a_manifest_key_damaged_past_utf8_is_said_to_be_damage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = DEMO_RECORDING.read_bytes()
    assert data.count(b"ruleset") == 2  # the manifest's row and its key's index
    damaged = tmp_path / "game.tsr"
    damaged.write_bytes(data.replace(b"ruleset", bytes([ord("r") ^ 0x80]) + b"uleset"))
    assert main(["replay", str(damaged)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    said = f"tablesight replay: {damaged} is damaged beyond its header (Could not decode to UTF-8"
    assert err.startswith(said)
    assert "nothing in it can be replayed; use another recording" in err
