"""The journal: every applied action, appended and fsynced before the lights change.

One JSON object per line, each with a CRC-32 of its body, so that a record torn by a power cut
is told apart from one that was written whole. The first record names the game and options.

A record that does not read back is never dropped silently: an incomplete last line (a write cut
short, never acknowledged) is cut off; whole records that fail their check are kept aside in
`journal.damaged-<time>` before the journal is cut back to the last good one, and the daemon says
so. A write that fails (a full disk) leaves the journal as it was, and the game unchanged.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.log_marks import TakeBacks
from controller.rules.api import JSON

log = logging.getLogger(__name__)

JOURNAL = "journal.jsonl"
KEPT = "journal-{}.jsonl"
"""A game's journal once the next game has started: the time it was kept in the name."""
COMPUTER_DICE = ("hand", "virtual")
"""Who throws the dice of the seats the table plays: a hand in the tray, or the table itself."""

PROBE_BYTES = 4096
"""What a probe for free space writes: a block, more than any record needs."""


class JournalError(ValueError):
    """A journal that cannot be trusted past some record, with where and why."""


class EmptyJournalError(JournalError):
    """A journal file with no whole record: a power cut right after it was created."""


class StateDirInUseError(Exception):
    """Another daemon holds the state directory: this journal is not at fault, and the daemon can
    start once the other has stopped."""


class JournalWriteError(Exception):
    """A record that could not be written (a full disk, a quota, an I/O error): the journal is
    as it was before the write."""

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(f"cannot write {path}: {error.strerror or error}")
        self.disk_full = error.errno in (errno.ENOSPC, errno.EDQUOT)


@dataclass(frozen=True)
class Damage:
    """Whole records at the journal's end that do not read back: a flipped byte, a bad sector."""

    reason: str  # where the first of them is, and what is wrong with it
    records: int  # how many lines, from that one on
    kept: Path | None = None  # where `Journal.recover` kept them

    def sentence(self) -> str:
        """What the players are told: the game went back to before these records."""
        # A move may be followed by the record of the roll it came from: records, not moves.
        lost = "the last move" if self.records == 1 else f"the last {self.records} records"
        where = f"kept in {self.kept}" if self.kept is not None else self.reason
        return f"{lost} could not be read back ({where}); check the board"


@dataclass
class Record:
    """What a journal holds: the game, its options and its entries in order."""

    game: str
    options: dict[str, Any]
    entries: list[JSON] = field(default_factory=list)
    torn: bool = False  # an incomplete last line followed the entries
    damage: Damage | None = None  # whole records that did not read back followed them
    started_by: str | None = None  # the control request that started the game, if one did
    names: list[str | None] = field(default_factory=list)  # chosen per seat; none before names
    started: float | None = None  # when the game started (time.time()), if the journal says
    computer: dict[int, str] = field(default_factory=dict)  # the seats the table plays: level
    hints: bool = True  # whether the players may ask the table for hints, as last switched
    computer_dice: str = "hand"  # who throws its seats' dice: "hand" (in the tray), "virtual"
    chosen: str | None = None  # the move a seat the table plays chose, not yet carried out
    deal: str = ""  # the seed of the simulated table's hands (controller/hands.py), if any
    # The dice each decision taken back had brought, as they fell, in the order taken back:
    # {"at": its place in the line, "decision": it, "dice": [outcomes]} (Session.take_back).
    dice_kept: list[JSON] = field(default_factory=list)
    # The cards a person laid face down on the simulated table, by the place in the line of
    # the chance step that laid each (controller/hands.py): a restart lays the same.
    secrets: dict[int, str] = field(default_factory=dict)

    def requests(self) -> dict[str, list[JSON]]:
        """The actions each control request applied, by its id, in the order applied."""
        applied: dict[str, list[JSON]] = {}
        for entry in self.entries:
            request = entry.get("request")
            if "action" in entry and isinstance(request, str):
                applied.setdefault(request, []).append(entry["action"])
        return applied

    def taken_back(self) -> dict[str, list[JSON]]:
        """The actions each control request took back (`smartboard undo`), by its id."""
        return self._walk()[1]

    def history(self) -> list[JSON]:
        """The applied actions, after the retractions of misread dice and the take-backs."""
        return self._walk()[0]

    def take_backs(self) -> TakeBacks:
        """Where the line was taken back (`smartboard undo`), for the game's log."""
        return self._walk()[2]

    def ends_in_take_back(self) -> bool:
        """Whether the game's last change was a take-back: records that leave the game as it
        was (hints switched, the table's move chosen, a card to lay chosen) may follow it."""
        changes = [e for e in self.entries if not e.keys() & {"chosen", "hints", "secret"}]
        return bool(changes) and "take_back" in changes[-1]

    def _walk(self) -> tuple[list[JSON], dict[str, list[JSON]], TakeBacks]:
        actions: list[JSON] = []
        taken: dict[str, list[JSON]] = {}
        marks = TakeBacks()
        for entry in self.entries:
            if "action" in entry:
                actions.append(entry["action"])
                marks.applied([entry["action"]], fallen=1 if entry.get("fallen") is True else 0)
                continue
            # A misread roll retracted, or moves taken back: both leave the game as it was
            # before them; only a take-back's rolls stay in the dice's record (dice_stats.py).
            key = "retract" if "retract" in entry else "take_back" if "take_back" in entry else ""
            if not key:
                continue
            count = entry[key]
            if type(count) is not int or not 0 < count <= len(actions):
                verb = "retract" if key == "retract" else "take back"
                raise JournalError(f"cannot {verb} {count!r} of {len(actions)} actions")
            request = entry.get("request")
            if key == "take_back" and isinstance(request, str):
                taken[request] = actions[len(actions) - count :]
            del actions[len(actions) - count :]
            if key == "take_back":
                marks.taken_back(count)
            else:
                marks.applied([], retract=count)
        return actions, taken, marks


