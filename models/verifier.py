"""The learned step: is this fitted rim a base, or mat texture, a coin, a printed circle?

Hand-set thresholds on edge coverage and contrast cannot separate a green-on-green flocked base
from grass blotches. Small CNNs can, if they look at the right thing: the disc unrolled into
polar coordinates around the fitted centre (rays x radius), so every base, whatever its size
class or place on the table, becomes the same picture. Ray 0 points away from the camera's
nadir, so parallax (the top rim pushed outward on the far side) always appears in the same rows.

Two nets judge each rim, and a rim must convince both (the geometric mean of their
probabilities). The ring net sees the ring alone, where a base differs from its surroundings.
The middle net also sees the disc's middle, where the miniature stands: a printed circle or a
token has a plain middle. Either alone let through rims the other rejects (validation, six
sets, 3,897 bases: a ring net alone found 3,530 with 46 false rims, a middle net alone 3,546
with 34 and took a printed road line crossing a disc for a figure; the pair 3,557 with 36, or
3,540 with 27 at a higher bar, and its ring net vetoes that road line).
Both read the one patch: the ring net its last RING_SAMPLES radii and first four channels.
The ring net alone screens the rough first fit of every candidate; the pair judges the few
that survive the full fit. Runs with onnxruntime (and onnx, to cut the ring net out of the
graph); torch is only needed to train it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

RAYS = 48
WRAP = 4  # rays repeated at each end so convolutions see the ring as closed
MIDDLE_SAMPLES = 8  # from the centre out to INNER: where the miniature stands
RING_SAMPLES = 24  # from INNER to OUTER: the base's edge, its shadow and the mat around
INNER, OUTER = 0.55, 1.45  # in units of the base radius
FRACTIONS = np.concatenate(
    [np.linspace(0.0, INNER, MIDDLE_SAMPLES, endpoint=False), np.linspace(INNER, OUTER, RING_SAMPLES)]
)
# B, G, R normalised; the size class; each sample's radius. The nets' convolutions, pooled over
# the whole patch, are blind to where a feature is: without the radius the middle net could
# not tell a figure in the middle from clutter outside the rim (it measured no better than the
# ring net alone).
SIZE_CHANNEL, RADIUS_CHANNEL = 3, 4
CHANNELS = 5
RING_CHANNELS = RADIUS_CHANNEL  # all but the radius: the ring net sees the ring alone
PATCH_SHAPE = (CHANNELS, RAYS + 2 * WRAP, MIDDLE_SAMPLES + RING_SAMPLES)
RING_OUTPUT = "ring"  # the model's second output: the ring net's logit, for screening
PAIR_DIGEST = "pair_sha256"  # a kept ring net's stamp: the digest of the model it was cut from
# The pair's verdicts between these are asked again of the rim's mirror image (see
# `verdict`). Asking every rim twice found the same bases on the six validation
# sets: outside these a second look turned no verdict.
DOUBT = (0.01, 0.99)
# Patches per onnxruntime run. Its memory arena keeps the largest run's activations: the ~400
# rough rims of a frame in one run held ~75 MB more for the process's life (peak 209 against
# 134 MB), for no speed (25 ms a frame either way); runs of 64 give the same logits.
BATCH = 64


def polar_view(
    image: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    angles: np.ndarray,
    fractions: np.ndarray,
) -> np.ndarray:
    """(n, K, S, 3) colours along K rays per disc (`angles` (n, K)), at `fractions` of its radius.

    In the image's own type: the callers convert once, where they lay the samples out.
    Coordinates are float32: remap quantises them to 1/32 px anyway.
    """
    n = len(centres_px)
    rho = (radius_px[:, None] * fractions[None]).astype(np.float32)  # (n, S)
    cx, cy = np.asarray(centres_px, np.float32).T
    mx = cx[:, None, None] + np.cos(angles).astype(np.float32)[..., None] * rho[:, None, :]
    my = cy[:, None, None] + np.sin(angles).astype(np.float32)[..., None] * rho[:, None, :]
    polar = cv2.remap(
        image, mx.reshape(n, -1), my.reshape(n, -1), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return polar.reshape(n, angles.shape[1], len(fractions), 3)


def rim_patches(
    image: np.ndarray,
    centres_px: np.ndarray,
    radius_px: np.ndarray,
    nadir_px: np.ndarray,
    diameter_mm: np.ndarray,
) -> np.ndarray:
    """(n, *PATCH_SHAPE) float32 polar views of each candidate rim.

    Colours are normalised by the ring's alone, so the ring net's part of the patch does not
    change with whatever stands in the middle.
    """
    n = len(centres_px)
    if n == 0:
        return np.zeros((0, *PATCH_SHAPE), np.float32)
    away = centres_px - nadir_px
    start = np.arctan2(away[:, 1], away[:, 0])
    # The wrapped rays are sampled again rather than copied, so the patch is built in place.
    angles = start[:, None] + np.arange(-WRAP, RAYS + WRAP)[None] * (2 * np.pi / RAYS)  # (n, K)
    out = np.empty((n, *PATCH_SHAPE), np.float32)
    # Laid out as channel planes first: numpy reduces the contiguous (ray, radius) planes
    # several times faster than a strided view, and the screening patches every rough rim.
    colours = out[:, :3]
    colours[...] = polar_view(image, centres_px, radius_px, angles, FRACTIONS).transpose(0, 3, 1, 2)
    ring = colours[:, :, WRAP:-WRAP, MIDDLE_SAMPLES:]
    channel_mean = ring.mean(axis=(2, 3), keepdims=True)
    colours -= channel_mean
    # The ring's spread over all channels: within each channel plus between the channels' means.
    within = np.einsum("ncrs,ncrs->n", ring, ring) / ring[0].size
    between = channel_mean.reshape(n, 3).var(axis=1)
    colours /= (np.sqrt(within + between) + 8.0)[:, None, None, None]
    out[:, SIZE_CHANNEL] = np.where(diameter_mm > 50, 1.0, -1.0)[:, None, None]
    out[:, RADIUS_CHANNEL] = FRACTIONS - 1.0
    return out


def ring_part(patches):
    """The ring net's view of patches (one or a batch; numpy array or torch tensor)."""
    return patches[..., :RING_CHANNELS, :, MIDDLE_SAMPLES:]


