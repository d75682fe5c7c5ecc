"""The journal (controller/journal.py): CRC'd JSON lines, torn and damaged records (kept aside),
retractions, locking, writes that fail on a full disk; fuzzed with Hypothesis."""

from __future__ import annotations

import errno
import json
import logging
import os
import random
import re
import tempfile
import time
import types
import zlib
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.journal import (
    JOURNAL,
    EmptyJournalError,
    Journal,
    JournalError,
    JournalWriteError,
    Record,
    StateDirInUseError,
    read_journal,
)
from controller.rules.akuma import GAME

OPTIONS = {"names": {"1": ["Luka", "Silencer"]}, "seed": 7}
ACTIONS: list[dict[str, Any]] = [
    {"type": "ChooseDice", "count": 2},
    {"type": "Roll", "total": 10},
    {"type": "PlaceTrap", "square": 5},
    {"type": "ChooseDice", "count": 1},
]


def line(body: dict[str, Any], crc: int | None = None) -> bytes:
    """A journal line written independently of the module, per its documented format."""
    text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    if crc is None:
        crc = zlib.crc32(text.encode())
    return f'{{"crc":{crc},"body":{text}}}\n'.encode()


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    opened = Journal(tmp_path / "state")
    yield opened
    opened.close()


def written(journal: Journal, actions: list[dict[str, Any]] = ACTIONS) -> Path:
    """A closed journal of the Akuma game holding `actions`."""
    journal.start("akuma", OPTIONS)
    for action in actions:
        journal.append_action(action)
    journal.close()
    return journal.path


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


# Writing and reading back.


def test_start_and_append_read_back_in_order(journal: Journal) -> None:
    path = written(journal)
    assert path == journal.path
    assert path.name == JOURNAL
    record = Journal(path.parent).read()
    assert record.game == "akuma"
    assert record.options == OPTIONS
    assert record.history() == ACTIONS
    assert record.torn is False
    assert record.entries == [{"action": action} for action in ACTIONS]


def test_journal_format_is_one_crc_line_per_record(journal: Journal) -> None:
    path = written(journal, ACTIONS[:2])
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    rows = [json.loads(row) for row in raw.splitlines()]
    assert len(rows) == 3
    head = rows[0]["body"]
    assert head["game"] == "akuma"
    assert head["options"] == OPTIONS
    assert isinstance(head["started"], float)
    for row in rows:
        text = json.dumps(row["body"], separators=(",", ":"), sort_keys=True)
        assert row["crc"] == zlib.crc32(text.encode())
    assert raw.splitlines()[1] + b"\n" == line({"action": ACTIONS[0]})


def test_read_journal_reports_the_good_length(journal: Journal) -> None:
    path = written(journal)
    record, good_length = read_journal(path)
    assert good_length == path.stat().st_size
    assert record.history() == ACTIONS


def test_appending_before_start_raises(journal: Journal) -> None:
    with pytest.raises(RuntimeError, match="journal is not open"):
        journal.append_action(ACTIONS[0])


