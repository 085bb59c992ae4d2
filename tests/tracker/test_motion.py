import cv2
import numpy as np
import pytest

from tests.tracker.flat import BLUE, PX_PER_CM, RED, Piece, render
from tracker.motion import MotionGate

TABLE = [Piece(40, 40, RED), Piece(100, 80, BLUE)]


def observe(gate: MotionGate, images) -> list:
    return [gate.observe(image, 0.2 * i) for i, image in enumerate(images)]


def test_an_arm_from_the_edge_unsettles_until_the_frame_it_leaves():
    readings = observe(MotionGate(), [render(TABLE), render(TABLE, (60, 60)), render(TABLE, (62, 58)),
                                      render(TABLE), render(TABLE)])
    assert [r.settled for r in readings] == [True, False, False, True, True]
    assert readings[3].just_settled


def test_a_hand_held_still_is_still_a_hand():
    readings = observe(MotionGate(), [render(TABLE), *[render(TABLE, (60, 60)) for _ in range(4)]])
    assert not any(r.settled for r in readings[1:])


def test_a_floating_hand_without_an_arm_unsettles_while_it_moves():
    readings = observe(MotionGate(), [render(TABLE), render(TABLE, (60, 60), arm=False),
                                      render(TABLE, (80, 70), arm=False), render(TABLE)])
    assert [r.settled for r in readings] == [True, False, False, True]


def test_still_photos_with_a_model_moved_between_them_are_settled():
    moved = [Piece(47, 42, RED), TABLE[1]]
    readings = observe(MotionGate(), [render(TABLE), render(moved), render(moved)])
    assert all(r.settled for r in readings)
    assert readings[1].pieces_moved and not readings[2].pieces_moved


def test_what_the_hand_covers_is_marked_changed():
    gate = MotionGate()
    gate.observe(render(TABLE), 0.0)
    reading = gate.observe(render(TABLE, (40, 40)), 0.2)
    assert reading.covers([[40 * 3.0, 40 * 3.0], [100 * 3.0, 80 * 3.0]]).tolist() == [True, False]


def test_a_frame_unchanged_for_long_enough_becomes_the_new_settled_frame():
    readings = observe(MotionGate(rebase_s=0.5), [render(TABLE, (60, 60))] * 5)
    assert [r.settled for r in readings] == [True] * 5
    gate = MotionGate(rebase_s=0.5)
    readings = observe(gate, [render(TABLE), *[render(TABLE, (60, 60))] * 5])
    assert [r.settled for r in readings] == [True, False, False, False, True, True]


def test_a_hand_resting_on_the_edge_with_a_tremor_is_settled_after_the_wait_and_stays_so():
    """A player leaning on the table never holds a hand to the pixel: waiting for a picture
    unchanged kept the rig unsettled, tracking nothing, for as long as the hand stayed."""
    tremor = np.random.default_rng(1).uniform(-0.8, 0.8, (25, 2))
    resting = [render(TABLE, (60 + dx, 60 + dy)) for dx, dy in tremor]
    readings = observe(MotionGate(), [render(TABLE), *resting])
    assert [r.settled for r in readings] == [True] + [False] * 10 + [True] * 15
    assert readings[11].resting_hand is not None  # the pieces under it are not taken for gone


def test_a_resting_hand_is_marked_from_the_wait_to_the_frame_it_leaves():
    """Taken into the settled frame, a still hand no longer differs from it: it was marked on
    the one frame that took it in, and a piece it held was missed on the next detection."""
    readings = observe(MotionGate(), [render(TABLE), *[render(TABLE, (60, 60))] * 20, render(TABLE)])
    rested = [r for r in readings if r.resting_hand is not None]
    assert len(rested) == 10 and readings[-2].resting_hand is not None
    assert readings[-2].rested_s == pytest.approx(1.8) and readings[-1].resting_hand is None
    assert readings[-2].under_resting_hand([[180.0, 180.0], [300.0, 240.0]]).tolist() == [True, False]


def test_the_frame_a_second_hand_leaves_is_settled_while_the_first_rests():
    """One player leans on the table while the other moves a piece: the frame the mover's hand
    leaves waited out 2 s, the leaning hand's tremor read as a hand still coming in."""
    tremor = np.random.default_rng(2).uniform(-0.8, 0.8, (20, 2))
    leaning = [(30 + dx, 60 + dy) for dx, dy in tremor]
    moved = [TABLE[0], Piece(110, 85, BLUE)]
    frames = [render(TABLE), *[render(TABLE, tip) for tip in leaning[:14]],
              render(TABLE, leaning[14], other_hand=(100, 80)),
              render(moved, leaning[15], other_hand=(110, 85)),
              *[render(moved, tip) for tip in leaning[16:]]]
    readings = observe(MotionGate(), frames)
    # Rested 2 s by frame 11; the mover's hand in 15-16; it leaves at 17.
    assert [r.settled for r in readings[10:]] == [False, *[True] * 4, False, False, *[True] * 4]
    assert readings[17].just_settled and readings[17].pieces_moved
    assert readings[17].resting_hand is not None


