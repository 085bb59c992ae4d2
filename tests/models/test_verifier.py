"""The verifier's polar view of a rim, what each of its nets sees, and how their verdicts combine."""

from __future__ import annotations

import cv2
import numpy as np
import onnx

from models.detector import SHIPPED_WEIGHTS
from models.verifier import (
    BATCH,
    DOUBT,
    FRACTIONS,
    INNER,
    MIDDLE_SAMPLES,
    PAIR_DIGEST,
    PATCH_SHAPE,
    RADIUS_CHANNEL,
    RAYS,
    WRAP,
    RimVerifier,
    combined_probability,
    keep_ring_net,
    polar_view,
    rim_patches,
    ring_net,
    ring_part,
    ring_path,
)

RADIUS_PX = 30.0
CENTRE = np.array([[100.0, 100.0]])
NADIR = np.array([0.0, 0.0])


def _base(middle_bgr: tuple[int, int, int] | None, rim_bgr=(30, 30, 35)) -> np.ndarray:
    """A grey mat, a rim, a sand top, and maybe a figure's blob standing in the middle."""
    image = np.full((200, 200, 3), (90, 120, 100), np.uint8)
    cv2.circle(image, (100, 100), int(RADIUS_PX), rim_bgr, -1, cv2.LINE_AA)
    cv2.circle(image, (100, 100), int(RADIUS_PX) - 3, (120, 170, 190), -1, cv2.LINE_AA)
    if middle_bgr is not None:
        cv2.circle(image, (100, 100), int(RADIUS_PX * INNER) - 3, middle_bgr, -1, cv2.LINE_AA)
    return image


def _patch(image: np.ndarray) -> np.ndarray:
    return rim_patches(image, CENTRE, np.array([RADIUS_PX]), NADIR, np.array([32.0]))[0]


def test_the_patch_has_the_shape_the_model_takes():
    assert _patch(_base(None)).shape == PATCH_SHAPE
    empty = rim_patches(_base(None), np.zeros((0, 2)), np.zeros(0), NADIR, np.zeros(0))
    assert empty.shape == (0, *PATCH_SHAPE)


def test_the_ring_net_sees_the_ring_and_the_middle_net_sees_the_figure_too():
    """The ring net's view is normalised by the ring alone, so a figure standing in the middle
    leaves it as it was: the two nets are two opinions, not one."""
    bare, figure = _patch(_base(None)), _patch(_base((200, 40, 40)))
    np.testing.assert_allclose(ring_part(figure), ring_part(bare), atol=1e-5)
    assert np.abs(figure[:3, :, :MIDDLE_SAMPLES] - bare[:3, :, :MIDDLE_SAMPLES]).max() > 1.0
    assert np.abs(ring_part(_patch(_base(None, rim_bgr=(200, 200, 210)))) - ring_part(bare)).max() > 1.0


def test_every_sample_carries_its_radius():
    patch = _patch(_base(None))
    np.testing.assert_allclose(patch[RADIUS_CHANNEL], np.broadcast_to(FRACTIONS - 1.0, patch.shape[1:]))
    assert FRACTIONS[0] == 0.0 and FRACTIONS[MIDDLE_SAMPLES] == INNER


def test_colours_are_normalised_by_the_ring_s_mean_and_spread():
    """Each channel less its mean over the ring, over the ring's spread across all channels."""
    image = _base((200, 40, 40))
    angles = np.arange(-WRAP, RAYS + WRAP)[None] * (2 * np.pi / RAYS) + np.arctan2(100.0, 100.0)
    polar = polar_view(image, CENTRE, np.array([RADIUS_PX]), angles, FRACTIONS)[0].astype(np.float64)
    ring = polar[WRAP:-WRAP, MIDDLE_SAMPLES:]
    expected = (polar - ring.mean(axis=(0, 1))) / (ring.std() + 8.0)
    np.testing.assert_allclose(_patch(image)[:3], expected.transpose(2, 0, 1), atol=1e-4)


def test_the_wrapped_rays_repeat_the_ring():
    patch = _patch(_base(None))
    np.testing.assert_allclose(patch[:, :WRAP], patch[:, -2 * WRAP : -WRAP], atol=1e-3)


