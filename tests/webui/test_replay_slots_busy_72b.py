"""A replay load that cannot get one of the rig's load slots within a few seconds is answered 503
with Retry-After, and the Replay tab asks again by itself. Waiting for a slot without limit held a
server thread the while, and phones opening recordings ran the server out of threads."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PHONE, serving
from tests.webui.test_recordings_load_72 import BIG, SMALL, _open, big_loading, slow_app

ONE_SLOT = {"REPLAYS_AT_ONCE": 1, "REPLAY_SLOT_WAIT_S": 0.2, "REPLAY_RETRY_AFTER_S": 1}


def test_a_load_that_finds_every_slot_busy_is_told_to_ask_again(session, recordings_dir):
    app, loader = slow_app(session, recordings_dir, ONE_SLOT)
    big, small = [], []
    with big_loading(app, loader, big):
        second = _open(app, SMALL, small)
        second.join(2.0)
        assert not second.is_alive(), "the load waited for a slot without limit"
        (busy,) = small
        assert busy.status_code == 503
        assert busy.headers["Retry-After"] == "1"
        assert busy.get_json()["message"] == (
            "The rig is replaying another game for another phone (it replays 1 at a time). "
            "skirmish.tsr opens when it is done: this tab asks again by itself.")
        assert loader.calls == [BIG]
    assert [r.status_code for r in big] == [200]
    assert app.test_client().get(f"/api/recordings/{SMALL}").status_code == 200


def test_a_phone_waiting_on_another_phones_load_of_the_same_game_is_told_to_ask_again(session,
                                                                                       recordings_dir):
    app, loader = slow_app(session, recordings_dir, ONE_SLOT)
    first_answers, answers = [], []
    with big_loading(app, loader, first_answers):
        second = _open(app, BIG, answers)
        second.join(2.0)
        assert not second.is_alive(), "the phone waited on the other's load without limit"
        assert [r.status_code for r in answers] == [503]
        assert "being replayed for another phone" in answers[0].get_json()["message"]
    assert [r.status_code for r in first_answers] == [200]
    assert loader.calls == [BIG]


@pytest.mark.browser
def test_the_replay_tab_says_the_rig_is_busy_and_opens_the_game_when_a_slot_frees(browser, session,
                                                                                   recordings_dir):
    app, loader = slow_app(session, recordings_dir, ONE_SLOT)
    context = browser.new_context(**PHONE, bypass_csp=True)
    try:
        with big_loading(app, loader, []), serving(app) as url:
            page = context.new_page()
            page.goto(url + "/")
            page.click("[data-tab='replay']")
            page.click(f"#recordings button >> text={SMALL}")
            expect(page.locator("#message")).to_contain_text("this tab asks again by itself")
            expect(page.locator("#message")).not_to_have_class("toast bad")
            page.wait_for_timeout(1500)
            assert loader.calls == [BIG]  # asked again, and again told to wait
            loader.finish.set()
            expect(page.locator("#replay-where")).to_contain_text(SMALL, timeout=5000)
            assert loader.calls == [BIG, SMALL]
    finally:
        context.close()
