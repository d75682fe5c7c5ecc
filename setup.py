"""Builds smartboard (pyproject.toml holds the rest), with its rules compiled to C by mypyc.

mypyc compiles the same typed source (the rules are mypy --strict clean) into C extensions that
play random games and the computer's searches about twice as fast (benchmarks/engines.py). The
extensions are optional: without a C compiler the build goes on and the source runs as it is.
`make` builds them in place; controller/rules/compiled.py runs the source when they are older.
"""

import os
from typing import Any

from mypyc.build import mypycify
from setuptools import setup
from setuptools.command.build_ext import build_ext

COMPILED = [
    f"controller/rules/{name}.py"
    for name in ("api", "akuma", "voodoo", "takeover", "potions", "mightymania")
]


class BuildExt(build_ext):
    """Dates every extension at a build that made them all: a module's own small extension
    is not rebuilt when only the shared one changes, and compiled.py compares its date with
    the source's."""

    def run(self) -> None:
        self.failed = False
        super().run()
        if not self.failed:
            for extension in self.extensions:
                os.utime(self.get_ext_fullpath(extension.name))

    def build_extension(self, ext: Any) -> None:
        try:
            super().build_extension(ext)
        except Exception:
            self.failed = True  # an optional extension: the build goes on without it
            raise


# opt_level 1: compiled in half the time of 3 (70 s here, and minutes on a Pi), for about 4 %
# fewer random games a second.
extensions = mypycify(COMPILED, group_name="smartboard_rules", multi_file=True, opt_level="1")
for extension in extensions:
    extension.optional = True

setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt})
