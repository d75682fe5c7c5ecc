"""Where the daemon keeps its journal and listens, as a service and as a user's program."""

from __future__ import annotations

import os
from pathlib import Path

SERVICE_SOCKET = Path("/run/smartboard/control.sock")
"""The service's control socket, in systemd's RuntimeDirectory=."""


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
    """The daemon of --state-dir if given, else the service's, else the user's own."""
    if state_dir is not None:
        return state_dir / "control.sock"
    if SERVICE_SOCKET.exists():
        return SERVICE_SOCKET
    return default_state_dir() / "control.sock"
