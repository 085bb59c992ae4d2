import cv2
import numpy as np

from tracker.appearance import describe, seen
from tracker.association import Weights, appearance_cost
from tracker.lighting import Lighting


def _table(seed: int = 0) -> np.ndarray:
    """A grass mat with a few painted models on it."""
    rng = np.random.default_rng(seed)
    image = np.clip(rng.normal((60, 120, 70), 12, (720, 1280, 3)), 0, 255).astype(np.uint8)
    for x, colour in ((300, (40, 40, 170)), (345, (60, 50, 150)), (390, (150, 60, 50))):
        cv2.circle(image, (x, 360), 20, colour, -1)
    return image


def _lit(image: np.ndarray, gain_bgr, fall_off: float = 0.0) -> np.ndarray:
    """`image` under a light of `gain_bgr` that also brightens the left by `fall_off`."""
    left = 1.0 + fall_off * np.clip(1.0 - np.arange(image.shape[1]) / (0.8 * image.shape[1]), 0, 1)
    lit = image.astype(np.float64) * np.asarray(gain_bgr)[None, None, :] * left[None, :, None]
    return np.clip(lit, 0, 255).astype(np.uint8)


def test_the_first_look_is_the_reference_light():
    field = Lighting().field(_table())
    assert np.allclose(field.gains(np.array([[100.0, 100.0]])), 1.0) and not field.changed()


def test_a_white_balance_step_and_a_lamp_at_one_side_are_read_off_the_mat():
    lighting = Lighting()
    lighting.field(_table())
    field = lighting.field(_lit(_table(1), (0.85, 1.0, 1.15), fall_off=0.3))
    left, right = field.gains(np.array([[40.0, 360.0], [1240.0, 360.0]]))
    assert np.allclose(right, (0.85, 1.0, 1.15), atol=0.03)
    assert np.allclose(left / right, 1.28, atol=0.06)
    assert field.changed()


def test_pieces_moved_on_a_table_in_the_same_light_are_no_change_of_light():
    lighting = Lighting()
    lighting.field(_table())
    moved = _table(1)
    cv2.circle(moved, (900, 200), 20, (40, 40, 170), -1)
    cv2.rectangle(moved, (600, 500), (800, 600), (90, 90, 90), -1)  # a tank driven on
    assert not lighting.field(moved).changed()


def test_looks_are_taken_in_the_reference_light_so_the_same_models_stay_alike():
    """The blind check's warm white balance made each model less like itself than like its
    squad-mate; in the reference light each is as alike as itself."""
    lighting = Lighting()
    centres, radii = np.array([[300.0, 360.0], [345.0, 360.0], [390.0, 360.0]]), np.full(3, 12.0)
    before = describe(seen(_table(), lighting.field(_table())), centres, radii)
    warm = _lit(_table(1), (0.85, 1.0, 1.15))
    after = describe(seen(warm, lighting.field(warm)), centres, radii)
    assert np.all(np.diag(appearance_cost(before, after, Weights())) == 0.0)
    plain = describe(seen(warm), centres, radii)
    assert np.any(np.diag(appearance_cost(before, plain, Weights())) > 0.0)
