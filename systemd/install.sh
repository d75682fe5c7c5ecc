#!/usr/bin/env bash
# Install or upgrade the smartboard daemon as a systemd service on a
# Raspberry Pi (Raspberry Pi OS Bookworm or later). Run it with sudo from
# your own account, in the repository checkout:
#
#   sudo systemd/install.sh            # install/upgrade, enable, (re)start
#   sudo systemd/install.sh --no-start # install/upgrade and enable only
#   systemd/install.sh --dry-run       # print each step and who runs it
#
# Root does only what needs root: apt, the service's user and group, the
# directories under /opt and /etc, the link in /usr/local/bin, the unit and
# systemctl. The venv, pip and
# the build of the checkout run as the invoking user ($SUDO_USER, else the
# owner of the checkout), never as root unless --build-as-root says so: a
# package's build code then never runs with root's rights.
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
# The command for people: the venv's bin is on no one's PATH, /usr/local/bin is.
readonly CLI_LINK=/usr/local/bin/smartboard
# Groups owning the device nodes the daemon uses (see smartboard.service).
readonly HW_GROUPS=(gpio spi video dialout)
# picamera2 needs Raspberry Pi OS's libcamera build, which is not on PyPI:
# it comes from apt and reaches the venv through --system-site-packages. gcc and the
# headers let pip compile the rules (setup.py: mypyc), twice as fast as their source.
readonly APT_PACKAGES=(python3-venv python3-picamera2 python3-lgpio gcc python3-dev)

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
Usage: sudo $0 [--no-start] [--dry-run] [--build-as-root] [--help]

Install or upgrade smartboard as a systemd service on a Raspberry Pi.
Run with sudo from the account that owns the checkout ($REPO_DIR).

