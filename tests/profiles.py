"""Board profiles made for tests from the built-in ones."""

from __future__ import annotations

import re
from pathlib import Path

from hardware.profile import builtin_profile_path


def akuma_without_table(folder: Path) -> Path:
    """Akuma's built-in profile with no table size, so no markers and no dice tray: a table
    of reeds alone, which no camera can be calibrated over."""
    text = builtin_profile_path("akuma").read_text(encoding="utf-8")
    text, dropped = re.subn(r"\[table\]\nsize_mm = .*\n|\[dice\]\ntray = .*\n", "", text)
    assert dropped == 2, "the built-in akuma profile has changed: mend this helper"
    path = folder / "akuma-no-table.toml"
    path.write_text(text, encoding="utf-8")
    return path
