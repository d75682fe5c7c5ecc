#!/usr/bin/env bash
# Install or upgrade the smartboard daemon as a systemd service on a
# Raspberry Pi (Raspberry Pi OS Bookworm or later). Run it as root from the
# repository checkout:
#
#   sudo systemd/install.sh            # install/upgrade, enable, (re)start
#   sudo systemd/install.sh --no-start # install/upgrade and enable only
#
# Re-running it is safe: it upgrades the package in the venv, refreshes the
# unit file and restarts the service. It never overwrites an existing
# /etc/smartboard/config.toml.
#
# SPI (NeoPixel strip on GPIO10/MOSI) must be enabled in the firmware:
# `dtparam=spi=on` in /boot/firmware/config.txt, then reboot. This script
# only warns when /dev/spidev0.0 is missing.
set -euo pipefail

readonly SERVICE=smartboard
readonly SERVICE_USER=smartboard
readonly VENV=/opt/smartboard
readonly CONF_DIR=/etc/smartboard
readonly CONF_FILE=${CONF_DIR}/config.toml
readonly UNIT_DST=/etc/systemd/system/${SERVICE}.service
# Groups owning the device nodes the daemon uses (see smartboard.service).
readonly HW_GROUPS=(gpio spi video dialout)
# picamera2 needs Raspberry Pi OS's libcamera build, which is not on PyPI:
# it comes from apt and reaches the venv through --system-site-packages.
readonly APT_PACKAGES=(python3-venv python3-picamera2 python3-lgpio)

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]:-$0}")" && pwd)
REPO_DIR=$(dirname -- "$SCRIPT_DIR")
readonly SCRIPT_DIR REPO_DIR
readonly UNIT_SRC=${SCRIPT_DIR}/${SERVICE}.service
readonly CONF_SRC=${SCRIPT_DIR}/config.toml

info() { printf '==> %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
    printf 'ERROR: %s\n' "$*" >&2
    exit 1
}

usage() {
    cat <<EOF
Usage: sudo $0 [--no-start] [--help]

Install or upgrade smartboard as a systemd service on a Raspberry Pi.
Run as root from the repository checkout ($REPO_DIR).

Steps:
  1. apt-get install ${APT_PACKAGES[*]}
  2. create system user '$SERVICE_USER' (groups: those of ${HW_GROUPS[*]} that exist)
  3. create/refresh the venv $VENV (--system-site-packages, for picamera2)
  4. pip install --upgrade "${REPO_DIR}[pi]"
  5. copy config.toml to $CONF_FILE, only if that file does not exist yet
  6. install $UNIT_DST, systemctl daemon-reload, enable and (re)start

Options:
  --no-start  install and enable, but do not (re)start the service now
  -h, --help  show this help and exit

Local changes to the service belong in a drop-in (systemctl edit $SERVICE),
which survives re-running this script; $UNIT_DST itself is replaced.
EOF
}

start=1
for arg in "$@"; do
    case $arg in
        --no-start) start=0 ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            usage >&2
            printf 'ERROR: unknown option: %s\n' "$arg" >&2
            exit 2
            ;;
    esac
done

[[ $EUID -eq 0 ]] || die "must be run as root: sudo $0 $*"
[[ -d /run/systemd/system ]] || die "systemd is not running on this machine (is this the Pi?)"
[[ -f $REPO_DIR/pyproject.toml ]] || die "$REPO_DIR does not look like the smartboard checkout (no pyproject.toml)"
[[ -f $UNIT_SRC ]] || die "missing $UNIT_SRC"
[[ -f $CONF_SRC ]] || die "missing example config $CONF_SRC"

# Everything installed under /opt and /etc must be readable by the service
# user, whatever root's own umask is.
umask 022

stage_dir=$(mktemp -d)
tmp_unit=$(mktemp)
cleanup() { rm -rf -- "$stage_dir" "$tmp_unit"; }
trap cleanup EXIT

if [[ -r /proc/device-tree/model ]]; then
    model=$(tr -d '\0' </proc/device-tree/model || true)
    info "Machine: ${model}"
else
    warn "this does not look like a Raspberry Pi; hardware access will not work"
fi

# --- 1. system packages -------------------------------------------------
info "Installing apt packages: ${APT_PACKAGES[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# --no-install-recommends keeps picamera2's GUI preview stack (Qt, OpenGL)
# off a headless table.
apt-get install -y -q --no-install-recommends "${APT_PACKAGES[@]}" \
    || die "apt-get failed; python3-picamera2 is only in the Raspberry Pi OS archive"

# --- 2. service user ----------------------------------------------------
present_groups=()
for group in "${HW_GROUPS[@]}"; do
    if getent group "$group" >/dev/null; then
        present_groups+=("$group")
    else
        warn "group '$group' does not exist: the matching hardware will not be accessible"
    fi
