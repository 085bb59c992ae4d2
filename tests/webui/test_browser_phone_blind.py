"""What a blind check on phones found, pinned in Chromium at a phone's size: a deployment form
that offered each side the other's edge, a restarted rig whose game jumped back without a word,
and a typed number refused in the page's words and then in the rig's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from rules_core.errors import TablesightError
from tests.webui.browser import PHONE, PIN, hold_port, pushed, serving
from tests.webui.fake_session import FakeSession
from webui.actions import validate_action
from webui.app import create_app

pytestmark = pytest.mark.browser

SIDE = "#deployment-sides select[data-side='{}']"


@pytest.fixture
def undeployed(session) -> None:
    """The game before anyone set a deployment: red stands on the left, blue on the right."""
    session._state.update(deployment=None, deployment_zones={})


def test_a_game_without_a_deployment_offers_each_side_the_edge_it_stands_on(undeployed, page):
    """Sides in the order of their names (blue, red) took the edges in the order offered: red,
    standing on the left, was offered the right edge, so accepting the form swapped the zones."""
    page.click("[data-tab='setup']")
    expect(page.locator("#deployment-kind")).to_have_value("breakthrough")
    expect(page.locator(SIDE.format("red"))).to_have_value("left")
    expect(page.locator(SIDE.format("blue"))).to_have_value("right")


def test_a_kind_of_quarters_offers_each_side_the_quarter_it_stands_in(page):
    """From breakthrough to diversion, whose places are quarters: blue was offered the top left,
    where red stands, and red the top right."""
    page.click("[data-tab='setup']")
    page.select_option("#deployment-kind", "diversion")
    expect(page.locator(SIDE.format("red"))).to_have_value("top-left")
    expect(page.locator(SIDE.format("blue"))).to_have_value("top-right")


def test_a_deployment_set_on_another_phone_is_the_one_offered(undeployed, page, session):
    """The places the game was given are offered over where the models stand; the form kept the
    ones it drew before another phone set the deployment, and Apply sent them back."""
    page.click("[data-tab='setup']")
    expect(page.locator(SIDE.format("red"))).to_have_value("left")
    session.apply("deployment", {"kind": "breakthrough", "sides": {"red": "right", "blue": "left"}})
    pushed(page, session)
    expect(page.locator(SIDE.format("red"))).to_have_value("right")
    expect(page.locator(SIDE.format("blue"))).to_have_value("left")


def test_a_phone_left_open_across_a_restart_is_told_the_game_began_again(browser):
    """The rig restarted (a new `tablesight demo` or `serve`) began its game again, and the phone
    that stayed open showed turn 3 become turn 1 without a word."""
    before = FakeSession()
    for _ in range(2):
        before.apply("next_turn", {})
    context = browser.new_context(**PHONE, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    toast = page.locator("#message")
    with serving(create_app(before, PIN, config={"SSE_HEARTBEAT_S": 0.5})) as url:
        page.goto(url + "/")
        expect(page.locator("#turn")).to_have_text("Turn 3 · movement")
        expect(toast).to_be_hidden()  # the first state seen is no restart
    holder = hold_port(url)
    after = FakeSession()
    with holder, serving(create_app(after, PIN, config={"SSE_HEARTBEAT_S": 0.5}), int(url.rsplit(":", 1)[1])):
        expect(toast).to_have_text(
            "The table was restarted, so the game began again: it is turn 1, movement now.", timeout=10_000
        )
        expect(page.locator("#turn")).to_have_text("Turn 1 · movement")
        toast.click()
        after.move_model("r1", 33.0, 31.0)
        pushed(page, after)
        expect(toast).to_be_hidden()  # said once, not with every state of the new run
        context.close()
    assert errors == []


def rigs_refusal(body: dict) -> str:
    try:
        validate_action("setup", {"ruleset": "world-at-fire", **body})
    except TablesightError as error:
        return str(error)
    raise AssertionError(f"the rig took {body}")


@pytest.mark.parametrize(
    ("typed", "body"),
    [
        ({"#table-width": "601", "#table-depth": "90"}, {"table": {"width_cm": 601, "depth_cm": 90}}),
        ({"#table-width": "", "#table-depth": "90"}, {"table": {"width_cm": "", "depth_cm": 90}}),
        ({"#table-width": "120", "#table-depth": "12.5"}, {"table": {"width_cm": 120, "depth_cm": 12.5}}),
    ],
)
def test_a_typed_table_size_is_refused_in_the_rigs_own_words(page, session, typed, body):
    """The page checked the size before sending, in words of its own ("Table width is a number
    from 30 to 600 cm. 601 is outside that"), beside the rig's for the same rule ("Table width
    must be a number from 30 to 600 cm, not 601"): one rule, said one way."""
    page.click("[data-tab='setup']")
    page.select_option("#table-size", "custom")
    for field, value in typed.items():
        page.fill(field, value)
    page.click("[data-action='setup']")
    expect(page.locator("#message.bad")).to_have_text(rigs_refusal(body))
    assert session.applied == []


def test_a_typed_step_is_refused_in_the_rigs_own_words(page, session):
    page.click("[data-tab='setup']")
    page.select_option("#ruleset", "bronepehota")
    page.fill("#step-cm", "0.5")
    page.click("[data-action='setup']")
    expect(page.locator("#message.bad")).to_have_text(rigs_refusal({"step_cm": 0.5}))
    assert session.applied == []


@pytest.fixture
def ambushed(session) -> None:
    """A Tankomaster game whose ambush only red, the defender, uses."""
    ruleset = {"id": "tankomaster", "title": "Tankomaster", "unit": "cm", "unit_cm": 1.0,
               "premeasure_allowed": True}
    session._state.update(ruleset=ruleset, deployment={"kind": "ambush", "sides": {"red": "left"}})


def test_a_side_a_one_sided_deployment_leaves_out_is_offered_not_deploying(ambushed, page):
    """A review: under Tankomaster's ambush, which only the defender uses, the side the game's
    deployment leaves out was offered the place nearest its models, and Apply would have made it
    deploy by ambush too."""
    page.click("[data-tab='setup']")
    expect(page.locator("#deployment-kind")).to_have_value("ambush")
    expect(page.locator(SIDE.format("red"))).to_have_value("left")
    expect(page.locator(SIDE.format("blue"))).to_have_value("")


def test_each_new_loop_of_the_demo_is_said_once(page, session):
    """The demo replays its recorded game in a loop: every 30-odd seconds a phone saw the game jump
    back to its start within the same run, and nothing said why."""
    toast = page.locator("#message")
    expect(page.locator("#turn")).to_be_visible()
    with session._changed:
        session._state["status"]["loop"] = 1
        session._state.update(turn=1, phase="deployment", version=session._state["version"] + 1)
        session._changed.notify_all()
    pushed(page, session)
    expect(toast).to_have_text("The recorded game began again from its start (it replays in a loop): "
                               "turn 1, deployment.")
    toast.click()
    session.move_model("r1", 33.0, 31.0)
    pushed(page, session)
    expect(toast).to_be_hidden()
