"""Session 71's blind tracking check (21 scenarios on the painter's renders, seeds 3 and 7).

A model of another paint put where a casualty stood, or set down within its move soon after it
was carried off, came back as the casualty (its id handed on, no switch counted): different
paints on one army's base top read 0.53-0.74 apart, where a model against its own look after a
move reads at most 0.19. And a tank turned round on its spot kept its old front for 2 s, the end
its barrel left showing no change when barrel and hull share a colour."""
import numpy as np

from models.detections import Detections
from tests.tracker.scenes import detections, vehicles
from tests.tracker.test_tracking import near
from tracker.appearance import Look
from tracker.tracking import Tracker


def painted_on(base_top_bin: int, paint_bin: int) -> Look:
    """A 32 mm model seen from above: 60 % of its disc is the army's base top, 40 % its paint
    (the renders: another paint on the same base top read 0.53-0.74 from the casualty's look)."""
    hist = np.full(48, 1e-3)
    hist[base_top_bin], hist[paint_bin] = 0.6, 0.4
    return Look(hist / hist.sum(), 0.0)


def test_another_paint_put_where_a_casualty_stood_is_a_new_piece():
    for there, now_s in (((50, 50), 12.0), ((50, 62), 5.0)):  # its footprint; 12 cm on, carried-off time
        tracker = Tracker()
        red, green = painted_on(5, 0), painted_on(5, 20)
        tracker.update(detections((10, 10), (50, 50)), [red, red], now_s=0.0)
        tracker.update(detections((10, 10)), [red], in_play=near((50, 50)), now_s=1.0)
        retired = tracker.update(detections((10, 10)), [red], in_play=near((50, 50)), now_s=1.2)
        assert retired.removed == ["m2"]
        changes = tracker.update(detections((10, 10), there), [red, green], in_play=near(there), now_s=now_s)
        assert changes.added == ["m3"] and not changes.returned


def test_the_casualty_itself_put_back_is_still_returned():
    tracker = Tracker()
    red = painted_on(5, 0)
    tracker.update(detections((10, 10), (50, 50)), [red, red], now_s=0.0)
    tracker.update(detections((10, 10)), [red], in_play=near((50, 50)), now_s=1.0)
    tracker.update(detections((10, 10)), [red], in_play=near((50, 50)), now_s=1.2)
    changes = tracker.update(detections((10, 10), (50, 62)), [red, red], in_play=near((50, 62)), now_s=5.0)
    assert changes.returned == ["m2"] and not changes.added


def test_a_hull_turned_round_with_its_barrel_coloured_like_it_takes_its_new_front():
    """The end the barrel left shows no change when barrel and hull share a colour; the turret at
    the centre and the end the barrel came to do (two_tanks blind scenario: 180 degrees off)."""
    tracker = Tracker()
    tracker.update(Detections(vehicles=vehicles((100, 50, 90))))
    changes = tracker.update(Detections(vehicles=vehicles((100, 50, 270))),
                             in_play=near((100, 50), (100, 57), cm=2.5))
    assert [t.heading_deg for t in tracker.vehicles()] == [270.0] and "v1" in changes.moved


def test_two_models_swapped_25_cm_apart_take_each_others_ids():
    """ra1 and rb4 (two reds, 0.41-0.49 apart in colour on the renders; 0.59 here) exchanged 24.6 cm
    apart: the distance term (2 x 3 x (24.6 / 40.5)^2 = 2.2) outweighed the looks
    (2 x 2 x (0.59 - 0.15) = 1.8), and the ids stayed on the spots."""
    tracker = Tracker()
    red, orange = painted_on(5, 0), painted_on(5, 2)
    tracker.update(detections((30, 30), (30, 54.6)), [red, orange])
    tracker.update(detections((30, 30), (30, 54.6)), [orange, red],
                   in_play=near((30, 30), (30, 54.6), cm=3.0), now_differs=near((30, 30), (30, 54.6), cm=3.0))
    assert {t.id: tuple(t.xy_cm) for t in tracker.models()} == {"m1": (30.0, 54.6), "m2": (30.0, 30.0)}
