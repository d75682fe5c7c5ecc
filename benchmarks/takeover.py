"""Hostile Takeover's rules engine: the map check, listing legal actions, random games per second.

Four figures:
- map check: `map_problems` (HT-3) on random legal maps of 20 tiles and their 15 buildings, as
  set up by random players;
- building placement: `legal_actions()` at every building placement of random set-ups (HT-2,
  HT-3), the slowest decision of the game; beside it, the same listing made by checking each
  placement by itself, as the engine listed them before issue 18;
- listing: `legal_actions()` on the busiest play position of random 4-player games while all four
  are still in (the most moves, claims and attacks open at once);
- playouts: random games per second for 2, 3 and 4 players, as `smartboard simulate` plays them
  (`controller.simulate`: each action drawn from the state's own legal actions or chance
  outcomes, and played by the rules).

Run: .venv/bin/python benchmarks/takeover.py [--maps 50] [--setups 50] [--search 50]
     [--repeat 2000] [--games 200]
"""

from __future__ import annotations

import argparse
import functools
import random

from timing import figures, timed

from controller.rules.takeover import GAME, Phase, TakeoverState, map_problems
from controller.simulate import random_step, simulate


def set_up_map(rng: random.Random) -> TakeoverState:
    """A random legal map: 20 tiles and 15 buildings placed by random players."""
    state = GAME.new_initial_state({"players": 4})
    assert isinstance(state, TakeoverState)
    while state.phase is not Phase.SPAWNS:
        random_step(state, rng)
    return state


def building_positions(setups: int, seed: int) -> list[TakeoverState]:
    """Every building placement decision of random set-ups, 2 to 4 players."""
    rng = random.Random(seed)
    found = []
    for k in range(setups):
        state = GAME.new_initial_state({"players": 2 + k % 3})
        assert isinstance(state, TakeoverState)
        while state.phase is not Phase.SPAWNS:
            if state.phase is Phase.BUILDINGS:
                found.append(state.clone())
            random_step(state, rng)
    return found


def busiest_position(games: int, seed: int) -> tuple[int, TakeoverState]:
    rng = random.Random(seed)
    best: tuple[int, TakeoverState] | None = None
    for _ in range(games):
        state = GAME.new_initial_state({"players": 4})
        assert isinstance(state, TakeoverState)
        while not state.is_terminal():
            if state.phase is Phase.TURN and len(state.alive()) == 4:
                count = len(state.legal_actions())
                if best is None or count > best[0]:
                    best = (count, state.clone())
            random_step(state, rng)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", type=int, default=50, help="random maps checked")
    parser.add_argument("--setups", type=int, default=50, help="random set-ups listed")
    parser.add_argument("--search", type=int, default=50, help="games searched for the position")
    parser.add_argument("--repeat", type=int, default=2000, help="timed calls of each kind")
    parser.add_argument("--games", type=int, default=200, help="random games per player count")
    args = parser.parse_args()

    rng = random.Random(1)
    maps = [set_up_map(rng) for _ in range(args.maps)]
    for state in maps:
        assert state.tiles_placed == 20 and len(state.buildings) == 15
        assert map_problems(state.tiles, state.buildings, state.grid) == []
    per_map = max(1, args.repeat // len(maps))
    times = sorted(
        t
        for s in maps
        for t in timed(lambda s=s: map_problems(s.tiles, s.buildings, s.grid), per_map)
    )
    print(
        f"map check: {len(maps)} random legal maps of 20 tiles and 15 buildings, "
        f"{len(times)} checks: {figures(times)} (target: median <= 1 ms)"
    )

    positions = building_positions(args.setups, seed=1)
    per_position = max(1, args.repeat // len(positions))
    for name, listing in (
        ("listing", lambda s: s.legal_actions()),
        ("one by one, as before", lambda s: s._building_places_one_by_one(s.empty_cells())),
    ):
        times = sorted(
            t for s in positions for t in timed(functools.partial(listing, s), per_position)
        )
        print(
            f"building placement, {name}: {len(positions)} decisions of {args.setups} random "
            f"set-ups, {len(times)} listings: {figures(times)}"
        )

    count, position = busiest_position(args.search, seed=1)
    times = timed(position.legal_actions, args.repeat)
    print(
        f"listing: busiest 4-player position, all four in, of {args.search} random games has "
        f"{count} legal actions; {args.repeat} listings: {figures(times)} "
        "(target: median <= 0.5 ms)"
    )

    for players in (2, 3, 4):
        report = simulate(GAME, args.games, seed=7, options={"players": players})
        print(
            f"playouts, {players} players: {report['finished']}/{report['games']} finished, "
            f"{report['games_per_second']} games/s, {report['mean_actions']:.1f} actions/game"
        )


if __name__ == "__main__":
    main()
