"""Tenth audit of World at Fire (seed 000): mounting the enemy's abandoned mounts, riding on tanks.

Each test failed before its fix; the docstring quotes the seed sentence and translates it.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, hull, moved, scene

WAF = "world-at-fire"


# --- waf.move.cavalry.mount: an abandoned mount may be taken by the enemy's infantry ------------


@pytest.mark.parametrize("type", ["cavalry", "motorbike"])
def test_a_soldier_may_mount_the_enemys_abandoned_horse_or_motorcycle(type: str) -> None:
    """000: «ездовые животные – другим отрядом который не может совершать никаких действий пока не
    будут оседланы вашими пехотинцами или вражескими»; «мотоцикл в этом случае остается на месте ...
    пока его не уничтожат или не оседлает пехотинец врага, либо ваш»; «Для того, чтобы оседлать
    ездовое животное пехотинец должен войти в базовый контакт своей подставкой с подставкой лошади»
    (horses left behind are a unit that can do nothing until mounted by your infantry or the
    enemy's; a motorcycle left behind stays put until destroyed or mounted by an enemy soldier or
    yours; to mount, a soldier comes into base contact with the horse): a red soldier mounting a
    blue abandoned horse or motorcycle ends in base contact with it, neither too close to an enemy
    nor short of a mount. A blue horse or motorcycle with its rider aboard is no mount for him: the
    2 cm keep-away still holds and he has nothing to mount."""
    soldier = base(46, 30, "s")
    mounting = base(60 - 3.25 - 1.6, 30, "s", flags=["mounting"])
    for flags, legal in [(["abandoned"], True), ([], False)]:
        mount = base(60, 30, "h", side="blue", type=type, diameter_mm=65, flags=flags)
        entry = moved(WAF, [soldier, mount], [mounting, mount])["s"]
        assert ("too_close_to_enemy" not in codes(entry)) is legal, entry
        assert entry["legal"] is legal, entry
        report = api.check(scene(WAF, [mounting, mount]))["proximity"]["mount"]["s"]
        assert report["met"] is legal
        assert report["near"] == (["h"] if legal else [])


# --- waf.move.infantry: a soldier riding on a tank's armour goes where the tank goes -------------


@pytest.mark.parametrize(
    ("start", "end", "heading", "walked", "legal"),
    [
        ((50, 60), (82, 60), 0.0, 2.0, True),  # carried 30 cm, walked 2 cm along the deck
        ((41, 60), (87, 60), 0.0, 16.0, False),  # carried 30 cm, walked 16 cm: too far on foot
        ((58, 60), (80, 68), 90.0, 0.0, True),  # the tank drove 30 cm and turned under him
    ],
)
def test_a_soldier_riding_on_a_tank_is_carried_by_it(
    start: tuple[float, float], end: tuple[float, float], heading: float, walked: float, legal: bool
) -> None:
    """000: «Такие армии могут использовать для передвижения транспорт друг друга, передвигаться на
    броне танков друг друга»; «Пехота двигается как угодно в составе отряда, в любом направлении не
    более 15 см» (such allied armies may use each other's transport to move, and move on each
    other's tanks' armour; infantry moves at most 15 cm): a soldier who stands on a friendly tank
    before and after its 30 cm move rode it, so only his own walk on the deck counts against his
    15 cm, measured from where the tank (moved and turned) took him, and he does not pass through
    the tank he stands on."""
    tank = {"side": "red", "hull_height_cm": 3}
    before = [hull(50, 60, "t", **tank), base(*start, "s", z_cm=3.5)]
    after = [hull(80, 60, "t", heading=heading, **tank), base(*end, "s", z_cm=3.5)]
    entry = moved(WAF, before, after)["s"]
    assert entry["legal"] is legal, entry
    assert codes(entry) == ([] if legal else ["too_far"])
    assert entry["moved_cm"] == pytest.approx(walked)
