"""The journal: every applied action, appended and fsynced before the lights change.

One JSON object per line, each with a CRC-32 of its body, so that a record torn by a power cut
is told apart from one that was written whole. The first record names the game and options.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rules.api import JSON

log = logging.getLogger(__name__)

JOURNAL = "journal.jsonl"


class JournalError(ValueError):
    """A journal that cannot be trusted past some record, with where and why."""


@dataclass
class Record:
    """What a journal holds: the game, its options and its entries in order."""

    game: str
    options: dict[str, Any]
    entries: list[JSON] = field(default_factory=list)
    torn: bool = False

    def history(self) -> list[JSON]:
        """The applied actions, after the retractions of misread dice."""
        actions: list[JSON] = []
        for entry in self.entries:
            if "action" in entry:
                actions.append(entry["action"])
            elif "retract" in entry:
                count = entry["retract"]
                if type(count) is not int or not 0 < count <= len(actions):
                    raise JournalError(f"cannot retract {count!r} of {len(actions)} actions")
                del actions[len(actions) - count :]
        return actions


def _encode(body: Mapping[str, Any]) -> bytes:
    text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    crc = zlib.crc32(text.encode())
    return f'{{"crc":{crc},"body":{text}}}\n'.encode()


def _decode(line: bytes, number: int, path: Path) -> JSON:
    try:
        record = json.loads(line)
        body = record["body"]
        crc = record["crc"]
    except (ValueError, KeyError, TypeError) as error:
        raise JournalError(f"{path}:{number}: unreadable record ({error})") from error
    text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    if zlib.crc32(text.encode()) != crc:
        raise JournalError(f"{path}:{number}: checksum mismatch")
    if not isinstance(body, dict):
        raise JournalError(f"{path}:{number}: record body is not an object")
    return body


def read_journal(path: Path) -> tuple[Record, int]:
    """Parse a journal; returns the record and the byte length of its good prefix.

    Only the last record may be torn: it is dropped with a warning. Damage anywhere else is an
    error, because dropping it would silently lose applied moves.
    """
    data = path.read_bytes()
    complete, _, tail = data.rpartition(b"\n")
    lines = complete.split(b"\n") if complete else []
    bodies: list[JSON] = []
    good_length = 0
    torn = bool(tail)
    for number, line in enumerate(lines, start=1):
        try:
            bodies.append(_decode(line, number, path))
        except JournalError:
            if number < len(lines) or tail:
                raise
            torn = True
            break
        good_length += len(line) + 1
    if torn:
        log.warning("%s: dropping a torn last record (%d bytes)", path, len(data) - good_length)
    if not bodies or "game" not in bodies[0]:
        raise JournalError(f"{path}: the first record does not name a game")
    head = bodies[0]
    return Record(str(head["game"]), dict(head.get("options", {})), bodies[1:], torn), good_length


class Journal:
    """An open journal file in a state directory, appended to by the daemon."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / JOURNAL
        self._file: Any = None
        self._lock: Any = None

    def lock(self) -> None:
        """Hold the state directory for this process: two daemons must not write one game."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = (self.path.parent / "daemon.lock").open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise JournalError(f"another smartboard daemon is using {self.path.parent}") from None
        self._lock = handle

    def exists(self) -> bool:
        return self.path.exists()

    def read(self) -> Record:
        record, _ = read_journal(self.path)
        return record

    def recover(self) -> Record:
        """Read for resuming: a torn last record is cut off the file, so appends stay whole."""
        record, good_length = read_journal(self.path)
        if record.torn:
            with self.path.open("r+b") as handle:
                handle.truncate(good_length)
                os.fsync(handle.fileno())
        self._file = self.path.open("ab")
        return record

    def start(self, game: str, options: Mapping[str, Any]) -> None:
        """Begin a new game; a finished game's journal is kept beside it under a dated name."""
        if self._file is not None:
            self._file.close()
        if self.path.exists():
            stamp = time.strftime("%Y%m%d-%H%M%S")
            kept = self.path.with_name(f"journal-{stamp}.jsonl")
            serial = 1
            while kept.exists():  # never overwrite an earlier game
                serial += 1
                kept = self.path.with_name(f"journal-{stamp}-{serial}.jsonl")
            self.path.rename(kept)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("ab")
        self._write({"game": game, "options": dict(options), "started": time.time()})
        _fsync_dir(self.path.parent)

    def append_action(self, action: JSON) -> None:
        self._write({"action": action})

    def append_retraction(self, count: int) -> None:
        """Undo the last `count` actions: a misread roll being corrected."""
        self._write({"retract": count})

    def _write(self, body: Mapping[str, Any]) -> None:
        if self._file is None:
            raise RuntimeError("journal is not open")
        self._file.write(_encode(body))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