def test_every_write_is_flushed_and_fsynced(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = os.fsync
    synced: list[int] = []  # the journal's line count at each fsync of the journal file

    def counting_fsync(fd: int) -> None:
        if os.path.samestat(os.fstat(fd), os.stat(journal.path)):
            # Whatever is fsynced must already be out of Python's buffer.
            synced.append(journal.path.read_bytes().count(b"\n"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    journal.start("akuma", OPTIONS)
    assert synced == [1]
    for number, action in enumerate(ACTIONS, start=2):
        journal.append_action(action)
        assert synced[-1] == number
    journal.append_actions([], retract=1)
    assert synced == [1, 2, 3, 4, 5, 6]


def test_start_fsyncs_the_directory(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    real_fsync = os.fsync
    dirs: list[bool] = []

    def recording_fsync(fd: int) -> None:
        dirs.append(os.path.samestat(os.fstat(fd), os.stat(journal.path.parent)))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    journal.start("akuma", OPTIONS)
    assert dirs == [False, True]  # the first record, then the directory entry


# Torn and damaged records.


def _check_torn_then_recovered(
    path: Path, caplog: pytest.LogCaptureFixture, expected: list[dict[str, Any]]
) -> None:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="controller.journal"):
        record = Journal(path.parent).read()
    assert record.torn is True
    assert record.history() == expected
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "dropping a torn last record" in warnings[0].getMessage()
    assert str(path) in warnings[0].getMessage()

    caplog.clear()
    resumed = Journal(path.parent)
    with caplog.at_level(logging.WARNING, logger="controller.journal"):
        record = resumed.recover()
    assert record.torn is True
    assert record.history() == expected
    assert path.read_bytes().endswith(b"\n")
    resumed.append_action({"type": "Roll", "total": 3})
    resumed.close()

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="controller.journal"):
        again, good_length = read_journal(path)
    assert again.torn is False
    assert again.history() == [*expected, {"type": "Roll", "total": 3}]
    assert good_length == path.stat().st_size
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("cut", [1, 5, 20])
def test_truncated_last_record_is_dropped_and_cut_off(
    journal: Journal, caplog: pytest.LogCaptureFixture, cut: int
) -> None:
    path = written(journal)
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - cut)
    _check_torn_then_recovered(path, caplog, ACTIONS[:-1])


@pytest.mark.parametrize(
    "tail", [b'{"crc":12345,"bo', b"\x00\x00\x00"], ids=["cut-short", "zeros-without-newline"]
)
def test_torn_tail_is_dropped(
    journal: Journal, caplog: pytest.LogCaptureFixture, tail: bytes
) -> None:
    path = written(journal)
    with path.open("ab") as handle:
        handle.write(tail)
    _check_torn_then_recovered(path, caplog, ACTIONS)


def damaged_copies(path: Path) -> list[Path]:
    return sorted(path.parent.glob("journal.damaged-*"))


def test_a_whole_last_record_with_a_flipped_byte_is_kept_aside(
    journal: Journal, caplog: pytest.LogCaptureFixture
) -> None:
    # Issue 19, point 7: it was taken for a torn record, dropped and cut off, the evidence gone.
    path = written(journal)
    rows = lines_of(path)
    rows[-2] = rows[-2].replace(b'"count":1', b'"count":2')  # body changed, CRC kept
    damaged = b"\n".join(rows)
    path.write_bytes(damaged)
    record = Journal(path.parent).read()
    assert record.history() == ACTIONS[:-1]
    assert record.damage is not None and record.damage.records == 1
    assert record.damage.reason == f"{path}:5: checksum mismatch"
    assert record.damage.kept is None and not damaged_copies(path)  # reading changes nothing
    assert path.read_bytes() == damaged

    resumed = Journal(path.parent)
    with caplog.at_level(logging.WARNING, logger="controller.journal"):
        record = resumed.recover()
    assert record.history() == ACTIONS[:-1]
    (kept,) = damaged_copies(path)
    assert re.fullmatch(r"journal\.damaged-\d{8}-\d{6}", kept.name)
    assert kept.read_bytes() == rows[-2] + b"\n"
    assert record.damage is not None and record.damage.kept == kept
    assert resumed.damage == record.damage
    assert record.damage.sentence() == (
        f"the last move could not be read back (kept in {kept}); check the board"
    )
    assert any(str(kept) in r.getMessage() for r in caplog.records)
    assert path.read_bytes() == b"\n".join(rows[:-2]) + b"\n"  # cut back to the good records
    resumed.append_action(ACTIONS[-1])
    assert resumed.damage is None  # the game has gone on from the good records
    resumed.close()
    again, good_length = read_journal(path)
    assert again.history() == ACTIONS and again.damage is None
    assert good_length == path.stat().st_size


def test_recover_leaves_a_whole_journal_alone(
    journal: Journal, caplog: pytest.LogCaptureFixture
) -> None:
    path = written(journal)
    before = path.read_bytes()
    resumed = Journal(path.parent)
    with caplog.at_level(logging.WARNING, logger="controller.journal"):
        record = resumed.recover()
    assert record.torn is False
    assert record.history() == ACTIONS
    assert path.read_bytes() == before
    assert not caplog.records
    resumed.append_actions([], retract=1)
    resumed.close()
    assert Journal(path.parent).read().history() == ACTIONS[:-1]


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda row: row.replace(b'"total":10', b'"total":11'), "checksum mismatch"),
        (lambda row: row[:-3], "unreadable record"),
        (lambda row: b"", "unreadable record"),
        (lambda row: b'{"crc":0}', "unreadable record"),
        (lambda row: b"[" * 100_000, "unreadable record"),
        (lambda row: b'{"crc":%d,"body":[1,2]}' % zlib.crc32(b"[1,2]"), "record body is not"),
    ],
)
def test_damage_in_the_middle_is_kept_aside_from_there_on(
    journal: Journal, damage: Callable[[bytes], bytes], reason: str
) -> None:
    path = written(journal)
    rows = lines_of(path)
    rows[2] = damage(rows[2])  # line 3: the Roll
    path.write_bytes(b"\n".join(rows))
    record = Journal(path.parent).read()
    assert record.damage is not None
    assert record.damage.reason.startswith(f"{path}:3: {reason}")
    assert record.damage.records == 3
    assert record.damage.sentence().startswith(
        f"the last 3 records could not be read back ({path}:3"
    )
    resumed = Journal(path.parent)
    assert resumed.recover().history() == ACTIONS[:1]
    resumed.close()
    (kept,) = damaged_copies(path)
    assert kept.read_bytes() == b"\n".join(rows[2:])
    assert path.read_bytes() == b"\n".join(rows[:2]) + b"\n"


