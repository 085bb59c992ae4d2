"""A scene saved with a UTF-8 byte order mark (Windows Notepad, PowerShell) reads like any
other (audit 19, P11), as user rulesets already do."""

from __future__ import annotations

import io
import json
import sys

from tracker.cli import main

SCENE = {"ruleset": "world-at-fire", "table": {"width_cm": 183, "depth_cm": 122}, "models": []}


def test_a_scene_file_with_a_byte_order_mark_is_read(tmp_path, capsys) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(SCENE).encode())
    assert main(["rules", "check", str(path)]) == 0, capsys.readouterr().err
    assert "BOM" not in capsys.readouterr().err


def test_a_scene_on_stdin_with_a_byte_order_mark_is_read(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\ufeff" + json.dumps(SCENE)))
    assert main(["rules", "check", "-"]) == 0, capsys.readouterr().err
