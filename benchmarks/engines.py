"""Random games per second and the search's speed: the rules compiled, as source, and before.

`make` compiles the rules (setup.py); controller/rules/compiled.py runs their source instead when
the build is older. Each figure is the best of `--repeat` runs of `--games` seeded random games
(`controller.simulate`, as `smartboard simulate` plays them), each run in a process of its own,
one thread: the compiled rules from this checkout, the source from a copy of it whose sources are
newer than the build. The runs of the two alternate, so that the machine's other work falls on
both alike. Each run also lets the computer think for the normal level's 1.8 s (an uncapped
search) on a position of a random game, and gives its iterations per second: what the player
meets, since the levels stop on the clock (the search itself, controller/search, is not compiled).

Before: the same random games with the engines as they were when issue 24 asked for them 10x
faster (`--before`, commit cf7594e, taken from git history: a checkout with its history), run
alike, between the others; their random games are drawn alike too, except where an engine now
draws a decision without listing them all (`GameState.sample`, same odds).

`--instructions N` also counts, with valgrind's cachegrind, the instructions of N random games
before and now (compiled), less those of starting Python and importing: a figure the machine's
other work does not change.

Run: .venv/bin/python benchmarks/engines.py [--repeat 3] [--scale 1.0] [--before REV]
     [--instructions N] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Game, options, games a run (about a second of the source's time each).
CONFIGS: list[tuple[str, dict[str, object], int]] = [
    ("akuma", {}, 1000),
    ("voodoo", {"players": 2}, 150),
    ("voodoo", {"players": 4}, 150),
    ("takeover", {"players": 3}, 50),
    ("takeover", {"players": 4}, 50),
    ("potions", {}, 300),
    ("mightymania", {}, 150),
]
BEFORE = "cf7594e"  # the engines when issue 24 asked for them 10x faster
RUN_BEFORE = """
import json, sys
import controller.rules as rules
from controller.simulate import simulate
name, options, games = json.loads(sys.argv[1])
report = simulate(rules.GAMES[name], games, seed=7, options=options)
assert report["finished"] == games
print(json.dumps({"compiled": False, "games_per_second": report["games_per_second"],
                  "iterations_per_second": 0.0}))
"""
COUNT = """
import json, sys
import controller.rules as rules
from controller.simulate import simulate
name, options, games = json.loads(sys.argv[1])
rules.GAMES[name].new_initial_state(options)
if games:
    simulate(rules.GAMES[name], games, seed=7, options=options)
"""
RUN = """
import json, random, sys
import controller.rules as rules
from controller.search import Level, think
from controller.simulate import random_step, simulate
name, options, games = json.loads(sys.argv[1])
game = rules.GAMES[name]
report = simulate(game, games, seed=7, options=options)
assert report["finished"] == games
# The computer's search from a position of a random game, for as long as the normal level.
rng = random.Random(3)
state = game.new_initial_state(options)
hidden = game.deal(state, rng)
for _ in range(12):
    random_step(state, rng, hidden)
while state.is_chance_node() or len(hidden.choices(state) if hidden else state.legal_actions()) < 2:
    random_step(state, rng, hidden)
thought = think(game, state, Level("bench", 10**9, 1.8), seed=1, hidden=hidden)
print(json.dumps({"compiled": rules.COMPILED, "games_per_second": report["games_per_second"],
                  "iterations_per_second": thought.iterations / thought.seconds}))