def test_damage_then_a_torn_tail_are_kept_aside_together(journal: Journal) -> None:
    path = written(journal)
    rows = lines_of(path)
    rows[-2] = rows[-2].replace(b'"count":1', b'"count":2')
    path.write_bytes(b"\n".join(rows) + b'{"crc":1')
    resumed = Journal(path.parent)
    record = resumed.recover()
    resumed.close()
    assert record.torn and record.damage is not None and record.damage.records == 1
    (kept,) = damaged_copies(path)
    assert kept.read_bytes() == rows[-2] + b'\n{"crc":1'
    assert read_journal(path)[0].history() == ACTIONS[:-1]


def test_damaged_records_are_not_cut_off_when_they_cannot_be_kept_aside(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = written(journal)
    with path.open("ab") as handle:
        handle.write(b"\x00" * 9 + b"\n")
    before = path.read_bytes()
    monkeypatch.setattr("controller.journal.write_durably", FullDisk(full=True))
    with pytest.raises(JournalWriteError, match="No space left on device") as raised:
        Journal(path.parent).recover()
    assert raised.value.disk_full
    assert path.read_bytes() == before
    assert not damaged_copies(path)


# Empty and unreadable journals.


@pytest.mark.parametrize("content", [b"", b'{"crc":1,"body":{"ga'])
def test_a_journal_without_a_whole_record_is_empty(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / JOURNAL
    path.write_bytes(content)
    with pytest.raises(EmptyJournalError, match=re.escape(f"{path} holds no whole record")):
        read_journal(path)


def test_a_journal_that_is_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / JOURNAL).mkdir()
    with pytest.raises(JournalError, match=re.escape(f"cannot read the journal {tmp_path}")):
        Journal(tmp_path).read()


def test_a_state_directory_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("")
    with pytest.raises(JournalError, match=re.escape(f"cannot use {tmp_path / 'state'}")):
        Journal(tmp_path / "state").lock()


# Retractions.


def test_retraction_removes_the_last_actions(journal: Journal) -> None:
    journal.start("akuma", OPTIONS)
    for action in ACTIONS:
        journal.append_action(action)
    journal.append_actions([], retract=2)
    journal.append_action({"type": "Roll", "total": 4})
    journal.append_actions([{"type": "Roll", "total": 6}], retract=1)
    journal.close()
    record = Journal(journal.path.parent).read()
    assert record.history() == [*ACTIONS[:2], {"type": "Roll", "total": 6}]
    assert record.entries[4] == {"retract": 2}


def test_retracting_every_action() -> None:
    record = Record("akuma", {}, [{"action": a} for a in ACTIONS])
    assert record.history() == ACTIONS
    assert Record("akuma", {}, [*record.entries, {"retract": 4}]).history() == []


@pytest.mark.parametrize("count", [0, -1, 5, True, "2", 1.0])
def test_impossible_retraction_is_an_error(count: object) -> None:
    # Four actions: retracting 5 must not leave a partial history (for instance the first
    # action alone, which del actions[-1:] would give), a game state that never existed.
    record = Record("akuma", {}, [{"action": a} for a in ACTIONS] + [{"retract": count}])
    with pytest.raises(JournalError, match=re.escape(f"cannot retract {count!r} of 4 actions")):
        record.history()


# Starting a new game over an old one.


def test_start_keeps_the_old_journal_under_a_dated_name(journal: Journal) -> None:
    path = written(journal)
    old = path.read_bytes()
    journal.start("akuma", {"seed": 8})
    journal.append_action(ACTIONS[0])
    journal.close()
    kept = sorted(p.name for p in path.parent.glob("journal-*.jsonl"))
    assert len(kept) == 1
    assert re.fullmatch(r"journal-\d{8}-\d{6}\.jsonl", kept[0])
    assert (path.parent / kept[0]).read_bytes() == old
    record = Journal(path.parent).read()
    assert record.options == {"seed": 8}
    assert record.history() == ACTIONS[:1]


def test_games_started_in_the_same_second_keep_every_old_journal(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = types.SimpleNamespace(strftime=lambda _: "20250101-120000", time=time.time)
    monkeypatch.setattr("controller.journal.time", clock)
    for seed in (1, 2, 3):
        journal.start("akuma", {"seed": seed})
        journal.append_action({"type": "ChooseDice", "count": seed})
    journal.close()
    kept = sorted(journal.path.parent.glob("journal-*.jsonl"))
    seeds = sorted(read_journal(p)[0].options["seed"] for p in kept)
    assert seeds == [1, 2]  # games 1 and 2 kept, neither overwritten
    assert Journal(journal.path.parent).read().options == {"seed": 3}


def test_start_creates_the_state_directory(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "a" / "b")
    journal.start("akuma", {})
    journal.close()
    assert (tmp_path / "a" / "b" / JOURNAL).is_file()
    assert journal.exists()


# Locking.


def test_second_journal_cannot_lock_the_same_directory(tmp_path: Path) -> None:
    first = Journal(tmp_path)
    first.lock()
    second = Journal(tmp_path)
    try:
        with pytest.raises(StateDirInUseError, match="another smartboard daemon is using"):
            second.lock()
        first.close()
        second.lock()  # free again once the first lets go
        third = Journal(tmp_path)
        with pytest.raises(StateDirInUseError, match=re.escape(str(tmp_path))):
            third.lock()
        third.close()
    finally:
        first.close()
        second.close()


def test_locks_on_different_directories_do_not_clash(tmp_path: Path) -> None:
    one, two = Journal(tmp_path / "one"), Journal(tmp_path / "two")
    one.lock()
    two.lock()
    one.close()
    two.close()


# The head record.


def test_first_record_without_a_game(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL
    path.write_bytes(line({"options": {}}) + line({"action": ACTIONS[0]}))
    with pytest.raises(JournalError, match="the first record does not name a game"):
        Journal(tmp_path).read()


def test_first_record_is_an_action(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL
    path.write_bytes(line({"action": ACTIONS[0]}) + line({"game": "akuma"}))
    with pytest.raises(JournalError, match=re.escape(f"{path}: the first record")):
        read_journal(path)


@pytest.mark.parametrize("content", [b"\n", b'{"crc":1,"body":{"ga\n' + line({"game": "akuma"})])
def test_a_damaged_first_record_is_an_error(tmp_path: Path, content: bytes) -> None:
    # No game to go back to: nothing is cut, and the daemon stops with EX_DATAERR.
    path = tmp_path / JOURNAL
    path.write_bytes(content)
    with pytest.raises(JournalError, match=re.escape(f"{path}:1: unreadable record")):
        Journal(tmp_path).recover()
    assert path.read_bytes() == content


@pytest.mark.parametrize("options", [5, [["seed", 1]], "seed"])
def test_first_record_whose_options_are_not_an_object(tmp_path: Path, options: object) -> None:
    path = tmp_path / JOURNAL
    path.write_bytes(line({"game": "akuma", "options": options}))
    with pytest.raises(JournalError, match="the first record's options are not an object"):
        read_journal(path)


def test_handwritten_journal_reads(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL
    path.write_bytes(
        line({"game": "akuma"})
        + line({"action": ACTIONS[0]})
        + line({"action": ACTIONS[1]})
        + line({"retract": 1})
    )
    record = Journal(tmp_path).read()
    assert (record.game, record.options) == ("akuma", {})
    assert record.history() == ACTIONS[:1]


# Writes that fail: a full disk, a quota, an I/O error.


class FullDisk:
    """The journal's writes failing like a full disk's, while `full` is set: after `part` bytes
    of the data have reached the file, or after all of it, when fsync fails (`error`)."""

    def __init__(self, full: bool = False, part: int = 0, error: int = errno.ENOSPC) -> None:
        self.full, self.part, self.error = full, part, error

    def __call__(self, fd: int, data: bytes) -> None:
        if not self.full:
            os.write(fd, data)
            os.fsync(fd)
            return
        os.write(fd, data[: self.part])
        raise OSError(self.error, os.strerror(self.error))


@pytest.mark.parametrize(
    "disk",
    [FullDisk(True), FullDisk(True, part=20), FullDisk(True, part=10**6, error=errno.EIO)],
    ids=["nothing-written", "part-written", "fsync-fails"],
)
def test_a_failed_append_leaves_the_journal_as_it_was(
    journal: Journal, monkeypatch: pytest.MonkeyPatch, disk: FullDisk
) -> None:
    journal.start("akuma", OPTIONS)
    journal.append_action(ACTIONS[0])
    before = journal.path.read_bytes()
    monkeypatch.setattr("controller.journal.write_durably", disk)
    with pytest.raises(
        JournalWriteError, match=re.escape(f"cannot write {journal.path}")
    ) as raised:
        journal.append_actions(ACTIONS[1:3], retract=1)
    assert raised.value.disk_full == (disk.error == errno.ENOSPC)
    assert journal.path.read_bytes() == before  # all of a write or none of it
    disk.full = False
    journal.append_actions(ACTIONS[1:3], retract=1)
    journal.close()
    assert read_journal(journal.path)[0].history() == ACTIONS[1:3]


def test_a_failed_cut_back_is_made_before_the_next_write(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal.start("akuma", OPTIONS)
    before = journal.path.read_bytes()
    monkeypatch.setattr("controller.journal.write_durably", FullDisk(True, part=15))
    real_ftruncate = os.ftruncate

    def failing_ftruncate(fd: int, length: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "ftruncate", failing_ftruncate)
    with pytest.raises(JournalWriteError):
        journal.append_action(ACTIONS[0])
    assert len(journal.path.read_bytes()) == len(before) + 15  # the part written is still there
    monkeypatch.setattr(os, "ftruncate", real_ftruncate)
    monkeypatch.setattr("controller.journal.write_durably", FullDisk())
    journal.append_action(ACTIONS[1])
    journal.close()
    record, _ = read_journal(journal.path)
    assert record.history() == [ACTIONS[1]] and record.damage is None


def test_a_new_game_that_cannot_be_written_leaves_the_old_one(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal.start("akuma", OPTIONS)
    journal.append_action(ACTIONS[0])
    before = journal.path.read_bytes()
    disk = FullDisk(True)
    monkeypatch.setattr("controller.journal.write_durably", disk)
    with pytest.raises(JournalWriteError):
        journal.start("akuma", {"seed": 8})
    assert journal.path.read_bytes() == before
    assert list(journal.path.parent.glob("journal-*")) == []
    disk.full = False
    journal.append_action(ACTIONS[1])  # still open on the old game
    journal.close()
    assert read_journal(journal.path)[0].history() == ACTIONS[:2]


def test_a_new_game_whose_old_journal_cannot_be_renamed_leaves_it(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename needs room in the directory too, and a card remounted read-only refuses it: a
    clear JournalWriteError (the daemon pauses), never an OSError that ends the loop."""
    journal.start("akuma", OPTIONS)
    journal.append_action(ACTIONS[0])
    before = journal.path.read_bytes()

    def refuse(self: Path, target: Path) -> Path:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(Path, "rename", refuse)
    with pytest.raises(JournalWriteError, match="Read-only file system"):
        journal.start("akuma", {"seed": 8})
    monkeypatch.undo()
    assert journal.path.read_bytes() == before
    journal.append_action(ACTIONS[1])  # still open on the old game
    journal.close()
    assert read_journal(journal.path)[0].history() == ACTIONS[:2]


def test_probe_tells_whether_a_record_could_be_written(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal.start("akuma", OPTIONS)
    journal.probe()
    disk = FullDisk(True, part=100)
    monkeypatch.setattr("controller.journal.write_durably", disk)
    with pytest.raises(JournalWriteError) as raised:
        journal.probe()
    assert raised.value.disk_full
    assert sorted(p.name for p in journal.path.parent.iterdir()) == [JOURNAL]  # no probe left


# Fuzzing the reader: whatever a journal's end holds, the game goes back to its good records.


@cache
def valid_journal() -> tuple[bytes, list[dict[str, Any]]]:
    """An Akuma journal of a random game's first actions, with its entries."""
    rng = random.Random(19)
    state = GAME.new_initial_state({})
    entries: list[dict[str, Any]] = []
    while len(entries) < 12 and not state.is_terminal():
        if state.is_chance_node():
            action = rng.choice([outcome for outcome, _ in state.chance_outcomes()])
        else:
            action = rng.choice(state.legal_actions())
        state.apply(action)
        entries.append({"action": action.to_json()})
    head = line({"game": "akuma", "options": state.options, "started": 0.0})
    return head + b"".join(line(entry) for entry in entries), entries


def good_records(data: bytes) -> tuple[list[dict[str, Any]], int]:
    """The entries of the whole lines before the first that fails, per the journal's format,
    and their length; the head's entry first."""
    found: list[dict[str, Any]] = []
    length = 0
    for row in data.split(b"\n")[:-1]:
        try:
            record = json.loads(row)
        except (ValueError, RecursionError):
            break
        if not isinstance(record, dict) or not isinstance(record.get("body"), dict):
            break
        text = json.dumps(record["body"], separators=(",", ":"), sort_keys=True)
        if "crc" not in record or zlib.crc32(text.encode()) != record["crc"]:
            break
        found.append(record["body"])
        length += len(row) + 1
    return found, length


@st.composite
def damaged_journals(draw: st.DrawFn) -> bytes:
    """The valid journal with a part replaced by arbitrary bytes, lines appended, or both."""
    data, _ = valid_journal()
    start = draw(st.integers(0, len(data)))
    end = draw(st.integers(start, min(len(data), start + 80)))
    data = data[:start] + draw(st.binary(max_size=80)) + data[end:]
    extra = draw(st.lists(st.binary(max_size=40), max_size=3))
    return data + b"".join(row + b"\n" for row in extra) + draw(st.binary(max_size=20))


@given(damaged_journals())
def test_fuzz_recovery_goes_back_to_the_good_records(damaged: bytes) -> None:
    valid, entries = valid_journal()
    head_length = valid.index(b"\n") + 1
    differ = (k for k, (a, b) in enumerate(zip(valid, damaged, strict=False)) if a != b)
    same = next(differ, min(len(valid), len(damaged)))  # the bytes before the first damaged one
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder))
        journal.path.write_bytes(damaged)
        try:
            record = journal.recover()
        except JournalError:
            # Only with no whole first record, which names the game: nothing to go back to.
            assert same < head_length or len(damaged) < head_length
            assert journal.path.read_bytes() == damaged  # nothing cut
            return
        finally:
            journal.close()
        good = journal.path.read_bytes()
        kept = sorted(Path(folder).glob("journal.damaged-*"))
        # Whole lines past the good records are kept aside; only a torn last line is cut.
        rest = damaged[len(good) :]
        assert damaged.startswith(good) and record.torn == bool(rest.rpartition(b"\n")[2])
        if b"\n" in rest:
            assert record.damage is not None and record.damage.records == rest.count(b"\n")
            assert [p.read_bytes() for p in kept] == [rest]
        else:
            assert record.damage is None and not kept
        bodies, length = good_records(damaged)
        assert len(good) == length
        assert [{"game": record.game, "options": record.options}, *record.entries] == [
            {k: v for k, v in bodies[0].items() if k != "started"},
            *bodies[1:],
        ]
        # Every record wholly before the first damaged byte is there, and the game replays to
        # the position they reach.
        untouched = valid[:same].count(b"\n") - 1
        assert record.entries[:untouched] == entries[:untouched]
        if record.entries == entries[: len(record.entries)]:
            replayed = GAME.replay(record.history(), record.options)
            assert replayed.history() == [e["action"] for e in record.entries]
        assert read_journal(journal.path)[0].damage is None


@given(st.binary(max_size=300))
def test_fuzz_any_bytes_read_as_a_journal_or_a_clear_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / JOURNAL
        path.write_bytes(data)
        try:
            record, good_length = read_journal(path)
        except JournalError:
            return
        assert data[:good_length].endswith(b"\n")
        assert isinstance(record.game, str) and isinstance(record.options, dict)


def test_the_table_s_chosen_move_is_kept_until_the_game_moves_on(journal: Journal) -> None:
    """`{"chosen": ID}`: the move a seat the table plays chose, which a restart lights again;
    it leaves the game as it was, so a take-back before it is still the last change (the
    review: a restart then forgot to guide the pieces back)."""
    written(journal, ACTIONS[:2])
    journal.recover()
    journal.append_take_back(1)
    journal.append_chosen(ACTIONS[1]["type"])
    journal.append_hints(False)
    journal.close()
    record = Journal(journal.path.parent).read()
    assert record.chosen == ACTIONS[1]["type"] and record.ends_in_take_back()
    assert record.history() == ACTIONS[:1]  # chosen is no move
    resumed = Journal(journal.path.parent)
    resumed.recover()
    assert resumed.chosen == ACTIONS[1]["type"]
    resumed.append_action(ACTIONS[1])
    resumed.close()
    record = Journal(journal.path.parent).read()
    assert record.chosen is None and not record.ends_in_take_back()
