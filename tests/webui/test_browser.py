"""The page on a phone (390x844, touch) in Debian's Chromium, for the flows players use.

Screenshots go to test-artifacts/ for a human to look at; the assertions are on the DOM.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.webui.browser import PHONE, PIN, assert_phone_friendly, enter_pin, shot, tap_table

pytestmark = pytest.mark.browser

RED = "rgb(255, 107, 107)"


LOW_CONTRAST = (Path(__file__).with_name("contrast.js")).read_text()


def test_every_panel_fits_a_phone_with_big_tap_targets_and_legible_text(page):
    for tab in ("play", "setup", "replay", "log"):
        page.click(f"[data-tab='{tab}']")
        if tab == "replay":
            page.wait_for_selector("#recordings button")  # the list comes from the rig a moment later
        assert_phone_friendly(page)
        assert page.evaluate(LOW_CONTRAST) == []
    page.click("[data-view='camera']")
    page.wait_for_function("document.querySelector('#camera').naturalWidth > 0")
    assert_phone_friendly(page)
    shot(page, "camera")
    # The zoom buttons are the table's: in camera view they zoomed the hidden table.
    assert page.locator("[data-zoom='in']").is_hidden()
    page.click("[data-view='table']")
    assert page.locator("[data-zoom='in']").is_visible()


def test_the_panel_tabs_work_from_the_keyboard_as_a_screen_reader_announces_them(page):
    """The tabs had no link to their panels and no arrow keys: a screen reader could not say
    which panel a tab shows, and a keyboard went through all four before reaching the panel."""
    for tab in ("play", "setup", "replay", "log"):
        controls = page.get_attribute(f"#tab-{tab}", "aria-controls")
        assert page.get_attribute(f"#{controls}", "aria-labelledby") == f"tab-{tab}"
    page.focus("#tab-play")
    for key, shown in (("ArrowRight", "setup"), ("End", "log"), ("ArrowRight", "play"), ("ArrowLeft", "log"),
                       ("Home", "play")):
        page.keyboard.press(key)
        assert page.evaluate("document.activeElement.id") == f"tab-{shown}"
        assert page.get_attribute(f"#tab-{shown}", "aria-selected") == "true"
        assert page.locator(f"#panel-{shown}").is_visible()
        assert page.evaluate("[...document.querySelectorAll('[role=tab]')].filter(t => t.tabIndex === 0)"
                             ".map(t => t.id)") == [f"tab-{shown}"]


def test_the_page_runs_under_its_own_content_security_policy(browser, page):
    context = browser.new_context(**PHONE)
    strict = context.new_page()
    refused: list[str] = []
    strict.on(
        "console",
        lambda message: refused.append(message.text) if "Content Security" in message.text else None,
    )
    strict.goto(page.url)
    strict.wait_for_selector("#pieces circle[data-id='r1']")
    strict.wait_for_selector("#topdown[href]", state="attached")
    strict.click("[data-tab='setup']")
    context.close()
    assert refused == []


def test_movement_phase_shows_the_illegal_move_in_red_with_its_reason(page):
    # Each pushed state redraws the overlay, so a line found a moment ago may be detached (its
    # computed style then reads ''): expect() looks the element up again until it holds.
    path = page.locator("#moves-layer line[data-id='r3']")
    expect(path).to_have_attribute("data-legal", "false")
    expect(path).to_have_css("stroke", RED)
    expect(page.locator("#layer-labels")).to_contain_text("16.2 cm / 15.0 cm")
    row = page.locator("#moves li[data-id='r3']")
    expect(row).to_contain_text("moved 16.2 cm, infantry may move 15 cm")
    expect(page.locator("#moves li").first).to_have_attribute("data-id", "r3")  # illegal ones first
    expect(row).to_have_css("color", RED)
    expect(page.locator("#moves-layer line[data-id='r1']")).to_have_attribute("data-legal", "true")
    row.click()  # the list finds the model on the table; the table redraws on the next frame
    expect(page.locator("#pieces circle[data-id='r3']")).to_have_class(re.compile(r"selected$"))
    expect(page.locator("#units li").first).to_contain_text("red-inf-2: out of coherency")
    broken = page.locator("#coherency .break[data-unit='red-inf-2']")
    assert broken.count() == 1
    assert page.locator("#objectives circle[data-id='obj2']").get_attribute("data-controlled-by") == "red"
    shot(page, "movement")


def test_moves_are_listed_illegal_first_then_by_id_as_a_person_counts(page, session):
    with session._changed:
        session._state["moves"]["models"]["r10"] = {"moved_cm": 3.0, "allowance_cm": 15.0, "legal": True,
                                                    "reasons": []}
        session._state["version"] += 1
        session._changed.notify_all()
    expect(page.locator("#moves li[data-id='r10']")).to_have_count(1)
    ids = [item.get_attribute("data-id") for item in page.locator("#moves li").all()]
    assert ids == ["r3", "r1", "r2", "r10"]


def test_a_move_the_rules_could_not_judge_by_distance_says_so(page, session):
    """A null allowance (no move of its own, no `speed`) printed as "12.0 cm / 0.0 cm: legal"."""
    note = "not judged by distance: give the model's `speed` in the scene"
    with session._changed:
        session._state["moves"]["models"]["r1"].update(allowance_cm=None, allowance_notes=[note])
        session._state["version"] += 1
        session._changed.notify_all()
    row = page.locator("#moves li[data-id='r1']")
    expect(row).to_have_text("r1 12.0 cm: distance not judged")
    expect(page.locator("#moves-layer line[data-id='r1'] title")).to_have_text("r1: distance not judged")
    expect(row).to_have_attribute("title", note)
    page.click("#pieces circle[data-id='r1']")
    expect(page.locator("#layer-labels")).to_contain_text("12.0 cm")
    assert "0.0 cm" not in page.locator("#layer-labels").text_content()


def test_a_lost_camera_is_said_in_words(page, session):
    with session._changed:
        session._state["status"].update(camera="lost", message="The camera stopped answering; reconnecting.")
        session._state["version"] += 1
        session._changed.notify_all()
    page.wait_for_selector("#status-line:not([hidden])")
    expect(page.locator("#status-line")).to_contain_text("reconnecting")
    expect(page.locator("#status")).to_have_class(re.compile("bad"))


def test_state_pushes_redraw_the_overlay_from_a_gzipped_stream(page, session):
    with page.expect_response(lambda response: "/api/events" in response.url) as events:
        page.reload()
    assert events.value.headers.get("content-encoding") == "gzip"
    session.move_model("r1", 60.0, 30.0)
    page.wait_for_function(
        "document.querySelector(\"#pieces circle[data-id='r1']\").getAttribute('cx') === '60'"
    )


def test_a_first_look_answered_after_a_pushed_state_does_not_undo_it(page, session):
    """The page asks for the state once as it loads, and the stream pushes it too: an answer to
    the ask that came after a newer push put the older table back (a CI run's flaky push test)."""
    import json
    import time

    stale = json.dumps(session.state())

    def answer_late(route):
        session.move_model("r1", 60.0, 30.0)
        time.sleep(1.0)  # the stream brings the move meanwhile
        route.fulfill(status=200, content_type="application/json", body=stale)

    page.route("**/api/state", answer_late)
    page.reload()
    page.wait_for_selector("#pieces circle[data-id='r1']")
    page.wait_for_timeout(500)
    expect(page.locator("#pieces circle[data-id='r1']")).to_have_attribute("cx", "60")


def test_tap_a_model_for_ranges_to_every_enemy(page):
    tap_table(page, 32.0, 30.0)
    page.wait_for_selector("#ranges li[data-id='b1']")
    assert "rifle" in page.locator("#ranges li[data-id='b1']").text_content()
    assert "nothing reaches" in page.locator("#ranges li[data-id='t1']").text_content()
    assert page.locator("#layer-tools line.range-line").count() >= 3
    assert page.locator("#pieces circle[data-id='r1']").get_attribute("class").endswith("selected")
    shot(page, "ranges")
    page.click("#ranges-scope")
    page.wait_for_function("document.querySelector('#info').textContent.includes('Ranges from red-inf-1')")
    assert page.locator("#ranges-scope").text_content() == "Ranges from r1 only"


def test_a_moved_model_can_be_put_back(page, session):
    tap_table(page, 36.2, 40.0)
    page.click("#reset-model")
    enter_pin(page)
    page.wait_for_function(
        "document.querySelector(\"#pieces circle[data-id='r3']\").getAttribute('cx') === '20'"
    )
    assert page.locator("#moves li[data-id='r3']").count() == 0
    assert session.applied[-1] == ("reset_model", {"model_id": "r3"})


def test_tablet_and_laptop_layouts_fit(browser, page):
    for width, height in ((820, 1180), (1366, 768)):
        page.set_viewport_size({"width": width, "height": height})
        for tab in ("play", "setup"):
            page.click(f"[data-tab='{tab}']")
            assert_phone_friendly(page)
    shot(page, "laptop")


def test_zoom_and_pan_to_tap_small_bases(page):
    page.click("[data-zoom='in']")
    page.click("[data-zoom='in']")
    expect(page.locator("#overlay")).to_have_attribute("viewBox", "68.625 45.75 45.75 30.5")  # 4x, centred
    box = page.locator("#overlay").bounding_box()
    middle = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*middle)
    page.mouse.down()
    page.mouse.move(middle[0] + box["width"] / 4, middle[1], steps=5)
    page.mouse.up()
    dragged = 68.625 - 45.75 / 4  # a quarter view to the right
    # Pointer moves may be handled a frame after Playwright has sent them: wait for the last.
    page.wait_for_function(
        "x => Math.abs(parseFloat(document.querySelector('#overlay').getAttribute('viewBox')) - x) <= 0.5",
        arg=dragged,
    )
    x = float(page.locator("#overlay").get_attribute("viewBox").split()[0])
    assert x == pytest.approx(dragged, abs=0.5)
    tap_table(page, 79.0, 52.0)  # b3, in the panned view (x 57-103, y 46-76)
    page.wait_for_selector("#ranges li[data-id='r1']")
    assert_phone_friendly(page)
    page.click("[data-zoom='out']")
    page.click("[data-zoom='out']")
    expect(page.locator("#overlay")).to_have_attribute("viewBox", "0 0 183 122")


