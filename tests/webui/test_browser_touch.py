"""Fingers on the table at a phone's size (session 61's check of the phone UI at 390x844 found a
pinch panning instead of zooming, and a swipe on the table that never scrolled the page, so the
player was stuck on it).

Touches go through Chromium's DevTools input (`Input.dispatchTouchEvent`), the way a phone's
touchscreen feeds the page: the browser itself decides, from the table's `touch-action`, whether
a swipe scrolls the page or is left to the page's script.
"""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import expect

from tests.webui.browser import tap_table

pytestmark = pytest.mark.browser

FULL_TABLE = "0 0 183 122"


def screen_point(page, x_cm: float, y_cm: float) -> tuple[float, float]:
    """Where a table position is on the screen, in CSS pixels."""
    return tuple(
        page.evaluate(
            """([x, y]) => { const svg = document.querySelector('#overlay');
                 const p = svg.createSVGPoint(); p.x = x; p.y = y;
                 const s = p.matrixTransform(svg.getScreenCTM()); return [s.x, s.y]; }""",
            [x_cm, y_cm],
        )
    )


def table_point(page, x: float, y: float) -> tuple[float, float]:
    """The table position under a screen point."""
    return tuple(
        page.evaluate(
            """([x, y]) => { const svg = document.querySelector('#overlay');
                 const p = svg.createSVGPoint(); p.x = x; p.y = y;
                 const t = p.matrixTransform(svg.getScreenCTM().inverse()); return [t.x, t.y]; }""",
            [x, y],
        )
    )


def gesture(page, frames: list[list[tuple[float, float]]]) -> None:
    """Fingers down at frames[0], through each later frame, then lifted: one point per finger."""
    cdp = page.context.new_cdp_session(page)

    def send(kind: str, points: list[tuple[float, float]]) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [{"x": x, "y": y, "id": n} for n, (x, y) in enumerate(points)]},
        )

    send("touchStart", frames[0])
    for points in frames[1:]:
        send("touchMove", points)
    send("touchEnd", [])
    cdp.detach()


Point = tuple[float, float]


def swipe(start: Point, end: Point, steps: int = 12) -> list[list[Point]]:
    return [
        [(start[0] + (end[0] - start[0]) * k / steps, start[1] + (end[1] - start[1]) * k / steps)]
        for k in range(steps + 1)
    ]


def pinch(middle: Point, spread_from: float, spread_to: float, steps: int = 12) -> list[list[Point]]:
    """Two fingers either side of `middle`, from `spread_from` to `spread_to` pixels apart."""
    frames = []
    for k in range(steps + 1):
        half = (spread_from + (spread_to - spread_from) * k / steps) / 2
        frames.append([(middle[0] - half, middle[1]), (middle[0] + half, middle[1])])
    return frames


VIEW_BOX = "document.querySelector('#overlay').getAttribute('viewBox').split(' ').map(Number)"


def view_box(page) -> list[float]:
    return page.evaluate(VIEW_BOX)


def wait_for_view(page, test: str, arg: float) -> None:
    """Pointer moves may be handled a frame after the touches were sent: wait for the last.
    `test` is a function of the view box ([x, y, width, height]) and `arg`."""
    page.wait_for_function(f"arg => ({test})({VIEW_BOX}, arg)", arg=arg)


def wait_for_zoom(page, width_cm: float) -> None:
    wait_for_view(page, "(box, w) => Math.abs(box[2] - w) < 0.5", width_cm)


def test_a_swipe_on_the_unzoomed_table_scrolls_the_page(page):
    x, y = screen_point(page, 120.0, 100.0)  # open mat, no model under the finger
    gesture(page, swipe((x, y), (x, y - 150)))
    page.wait_for_function("scrollY > 50")
    expect(page.locator("#overlay")).to_have_attribute("viewBox", FULL_TABLE)
    expect(page.locator("#ranges li")).to_have_count(0)  # a swipe is no tap


def test_a_pinch_zooms_the_table_about_its_middle_within_the_buttons_limits(page):
    middle = screen_point(page, 60.0, 50.0)
    gesture(page, pinch(middle, 40, 120))  # fingers three times as far apart: 3x
    wait_for_zoom(page, 183 / 3)
    assert table_point(page, *middle) == pytest.approx((60.0, 50.0), abs=1.0)  # still under the fingers
    assert page.evaluate("scrollY") == 0  # the page stayed where it was
    box = page.locator("#overlay").bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # room for 300 px apart
    gesture(page, pinch(centre, 20, 300))  # far past the + button's limit
    wait_for_zoom(page, 183 / 8)
    gesture(page, pinch(centre, 300, 10))  # and back past the whole table
    expect(page.locator("#overlay")).to_have_attribute("viewBox", FULL_TABLE)


def test_a_pinch_from_a_zoomed_table_zooms_and_a_tap_still_picks_a_model(page):
    page.click("[data-zoom='in']")
    expect(page.locator("#overlay")).to_have_attribute("viewBox", "45.75 30.5 91.5 61")  # 2x, centred
    middle = screen_point(page, 79.0, 52.0)  # b3
    gesture(page, pinch(middle, 100, 200))
    wait_for_zoom(page, 183 / 4)
    assert table_point(page, *middle) == pytest.approx((79.0, 52.0), abs=1.0)
    expect(page.locator("#ranges li")).to_have_count(0)  # a pinch is no tap
    tap_table(page, 79.0, 52.0)
    expect(page.locator("#info")).to_contain_text("Ranges from b3:")


def test_a_one_finger_drag_pans_a_zoomed_table_and_leaves_the_page_still(page):
    page.click("[data-zoom='in']")
    expect(page.locator("#overlay")).to_have_attribute("viewBox", "45.75 30.5 91.5 61")
    x, y = screen_point(page, 91.5, 61.0)
    gesture(page, swipe((x, y), (x, y - 100)))  # a finger up drags the table up: the view goes down
    wait_for_view(page, "(box, y) => box[1] > y", 50)
    assert page.evaluate("scrollY") == 0
    assert view_box(page)[2:] == [91.5, 61.0]  # panned, not zoomed


def test_the_assign_lasso_keeps_its_drag_on_the_unzoomed_table(page):
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    corners = [screen_point(page, *p) for p in [(70, 38), (90, 38), (90, 58), (70, 58), (70, 38)]]
    frames = [[corners[0]]]
    for start, end in itertools.pairwise(corners):
        frames += swipe(start, end, steps=4)[1:]
    scroll = page.evaluate("scrollY")
    gesture(page, frames)
    expect(page.locator("#picked")).to_have_text("Picked: b1, b2, b3")
    assert page.evaluate("scrollY") == scroll
