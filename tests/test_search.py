"""The search over the rules engine (controller/search, issue 24): small iteration caps, no
clock, so that every result is the same on every run."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from potions_play import P1, numbered, place, quiet_turns, set_up, write_deck

import controller.search as searching
from controller.rules import AKUMA, MIGHTYMANIA, POTIONS, TAKEOVER, VOODOO
from controller.rules.api import CHANCE, TERMINAL, Action, Game, GameState, Hidden, leads
from controller.rules.mightymania import MightymaniaHidden
from controller.rules.potions import Capture, EndTurn, Phase, Place, PotionsHidden, PotionsState
from controller.search import DEFAULT_LEVEL, LEVELS, Level, level_named, think
from controller.search.greedy import greedy_move
from controller.search.mcts import Budget, Node, Worlds, chance, choices, drawn, step

# Caps that end every search here; the time cap is never reached.
SMALL = Level("test", iterations=120, seconds=600.0)
TINY = Level("tiny", iterations=40, seconds=600.0, playout=8)


def test_three_levels_growing_in_strength() -> None:
    assert list(LEVELS) == ["easy", "normal", "strong"]
    assert DEFAULT_LEVEL in LEVELS
    easy, normal, strong = LEVELS.values()
    assert easy.iterations < normal.iterations < strong.iterations
    assert easy.seconds < normal.seconds < strong.seconds
    assert level_named("strong") is strong


def test_an_unknown_level_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown level 'hard'.*easy, normal, strong"):
        level_named("hard")


def _played(game: Game, seed: int, until: int) -> tuple[GameState, Hidden]:
    """A random game of a card game, stopped at its first decision after `until` actions."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    hidden = game.deal(state, rng)
    assert hidden is not None
    while len(state.actions()) < until or state.current_player() < 0:
        assert not state.is_terminal()
        if state.is_chance_node():
            step(state, hidden, chance(state, hidden, rng))
        else:
            step(state, hidden, rng.choice(hidden.choices(state)))
    return state, hidden


def _one_card_wins() -> tuple[PotionsState, PotionsHidden, set[str]]:
    """A Multipli Potion position from seeded random play: the player to move holds four
    trophies, and of the cards in their hand only some, laid now, make a fifth capture (MP-2,
    MP-4: five captures win at once)."""
    rng = random.Random(0)
    state = PotionsState.of(POTIONS.new_initial_state())
    hidden = POTIONS.deal(state, rng)
    while not state.is_terminal():
        if state.is_chance_node():
            step(state, hidden, chance(state, hidden, rng))
            continue
        player = state.to_move
        if state.phase is Phase.PLACE and len(state.trophies[player]) == 4:
            slot = state.empty_slots(player)[0]
            hand = hidden.hands[player]
            wins = {c for c in hand if state.child(Place(c, slot)).captures(player)}
            if wins and wins != hand:
                return state, hidden, wins
        step(state, hidden, rng.choice(hidden.choices(state)))
    raise AssertionError("no such position in that game")


def test_the_search_lays_the_card_that_wins_at_once() -> None:
    state, hidden, wins = _one_card_wins()
    thought = think(POTIONS, state, SMALL, seed=1, hidden=hidden)
    assert isinstance(thought.best, Place) and thought.best.card in wins
    assert thought.ranked[0].value > 0.9  # the capture that follows wins every playout
    assert thought.iterations == SMALL.iterations
    assert all(isinstance(c.action, Place) for c in thought.ranked)
    # Only the cards in the seat's own hand are weighed, each in the first free slot.
    assert {c.action.card for c in thought.ranked if isinstance(c.action, Place)} <= set(
        hidden.hands[state.to_move]
    )


def test_the_same_seed_gives_the_same_thought_and_another_seed_may_not() -> None:
    state, hidden = _played(MIGHTYMANIA, seed=4, until=40)
    before = state.actions()
    first = think(MIGHTYMANIA, state, TINY, seed=7, hidden=hidden)
    again = think(MIGHTYMANIA, state, TINY, seed=7, hidden=hidden)
    assert len(first.ranked) > 1
    assert first.best == again.best
    assert first.ranked == again.ranked
    assert state.actions() == before  # the search plays in copies
    assert think(MIGHTYMANIA, state, TINY, seed=8, hidden=hidden).ranked != first.ranked


@pytest.mark.parametrize("game", [POTIONS, MIGHTYMANIA], ids=lambda g: g.name)
def test_another_seats_secrets_never_change_the_decision(game: Game) -> None:
    """Two deals that differ only in the opponent's secrets, with the same public state and the
    same own secrets, give the same thought with the same seed."""
    state, hidden = _played(game, seed=2, until=30)
    seat = state.current_player()
    other = hidden.redeal(state, random.Random(99), seat)
    if isinstance(hidden, PotionsHidden):
        assert isinstance(other, PotionsHidden)
        assert other.hands[seat] == hidden.hands[seat]
        assert other.hands[1 - seat] != hidden.hands[1 - seat]
    else:
        assert isinstance(hidden, MightymaniaHidden) and isinstance(other, MightymaniaHidden)
        assert other.down[seat] == hidden.down[seat]
        assert other.down[1 - seat] != hidden.down[1 - seat]
    mine = think(game, state, TINY, seed=3, hidden=hidden)
    theirs_changed = think(game, state, TINY, seed=3, hidden=other)
    assert mine.ranked == theirs_changed.ranked


