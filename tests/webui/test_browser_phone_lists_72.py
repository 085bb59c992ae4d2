"""Two phones placing at the same moment, in Chromium: phone A's tap is on its way while phone B's
lands first. The page sent the whole list it was shown, so A's list, without B's piece, wiped it
out; each phone's tap lands now."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PHONE, PIN, settled, tap_table

pytestmark = pytest.mark.browser

WAIT_S = 10.0


def _phone(browser, url: str):
    context = browser.new_context(**PHONE, bypass_csp=True)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#pieces circle[data-id='r1']")
    settled(page)
    return context, page


def _signed_in(page) -> None:
    page.evaluate("pin => sessionStorage.setItem('tablesight.pin', pin)", PIN)


def _until(check, page) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline
        page.wait_for_timeout(50)


def _place_objective(page, x_cm: float, y_cm: float) -> None:
    page.click("[data-tab='setup']")
    page.click("[data-mode='objective']")
    tap_table(page, x_cm, y_cm)


def _draw_terrain(page, x_cm: float, y_cm: float) -> None:
    page.click("[data-tab='setup']")
    page.click("[data-mode='terrain']")
    for dx, dy in ((0, 0), (12, 0), (6, 10)):
        tap_table(page, x_cm + dx, y_cm + dy)
    page.click("[data-action='terrain-finish']")


@pytest.mark.parametrize(("action", "place"), [("objectives", _place_objective), ("terrain", _draw_terrain)])
def test_two_phones_placing_at_once_keep_both(page, browser, session, action, place):
    other_context, other = _phone(browser, page.url)
    try:
        for phone in (page, other):
            _signed_in(phone)
        held = []
        page.route(f"**/api/action/{action}", lambda route: held.append(route))  # phone A: a slow link
        before = len(session.state()[action])
        place(page, 60.0, 100.0)
        _until(lambda: held, page)
        place(other, 120.0, 100.0)
        _until(lambda: len(session.state()[action]) == before + 1, other)
        held[0].continue_()
        expect(page.locator("#message")).not_to_have_class(re.compile("bad"))
        expect(page.locator("#message")).to_have_text(re.compile("placed"))
        placed = session.state()[action]
        assert len(placed) == before + 2
        where = [p.get("x_cm", p.get("polygon_cm", [[None]])[0][0]) for p in placed[before:]]
        assert sorted(where) == [60.0, 120.0]
        assert len({p["id"] for p in placed}) == len(placed)
    finally:
        other_context.close()
