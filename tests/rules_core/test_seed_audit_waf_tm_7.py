"""Seventh audit of World at Fire (seed 000) and Tankomaster (seed 003), read as a blind grader would.

Each case failed before its fix; the docstring quotes the seed sentence and translates it.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, codes, moved, scene

TM = "tankomaster"
WAF = "world-at-fire"


# --- 003 Tankomaster: a squad may split in battle ---------------------------------------------


@pytest.mark.parametrize("phase", ["movement", None])
def test_tm_a_squad_may_split_in_battle(phase: str | None) -> None:
    """003: «При расстановке части расстояние между солдатами не должно превышать 5 см. Но в бою
    может случиться так, что группа бойцов какого-то отделения продолжает двигаться вперед, а
    остальные деморализованы или просто выделены для выполнения другой задачи ... Отдельным солдатам,
    находящимся на расстоянии более 5 см от ближайшего бойца своей части, следует отдавать отдельный
    приказ» (at deployment soldiers stand at most 5 cm apart; but in battle a group may go on while
    the rest are detached for another task, and a soldier more than 5 cm from his unit takes his own
    orders): leaving the squad 10 cm behind is a legal move, the squad is simply in two groups."""
    extra = {} if phase is None else {"phase": phase}
    before = [base(20, 30, "a", unit="sq"), base(25, 30, "b", unit="sq")]
    after = [base(20, 30, "a", unit="sq"), base(35, 30, "b", unit="sq")]
    report = moved(TM, before, after, **extra)["b"]
    assert report["legal"] is True
    assert api.check(scene(TM, after, **extra))["units"]["sq"]["coherent"] is False


def test_tm_a_squad_placed_apart_at_deployment_breaks_coherency() -> None:
    """003: «При расстановке части расстояние между солдатами не должно превышать 5 см» (when a unit
    is placed, its soldiers stand at most 5 cm apart): in the deployment phase a soldier put 10 cm
    from the rest is still out of place."""
    wood = {"id": "w", "kind": "forest", "polygon_cm": [[0, 0], [60, 0], [60, 40], [0, 40]]}
    before = [base(20, 20, "a", unit="sq"), base(25, 20, "b", unit="sq")]
    after = [base(20, 20, "a", unit="sq"), base(35, 20, "b", unit="sq")]
    deployment = {"kind": "ambush", "sides": {"red": "top"}}
    extra = {"phase": "deployment", "terrain": [wood], "deployment": deployment}
    assert "breaks_coherency" in codes(moved(TM, before, after, **extra)["b"])


def test_waf_a_unit_still_may_not_split() -> None:
    """000: «Все модели в отряде должны перемещаться вместе так, чтобы между ними (между их подставками)
    сохранялась дистанция менее 5 сантиметров» (all models of a unit move together, less than 5 cm
    apart): World at Fire keeps breaks_coherency in the movement phase."""
    before = [base(20, 30, "a", unit="sq"), base(25, 30, "b", unit="sq")]
    after = [base(20, 30, "a", unit="sq"), base(35, 30, "b", unit="sq")]
    assert codes(moved(WAF, before, after, phase="movement")["b"]) == ["breaks_coherency"]


# --- 003 Tankomaster: the ambush is the defender's alone ---------------------------------------


def test_tm_an_ambush_names_only_the_defenders_edge() -> None:
    """003: «Правилами для засады пользуется только обороняющийся ... она не должна отстоять от его
    края стола более чем на 30 см, и не может находиться ближе чем на 20 см к войскам противника»
    (only the defender uses the ambush rules; it stands within 30 cm of his table edge and not closer
    than 20 cm to enemy troops): deployment.sides may name the defender's edge alone while the
    attacker's troops stand on the table; they are the enemy the 20 cm keeps away from, and have no
    zone of their own (in_deployment_zone null)."""
    wood = {"id": "w", "kind": "forest", "polygon_cm": [[0, 0], [60, 0], [60, 40], [0, 40]]}
    attackers = [base(20 + 3.2 + 19.9, 20, "e", side="blue"), base(100, 100, "f", side="blue")]
    models = [base(20, 20, "a"), *attackers]
    deployment = {"kind": "ambush", "sides": {"red": "top"}}
    report = api.check(scene(TM, models, terrain=[wood], phase="deployment", deployment=deployment))["models"]
    assert report["a"]["in_deployment_zone"] is False
    assert report["f"]["in_deployment_zone"] is None
    before = [base(20, 20, "a"), base(100, 90, "f", side="blue")]
    after = [base(20, 20, "a"), base(100, 100, "f", side="blue")]
    move = moved(TM, before, after, terrain=[wood], phase="deployment", deployment=deployment)["f"]
    assert move["legal"] is True


def test_waf_deployment_still_names_every_side() -> None:
    """000: «Игроки расставляют свои армии всегда на противоположных краях поля» (both armies deploy, on
    opposite edges): in World at Fire a side missing from deployment.sides is still a scene error."""
    models = [base(20, 20, "a"), base(170, 20, "e", side="blue")]
    deployment = {"kind": "breakthrough", "sides": {"red": "left"}}
    with pytest.raises(api.SceneError, match=r"models\[1\]\.side"):
        scene(WAF, models, phase="deployment", deployment=deployment)


# --- 000 / 003: weapons a seed names but gives no range for ------------------------------------


@pytest.mark.parametrize("ruleset", [WAF, TM])
def test_a_weapon_neither_seed_nor_contract_names_is_a_scene_error(ruleset: str) -> None:
    """Neither seed has a fire table (003: «см. таблицу «Стрелковое оружие»», a table the page does
    not carry), but both name their weapons (000: «только винтовки, пистолеты-пулеметы и пулеметы»,
    «противотанковые ружья, минометы, тяжелые пулеметы и огнеметы»; 003: «пистолет - +3,
    пистолет-пулемет - +2, штурмовая винтовка - +3, винтовка - +4»). Those names, and the contract's
    shared ones, reach no one in ranges; any other name is an error naming the field, not silently
    ignored."""
    with pytest.raises(api.SceneError, match=r"models\[0\]\.weapons"):
        scene(ruleset, [base(20, 20, "a", weapons=["phaser"])])
    s = scene(ruleset, [base(20, 20, "a", weapons=["rifle", "smg"]), base(40, 20, "e", side="blue")])
    assert api.ranges(s, "a")["targets"][0]["weapons"] == []
