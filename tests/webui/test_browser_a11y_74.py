"""What axe-core (4.14, run by hand over every view at 390x844 and 360x740) found, checked here
without it: no level-one heading (the name was a <strong>, hidden on a phone) and the panels'
headings started at level 3; the ranges box scrolls but a keyboard could not reach it; the replay
banner and the camera's words under the header stood outside every landmark, where a screen
reader's landmark list skips them; the exported report had no main landmark."""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import expect

from tests.webui.browser import tap_table

pytestmark = pytest.mark.browser

# Every heading a screen reader lists, in page order, with its level.
HEADINGS = """() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]')]
  .filter((h) => h.getClientRects().length)
  .map((h) => [Number(h.getAttribute('aria-level') || h.tagName.slice(1)), h.textContent.trim()])"""

LANDMARKS = "header:not(main header, section header), main, nav, aside, [role=banner], [role=main]"


@pytest.mark.parametrize("width", [360, 390])
def test_the_page_is_named_by_one_level_one_heading_on_a_phone(page, width):
    page.set_viewport_size({"width": width, "height": 740})
    expect(page.get_by_role("heading", level=1)).to_have_count(1)
    expect(page.get_by_role("heading", level=1)).to_have_text("tablesight")


@pytest.mark.parametrize("tab", ["play", "setup", "replay"])
def test_headings_go_down_one_level_at_a_time(page, tab):
    page.click(f"[data-tab='{tab}']")
    levels = [level for level, _ in page.evaluate(HEADINGS)]
    assert levels[0] == 1
    jumps = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
    assert jumps == []


def test_the_ranges_box_is_reached_and_named_from_the_keyboard(page):
    tap_table(page, 32.0, 30.0)  # r1
    page.wait_for_selector("#ranges li[data-id='b1']")
    ranges = page.get_by_role("list", name="Ranges from r1")
    expect(ranges).to_have_count(1)
    ranges.focus()
    assert page.evaluate("document.activeElement.id") == "ranges"  # the arrow keys scroll it


def test_the_replay_banner_and_the_camera_words_are_in_the_header_landmark(page, session):
    with session._changed:
        session._state["status"]["camera"] = "lost"
        session._state["status"]["message"] = "Camera lost: check its cable."
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#status-line")).to_be_visible()
    page.click("[data-tab='replay']")
    page.click("#recordings button >> nth=0")
    expect(page.locator("#banner")).to_be_visible()
    outside = page.evaluate(
        """(landmarks) => ['#banner', '#status-line', '#offline']
             .filter((s) => !document.querySelector(s).closest(landmarks))""",
        LANDMARKS,
    )
    assert outside == []


def test_the_exported_report_keeps_its_content_in_a_main_landmark(page, client):
    html = client.get("/api/recordings/game-2026-11-29/report").get_data(as_text=True)
    page.set_content(html)
    main = page.get_by_role("main")
    expect(main).to_have_count(1)
    expect(main.get_by_role("heading", level=1)).to_have_count(1)
    expect(main.locator("table")).to_have_count(page.locator("table").count())
