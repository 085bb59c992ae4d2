"""A model's flags, order and wound set on a phone through the Assign panel: the fields show what the
picked model is, and only what the player changed is sent (the rig keeps the rest)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import assert_phone_friendly, enter_pin, pushed, tap_table

pytestmark = pytest.mark.browser


def r1(session) -> dict:
    return next(m for m in session.state()["models"] if m["id"] == "r1")


def test_a_picked_model_is_marked_prone_ordered_and_wounded_then_cleared(page, session):
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    tap_table(page, 32.0, 30.0)  # r1, red-inf-1
    expect(page.locator("#assign-unit")).to_have_value("red-inf-1")
    expect(page.locator("#assign-flags")).to_have_value("")
    page.fill("#assign-flags", "prone, dug_in")
    page.fill("#assign-order", "static")
    page.check("#assign-wounded")
    assert_phone_friendly(page)
    page.click("[data-action='assign']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Assigned r1")
    assert session.applied[-1] == ("assign", {"model_ids": ["r1"], "flags": ["prone", "dug_in"],
                                              "order": "static", "wounded": True})
    assert (r1(session)["flags"], r1(session)["unit"]) == (["prone", "dug_in"], "red-inf-1")

    pushed(page, session)
    tap_table(page, 32.0, 30.0)  # picked again: the fields show how it stands
    expect(page.locator("#assign-flags")).to_have_value("prone, dug_in")
    expect(page.locator("#assign-order")).to_have_value("static")
    expect(page.locator("#assign-wounded")).to_be_checked()
    page.fill("#assign-flags", "")
    page.uncheck("#assign-wounded")
    page.click("[data-action='assign']")
    expect(page.locator("#message")).to_contain_text("Assigned r1")
    assert session.applied[-1] == ("assign", {"model_ids": ["r1"], "flags": [], "wounded": False})
    assert (r1(session)["flags"], r1(session)["order"], r1(session)["wounded"]) == ([], "static", False)


def test_models_that_differ_keep_their_own_and_an_unassigned_pick_gets_no_ones_unit(page, session):
    session.apply("assign", {"model_ids": ["r1"], "flags": ["prone"]})
    pushed(page, session)
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    tap_table(page, 32.0, 30.0)
    tap_table(page, 35.0, 34.0)  # r2: not prone
    expect(page.locator("#assign-flags")).to_have_value("")
    expect(page.locator("#assign-flags")).to_have_attribute("placeholder", "differs: each keeps its own")
    page.fill("#assign-order", "advance")
    page.click("[data-action='assign']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Assigned r1, r2")
    assert session.applied[-1] == ("assign", {"model_ids": ["r1", "r2"], "order": "advance"})
    tap_table(page, 32.0, 30.0)
    page.click("[data-action='clear-picked']")
    tap_table(page, 92.0, 104.0)  # m9, unassigned: r1's side and unit are not offered for it
    expect(page.locator("#assign-unit")).to_have_value("")
    expect(page.locator("#assign-order")).to_have_value("")


def test_a_model_moved_to_another_side_keeps_the_weapons_and_role_shown(page, session):
    """Side, unit and type sent together assign anew, with only the chassis, role and weapons sent:
    the panel sent what was changed alone, and the model lost the weapons and role it showed."""
    session.apply("assign", {"model_ids": ["r1"], "weapons": ["rifle", "lmg"], "role": "officer"})
    pushed(page, session)
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    tap_table(page, 32.0, 30.0)
    expect(page.locator("#assign-weapons")).to_have_value("rifle, lmg")
    page.fill("#assign-side", "blue")
    page.fill("#assign-unit", "blue-inf-9")
    page.fill("#assign-type", "cavalry")
    page.click("[data-action='assign']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Assigned r1")
    assert session.applied[-1] == ("assign", {"model_ids": ["r1"], "side": "blue", "unit": "blue-inf-9",
                                              "type": "cavalry", "role": "officer",
                                              "weapons": ["rifle", "lmg"]})


def test_what_was_typed_stays_when_another_model_is_picked_and_not_after_it_was_sent(page, session):
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    tap_table(page, 32.0, 30.0)  # r1
    page.fill("#assign-flags", "prone")
    tap_table(page, 35.0, 34.0)  # r2 as well: what was typed for r1 was wiped
    expect(page.locator("#assign-flags")).to_have_value("prone")
    page.click("[data-action='assign']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Assigned r1, r2")
    assert session.applied[-1] == ("assign", {"model_ids": ["r1", "r2"], "flags": ["prone"]})
    pushed(page, session)
    tap_table(page, 32.0, 30.0)  # r1 again, after the sending: the field shows how it stands
    expect(page.locator("#assign-flags")).to_have_value("prone")
