"""Phone controls that must stay reachable and truthful (session 60's check of the phone UI at
390x844, 360x640 and 844x390 found each of these broken).

Each test is one defect: a deployment that could not be left, the rules core's JSON wording on a
phone, placeholders read as values, controls pushed out of reach, units the ruleset does not
measure in, a hint that lied in a replay, a pill that cried wolf, a table no keyboard could use.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import (
    PHONE,
    PIN,
    assert_phone_friendly,
    combined_arms,
    enter_pin,
    pushed,
    serving,
    shot,
    tap_table,
)
from tests.webui.fake_session import RULESETS
from webui.app import create_app

pytestmark = pytest.mark.browser


def test_a_deployment_can_be_cleared_so_another_side_can_be_assigned(page, session):
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    tap_table(page, 92.0, 104.0)  # m9, unassigned
    page.fill("#assign-side", "green")
    page.fill("#assign-unit", "green-1")
    page.fill("#assign-type", "infantry")
    page.click("[data-action='assign']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("green")  # refused: breakthrough names red and blue
    page.click("[data-action='deployment-clear']")
    expect(page.locator("#message")).to_contain_text("Deployment cleared")
    assert session.state()["deployment"] is None
    assert session.state()["phase"] == "movement"  # the game's settings stay as they were
    pushed(page, session)
    page.click("[data-action='assign']")  # m9 is still picked
    expect(page.locator("#message")).to_contain_text("Assigned m9")
    assert next(m for m in session.state()["models"] if m["id"] == "m9")["side"] == "green"


def test_a_cleared_deployment_keeps_its_sides_in_the_form(page, session):
    page.click("[data-tab='setup']")
    page.click("[data-action='deployment-clear']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Deployment cleared")
    pushed(page, session)
    page.click("[data-mode='assign']")
    tap_table(page, 92.0, 104.0)  # m9 joins a third side: the form is drawn again
    page.fill("#assign-side", "green")
    page.fill("#assign-unit", "green-1")
    page.fill("#assign-type", "infantry")
    page.click("[data-action='assign']")
    expect(page.locator("#message")).to_contain_text("Assigned m9")
    pushed(page, session)
    expect(page.locator("#deployment-sides select[data-side='green']")).to_have_count(1)
    expect(page.locator("#deployment-sides select[data-side='red']")).to_have_value("left")
    expect(page.locator("#deployment-sides select[data-side='blue']")).to_have_value("right")


HINTS = """() => ['side', 'unit', 'type'].map(f => { const e = document.querySelector('#assign-' + f);
  const hint = getComputedStyle(e, '::placeholder');
  return [e.placeholder, hint.color, hint.fontStyle, getComputedStyle(e).color]; })"""


def test_assign_placeholders_read_as_hints_not_values(page):
    page.click("[data-tab='setup']")
    for placeholder, colour, style, typed in page.evaluate(HINTS):
        assert placeholder.startswith("e.g. "), placeholder
        assert style == "italic" and colour != typed, (placeholder, colour, style, typed)


def blue_army(page, session) -> None:
    """A blue army of 14 models, r1 picked: r1 has a range to each, a list longer than its box."""
    with session._changed:
        for n in range(4, 12):
            session._state["models"].append(
                {**session._state["models"][5], "id": f"b{n}", "x_cm": 100.0 + 6 * n, "y_cm": 20.0}
            )
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)
    tap_table(page, 32.0, 30.0)  # r1


def bump(page, session) -> None:
    """A state change the page redraws for (the rig pushes one about every second)."""
    with session._changed:
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)


# Upright, small and on its side: below the list the buttons fell off the latter two.
@pytest.mark.parametrize("viewport", ["390x844", "360x640", "844x390"])
def test_a_long_ranges_list_scrolls_in_its_box_and_leaves_the_turn_buttons_on_screen(page, session, viewport):
    width, height = map(int, viewport.split("x"))
    page.set_viewport_size({"width": width, "height": height})
    blue_army(page, session)
    expect(page.locator("#ranges li")).to_have_count(13)
    for action in ("next-phase", "next-turn", "undo"):
        box = page.locator(f"[data-action='{action}']").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (action, box)
    assert page.locator("#ranges").bounding_box()["y"] + 40 <= height  # its first row is in sight too
    assert page.evaluate("(e => e.scrollHeight > e.clientHeight)(document.querySelector('#ranges'))")


def test_the_ranges_list_keeps_its_scroll_through_state_updates(page, session):
    blue_army(page, session)
    expect(page.locator("#ranges li")).to_have_count(13)
    to_bottom = "(e => (e.scrollTop = e.scrollHeight, e.scrollTop))(document.querySelector('#ranges'))"
    bottom = page.evaluate(to_bottom)
    assert bottom > 0
    bump(page, session)
    assert page.evaluate("document.querySelector('#ranges').scrollTop") == bottom


# Each option's text against the room the picker gives it (its box less padding and the arrow).
OPTION_FITS = """() => { const s = document.querySelector('#template-kind');
  const style = getComputedStyle(s);
  const pen = document.createElement('canvas').getContext('2d'); pen.font = style.font;
  const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
  return [...s.options].map(o => [o.textContent, pen.measureText(o.textContent).width <= room]); }"""
INSIDE = """width => [...document.querySelectorAll('#measure-tools *, #template-size *')]
  .filter(e => e.offsetParent !== null).map(e => [e.id || e.textContent, e.getBoundingClientRect()])
  .filter(([, r]) => r.left < 0 || r.right > width).map(([name]) => name)"""


def test_the_template_picker_fits_a_360_px_phone(page, session):
    combined_arms(page, session)
    page.set_viewport_size({"width": 360, "height": 640})
    page.click("[data-mode='template']")
    page.select_option("#template-kind", "smoke")  # its heading field joins the row
    page.locator("#template-size").scroll_into_view_if_needed()
    assert [name for name, fits in page.evaluate(OPTION_FITS) if not fits] == []
    assert page.evaluate(INSIDE, 360) == []
    assert_phone_friendly(page)
    shot(page, "template-360")


def test_templates_are_listed_in_the_rulesets_unit(page, session):
    combined_arms(page, session)  # measured in inches
    page.click("[data-mode='template']")
    tap_table(page, 32.0, 30.0)  # a grenade on r1
    enter_pin(page)
    told = page.locator("#info p", has_text="grenade")
    expect(told).to_have_text("grenade (1.0 in radius) at 12.6 in across, 11.8 in down: r1 under it.")
    page.select_option("#template-kind", "smoke")
    tap_table(page, 91.5, 61.0)
    smoke = page.locator("#info p", has_text="smoke")
    expect(smoke).to_contain_text("(5.0 in × 1.0 in strip) at 36.0 in across")


def mobile_infantry_templates(page, session) -> None:
    """The live game under Mobile Infantry (measured in mm, its grenade sized by the radius typed
    in), the template tool on."""
    with session._changed:
        session._state.update(ruleset=dict(RULESETS["mobile-infantry"]), deployment=None, phase="movement")
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)
    page.wait_for_selector("[data-mode='template']:not([hidden])")
    page.click("[data-mode='template']")


def test_a_blast_radius_is_typed_in_the_rulesets_unit(page, session):
    mobile_infantry_templates(page, session)
    expect(page.locator("#template-radius-field")).to_contain_text("Radius mm")
    page.fill("#template-radius", "60")
    tap_table(page, 32.0, 30.0)
    enter_pin(page)
    expect(page.locator("#info p", has_text="grenade")).to_contain_text("(60.0 mm radius)")
    assert session.state()["templates"][0]["radius_cm"] == pytest.approx(6.0)


@pytest.mark.parametrize("typed", ["0.3", "600"])
def test_a_blast_radius_outside_the_fields_bounds_is_refused_in_the_rulesets_unit(page, session, typed):
    mobile_infantry_templates(page, session)
    page.fill("#template-radius", typed)
    tap_table(page, 32.0, 30.0)
    toast = page.locator("#message.bad")
    expect(toast).to_have_text("A blast radius is 5 to 500 mm.")
    assert session.state()["templates"] == []


def measure_r1_to_b1(page) -> None:
    page.click("[data-mode='ruler']")
    tap_table(page, 32.0, 30.0)  # r1
    tap_table(page, 78.0, 44.0)  # b1
    expect(page.locator("#ruler-result")).to_contain_text("edge to edge")


def test_orders_that_hide_distances_drop_the_ruler_and_template_distances(page, session):
    measure_r1_to_b1(page)
    with session._changed:  # Mobile Infantry's orders: no pre-measuring; a grenade already down
        session._state.update(ruleset=dict(RULESETS["mobile-infantry"]), deployment=None, phase="orders")
        session._state["templates"] = [{"kind": "grenade", "x_cm": 140.0, "y_cm": 90.0, "radius_cm": 2.5,
                                        "under": ["g1"]}]
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)
    expect(page.locator("#premeasure-note")).to_be_visible()
    expect(page.locator("#ruler-result")).to_have_count(0)
    expect(page.locator("[data-mode='ruler']")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#mode-hint")).to_have_text("Distances are hidden until the orders are given.")
    expect(page.locator("#info p", has_text="grenade")).to_have_text("grenade: g1 under it.")


def test_leaving_the_ruler_drops_its_measure(page, session):
    measure_r1_to_b1(page)
    page.click("[data-mode='select']")
    expect(page.locator("#ruler-result")).to_have_count(0)
    combined_arms(page, session)
    measure_r1_to_b1(page)
    page.click("[data-mode='template']")
    expect(page.locator("#ruler-result")).to_have_count(0)


def test_the_hint_in_a_replay_offers_what_a_replay_does(page):
    expect(page.locator("#mode-hint")).to_have_text("Tap a model for its ranges.")
    page.click("[data-tab='replay']")
    page.click("#recordings button >> text=game-2026-11-29")
    page.wait_for_selector("#banner:not([hidden])")
    hint = page.locator("#mode-hint")
    expect(hint).to_have_text("Replay: tap Ruler, then two models or points, to measure.")
    page.click("#banner-live")
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")  # a tool a replay switches off, picked before it opens:
    page.click("[data-tab='replay']")  # Setup's tool stays in Setup (session 63, D5)
    page.click("#recordings button >> text=game-2026-11-29")
    expect(hint).to_have_text("Replay: tap Ruler, then two models or points, to measure.")
    page.click("#banner-live")
    expect(hint).to_have_text("Tap a model for its ranges.")


def test_opening_a_replay_drops_the_live_ranges(page):
    tap_table(page, 32.0, 30.0)  # r1
    expect(page.locator("#ranges li").first).to_be_visible()
    page.click("[data-tab='replay']")
    page.click("#recordings button >> text=game-2026-11-29")
    page.wait_for_selector("#banner:not([hidden])")
    expect(page.locator("#ranges")).to_have_count(0)
    assert page.evaluate("window.tablesight.ranges") is None


def bronepehota(page, session, step_cm: float) -> None:
    """The live game under Bronepehota (measured in steps) with a step of `step_cm`."""
    with session._changed:
        session._state.update(ruleset={**RULESETS["bronepehota"], "unit_cm": step_cm}, deployment=None)
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)
    page.wait_for_function("() => window.tablesight.tools && window.tablesight.tools.id === 'bronepehota'")


def test_the_step_length_field_shows_the_games_step_so_apply_keeps_it(page, session):
    bronepehota(page, session, 4.0)
    page.click("[data-tab='setup']")
    expect(page.locator("#step-cm")).to_have_value("4")
    page.click("[data-action='setup']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("Game settings applied")
    assert session.state()["ruleset"]["unit_cm"] == 4.0


def test_the_template_picker_follows_a_ruleset_change_that_keeps_the_names(page, session):
    with session._changed:  # Mobile Infantry's grenade has no radius of its own
        session._state.update(ruleset=dict(RULESETS["mobile-infantry"]), deployment=None, phase="movement")
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)
    expect(page.locator("#template-kind option")).to_have_text(["grenade (radius below)"])
    bronepehota(page, session, 2.5)  # a grenade too, of one step
    expect(page.locator("#template-kind option")).to_have_text(["grenade (1 step radius)"])


PILL_WORDS = """() => { window.pillSaid = [];
  new MutationObserver(() => window.pillSaid.push(document.querySelector('#status').textContent))
    .observe(document.querySelector('#status'), { childList: true, characterData: true, subtree: true }); }"""


def test_a_stream_the_rig_ends_and_the_browser_resumes_does_not_flash_reconnecting(browser, session):
    app = create_app(session, PIN, config={"SSE_MAX_S": 1.0, "SSE_HEARTBEAT_S": 0.5})
    context = browser.new_context(**PHONE, bypass_csp=True)
    page = context.new_page()
    with serving(app) as url:
        page.goto(url + "/")
        page.wait_for_selector("#pieces circle[data-id='r1']")
        page.evaluate(PILL_WORDS)
        page.wait_for_timeout(4500)  # the rig ends four streams, the browser resumes each within 1 s
        said = page.evaluate("window.pillSaid")
        context.close()
    assert said and "reconnecting…" not in said, said


def test_the_table_is_labelled_and_its_models_are_picked_from_the_keyboard(page):
    table = page.locator("#overlay")
    assert table.get_attribute("role") and table.get_attribute("aria-label")
    r1 = page.locator("#pieces [data-id='r1']")
    assert (r1.get_attribute("role"), r1.get_attribute("tabindex")) == ("button", "0")
    assert r1.get_attribute("aria-label") == "r1, red red-inf-1 infantry"
    page.click("[data-zoom='out']")
    page.keyboard.press("Tab")  # from the last view button into the table: its first model
    assert page.evaluate("document.activeElement.closest('#pieces') !== null")
    r1.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#info")).to_contain_text("Ranges from r1:")
    assert page.evaluate("document.activeElement.dataset.id") == "r1"  # kept through the redraw
    page.locator("#pieces [data-id='b1']").focus()
    page.keyboard.press(" ")
    expect(page.locator("#info")).to_contain_text("Ranges from b1:")
