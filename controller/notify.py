"""systemd's notify protocol: READY=1 once the hardware is open, WATCHDOG=1 from the main loop.

The protocol is one datagram to $NOTIFY_SOCKET, too small to be worth a dependency.
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send a state line to systemd; False when not run by systemd with Type=notify."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # an abstract socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.sendto(message.encode(), address)
    return True


def watchdog_interval() -> float | None:
    """Seconds between pings (half of WatchdogSec), or None when no watchdog is asked for."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and int(pid) != os.getpid()):
        return None
    return int(usec) / 2_000_000
