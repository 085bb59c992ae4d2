"""Fixes that pointed at what a user cannot do (session 73's audit of every refusal's fix): a
Python function, a command that cannot run as given, advice that mends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

import models.detector as detector
from rules_core.errors import TablesightError
from tests.rules_core.builders import base, scene_data
from tests.tracker.test_rules_cli import run, write
from tracker.cli import main


@pytest.fixture
def throw(tmp_path: Path):
    def scene(ruleset: str) -> str:
        models = [base(20, 30, "a"), base(30, 30, "t", side="blue")]
        return write(tmp_path, f"{ruleset}.json", scene_data(ruleset, models))
    return scene


@pytest.mark.parametrize(("ruleset", "kind", "said"), [
    ("bronepehota", "nuke", "give --kind grenade"),  # an unknown kind: the scattering ones named
    ("world-at-fire", "grenade", "nothing scatters in world-at-fire"),  # it has no templates at all
])
def test_a_throw_of_no_scattering_template_names_what_can_be_thrown(capsys, throw, ruleset, kind, said):
    code, _, err = run(capsys, "scatter", throw(ruleset), "a", "t", "3", "--kind", kind)
    assert code == 2 and said in err and "under_template" not in err


def test_a_template_with_no_radius_asks_for_the_flag_in_the_ruleset_s_unit(capsys, tmp_path) -> None:
    scene = write(tmp_path, "mi.json", scene_data("mobile-infantry", [base(20, 30, "a", type="trooper")]))
    code, _, err = run(capsys, "template", scene, "grenade", "20", "30")
    assert code == 2 and "give the radius with --radius, in mm" in err and "radius=" not in err


def test_a_table_with_no_default_layout_is_told_a_markers_command_that_runs(capsys) -> None:
    assert main(["detect", "photo.jpg", "--layout", "100x100", "--json"]) == 2
    err = capsys.readouterr().err
    assert "`tablesight markers --table 100x100 -o markers.pdf` and give --layout markers.json" in err


def test_a_damaged_shipped_verifier_is_restored_by_reinstalling_not_by_leaving_out_an_option(
        monkeypatch, tmp_path) -> None:
    broken = tmp_path / "rim_verifier.onnx"
    broken.write_bytes(b"not a model")
    monkeypatch.setattr(detector, "SHIPPED_WEIGHTS", broken)
    with pytest.raises(TablesightError) as caught:
        detector.load_detector()
    assert "reinstall tablesight" in caught.value.fix and "leave the option out" not in caught.value.fix
