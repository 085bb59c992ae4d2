"""Labels are placed by their text's real width. Estimated at 0.6 em a character, digits (1.06 times
that in the page's font) ran past the box kept for them: zoomed in on a 360 x 640 phone, two range
labels side by side printed into each other by 3-4 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import pushed, tap_table
from tests.webui.test_browser_phone_labels_72 import RANGE

pytestmark = pytest.mark.browser

BOXES = """() => [...document.querySelectorAll('#layer-labels text')].map(e => {
  const r = e.getBoundingClientRect(); return [e.textContent, r.left, r.top, r.right, r.bottom]; })"""


def _overlapping(labels: list) -> list:
    return [
        (a, b)
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]


def test_zoomed_in_on_a_small_phone_no_two_labels_overlap(page, session):
    page.set_viewport_size({"width": 360, "height": 640})
    page.click("[data-zoom='in']")
    size = page.evaluate("tablesight.fontCm(tablesight.live) * 0.8")  # a range label's, zoomed x2
    page.click("[data-zoom='out']")
    # b3 and b2 side by side, as far apart as the old estimate of "dd.d cm" is wide (and a hair).
    session.move_model("b3", 55.0, 75.0)
    session.move_model("b2", 55.0 + 7 * 0.6 * size + 0.05, 75.0)
    pushed(page, session)
    tap_table(page, 32.0, 30.0)  # r1: its ranges to blue
    expect(page.locator(f"#layer-labels text[data-priority='{RANGE}']")).to_have_count(3)
    page.click("[data-zoom='in']")
    expect(page.locator(f"#layer-labels text[data-priority='{RANGE}']")).to_have_count(3)
    labels = page.evaluate(BOXES)
    assert {"47.3 cm", "56.0 cm"} <= {text for text, *_ in labels}, labels
    assert _overlapping(labels) == []
