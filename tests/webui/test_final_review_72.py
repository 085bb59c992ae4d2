"""The final review's findings in the web UI."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PHONE, serving
from tests.webui.test_recordings_load_72 import SMALL, big_loading, slow_app

# An ask waits a second for a slot before it is told to ask again: the player leaves meanwhile.
SLOW_BUSY = {"REPLAYS_AT_ONCE": 1, "REPLAY_SLOT_WAIT_S": 1.0, "REPLAY_RETRY_AFTER_S": 1}


@pytest.mark.browser
def test_a_busy_answer_that_comes_after_the_player_left_the_replay_tab_is_not_asked_again(
        browser, session, recordings_dir):
    app, loader = slow_app(session, recordings_dir, SLOW_BUSY)
    context = browser.new_context(**PHONE, bypass_csp=True)
    try:
        with big_loading(app, loader, []), serving(app) as url:
            page = context.new_page()
            asks: list[str] = []
            page.on("request", lambda r: r.url.endswith(f"/api/recordings/{SMALL}") and asks.append(r.url))
            page.goto(url + "/")
            page.click("[data-tab='replay']")
            page.click(f"#recordings button >> text={SMALL}")
            expect(page.locator("#message")).to_contain_text(f"Opening {SMALL}")
            page.click("[data-tab='play']")  # its ask still waiting for a slot
            page.wait_for_timeout(4000)
            assert len(asks) == 1, f"asked {len(asks)} times after the player left the Replay tab"
    finally:
        context.close()