def test_a_resting_hands_tremor_asks_for_no_detection_but_a_piece_moved_beside_it_does():
    """Bits of a leaning arm's outline its tremor breaks off read as pieces moved: a detection
    every other frame for as long as the arm rested (~350 ms each on the benchmark machine)."""
    tremor = np.random.default_rng(1).uniform(-0.8, 0.8, (25, 2))
    resting = [render(TABLE, (60 + dx, 60 + dy)) for dx, dy in tremor]
    moved = [TABLE[0], Piece(110, 85, BLUE)]
    frames = [render(TABLE), *resting, *[render(moved, (60 + dx, 60 + dy)) for dx, dy in tremor[:3]]]
    readings = observe(MotionGate(), frames)
    assert all(r.settled and r.resting_hand is not None for r in readings[12:26])
    assert not any(r.pieces_moved for r in readings[12:26])
    assert readings[26].pieces_moved  # the piece moved away from the arm (a hand hidden by nothing)


def test_a_second_hand_held_still_beside_a_resting_one_is_still_a_hand():
    tremor = np.random.default_rng(3).uniform(-0.8, 0.8, (24, 2))
    leaning = [render(TABLE, (30 + dx, 60 + dy)) for dx, dy in tremor[:14]]
    reaching = [render(TABLE, (30 + dx, 60 + dy), other_hand=(100, 80)) for dx, dy in tremor[14:]]
    readings = observe(MotionGate(), [render(TABLE), *leaning, *reaching])
    assert readings[14].settled and not any(r.settled for r in readings[15:])


def test_a_hand_sliding_slowly_over_the_table_is_no_resting_hand():
    readings = observe(MotionGate(), [render(TABLE), *[render(TABLE, (60 + 0.5 * i, 60)) for i in range(25)]])
    assert not any(r.settled for r in readings[1:])


def test_the_frame_the_arm_leaves_is_settled_though_it_moved_something_bigger_than_a_base():
    """A tank driven 30 cm (a disc of 314 cm2 here) leaves a change against the settled frame
    bigger than any base: with the arm gone that frame was taken for one with a hand still in
    it (the tracking benchmark held the moved pieces a frame, IDF1 0.984 on seed 19)."""
    tank = Piece(40, 60, RED, diameter_mm=200.0)
    driven = Piece(70, 60, RED, diameter_mm=200.0)
    frames = [render([tank]), render([driven], (70, 66)), render([driven]), render([driven])]
    readings = observe(MotionGate(), frames)
    assert [r.settled for r in readings] == [True, False, True, True]
    assert readings[2].just_settled and readings[2].pieces_moved


def test_an_arm_in_the_first_frame_that_leaves_settles_the_frame_it_leaves():
    """The rig started with a hand in view: the hand's absence differs from the settled frame
    by an arm-shaped blob at the edge, which waited out 2 s of stillness before session 53."""
    readings = observe(MotionGate(), [render(TABLE, (60, 60)), render(TABLE, (60, 60)), render(TABLE),
                                      render(TABLE)])
    assert [r.settled for r in readings] == [True, True, True, True]
    assert readings[2].just_settled and readings[2].changed.any()
    assert not readings[3].changed.any()


def test_a_hand_rested_into_the_settled_frame_is_gone_the_frame_it_leaves():
    gate = MotionGate(rebase_s=0.5)
    readings = observe(gate, [render(TABLE), *[render(TABLE, (40, 40))] * 5, render(TABLE)])
    assert [r.settled for r in readings] == [True, False, False, False, True, True, True]
    assert readings[4].resting_hand is not None and readings[6].just_settled


def test_a_new_arm_beside_the_one_the_settled_frame_holds_is_still_a_hand():
    gate = MotionGate(rebase_s=0.5)
    observe(gate, [render(TABLE, (40, 40))] * 2)
    assert not gate.observe(render(TABLE, (120, 60)), 0.4).settled


def test_a_lamp_switched_on_between_moves_is_no_hand():
    brighter = np.clip(render(TABLE).astype(np.float32) * 1.25, 0, 255).astype(np.uint8)
    readings = observe(MotionGate(), [render(TABLE), brighter, brighter, render(TABLE, (60, 60))])
    assert [r.settled for r in readings] == [True, True, True, False]
    assert not readings[1].pieces_moved and not readings[1].changed.any()


