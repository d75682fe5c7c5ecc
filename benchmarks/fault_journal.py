"""Issue 19, point 7: the journal on a full disk, and with a flipped byte in its last record.

The real daemon runs in-process on the simulated table, its control socket driven as the CLI
drives it. Its journal's writes fail with ENOSPC for a stretch of rolls (the disk full), then
succeed again (space freed): the daemon must stay up, refuse those rolls, go on by itself, and
its journal must hold every roll it applied. Then a whole last record gets a flipped byte: a
restarted daemon must keep it aside and start from the record before it.

Run: .venv/bin/python benchmarks/fault_journal.py
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from controller import daemon as daemon_module
from controller import journal as journal_module
from controller.config import load_config
from controller.control import request
from controller.daemon import Daemon
from controller.journal import JOURNAL, Journal
from controller.rules.api import JSON
from controller.startup import RunOptions

MOVES_ON_FULL_DISK = 20
RETRY_S = 0.05  # the daemon's retry period, shortened so that the run takes a second


class FullDisk:
    """The journal's writes, failing with ENOSPC while `full` is set."""

    def __init__(self) -> None:
        self.full = False

    def __call__(self, fd: int, data: bytes) -> None:
        if self.full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.write(fd, data)
        os.fsync(fd)


def _options(folder: Path) -> RunOptions:
    return RunOptions(state_dir=folder, socket_path=folder / "control.sock", seed=1)


def _wait(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False


def _applied(reply: JSON) -> int:
    return len(reply.get("applied", []))


def _play(socket: Path) -> JSON:
    """One move by the control socket, as a player would: the dice rolled if the game wants
    them, else its first legal action."""
    listed = request(socket, {"op": "actions"})
    if listed.get("actions"):
        return request(socket, {"op": "act", "id": listed["actions"][0]["id"]})
    return request(socket, {"op": "roll"})


def full_disk(folder: Path) -> dict[str, object]:
    """Moves refused on a full disk, then played on once it is freed."""
    config = replace(load_config(None).simulated(), debounce_s=0.005, settle_s=0.2)
    disk = FullDisk()
    saved = journal_module.write_durably, daemon_module.JOURNAL_RETRY_S
    journal_module.write_durably = disk
    daemon_module.JOURNAL_RETRY_S = RETRY_S
    daemon = Daemon(config, _options(folder))
    daemon.open()
    thread = threading.Thread(target=daemon.run)
    thread.start()
    socket = daemon.options.socket_path
    acknowledged = 0  # actions the daemon said it applied
    try:
        for _ in range(3):
            acknowledged += _applied(_play(socket))
        disk.full = True
        refused = 0
        for _ in range(MOVES_ON_FULL_DISK):
            reply = _play(socket)
            refused += not reply["ok"] and str(reply["error"]).startswith("disk full")
            acknowledged += _applied(reply)
        alive = thread.is_alive() and request(socket, {"op": "status"})["ok"]
        disk.full = False
        resumed = _wait(lambda: request(socket, {"op": "status"})["alerts"] == [])
        played_on = 0
        for _ in range(3):
            played_on += _applied(_play(socket))
        acknowledged += played_on
        history = request(socket, {"op": "status"})["history"]
    finally:
        daemon.stop()
        thread.join(timeout=5)
        daemon.close()
        journal_module.write_durably, daemon_module.JOURNAL_RETRY_S = saved
    journalled = Journal(folder).read().history()
    return {
        "journal_actions_attempted_on_full_disk": MOVES_ON_FULL_DISK,
        "journal_actions_refused_on_full_disk": refused,
        "journal_actions_lost": acknowledged - len(journalled),
        "journal_equals_game": journalled == history,
        "journal_daemon_alive": alive,
        "journal_resumed_after_space_freed": resumed and played_on > 0,
    }


def damaged_tail(folder: Path) -> dict[str, object]:
    """A flipped byte in the journal's last, whole, record: kept aside by the next start."""
    config = load_config(None).simulated()
    first = Daemon(config, _options(folder))
    first.open()
    first.session.on_dice((2, 2), now=0.0)
    first.close()
    path = folder / JOURNAL
    rows = path.read_bytes().split(b"\n")
    rows[-2] = rows[-2].replace(b'"total":4', b'"total":5')
    path.write_bytes(b"\n".join(rows))
    second = Daemon(config, _options(folder))
    second.open()
    try:
        kept = list(folder.glob("journal.damaged-*"))
        said = any("could not be read back" in alert for alert in second.alerts())
        resumed = len(second.session.state.history()) == 1
    finally:
        second.close()
    return {
        "journal_damaged_tail_kept": len(kept) == 1
        and kept[0].read_bytes() == rows[-2] + b"\n"
        and said
        and resumed
    }


def measure() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as full, tempfile.TemporaryDirectory() as damaged:
        return full_disk(Path(full)) | damaged_tail(Path(damaged))


if __name__ == "__main__":
    print(json.dumps(measure()))