class _Session:
    """Stands in for onnxruntime: each patch's logits (one column per net) are the row its
    first sample names, so a patch and its mirror image can be told their own verdicts."""

    def __init__(self, logits: list[list[float]]) -> None:
        self.logits = np.array(logits, np.float32)

    def run(self, outputs, feeds):
        (patches,) = feeds.values()
        return [self.logits[patches[:, 0, 0, 0].astype(int)]]


def _verifier(logits: list[list[float]]) -> RimVerifier:
    verifier = RimVerifier.__new__(RimVerifier)
    verifier.session, verifier.input, verifier.output = _Session(logits), "rims", "logits"
    verifier.ring_session = None
    return verifier


def _sigmoid(x: float) -> float:
    return 1 / (1 + np.exp(-x))


def _numbered(rows: list[int], mirrored_rows: list[int] | None = None) -> np.ndarray:
    """Patches that name their row of `_Session`'s logits as they are and, mirrored, the row
    the same patch's last ray names (by default the same row)."""
    patches = np.zeros((len(rows), *PATCH_SHAPE), np.float32)
    patches[:, 0, 0, 0] = rows
    patches[:, 0, -1, 0] = rows if mirrored_rows is None else mirrored_rows
    return patches


def test_a_rim_must_convince_both_nets():
    p = _verifier([[4.0, 4.0], [4.0, -4.0], [0.0, 0.0]]).probability(_numbered([0, 1, 2]))
    sure, vetoed = 1 / (1 + np.exp(-4.0)), np.sqrt(1 / (1 + np.exp(-4.0)) / (1 + np.exp(4.0)))
    np.testing.assert_allclose(p, [sure, vetoed, 0.5])
    assert p[1] < 0.2


def test_a_single_net_model_gives_its_own_probability():
    p = _verifier([[2.0], [-30.0]]).probability(_numbered([0, 1]))
    np.testing.assert_allclose(p, [1 / (1 + np.exp(-2.0)), 1 / (1 + np.exp(30.0))])


def test_a_doubtful_verdict_is_averaged_with_the_mirror_image_s():
    """Logits are averaged net by net; a verdict outside DOUBT is not asked again, however
    differently its mirror image would read."""
    assert DOUBT[0] < np.sqrt(_sigmoid(0.5) * _sigmoid(-1.0)) < DOUBT[1]
    verifier = _verifier([[0.5, -1.0], [3.0, 1.0], [9.0, 9.0], [-9.0, -9.0]])
    p = verifier.probability(_numbered([0, 2, 3], mirrored_rows=[1, 3, 2]))
    np.testing.assert_allclose(p, [np.sqrt(_sigmoid(1.75) * _sigmoid(0.0)), _sigmoid(9.0), _sigmoid(-9.0)])


