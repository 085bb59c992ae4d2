"""Review of session 74: `--renders DIR` keys a kept table by its seed alone, but the clean and
the hard set draw different tables and cameras from one seed (`random_scene(hard=...)`, the hard
set's wide lens), and `--first-seed 50000` makes a clean seed one a default run used for the hard
set: the hard table comes back for the clean one, scored against the clean camera's lens."""

from __future__ import annotations

import numpy as np

from benchmarks.detection import kept_renders
from models.synth.scene import PLACEMENTS, random_camera, random_scene


def drawn(seed: int, hard: bool):
    """As `benchmarks.detection.run` draws a set's table and camera."""
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, hard=hard, table="183x122", light="overhead")
    wide = hard and rng.random() < 0.3
    camera = random_camera(rng, scene.table_cm, sensor="cm3-binned", wide=wide, placement=PLACEMENTS["rig"])
    return scene, camera


def test_a_kept_table_is_not_served_for_another_table_of_the_same_seed(tmp_path):
    hard_scene, hard_camera = drawn(50_000, hard=True)  # a default run's hard set
    clean_scene, clean_camera = drawn(50_000, hard=False)  # --first-seed 50000's clean set
    assert not np.allclose(hard_camera.centre_cm, clean_camera.centre_cm)

    def render(scene, camera, seed):
        return camera.centre_cm.copy()

    tag = "physical-16_rig_overhead_183x122_cm3-binned"
    kept_renders(render, tmp_path, tag)(hard_scene, hard_camera, 50_000)
    again = kept_renders(render, tmp_path, tag)(clean_scene, clean_camera, 50_000)
    assert np.allclose(again, clean_camera.centre_cm)
