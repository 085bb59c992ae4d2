"""Session 72's blind tracking check (23 new scenarios on the painter's renders, seeds 3 and 7).

A tight squad of look-alikes (bases in contact, 3.3 cm apart, two rows of three) carried 6 cm
along its rows set its rear column 0.6 cm from where its front column stood: the front column's
spots looked as they did, so its pieces were taken to have stood still, and the rest of the
block, one short, was matched piece by piece: all 6 ids wrong."""
import numpy as np

from tests.tracker.scenes import colour, detections
from tests.tracker.test_tracking import near
from tracker.tracking import Tracker

COLUMNS, ROWS = (60.0, 63.3, 66.6), (100.0, 103.3)


def test_a_tight_block_of_look_alikes_carried_onto_its_own_front_keeps_its_ids():
    tracker = Tracker()
    block = [(x, y) for y in ROWS for x in COLUMNS]
    alike = colour(3)
    tracker.update(detections(*block), [alike] * 6)
    ids = {tuple(t.xy_cm): t.id for t in tracker.models()}
    carried = [(x + 6.0, y) for x, y in block]
    # The picture changed where the block left and where it landed, but not about the front
    # column's old spots: a look-alike stands 0.6 cm from each, under the thumbnail's blur.
    changed = [(x, y) for y in ROWS for x in (60.0, 63.3, 69.3, 72.6)]
    tracker.update(detections(*carried), [alike] * 6, in_play=near(*block, *carried, cm=2.5),
                   now_differs=near(*changed, cm=1.2))
    now = {t.id: tuple(np.round(t.xy_cm, 1)) for t in tracker.models()}
    assert now == {ids[old]: (round(old[0] + 6.0, 1), old[1]) for old in block}


def test_two_look_alikes_lifted_past_their_line_leave_the_others_where_they_stood():
    """Guard: the step of one place along carries the two lifted pieces onto pieces that stood
    still, so it is no move of theirs: the three standing keep their ids, not slid along."""
    tracker = Tracker()
    line = [(30.0 + 4.6 * i, 50.0) for i in range(5)]
    alike = colour(3)
    tracker.update(detections(*line), [alike] * 5)
    ids = {tuple(t.xy_cm): t.id for t in tracker.models()}
    now = [*line[2:], (53.0, 50.0), (57.6, 50.0)]
    tracker.update(detections(*now), [alike] * 5, in_play=near(*line, *now, cm=2.5),
                   now_differs=near(*line[:2], *now[3:], cm=1.2))
    where = {t.id: tuple(np.round(t.xy_cm, 1)) for t in tracker.models()}
    assert all(where[ids[spot]] == spot for spot in line[2:])
