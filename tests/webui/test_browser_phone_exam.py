"""Defects session 63's blind exam on phones found (/tmp/s63/web/REPORT.md, D1 to D10), each held
by a test: a double tap that took two steps, ranges that went stale as models moved, a Setup tool
left on in Play, a refused Setup that threw away what was typed, a negative or empty heading, a
lost camera's frozen frame rate.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PIN, combined_arms, enter_pin, pushed, tap_table

pytestmark = pytest.mark.browser


def with_pin(page) -> None:
    page.evaluate("pin => sessionStorage.setItem('tablesight.pin', pin)", PIN)


def slow_actions(session, monkeypatch, delay_s: float = 0.6) -> None:
    """A rig on slow club Wi-Fi: each control answers `delay_s` later, so a second tap lands first."""
    apply = session.apply

    def slowly(action, payload, join=None):
        time.sleep(delay_s)
        return apply(action, payload, join=join)

    monkeypatch.setattr(session, "apply", slowly)


def double_tap(page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    page.wait_for_timeout(120)
    page.touchscreen.tap(x, y)


@pytest.mark.parametrize(
    ("button", "after"),
    [("next-turn", (2, "movement")), ("next-phase", (1, "shooting"))],
)
def test_a_double_tap_on_a_turn_button_takes_one_step(page, session, monkeypatch, button, after):
    """D1: two taps 120 ms apart took turn 2 to 4, or movement to assault (shooting skipped)."""
    with_pin(page)
    slow_actions(session, monkeypatch)
    double_tap(page, f"[data-action='{button}']")
    expect(page.locator(f"[data-action='{button}']")).to_be_disabled()  # while its request is out
    expect(page.locator(f"[data-action='{button}']")).to_be_enabled(timeout=5000)
    page.wait_for_timeout(800)  # a second request, had one gone out, would have been answered
    assert (session.state()["turn"], session.state()["phase"]) == after
    assert [name for name, _ in session.applied] == [{"next-turn": "next_turn"}.get(button, "phase")]


def test_two_phones_tapping_next_phase_at_once_take_one_step(page, session):
    """D1, a second phone: its tap, sent from the phase both saw, is answered without a step."""
    with_pin(page)
    session.apply("phase", {"to": "next", "from": {"turn": 1, "phase": "movement"}})  # the other phone
    pushed(page, session)
    page.evaluate("window.tablesight.live.phase = 'movement'")  # this phone tapped before the push came
    page.click("[data-action='next-phase']")
    expect(page.locator("#message")).to_contain_text("already moved on to turn 1, shooting")
    assert session.state()["phase"] == "shooting"
    assert page.locator("#message").get_attribute("class") == "toast"  # said, not an error


def test_the_ranges_shown_follow_the_models_as_they_move(page, session):
    """D2: the list kept the range measured at the tap however the models moved after it."""
    tap_table(page, 32.0, 30.0)  # r1
    b1 = page.locator("#ranges li[data-id='b1']")
    expect(b1).to_contain_text("44.9 cm")
    session.move_model("b1", 52.0, 30.0)  # 20 cm from r1, centre to centre
    expect(b1).to_contain_text("16.8 cm")
    expect(page.locator("#ranges li").first).to_have_attribute("data-id", "b1")  # nearest first
    session.move_model("r1", 40.0, 30.0)  # the model whose ranges they are moves too
    expect(b1).to_contain_text("8.8 cm")


def test_ranges_are_not_asked_for_more_than_once_a_second(page, session):
    """D2: a table moving at the camera's pace must not make each phone ask with every state."""
    tap_table(page, 32.0, 30.0)
    expect(page.locator("#ranges li[data-id='b1']")).to_be_visible()
    asked = []
    page.on("request", lambda request: "/api/ranges" in request.url and asked.append(time.monotonic()))
    for step in range(10):
        session.move_model("b1", 78.0 - step, 44.0)
        page.wait_for_timeout(100)
    expect(page.locator("#ranges li[data-id='b1']")).to_contain_text("36.4 cm")  # the last place
    assert 1 <= len(asked) <= 3, asked


