"""Review of session 74: `_judging_camera` counts the markers it saw, not the ones its
homography was fitted to. With one marker nudged 2 cm the judging fit keeps three, yet its focal
length is read off them as off four (MIN_MARKERS_FOR_FOCAL is there to stop exactly that)."""

from __future__ import annotations

import numpy as np

import calibration.table as table_module
from calibration.layout import default_layout
from tests.calibration.test_fault_markers import START, camera, photo


def test_the_judging_camera_counts_the_markers_its_fit_kept(monkeypatch):
    layout = default_layout("183x122")
    markers = layout.markers_as_synthetic()
    markers[1].corners_cm[:] = markers[1].corners_cm + np.array([2.0, 0.0])
    image = photo(layout, camera(layout), START, markers=markers)
    counted = []
    real = table_module.focal_or_assumed

    def counting(table_to_image, size, count):
        counted.append(count)
        return real(table_to_image, size, count)

    monkeypatch.setattr(table_module, "focal_or_assumed", counting)
    sighting = table_module.find_markers(image, layout, "lines", None)
    fit = table_module._fit(sighting.corners, layout)
    assert len(fit.used_ids) == 3  # marker 1 is judged off
    table_module._judging_camera(sighting.corners, layout, None, image.shape[1::-1])
    assert counted == [len(fit.used_ids)]