def test_a_lamp_switched_on_at_one_side_is_no_hand():
    """The brightened side reaches the picture's edge: read as an arm, it hid every piece and
    left the squad there to be matched on looks the light had changed (a blind check)."""
    image = render(TABLE).astype(np.float32)
    ramp = 1.0 + 0.4 * np.clip(1.0 - np.arange(image.shape[1]) / (0.8 * image.shape[1]), 0, 1)
    lamp = np.clip(image * ramp[None, :, None], 0, 255).astype(np.uint8)
    readings = observe(MotionGate(), [render(TABLE), lamp, lamp, render(TABLE, (60, 60))])
    assert [r.settled for r in readings] == [True, True, True, False]
    assert readings[1].changed.mean() < 0.005


def test_a_hand_under_a_lamp_switched_on_is_still_a_hand():
    image = render(TABLE, (60, 60)).astype(np.float32)
    ramp = 1.0 + 0.4 * np.clip(1.0 - np.arange(image.shape[1]) / (0.8 * image.shape[1]), 0, 1)
    lamp_and_hand = np.clip(image * ramp[None, :, None], 0, 255).astype(np.uint8)
    readings = observe(MotionGate(), [render(TABLE), lamp_and_hand, lamp_and_hand])
    assert [r.settled for r in readings] == [True, False, False]


def checkered(pieces: list[Piece], hand: tuple[float, float] | None = None) -> np.ndarray:
    """`render` on a black and grey checkered mat: strong edges that every picture of it shares."""
    image, bare = render(pieces, hand), render([])
    y, x = np.mgrid[0:image.shape[0], 0:image.shape[1]] // round(3.0 * PX_PER_CM)
    image[(image == bare).all(axis=2) & ((x + y) % 2 == 1)] = 20
    return image


def test_an_arm_leaving_over_edges_both_pictures_share_settles_the_frame_it_leaves():
    """On a checkered mat the leaving arm's rim runs across squares sharp in both pictures. The
    rim's mean sharpness, settled frame against this one, read 1.86 (2 needed): the arm was
    taken to be still there (markers, the table's border and textured mats did this to 7 of
    48 rested hands). Pixel by pixel the shared squares cancel: 40 times more sharpness lost
    than gained, and the reverse for the arm arriving."""
    hand_on_the_mat = [checkered(TABLE, (60, 60)), checkered(TABLE)]
    assert [r.settled for r in observe(MotionGate(), hand_on_the_mat)] == [True, True]
    assert [r.settled for r in observe(MotionGate(), hand_on_the_mat[::-1])] == [True, False]


def test_a_hand_resting_in_a_grey_picture_reads_as_in_colour():
    """The gate reads grey pictures as colour ones (a grey camera, a recording kept grey): a hand
    resting there, kept out of the table as last seen bare, broadcast a colour picture's axis
    onto the grey one and stopped the gate the frame after it settled."""
    frames = [render(TABLE), *[render(TABLE, (60, 60))] * 20, render(TABLE)]
    grey = [cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) for frame in frames]

    def read(images: list) -> list:
        return [
            (r.settled, r.pieces_moved, r.resting_hand is not None, r.as_before_hand is not None)
            for r in observe(MotionGate(), images)
        ]

    assert read(grey) == read(frames)


def test_the_thumbnail_widens_for_a_table_that_fills_less_of_the_picture():
    """The rig over 183 x 122 in a binned frame (9.41 px a cm) keeps its 320 px; the same frame
    over 244 x 183 (6.28) read 0.87 px a cm, where a forearm broke off its sleeve."""
    gate = MotionGate()
    assert not gate.fit_to(9.41, 2304) and gate.width == 320
    assert gate.fit_to(6.28, 2304) and gate.px_per_cm >= 1.2
    widened = gate.width
    assert not gate.fit_to(6.27, 2304) and gate.width == widened  # a calibration a hair apart
    assert gate.fit_to(9.41, 2304) and gate.width == 320


def test_a_thumbnail_near_a_step_keeps_its_width_and_is_never_wider_than_the_frame():
    gate = MotionGate()
    assert gate.fit_to(6.172, 2304) and gate.width == 448  # 448.0 px needed at 1.2 px a cm
    assert gate.fit_to(6.170, 2304) and gate.width == 512  # 448.1
    assert not gate.fit_to(6.172, 2304) and gate.width == 512  # back and forth over the step: kept
    assert gate.fit_to(0.5, 2304) and gate.width == 2304
