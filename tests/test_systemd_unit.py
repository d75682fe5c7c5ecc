"""Checks for the systemd unit and its installer (systemd/).

These tests read the files only; nothing is installed or started. The
systemd-analyze checks run when the tool is on PATH (it does not need
systemd to be PID 1) and are skipped otherwise.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "systemd" / "smartboard.service"
INSTALL_SH = REPO / "systemd" / "install.sh"

BINARY = "/opt/smartboard/bin/smartboard"
HARDWARE_GROUPS = {"gpio", "spi", "video", "dialout"}
MAX_EXPOSURE = 3.0


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """Parse a systemd unit file into {section: {key: [raw values...]}}.

    Unlike configparser, repeated keys are kept in order (systemd treats
    them as list appends), backslash line continuations are joined and an
    empty assignment (``Key=``) is kept as "" so callers can see resets.
    """
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip() if pending else raw.strip()
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"assignment outside a section: {line!r}"
        key, sep, value = line.partition("=")
        assert sep, f"not a key=value line: {line!r}"
        current.setdefault(key.strip(), []).append(value.strip())
    assert not pending, "file ends in a line continuation"
    return sections


def words(values: list[str]) -> list[str]:
    """Effective space-separated list for a list-type setting.

    An empty assignment resets everything assigned before it.
    """
    result: list[str] = []
    for value in values:
        if value == "":
            result = []
        else:
            result.extend(value.split())
    return result


@pytest.fixture(scope="module")
def service() -> dict[str, list[str]]:
    unit = parse_unit(UNIT.read_text(encoding="utf-8"))
    assert {"Unit", "Service", "Install"} <= unit.keys()
    return unit["Service"]


def single(service: dict[str, list[str]], key: str) -> str:
    values = service.get(key)
    assert values, f"{key}= is not set"
    assert len(values) == 1, f"{key}= is set {len(values)} times"
    return values[0]


# --- the unit's contents -------------------------------------------------


def test_parser_collects_repeated_keys_and_resets() -> None:
    unit = parse_unit("[Service]\n# comment\nA=1 2\nA=3\nB=x\nB=\nB=y \\\n  z\n")
    assert unit["Service"]["A"] == ["1 2", "3"]
    assert words(unit["Service"]["B"]) == ["y", "z"]


def test_notify_with_watchdog(service: dict[str, list[str]]) -> None:
    assert single(service, "Type") == "notify"
    assert single(service, "NotifyAccess") == "main"
    watchdog = single(service, "WatchdogSec")
    assert watchdog and watchdog not in {"0", "infinity"}


def test_exec_start(service: dict[str, list[str]]) -> None:
    assert single(service, "ExecStart") == (f"{BINARY} run --config /etc/smartboard/config.toml")


def test_restart_policy(service: dict[str, list[str]]) -> None:
    assert single(service, "Restart") == "on-failure"
    assert "RestartSec" in service
    # 78 = EX_CONFIG: a bad config must not cause a restart loop.
    assert "78" in words(service["RestartPreventExitStatus"])


def test_identity(service: dict[str, list[str]]) -> None:
    assert single(service, "User") == "smartboard"
    assert words(service.get("DynamicUser", [])) in ([], ["no"])
    groups = set(words(service.get("SupplementaryGroups", [])))
    assert groups, "SupplementaryGroups= is empty"
    assert groups <= HARDWARE_GROUPS, groups - HARDWARE_GROUPS


def test_directories(service: dict[str, list[str]]) -> None:
    assert single(service, "StateDirectory") == "smartboard"
    assert single(service, "RuntimeDirectory") == "smartboard"
    assert single(service, "ConfigurationDirectory") == "smartboard"


def test_lgpio_fifo_goes_to_a_writable_directory(
    service: dict[str, list[str]],
) -> None:
    # lgpio creates its notification FIFO in $LG_WD and opens it relative to
    # the cwd; under ProtectSystem=strict only the unit's own directories
    # are writable.
    env = dict(v.split("=", 1) for v in words(service.get("Environment", [])))
    runtime = "/run/" + single(service, "RuntimeDirectory")
    assert env.get("LG_WD") == runtime
    assert single(service, "WorkingDirectory") == runtime


def test_settings_that_break_the_hardware_stay_off(
    service: dict[str, list[str]],
) -> None:
    # PrivateDevices hides /dev/gpiochip* and /dev/spidev*; PrivateUsers maps
    # the supplementary groups away; ProcSubset=pid hides /proc/cpuinfo and
    # /proc/device-tree, which gpiozero and rpi_ws281x use to detect the Pi.
    assert words(service.get("PrivateDevices", [])) in ([], ["no"])
    assert words(service.get("PrivateUsers", [])) in ([], ["no"])
    assert words(service.get("ProcSubset", [])) in ([], ["all"])
    assert single(service, "DevicePolicy") == "closed"
    allowed = {words([v])[0] for v in service["DeviceAllow"]}
    assert {"char-gpiochip", "char-spi"} <= allowed


# --- systemd-analyze -------------------------------------------------------


def _analyze(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("systemd-analyze")
    if exe is None:
        pytest.skip("systemd-analyze is not on PATH (install the systemd package)")
    return subprocess.run(
        [exe, *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, "SYSTEMD_COLORS": "0", "SYSTEMD_PAGER": ""},
    )


def test_security_exposure(tmp_path: Path) -> None:
    unit = tmp_path / UNIT.name
    shutil.copy(UNIT, unit)
    proc = _analyze("security", "--offline=true", "--no-pager", str(unit))
    output = proc.stdout + proc.stderr
    if "--offline" in output and "unrecognized option" in output:
        pytest.skip("systemd-analyze is too old for --offline (needs systemd >= 250)")
    match = re.search(r"Overall exposure level for \S+: (\d+(?:\.\d+)?)", output)
    assert match, f"no exposure level in output:\n{output}"
    assert float(match.group(1)) <= MAX_EXPOSURE, output


def _verify(unit: Path) -> tuple[int, list[str]]:
    proc = _analyze("verify", "--man=no", str(unit))
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    return proc.returncode, lines


def test_verify_only_complains_about_the_missing_binary(tmp_path: Path) -> None:
    unit = tmp_path / UNIT.name
    shutil.copy(UNIT, unit)
    _, lines = _verify(unit)
    unexpected = [ln for ln in lines if BINARY not in ln or Path(BINARY).exists()]
    assert not unexpected, "\n".join(lines)


def test_verify_is_clean_with_an_existing_binary(tmp_path: Path) -> None:
    true = shutil.which("true")
    if true is None:
        pytest.skip("no 'true' binary to stand in for the daemon")
    unit = tmp_path / UNIT.name
    unit.write_text(
        UNIT.read_text(encoding="utf-8").replace(f"ExecStart={BINARY} ", f"ExecStart={true} "),
        encoding="utf-8",
    )
    returncode, lines = _verify(unit)
    assert returncode == 0 and not lines, "\n".join(lines)


# --- install.sh --------------------------------------------------------------


def _bash() -> str:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not on PATH")
    return bash


def test_install_sh_is_an_executable_strict_bash_script() -> None:
    text = INSTALL_SH.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in text
    assert os.access(INSTALL_SH, os.X_OK), "install.sh is not executable"
    # The installed venv must see apt's picamera2/libcamera.
    assert "--system-site-packages" in text


def test_install_sh_syntax() -> None:
    proc = subprocess.run(
        [_bash(), "-n", str(INSTALL_SH)], capture_output=True, text=True, timeout=10
    )
    assert proc.returncode == 0, proc.stderr


def test_install_sh_help_needs_no_root() -> None:
    proc = subprocess.run(
        [_bash(), str(INSTALL_SH), "--help"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Usage:" in proc.stdout
    assert "--no-start" in proc.stdout


def test_install_sh_rejects_unknown_options() -> None:
    proc = subprocess.run(
        [_bash(), str(INSTALL_SH), "--frobnicate"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert proc.returncode == 2
    assert "unknown option" in proc.stderr


def test_install_sh_refuses_to_run_without_root() -> None:
    command = [_bash(), "-s", "--"]
    if os.geteuid() == 0:
        # Drop to nobody; the script is fed on stdin so it need not be
        # readable by that user. It must stop at the root check.
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and setpriv (util-linux) is missing")
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    proc = subprocess.run(
        command,
        input=INSTALL_SH.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=10,
        cwd="/",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "must be run as root" in proc.stderr


# --- install.sh: who runs each step (issue 19, point 9) -----------------------


def _dry_run(
    script: Path, *options: str, sudo_user: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SUDO_USER"}
    if sudo_user is not None:
        env["SUDO_USER"] = sudo_user
    return subprocess.run(
        [_bash(), str(script), "--dry-run", "--no-start", *options],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )


def _steps(stdout: str) -> list[tuple[str, str]]:
    """(user, command) of each `[as USER] COMMAND` line of a dry run."""
    found = [re.fullmatch(r"\[as ([^]]+)\] (.+)", line) for line in stdout.splitlines()]
    return [(match[1], match[2]) for match in found if match]


BUILD_STEPS = ("python3 -m venv", "-m pip install")
ROOT_STEPS = ("apt-get", "useradd", "usermod", "install -", "chown", "ln ", "systemctl")
CLI_LINK = ("root", "ln -sfn -- /opt/smartboard/bin/smartboard /usr/local/bin/smartboard")


def _check_who_runs_what(steps: list[tuple[str, str]], builder: str) -> None:
    builds = [user for user, command in steps if any(s in command for s in BUILD_STEPS)]
    roots = [user for user, command in steps if command.startswith(ROOT_STEPS)]
    # The venv and both pip installs (pip's own upgrade, then the checkout).
    assert len(builds) == 3 and set(builds) == {builder}, steps
    assert {"apt-get", "systemctl"} <= {command.split()[0] for _, command in steps}
    assert roots and set(roots) == {"root"}, steps
    assert len(builds) + len(roots) == len(steps), steps  # every step is one or the other
    # Once built, the service's code is root's again: the login user cannot change it.
    last_build = max(i for i, (_, command) in enumerate(steps) if "-m pip install" in command)
    assert any(
        user == "root" and command.startswith("chown -R root:root -- /opt/smartboard")
        for user, command in steps[last_build:]
    ), steps
    # `smartboard` on the PATH, linked by root to the built command.
    assert CLI_LINK in steps[last_build:], steps


def _user(uid: int) -> str:
    pwd = pytest.importorskip("pwd")
    try:
        return str(pwd.getpwuid(uid).pw_name)
    except KeyError:
        pytest.skip(f"no user {uid} on this machine")


def test_install_sh_dry_run_builds_as_the_sudo_user() -> None:
    nobody = _user(65534)
    proc = _dry_run(INSTALL_SH, sudo_user=nobody)
    assert proc.returncode == 0, proc.stderr
    _check_who_runs_what(_steps(proc.stdout), nobody)


def _checkout(tmp_path: Path) -> Path:
    """A copy of the files install.sh checks for, owned by whoever runs the test."""
    (tmp_path / "systemd").mkdir()
    for name in ("install.sh", "smartboard.service", "config.toml"):
        shutil.copy2(REPO / "systemd" / name, tmp_path / "systemd" / name)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    return tmp_path / "systemd" / "install.sh"


def _as_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root: install.sh asks who owns the checkout only when run as root")


def test_install_sh_refuses_to_build_as_root(tmp_path: Path) -> None:
    _as_root()
    proc = _dry_run(_checkout(tmp_path))  # root, no sudo, a checkout of root's
    assert proc.returncode == 1
    assert "refusing to build and fetch packages as root" in proc.stderr
    assert "--build-as-root" in proc.stderr  # says how
    assert not _steps(proc.stdout)


def test_install_sh_builds_as_root_when_asked(tmp_path: Path) -> None:
    _as_root()
    proc = _dry_run(_checkout(tmp_path), "--build-as-root")
    assert proc.returncode == 0, proc.stderr
    assert {user for user, _ in _steps(proc.stdout)} == {"root"}


def test_install_sh_builds_as_the_owner_of_the_checkout(tmp_path: Path) -> None:
    _as_root()
    nobody = _user(65534)
    script = _checkout(tmp_path)
    os.chown(tmp_path, 65534, 65534)
    proc = _dry_run(script)
    assert proc.returncode == 0, proc.stderr
    _check_who_runs_what(_steps(proc.stdout), nobody)
