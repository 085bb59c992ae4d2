"""The last step for each accepted base: where its whole picture says the centre lies.

The rim fit places a base by the edges its rays find. Where the rim hardly shows (a base
flocked like its mat, blur, a dim room) it settles on the edges that are there: the base's
shadow, the miniature's outline, the wall band on the near side. On the 30 path-traced hard
validation tables it settled 0.78 mm (median; P95 1.99) from the truth even when started on
the truth, and 1.23 mm (P95 3.96) from its real starts, leaning 0.49 mm towards the shadows.
A small CNN reads the verifier's polar view of the settled rim (`models/verifier.py`: the
rim, its shadow and the figure standing in the middle at once) and says how far and which way
the true centre lies; trained on views cut a few millimetres off the truth of the verifier's
training tables (`models/centring_training.py`), it answers the same for a rim found anywhere.

Its answer is in the view's own frame: along ray 0 (away from the camera's nadir) and along the
ray a quarter turn on, in base radii, so it means the same for either size class and anywhere
on the table. Runs with onnxruntime; torch is only needed to train it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.verifier import PATCH_SHAPE, RAYS, WRAP, batched_output, checked_session, rim_patches

SHIPPED_CENTRING = Path(__file__).parent / "weights" / "base_centring.onnx"
OUTPUT = "offset"
# The view's rows mirrored about ray 0 (row r shows the ray at angle r - WRAP): a base seen in
# a mirror is a base, and its offset across the rays changes sign. The runtime averages both
# looks; training mirrors half its views.
MIRRORED_ROWS = (-(np.arange(RAYS + 2 * WRAP) - WRAP)) % RAYS + WRAP
# A base the net moved farther than this is looked at again from where it landed: the net is
# surest near a centre (held out: 0.25 mm median from starts within 1 mm, 0.31 from all). On the
# validation tables (path-traced 300,000+ and 350,000+, painted 20,000+ and 70,000+) one look gave
# median / P95 0.26 / 0.62, 0.58 / 2.28, 0.19 / 0.50 and 0.32 / 0.99 mm; a second look for every
# base 0.27 / 0.67, 0.53 / 1.82, 0.21 / 0.58 and 0.34 / 0.97; a second for those moved past 1 mm
# 0.26 / 0.62, 0.54 / 1.85, 0.19 / 0.49 and 0.32 / 0.96.
SECOND_LOOK_MM = 1.0
# ... and again while a look still moves it that far, up to this many looks: a rim settled on a
# figure or a shadow 8-14 mm off its base comes part of the way each look (as the base map's
# peaks do, `SecondLooks.mapped`). Eight validation sets (with the map's peaks followed):
# two looks at most 4,946 bases and 54 false rims, three 4,950 / 51, four 4,952 / 50, six
# 4,952 / 49; medians within 0.003 mm, painted hard 76,000+ P95 1.33 -> 1.26 mm.
MOST_LOOKS = 4


def patch_axes(centres_px: np.ndarray, nadir_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, 2) unit vectors along each view's ray 0 (away from the nadir) and a quarter turn on,
    the way `rim_patches` lays its rays out."""
    away = np.asarray(centres_px, np.float64).reshape(-1, 2) - nadir_px
    along = away / np.maximum(np.linalg.norm(away, axis=1, keepdims=True), 1e-9)
    return along, np.stack([-along[:, 1], along[:, 0]], axis=1)


def in_patch_frame(
    offsets_px: np.ndarray, centres_px: np.ndarray, nadir_px: np.ndarray, radius_px: np.ndarray
) -> np.ndarray:
    """Image offsets (n, 2) from each view's centre as the net states them: (along, across) in radii."""
    along, across = patch_axes(centres_px, nadir_px)
    return np.stack([np.sum(offsets_px * along, 1), np.sum(offsets_px * across, 1)], 1) / radius_px[:, None]


def in_image(
    offsets: np.ndarray, centres_px: np.ndarray, nadir_px: np.ndarray, radius_px: np.ndarray
) -> np.ndarray:
    """The net's (n, 2) offsets back in image pixels: the inverse of `in_patch_frame`."""
    along, across = patch_axes(centres_px, nadir_px)
    return (offsets[:, :1] * along + offsets[:, 1:] * across) * radius_px[:, None]


class Centring:
    """An ONNX model mapping rim views (n, *PATCH_SHAPE) to (n, 2) offsets of the true centre."""

    def __init__(self, path: str | Path) -> None:
        self.session, self.input = checked_session(path, PATCH_SHAPE, OUTPUT, "base-centring")

    def offsets(self, patches: np.ndarray) -> np.ndarray:
        """(n, 2) offsets in radii, each the mean of the view's and its mirror image's answer."""
        if not len(patches):
            return np.zeros((0, 2))
        both = np.concatenate([patches, np.ascontiguousarray(patches[:, :, MIRRORED_ROWS])])
        answer = batched_output(self.session, None, self.input, both).astype(np.float64)
        first, mirrored = answer[: len(patches)], answer[len(patches) :]
        return (first + mirrored * [1.0, -1.0]) / 2

    def centred(
        self,
        image: np.ndarray,
        centres_px: np.ndarray,
        radius_px: np.ndarray,
        nadir_px: np.ndarray,
        diameter_mm: np.ndarray,
        px_per_mm: float,
    ) -> np.ndarray:
        """(n, 2) centres moved where the net says the bases' true centres lie; `radius_px` is
        each size class's nominal radius, as the net learned the views."""
        return self.followed(
            image, centres_px, radius_px, nadir_px, diameter_mm, MOST_LOOKS, SECOND_LOOK_MM * px_per_mm
        )

    def followed(
        self, image: np.ndarray, centres_px: np.ndarray, radius_px: np.ndarray, nadir_px: np.ndarray,
        diameter_mm: np.ndarray, looks: int, still_px: float = 0.0,
    ) -> np.ndarray:
        """(n, 2) centres after up to `looks` looks, each from where the last one landed, at the
        bases the last look still moved farther than `still_px`: from farther off than the net
        learned (5 mm) a look comes part of the way, and the next from nearer."""
        centres = np.asarray(centres_px, np.float64).reshape(-1, 2)
        radius, diameter = np.asarray(radius_px, np.float64), np.asarray(diameter_mm, np.float64)
        moving = np.ones(len(centres), bool)
        for _ in range(looks):
            if not moving.any():
                break
            again = centres.copy()
            at = centres[moving]
            again[moving] = self._looked_at(image, at, radius[moving], nadir_px, diameter[moving])
            moving &= np.linalg.norm(again - centres, axis=1) > still_px
            centres = again
        return centres

    def _looked_at(
        self,
        image: np.ndarray,
        centres: np.ndarray,
        radius: np.ndarray,
        nadir_px: np.ndarray,
        diameter: np.ndarray,
    ) -> np.ndarray:
        patches = rim_patches(image, centres, radius, nadir_px, diameter)
        return centres + in_image(self.offsets(patches), centres, nadir_px, radius)
