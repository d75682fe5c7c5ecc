"""The daemon and its journal going wrong (issue 19, point 7): a damaged last record kept aside
and said, an empty journal, a journal that is a directory, a full disk that pauses the game."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, fast_sim_config, options_in, smartboard, wait_for
from daemon_run import call, serving

from controller.daemon import Daemon
from controller.journal import JOURNAL, Journal


class FullDisk:
    """The journal's writes failing with ENOSPC while `full` is set; counts those refused."""

    def __init__(self) -> None:
        self.full = False
        self.refused = 0

    def __call__(self, fd: int, data: bytes) -> None:
        if self.full:
            self.refused += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.write(fd, data)
        os.fsync(fd)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> FullDisk:
    full = FullDisk()
    monkeypatch.setattr("controller.journal.write_durably", full)
    monkeypatch.setattr("controller.daemon.JOURNAL_RETRY_S", 0.05)
    return full


def journal_history(folder: Path) -> list[object]:
    return Journal(folder).read().history()


# A damaged last record.


def test_a_damaged_last_move_is_kept_aside_and_said_until_play_goes_on(tmp_path: Path) -> None:
    first = Daemon(fast_sim_config(), options_in(tmp_path))
    first.open()
    first.session.on_dice((2, 2), now=0.0)  # choose_dice:2, then roll:4
    first.close()
    path = tmp_path / JOURNAL
    rows = path.read_bytes().split(b"\n")
    assert b'"dice"' in rows[-2]  # the roll's own record follows its move
    rows[-3] = rows[-3].replace(b'"total":4', b'"total":5')  # a flipped byte in a whole record
    path.write_bytes(b"\n".join(rows))

    daemon = Daemon(fast_sim_config(), options_in(tmp_path))
    daemon.open()
    try:
        assert [a.id for a in daemon.session.state.actions()] == ["choose_dice:2"]
        (kept,) = tmp_path.glob("journal.damaged-*")
        assert kept.read_bytes() == rows[-3] + b"\n" + rows[-2] + b"\n"
        alert = f"the last 2 records could not be read back (kept in {kept}); check the board"
        assert daemon.status(0.0)["alerts"] == [alert]
        said = {"records": 2, "where": str(kept)}  # for the page to say in French too
        assert daemon.snapshot(0.0)["alerts"] == [
            {"text": alert, "key": "journal_damage", "params": said}
        ]
        daemon.session.on_dice((2, 2), now=0.0)  # the players put the roll back in
        assert daemon.alerts() == []
    finally:
        daemon.close()
    assert journal_history(tmp_path) == [
        {"type": "ChooseDice", "count": 2},
        {"type": "Roll", "total": 4},
    ]