def _encode(body: Mapping[str, Any]) -> bytes:
    text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    crc = zlib.crc32(text.encode())
    return f'{{"crc":{crc},"body":{text}}}\n'.encode()


def _decode(line: bytes, number: int, path: Path) -> JSON:
    try:
        record = json.loads(line)
        body = record["body"]
        crc = record["crc"]
        text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    # RecursionError: a line of a thousand nested brackets.
    except (ValueError, KeyError, TypeError, IndexError, RecursionError) as error:
        raise JournalError(f"{path}:{number}: unreadable record ({error})") from error
    if zlib.crc32(text.encode()) != crc:
        raise JournalError(f"{path}:{number}: checksum mismatch")
    if not isinstance(body, dict):
        raise JournalError(f"{path}:{number}: record body is not an object")
    return body


def read_journal(path: Path) -> tuple[Record, int]:
    """Parse a journal; returns the record of its good prefix and that prefix's byte length.

    The good prefix ends at the first line that does not read back; what follows is the
    record's `damage` (whole lines) or makes it `torn` (an incomplete last line). A journal
    whose first record does not read back is an error: there is no game to go back to.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        raise JournalError(f"cannot read the journal {path}: {error.strerror or error}") from None
    lines = data.split(b"\n")
    tail = lines.pop()  # what follows the last newline: empty, or a record cut short
    if not lines:
        raise EmptyJournalError(f"{path} holds no whole record")
    bodies: list[JSON] = []
    good_length = 0
    damage = None
    for number, line in enumerate(lines, start=1):
        try:
            bodies.append(_decode(line, number, path))
        except JournalError as error:
            damage = Damage(str(error), len(lines) - number + 1)
            break
        good_length += len(line) + 1
    if damage is not None and not bodies:
        raise JournalError(
            f"{damage.reason}: the first record, naming the game, does not read back"
        )
    if tail and damage is None:
        log.warning("%s: dropping a torn last record (%d bytes)", path, len(tail))
    head = bodies[0]
    game, options = head.get("game"), head.get("options", {})
    if not isinstance(game, str):
        raise JournalError(f"{path}: the first record does not name a game")
    if not isinstance(options, dict):
        raise JournalError(f"{path}: the first record's options are not an object")
    started_by = head.get("request") if isinstance(head.get("request"), str) else None
    names = head.get("names", [])
    if not isinstance(names, list) or not all(n is None or isinstance(n, str) for n in names):
        raise JournalError(f"{path}: the first record's names are not a list of names")
    started = head.get("started")
    when = float(started) if isinstance(started, int | float) else None
    record = Record(game, dict(options), bodies[1:], bool(tail), damage, started_by, names, when)
    record.computer, record.hints, record.computer_dice = _players(head, path)
    record.deal = head["deal"] if isinstance(head.get("deal"), str) else ""
    length = 0  # the actions in the line so far
    for body in bodies[1:]:
        # The table's move chosen, until the game moves on: a restart shows it again.
        if isinstance(body.get("chosen"), str):
            record.chosen = body["chosen"]
        elif body.keys() & {"action", "retract", "take_back"}:
            record.chosen = None
        if "take_back" in body and isinstance(body.get("kept"), dict):
            record.dice_kept.append(body["kept"])
        # A card to lay face down chosen for a step of the line, and forgotten with that step.
        if isinstance(body.get("secret"), str) and type(body.get("at")) is int:
            record.secrets[body["at"]] = body["secret"]
        length += "action" in body
        for key in ("retract", "take_back"):
            if type(body.get(key)) is int:
                length -= body[key]
                record.secrets = {at: card for at, card in record.secrets.items() if at < length}
        # Hints switched on or off during the game (`smartboard hints`): the last switch holds.
        if "hints" in body:
            if not isinstance(body["hints"], bool):
                raise JournalError(f"{path}: a record switches hints to {body['hints']!r}")
            record.hints = body["hints"]
    return record, good_length


def _players(head: JSON, path: Path) -> tuple[dict[int, str], bool, str]:
    """The first record's computer seats (seat index -> level), whether hints are on, and who
    throws the dice of the computer's seats."""
    computer, hints = head.get("computer", {}), head.get("hints", True)
    dice = head.get("computer_dice", "hand")
    if not isinstance(computer, dict) or not all(
        key.isdigit() and isinstance(level, str) for key, level in computer.items()
    ):
        raise JournalError(f"{path}: the first record's computer seats are not seats and levels")
    if not isinstance(hints, bool):
        raise JournalError(f"{path}: the first record's hints are neither on nor off")
    if dice not in COMPUTER_DICE:
        raise JournalError(f"{path}: the first record's computer dice are {dice!r}")
    return {int(seat): level for seat, level in computer.items()}, hints, dice