def test_the_shipped_model_s_doubtful_verdicts_do_not_depend_on_which_way_the_rim_is_unrolled():
    """Rims half hidden on one side (a hand, a wall), whose two looks differ the most."""
    verifier = RimVerifier(SHIPPED_WEIGHTS)
    images = []
    for shade in range(0, 250, 10):
        image = _base(None, rim_bgr=(shade, shade, shade + 5))
        cv2.rectangle(image, (115, 60), (200, 200), (60 + shade // 2, 80, 70), -1)
        images.append(image)
    patches = np.stack([_patch(image) for image in images])
    mirrored = np.ascontiguousarray(patches[:, :, ::-1])
    p, p_mirrored = verifier.probability(patches), verifier.probability(mirrored)
    both = (p > DOUBT[0]) & (p < DOUBT[1]) & (p_mirrored > DOUBT[0]) & (p_mirrored < DOUBT[1])
    assert both.sum() >= 3
    np.testing.assert_allclose(p[both], p_mirrored[both], rtol=1e-5)
    single = combined_probability(verifier.session.run(["logits"], {"rims": patches})[0])
    assert np.abs(single[both] - p[both]).max() > 0.01


def test_a_model_without_a_ring_output_screens_with_all_its_nets():
    patches = _numbered([0, 1])
    verifier = _verifier([[4.0, -4.0], [1.0, 1.0]])
    np.testing.assert_allclose(verifier.ring_probability(patches), verifier.probability(patches))


def test_the_shipped_model_screens_with_its_ring_net_alone():
    """The screening session is the ring net cut from the model: the same logit the pair's
    first column gives, without running the middle net."""
    verifier = RimVerifier(SHIPPED_WEIGHTS)
    assert verifier.ring_session is not None
    weights = {w.name.split(".")[0] for w in onnx.load(SHIPPED_WEIGHTS).graph.initializer}
    assert weights == {"ring", "middle"}
    assert {w.name.split(".")[0] for w in ring_net(SHIPPED_WEIGHTS, "rims").graph.initializer} == {"ring"}
    plain = np.full((200, 200, 3), 90, np.uint8)
    patches = np.stack([_patch(_base(None)), _patch(_base((200, 40, 40))), _patch(plain)])
    logits = verifier.session.run(["logits"], {"rims": patches})[0]
    np.testing.assert_allclose(verifier.ring_probability(patches), 1 / (1 + np.exp(-logits[:, 0])), rtol=1e-5)
    assert len(verifier.ring_session.get_outputs()) == 1
    assert verifier.ring_probability(np.zeros((0, *PATCH_SHAPE), np.float32)).shape == (0,)


def test_many_rims_are_judged_in_batches_as_they_would_be_in_one_run():
    """Runs of BATCH keep onnxruntime's arena small; they must not change a verdict."""
    verifier = RimVerifier(SHIPPED_WEIGHTS)
    rng = np.random.default_rng(3)
    # Seven rims over and over: seven does not divide BATCH, so no two batches are alike.
    images = [_base(None, rim_bgr=tuple(int(c) for c in rng.integers(0, 255, 3))) for _ in range(7)]
    patches = np.stack([_patch(image) for image in images] * (2 * BATCH // 7 + 3))
    assert len(patches) > 2 * BATCH
    logits = verifier.session.run(["logits"], {"rims": patches})[0]
    ring = verifier.ring_session.run(None, {"rims": patches})[0]
    np.testing.assert_allclose(verifier.ring_probability(patches), combined_probability(ring), rtol=1e-6)
    first_look = combined_probability(logits)
    sure = (first_look <= DOUBT[0]) | (first_look >= DOUBT[1])
    np.testing.assert_allclose(verifier.probability(patches)[sure], first_look[sure], rtol=1e-6)


def _stamp(verifier: RimVerifier) -> str | None:
    return verifier.ring_session.get_modelmeta().custom_metadata_map.get(PAIR_DIGEST)


def test_the_ring_net_kept_beside_a_model_screens_only_for_that_model(tmp_path):
    """The shipped model comes with its ring net cut and kept; a copy without it, or with a
    ring net kept for another model or broken, cuts its own, and all screen alike."""
    shipped = RimVerifier(SHIPPED_WEIGHTS)
    assert ring_path(SHIPPED_WEIGHTS).is_file()
    assert _stamp(shipped) is not None  # the kept file: a net cut here carries no stamp
    plain = np.full((200, 200, 3), 90, np.uint8)
    patches = np.stack([_patch(_base(None)), _patch(_base((200, 40, 40))), _patch(plain)])
    expected = shipped.ring_probability(patches)

    copy = tmp_path / "copy.onnx"
    copy.write_bytes(SHIPPED_WEIGHTS.read_bytes())
    assert _stamp(RimVerifier(copy)) is None
    keep_ring_net(copy)
    assert _stamp(RimVerifier(copy)) == _stamp(shipped)

    other = onnx.load(SHIPPED_WEIGHTS)
    other.graph.initializer[0].raw_data = bytes(len(other.graph.initializer[0].raw_data))
    copy.write_bytes(other.SerializeToString())  # another model: the kept ring net is stale
    assert _stamp(RimVerifier(copy)) is None
    copy.write_bytes(SHIPPED_WEIGHTS.read_bytes())
    ring_path(copy).write_bytes(b"not a model")
    verifier = RimVerifier(copy)
    assert _stamp(verifier) is None
    np.testing.assert_allclose(verifier.ring_probability(patches), expected, rtol=1e-6)
