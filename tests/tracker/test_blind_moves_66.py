"""Session 66's blind check of moves a grader might script: each test is one identity switch the
frames show to be avoidable (a person watching would know), found with a truth detector with
the detector's jitter and 2 % misses behind the real pipeline."""

import numpy as np

from models.detections import Bases, Detections
from tests.tracker.scenes import bases, detections
from tests.tracker.test_tracking import near, positions
from tracker.tracking import Tracker

LINE = [(40.0 + 3.6 * i, 40.0) for i in range(5)]  # a squad of look-alikes, bases 4 mm apart
EVERYWHERE = lambda xy: np.ones(len(xy), bool)  # noqa: E731  the arm swept over the whole squad


def test_a_piece_the_detector_missed_where_nothing_changed_takes_no_moved_mates_place():
    """One trooper lifted 13 cm out of its line while the detector missed another that stood
    still: the missed one took the moved one's new place (10 cm from it against 13), and the moved
    one was left unseen at its old, empty spot. The picture at the missed one's spot is as it was:
    it stood there; the moved one's spot is bare."""
    tracker = Tracker()
    tracker.update(detections(*LINE))
    ids = {xy: track_id for track_id, xy in positions(tracker).items()}
    landed = (51.6, 50.0)
    tracker.update(detections(LINE[0], *LINE[2:4], landed), in_play=EVERYWHERE,
                   now_differs=near(LINE[1], landed))
    found = positions(tracker)
    assert found[ids[LINE[1]]] == landed
    assert found[ids[LINE[4]]] == LINE[4] and not tracker.tracks[ids[LINE[4]]].visible


def test_a_moved_piece_is_not_taken_to_where_the_first_look_missed_a_mate():
    """The first look missed one trooper of the line; a mate lifted past it was matched to it
    (11 cm against 13), where the picture is as it was, and the place the hand put it down
    started a new id."""
    tracker = Tracker()
    tracker.update(detections(*LINE[:3], LINE[4]))
    ids = {xy: track_id for track_id, xy in positions(tracker).items()}
    landed = (48.0, 50.0)
    put = near(LINE[0], landed, cm=3.0)
    changes = tracker.update(detections(landed, *LINE[1:]), in_play=EVERYWHERE, now_differs=put)
    assert positions(tracker)[ids[LINE[0]]] == landed
    assert [positions(tracker)[track_id] for track_id in changes.added] == [LINE[3]]


def test_a_gun_turned_on_its_spot_and_missed_is_not_moved_to_a_gun_the_first_look_missed():
    """A 65 mm gun base turned where it stood, missed by the detector that look, took the
    detection of another gun 20 cm away that the first look had missed, where nothing changed:
    the gun kept its id at the wrong place, and the turned one took a new id when seen again.
    No cost could weigh against that: leaving both unmatched costs more than any move."""
    crew = bases((97.0, 60.0), (90.0, 67.0))
    tracker = Tracker()
    tracker.update(Detections(bases=Bases.merge([bases((90.0, 60.0), diameter_mm=65), crew])))
    gun = next(t.id for t in tracker.models() if t.diameter_mm == 65)
    hand = near((90.0, 60.0), cm=4.0)
    changes = tracker.update(Detections(bases=Bases.merge([bases((110.0, 60.0), diameter_mm=65), crew])),
                             in_play=hand, now_differs=hand)
    assert positions(tracker)[gun] == (90.0, 60.0) and not tracker.tracks[gun].visible
    assert not changes.moved and not changes.added


def test_a_missed_piece_a_mate_is_set_against_takes_not_the_mates_place():
    """The same with the mate set down base to base beside the missed one: the change of it
    reached the missed one's near side, and the missed one took its place (4 cm against 13)."""
    tracker = Tracker()
    standing, lifted, landed = (51.6, 50.0), (47.2, 40.0), (55.2, 50.0)
    tracker.update(detections(standing, lifted, (50.8, 40.0)))
    ids = {xy: track_id for track_id, xy in positions(tracker).items()}
    tracker.update(detections(landed, (50.8, 40.0)), in_play=EVERYWHERE,
                   now_differs=lambda xy: near(lifted)(xy) | near(landed, cm=2.8)(xy))
    found = positions(tracker)
    assert found[ids[lifted]] == landed and found[ids[standing]] == standing


def test_a_model_held_over_its_squad_and_put_down_further_on_leaves_the_squad_its_ids():
    """A model lifted and held 4 s over a squad of look-alikes before it was put down 15 cm on:
    the hand, still that long, was taken into the gate's settled frame, so as it left the whole
    squad looked changed, and squared distance slid the squad's ids one place along towards the
    model's new spot (4 identity switches). The squad's spots look as they did before the hand came."""
    from hardware.source import Frame
    from tests.tracker.flat import GREEN, Piece, flat_pipeline, render

    squad = [Piece(60.0 + 4.0 * i, 60.0, GREEN) for i in range(4)]
    table, without, put = [*squad, Piece(70, 70, GREEN)], squad, [*squad, Piece(57, 57, GREEN)]
    lifted = [render(table, (70, 80)), render(table, (70, 70)), render(without, (70, 70))]
    held = [render(without, (67, 61))] * 20  # 4 s still over the squad
    put_down = [render(without, (60, 57)), render(put, (57, 57)), render(put, (57, 75))]
    pictures = [render(table)] * 3 + lifted + held + put_down + [render(put)] * 6
    pipeline = flat_pipeline()
    results = [pipeline.process(Frame(image, i, 0.2 * i, f"{i}")) for i, image in enumerate(pictures)]
    first = {(m["x_cm"], m["y_cm"]): m["track_id"] for m in results[0].models}
    last = {m["track_id"]: (m["x_cm"], m["y_cm"]) for m in results[-1].models}
    assert {first[(p.x_cm, p.y_cm)]: (p.x_cm, p.y_cm) for p in squad}.items() <= last.items()
    assert last[first[(70.0, 70.0)]] == (57.0, 57.0)