done
group_csv=$(
    IFS=,
    printf '%s' "${present_groups[*]}"
)

if getent passwd "$SERVICE_USER" >/dev/null; then
    info "User '$SERVICE_USER' exists"
else
    info "Creating system user '$SERVICE_USER'"
    # Home = the StateDirectory, so libraries that write to ~ stay inside
    # the one writable place. No login shell.
    useradd --system --user-group \
        --home-dir "/var/lib/$SERVICE_USER" --no-create-home \
        --shell /usr/sbin/nologin \
        --comment "smartboard games-table daemon" \
        "$SERVICE_USER"
fi
if ((${#present_groups[@]})); then
    info "Adding '$SERVICE_USER' to groups: $group_csv"
    usermod --append --groups "$group_csv" "$SERVICE_USER"
fi

# --- 3. virtualenv ------------------------------------------------------
venv_cfg=$VENV/pyvenv.cfg
if [[ ! -x $VENV/bin/python ]]; then
    info "Creating venv $VENV (with system site-packages for picamera2/libcamera)"
    python3 -m venv --system-site-packages "$VENV"
elif ! grep -Eq '^include-system-site-packages *= *true' "$venv_cfg"; then
    # An isolated venv cannot import picamera2/libcamera from apt.
    info "Re-enabling system site-packages in existing venv $VENV"
    python3 -m venv --system-site-packages "$VENV"
else
    info "Reusing venv $VENV"
fi

# --- 4. the package -----------------------------------------------------
# Build from a scratch copy: an in-tree build as root would leave
# root-owned build/ and *.egg-info directories in the user's checkout.
# .git is kept so VCS-derived versions still work.
info "Installing smartboard from $REPO_DIR with the [pi] extra"
tar -C "$REPO_DIR" -cf - \
    --exclude=./build --exclude=./dist --exclude='*.egg-info' \
    --exclude=./.venv --exclude=./venv --exclude=__pycache__ \
    --exclude=.pytest_cache --exclude=.mypy_cache --exclude=.tox . \
    | tar -C "$stage_dir" -xf -
"$VENV/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip
# --upgrade: re-running the script reinstalls the package (and pulls newer
# dependencies only where the requirements demand it).
"$VENV/bin/python" -m pip install --disable-pip-version-check --upgrade "${stage_dir}[pi]"
[[ -x $VENV/bin/smartboard ]] || die "pip did not install the 'smartboard' console script into $VENV/bin"

# --- 5. configuration ---------------------------------------------------
install -d -m 0755 -o root -g root "$CONF_DIR"
if [[ -e $CONF_FILE ]]; then
    info "Keeping existing $CONF_FILE (example config is $CONF_SRC)"
else
    info "Installing example config to $CONF_FILE"
    # Readable by the daemon's group only: it may hold dashboard secrets.
    install -m 0640 -o root -g "$SERVICE_USER" "$CONF_SRC" "$CONF_FILE"
fi

# --- 6. unit file -------------------------------------------------------
# SupplementaryGroups= naming a group that does not exist makes the unit
# fail to start, so install the unit with only the groups present here.
if ((${#present_groups[@]})); then
    sed "s/^SupplementaryGroups=.*/SupplementaryGroups=${present_groups[*]}/" "$UNIT_SRC" >"$tmp_unit"
else
    sed 's/^SupplementaryGroups=/#SupplementaryGroups=/' "$UNIT_SRC" >"$tmp_unit"
fi
if [[ -f $UNIT_DST ]] && cmp -s "$tmp_unit" "$UNIT_DST"; then
    info "Unit $UNIT_DST is up to date"
else
    info "Installing unit $UNIT_DST"
    install -m 0644 -o root -g root "$tmp_unit" "$UNIT_DST"
fi
systemctl daemon-reload

if [[ ! -e /dev/spidev0.0 ]]; then
    warn "/dev/spidev0.0 is missing, so the NeoPixel LEDs will not work."
    warn "Enable SPI: add 'dtparam=spi=on' to /boot/firmware/config.txt (or run"
    warn "'raspi-config nonint do_spi 0') and reboot."
fi

systemctl enable "$SERVICE" >/dev/null
if ((start)); then
    # restart, not start: after an upgrade the running daemon must pick up
    # the new code. With Type=notify this waits for READY=1.
    info "Starting $SERVICE (waits until the hardware is open)"
    if ! systemctl restart "$SERVICE"; then
        systemctl --no-pager status "$SERVICE" >&2 || true
        die "$SERVICE failed to start; see: journalctl -u $SERVICE -b"
    fi
    state=$(systemctl is-active "$SERVICE" || true)
    info "$SERVICE is ${state}. Logs: journalctl -u $SERVICE -f"
else
    info "$SERVICE is enabled but was not (re)started (--no-start)."
    info "Edit $CONF_FILE, then: systemctl restart $SERVICE"
fi