# -- chance nodes: a lottery with unequal odds, searched through the engine's API ---------------


@dataclass(frozen=True)
class Ticket(Action):
    kind: str


@dataclass(frozen=True)
class Draw(Action):
    prize: int


# Ticket "a" wins 70 % of the time in one outcome of two; ticket "b" lists two winning outcomes
# of three, but they come up 20 % of the time: a search drawing outcomes evenly would prefer b.
ODDS = {"a": ((1, 0.7), (0, 0.3)), "b": ((1, 0.1), (2, 0.1), (0, 0.8))}


class Lottery(GameState):
    def __init__(self) -> None:
        super().__init__({})
        self.ticket: str | None = None
        self.prize: int | None = None

    @property
    def num_players(self) -> int:
        return 2

    def current_player(self) -> int:
        if self.prize is not None:
            return TERMINAL
        return CHANCE if self.ticket else 0

    def legal_actions(self) -> list[Action]:
        return [] if self.ticket else [Ticket("b"), Ticket("a")]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.ticket is None or self.prize is not None:
            return []
        return [(Draw(prize), odds) for prize, odds in ODDS[self.ticket]]

    def returns(self) -> list[float]:
        won = 1.0 if self.prize else -1.0
        return [won, -won] if self.prize is not None else [0.0, 0.0]

    def _apply(self, action: Action) -> None:
        if isinstance(action, Ticket):
            self.ticket = action.kind
        elif isinstance(action, Draw):
            self.prize = action.prize


def test_chance_outcomes_are_drawn_with_their_odds() -> None:
    # Akuma's rules only lend the search their (absent) deal and evaluation.
    thought = think(AKUMA, Lottery(), Level("test", 400, 600.0), seed=5)
    assert thought.best == Ticket("a")
    values = {c.action: c.value for c in thought.ranked}
    assert values[Ticket("a")] == pytest.approx(0.4, abs=0.2)  # 0.7 - 0.3


def test_stop_ends_the_search_early_and_progress_is_heard() -> None:
    state, hidden = _played(MIGHTYMANIA, seed=4, until=40)
    heard: list[float] = []
    asked = []

    def stop() -> bool:
        asked.append(True)
        return len(asked) > 2

    thought = think(
        MIGHTYMANIA, state, TINY, seed=1, hidden=hidden, progress=heard.append, stop=stop
    )
    assert 0 < thought.iterations < TINY.iterations
    assert thought.best in hidden.choices(state)
    assert heard and all(0.0 <= f <= 1.0 for f in heard) and heard == sorted(heard)


def test_a_playout_draws_only_among_the_actions_the_search_weighs() -> None:
    """A playout's decision is drawn by the state (`GameState.sample`) only where the search
    weighs every legal action; Multipli Potion folds its slots (`search_actions`), so there the
    draw stays among the folded choices, with or without the hidden cards given."""
    rng = random.Random(8)
    state = TAKEOVER.new_initial_state({"players": 3})
    while not state.is_terminal() and len(state.actions()) < 60:
        action = (
            chance(state, None, rng)
            if state.is_chance_node()
            else drawn(TAKEOVER, state, None, rng)
        )
        assert state.is_chance_node() or action in state.legal_actions()
        step(state, None, action)
    assert len(state.actions()) == 60  # through the set-up's tiles and buildings
    potions, hidden = _played(POTIONS, seed=3, until=6)
    folded = choices(POTIONS, potions, hidden)
    assert len(folded) < len(hidden.choices(potions))
    assert {drawn(POTIONS, potions, hidden, rng) for _ in range(200)} == set(folded)
    assert {drawn(POTIONS, potions, None, rng) for _ in range(200)} <= set(
        choices(POTIONS, potions, None)
    )


def test_a_state_with_nobody_to_decide_is_refused() -> None:
    state = AKUMA.new_initial_state()
    state.apply(state.legal_actions()[0])  # the dice are chosen: chance rolls them
    with pytest.raises(ValueError, match="no move to think of: chance is to move"):
        think(AKUMA, state, SMALL, seed=0)


def test_the_greedy_player_makes_the_capture_that_wins() -> None:
    state, hidden, wins = _one_card_wins()
    step(state, hidden, Place(min(wins), state.empty_slots(state.to_move)[0]))
    moves = hidden.choices(state)
    assert EndTurn() in moves  # ending the turn now would be a forgotten capture (MP-3)
    move = greedy_move(POTIONS, state, random.Random(0), hidden)
    assert isinstance(move, Capture)
    assert state.child(move).returns()[state.to_move] == 1.0


