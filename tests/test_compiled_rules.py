"""The rules compiled by mypyc (setup.py, controller/rules/compiled.py): the same games as their
source, and an out-of-date build never run."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import controller.rules as rules
from controller.rules import GAMES
from controller.rules.compiled import built, stale
from controller.simulate import play_random_game

ROOT = Path(__file__).resolve().parent.parent
SEEDS = range(8)
OPTIONS = {"voodoo": {"players": 3}, "takeover": {"players": 3}}

# Random games played with the rules found in the folder given, each one's action ids by game.
GAMES_SCRIPT = """
import json, random, sys
import controller.rules as rules
from controller.simulate import play_random_game
histories = {}
for name, game in rules.GAMES.items():
    for seed in json.loads(sys.argv[2]):
        options = json.loads(sys.argv[1]).get(name)
        state = play_random_game(game, random.Random(seed), options)
        histories[f"{name}/{seed}"] = [a.id for a in state.actions()] + [state.returns()]
print(json.dumps({"compiled": rules.COMPILED, "histories": histories}))
"""


def test_a_module_is_built_when_it_has_an_extension_and_stale_when_its_source_is_newer(
    tmp_path: Path,
) -> None:
    suffix = EXTENSION_SUFFIXES[0]
    for name in ("fresh", "old"):
        (tmp_path / f"{name}.py").write_text("")
        (tmp_path / f"{name}{suffix}").write_bytes(b"")
    (tmp_path / f"lone{suffix}").write_bytes(b"")  # no source: not ours
    (tmp_path / "plain.py").write_text("")
    os.utime(tmp_path / f"fresh{suffix}", (2000, 2000))
    os.utime(tmp_path / "fresh.py", (1000, 1000))
    os.utime(tmp_path / f"old{suffix}", (1000, 1000))
    os.utime(tmp_path / "old.py", (2000, 2000))
    assert set(built(tmp_path)) == {"fresh", "old"}
    assert stale(built(tmp_path)) == ["old"]


def test_the_rules_run_compiled_where_a_c_compiler_is() -> None:
    """`make` compiles them; the extensions are optional, so a build that failed would leave
    the source running, twice as slow, unnoticed but for this."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler here: the rules run as their source")
    assert rules.COMPILED, "the rules are not compiled, or older than their source: run `make`"


def source_games(folder: Path) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", GAMES_SCRIPT, json.dumps(OPTIONS), json.dumps(list(SEEDS))],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(folder)},
        check=True,
    )
    answer: dict[str, object] = json.loads(result.stdout)
    answer["stderr"] = result.stderr
    return answer


@pytest.mark.skipif(not rules.COMPILED, reason="the rules are not compiled here (run `make`)")
def test_the_compiled_rules_play_the_games_of_their_source_and_an_older_build_is_left_aside(
    tmp_path: Path,
) -> None:
    """A copy of the package whose sources are newer than its build runs the source, with a
    warning; seeded random games of every game then list and play exactly the same actions,
    to the same returns, as the build in this process."""
    package = tmp_path / "controller"
    shutil.copytree(ROOT / "controller" / "rules", package / "rules")
    shutil.copy(ROOT / "controller" / "__init__.py", package)
    shutil.copy(ROOT / "controller" / "simulate.py", package)
    for source in (package / "rules").glob("*.py"):
        source.touch()
    answer = source_games(tmp_path)
    assert answer["compiled"] is False
    assert "compiled rules are older than" in str(answer["stderr"])

    histories = answer["histories"]
    assert isinstance(histories, dict)
    assert len(histories) == len(GAMES) * len(SEEDS)
    for name, game in GAMES.items():
        for seed in SEEDS:
            state = play_random_game(game, random.Random(seed), OPTIONS.get(name))
            played = [a.id for a in state.actions()] + [state.returns()]
            assert played == histories[f"{name}/{seed}"], f"{name}, seed {seed}"
