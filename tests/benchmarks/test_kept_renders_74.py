"""The detection benchmark's `--renders DIR`: a table rendered once is read back, not traced again."""

from __future__ import annotations

from benchmarks.detection import kept_renders


def test_a_kept_frame_is_read_back_and_another_seed_rendered(tmp_path):
    calls = []

    def render(scene, camera, seed):
        calls.append(seed)
        return {"seed": seed, "image": [seed] * 3}

    kept = kept_renders(render, tmp_path / "renders", "physical-16_rig")
    assert kept("scene", "camera", 7) == {"seed": 7, "image": [7] * 3}
    again = kept_renders(render, tmp_path / "renders", "physical-16_rig")
    assert again("scene", "camera", 7) == {"seed": 7, "image": [7] * 3}
    assert again("scene", "camera", 8)["seed"] == 8
    assert calls == [7, 8]
    assert kept_renders(render, tmp_path / "renders", "physical-16_tilted")("scene", "camera", 7)["seed"] == 7
    assert calls == [7, 8, 7]