@pytest.mark.parametrize("gone", ["taken off", "left without a side"])
def test_a_picked_model_taken_off_the_table_drops_its_ranges(page, session, gone):
    """Told why: a model still on the table but left without a side was told it was gone."""
    tap_table(page, 32.0, 30.0)  # r1
    expect(page.locator("#ranges")).to_be_visible()
    with session._changed:
        models = session._state["models"]
        if gone == "taken off":
            session._state["models"] = [m for m in models if m["id"] != "r1"]
        else:
            next(m for m in models if m["id"] == "r1")["side"] = None
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#ranges")).to_have_count(0)
    said = "r1 is no longer on the table" if gone == "taken off" else "r1 has no side now"
    expect(page.locator("#message")).to_contain_text(said)


def test_a_setup_tool_left_on_does_not_follow_into_play(page, session):
    """D5: Setup's Pick models stayed on in Play: taps picked models instead of showing ranges."""
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    page.click("[data-tab='play']")
    expect(page.locator("[data-mode='select']")).to_have_attribute("aria-pressed", "true")
    assert "grab" not in (page.locator("#overlay").get_attribute("class") or "")  # the page scrolls again
    tap_table(page, 32.0, 30.0)  # r1
    expect(page.locator("#ranges li").first).to_be_visible()
    assert page.evaluate("window.tablesight.picked.size") == 0


def test_a_refused_setup_keeps_what_was_typed_and_says_why_in_the_forms_words(page, session):
    """D6: "Field 'table.width_cm' of 'setup': Input should be greater than 0", and the form back
    on the live preset with the typed size gone."""
    page.click("[data-tab='setup']")
    page.select_option("#table-size", "custom")
    page.fill("#table-width", "")
    page.fill("#table-depth", "90")
    page.click("[data-action='setup']")
    toast = page.locator("#message.bad")
    expect(toast).to_contain_text("Table width must be a number from 30 to 600 cm, not empty")
    page.fill("#table-width", "601")  # the page's bounds are the rig's: it took 601 and 2000 before
    page.click("[data-action='setup']")
    expect(toast).to_contain_text("not 601")
    assert session.applied == []
    page.evaluate("document.querySelector('#table-width').min = '1'")  # a page that let 20 through
    page.fill("#table-width", "20")
    page.click("[data-action='setup']")
    enter_pin(page)
    expect(toast).to_contain_text("Table width must be a number from 30 to 600 cm, not 20")
    expect(page.locator("#table-size")).to_have_value("custom")  # what was typed, still there
    expect(page.locator("#custom-size")).to_be_visible()
    expect(page.locator("#table-width")).to_have_value("20")
    expect(page.locator("#table-depth")).to_have_value("90")
    expect(page.locator("#game-now")).to_contain_text("183 × 122 cm")  # what is really played


def test_the_setup_fields_bounds_are_the_rigs(page):
    """D6, D7: one source for the limits: the form's are the ones webui/actions.py refuses past."""
    from webui.actions import NAME_MAX, STEP_CM, TABLE_CM

    bounds = page.evaluate(
        "ids => ids.map(id => [document.getElementById(id).min, document.getElementById(id).max])",
        ["table-width", "table-depth", "step-cm"],
    )
    assert [[float(lo), float(hi)] for lo, hi in bounds] == [list(TABLE_CM), list(TABLE_CM), list(STEP_CM)]
    for field in ("side", "unit", "type", "role", "chassis"):
        assert page.locator(f"#assign-{field}").get_attribute("maxlength") == str(NAME_MAX)


def test_a_step_length_the_rig_refuses_keeps_bronepehota_chosen(page, session):
    """D6: a refused step put the form back on the live ruleset, step field hidden."""
    page.click("[data-tab='setup']")
    page.select_option("#ruleset", "bronepehota")
    expect(page.locator("#step-field")).to_be_visible()
    page.fill("#step-cm", "")
    page.click("[data-action='setup']")
    told = "Step length must be a number from 1 to 50 cm, not empty"
    expect(page.locator("#message.bad")).to_contain_text(told)
    expect(page.locator("#ruleset")).to_have_value("bronepehota")
    expect(page.locator("#step-field")).to_be_visible()


