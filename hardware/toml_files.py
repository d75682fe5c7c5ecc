"""Reading the table's TOML files (config, board profiles) with errors that name the file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


def read_toml(path: Path, what: str, error: type[ValueError]) -> dict[str, Any]:
    """Parse `path`; an unreadable or malformed file raises `error` naming `what` and the path."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as problem:
        raise error(f"cannot read {what} {path}: {problem.strerror}") from problem
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as problem:
        raise error(f"{what} {path} is not valid TOML: {problem}") from problem