def combined_probability(logits: np.ndarray) -> np.ndarray:
    """(n,) the geometric mean of the nets' probabilities, from (n, nets) logits: one look's
    verdict."""
    logits = np.asarray(logits, np.float64).reshape(len(logits), -1)
    return np.exp(-np.logaddexp(0.0, -logits).mean(axis=1))


def verdict(
    logits: np.ndarray, patches: np.ndarray, logits_of: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """(n,) the probability a rim must reach from the first look's (n, nets) `logits` at
    `patches`: the pair's, averaged (in logits, net by net) with its verdict on the mirror image
    where the first look doubts.

    The nets learned mirror images as bases too (training mirrors half its batches), so the
    two looks are equally valid, and where they differ the verdict hangs on which way round
    the rim was unrolled, noise that the average evens out. Only doubtful rims get the second
    look, which keeps its cost within this machine's timing noise (10 hard validation frames;
    asking every rim twice cost the verify stage ~11 ms a frame). `logits_of` maps patches to
    logits for the second look: the runtime's onnxruntime session or, for training's held-out
    report, the torch nets, so both judge by the same rule.
    """
    logits = np.array(logits, np.float64).reshape(len(patches), -1)  # a copy: the caller keeps its own
    p = combined_probability(logits)
    doubtful = np.nonzero((p > DOUBT[0]) & (p < DOUBT[1]))[0]
    if len(doubtful):
        mirrored = np.ascontiguousarray(patches[doubtful, :, ::-1])
        second = np.asarray(logits_of(mirrored), np.float64).reshape(len(doubtful), -1)
        logits[doubtful] = (logits[doubtful] + second) / 2
        p[doubtful] = combined_probability(logits[doubtful])
    return p


class RimVerifier:
    """An ONNX model mapping polar rim views to one logit per net; a base needs all of them.

    A model that also names its ring net's logit (`RING_OUTPUT`, as `tablesight train` exports
    it) screens with the ring net alone: onnxruntime runs every node of a graph whatever
    outputs are asked for, so the screening gets its own session cut from the model (the ring
    net at half the cost of the pair, for the ~350 rough rims of a frame).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.session = cpu_session(str(path))
        self.input = self.session.get_inputs()[0].name
        shape = self.session.get_inputs()[0].shape
        if tuple(shape[1:]) != PATCH_SHAPE:
            raise ValueError(f"expects input {shape}, not a rim verifier")
        self.output = self.session.get_outputs()[0].name
        outputs = {o.name for o in self.session.get_outputs()}
        self.ring_session = None
        if RING_OUTPUT in outputs:
            self.ring_session = _kept_ring_session(self.path) or cpu_session(
                ring_net(self.path, self.input).SerializeToString()
            )

    def probability(self, patches: np.ndarray) -> np.ndarray:
        if not len(patches):
            return np.zeros(0)
        return verdict(self._logits(patches), patches, self._logits)

    def _logits(self, patches: np.ndarray) -> np.ndarray:
        return batched_output(self.session, [self.output], self.input, patches)

    def ring_probability(self, patches: np.ndarray) -> np.ndarray:
        """The ring net's probability alone (the pair's, for a model without a ring output)."""
        if self.ring_session is None:
            return self.probability(patches)
        if not len(patches):
            return np.zeros(0)
        return combined_probability(batched_output(self.ring_session, None, self.input, patches))


def batched_output(session, outputs: list[str] | None, input_name: str, patches: np.ndarray) -> np.ndarray:
    """The session's first output for `patches`, BATCH at a time (the centring net's runs too)."""
    return np.concatenate(
        [session.run(outputs, {input_name: patches[i : i + BATCH]})[0] for i in range(0, len(patches), BATCH)]
    )


def ring_net(path: Path, input_name: str):
    """The part of the model's graph that its ring output needs: the ring net alone."""
    import onnx

    return onnx.utils.Extractor(onnx.load(path)).extract_model([input_name], [RING_OUTPUT])


