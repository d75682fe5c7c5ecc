"""Many random Mightymania games, with the invariants checked after every action.

5,000 games through `play_random_game`: half with the players' hidden cards (`Game.deal`), whose
secrets are checked against the table after every action too, and half with every face-down card
drawn by the public chance of the rules alone. The checks are kept cheap, since they run
after every action: they take about as long as the games themselves.

Every game must also end within a number of actions that the rules bound (`action_bound`).
"""

from __future__ import annotations

import random
from collections import Counter

from mightymania_play import consistency_problems, hidden_problems

from controller.rules.api import GameState
from controller.rules.mightymania import (
    COLUMNS,
    MAX_ROUNDS,
    Attack,
    MightymaniaGame,
    MightymaniaHidden,
    MightymaniaState,
    Phase,
    Rounds,
    StartRoll,
)
from controller.simulate import play_random_game, random_step

GAMES = 3000  # 1,500 a half, seeded: every rare step is still reached; 5,000 took 83 s of CI


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
        elif before is Phase.ATTACK and now is Phase.OVER:
            self.seen["draw by two passes"] += 1  # MM-8
        elif before is not Phase.CLEAR and now is Phase.CLEAR:
            won = [state.results.count(p) for p in (0, 1)]
            self.seen["duel drawn" if won[0] == won[1] else "duel won"] += 1
            if state.guard is not None:
                self.seen["Leader defended"] += 1


def check_end(state: MightymaniaState) -> None:
    """MM-6, rule 16: one winner, whose opponent's Leader has left the table; or MM-8: a draw
    after two passes in a row, both Leaders standing."""
    assert state.is_terminal() and state.phase is Phase.OVER
    if state.winner is None:
        assert state.returns() == [0.0, 0.0] and state.passes == 2
        assert all(state.lives[leader] > 0 for leader in state.data.leaders)
        assert not state.attacks()  # the last attacker had nothing in reach
        return
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
    rarer = ("no attack in reach", "Leader defended", "draw by two passes")
    assert all(seen[step] for step in (*RARE, *rarer)), seen


def test_random_games_of_public_chance_keep_every_invariant() -> None:
    seen = play_games(hidden=False)
    assert all(seen[step] for step in RARE), seen


# -- every game ends: the bound of the rules ------------------------------------------------------

# One turn that ends in a duel takes at most: a move or a stay by each player (MM-7), the attack
# (rules 3-4), the attacking card turned up (rule 6), the defence decided (MM-5), the defending
# card turned up (rule 6), the rounds roll (rule 7), up to 5 power cards laid and turned up by
# each player (MM-4, rules 8-9), the table cleared (rule 14): 28 actions, plus any 6 rolled again.
DUEL_TURN = 2 + 1 + 1 + 1 + 1 + 1 + 2 * MAX_ROUNDS * 2 + 1
# A turn that ends in a pass: the two moves, then the pass (MM-8).
PASS_TURN = 2 + 1


def action_bound(state: MightymaniaState) -> int:
    """The most actions the rules allow for a game that went as `state`'s did.

    Set-up lays 2 x 4 cards (rule 1), and the start rolls take 2 a try (rule 2). A duel won costs
    the loser's card a life (MM-4), and the game ends with the first Leader gone (MM-6): at most
    every life of both decks but one is lost, one a duel. Passes come at most two in a row
    (MM-8), the second ending the game, so each other pass is followed by a duel: at most the
    duels plus 2. Three things the rules leave to chance, with no limit: tied start rolls, 6s
    rolled again for the rounds (MM-4), and duels drawn (MM-4: equal rounds won cost no life;
    nothing in the rulebook or MM-1..MM-8 stops a duel drawn forever). They are counted from
    the game itself, each at its cost.
    """
    actions = state.actions()
    lives = sum(card.lives for card in state.data.cards.values())
    lost = lives - sum(state.lives.values())
    duels = sum(isinstance(a, Attack) for a in actions)
    drawn = duels - lost
    rolls = sum(isinstance(a, StartRoll) for a in actions)
    sixes = sum(a == Rounds(6) for a in actions)
    most_duels = lives - 1 + drawn
    return 2 * COLUMNS + rolls + sixes + (DUEL_TURN + PASS_TURN) * most_duels + 2 * PASS_TURN


def test_every_random_game_ends_within_the_bound_of_the_rules_mm_8() -> None:
    """MM-8 ends a run of passes; MM-6 ends the game with the first Leader gone. Every random
    game must end, within `action_bound` actions; at least one life is left (the winner's
    Leader's), and no more than two passes ever come in a row."""
    rng = random.Random("mightymania, every game ends")
    game = MightymaniaGame()
    draws = 0
    for n in range(1000):
        state = MightymaniaState.of(game.new_initial_state())
        hidden = game.deal(state, rng) if n % 2 else None
        most_passes = 0
        for _ in range(100_000):  # far past any bound seen: a game that never ends fails below
            if state.is_terminal():
                break
            random_step(state, rng, hidden)
            most_passes = max(most_passes, state.passes)
        assert state.is_terminal(), f"game {n} still going after {len(state.actions())} actions"
        actions = len(state.actions())
        assert actions <= action_bound(state), (n, actions, action_bound(state))
        lives = sum(card.lives for card in state.data.cards.values())
        assert lives - sum(state.lives.values()) <= lives - 1
        assert most_passes <= 2
        draws += state.winner is None
    assert draws  # MM-8 draws happen in random play
