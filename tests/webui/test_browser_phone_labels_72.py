"""The overlay's labels at a phone's size (390 x 844): a move's and a range's were 12 px, an
objective's, a terrain piece's and a broken unit's 12.75, under the 14 px the rest of the page
keeps to (style.css: the smallest text a phone held at arm's length over the table reads)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import tap_table

pytestmark = pytest.mark.browser

# Each label: its text, its priority (labels.js), its font size in CSS px, and its box on the screen.
LABELS = """() => { const scale = document.querySelector('#overlay').getScreenCTM().a;
  return [...document.querySelectorAll('#layer-labels text')].map(e => { const r = e.getBoundingClientRect();
    return [e.textContent, Number(e.dataset.priority), Number(e.getAttribute('font-size')) * scale,
            r.left, r.top, r.right, r.bottom]; }); }"""
RANGE = 3


def _overlaps(labels: list) -> list:
    return [
        (a[0], b[0])
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
        if a[3] < b[5] - 0.5 and b[3] < a[5] - 0.5 and a[4] < b[6] - 0.5 and b[4] < a[6] - 0.5
    ]


def test_overlay_labels_read_at_14_px_on_a_phone_and_print_over_none(page):
    tap_table(page, 32.0, 30.0)  # r1: its ranges to blue
    expect(page.locator(f"#layer-labels text[data-priority='{RANGE}']").first).to_be_visible()
    labels = page.evaluate(LABELS)
    assert min(px for _, _, px, *_ in labels) >= 14, labels
    assert _overlaps(labels) == []
    texts = [text for text, *_ in labels]
    assert any("16.2 cm / 15.0 cm" in text for text in texts)  # the illegal move keeps its label
    assert any(text.startswith("obj") for text in texts)
    assert sum(priority == RANGE for _, priority, *_ in labels) >= 3