def test_ruler_between_two_models(page):
    tap_table(page, 32.0, 30.0)
    page.wait_for_selector("#ranges li")
    page.click("[data-mode='ruler']")
    expect(page.locator("#ranges")).to_have_count(0)  # the ranges picked before do not stay up
    tap_table(page, 32.0, 30.0)
    tap_table(page, 35.0, 34.0)
    page.wait_for_selector("#ruler-result")
    assert "1.8 cm edge to edge" in page.locator("#ruler-result").text_content()


def test_templates_are_the_rulesets_own_and_say_who_is_under_them(page, session):
    expect(page.locator("#no-templates")).to_be_visible()  # the ruleset's tools are known
    assert page.locator("[data-mode='template']").is_hidden()  # World at Fire has none
    session.apply("setup", {"ruleset": "combined-arms", "table": {"width_cm": 183, "depth_cm": 122},
                            "deployment": None})
    page.wait_for_selector("[data-mode='template']:not([hidden])")
    offered = page.eval_on_selector_all("#template-kind option", "os => os.map(o => o.value)")
    assert offered[0] == "grenade" and "smoke" in offered and "blast" not in offered
    page.click("[data-mode='template']")
    tap_table(page, 32.0, 30.0)
    enter_pin(page)
    page.wait_for_selector("#templates circle[data-kind='grenade']")
    expect(page.locator("#message")).to_contain_text("Under the grenade: r1")
    assert page.evaluate("sessionStorage.getItem('tablesight.pin')") == PIN
    assert session.applied[-1][1] == {"kind": "grenade", "x_cm": pytest.approx(32, abs=0.5),
                                      "y_cm": pytest.approx(30, abs=0.5)}  # the seed's radius: none sent
    assert float(page.locator("#templates circle").get_attribute("r")) == pytest.approx(2.54)
    page.select_option("#template-kind", "smoke")
    page.fill("#template-heading", "90")
    tap_table(page, 80.0, 48.0)  # the PIN is remembered: no dialog this time
    page.wait_for_selector("#templates rect[data-kind='smoke']")
    rect = page.locator("#templates rect")
    angle, x, y = map(float, rect.get_attribute("transform")[7:-1].split())
    assert angle == 90 and (x, y) == pytest.approx((80.0, 48.0), abs=0.5)
    assert float(rect.get_attribute("width")) == pytest.approx(5 * 2.54)  # 5 x 1 in, the seed's strip
    smoke = session.state()["templates"][1]
    assert smoke["kind"] == "smoke" and smoke["heading_deg"] == 90