Steps, and who runs them (BUILDER: \$SUDO_USER, else the checkout's owner):
  1. root:    apt-get install ${APT_PACKAGES[*]}
  2. root:    create system user and group '$SERVICE_USER'
              (groups: those of ${HW_GROUPS[*]} that exist)
  3. root:    create $VENV, owned by BUILDER
     BUILDER: create/refresh the venv there (--system-site-packages, for picamera2)
  4. BUILDER: pip install --upgrade pip, then "${REPO_DIR}[pi]"
     root:    link $CLI_LINK to $VENV/bin/smartboard, so that
              \`smartboard\` is on the PATH
  5. root:    copy config.toml to $CONF_FILE, only if that file does not exist yet
  6. root:    install $UNIT_DST, systemctl daemon-reload, enable and (re)start

Options:
  --no-start       install and enable, but do not (re)start the service now
  --dry-run        print each step with the user it runs as; change nothing
                   (needs neither root nor systemd)
  --build-as-root  build as root when there is no other user to build as
                   (run as root without sudo, in a checkout owned by root)
  -h, --help       show this help and exit

Local changes to the service belong in a drop-in (systemctl edit $SERVICE),
which survives re-running this script; $UNIT_DST itself is replaced.
EOF
}

start=1
dry_run=0
build_as_root=0
for arg in "$@"; do
    case $arg in
        --no-start) start=0 ;;
        --dry-run) dry_run=1 ;;
        --build-as-root) build_as_root=1 ;;
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

if ((!dry_run)); then
    [[ $EUID -eq 0 ]] || die "must be run as root: sudo $0 $*"
    [[ -d /run/systemd/system ]] || die "systemd is not running on this machine (is this the Pi?)"
fi
[[ -f $REPO_DIR/pyproject.toml ]] || die "$REPO_DIR does not look like the smartboard checkout (no pyproject.toml)"
[[ -f $UNIT_SRC ]] || die "missing $UNIT_SRC"
[[ -f $CONF_SRC ]] || die "missing example config $CONF_SRC"

# Who builds: whoever ran sudo, else the owner of the checkout; root only
# when asked to.
if [[ -n ${SUDO_USER:-} && $SUDO_USER != root ]]; then
    builder=$SUDO_USER
elif [[ $EUID -ne 0 ]]; then
    builder=$(id -un)
else
    builder=$(stat -c %U -- "$REPO_DIR")
fi
if [[ $builder == root ]] && ((!build_as_root)); then
    die "refusing to build and fetch packages as root: run 'sudo $0' from the account that owns $REPO_DIR (or chown it to one), or pass --build-as-root"
fi
getent passwd "$builder" >/dev/null || die "no such user to build as: $builder"
builder_group=$(id -gn -- "$builder")
builder_home=$(getent passwd "$builder" | cut -d: -f6)
readonly builder builder_group builder_home

# Run a step as root or as the builder; --dry-run prints it instead.
as() {
    local who=$1
    shift
    if ((dry_run)); then
        printf '[as %s]' "$who"
        printf ' %q' "$@"
        printf '\n'
    elif [[ $who == root || $who == "$(id -un)" ]]; then
        "$@"
    else
        # pip's cache and config in the builder's home, not root's.
        runuser -u "$who" -- env HOME="$builder_home" XDG_CACHE_HOME="$builder_home/.cache" "$@"
    fi
}

# Everything installed under /opt and /etc must be readable by the service
# user, whatever root's (or the builder's) own umask is.
umask 022

tmp_unit=$(mktemp)
cleanup() { rm -f -- "$tmp_unit"; }
trap cleanup EXIT
info "Building as '$builder'; apt, the service user, /etc, the unit and systemctl as root"

if [[ -r /proc/device-tree/model ]]; then
    model=$(tr -d '\0' </proc/device-tree/model || true)
    info "Machine: ${model}"
else
    warn "this does not look like a Raspberry Pi; hardware access will not work"
fi

# --- 1. system packages -------------------------------------------------
info "Installing apt packages: ${APT_PACKAGES[*]}"
export DEBIAN_FRONTEND=noninteractive
as root apt-get update -q
# --no-install-recommends keeps picamera2's GUI preview stack (Qt, OpenGL)
# off a headless table.
as root apt-get install -y -q --no-install-recommends "${APT_PACKAGES[@]}" \
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
    as root useradd --system --user-group \
        --home-dir "/var/lib/$SERVICE_USER" --no-create-home \
        --shell /usr/sbin/nologin \
        --comment "smartboard games-table daemon" \
        "$SERVICE_USER"
fi
if ((${#present_groups[@]})); then
    info "Adding '$SERVICE_USER' to groups: $group_csv"
    as root usermod --append --groups "$group_csv" "$SERVICE_USER"
fi

# --- 3. virtualenv ------------------------------------------------------
# The builder owns the venv while building it: root makes the directory, the
# builder fills it, and root takes it back afterwards (step 4), so that neither
# the login user nor the service can change the code the service runs.
if [[ ! -d $VENV ]]; then
    as root install -d -m 0755 -o "$builder" -g "$builder_group" "$VENV"
elif [[ $(stat -c %U -- "$VENV") != "$builder" ]]; then
    # Root's since the last install (or another user's): lent for this build.
    info "Handing $VENV to '$builder' for the build"
    as root chown -R -- "$builder:$builder_group" "$VENV"
fi
venv_cfg=$VENV/pyvenv.cfg
if [[ ! -x $VENV/bin/python ]]; then
    info "Creating venv $VENV (with system site-packages for picamera2/libcamera)"
    as "$builder" python3 -m venv --system-site-packages "$VENV"
elif ! grep -Eq '^include-system-site-packages *= *true' "$venv_cfg"; then
    # An isolated venv cannot import picamera2/libcamera from apt.
    info "Re-enabling system site-packages in existing venv $VENV"
    as "$builder" python3 -m venv --system-site-packages "$VENV"
else
    info "Reusing venv $VENV"
fi

# --- 4. the package -----------------------------------------------------
# Built in the checkout by its owner: the build/ and *.egg-info it leaves
# are theirs, and ignored by git.
info "Installing smartboard from $REPO_DIR with the [pi] extra"
as "$builder" "$VENV/bin/python" -m pip install --disable-pip-version-check --quiet --upgrade pip
# --upgrade: re-running the script reinstalls the package (and pulls newer
# dependencies only where the requirements demand it).
as "$builder" "$VENV/bin/python" -m pip install --disable-pip-version-check --upgrade "${REPO_DIR}[pi]"
((dry_run)) || [[ -x $VENV/bin/smartboard ]] \
    || die "pip did not install the 'smartboard' console script into $VENV/bin"
info "Handing $VENV back to root: the service only reads it"
as root chown -R root:root -- "$VENV"
# A file of that name that is not a link is someone else's: kept.
if [[ -e $CLI_LINK && ! -L $CLI_LINK ]]; then
    warn "$CLI_LINK is not a link: kept; the command is $VENV/bin/smartboard"
else
    info "Linking $CLI_LINK to $VENV/bin/smartboard"
    as root ln -sfn -- "$VENV/bin/smartboard" "$CLI_LINK"
fi

# --- 5. configuration ---------------------------------------------------
as root install -d -m 0755 -o root -g root "$CONF_DIR"
if [[ -e $CONF_FILE ]]; then
    info "Keeping existing $CONF_FILE (example config is $CONF_SRC)"
else
    info "Installing example config to $CONF_FILE"
    # Readable by the daemon's group only: it may hold dashboard secrets.
    as root install -m 0640 -o root -g "$SERVICE_USER" "$CONF_SRC" "$CONF_FILE"
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
    as root install -m 0644 -o root -g root "$tmp_unit" "$UNIT_DST"
fi
as root systemctl daemon-reload

if [[ ! -e /dev/spidev0.0 ]]; then
    warn "/dev/spidev0.0 is missing, so the NeoPixel LEDs will not work."
    warn "Enable SPI: add 'dtparam=spi=on' to /boot/firmware/config.txt (or run"
    warn "'raspi-config nonint do_spi 0') and reboot."
fi

as root systemctl enable --quiet "$SERVICE"
if ((start)); then
    # restart, not start: after an upgrade the running daemon must pick up
    # the new code. With Type=notify this waits for READY=1.
    info "Starting $SERVICE (waits until the hardware is open)"
    if ! as root systemctl restart "$SERVICE"; then
        systemctl --no-pager status "$SERVICE" >&2 || true
        die "$SERVICE failed to start; see: journalctl -u $SERVICE -b"
    fi
    if ((!dry_run)); then
        state=$(systemctl is-active "$SERVICE" || true)
        info "$SERVICE is ${state}. Logs: journalctl -u $SERVICE -f"
    fi
else
    info "$SERVICE is enabled but was not (re)started (--no-start)."
    info "Edit $CONF_FILE, then: systemctl restart $SERVICE"
fi
