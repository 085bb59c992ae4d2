"""Fourteenth audit pass against the Russian seed texts.

Each test cites the seed sentence it checks and failed before the fix it pins; the sentence is
translated in the docstring.
"""

from __future__ import annotations

import pytest

from rules_core import api
from tests.rules_core.builders import base, scene

CA = "combined-arms"
BP = "bronepehota"
MI = "mobile-infantry"
INCH = 2.54


@pytest.mark.parametrize(
    ("ruleset", "kind", "radius", "said"),
    [
        (CA, "grenade", 5.0, "fixes its radius at 1 in, not 5"),
        (CA, "charge", 0.5, "fixes its radius at 4 in, not 0.5"),
        (BP, "grenade", 2.0, "fixes its radius at 1"),
        (CA, "grenade", -1.0, "is not a blast"),
        (MI, "grenade", -5.0, "is not a blast"),
        (MI, "grenade", 0.0, "is not a blast"),
    ],
)
def test_a_blast_keeps_the_seeds_radius_and_a_given_one_is_above_zero(
    ruleset: str, kind: str, radius: float, said: str
) -> None:
    """002: «В радиусе 1 дюйма от точки попадания бойцы противника получают ранения» (within 1
    inch of the impact enemy fighters are wounded), «Заряд уничтожает БЕ и объекты ландшафта в
    радиусе 4 Д» (the charge destroys within 4 inches); 004: «в пределах 1 шага от места
    взрыва» (within 1 step of the burst). A radius the seed fixes is the seed's: a different one
    given with the template is refused (it replaced it: a fighter 3" off was "wounded" by a 5"
    grenade), and a radius of 0 or less is no blast at all (it was taken, radius_cm -2.54)."""
    fighter = base(50 + 1.6 + 3 * INCH, 50, "b", side="blue", type="trooper" if ruleset == MI else "infantry")
    with pytest.raises(api.SceneError, match=said):
        api.under_template(scene(ruleset, [fighter]), kind, 50.0, 50.0, radius=radius)
    if ruleset == CA and kind == "grenade":
        seeds = api.under_template(scene(ruleset, [fighter]), kind, 50.0, 50.0, radius=1.0)
        assert seeds["radius_cm"] == pytest.approx(INCH) and seeds["models"] == []