def test_a_strip_template_heading_is_sent_in_one_turn_and_an_empty_one_refused(page, session):
    """D10: -90 was stored as -90 (angles are in [0, 360)); "abc" was placed at 0 without a word."""
    combined_arms(page, session)
    with_pin(page)
    page.click("[data-mode='template']")
    page.select_option("#template-kind", "smoke")
    page.fill("#template-heading", "")  # what a number field holds for "abc"
    tap_table(page, 80.0, 48.0)
    expect(page.locator("#message.bad")).to_contain_text("Type the heading in degrees")
    assert session.state()["templates"] == []
    page.fill("#template-heading", "-90")
    tap_table(page, 80.0, 48.0)
    page.wait_for_selector("#templates rect[data-kind='smoke']")
    assert session.state()["templates"][0]["heading_deg"] == 270


def test_a_lost_camera_shows_no_frame_rate(page, session):
    """D9: the pill read "lost 3.5 fps" for ever after the source went."""
    with session._changed:
        session._state["status"].update(camera="lost", fps=3.5, message="The camera stopped after frame 10.")
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#status")).to_have_text("camera lost")
    expect(page.locator("#status-line")).to_contain_text("stopped after frame 10")


def test_the_camera_view_says_when_there_is_no_picture(page, session):
    """D9: with the source gone the Camera view was an empty black box, without a word."""
    page.click("[data-view='camera']")
    expect(page.locator("#camera-gone")).to_be_hidden()  # a camera that delivers: its picture only
    with session._changed:
        session._state["status"].update(camera="lost", message="The camera stopped after frame 10.")
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#camera-gone")).to_have_text(
        "No live picture: the camera is lost. The camera stopped after frame 10."
    )
    page.click("[data-view='table']")
    expect(page.locator("#camera-gone")).to_be_hidden()


def test_a_game_on_another_table_than_the_markers_keeps_the_picture_at_the_markers_size(page, session):
    """D3: a 122 x 122 game on markers laid out for 183 x 122 squeezed the top-down picture into
    the square (models drawn beside their pictures) and left the models past x = 122 undrawn,
    without a word."""
    with session._changed:
        session._state["table"] = {"width_cm": 122.0, "depth_cm": 122.0}
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#status-line")).to_contain_text(
        "markers are laid out for a 183 × 122 cm table, but the game is set to 122 × 122 cm"
    )
    assert page.locator("#topdown").get_attribute("width") == "183"
    assert page.locator("#topdown").get_attribute("height") == "122"
    assert page.locator("#table-mat").get_attribute("width") == "122"
    assert page.locator("#overlay").get_attribute("viewBox").split()[2] == "183"


def test_too_little_detail_for_the_detector_is_said_on_the_phone(page, session):
    """A pixel over 1.6 mm of table (about a 244 x 183 table seen whole by a binned frame): `detect`
    and `track` warn that bases may be missed, and the phones, where such a game is watched, said
    nothing. With the markers laid for another table too, both are said."""
    coarse = ("One pixel covers 2.02 mm of table (a 32 mm base is 16 pixels across), so bases may be "
              "missed; use the full sensor resolution or lower the camera.")
    expect(page.locator("#status")).to_have_class("pill")
    expect(page.locator("#status-line")).to_be_hidden()
    with session._changed:
        session._state["status"]["calibration"]["detail"] = coarse
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#status-line")).to_have_text(coarse)
    expect(page.locator("#status")).to_have_class("pill")  # advice, not a fault: the game goes on
    with session._changed:
        session._state["table"] = {"width_cm": 122.0, "depth_cm": 122.0}
        session._state["version"] += 1
        session._changed.notify_all()
    both = re.compile(r"set to 122 × 122 cm.*One pixel covers 2\.02 mm")
    expect(page.locator("#status-line")).to_have_text(both)
