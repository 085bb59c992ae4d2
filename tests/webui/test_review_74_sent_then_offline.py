"""Review of session 74: a control whose request reached the rig, its answer lost as the phone's
network went, is said to have been sent nowhere ("nothing was sent. Tap again"), though the rig
applied it: `reach` reads `navigator.onLine` after the failure, not before the send."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from playwright.sync_api import expect

from tests.webui.browser import hold_port
from tests.webui.test_browser_poor_link_74 import OFFLINE, SLOW, Phone

pytestmark = pytest.mark.browser


@pytest.fixture
def phone(browser):
    with ExitStack() as stack:
        yield Phone(browser, stack)


def test_a_control_the_rig_applied_before_the_network_went_is_not_said_unsent(phone):
    page, link, session = phone.page, phone.link, phone.session

    def reached_then_lost(route) -> None:
        route.fetch()  # the rig gets the control and applies it
        link.send("Network.emulateNetworkConditions", OFFLINE)  # the phone's Wi-Fi goes meanwhile
        route.abort("internetdisconnected")  # so its answer never comes back

    page.route("**/api/action/**", reached_then_lost)
    page.click("[data-action='next-phase']")
    expect(page.locator("#message.bad")).to_be_visible(timeout=15_000)
    assert session.applied, "the rig applied the control"
    assert "nothing was sent" not in page.locator("#message").text_content()


def test_the_network_back_with_the_rig_still_gone_no_longer_says_the_phone_has_none(phone):
    """The banner written as the network went ("this phone has no network") stays word for word
    once the network is back and only the rig is missing: `setConnected.timer = -1` keeps
    `lostContact` from being said again."""
    page, link = phone.page, phone.link
    link.send("Network.emulateNetworkConditions", OFFLINE)
    expect(page.locator("#offline")).to_contain_text("this phone has no network", timeout=15_000)
    phone.rig.close()
    with hold_port(phone.url):
        link.send("Network.emulateNetworkConditions", SLOW)
        page.wait_for_function("navigator.onLine")
        page.wait_for_timeout(8000)  # the stream tried again (3 s) and failed: the rig, not the phone
        expect(page.locator("#offline")).to_be_visible()
        assert "no network" not in page.locator("#offline").text_content()
