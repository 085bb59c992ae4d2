"""Eighth audit of Combined Arms (seed 002) and Tankomaster (seed 003) against the Russian text.

Each test quotes the seed sentence it follows, translated in the docstring, and failed before its fix.
"""

from __future__ import annotations

import pytest

from rules_core import api
from rules_core.errors import SceneError
from tests.rules_core.builders import base, hull, scene

CA = "combined-arms"
INCH = 2.54


# --- 002 Combined Arms -----------------------------------------------------------------------


def test_ca_a_heavy_mg_with_no_fighter_within_1_inch_does_not_fire() -> None:
    """002: «Станковый пулемёт требует наличия двух бойцов для передвижения (в радиусе 1 дюйма) и
    одного для ведения огня» (a heavy MG needs two fighters within 1" to move and one to fire): a
    dug-in heavy MG 10" from a foe reaches him with one friendly fighter within 1", and with none
    (the nearest 1.05" away) reaches no one, as check's hmg_can_fire says."""
    mg = hull(50, 50, "g", side="red", unit="mg", type="gun", length_mm=30, width_mm=30,
              weapons=["hmg"], flags=["dug_in"])
    foe = base(50 + 1.5 + 1.6 + 10 * INCH, 50, "e", side="blue")
    for gap_in, weapons in ((1.0, ["hmg"]), (1.05, [])):
        fighter = base(50, 50 + 1.5 + 1.6 + gap_in * INCH, "f", side="red", unit="mg")
        table = scene(CA, [mg, fighter, foe])
        assert api.check(table)["proximity"]["hmg_can_fire"]["g"]["met"] is bool(weapons)
        assert api.ranges(table, "g")["targets"][0]["weapons"] == weapons


def test_ca_a_capture_test_needs_damaged_running_gear() -> None:
    """002: «Тест на захват проводится при следующих условиях: повреждена ходовая часть техники, на
    расстоянии до 2 дюймов от координатных точек техники находятся пехотинцы-захватчики в количестве
    не менее 4 человек» (a capture test is taken when the vehicle's running gear is damaged and at
    least 4 capturing infantrymen stand within 2" of it): four enemy fighters 1.5" from a sound tank
    meet no capture test; round a tank with damaged running gear, or tracks hit by a mine, they do."""
    raiders = [base(60 + 10 + 1.6 + 1.5 * INCH, 24 + 4 * k, f"r{k}") for k in range(4)]
    sound = hull(60, 30, "v", side="blue")
    row = api.check(scene(CA, [sound, *raiders]))["proximity"]["capture_test"]["v"]
    assert row["met"] is False and "running_gear_damaged" in row["not_subject"]
    for flag in ("running_gear_damaged", "tracks_damaged"):
        damaged = {**sound, "flags": [flag]}
        assert api.check(scene(CA, [damaged, *raiders]))["proximity"]["capture_test"]["v"]["met"] is True


@pytest.mark.parametrize(
    ("tug", "towed"),
    [
        (hull(50, 30, "tug", side="red", chassis="car", seats=4, towing="g"), "gun"),
        (hull(50, 30, "tug", side="red", chassis="car", seats=5, towing="g"), "gun"),
        (base(50, 30, "tug", towing="g"), "gun"),
        (hull(50, 30, "tug", side="red", chassis="car", seats=6, towing="g"), "infantry"),
    ],
    ids=["car_of_4_seats", "car_of_5_seats", "infantryman", "towing_infantry"],
)
def test_ca_artillery_is_towed_by_a_car_of_6_seats_or_a_tractor(tug: dict, towed: str) -> None:
    """002: «Перевозка артиллерии ведётся на автомашинах, имеющих от 6 посадочных мест, либо на
    гусеничных тягачах» (artillery is carried by cars with 6 seats or more, or by tracked tractors):
    a car of 4 or 5 seats, or an infantryman, towing a gun, or anything towing an infantryman, is
    refused naming models[i].towing; a car of 6 seats, or a vehicle whose card the scene does not
    give, tows a gun."""
    gun = hull(50, 50, "g", side="red", unit="gun", type=towed, length_mm=40, width_mm=40)
    with pytest.raises(SceneError, match=r"models\[1\]\.towing"):
        scene(CA, [gun, tug])
    for fine in (hull(50, 30, "tug", side="red", chassis="car", seats=6, towing="g"),
                 hull(50, 30, "tug", side="red", towing="g")):
        towed_gun = {**gun, "type": "gun"}
        assert api.check(scene(CA, [towed_gun, fine]))["guns"]["g"]["towed_by"] == "tug"


