"""A board profile's problems, every one collected, each with where it lies in its file: the
line a builder must go to.

tomllib gives values, not positions, so the text is read again, line by line, for its table
headers (`[leds]`, `[[spots]]`) and the keys under them. That is enough for what profiles hold:
a key's line is where its value starts, a multi-line array included. A spot that a `[grid]`
makes is found at the `[grid]` key that made it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"\s*([A-Za-z0-9_-]+)\s*=\s*(.*)$")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')
_ID = re.compile(r'"([^"\\]*)"|(-?[0-9]+)\s*(#.*)?$')
# The [grid] key that makes each key of a spot.
_GRID_KEYS = {"reed": "reeds", "leds": "rows", "region": "cell_mm", "id": "rows"}


@dataclass(frozen=True)
class Where:
    """A place in a profile: a table (`section`, "" for the top level), an entry of an array
    of tables (`item`: a spot's or marker's id, or its index), and a key in it."""

    section: str = ""
    key: str = ""
    item: str | int | None = None

    def __str__(self) -> str:
        if self.section == "spots" and self.item is not None:
            name = f"spot {self.item!r}" if isinstance(self.item, str) else f"spots[{self.item}]"
        elif self.section == "markers" and self.item is not None:
            name = f"marker {self.item}"
        else:
            name = f"[{self.section}]" if self.section else ""
        return " ".join(part for part in (name, self.key) if part) or "the file"


@dataclass
class _Block:
    name: str  # "" for the top level
    line: int
    keys: dict[str, int] = field(default_factory=dict)
    id: str | int | None = None


def _blocks(text: str) -> list[_Block]:
    blocks = [_Block("", 1)]
    depth = 0  # open brackets of a multi-line value: its lines hold no keys
    for number, line in enumerate(text.splitlines(), start=1):
        if depth == 0:
            header = _HEADER.match(line)
            if header is not None:
                blocks.append(_Block(header[2], number))
                continue
            key = _KEY.match(line)
            if key is not None:
                block = blocks[-1]
                block.keys.setdefault(key[1], number)
                if key[1] == "id":
                    found = _ID.match(key[2])
                    if found is not None:
                        block.id = found[1] if found[1] is not None else int(found[2])
        code = _STRING.sub('""', line).split("#", 1)[0]
        depth = max(0, depth + code.count("[") - code.count("]"))
    return blocks


def find_line(text: str, where: Where) -> int | None:
    """The line of `where` in a profile's `text`, counted from 1; None if it is not written
    there (a default, say)."""
    blocks = _blocks(text)
    if where.section in ("spots", "markers") and where.item is not None:
        entries = [b for b in blocks if b.name == where.section]
        if isinstance(where.item, int) and not isinstance(where.item, bool):
            by_id = [b for b in entries if b.id == where.item]
            entry = (
                by_id[0] if by_id else (entries[where.item] if where.item < len(entries) else None)
            )
        else:
            entry = next((b for b in entries if b.id == where.item), None)
        if entry is not None:
            return entry.keys.get(where.key, entry.line)
        grid = next((b for b in blocks if b.name == "grid"), None)
        if where.section == "spots" and grid is not None:
            return grid.keys.get(_GRID_KEYS.get(where.key, ""), grid.line)
        return None
    if not where.section:
        return blocks[0].keys.get(where.key)
    block = next((b for b in blocks if b.name == where.section), None)
    if block is None:
        # Written inline at the top level (`leds = { count = 63 }`), or not at all.
        return blocks[0].keys.get(where.section)
    return block.keys.get(where.key, block.line)


class ProfileError(ValueError):
    """A board profile that cannot drive the table, with the reason: every problem found, each
    with its place in the file (`problems`)."""

    def __init__(self, message: str, problems: tuple[ProfileProblem, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


class KeyProblem(ProfileError):
    """A problem of one key of the entry being checked."""

    def __init__(self, message: str, key: str) -> None:
        super().__init__(message)
        self.key = key


class ProfileProblem(NamedTuple):
    """One thing wrong in a profile: what, where (a table, entry and key), on which line."""

    message: str
    where: Where
    line: int | None = None

    def __str__(self) -> str:
        return self.message if self.line is None else f"line {self.line}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "key": str(self.where), "line": self.line}


# The longest message of a profile's problems: a profile of another board size has hundreds.
MAX_MESSAGE = 800


class Problems:
    """The problems of one profile, collected section by section: every one is reported."""

    def __init__(self, source: str, text: str | None) -> None:
        self.source = source
        self.text = text
        self.found: list[ProfileProblem] = []

    def add(self, message: str, where: Where) -> None:
        found = _KEY_IN_MESSAGE.match(message)
        if found is not None and not where.key and where.section in ("", found[1]):
            where = Where(found[1], found[2])
        line = None if self.text is None else find_line(self.text, where)
        self.found.append(ProfileProblem(message, where, line))

    @contextmanager
    def at(self, where: Where) -> Iterator[None]:
        """Check a part of the profile: a problem in it is kept, and the checks go on."""
        try:
            yield
        except ProfileError as error:
            self.add(
                str(error),
                replace(where, key=error.key) if isinstance(error, KeyProblem) else where,
            )

    def error(self) -> ProfileError:
        """All the problems in one line, as every error of the table is (a log's, a status's);
        a long list is cut short, and `smartboard check --profile` lists every one."""
        found = self.found
        head = f"board profile {self.source}: "
        if len(found) == 1:
            problem = found[0]
            line = "" if problem.line is None else f" (line {problem.line})"
            return ProfileError(head + problem.message + line, tuple(found))
        head += f"{len(found)} problems: "
        said: list[str] = []
        for problem in found:
            if len(head) + sum(len(s) + 2 for s in said) + len(str(problem)) > MAX_MESSAGE:
                break
            said.append(str(problem))
        more = len(found) - len(said)
        rest = f"; and {more} more (`smartboard check --profile FILE` lists them)" if more else ""
        return ProfileError(head + "; ".join(said) + rest, tuple(found))


# "[leds] count must be...": the table and key a message names first.
_KEY_IN_MESSAGE = re.compile(r"\[([a-z]+)\] (?!has\b)([a-z_]+)\b")