def _two_captures_open() -> PotionsState:
    """player_1 has just laid 3x8 (potion 8) beside 2x3 and 9x4 (potions 3, 4): 3 x 8 = 24
    captures 6x4 and 4 x 8 = 32 captures 8x4 (MP-2); the pile still holds never-seen cards."""
    state = set_up("2x3", "6x4")
    quiet_turns(state, ["9x4", "8x4"])
    place(state, "3x8")
    assert len(state.captures(P1)) == 2 and EndTurn() in state.legal_actions()
    return state


@pytest.mark.parametrize("level", list(LEVELS))
@pytest.mark.parametrize("known", [True, False], ids=["own-hand", "nothing-known"])
def test_the_computer_never_forgets_an_open_capture(level: str, known: bool) -> None:
    """MP-3: ending the turn with a capture open makes the same capture all the same and gives
    the opponent the pile's top card. Random playouts saw no cost in that, so the search, at
    every level, ended the turn about as often as it captured."""
    state = _two_captures_open()
    hidden = POTIONS.deal(state, random.Random(0)) if known else None
    small = replace(LEVELS[level], iterations=20, seconds=600.0)
    for seed in range(4):  # without the fix, each level ended the turn for one of them
        thought = think(POTIONS, state, small, seed=seed, hidden=hidden)
        assert isinstance(thought.best, Capture)
        assert {c.action for c in thought.ranked} == set(state.captures(P1))


def test_ending_the_turn_is_weighed_where_the_cards_that_change_hands_differ(
    tmp_path: Path,
) -> None:
    """An 11-card deck leaves one never-seen card in the pile: forgotten (MP-3), the opponent
    takes it and player_1 draws a spent potion instead, which may be worth more to them."""
    deck = write_deck(
        tmp_path / "small.toml",
        [
            ("p3", 5, 3, "green"),
            ("p8", 7, 8, "green"),
            ("m", 24, 1, "green"),
            *numbered("c", 8, monster=2, potion=1),
        ],
    )
    state = set_up("p3", "m", {"deck": deck})
    assert state.pile_unseen == 1
    place(state, "p8")  # 3 x 8 = 24 captures m
    actions = state.legal_actions()
    assert EndTurn() in actions and len(actions) == 2
    assert POTIONS.search_actions(state, None) == actions


@pytest.mark.parametrize("game", [VOODOO, TAKEOVER, POTIONS, MIGHTYMANIA], ids=lambda g: g.name)
def test_an_evaluation_gives_each_player_a_guess_in_range(game: Game) -> None:
    rng = random.Random(1)
    state = game.new_initial_state()
    hidden = game.deal(state, rng)
    for _ in range(120):
        if state.is_terminal():
            break
        guess = game.evaluate(state)
        assert guess is not None and len(guess) == state.num_players
        assert all(-1.0 <= value <= 1.0 for value in guess)
        # Each player's chance of winning, 2p - 1: the chances add up to one.
        assert sum((value + 1) / 2 for value in guess) == pytest.approx(1.0)
        if state.is_chance_node():
            step(state, hidden, chance(state, hidden, rng))
        else:
            moves = state.legal_actions() if hidden is None else hidden.choices(state)
            step(state, hidden, rng.choice(moves))
    assert AKUMA.evaluate(AKUMA.new_initial_state()) is None  # its playouts are short


def test_a_lead_is_a_chance_of_winning_on_the_scale_of_the_returns() -> None:
    """Two players: the tanh of the lead. More: level players have a fair seat's chance (the
    walk: a hint gave every seat of four 53 %), and the chances add up to one."""
    assert leads([5.0, 2.0], 3.0) == pytest.approx([math.tanh(1.0), math.tanh(-1.0)])
    assert leads([4.0, 4.0, 4.0, 4.0], 3.0) == pytest.approx([-0.5] * 4)  # 2 * 1/4 - 1
    values = leads([5.0, 2.0, 5.0, 0.0], 3.0)
    chances = [(value + 1) / 2 for value in values]
    assert sum(chances) == pytest.approx(1.0)
    assert values[0] == values[2] and values[3] < values[1] < values[0]
    assert all(-1.0 < value < 1.0 for value in values)
    assert leads([1000.0, 0.0, 0.0], 1.0) == pytest.approx([1.0, -1.0, -1.0])  # no overflow


@pytest.mark.parametrize(
    ("game", "options", "depth"), [(TAKEOVER, {"players": 3}, 8), (VOODOO, {}, 40)]
)
def test_a_game_may_judge_its_playouts_sooner_than_a_level_would(
    game: Game, options: dict[str, int], depth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hostile Takeover's evaluation judges after 8 random actions (`playout_horizon`), as well
    as after 40 in half the time. A game without a horizon keeps the level's."""
    seen: list[int] = []
    real = searching.search

    def spy(
        worlds: Worlds, rng: random.Random, budget: Budget, order: list[Action]
    ) -> tuple[Node, int]:
        seen.append(budget.playout)
        return real(worlds, rng, budget, order)

    monkeypatch.setattr(searching, "search", spy)
    rng = random.Random(2)
    state = game.new_initial_state(options)
    while state.is_chance_node() or len(game.search_actions(state, None)) < 2:
        step(state, None, chance(state, None, rng) if state.is_chance_node() else state.sample(rng))
    think(game, state, SMALL, seed=1)
    assert seen == [depth]
