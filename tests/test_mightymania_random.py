"""Many random Mightymania games, with the invariants checked after every action.

5,000 games through `play_random_game`: half with the players' hidden cards (`Game.deal`), whose
secrets are checked against the table after every action too, and half with every face-down card
drawn by the public chance of the rules alone. The checks are kept cheap, since they run
after every action: they take about as long as the games themselves.
"""

from __future__ import annotations

import random
from collections import Counter

from mightymania_play import consistency_problems, hidden_problems

from controller.rules.api import GameState
from controller.rules.mightymania import (
    MightymaniaGame,
    MightymaniaHidden,
    MightymaniaState,
    Phase,
)
from controller.simulate import play_random_game

GAMES = 5000


class Dealing(MightymaniaGame):
    """The game, keeping the secrets it deals so that the checks can see them; or none."""

    def __init__(self, hidden: bool) -> None:
        self.with_hidden = hidden
        self.hidden: MightymaniaHidden | None = None

    def deal(self, state: GameState, rng: random.Random) -> MightymaniaHidden | None:  # type: ignore[override]
        self.hidden = super().deal(state, rng) if self.with_hidden else None
        return self.hidden


class Watcher:
    """Checks one game after each action, remembering what must never go back, and counting
    the rare steps seen (from one phase to the next)."""

    def __init__(self, game: Dealing, seen: Counter[str]) -> None:
        self.game = game
        self.seen = seen
        self.up: set[str] = set()
        self.phase = Phase.SETUP

    def __call__(self, state: GameState) -> None:
        assert isinstance(state, MightymaniaState)
        problems = consistency_problems(state)
        assert not problems, problems
        # Rule 6: revealed for good; a revealed card never shows face down again.
        assert self.up <= state.up
        self.up = set(state.up)
        if self.game.hidden is not None:
            problems = hidden_problems(state, self.game.hidden)
            assert not problems, problems
        self.count(self.phase, state)
        self.phase = state.phase

    def count(self, before: Phase, state: MightymaniaState) -> None:
        now = state.phase
        if before is Phase.ATTACK and now in (Phase.MOVE, Phase.ATTACK):
            self.seen["no attack in reach"] += 1
        elif before is Phase.ROUNDS and now is Phase.ROUNDS:
            self.seen["six rolled again"] += 1  # MM-4
        elif before is Phase.START_ROLL and now is Phase.START_ROLL and not state.rolls:
            self.seen["start roll tied"] += 1  # rule 2
        elif before is not Phase.CLEAR and now is Phase.CLEAR:
            won = [state.results.count(p) for p in (0, 1)]
            self.seen["duel drawn" if won[0] == won[1] else "duel won"] += 1
            if state.guard is not None:
                self.seen["Leader defended"] += 1


def check_end(state: MightymaniaState) -> None:
    """MM-6, rule 16: one winner, whose opponent's Leader has left the table."""
    assert state.is_terminal() and state.phase is Phase.OVER
    assert sorted(state.returns()) == [-1.0, 1.0]
    loser = state.returns().index(-1.0)
    leader = state.data.leaders[loser]
    assert state.lives[leader] == 0 and leader in state.removed
    assert leader not in state.rows[loser]
    assert state.lives[state.data.leaders[1 - loser]] > 0


def play_games(hidden: bool) -> Counter[str]:
    game = Dealing(hidden)
    rng = random.Random(f"mightymania, hidden cards {hidden}")
    seen: Counter[str] = Counter()
    for _ in range(GAMES // 2):
        state = play_random_game(game, rng, check=Watcher(game, seen))
        assert isinstance(state, MightymaniaState)
        check_end(state)
        seen.update(type(a).__name__ for a in state.actions())
    return seen


RARE = ("Move", "Defend", "NoDefence", "six rolled again", "start roll tied", "duel drawn")


# Two halves of the games, so that pytest-xdist shares them between cores.
def test_random_games_with_hidden_cards_keep_every_invariant() -> None:
    seen = play_games(hidden=True)
    # The random games reach the rare steps too.
    assert all(seen[step] for step in (*RARE, "no attack in reach", "Leader defended")), seen


def test_random_games_of_public_chance_keep_every_invariant() -> None:
    seen = play_games(hidden=False)
    assert all(seen[step] for step in RARE), seen