def test_setup_assigns_a_tapped_model(page, session):
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    tap_table(page, 92.0, 104.0)
    expect(page.locator("#picked")).to_contain_text("m9")
    page.fill("#assign-side", "red")
    page.fill("#assign-unit", "red-inf-2")
    page.fill("#assign-type", "infantry")
    page.fill("#assign-weapons", "rifle, lmg")
    page.click("[data-action='assign']")
    enter_pin(page)
    page.wait_for_selector("#pieces circle[data-id='m9'][data-side='red']")
    m9 = next(m for m in session.state()["models"] if m["id"] == "m9")
    assert (m9["side"], m9["unit"], m9["type"], m9["weapons"]) == (
        "red",
        "red-inf-2",
        "infantry",
        ["rifle", "lmg"],
    )
    shot(page, "setup")


def test_setup_draws_terrain_places_an_objective_and_sets_deployment(page, session):
    page.click("[data-tab='setup']")
    page.select_option("#terrain-kind", "hill")
    page.click("[data-mode='terrain']")
    for corner in ((120, 10), (150, 10), (140, 30)):
        tap_table(page, *corner)
    page.click("[data-action='terrain-finish']")
    enter_pin(page)
    page.wait_for_selector("#terrain polygon[data-id='terrain3']")
    hill = session.state()["terrain"][-1]
    assert hill["kind"] == "hill" and len(hill["polygon_cm"]) == 3
    assert hill["polygon_cm"][0] == pytest.approx([120, 10], abs=1.0)
    page.click("[data-mode='objective']")
    tap_table(page, 60.0, 100.0)
    page.wait_for_selector("#objectives circle[data-id='obj3']")
    page.select_option("#deployment-kind", "ambush")
    page.select_option("#deployment-sides select[data-side='red']", "top")
    page.select_option("#deployment-sides select[data-side='blue']", "bottom")
    page.click("[data-action='deployment']")
    page.wait_for_function("document.querySelector('#message').textContent.includes('Deployment set')")
    assert session.state()["deployment"] == {"kind": "ambush", "sides": {"red": "top", "blue": "bottom"}}