def ring_path(model: Path) -> Path:
    """Where the ring net cut from `model` is kept, beside it."""
    return model.with_name(f"{model.stem}.ring.onnx")


def keep_ring_net(model: Path) -> Path:
    """Cut the ring net from `model` and keep it beside it, stamped with the model's digest.

    Cutting it at load imports onnx and walks the graph: ~0.25 s of every command's start
    (a third of `tablesight detect`'s imports). `tablesight train` keeps it with each model.
    """
    import onnx

    ring = ring_net(model, onnx.load(model).graph.input[0].name)
    stamp = ring.metadata_props.add()
    stamp.key, stamp.value = PAIR_DIGEST, _digest(model)
    path = ring_path(model)
    path.write_bytes(ring.SerializeToString())
    return path


def _kept_ring_session(model: Path):
    """A session on the ring net kept beside `model`, or None when there is none or it was cut
    from another model (then the caller cuts its own)."""
    path = ring_path(model)
    if not path.is_file():
        return None
    try:
        session = cpu_session(str(path))
    except Exception:  # onnxruntime's own exception types: an unreadable file is no kept net
        return None
    if session.get_modelmeta().custom_metadata_map.get(PAIR_DIGEST) != _digest(model):
        return None
    return session


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def checked_session(path: str | Path, shape: tuple[int, ...], output: str, kind: str):
    """A `cpu_session` and its input's name, for a net taking (n, *shape) and giving the one
    output `output` (the centring net, the hull fit); another model in its file is refused as
    not a `kind` model, before it could answer nonsense."""
    session = cpu_session(str(path))
    given = tuple(session.get_inputs()[0].shape[1:])
    outputs = [o.name for o in session.get_outputs()]
    if given != shape or outputs != [output]:
        raise ValueError(f"takes {given} and gives {outputs}: not a {kind} model")
    return session, session.get_inputs()[0].name


def cpu_session(model: str | bytes):
    """An onnxruntime session on the CPU, from a model's path or its bytes: the detector's
    every net (the pair, the ring net, the base map) runs in one of these."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    # Several sessions, each with its own threads: spinning, one's idle threads would take the
    # cores from another's work (and from OpenCV's), and the verify stage ran 40 % slower.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
