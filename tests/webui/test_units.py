"""The small pieces behind the routes: the PIN guard, the report's trails, the thread pool."""

from __future__ import annotations

from tests.webui.fake_replay import demo_report
from webui.pin import PinGuard, random_pin
from webui.report import side_colours, timeline, turn_trails
from webui.serve import lan_address, thread_count


def test_random_pins_are_digits():
    pins = {random_pin(5) for _ in range(50)}
    assert all(p.isdigit() and len(p) == 5 for p in pins) and len(pins) > 1


def test_wrong_guesses_expire_after_the_window():
    guard = PinGuard("1234", max_failures=2, window_s=10)
    assert not guard.check("a", "0000", now=0) and not guard.check("a", "1111", now=1)
    assert guard.retry_after_s("a", now=2) == 8
    assert guard.retry_after_s("b", now=2) == 0
    assert guard.retry_after_s("a", now=10.5) == 0
    assert guard.check("a", "1234", now=11)


def test_a_client_whose_guesses_expired_is_forgotten():
    guard = PinGuard("1234", max_failures=2, window_s=10)
    for i in range(200):
        guard.check(f"10.0.0.{i}", "0000", now=i * 0.01)
    assert guard.retry_after_s("never-seen", now=2) == 0
    assert len(guard._failures) == 200
    for i in range(200):
        guard.retry_after_s(f"10.0.0.{i}", now=30)
    assert guard.retry_after_s("never-seen", now=30) == 0
    assert guard._failures == {}


def test_trails_follow_each_model_phase_by_phase():
    turn1, turn2 = demo_report()["turns"]
    trails = {t.model_id: t for t in turn_trails(turn1)}
    assert trails["r3"].points == [(20.0, 40.0), (36.2, 40.0)]
    assert not trails["r3"].legal and "infantry may move 15 cm" in trails["r3"].reasons[0]
    assert trails["r1"].legal and round(trails["r1"].moved_cm, 1) == 12.0
    assert trails["g1"].points == [(140.0, 90.0)]
    assert {t.model_id: t for t in turn_trails(turn2)}["r1"].points == [(32.0, 30.0), (44.0, 31.0)]


def test_sides_named_after_colours_keep_them():
    colours = side_colours(demo_report())
    assert colours["red"] == "#d32f2f" and colours["blue"] == "#1565c0"


def test_an_empty_report_is_an_empty_timeline():
    assert timeline({}, "x")["snapshots"] == []


def test_the_timeline_carries_the_unit_the_game_measured_in():
    """The replay draws moves and the ruler in it, as the live table did (it said cm for inches)."""
    shown = timeline({**demo_report(), "ruleset": "combined-arms", "unit": "in", "unit_cm": 2.54}, "x")
    assert (shown["unit"], shown["unit_cm"]) == ("in", 2.54)


def test_the_pool_has_two_threads_per_viewer_and_spare():
    assert thread_count(24) == 56
    assert lan_address("192.168.1.20") == "192.168.1.20"
    assert lan_address("0.0.0.0").count(".") == 3


def test_without_chromium_the_browser_tests_say_how_to_install_it(monkeypatch):
    import pytest

    from tests.webui import browser

    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt-get install chromium"):
        browser.chromium_path()