def test_a_new_deployment_kind_offers_each_side_its_own_edge(page):
    """From breakthrough (red left, blue right) to ambush, whose edges are the top and bottom:
    both sides were offered the top."""
    page.click("[data-tab='setup']")
    page.select_option("#deployment-kind", "ambush")
    red = page.locator("#deployment-sides select[data-side='red']")
    blue = page.locator("#deployment-sides select[data-side='blue']")
    expect(red).to_have_value(re.compile("top|bottom"))
    assert {red.input_value(), blue.input_value()} == {"top", "bottom"}


def test_setup_lasso_picks_a_unit(page):
    page.click("[data-tab='setup']")
    page.click("[data-mode='assign']")
    box = page.evaluate(
        """() => { const svg = document.querySelector('#overlay'); const m = svg.getScreenCTM();
             return [[70, 38], [90, 38], [90, 58], [70, 58]].map(([x, y]) => {
               const p = svg.createSVGPoint(); p.x = x; p.y = y;
               const s = p.matrixTransform(m); return [s.x, s.y]; }); }"""
    )
    page.mouse.move(*box[0])
    page.mouse.down()
    for corner in [*box[1:], box[0]]:
        page.mouse.move(*corner, steps=4)
    page.mouse.up()
    expect(page.locator("#picked")).to_have_text("Picked: b1, b2, b3")


def test_turn_controls_change_the_phase_and_undo_it(page, session):
    page.select_option("#phase-to", "assault")
    page.click("[data-action='phase-to']")
    enter_pin(page)
    page.wait_for_function("document.querySelector('#turn').textContent.includes('assault')")
    page.click("[data-action='next-turn']")
    page.wait_for_function("document.querySelector('#turn').textContent === 'Turn 2 · movement'")
    page.click("[data-action='undo']")
    page.wait_for_function("document.querySelector('#turn').textContent === 'Turn 1 · assault'")
    assert [a for a, _ in session.applied] == ["phase", "next_turn", "undo"]


def test_wrong_pin_says_so_and_changes_nothing(page, session):
    before = session.state()
    page.click("[data-action='next-phase']")
    page.fill("#pin-input", "0000")
    page.click("#pin-form button[value='ok']")
    page.fill("#pin-input", "0001")
    page.click("#pin-form button[value='ok']")
    page.wait_for_selector("#message:not([hidden])")
    assert "PIN" in page.locator("#message").text_content()
    assert session.state() == before


