import cv2
import numpy as np

from tracker.appearance import LitFrame
from tracker.cover import COVER_S, Covers
from tracker.lighting import LightField
from tracker.tracks import Track

PX_PER_CM = 5.0


def to_image(points_cm: np.ndarray) -> np.ndarray:
    return np.asarray(points_cm, dtype=np.float64) * PX_PER_CM


def base(track_id: str, x: float, y: float) -> Track:
    return Track(id=track_id, kind="model", xy_cm=np.array([x, y]), diameter_mm=32.0)


def grass(seed: int = 0) -> np.ndarray:
    """A mottled green mat: grain of 12 levels over blotches a few centimetres across."""
    rng = np.random.default_rng(seed)
    blotches = cv2.resize(rng.normal(0, 14, (12, 20, 3)), (500, 300), interpolation=cv2.INTER_CUBIC)
    image = np.array([60, 120, 70], np.float64) + blotches + rng.normal(0, 12, (300, 500, 3))
    return np.clip(image, 0, 255).astype(np.uint8)


def with_bases(image: np.ndarray, *bases: Track) -> np.ndarray:
    image = image.copy()
    for b in bases:
        centre, radius = tuple(to_image(b.xy_cm).round().astype(int)), b.diameter_mm / 20.0 * PX_PER_CM
        cv2.circle(image, centre, round(radius), (40, 40, 40), -1)  # the rim
        cv2.circle(image, centre, round(0.55 * radius), (40, 40, 200), -1)  # the miniature
    return image


def frame(image: np.ndarray, gain: float = 1.0) -> LitFrame:
    light = LightField(np.vstack([np.full((1, 3), np.log(gain)), np.zeros((5, 3))]), 500.0, 300.0)
    return LitFrame(image, light, 100.0)


def verdict(before: np.ndarray, now: np.ndarray, missing: Track, bases: list[Track],
            now_gain: float = 1.0) -> bool:
    return bool(Covers().covered([missing], frame(before), frame(now, now_gain), to_image, bases, 0.0)[0])


def test_a_base_taken_off_a_mottled_mat_in_a_tight_squad_leaves_its_spot_bare():
    squad = [base(f"m{i}", 30 + 3.4 * i, 30) for i in range(5)]  # rims 2 mm apart
    mat = grass()
    before = with_bases(mat, *squad)
    after = with_bases(mat, *squad[:2], *squad[3:])
    assert not verdict(before, after, squad[2], squad)


def felt(seed: int = 1) -> np.ndarray:
    return np.clip(np.array([70, 110, 80]) + np.random.default_rng(seed).normal(0, 3, (300, 500, 3)),
                   0, 255).astype(np.uint8)


def test_the_mat_around_a_base_is_read_past_its_neighbours():
    """A 32 mm base between four 65 mm ones touching it: they fill most of the ring around it."""
    officer = base("m1", 40, 30)
    guns = [base(f"g{i}", 40 + dx, 30 + dy) for i, (dx, dy) in enumerate([(-4.95, 0), (4.95, 0), (0, -4.95),
                                                                           (0, 4.95)])]
    for gun in guns:
        gun.diameter_mm = 65.0
    before = with_bases(felt(), officer, *guns)
    after = with_bases(felt(), *guns)
    assert not verdict(before, after, officer, [officer, *guns])


def test_a_card_or_a_tape_over_a_base_covers_it():
    squad = [base(f"m{i}", 30 + 3.4 * i, 30) for i in range(3)]
    before = with_bases(grass(), *squad)
    card = cv2.rectangle(before.copy(), (140, 125), (185, 165), (230, 232, 235), -1)
    tape = cv2.rectangle(before.copy(), (100, 145), (260, 155), (40, 200, 230), -1)
    assert verdict(before, card, squad[1], squad)
    assert verdict(before, tape, squad[1], squad)


def test_the_mat_is_compared_in_the_reference_light():
    """A lamp switched on made the table 60 % brighter between the two detections."""
    squad = [base("m1", 30, 30), base("m2", 40, 30)]
    before = with_bases(felt(), *squad)
    brighter = np.clip(with_bases(felt(), squad[1]) * 1.6, 0, 255).astype(np.uint8)
    assert not verdict(before, brighter, squad[0], squad, now_gain=1.6)


def test_a_cover_is_believed_for_a_while_only():
    squad = [base("m1", 30, 30), base("m2", 40, 30)]
    before = with_bases(grass(), *squad)
    card = cv2.rectangle(before.copy(), (130, 130), (170, 170), (230, 232, 235), -1)
    covers = Covers()
    missing = [squad[0]]
    assert covers.covered(missing, frame(before), frame(card), to_image, squad, 100.0)[0]
    assert covers.covered(missing, frame(card), frame(card), to_image, squad, 100.0 + COVER_S)[0]
    assert not covers.covered(missing, frame(card), frame(card), to_image, squad, 101.0 + COVER_S)[0]


def test_a_neighbours_shadow_over_the_spot_a_base_left_is_still_bare_mat():
    """A low light: the shadow of the next miniature reaches over the spot once its base is gone."""
    squad = [base("m1", 30, 30), base("m2", 33.4, 30)]
    before = with_bases(felt(7), *squad)
    after = with_bases(felt(7), squad[1])
    shadow = np.zeros(after.shape[:2], np.uint8)
    cv2.ellipse(shadow, (150, 150), (14, 9), 0, 0, 360, 255, -1)
    after[shadow > 0] = (after[shadow > 0] * 0.45).astype(np.uint8)
    assert not verdict(before, after, squad[0], squad)
