#!/usr/bin/env bash
# Install tablesight on Raspberry Pi OS (Bookworm or later, 64-bit) as a service started at boot.
#
#   sudo deploy/install-pi.sh            # install, then start the service
#   sudo deploy/install-pi.sh --no-start # install only (e.g. to run `tablesight doctor` first)
#
# picamera2 only comes from apt (it is built against the Pi's libcamera), so the venv is made
# with --system-site-packages to see it; everything else comes from `pip install .`.
set -euo pipefail

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=/opt/tablesight
DATA=/var/lib/tablesight
SETTINGS=/etc/default/tablesight
START=1

for arg in "$@"; do
    case "$arg" in
        --no-start) START=0 ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) echo "install-pi.sh: unknown option $arg. Use --no-start or --help." >&2; exit 2 ;;
    esac
done

if [ "$(id -u)" -ne 0 ]; then
    echo "install-pi.sh: needs root to install packages and the service. Run it with sudo." >&2
    exit 2
fi
if ! grep -qi -e raspbian -e debian /etc/os-release 2>/dev/null; then
    echo "install-pi.sh: this is for Raspberry Pi OS. On a laptop use: pip install . (and --source camera:0)." >&2
    exit 2
fi

echo "== System packages (picamera2, venv, camera tools)"
apt-get update
apt-get install -y --no-install-recommends python3-picamera2 python3-venv python3-pip rpicam-apps-lite

echo "== Service user 'tablesight' (in group video, for the camera)"
if ! id tablesight >/dev/null 2>&1; then
    useradd --system --home-dir "$DATA" --shell /usr/sbin/nologin --groups video tablesight
fi
install -d -o tablesight -g tablesight "$DATA" "$DATA/recordings"

echo "== Python environment in $PREFIX/venv"
install -d "$PREFIX"
python3 -m venv --system-site-packages "$PREFIX/venv"
"$PREFIX/venv/bin/pip" install --upgrade pip
"$PREFIX/venv/bin/pip" install "$REPO_DIR"
install -d "$PREFIX/docs"
install -m 644 "$REPO_DIR/README.md" "$PREFIX/docs/README.md"

# pip may bring a newer numpy than the one apt's simplejpeg (used by picamera2) was built for.
if ! "$PREFIX/venv/bin/python" -c "import picamera2" 2>/dev/null; then
    echo "== picamera2 does not load with the venv's numpy; rebuilding simplejpeg for it"
    "$PREFIX/venv/bin/pip" install --force-reinstall --no-deps simplejpeg
    "$PREFIX/venv/bin/python" -c "import picamera2"
fi

echo "== Settings in $SETTINGS"
if [ ! -f "$SETTINGS" ]; then
    PIN=$(shuf -i 1000-9999 -n 1)
    cat > "$SETTINGS" <<SETTINGS_EOF
# Extra arguments for \`tablesight serve\` (see \`tablesight serve --help\`), e.g.
#   --layout /var/lib/tablesight/layout.json --ruleset world-at-fire
#   --intrinsics /var/lib/tablesight/cam.json --size 2304x1296   (a lens calibration; the binned mode)
# The table PIN, read from the environment so it never shows in \`ps\`.
TABLESIGHT_PIN=$PIN
TABLESIGHT_ARGS="--recordings $DATA/recordings"
SETTINGS_EOF
    chmod 640 "$SETTINGS"
    chgrp tablesight "$SETTINGS"
    echo "   table PIN: $PIN (change it in $SETTINGS)"
fi

echo "== systemd unit"
install -m 644 "$REPO_DIR/deploy/tablesight.service" /etc/systemd/system/tablesight.service
systemctl daemon-reload
systemctl enable tablesight.service

echo "== Checking the rig"
systemctl stop tablesight.service 2>/dev/null || true
(cd "$DATA" && runuser -u tablesight -- "$PREFIX/venv/bin/tablesight" doctor --source picamera2) || true

if [ "$START" -eq 1 ]; then
    systemctl restart tablesight.service
    ADDRESS=$(hostname -I | awk '{print $1}')
    echo "tablesight is running: open http://$ADDRESS:8080 on a phone on this network."
    echo "Logs: journalctl -u tablesight -f"
else
    echo "Installed. Start it with: sudo systemctl start tablesight"
fi
