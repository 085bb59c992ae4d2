"""Replay reports kept by recording: a recording changed since (the rig's own game, still being
written, or one copied again) is loaded again, and its new report takes the old one's place in the
few kept, rather than pushing another game's out with a version no phone can be shown again."""

from __future__ import annotations

import os

from tests.webui.test_recordings_load_72 import BIG, SMALL, counting_client


def test_a_recording_changed_takes_its_old_reports_place(session, recordings_dir):
    client, calls = counting_client(session, recordings_dir, {"REPLAY_REPORTS_KEPT": 2})
    assert client.get(f"/api/recordings/{BIG}").status_code == 200
    assert client.get(f"/api/recordings/{SMALL}").status_code == 200
    written = (recordings_dir / SMALL).stat().st_mtime
    os.utime(recordings_dir / SMALL, (written + 10, written + 10))  # more of the game written
    assert client.get(f"/api/recordings/{SMALL}").status_code == 200
    assert client.get(f"/api/recordings/{BIG}").status_code == 200
    assert calls == [BIG, SMALL, SMALL]  # BIG was kept: two reports of SMALL pushed it out