def test_status_without_a_daemon_tells_of_a_damaged_last_move(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.start("akuma", {})
    journal.append_actions([{"type": "ChooseDice", "count": 1}, {"type": "Roll", "total": 3}])
    journal.close()
    damaged = journal.path.read_bytes().replace(b'"total":3', b'"total":4')
    journal.path.write_bytes(damaged)
    done = smartboard("status", "--state-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "1 actions" in done.stdout
    assert "alert: the last move could not be read back" in done.stdout
    assert f"{journal.path}:3: checksum mismatch" in done.stdout
    assert journal.path.read_bytes() == damaged  # status reads, it cuts nothing


# An empty journal, a journal that is a directory.


def test_an_empty_journal_starts_a_new_game(tmp_path: Path) -> None:
    (tmp_path / JOURNAL).write_bytes(b"")  # a power cut right after it was created
    daemon = Daemon(fast_sim_config(), options_in(tmp_path))
    daemon.open()
    try:
        assert daemon.game.name == "akuma" and daemon.session.state.history() == []
        daemon.session.on_dice((3,), now=0.0)
    finally:
        daemon.close()
    assert journal_history(tmp_path) == [
        {"type": "ChooseDice", "count": 1},
        {"type": "Roll", "total": 3},
    ]
    assert list(tmp_path.glob("journal-*")) == []  # nothing worth keeping


def test_a_journal_that_is_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / JOURNAL).mkdir()
    status = smartboard("status", "--state-dir", str(tmp_path))
    run = smartboard("run", "--sim", "--no-show", "--state-dir", str(tmp_path))
    for done in (status, run):
        assert done.returncode == 65
        assert done.stderr.startswith("smartboard: ")
        assert f"cannot read the journal {tmp_path / JOURNAL}: Is a directory" in done.stderr
        assert "Traceback" not in done.stderr


# A full disk.


@pytest.fixture
def running(tmp_path: Path, disk: FullDisk) -> Iterator[Daemon]:
    with serving(fast_sim_config(), options_in(tmp_path)) as daemon:
        yield daemon


def test_a_full_disk_pauses_the_game_and_it_goes_on_once_freed(
    running: Daemon, disk: FullDisk, tmp_path: Path
) -> None:
    disk.full = True
    # The same request, by its id, is refused now and applied once the disk is freed.
    refused = call(running, op="roll", values=[5, 5], request_id="full-1")
    assert not refused["ok"]
    assert str(refused["error"]).startswith("disk full: the game is paused (cannot write ")
    assert str(refused["error"]).endswith("No space left on device): not applied")
    status = call(running, op="status")
    assert status["ok"] and status["history"] == [] and journal_history(tmp_path) == []
    (alert,) = status["alerts"]  # type: ignore[misc]
    assert alert.startswith("disk full: the game is paused")
    shown = call(running, op="snapshot")["alerts"]
    assert shown == [{"text": alert, "key": "journal", "params": {"reason": alert}}]
    for op in ({"op": "act", "id": "choose_dice:2"}, {"op": "new", "abandon": True}):
        said = {"ok": False, "error": alert, "key": "journal", "params": {"reason": alert}}
        assert call(running, **op) == said
    wait_for(lambda: disk.refused >= 3, what="the daemon trying the disk again")

    disk.full = False
    wait_for(lambda: call(running, op="status")["alerts"] == [], what="the game going on")
    applied = call(running, op="roll", values=[5, 5], request_id="full-1")
    assert applied["applied"] == ["choose_dice:2", "roll:10"] and "repeated" not in applied

    # A move sensed while the disk is full is read once it is freed: nothing is lost.
    disk.full = True
    running.reeds.drive("8.trap", True)  # Hawk Moth places a trap (AK-4)
    wait_for(lambda: bool(call(running, op="status")["alerts"]), what="the disk full again")
    assert len(call(running, op="status")["history"]) == 2  # type: ignore[arg-type]
    disk.full = False
    wait_for(
        lambda: len(call(running, op="status")["history"]) == 3,  # type: ignore[arg-type]
        what="the trap read once the disk is freed",
    )
    history = call(running, op="status")["history"]
    assert history[-1] == {"type": "PlaceTrap", "square": 8}  # type: ignore[index]
    assert journal_history(tmp_path) == history


def test_a_new_game_on_a_full_disk_leaves_the_old_one(
    running: Daemon, disk: FullDisk, tmp_path: Path
) -> None:
    call(running, op="roll", values=[2])
    before = (tmp_path / JOURNAL).read_bytes()
    disk.full = True
    refused = call(running, op="new", abandon=True)
    assert not refused["ok"] and str(refused["error"]).startswith("disk full")
    assert len(call(running, op="status")["history"]) == 2  # type: ignore[arg-type]
    assert (tmp_path / JOURNAL).read_bytes() == before
    assert list(tmp_path.glob("journal-*")) == []
    disk.full = False
    wait_for(lambda: call(running, op="status")["alerts"] == [], what="the game going on")
    assert call(running, op="new", abandon=True)["ok"]
    assert call(running, op="status")["history"] == [] and journal_history(tmp_path) == []


def test_a_full_disk_at_start_up_is_a_temporary_failure(tmp_path: Path) -> None:
    # No journal yet, and no room for one: the service tries again later (EX_TEMPFAIL).
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_RUN, str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 75, done.stderr
    assert "cannot open the game journal: cannot write" in done.stderr
    assert "No space left on device" in done.stderr and "Traceback" not in done.stderr


FULL_DISK_RUN = """
import errno, os, sys
import controller.journal
from controller.cli import main

def full(fd, data):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

controller.journal.write_durably = full
sys.exit(main(["run", "--sim", "--no-show", "--state-dir", sys.argv[1]]))
"""
