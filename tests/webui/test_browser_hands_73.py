"""The pill says when hands are over the table: positions wait until they leave, and the page
never said so (`status.settled` was sent and not shown), so the rig looked stuck."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def set_settled(session, settled: bool) -> None:
    with session._changed:
        session._state["status"]["settled"] = settled
        session._state["version"] += 1
        session._changed.notify_all()


def test_the_pill_says_hands_while_they_are_over_the_table_and_not_after(page, session):
    pill = page.locator("#status")
    set_settled(session, False)
    page.wait_for_function("() => document.querySelector('#status').textContent.endsWith('· hands')")
    assert "measured once they leave" in pill.get_attribute("title")
    set_settled(session, True)
    page.wait_for_function("() => !document.querySelector('#status').textContent.includes('hands')")
    assert pill.get_attribute("class") == "pill"
