"""Linked tables under faults (issue 25): actions lost or applied twice, target 0 / 0.

Whole games of each of the five games between two simulated tables (two daemons, each in a
process of its own, bots on their own seats carrying out the other table's moves as hands)
through a throw-away Mosquitto keeping nothing on disk (Debian's `mosquitto` must be
installed), each game under one of three faults (tests/linked_tables.py, tests/mqtt_proxy.py):

- network: both tables reach the broker through a proxy that sends one MQTT PUBLISH in five
  twice and holds one in five back until the packet after it has gone, both ways;
- broker: the broker killed (SIGKILL) once the game is under way, and started again on the
  same port, having forgotten every retained message;
- table: the second table's daemon killed (SIGKILL) once the game is under way, and started
  again on its journal.

The fault strikes after a seeded number of actions (10 to 40). Each game must end on both
tables; against the longer journal, a table's actions missing after the two part are lost,
and those it holds beyond are applied twice.

Run: .venv/bin/python benchmarks/remote_faults.py [--json] [--games 2] [--game akuma ...]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conftest import wait_for
from linked_tables import GAME_S, Broker, lost_and_twice, two_tables
from mqtt_proxy import FaultyProxy

PLAYERS = {"akuma": 0, "voodoo": 3, "potions": 0, "mightymania": 0, "takeover": 2}
"""The games and their players (0: the game's only count); the second table plays every seat
but the first."""
FAULTS = ("network", "broker", "table")


def play(folder: Path, binary: str, game: str, fault: str, seed: int) -> dict[str, Any]:
    """One game to its end under `fault`: what the two journals say of it."""
    folder.mkdir()
    broker = Broker(binary, folder)
    proxy = FaultyProxy(broker.port, seed) if fault == "network" else None
    url = broker.url(game) if proxy is None else f"mqtt://127.0.0.1:{proxy.port}/{game}"
    start = time.monotonic()
    tables = two_tables(folder, url, game, PLAYERS[game], seed)
    struck = fault == "network"
    try:
        if not struck:
            after = random.Random(seed).randint(10, 40)
            wait_for(
                lambda: len(tables[1].history()) >= after or tables[1].process.poll() is not None,
                GAME_S,
                "the game under way",
            )
            struck = tables[1].process.poll() is None
            if struck and fault == "broker":
                broker.kill()
                broker.start()
            elif struck:
                tables[1].kill()
                tables[1].start()
        results = [table.finish() for table in tables]
        error = None
    except AssertionError as failed:  # a game that did not end, or ended badly: said below
        results, error = [None, "failed"], str(failed)[-800:]
    finally:
        for table in tables:
            table.stop()
        if proxy is not None:
            proxy.close()
        broker.kill()
    lost, twice = lost_and_twice(tables)
    return {
        "game": game,
        "fault": fault,
        "struck": struck,
        "actions": max(len(table.history()) for table in tables),
        "lost": lost,
        "twice": twice,
        "same_result": results[0] == results[1],
        "seconds": round(time.monotonic() - start, 1),
        "error": error,
        **({} if proxy is None else proxy.counts),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print every game as JSON")
    parser.add_argument("--games", type=int, default=1, help="games of each game under each fault")
    parser.add_argument(
        "--game", action="append", choices=sorted(PLAYERS), help="only this game (repeatable)"
    )
    args = parser.parse_args()
    binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin")
    if binary is None:
        sys.exit("remote_faults: Mosquitto is needed: apt-get install mosquitto")
    played = []
    with tempfile.TemporaryDirectory() as temp:
        for n in range(args.games):
            for game in args.game or list(PLAYERS):
                for fault in FAULTS:
                    folder = Path(temp) / f"{game}-{fault}-{n}"
                    played.append(play(folder, binary, game, fault, seed=n))
                    if not args.json:
                        print(json.dumps(played[-1]), flush=True)
    totals = {
        fault: {
            "games": sum(1 for p in played if p["fault"] == fault),
            "struck": sum(1 for p in played if p["fault"] == fault and p["struck"]),
            "actions": sum(p["actions"] for p in played if p["fault"] == fault),
            "lost": sum(p["lost"] for p in played if p["fault"] == fault),
            "twice": sum(p["twice"] for p in played if p["fault"] == fault),
            "different_results": sum(
                1 for p in played if p["fault"] == fault and not p["same_result"]
            ),
            "failed": sum(1 for p in played if p["fault"] == fault and p["error"]),
        }
        for fault in FAULTS
    }
    if args.json:
        print(json.dumps({"games": played, "totals": totals}, indent=2))
        return
    for fault, total in totals.items():
        print(
            f"{fault}: {total['games']} games ({total['struck']} struck mid-game), "
            f"{total['actions']} actions: lost {total['lost']}, applied twice {total['twice']}, "
            f"different results {total['different_results']}, games not ended {total['failed']}"
        )


if __name__ == "__main__":
    main()
