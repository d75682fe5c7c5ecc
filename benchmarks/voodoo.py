"""Baron Voodoo's rules engine: listing legal actions, and random games per second.

Two figures:
- listing: `legal_actions()` on the busiest position found in random 4-player games (the one
  with the most legal actions: every capture plus every power option open then);
- playouts: random games per second for 2, 3 and 4 players and team mode, as
  `smartboard simulate` plays them (`controller.simulate`: each action drawn from the state's
  own legal actions or chance outcomes, and played by the rules).

Run: .venv/bin/python benchmarks/voodoo.py [--search 200] [--repeat 2000] [--games 300]
"""

from __future__ import annotations

import argparse
import random

from timing import figures, timed

from controller.rules.api import GameState
from controller.rules.voodoo import GAME
from controller.simulate import random_step, simulate

CONFIGS = {
    "2 players": {"players": 2},
    "3 players": {"players": 3},
    "4 players": {"players": 4},
    "teams": {"teams": True},
}


def busiest_position(games: int, seed: int) -> tuple[int, GameState]:
    rng = random.Random(seed)
    best: tuple[int, GameState] | None = None
    for _ in range(games):
        state = GAME.new_initial_state({"players": 4})
        while not state.is_terminal():
            if not state.is_chance_node():
                count = len(state.legal_actions())
                if best is None or count > best[0]:
                    best = (count, state.clone())
            random_step(state, rng)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", type=int, default=200, help="games searched for the position")
    parser.add_argument("--repeat", type=int, default=2000, help="timed listings")
    parser.add_argument("--games", type=int, default=300, help="random games per configuration")
    args = parser.parse_args()

    count, state = busiest_position(args.search, seed=1)
    times = timed(state.legal_actions, args.repeat)
    print(
        f"listing: busiest 4-player position of {args.search} random games has {count} legal "
        f"actions; over {args.repeat} listings {figures(times)} (target: median <= 1 ms)"
    )
    for name, options in CONFIGS.items():
        report = simulate(GAME, args.games, seed=7, options=options)
        print(
            f"playouts, {name}: {report['finished']}/{report['games']} finished, "
            f"{report['games_per_second']} games/s, {report['mean_actions']:.1f} actions/game"
        )


if __name__ == "__main__":
    main()
