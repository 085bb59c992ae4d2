"""A phone that sees its game begin again lets go of what it held of the old game: after a restart
of the rig its ids may name other pieces, or none, so models picked, ranges and rulers measured
and a terrain shape half drawn went with it into the new game, where a tap on Assign acted on
them; after a restart or a loop of the demo's replay the Setup forms' unsent choices did."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PHONE, PIN, hold_port, pushed, serving, tap_table
from tests.webui.fake_session import FakeSession
from webui.app import create_app

pytestmark = pytest.mark.browser


def new_loop(session: FakeSession) -> None:
    """The demo's replay ended and began again: a fresh game within the same run."""
    with session._changed:
        status = session._state["status"]
        status["loop"] = status.get("loop", 0) + 1
        session._state.update(turn=1, phase="deployment", version=session._state["version"] + 1)
        session._changed.notify_all()


def look_at_r1_and_pick_m9(page) -> None:
    """Model r1 tapped (its ranges shown), then m9 picked for Assign under Setup."""
    tap_table(page, 32.0, 30.0)
    page.wait_for_selector("#ranges li[data-id='b1']")
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    tap_table(page, 92.0, 104.0)
    expect(page.locator("#picked")).to_have_text("Picked: m9")


def held(page) -> dict:
    return page.evaluate(
        """() => { const t = window.tablesight;
             return { selected: t.selected, ranges: t.ranges, ruler: t.ruler.length,
                      picked: [...t.picked], draft: t.draft.length }; }"""
    )


def test_a_new_loop_keeps_the_picks_and_the_measured_model_of_the_same_recording(page, session):
    """The demo loops every 30-odd seconds; its replay's ids name the same pieces each time, so a
    model being looked at or picked for Assign stays so across the loop."""
    look_at_r1_and_pick_m9(page)
    new_loop(session)
    pushed(page, session)
    expect(page.locator("#message")).to_have_text(
        "The recorded game began again from its start (it replays in a loop): turn 1, deployment."
    )
    expect(page.locator("#picked")).to_have_text("Picked: m9")
    assert held(page)["selected"] == "r1"


def test_a_new_loop_with_nothing_held_says_only_that_the_game_began_again(page, session):
    new_loop(session)
    pushed(page, session)
    expect(page.locator("#message")).to_have_text(
        "The recorded game began again from its start (it replays in a loop): turn 1, deployment."
    )


def test_the_setup_forms_unsent_choices_give_way_to_the_new_games_settings(page, session):
    """Apply had warned that mobile-infantry has no infantry and that a second tap unassigns
    them; after a new game that second tap unassigned the new game's models unwarned. The Game and
    Deployment forms kept choices made for the old game, and Apply sent them to the new one."""
    page.click("[data-tab='setup']")
    page.select_option("#ruleset", "mobile-infantry")
    page.click("[data-action='setup']")
    expect(page.locator("#message.bad")).to_contain_text("tap Apply again now to unassign them")
    page.select_option("#table-size", "122x122")
    page.select_option("#deployment-kind", "diversion")
    new_loop(session)
    pushed(page, session)
    expect(page.locator("#ruleset")).to_have_value("world-at-fire")
    expect(page.locator("#table-size")).to_have_value("183x122")
    expect(page.locator("#deployment-kind")).to_have_value("breakthrough")
    expect(page.locator("#deployment-sides select[data-side='red']")).to_have_value("left")
    page.select_option("#ruleset", "mobile-infantry")
    page.click("[data-action='setup']")
    expect(page.locator("#message.bad")).to_contain_text("tap Apply again now to unassign them")
    expect(page.locator("#pin-dialog")).not_to_be_visible()
    assert session.applied == []


def test_a_restarted_rig_drops_the_old_runs_picks_and_ruler(browser):
    before = FakeSession()
    context = browser.new_context(**PHONE, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    with serving(create_app(before, PIN, config={"SSE_HEARTBEAT_S": 0.5})) as url:
        page.goto(url + "/")
        page.wait_for_selector("#pieces circle[data-id='r1']")
        look_at_r1_and_pick_m9(page)
        page.click("[data-mode='terrain']")
        tap_table(page, 120.0, 10.0)  # a terrain shape's first corner
        expect(page.locator("#layer-tools circle")).to_have_count(1)
        page.click("[data-tab='play']")
        page.click("[data-mode='ruler']")
        tap_table(page, 32.0, 30.0)
        tap_table(page, 35.0, 34.0)
        expect(page.locator("#ruler-result")).to_be_visible()
    holder = hold_port(url)
    after = FakeSession()
    with holder, serving(create_app(after, PIN, config={"SSE_HEARTBEAT_S": 0.5}), int(url.rsplit(":", 1)[1])):
        expect(page.locator("#message")).to_contain_text("The table was restarted", timeout=10_000)
        expect(page.locator("#message")).to_contain_text("Picks and measures of the old game are cleared.")
        expect(page.locator("#ruler-result")).to_have_count(0)
        expect(page.locator("#layer-tools > *")).to_have_count(0)
        assert held(page) == {"selected": None, "ranges": None, "ruler": 0, "picked": [], "draft": 0}
        context.close()
    assert errors == []
