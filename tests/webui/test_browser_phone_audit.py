"""What a player's audit of the demo on phones (360x640 to 412x915, and 844x390 on its side)
found: a control focused from the keyboard lost the focus to the page at the next state (about each
second); the answers' live region was written anew with every state, so a screen reader read the
same ranges again and again; the camera pill's text was 13.6 px; a number field holding "-" was
refused as "not empty"; and Terrain's and Deployment's pickers were both named "Kind"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import pushed, tap_table

pytestmark = pytest.mark.browser


def restate(page, session, change) -> None:
    """A state pushed by the rig with `change` made to it (a new frame rate, a move's verdict)."""
    with session._changed:
        change(session._state)
        session._state["version"] += 1
        session._changed.notify_all()
    pushed(page, session)
    page.wait_for_timeout(300)  # the ranges are asked again as the table changes, then drawn


def test_a_control_focused_from_the_keyboard_keeps_the_focus_as_states_come(page, session):
    tap_table(page, 32.0, 30.0)  # r1: its ranges, and the button for its whole unit's
    expect(page.locator("#ranges-scope")).to_be_visible()
    page.focus("#ranges-scope")
    restate(page, session, lambda state: state["status"].update(fps=4.0))
    assert page.evaluate("document.activeElement.id") == "ranges-scope"
    page.focus("#moves li[data-id='r3']")
    # Another model's verdict changes: the list is drawn anew, r3's entry keeps the focus.
    restate(page, session, lambda state: state["moves"]["models"]["r1"].update(moved_cm=13.0))
    expect(page.locator("#moves li[data-id='r1']")).to_contain_text("13.0 cm")
    assert page.evaluate("document.activeElement.dataset.id") == "r3"


def test_a_state_that_changes_no_answer_leaves_the_live_region_alone(page, session):
    tap_table(page, 32.0, 30.0)
    expect(page.locator("#ranges li").first).to_be_visible()
    page.evaluate(
        """() => { window.rewritten = 0;
             new MutationObserver((changes) => (window.rewritten += changes.length)).observe(
               document.querySelector('#info'), { childList: true, subtree: true, characterData: true }); }"""
    )
    restate(page, session, lambda state: state["status"].update(fps=4.0))
    assert page.evaluate("window.rewritten") == 0


# Every text node shown outside the table's drawing, with its font size in CSS px.
SMALL_TEXT = """() => [...document.querySelectorAll('body *:not(svg *)')]
  .filter((e) => e.offsetParent !== null
    && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((e) => [e.id || e.className || e.tagName, e.textContent.trim().slice(0, 30),
    parseFloat(getComputedStyle(e).fontSize)])
  .filter(([, , size]) => size < 14)"""


def test_no_text_beside_the_table_is_under_14_px_on_a_360_px_phone(page):
    page.set_viewport_size({"width": 360, "height": 640})
    expect(page.locator("#status")).to_contain_text("ok")
    small = []
    for tab in ("play", "setup", "replay", "log"):
        page.click(f"[data-tab='{tab}']")
        small += page.evaluate(SMALL_TEXT)
    assert small == []


def test_a_number_field_holding_no_number_is_said_to_hold_none(page, session):
    """A phone's number pad gives "-" and "."; the field shows them, but its value is "" (the
    browser keeps what was typed from the page), and the toast said "not empty" under a field that
    was not."""
    page.click("[data-tab='setup']")
    page.select_option("#table-size", "custom")
    page.fill("#table-width", "")
    page.locator("#table-width").press_sequentially("-")
    page.click("[data-action='setup']")
    expect(page.locator("#message.bad")).to_have_text(
        "Table width must be a number from 30 to 600 cm, and what is typed is not one. "
        "Type a table width in that range."
    )
    assert session.applied == []


def test_each_setup_field_has_a_name_of_its_own(page):
    page.click("[data-tab='setup']")
    names = page.locator("#panel-setup").aria_snapshot()
    kinds = [line.strip() for line in names.splitlines() if line.strip().startswith("- combobox")]
    assert len(kinds) == len(set(kinds)), kinds


# Each label's box on the screen against the drawn table's, in CSS px.
LABELS_OUTSIDE = """() => { const table = document.querySelector('#table-mat').getBoundingClientRect();
  const px = (r) => [r.left, r.right, r.top, r.bottom].map(Math.round).join(" ");
  return [...document.querySelectorAll('#layer-labels text')]
    .map((t) => [t.textContent, t.getBoundingClientRect()])
    .filter(([, r]) => r.left < table.left - 1 || r.right > table.right + 1 || r.top < table.top - 1
      || r.bottom > table.bottom + 1)
    .map(([text, r]) => `${text}: ${px(r)}`); }"""


@pytest.mark.parametrize(("width", "height"), [(360, 640), (844, 390)])
def test_labels_by_a_table_edge_stay_on_the_table(page, session, width, height):
    """An objective by the bottom edge printed its label below the table, out of the picture, and
    an illegal move by the left edge (a deployment strip) its verdict half off the left."""
    page.set_viewport_size({"width": width, "height": height})

    def by_the_edges(state):
        state["objectives"][0].update(x_cm=91.5, y_cm=118.0)
        r3 = next(m for m in state["models"] if m["id"] == "r3")
        r3.update(x_cm=5.0, y_cm=40.0, start_x_cm=2.0, start_y_cm=30.0)

    restate(page, session, by_the_edges)
    expect(page.locator("#layer-labels")).to_contain_text("obj1: nobody")
    expect(page.locator("#layer-labels")).to_contain_text("16.2 cm / 15.0 cm")
    assert page.evaluate(LABELS_OUTSIDE) == []
