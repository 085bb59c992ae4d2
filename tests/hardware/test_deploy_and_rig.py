from __future__ import annotations

import configparser
import math
import subprocess
from pathlib import Path

import pytest

from hardware.rig import CAMERAS, TABLES_CM

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_install_script_is_valid_bash_and_uses_apt_picamera2_in_a_system_site_venv() -> None:
    script = DEPLOY / "install-pi.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text()
    assert "apt-get install -y --no-install-recommends python3-picamera2" in text
    assert "python3 -m venv --system-site-packages" in text
    assert 'pip" install "$REPO_DIR"' in text


def test_install_script_refuses_to_run_without_root() -> None:
    if Path("/proc/self").stat().st_uid == 0:
        result = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                 "bash", str(DEPLOY / "install-pi.sh")], capture_output=True, text=True)
    else:
        result = subprocess.run(["bash", str(DEPLOY / "install-pi.sh")], capture_output=True, text=True)
    assert result.returncode == 2 and "Run it with sudo" in result.stderr


def test_service_serves_the_pi_camera_and_always_restarts() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read(DEPLOY / "tablesight.service")
    service = unit["Service"]
    assert service["ExecStart"].startswith("/opt/tablesight/venv/bin/tablesight serve --source picamera2")
    assert service["Restart"] == "always"
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"
    assert "video" in service["SupplementaryGroups"]


@pytest.mark.parametrize("camera", list(CAMERAS.values()), ids=list(CAMERAS))
@pytest.mark.parametrize("table", TABLES_CM, ids=[f"{w:g}x{d:g}" for w, d in TABLES_CM])
def test_at_the_recommended_height_the_table_just_fits(camera, table) -> None:
    height = camera.height_cm(table, margin=1.1)
    seen_w = 2 * height * math.tan(math.radians(camera.hfov_deg) / 2)
    seen_h = 2 * height * math.tan(math.radians(camera.vfov_deg) / 2)
    assert seen_w >= max(table) * 1.1 - 1e-9 and seen_h >= min(table) * 1.1 - 1e-9
    assert math.isclose(seen_w, max(table) * 1.1) or math.isclose(seen_h, min(table) * 1.1)


def test_hq_camera_with_6mm_lens_field_of_view() -> None:
    hq = CAMERAS["hq-6mm"]
    assert hq.hfov_deg == pytest.approx(55.3, abs=0.1) and hq.vfov_deg == pytest.approx(42.9, abs=0.1)
