"""A terrain piece the table no longer holds, said for a phone: the rules core told a player who
had picked a smaller table to "give its corners in table cm, from (0, 0) ...", which no phone
player types."""

from __future__ import annotations

import pytest

from rules_core.errors import TablesightError
from tests.webui.fake_session import demo_state
from tests.webui.test_wording_faults import game_of, refused
from webui.wording import refusal

RUIN = {"id": "t1", "kind": "ruins", "polygon_cm": [[150, 20], [170, 20], [170, 40], [150, 40]]}


def with_ruin() -> dict:
    state = demo_state()
    state["terrain"] = [RUIN]
    return state


def test_a_smaller_table_that_leaves_a_terrain_piece_off_it_is_said_for_a_phone() -> None:
    state = with_ruin()
    game = game_of(state)
    game.terrain = [RUIN]
    payload = {"ruleset": "world-at-fire", "table": {"width_cm": 122, "depth_cm": 122}}
    with pytest.raises(TablesightError) as caught:
        game.apply("setup", payload)
    told = refusal("setup", caught.value, payload, state)
    assert str(told) == ("Terrain piece t1 would be off a 122 × 122 cm table. "
                         "Pick a bigger table, or tap Clear terrain under Terrain first.")


def test_a_piece_drawn_wholly_off_the_table_is_said_for_a_phone() -> None:
    state = demo_state()
    drawn = {"terrain": [{**RUIN, "id": "t7", "polygon_cm": [[190, 20], [200, 20], [200, 40]]}]}
    told = refusal("terrain", refused("terrain", drawn, state), drawn, state)
    assert str(told) == ("The terrain piece drawn lies off the 183 × 122 cm table. "
                         "Draw it again with a corner on the table.")
