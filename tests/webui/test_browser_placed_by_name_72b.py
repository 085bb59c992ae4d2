"""A piece placed on the table is answered with the name the rig gave it (the reply's `added`):
"Objectives saved." told a player neither which objective it was nor how to name it to the table."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import enter_pin, tap_table

pytestmark = pytest.mark.browser


def test_a_placed_objective_is_answered_by_its_name(page, session):
    page.click("[data-tab='setup']")
    page.click("[data-mode='objective']")
    tap_table(page, 60.0, 100.0)
    enter_pin(page)
    expect(page.locator("#message")).to_have_text("Objective obj3 placed.")
    assert [o["id"] for o in session.state()["objectives"]] == ["obj1", "obj2", "obj3"]


def test_a_drawn_terrain_piece_is_answered_by_its_name(page, session):
    page.click("[data-tab='setup']")
    page.click("[data-mode='terrain']")
    for x_cm, y_cm in ((60, 100), (72, 100), (66, 110)):
        tap_table(page, x_cm, y_cm)
    page.click("[data-action='terrain-finish']")
    enter_pin(page)
    expect(page.locator("#message")).to_have_text("Terrain piece terrain3 placed.")
    assert [t["id"] for t in session.state()["terrain"]] == ["wood1", "house1", "terrain3"]
