"""A template tapped beside the table on a phone (the letterbox round a table drawn to fit the
screen, or the markers' larger table) is refused by the rules core in the CLI's words ("give
x_cm from 0 to 183 ... in cm (not mm), x along the width"), which no phone player typed."""

from __future__ import annotations

from tests.webui.test_wording_faults import combined_arms, refused
from webui.wording import refusal


def test_a_template_tapped_off_the_table_is_said_for_a_phone() -> None:
    state = combined_arms()
    payload = {"kind": "grenade", "x_cm": 190.37129, "y_cm": 61.0}
    told = refusal("template", refused("template", payload, state), payload, state)
    assert str(told) == (
        "The grenade template at (190.4, 61.0) cm would be off the 183 × 122 cm table. "
        "Tap on the table to place it."
    )