"""


def source_copy(folder: Path) -> Path:
    """The rules and the simulation, copied with sources newer than the build."""
    package = folder / "controller"
    shutil.copytree(ROOT / "controller" / "rules", package / "rules")
    shutil.copytree(ROOT / "controller" / "search", package / "search")
    for name in ("__init__.py", "simulate.py"):
        shutil.copy(ROOT / "controller" / name, package)
    for source in (package / "rules").glob("*.py"):
        source.touch()
    return folder


def before_copy(folder: Path, revision: str) -> Path | None:
    """The rules and the simulation of `revision`, from git; None without that history."""
    paths = ["controller/__init__.py", "controller/simulate.py", "controller/rules"]
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, *paths],
        capture_output=True,
    )
    if archive.returncode != 0:
        print(f"no engines before: {archive.stderr.decode().strip()}", file=sys.stderr)
        return None
    folder.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def rates(
    path: Path, config: tuple[str, dict[str, object], int], compiled: bool, script: str = RUN
) -> tuple[float, float]:
    """Random games per second, and the search's iterations per second."""
    result = subprocess.run(
        [sys.executable, "-W", "ignore::RuntimeWarning", "-c", script, json.dumps(config)],
        capture_output=True,
        text=True,
        cwd=path,
        env={"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    answer = json.loads(result.stdout)
    if answer["compiled"] != compiled:
        raise SystemExit(
            "the rules are not compiled here: run `make` first"
            if compiled
            else "the copy of the source ran compiled"
        )
    return float(answer["games_per_second"]), float(answer["iterations_per_second"])


def instructions(path: Path, config: tuple[str, dict[str, object], int]) -> float:
    """Instructions a random game of `config`, by cachegrind, less starting and importing."""
    counts = []
    valgrind = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
    ]
    python = [sys.executable, "-W", "ignore::RuntimeWarning", "-c", COUNT]
    for games in (0, config[2]):
        result = subprocess.run(
            [*valgrind, *python, json.dumps((config[0], config[1], games))],
            capture_output=True,
            text=True,
            cwd=path,
            env={"PYTHONPATH": str(path), "PATH": "/usr/bin:/bin"},
            check=True,
        )
        found = re.search(r"I\s+refs:\s+([\d,]+)", result.stderr)
        if found is None:
            raise SystemExit(f"no instruction count from valgrind: {result.stderr[-300:]}")
        counts.append(int(found.group(1).replace(",", "")))
    return (counts[1] - counts[0]) / config[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (best kept)")
    parser.add_argument("--scale", type=float, default=1.0, help="games a run, times this")
    parser.add_argument(
        "--before", default=BEFORE, help=f"the engines to compare with (default {BEFORE}; '' none)"
    )
    parser.add_argument(
        "--instructions", type=int, default=0, help="random games counted by cachegrind (0: none)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind (apt-get install valgrind)")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        source = source_copy(Path(folder) / "now")
        before = before_copy(Path(folder) / "before", args.before) if args.before else None
        for name, options, games in CONFIGS:
            config = (name, options, max(1, round(games * args.scale)))
            best = {"compiled": (0.0, 0.0), "source": (0.0, 0.0), "before": (0.0, 0.0)}
            for _ in range(args.repeat):
                if before is not None:
                    got = rates(before, config, compiled=False, script=RUN_BEFORE)
                    best["before"] = (max(best["before"][0], got[0]), 0.0)
                for kind, path in (("source", source), ("compiled", ROOT)):
                    got = rates(path, config, compiled=kind == "compiled")
                    best[kind] = (max(best[kind][0], got[0]), max(best[kind][1], got[1]))
            row = {
                "game": name,
                "options": options,
                "games": config[2],
                "source_games_per_s": round(best["source"][0], 1),
                "compiled_games_per_s": round(best["compiled"][0], 1),
                "speed_up": round(best["compiled"][0] / best["source"][0], 2),
                "source_search_iterations_per_s": round(best["source"][1]),
                "compiled_search_iterations_per_s": round(best["compiled"][1]),
            }
            if before is not None:
                row["before_games_per_s"] = round(best["before"][0], 1)
                row["since_before"] = round(best["compiled"][0] / best["before"][0], 1)
            if args.instructions:
                counted = (name, options, args.instructions)
                row["instructions_a_game"] = round(instructions(ROOT, counted))
                if before is not None:
                    row["before_instructions_a_game"] = round(instructions(before, counted))
            rows.append(row)
            if not args.json:
                seats = f" {options['players']} players" if "players" in options else ""
                then = f"before {row['before_games_per_s']} games/s, " if before is not None else ""
                since = f", {row['since_before']}x since before" if before is not None else ""
                if args.instructions:
                    now_m = row["instructions_a_game"] / 1e6
                    was = row.get("before_instructions_a_game")
                    since += f"; {now_m:.2f} M instructions a game" + (
                        f" ({was / 1e6:.1f} M before)" if was else ""
                    )
                print(
                    f"{name}{seats}: {then}source {row['source_games_per_s']} games/s, compiled "
                    f"{row['compiled_games_per_s']} games/s ({row['speed_up']}x{since}); "
                    "the search "
                    f"{row['source_search_iterations_per_s']} -> "
                    f"{row['compiled_search_iterations_per_s']} iterations/s",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
