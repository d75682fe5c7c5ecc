"""Where the daemon keeps its journal and listens, as a service and as a user's program."""

from __future__ import annotations

import os
from pathlib import Path

SERVICE_SOCKET = Path("/run/smartboard/control.sock")
"""The service's control socket, in systemd's RuntimeDirectory=."""
SERVICE_CONFIG = Path("/etc/smartboard/config.toml")
"""The service's config (install.sh), which the commands read when given none."""
SERVICE_STATE_DIR = Path("/var/lib/smartboard")
"""The service's journal, in systemd's StateDirectory=: its socket is SERVICE_SOCKET."""


def default_state_dir() -> Path:
    """systemd's StateDirectory= as a service, else the user's state directory."""
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(base) / "smartboard"


def daemon_socket_path(state_dir: Path) -> Path:
    """systemd's RuntimeDirectory= as a service, else beside the journal."""
    runtime = os.environ.get("RUNTIME_DIRECTORY")
    if runtime:
        return Path(runtime.split(":")[0]) / "control.sock"
    return state_dir / "control.sock"


def client_socket_path(state_dir: Path | None) -> Path:
    """The daemon of --state-dir if given (the service's socket for the service's directory),
    else the service's, else the user's own."""
    if state_dir is not None:
        # The service listens in its RuntimeDirectory=, not beside its journal (whose 0700
        # directory its group cannot even look into).
        if state_dir == SERVICE_STATE_DIR and _exists(SERVICE_SOCKET):
            return SERVICE_SOCKET
        return state_dir / "control.sock"
    if _exists(SERVICE_SOCKET):
        return SERVICE_SOCKET
    return default_state_dir() / "control.sock"


def service_config() -> Path | None:
    """The service's config where the service is installed: the table the commands talk of."""
    return SERVICE_CONFIG if _exists(SERVICE_CONFIG) else None


def _exists(path: Path) -> bool:
    """Whether `path` is there; True where a closed directory hides it (the service's
    /run/smartboard from a user outside its group), so that connecting names the cause."""
    try:
        return path.exists()
    except PermissionError:
        return True
