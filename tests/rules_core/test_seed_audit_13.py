"""Thirteenth audit pass against the Russian seed texts.

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, scene

CA = "combined-arms"
INCH = 2.54


@pytest.mark.parametrize("far_first", [True, False])
def test_ca_a_squads_shotgun_band_is_its_nearest_shotgunners(far_first: bool) -> None:
    """002: «Дробовик. На дистанции 1-3 дюйма – убивает, на дистанции 3-6 дюймов - ранит» (the
    shotgun kills at 1-3 inches and wounds at 3-6). Asked for a squad, one shotgunner 2" from the
    enemy and one 5" away: the enemy is within the killing band, whichever of the two the scene
    lists first (the band was the first-listed shotgunner's)."""
    enemy = base(60, 50, "e", side="blue", unit="b")
    near = base(60 - 3.2 - 2 * INCH, 50, "near", unit="sq", weapons=["shotgun"])
    far = base(60, 50 + 3.2 + 5 * INCH, "far", unit="sq", weapons=["shotgun"])
    shooters = [far, near] if far_first else [near, far]
    (row,) = api.ranges(scene(CA, [*shooters, enemy]), "sq")["targets"]
    assert row["edge_in_ruleset_units"] == pytest.approx(2.0)
    assert row["effects"] == {"shotgun": "kills"}
