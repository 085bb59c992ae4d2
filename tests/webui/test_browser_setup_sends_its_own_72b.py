"""The Setup panel's controls send what they change, never the settings the phone was shown beside
it: Clear deployment sent the ruleset, table and step too, and Apply the table, so a table another
phone had set a moment before (one this phone had not been shown yet) went back to the old one."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import combined_arms, enter_pin, pushed

pytestmark = pytest.mark.browser

SQUARE = {"width_cm": 122.0, "depth_cm": 122.0}


def _set_unseen(session, table: dict) -> None:
    """Another phone's table, taken by the game an instant ago: this phone has not been shown it."""
    with session._changed:
        session._state["table"] = dict(table)


def test_clearing_the_deployment_keeps_a_table_set_a_moment_before(page, session):
    page.click("[data-tab='setup']")
    _set_unseen(session, SQUARE)
    page.click("[data-action='deployment-clear']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Deployment cleared")
    assert session.state()["deployment"] is None
    assert session.state()["table"] == SQUARE
    assert session.applied[-1][1]["table"] == SQUARE


def test_applying_another_ruleset_keeps_a_table_set_a_moment_before(page, session):
    combined_arms(page, session)  # its unit types are all World at Fire's: Apply goes at once
    page.click("[data-tab='setup']")
    _set_unseen(session, SQUARE)
    page.select_option("#ruleset", "world-at-fire")
    page.click("[data-action='setup']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Game settings applied")
    assert session.state()["ruleset"]["id"] == "world-at-fire"
    assert session.state()["table"] == SQUARE


def test_the_game_form_shows_a_table_another_phone_set(page, session):
    combined_arms(page, session)
    page.click("[data-tab='setup']")
    page.select_option("#ruleset", "world-at-fire")
    session.apply("setup", {"ruleset": "combined-arms", "table": SQUARE})  # another phone's Apply
    pushed(page, session)
    expect(page.locator("#table-size")).to_have_value("122x122")
    expect(page.locator("#ruleset")).to_have_value("world-at-fire")  # chosen here, not yet applied
    page.click("[data-action='setup']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Game settings applied")
    assert session.state()["table"] == SQUARE
