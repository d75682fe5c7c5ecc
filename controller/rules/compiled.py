"""Whether the rules run compiled, and the source instead when the compiled build is older.

`make` compiles the rules modules with mypyc (setup.py): C extensions of the same typed source,
next to it, which Python imports in its place. A module edited or pulled since then would be
played by its older build; so when any extension is older than its source, all of them are left
aside (they share one runtime and one set of classes) and the source runs, with a warning.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from collections.abc import Mapping, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, ModuleSpec
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent


def built(folder: Path) -> dict[str, Path]:
    """The modules of `folder` that have an extension for this Python, by name."""
    found = {}
    for suffix in EXTENSION_SUFFIXES:
        for extension in folder.glob(f"*{suffix}"):
            name = extension.name.removesuffix(suffix)
            if (folder / f"{name}.py").is_file():
                found[name] = extension
    return found


def stale(extensions: Mapping[str, Path]) -> list[str]:
    """The modules among `built` ones whose source is newer than their extension."""
    return sorted(
        name
        for name, extension in extensions.items()
        if extension.with_name(f"{name}.py").stat().st_mtime > extension.stat().st_mtime
    )


class _SourceFinder(MetaPathFinder):
    """Finds the package's compiled modules as their source."""

    def __init__(self, package: str, folder: Path, names: Sequence[str]) -> None:
        self.package = package
        self.folder = folder
        self.names = frozenset(names)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != self.package or name not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, self.folder / f"{name}.py")


def use_fresh(package: str, folder: Path) -> bool:
    """Run the package's source instead of its compiled build if any of it is out of date.
    True when the compiled build is used."""
    names = built(folder)
    if not names:
        return False
    old = stale(names)
    if not old:
        return True
    sys.meta_path.insert(0, _SourceFinder(package, folder, list(names)))
    warnings.warn(
        f"the compiled rules are older than {', '.join(n + '.py' for n in old)}: running the "
        "source instead, about half as fast (run `make` to compile them again)",
        RuntimeWarning,
        stacklevel=2,
    )
    return False
