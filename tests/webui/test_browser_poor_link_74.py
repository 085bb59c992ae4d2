"""A phone on a poor link, driven through Chrome's DevTools (a 3G-like link: 400 ms, 50 KB/s; the
CPU slowed 4x), with the link cut and back. What was wrong: the phone knew it was offline
(`navigator.onLine` false) while the page kept its pill at "ok" over a table that was no longer
live, until the old stream gave out (DevTools keeps an open socket flowing; a real Wi-Fi drop
stalls it for 12.5 s before the page's watchdog sees it); a control tapped then said the rig was
not answering, not that the phone had sent nothing; a control the rig never answered kept its
button off without a word for ever; and a rig back after an outage got neither the Camera view's
stream nor the top-down photo asked for again (the stream waited for its 9-minute renewal, the
photo for an ask that had hung)."""

from __future__ import annotations

import re
from contextlib import ExitStack

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PHONE, PIN, hold_port, pushed, serving
from tests.webui.fake_session import FakeSession
from webui.app import create_app

pytestmark = pytest.mark.browser

SLOW = {"offline": False, "latency": 400, "downloadThroughput": 50_000, "uploadThroughput": 50_000}
OFFLINE = {**SLOW, "offline": True}


class Phone:
    """A phone on a slow link and a slow CPU, its page open on a rig whose state streams last
    long (the link, not the stream's end, must be what the page notices)."""

    def __init__(self, browser, stack: ExitStack) -> None:
        self.session = FakeSession()
        config = {"SSE_HEARTBEAT_S": 0.5, "SSE_MAX_S": 600, "MJPEG_MAX_S": 600}
        self.app = create_app(self.session, PIN, config=config)
        self.stack = stack
        context = browser.new_context(**PHONE, bypass_csp=True)
        self.page = context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.link = context.new_cdp_session(self.page)
        self.link.send("Network.enable")
        self.link.send("Network.emulateNetworkConditions", SLOW)
        self.link.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        self.rig = ExitStack()
        self.url = self.rig.enter_context(serving(self.app))
        stack.callback(lambda: self.rig.close())
        stack.callback(context.close)  # first: a rig stopped under an open stream waits 5 s for it
        self.page.goto(self.url + "/")
        self.page.wait_for_selector("#pieces circle[data-id='r1']", timeout=30_000)
        self.page.evaluate("pin => sessionStorage.setItem('tablesight.pin', pin)", PIN)

    def outage(self) -> None:
        """The rig goes (its streams cut, nothing answering) until the page says so, then it is
        back on its port."""
        self.rig.close()
        with hold_port(self.url):
            expect(self.page.locator("#offline")).to_be_visible(timeout=20_000)
        self.rig = ExitStack()
        self.rig.enter_context(serving(self.app, int(self.url.rsplit(":", 1)[1])))
        expect(self.page.locator("#offline")).to_be_hidden(timeout=20_000)


@pytest.fixture
def phone(browser):
    with ExitStack() as stack:
        phone = Phone(browser, stack)
        yield phone
    assert phone.errors == []


def test_a_phone_that_goes_offline_says_so_and_comes_back_by_itself(phone):
    page, link, session = phone.page, phone.link, phone.session
    page.evaluate("window.notReloaded = true")
    link.send("Network.emulateNetworkConditions", OFFLINE)
    expect(page.locator("#offline")).to_contain_text("this phone has no network", timeout=15_000)
    expect(page.locator("#status")).to_have_text("offline")
    session.move_model("r1", 40.0, 30.0)  # the game goes on meanwhile
    link.send("Network.emulateNetworkConditions", SLOW)
    expect(page.locator("#offline")).to_be_hidden(timeout=15_000)
    pushed(page, session)
    expect(page.locator("#pieces circle[data-id='r1']")).to_have_attribute("cx", "40")
    assert page.evaluate("window.notReloaded") is True


def test_a_control_tapped_offline_says_nothing_was_sent(phone):
    page, link, session = phone.page, phone.link, phone.session
    link.send("Network.emulateNetworkConditions", OFFLINE)
    page.click("[data-action='next-phase']")
    expect(page.locator("#message.bad")).to_have_text(
        "This phone has no network: nothing was sent. Tap again when it is back."
    )
    expect(page.locator("[data-action='next-phase']")).to_be_enabled()
    assert session.applied == []


def test_a_control_the_rig_never_answers_is_said_and_its_button_comes_back(phone):
    page = phone.page
    page.clock.install()
    page.route("**/api/action/**", lambda route: None)  # asked, never answered: a rig gone mid-tap
    page.click("[data-action='next-phase']")
    expect(page.locator("[data-action='next-phase']")).to_be_disabled()
    page.clock.fast_forward("00:31")
    expect(page.locator("#message.bad")).to_contain_text("No answer from the rig")
    expect(page.locator("[data-action='next-phase']")).to_be_enabled()


def test_the_camera_view_asks_for_its_stream_again_when_the_rig_is_back(phone):
    with phone.page.expect_request("**/stream.mjpg*"):
        phone.page.click("[data-view='camera']")
    asked: list[str] = []
    phone.page.on("request", lambda request: "/stream.mjpg" in request.url and asked.append(request.url))
    phone.outage()
    expect(phone.page.locator("#camera")).to_have_attribute("src", re.compile(r"/stream\.mjpg"))
    phone.page.wait_for_timeout(500)
    assert len(asked) == 1


def test_the_top_down_photo_is_asked_for_again_when_the_rig_is_back(phone):
    page, session = phone.page, phone.session
    hung: list[object] = []

    def hang_the_first(route) -> None:
        if hung:
            route.continue_()
        else:
            hung.append(route)  # asked, never answered: a photo cut off mid-way

    page.route(re.compile(r"/topdown\.jpg"), hang_the_first)
    for x in (33.0, 34.0, 35.0, 36.0, 37.0):
        if hung:
            break
        session.move_model("r1", x, 30.0)  # the page asks with a new state, at most every 2 s
        page.wait_for_timeout(1000)
    assert len(hung) == 1
    phone.outage()
    with page.expect_request(re.compile(r"/topdown\.jpg"), timeout=15_000):
        for x in (38.0, 39.0, 40.0, 41.0, 42.0):
            session.move_model("r1", x, 30.0)
            page.wait_for_timeout(1000)
