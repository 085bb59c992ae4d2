"""`random_scene(rng, light="bogus")` (or `table="bogus"`) raised a bare KeyError from deep inside;
a library caller gets a ValueError naming the light or table and the known ones, at once."""

from __future__ import annotations

import numpy as np
import pytest

from models.synth.randomize import LIGHTS, TABLES, random_scene


def test_an_unknown_light_is_a_value_error_naming_it_and_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown light 'bogus'") as raised:
        random_scene(np.random.default_rng(0), light="bogus")
    assert all(repr(known) in str(raised.value) for known in LIGHTS)


@pytest.mark.parametrize("light", sorted(LIGHTS))
def test_the_known_lights_still_make_a_table(light: str) -> None:
    assert random_scene(np.random.default_rng(0), light=light).light_dir[2] < 0


def test_an_unknown_table_is_a_value_error_naming_it_and_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown table '183x183'") as raised:
        random_scene(np.random.default_rng(0), table="183x183")
    assert all(repr(known) in str(raised.value) for known in TABLES)