@pytest.mark.parametrize("flag", ["disembarked", "carrying_wounded", "recovered"])
def test_ca_a_fighter_who_may_not_fight_this_turn_neither_fires_a_heavy_mg_nor_blows_up_a_tank(
    flag: str,
) -> None:
    """002: «Во второй ход пехота не может проявлять боевую активность» (infantry dropped off this
    turn shows no combat activity), «Боец, «переносящий раненого», не может в этот ход проявлять
    боевой активности», «После выздоровления 1 полный ход раненый пехотинец имеет право только
    передвигаться» (the carrier of a wounded man does not fight, a recovered man only moves): such
    a fighter within 1" is not the one a heavy MG needs «для ведения огня», and a prone sapper within
    2" of a tank does not destroy it («Сапёр может уничтожить любую технику ... сапёр находится в
    2 дюймах от техники, он получил приказ «залечь»»); a sound one is and does."""
    mg = hull(50, 50, "g", side="red", unit="mg", type="gun", length_mm=30, width_mm=30, weapons=["hmg"])
    tank = hull(120, 50, "v", side="blue")
    fighter = base(50, 50 + 1.5 + 1.6 + 0.5 * INCH, "f", side="red", unit="mg")
    sapper = base(120 + 10 + 1.6 + INCH, 50, "s", side="red", role="sapper", order="prone")
    for flags, met in (([flag], False), ([], True)):
        proximity = api.check(
            scene(CA, [mg, tank, {**fighter, "flags": flags}, {**sapper, "flags": flags}])
        )["proximity"]
        assert proximity["hmg_can_fire"]["g"]["met"] is met
        assert proximity["sapper_kills_vehicle"]["v"]["met"] is met


@pytest.mark.parametrize("flag", ["wounded", "disembarked", "carrying_wounded", "recovered"])
@pytest.mark.parametrize("role", ["mortar_crew", "commander"])
def test_ca_a_mortarman_who_may_not_fight_this_turn_does_not_work_the_mortar(flag: str, role: str) -> None:
    """002: «Наличие 1-2 миномётчиков и командира расчёта является обязательным условием для
    возможности действия миномёта» (1-2 mortarmen and a crew commander are needed for the mortar to
    act), and «Во второй ход пехота не может проявлять боевую активность», «Боец, «переносящий
    раненого», не может в этот ход проявлять боевой активности», «После выздоровления 1 полный ход
    раненый пехотинец имеет право только передвигаться» (infantry dropped off, carrying a wounded
    man or just recovered does not fight): with the mortarman or the commander so, or wounded, the
    mortar does not fire and reaches no one; with both sound it does."""
    mortar = hull(50, 50, "m", side="red", unit="mortar", type="gun", length_mm=40, width_mm=40,
                  weapons=["light_mortar"])
    crew = {
        r: base(50 + 2 + 1.6 + 0.5 * INCH, 50 - 2 + 4 * k, r, unit="mortar", crew_of="m", role=r)
        for k, r in enumerate(["mortar_crew", "commander"])
    }
    foe = base(120, 50, "e", side="blue")
    for flags, fires in (([flag], False), ([], True)):
        men = [{**man, "flags": flags if r == role else []} for r, man in crew.items()]
        table = scene(CA, [mortar, *men, foe])
        assert api.check(table)["guns"]["m"]["can_fire"] is fires
        assert api.ranges(table, "m")["targets"][0]["weapons"] == (["light_mortar"] if fires else [])


def test_ca_a_tank_carrying_no_riders_has_no_desant_fire() -> None:
    """002: «Бойцы танкового десанта могут вести огонь с техники на расстояние до 6 дюймов
    (высчитывается от КТ техники)» (tank riders may fire from the vehicle up to 6", measured from its
    КТ): the fire is the riders', so a tank the scene says carries no one (passengers 0) reaches a
    foe 5" away with nothing, one carrying two, or whose load the scene does not give, with it."""
    tank = hull(50, 50, "v", side="red", chassis="tank", weapons=["desant_fire"])
    foe = base(50 + 10 + 1.6 + 5 * INCH, 50, "e", side="blue")
    loads = (({"passengers": 0}, []), ({"passengers": 2}, ["desant_fire"]), ({}, ["desant_fire"]))
    for load, weapons in loads:
        assert api.ranges(scene(CA, [{**tank, **load}, foe]), "v")["targets"][0]["weapons"] == weapons
