"""What a blind check of the demo on a 360x740 phone found: Go to phase, tapped with the phase the
game is in (the picker's own choice), began that phase again and wiped its moves' verdicts
under "Phase changed."; the Role field's hint was cut to "e.g. officer (com"; Clear terrain and
Clear objectives answered "Terrain saved." and "Objectives saved."."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PIN

pytestmark = pytest.mark.browser

# Each shown field's hint, its width in the field's font and the room the field gives it (less
# the arrow of a field with suggestions).
HINT_WIDTHS = """() => {
  const pen = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('input[placeholder]')].filter((i) => i.offsetParent).map((i) => {
    const style = getComputedStyle(i);
    pen.font = `italic ${style.fontSize} ${style.fontFamily}`;
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    const room = i.clientWidth - padding - (i.list ? 24 : 0);
    return [i.placeholder, pen.measureText(i.placeholder).width, room];
  });
}"""


def test_go_to_phase_on_the_phase_the_game_is_in_changes_nothing_and_says_so(page, session):
    expect(page.locator("#phase-to")).to_have_value("movement")
    page.click("[data-action='phase-to']")
    expect(page.locator("#message.bad")).to_have_text(
        "The game is in the movement phase already: pick another phase to go to."
    )
    expect(page.locator("#pin-dialog")).not_to_be_visible()
    assert session.applied == []


@pytest.mark.parametrize("width", [360, 390])
def test_every_hint_in_setup_fits_its_field(page, width):
    page.set_viewport_size({"width": width, "height": 740})
    page.click("[data-tab='setup']")
    cut = [(hint, round(wide), round(room)) for hint, wide, room in page.evaluate(HINT_WIDTHS) if wide > room]
    assert cut == []


@pytest.mark.parametrize(("button", "said", "left"), [
    ("terrain-clear", "Terrain cleared.", "terrain"),
    ("objectives-clear", "Objectives cleared.", "objectives"),
])
def test_clearing_terrain_or_objectives_says_they_are_cleared(page, session, button, said, left):
    page.evaluate("pin => sessionStorage.setItem('tablesight.pin', pin)", PIN)
    page.click("[data-tab='setup']")
    page.click(f"[data-action='{button}']")
    expect(page.locator("#message")).to_have_text(said)
    assert session.state()[left] == []
