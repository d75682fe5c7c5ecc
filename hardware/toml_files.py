"""Reading the table's TOML files (config, board profiles) with errors that name the file."""

from __future__ import annotations

import reprlib
import tomllib
from pathlib import Path
from typing import Any

# The largest TOML file the table reads: 1 MiB, some 60 times the largest one shipped (the
# Hostile Takeover profile, 17 KB). Parsing that much takes about 5 MB; a larger file is refused
# after reading this much of it, so no file can make the daemon grow (a 30 MB [palette] did).
MAX_TOML_BYTES = 1 << 20


def read_toml(
    path: Path, what: str, error: type[ValueError], max_bytes: int = MAX_TOML_BYTES
) -> dict[str, Any]:
    """Parse `path`; an unreadable, oversized or malformed file raises `error` naming `what`
    and the path."""
    return read_toml_text(path, what, error, max_bytes)[0]


def read_toml_text(
    path: Path, what: str, error: type[ValueError], max_bytes: int = MAX_TOML_BYTES
) -> tuple[dict[str, Any], str]:
    """`read_toml`, with the file's text: where a later check finds its lines."""
    try:
        with path.open("rb") as file:
            raw = file.read(max_bytes + 1)
    except OSError as problem:
        raise error(f"cannot read {what} {path}: {problem.strerror}") from problem
    if len(raw) > max_bytes:
        raise error(f"{what} {path} is larger than {max_bytes // 1024} KiB: it cannot be right")
    try:
        text = raw.decode("utf-8")
        return tomllib.loads(text), text
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as problem:
        raise error(f"{what} {path} is not valid TOML: {problem}") from problem
    except ValueError as problem:  # tomllib's int() of more than 4,300 digits
        raise error(f"{what} {path} holds a number too long to read") from problem
    except RecursionError:
        raise error(f"{what} {path} nests arrays or tables too deeply") from None


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = 60
_SHORT.maxlist = _SHORT.maxdict = 6
_SHORT.maxlevel = 3


def shown(value: object) -> str:
    """A value as an error message quotes it: its repr, cut short, on one line."""
    return _SHORT.repr(value)
