"""A template of a kind the ruleset lacks, centred off the table, is named by its kind: told
first to fix the centre, the user was then told the ruleset lays no such template (or none)."""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, scene


@pytest.mark.parametrize(
    ("ruleset", "kind", "said"),
    [
        ("world-at-fire", "blast", "template: ruleset world-at-fire has no templates (its seed lays none)"),
        ("combined-arms", "dragon", "template: unknown kind 'dragon' for ruleset combined-arms"),
    ],
)
def test_an_unknown_kind_off_the_table_is_named_by_its_kind(ruleset: str, kind: str, said: str) -> None:
    with pytest.raises(SceneError) as caught:
        api.under_template(scene(ruleset, [base(20, 30, "a")]), kind, 500, 3)
    assert caught.value.problem == said