def test_a_pin_dialog_closed_with_escape_sends_nothing_then_or_later(page, session):
    """Escape (a phone's Back) closed the PIN dialog without Cancel, and the control stayed
    waiting: the next PIN typed sent it beside the next control, so one tap on Next turn went
    Turn 1 -> Turn 3 (a blind phone check)."""
    page.click("[data-action='next-turn']")
    page.wait_for_selector("#pin-dialog[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#pin-dialog", state="hidden")
    page.click("[data-action='next-turn']")
    enter_pin(page)
    page.wait_for_function("document.querySelector('#turn').textContent.startsWith('Turn 2')")
    page.wait_for_timeout(500)
    assert [a for a, _ in session.applied] == ["next_turn"]
    assert page.locator("#turn").text_content().startswith("Turn 2")


def test_a_wrong_pin_is_said_when_the_dialog_asks_again(page, session):
    """A refused PIN brought back the same empty dialog, saying nothing until a second wrong one."""
    page.click("[data-action='next-phase']")
    page.fill("#pin-input", "0000")
    page.click("#pin-form button[value='ok']")
    expect(page.locator("#pin-reason")).to_be_visible()
    assert "wrong" in page.locator("#pin-reason").text_content()


def test_orders_phase_hides_measurements(page, session):
    session.apply("setup", {"ruleset": "mobile-infantry", "deployment": None})
    page.wait_for_selector("#premeasure-note:not([hidden])")
    assert page.locator("[data-mode='ruler']").is_hidden()
    assert (
        "cm" not in page.locator("#moves").text_content()
        and "mm" not in page.locator("#moves").text_content()
    )
    tap_table(page, 32.0, 30.0)
    # The tap is handled (r1 selected) before "no ranges" can mean anything.
    expect(page.locator("#pieces circle[data-id='r1']")).to_have_class(re.compile(r"selected$"))
    assert page.locator("#ranges").count() == 0
    shot(page, "orders")


def test_replay_scrubber_moves_through_the_game(page):
    page.click("[data-tab='replay']")
    page.click("#recordings button >> text=game-2026-11-29")
    page.wait_for_selector("#banner:not([hidden])")
    assert "turn 1, movement" in page.locator("#replay-where").text_content()
    page.locator("#scrubber").fill("2")
    page.wait_for_function("document.querySelector('#replay-where').textContent.includes('turn 2, movement')")
    assert page.locator("#pieces circle[data-id='r1']").get_attribute("cx") == "44"
    page.click("#replay-turns button >> text=Turn 1")
    expect(page.locator("#replay-where")).to_contain_text("turn 1")
    assert page.locator("#replay-report").get_attribute("href") == "/api/recordings/game-2026-11-29/report"
    assert_phone_friendly(page)
    shot(page, "replay")
    page.click("#banner-live")
    expect(page.locator("#banner")).to_be_hidden()
    expect(page.locator("#pieces circle[data-id='r1']")).to_have_attribute("cx", "32")


def test_the_top_down_photo_is_asked_for_one_at_a_time(page, session):
    """On a 50 kbit/s link a new photo every 2 s queued behind the last: 25 in flight after
    3 minutes, most of the bytes, the one shown 1.5 minutes old (a blind phone check)."""
    asked: list[object] = []
    page.route("**/topdown.jpg*", lambda route: asked.append(route))  # never answered: a slow link
    for x in (50.0, 55.0, 60.0):
        session.move_model("r1", x, 30.0)
        page.wait_for_timeout(2300)
    assert len(asked) == 1
    page.unroute("**/topdown.jpg*")


def test_no_top_down_photo_is_asked_for_while_the_rig_is_not_calibrated(page, session):
    """The demo's loop is uncalibrated for a moment each round: the page asked for the photo and
    got a 503, a console error every 34 s (a blind phone check)."""
    asked: list[str] = []
    page.on("request", lambda request: "/topdown.jpg" in request.url and asked.append(request.url))
    with session._changed:
        session._state["status"]["calibration"]["ok"] = False
        session._state["version"] += 1
        session._changed.notify_all()
    page.wait_for_selector("#status.bad")
    page.wait_for_timeout(2500)
    session.move_model("r1", 50.0, 30.0)
    page.wait_for_timeout(500)
    assert asked == []