def write_durably(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd` and fsync it: the one way records reach the disk."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


class Journal:
    """An open journal file in a state directory, appended to by the daemon."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / JOURNAL
        self._file: Any = None
        self._size = 0  # the journal's length after its last whole write
        self._lock: Any = None
        self.damage: Damage | None = None
        """What `recover` found damaged and kept aside, until the next record is written."""
        self.recovered: Record | None = None
        """The record `recover` read to resume the game, until a new game starts."""
        self.request: str | None = None
        """The id of the control request being answered: written with what it records, so that
        the request sent again after a restart is known as applied."""
        self.names: list[str | None] = []
        """The names chosen for the seats of the game journalled (controller/seats.py)."""
        self.started: float | None = None
        """When the game journalled started, if its journal says."""
        self.computer: dict[int, str] = {}
        """The seats the table plays in the game journalled, and at which level."""
        self.hints = True
        """Whether the players of the game journalled may ask for hints."""
        self.computer_dice = "hand"
        """Who throws the dice of the seats the table plays: "hand" or "virtual"."""
        self.deal = ""
        """The seed the simulated table's hands of the game journalled are dealt from."""
        self.take_backs = TakeBacks()
        """Where the game journalled was taken back, for its log."""
        self.dice_kept: list[JSON] = []
        """The dice each decision taken back had brought (`Record.dice_kept`)."""
        self.secrets: dict[int, str] = {}
        """The cards a person laid face down on the simulated table (`Record.secrets`)."""
        self.chosen: str | None = None
        """The move a seat the table plays chose, lit for a hand until the game moves on."""

    def lock(self) -> None:
        """Hold the state directory for this process: two daemons must not write one game."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = (self.path.parent / "daemon.lock").open("w")
        except OSError as error:
            raise JournalError(
                f"cannot use {self.path.parent}: {error.strerror or error}"
            ) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise StateDirInUseError(
                f"another smartboard daemon is using {self.path.parent}"
            ) from None
        self._lock = handle

    def exists(self) -> bool:
        return self.path.exists()

    def read(self) -> Record:
        record, _ = read_journal(self.path)
        return record

    def recover(self) -> Record:
        """Read for resuming: damaged records are kept aside, then the journal is cut back to its
        good prefix (a torn last record too), so that appends stay whole."""
        record, good_length = read_journal(self.path)
        if record.damage is not None:
            record.damage = replace(record.damage, kept=self._keep_aside(good_length))
            log.warning("%s; %s", record.damage.reason, record.damage.sentence())
        if record.torn or record.damage is not None:
            with self.path.open("r+b") as handle:
                handle.truncate(good_length)
                os.fsync(handle.fileno())
        self._open(good_length)
        self.damage = record.damage
        self.recovered = record
        self.names = list(record.names)
        self.started = record.started
        self.computer, self.hints = dict(record.computer), record.hints
        self.computer_dice = record.computer_dice
        self.deal = record.deal
        self.take_backs = record.take_backs()
        self.dice_kept = list(record.dice_kept)
        self.secrets = dict(record.secrets)
        self.chosen = record.chosen
        return record

    def _keep_aside(self, good_length: int) -> Path:
        """Copy what follows the good prefix beside the journal, before it is cut off."""
        kept = _free_name(self.path, "journal.damaged-{}")
        try:
            with kept.open("xb", buffering=0) as handle:
                write_durably(handle.fileno(), self.path.read_bytes()[good_length:])
            _fsync_dir(self.path.parent)
        except OSError as error:
            kept.unlink(missing_ok=True)
            raise JournalWriteError(kept, error) from error
        return kept

    def start(
        self,
        game: str,
        options: Mapping[str, Any],
        names: Sequence[str | None] = (),
        computer: Mapping[int, str] | None = None,
        hints: bool = True,
        computer_dice: str = "hand",
        deal: str = "",
    ) -> None:
        """Begin a new game, played by `names` (chosen per seat, None for the seat's own name),
        the table playing the `computer` seats (index -> level), their dice thrown by a hand or
        virtual (`computer_dice`), hints on or off; a finished game's journal is kept beside it
        under a dated name. If the first record cannot be written, the journal is left as it
        was, still open."""
        now = time.time()
        started: dict[str, Any] = {"game": game, "options": dict(options), "started": now}
        if any(name is not None for name in names):
            started["names"] = list(names)
        if computer:
            started["computer"] = {str(seat): level for seat, level in sorted(computer.items())}
        if not hints:
            started["hints"] = False
        if computer_dice != "hand":
            started["computer_dice"] = computer_dice
        if deal:
            started["deal"] = deal
        head = _encode(started | ({} if self.request is None else {"request": self.request}))
        kept = handle = None
        try:
            # Renaming needs room too: a full directory or a card remounted read-only refuses.
            if self.path.exists() and self.path.stat().st_size > 0:
                name = _free_name(self.path, KEPT)
                self.path.rename(name)
                kept = name
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = self.path.open("ab", buffering=0)  # appending: a write cut back ends it
            write_durably(handle.fileno(), head)
            _fsync_dir(self.path.parent)
        except OSError as error:
            if handle is not None:
                handle.close()
                self.path.unlink(missing_ok=True)
            if kept is not None:
                kept.rename(self.path)
            raise JournalWriteError(self.path, error) from error
        if self._file is not None:
            self._file.close()
        self._file, self._size = handle, len(head)
        self.damage = self.recovered = None
        self.names = list(names)
        self.started = now
        self.computer, self.hints = dict(computer or {}), hints
        self.computer_dice = computer_dice
        self.deal = deal
        self.take_backs = TakeBacks()
        self.dice_kept = []
        self.secrets = {}
        self.chosen = None

    def append_action(self, action: JSON) -> None:
        self.append_actions([action])

    def append_actions(
        self,
        actions: Sequence[JSON],
        retract: int = 0,
        dice: JSON | None = None,
        fallen: int = 0,
    ) -> None:
        """Record `actions` applied, after retracting the last `retract` (a misread roll being
        corrected), and the `dice` roll they came from (controller/dice_stats.py): all of them
        or, if the write fails, none. The last `fallen` of them are dice given again as they
        fell before a take-back (`Session.take_back`), not thrown."""
        tag: JSON = {} if self.request is None else {"request": self.request}
        bodies: list[JSON] = [{"retract": retract}] if retract else []
        bodies += [{"action": a} | tag for a in actions[: len(actions) - fallen]]
        bodies += [{"action": a, "fallen": True} | tag for a in actions[len(actions) - fallen :]]
        if dice is not None:
            bodies.append({"dice": dice})
        self._write(b"".join(_encode(body) for body in bodies))
        self.take_backs.applied(actions, retract, fallen)
        self.chosen = None

    def append_take_back(self, count: int, kept: JSON | None = None) -> None:
        """Record the last `count` actions taken back (`Session.take_back`): the journal keeps
        them, and a restart resumes from before them; and the dice the decision taken back had
        brought, `kept` to be given again (`Record.dice_kept`)."""
        tag: JSON = {} if self.request is None else {"request": self.request}
        self._write(_encode({"take_back": count} | ({"kept": kept} if kept else {}) | tag))
        self.take_backs.taken_back(count)
        left = len(self.take_backs.line)
        self.secrets = {at: card for at, card in self.secrets.items() if at < left}
        if kept:
            self.dice_kept.append(kept)
        self.chosen = None

    def append_secret(self, at: int, card: str) -> None:
        """Record the card a person lays face down on the simulated table, at the `at`-th
        action of the line (`Record.secrets`)."""
        self._write(_encode({"secret": card, "at": at}))
        self.secrets[at] = card

    def append_chosen(self, action_id: str) -> None:
        """Record the move a seat the table plays chose, lit for a hand to carry out: a restart
        shows the same move, not another thought afresh (the walk: a hand half way through the
        first was then told a second)."""
        self._write(_encode({"chosen": action_id}))
        self.chosen = action_id

    def append_hints(self, on: bool) -> None:
        """Record hints switched on or off during the game: a restart keeps them so."""
        tag: JSON = {} if self.request is None else {"request": self.request}
        self._write(_encode({"hints": on} | tag))
        self.hints = on

    def probe(self) -> None:
        """Whether a record could be written now: a block written, fsynced and removed beside
        the journal. JournalWriteError if not."""
        probe = self.path.with_name("journal.probe")
        try:
            try:
                with probe.open("wb", buffering=0) as handle:
                    write_durably(handle.fileno(), bytes(PROBE_BYTES))
            finally:
                probe.unlink(missing_ok=True)
        except OSError as error:
            raise JournalWriteError(self.path, error) from error

    def _open(self, size: int) -> None:
        self._file = self.path.open("ab", buffering=0)
        self._size = size

    def _write(self, data: bytes) -> None:
        if self._file is None:
            raise RuntimeError("journal is not open")
        fd = self._file.fileno()
        try:
            if os.fstat(fd).st_size != self._size:
                os.ftruncate(fd, self._size)  # what a failed write left, if cutting it failed
            write_durably(fd, data)
        except OSError as error:
            try:
                os.ftruncate(fd, self._size)  # a part written before the disk filled up
            except OSError as again:
                log.error(
                    "%s: cannot cut back a failed write (%s): cut before the next", self.path, again
                )
            raise JournalWriteError(self.path, error) from error
        self._size += len(data)
        self.damage = None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def _free_name(journal: Path, pattern: str) -> Path:
    """A dated name beside the journal, `pattern` filled in, that no file has yet."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = journal.with_name(pattern.format(stamp))
    serial = 1
    while name.exists():  # never overwrite an earlier file
        serial += 1
        name = journal.with_name(pattern.format(f"{stamp}-{serial}"))
    return name


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
