"""The journal (controller/journal.py): CRC'd JSON lines, torn records, retractions, locking."""

from __future__ import annotations

import json
import logging
import os
import re
import time
import types
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.journal import JOURNAL, Journal, JournalError, Record, read_journal

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
    journal.append_retraction(1)
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
    "tail",
    [b'{"crc":12345,"bo', b"\x00\x00\x00\n"],
    ids=["garbage-without-newline", "unparseable-complete-line"],
)
def test_torn_tail_is_dropped(
    journal: Journal, caplog: pytest.LogCaptureFixture, tail: bytes
) -> None:
    path = written(journal)
    with path.open("ab") as handle:
        handle.write(tail)
    _check_torn_then_recovered(path, caplog, ACTIONS)


def test_complete_last_line_with_bad_crc_is_dropped(
    journal: Journal, caplog: pytest.LogCaptureFixture
) -> None:
    path = written(journal)
    rows = lines_of(path)
    assert rows[-1] == b""
    rows[-2] = rows[-2].replace(b'"count":1', b'"count":2')  # body changed, CRC kept
    path.write_bytes(b"\n".join(rows))
    _check_torn_then_recovered(path, caplog, ACTIONS[:-1])


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
    resumed.append_retraction(1)
    resumed.close()
    assert Journal(path.parent).read().history() == ACTIONS[:-1]


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda row: row.replace(b'"total":10', b'"total":11'), "checksum mismatch"),
        (lambda row: row[:-3], "unreadable record"),
        (lambda row: b"", "unreadable record"),
        (lambda row: b'{"crc":0}', "unreadable record"),
    ],
)
def test_damage_in_the_middle_names_the_line(journal: Journal, damage: Any, reason: str) -> None:
    path = written(journal)
    rows = lines_of(path)
    rows[2] = damage(rows[2])  # line 3: the Roll
    path.write_bytes(b"\n".join(rows))
    with pytest.raises(JournalError, match=re.escape(f"{path}:3: {reason}")):
        Journal(path.parent).read()
    with pytest.raises(JournalError):
        Journal(path.parent).recover()
    assert b"\n".join(rows) == path.read_bytes()  # nothing cut


def test_bad_last_complete_line_before_a_torn_tail_is_an_error(journal: Journal) -> None:
    # Two damaged records cannot both be the one a power cut tore.
    path = written(journal)
    rows = lines_of(path)
    rows[-2] = rows[-2].replace(b'"count":1', b'"count":2')
    path.write_bytes(b"\n".join(rows) + b'{"crc":1')
    with pytest.raises(JournalError, match=re.escape(f"{path}:5: checksum mismatch")):
        read_journal(path)


def test_body_that_is_not_an_object(journal: Journal) -> None:
    path = written(journal)
    with path.open("ab") as handle:
        handle.write(b'{"crc":%d,"body":[1,2]}\n' % zlib.crc32(b"[1,2]"))
        handle.write(line({"action": ACTIONS[0]}))
    with pytest.raises(JournalError, match=re.escape(f"{path}:6: record body is not an object")):
        read_journal(path)


# Retractions.


def test_retraction_removes_the_last_actions(journal: Journal) -> None:
    journal.start("akuma", OPTIONS)
    for action in ACTIONS:
        journal.append_action(action)
    journal.append_retraction(2)
    journal.append_action({"type": "Roll", "total": 4})
    journal.append_retraction(1)
    journal.append_action({"type": "Roll", "total": 6})
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
        with pytest.raises(JournalError, match="another smartboard daemon is using"):
            second.lock()
        first.close()
        second.lock()  # free again once the first lets go
        third = Journal(tmp_path)
        with pytest.raises(JournalError, match=re.escape(str(tmp_path))):
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


@pytest.mark.parametrize("content", [b"", b"\n", b'{"crc":1,"body":{"ga'])
def test_empty_or_torn_first_record(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / JOURNAL
    path.write_bytes(content)
    with pytest.raises(JournalError):
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
