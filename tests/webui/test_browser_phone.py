"""What a phone audit of the page found (report of the web UI on phones), pinned in Chromium.

Each test is one defect the audit met by touch at a phone's size: feedback the player could
not see, a ruleset that could not be left, a replay measured on the live table, labels too
small or printed over each other, a header that cut the phase off, an outage that looked live.
"""

from __future__ import annotations

import math
import re

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PHONE, PIN, enter_pin, hold_port, pushed, serving, shot, tap_table
from webui.app import create_app

pytestmark = pytest.mark.browser

TABLE = {"width_cm": 183, "depth_cm": 122}

def gun_for_combined_arms(page, session) -> None:
    """World at Fire's heavy_gun is a gun in Combined Arms: the one type of the fake game it lacks.

    The page checks a ruleset change against the state it was pushed last, so this waits until
    that state has reached it."""
    session.apply("assign", {"model_ids": ["g1"], "side": "blue", "unit": "blue-gun-1", "type": "gun"})
    pushed(page, session)


BOXES = """sel => [...document.querySelectorAll(sel)].map(e => {
  const r = e.getBoundingClientRect(); return [e.textContent, r.left, r.top, r.right, r.bottom]; })"""


def test_changing_the_ruleset_clears_a_deployment_it_lacks_and_offers_its_own_kinds(page, session):
    gun_for_combined_arms(page, session)
    page.click("[data-tab='setup']")
    kinds = page.eval_on_selector_all("#deployment-kind option", "os => os.map(o => o.value)")
    assert kinds == ["breakthrough", "ambush", "diversion"]  # World at Fire's, from the rig
    page.select_option("#ruleset", "combined-arms")
    page.click("[data-action='setup']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("has no breakthrough deployment, so it was cleared")
    assert session.state()["ruleset"]["id"] == "combined-arms" and session.state()["deployment"] is None
    # The sentence is kept up to date while hidden too ("World at Fire ... defines no deployment
    # kinds"): it counts once shown, when the pushed state has brought Combined Arms' tools.
    expect(page.locator("#no-deployment")).to_be_visible()
    expect(page.locator("#no-deployment")).to_contain_text("defines no deployment kinds")
    expect(page.locator("#deployment-form")).to_be_hidden()


def test_a_refused_ruleset_change_keeps_the_choice_and_says_the_ruleset_really_played(page, session):
    """Session 63 (D6): the form jumped back to the live ruleset and size after a refusal, and
    everything was typed again; it keeps the choice now, and says what the game is played with."""
    gun_for_combined_arms(page, session)
    page.click("[data-tab='setup']")
    page.select_option("#ruleset", "combined-arms")
    page.select_option("#table-size", "custom")
    page.evaluate("document.querySelector('#table-width').max = '9999'")  # past the page's own check
    page.fill("#table-width", "9999")  # the rig refuses a table over 6 m
    page.fill("#table-depth", "122")
    page.click("[data-action='setup']")
    enter_pin(page)
    expect(page.locator("#message")).to_have_class(re.compile("bad"))
    expect(page.locator("#ruleset")).to_have_value("combined-arms")
    expect(page.locator("#table-width")).to_have_value("9999")
    expect(page.locator("#game-now")).to_contain_text("World at Fire")


def test_feedback_is_a_toast_in_view_that_moves_nothing_and_replaces_an_old_error(page, session):
    page.click("[data-tab='setup']")
    page.locator("[data-action='assign']").scroll_into_view_if_needed()
    table_top = page.locator("#overlay").bounding_box()["y"]
    page.click("[data-action='assign']")  # nothing picked: an error
    toast = page.locator("#message")
    expect(toast).to_contain_text("Pick some models first")
    box = toast.bounding_box()
    height = page.viewport_size["height"]
    assert box["y"] >= 0 and box["y"] + box["height"] <= height and box["y"] > height / 2
    assert page.locator("#overlay").bounding_box()["y"] == table_top  # nothing jumped
    page.click("[data-mode='objective']")
    tap_table(page, 60.0, 100.0)
    enter_pin(page)
    expect(toast).to_have_text("Objective obj3 placed.")
    expect(toast).not_to_have_class(re.compile("bad"))
    shot(page, "toast")


def test_a_replay_is_measured_where_it_is_drawn_and_live_controls_wait(page):
    page.click("[data-tab='replay']")
    page.click("#recordings button >> text=game-2026-11-29")
    page.wait_for_selector("#banner:not([hidden])")
    page.locator("#scrubber").fill("2")  # turn 2: r1 at (44, 31), b1 at (78, 44)
    expect(page.locator("#replay-where")).to_contain_text("turn 2, movement")
    page.click("[data-tab='play']")
    for control in ("next-phase", "next-turn", "undo", "phase-to", "clear-templates"):
        assert page.locator(f"[data-action='{control}']").is_disabled(), control
    expect(page.locator("#replay-note")).to_be_visible()
    tap_table(page, 44.0, 31.0)
    expect(page.locator("#message")).to_contain_text("Ranges are for the live table")
    page.click("[data-mode='ruler']")
    tap_table(page, 44.0, 31.0)
    tap_table(page, 78.0, 44.0)
    centre = math.hypot(78 - 44, 44 - 31)
    expect(page.locator("#ruler-result")).to_contain_text(f"{centre - 3.2:.1f} cm edge to edge")
    expect(page.locator("#ruler-result")).to_contain_text(f"{centre:.1f} cm centre to centre")
    page.click("#banner-live")
    expect(page.locator("[data-action='next-phase']")).to_be_enabled()


def test_landscape_phone_draws_the_table_big_with_readable_labels(page):
    page.set_viewport_size({"width": 844, "height": 390})
    page.wait_for_function("document.querySelector('#overlay').getBoundingClientRect().height < 390")
    page.evaluate("window.tablesight.redraw()")
    drawn = page.evaluate(
        """() => { const m = document.querySelector('#overlay').getScreenCTM(); return 183 * m.a; }"""
    )
    assert drawn >= 380, f"table drawn {drawn:.0f} px wide"
    heights = [b[4] - b[2] for b in page.evaluate(BOXES, "#layer-labels text")]
    assert heights and min(heights) >= 9, heights
    panels = page.locator(".panels").bounding_box()
    assert panels["y"] < 120  # beside the table, not squeezed under it
    shot(page, "landscape")


def test_overlay_labels_never_print_over_each_other(page, session):
    with session._changed:  # obj2 right under r3's illegal move label, as in the demo game
        session._state["objectives"][1].update(x_cm=28.0, y_cm=36.0)
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#objectives circle[data-id='obj2']")).to_have_attribute("cx", "28")
    boxes = page.evaluate(BOXES, "#layer-labels text")
    overlaps = [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5
    ]
    assert overlaps == []
    assert any("16.2 cm / 15.0 cm" in b[0] for b in boxes)  # the illegal move keeps its label


TURN = """() => { const e = document.querySelector('#turn'); const r = e.getBoundingClientRect();
  return [e.scrollWidth, e.clientWidth, e.scrollHeight, e.clientHeight, r.height]; }"""


@pytest.mark.parametrize("width", [360, 390])
def test_the_header_shows_the_whole_phase_on_a_phone(page, session, width):
    page.set_viewport_size({"width": width, "height": 740})
    expect(page.locator("#turn")).to_have_text("Turn 1 · movement")
    assert page.evaluate(TURN)[4] < 30  # one line
    for _ in range(11):
        session.apply("next_turn", {})
    session.apply("phase", {"to": "deployment"})
    expect(page.locator("#turn")).to_have_text("Turn 12 · deployment")
    # One evaluation: a state pushed in between would redraw the pill before it is measured.
    scroll_w, client_w, scroll_h, client_h, _ = page.evaluate(
        f"() => {{ document.querySelector('#status').textContent = 'reconnecting…'; return ({TURN})(); }}"
    )
    assert scroll_w <= client_w and scroll_h <= client_h  # nothing cut off, if on two lines


def test_lost_contact_is_said_plainly_and_the_table_dims(browser, session):
    app = create_app(session, PIN, config={"SSE_HEARTBEAT_S": 0.5})
    context = browser.new_context(**PHONE, bypass_csp=True)
    page = context.new_page()
    with serving(app) as url:
        page.goto(url + "/")
        page.wait_for_selector("#pieces circle[data-id='r1']")
    holder = hold_port(url)  # the rig comes back on this port below: no other process may take it
    # The rig is gone: its stream dropped and nothing answers.
    expect(page.locator("#offline")).to_contain_text("Lost contact with the rig", timeout=10_000)
    assert page.evaluate("getComputedStyle(document.querySelector('#overlay')).opacity") == "0.5"
    expect(page.locator("#status")).to_have_text("offline")
    page.click("[data-action='next-phase']")
    enter_pin(page)
    expect(page.locator("#message")).to_have_text("The rig is not answering; try again when it is back.")
    shot(page, "offline")
    with holder, serving(app, int(url.rsplit(":", 1)[1])):
        expect(page.locator("#offline")).to_be_hidden(timeout=10_000)
        assert page.evaluate("getComputedStyle(document.querySelector('#overlay')).opacity") == "1"
        expect(page.locator("#status")).not_to_have_text("offline")
        context.close()


def test_a_ruleset_change_that_would_orphan_unit_types_says_what_to_do_first(page, session):
    gun_for_combined_arms(page, session)
    session.apply("assign", {"model_ids": ["m9"], "side": "blue", "unit": "blue-cav-1", "type": "cavalry"})
    pushed(page, session)
    page.click("[data-tab='setup']")
    page.select_option("#ruleset", "combined-arms")
    page.click("[data-action='setup']")
    told = "combined-arms has no cavalry: under Assign models, give m9 one of its types"
    expect(page.locator("#message")).to_contain_text(told)
    assert page.locator("#pin-dialog").is_hidden()  # nothing the rig would refuse is sent
    assert [a for a, _ in session.applied] == ["assign", "assign"]
    expect(page.locator("#ruleset")).to_have_value("combined-arms")  # chosen, not yet applied


def test_a_second_apply_unassigns_the_models_a_ruleset_has_no_type_for(page, session):
    """Mobile Infantry shares no unit type with World at Fire, so its types could not be given
    first: the warning offers a second Apply, which sends the change with those types unassigned."""
    on_table = {p["type"] for p in [*session.state()["models"], *session.state()["vehicles"]]}
    page.click("[data-tab='setup']")
    page.select_option("#ruleset", "mobile-infantry")
    page.click("[data-action='setup']")
    expect(page.locator("#message")).to_contain_text("tap Apply again now to unassign them")
    assert [a for a, _ in session.applied] == []
    expect(page.locator("#ruleset")).to_have_value("mobile-infantry")
    page.click("[data-action='setup']")
    enter_pin(page)
    expect(page.locator("#message")).to_contain_text("unassigned: give them types of mobile-infantry")
    action, payload = session.applied[-1]
    assert action == "setup" and payload["ruleset"] == "mobile-infantry"
    assert payload["retype"] == dict.fromkeys(on_table - {None})  # every type, to null: unassigned
    assert {p["type"] for p in session.state()["models"]} == {None}
