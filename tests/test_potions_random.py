"""Many random Multipli Potion games, with the invariants checked after every action.

Over six option sets, 5,040 games play from real hands (`PotionsHidden`), as players do, so that
the checks see both the public state and what it cannot see; 240 more play from the public state
alone, where any card that could be in the mover's hand may be placed, since that is everything
the rules engine allows; and a few hundred on small decks empty the pile or grow the zones past
the table's slots. The costlier checks (all legal actions against an independent MP-2 oracle,
the lights, a replay) run on a sample. Every game must end within `action_bound`.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from potions_play import alert_spots

from controller.rules.api import Action, GameState
from controller.rules.potions import (
    GAME,
    HAND,
    WINNING_CAPTURES,
    ZONE_SLOTS,
    Capture,
    Deal,
    EndTurn,
    Phase,
    Place,
    PotionsHidden,
    PotionsState,
    zone_spot,
)
from controller.simulate import random_step

GAMES = 840  # a config, with real hands: 6 configs, 2,520 games a half, 5,040 in all
PUBLIC_GAMES = 40  # a config, from the public state alone: each place lists ~1,400 actions


def action_bound(deck: int) -> int:
    """The most actions a game with a deck of `deck` cards can take, from the rules alone.

    Nothing else bounds it: the FAQ caps no play zone. The set-up deals 2 cards face up
    and 4 to each hand, so `deck` - 10 lie in the pile. Captures add their 2 spent potions under
    it, and there are at most 9: the fifth of one player ends the game (MP-4) and the other has 4
    at most. So at most `deck` - 10 + 18 cards are ever drawn. Each turn but the last ends with a
    draw back to 4 (Étape 3), except a turn begun with 5 cards (MP-3), and each such fifth card was
    itself a draw: so there are at most one more turns than draws. A turn is 3 actions at most
    (place, end of turn, then the flagged capture), after the 2 deals.
    """
    return 2 + 3 * (deck - 10 + 2 * 9 + 1)


# Every so many decision nodes check all legal actions and the lights.
PLACE_SAMPLE = 25
CAPTURE_SAMPLE = 10
REPLAY = 20  # every 20th game replays its history
REDEAL = 10  # every 10th game with real hands deals them again from the public state mid-game
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {},
    "green": {"colours": "green"},
    "purple": {"colours": "purple"},
    "64 cards": {"deck": "64"},
    "hints": {"hints": True},
    "youngest 1": {"youngest": 1},
}


class Watcher:
    """Checks one game's invariants after each action, remembering the turn under way."""

    def __init__(self, state: PotionsState, rng: random.Random) -> None:
        self.deck = frozenset(state.cards)
        self.rng = rng  # for the sampled checks, apart from the game's own draws
        self.place_nodes = self.capture_nodes = 0
        self.started = False
        self.places = self.captures = 0  # in the turn under way
        self.kinds: Counter[str] = Counter()

    def before(self, state: PotionsState, hidden: PotionsHidden | None) -> None:
        """What the checks after the action need from the state before it."""
        self.mover = state.to_move
        self.phase = state.phase
        self.hands = list(state.hands)
        self.own = set(state.zone_cards(self.mover))
        self.theirs = set(state.zone_cards(1 - self.mover))
        self.possible: list[Action] = []
        if hidden is not None and state.phase in (Phase.CAPTURE, Phase.FORGOTTEN):
            # Before the draws: a turn draws 2 cards at most.
            self.real = [set(hand) for hand in hidden.hands]
            self.top = list(itertools.islice(hidden.pile, 2))
        if state.is_chance_node():
            return
        if state.phase is Phase.PLACE:
            # Listing every placement costs ~1,400 actions; the sample below checks that the
            # list is every hidden card into every empty slot, so that this is enough.
            hand = state.may_hold(self.mover) if hidden is None else hidden.hands[self.mover]
            assert hand and state.empty_slots(self.mover), f"no placement: {GAME.describe(state)}"
            self.place_nodes += 1
            sampled = self.place_nodes % PLACE_SAMPLE == 0
        else:
            legal = state.legal_actions()
            assert legal, f"no legal action: {GAME.describe(state)}"
            self.possible = [x for x in legal if isinstance(x, Capture)]
            self.capture_nodes += 1
            sampled = self.capture_nodes % CAPTURE_SAMPLE == 0
        if sampled:
            self.check_legal(state, hidden)
            self.check_lights(state)

    def after(self, state: PotionsState, action: Action, hidden: PotionsHidden | None) -> None:
        self.kinds[type(action).__name__] += 1
        self.check_cards(state)
        if hidden is not None:
            self.check_hidden(state, hidden)
            if isinstance(action, Capture | EndTurn):
                self.check_draws(state, action, hidden)
        # Hands hold 4, and 5 only for the player rewarded by MP-3 until they place.
        for p, n in enumerate(state.hands):
            assert 0 <= n <= HAND or (n == HAND + 1 and state.rewarded == p), (p, n)
        # MP-4: five captures end the game at once.
        for trophies in state.trophies:
            assert len(trophies) <= WINNING_CAPTURES
            if len(trophies) == WINNING_CAPTURES:
                assert state.is_terminal() and state.ended_by == "captures"
        if isinstance(action, Deal):
            assert self.phase is Phase.DEAL
        elif isinstance(action, Place):
            self.after_place(state, action)
        elif isinstance(action, Capture):
            self.after_capture(state, action)
        elif isinstance(action, EndTurn):
            self.after_end_turn(state)
        else:
            raise AssertionError(f"unknown action {action}")
        if not self.started and state.phase is Phase.PLACE:
            self.started = True
            assert state.to_move == state.options["youngest"]  # "le plus jeune commence"
            assert state.hands == [HAND, HAND]
        if state.is_terminal() or (self.phase is not Phase.DEAL and state.to_move != self.mover):
            # The turn is over: one placement, compulsory, and at most one capture (rulebook).
            assert self.places == 1 and self.captures <= 1, (self.places, self.captures)
            self.places = self.captures = 0
            if not state.is_terminal():
                assert state.phase is Phase.PLACE
                assert state.hands[self.mover] == HAND  # step 3: drawn back to 4, not 5 (MP-3)
        if state.is_terminal():
            self.check_end(state)

    def after_place(self, state: PotionsState, action: Place) -> None:
        assert self.phase is Phase.PLACE and self.places == 0
        self.places += 1
        assert state.zones[self.mover][action.slot - 1] == action.card
        assert state.hands[self.mover] == self.hands[self.mover] - 1
        assert state.phase is Phase.CAPTURE and state.to_move == self.mover
        assert state.rewarded != self.mover  # MP-3: the fifth card is gone

    def after_capture(self, state: PotionsState, action: Capture) -> None:
        # MP-2, on the state before the capture: two different potions of one's own zone whose
        # product is the monster of a card in the opponent's zone.
        m, a, b = action.monster, action.potion_a, action.potion_b
        assert self.phase in (Phase.CAPTURE, Phase.FORGOTTEN)
        assert self.places == 1 and self.captures == 0, "a second capture in one turn"
        self.captures += 1
        assert a != b and {a, b} <= self.own, f"{action}: potions not in the capturer's zone"
        assert m in self.theirs, f"{action}: monster not in the opponent's zone"
        cards = state.cards
        assert cards[a].potion * cards[b].potion == cards[m].monster, f"{action}: wrong product"
        assert state.trophies[self.mover][-1] == m
        assert not {m, a, b} & {*state.zones[0], *state.zones[1]}
        opponent = 1 - self.mover
        if state.ended_by == "captures":
            return
        if self.phase is Phase.FORGOTTEN:
            # MP-3: the opponent takes the top card of the pile.
            assert state.hands[opponent] == self.hands[opponent] + 1
            assert state.rewarded == opponent
        else:
            assert state.hands[opponent] == self.hands[opponent]

    def after_end_turn(self, state: PotionsState) -> None:
        assert self.phase is Phase.CAPTURE and self.places == 1
        if self.possible:
            self.kinds["forgotten"] += 1
            # MP-3: the board flags it, and the player must now make one of those captures.
            assert state.phase is Phase.FORGOTTEN and state.to_move == self.mover
            legal = state.legal_actions()
            assert all(isinstance(x, Capture) for x in legal)
            assert set(legal) == set(self.possible)
            assert alert_spots(state)
        else:
            assert state.phase in (Phase.PLACE, Phase.OVER)

    def check_cards(self, state: PotionsState) -> None:
        """Every card of the deck in exactly one public place: a zone slot, a trophy area, a spent
        pair under the pile, or hidden (in a hand or the pile's unseen part)."""
        placed = [c for zone in state.zones for c in zone if c is not None]
        placed += [c for trophies in state.trophies for c in trophies]
        placed += [c for pair in state.pile_under for c in pair]
        known = set(placed)
        assert len(known) == len(placed), "a card in two places"
        assert known.isdisjoint(state.hidden), "a card both on the table and hidden"
        assert known <= self.deck and state.hidden <= self.deck
        assert len(known) + len(state.hidden) == len(self.deck), "a card lost"
        assert len(state.hidden) == state.pile_unseen + sum(state.hands)
        assert state.pile_unseen >= 0

    def check_hidden(self, state: PotionsState, hidden: PotionsHidden) -> None:
        """The real hands and pile fit the public state."""
        on_table = [c for zone in state.zones for c in zone if c is not None]
        on_table += [c for trophies in state.trophies for c in trophies]
        pile = list(hidden.pile)
        everything = {*hidden.hands[0], *hidden.hands[1], *pile, *on_table}
        count = sum(map(len, hidden.hands)) + len(pile) + len(on_table)
        # Within the deck: the hands and the pile's unseen part are hidden, its spent pairs and
        # the table are checked against the deck in `check_cards`.
        assert count == len(everything) == len(self.deck)
        for p, hand in enumerate(hidden.hands):
            assert len(hand) == state.hands[p]
            assert hand <= state.may_hold(p)  # Étape 2: a spent card only in the hand that drew it
        assert len(pile) == state.pile_size
        unseen = state.pile_unseen
        assert set(pile[:unseen]) <= state.hidden
        # The spent pairs lie under the pile in the order the table knows, either way up.
        for k, (a, b) in enumerate(state.pile_under):
            assert {pile[unseen + 2 * k], pile[unseen + 2 * k + 1]} == {a, b}

    def check_draws(self, state: PotionsState, action: Action, hidden: PotionsHidden) -> None:
        """Cards are drawn from the top of the real pile: the opponent rewarded by MP-3 takes the
        top card, then the player draws back to 4 (step 3)."""
        pile = self.top
        if isinstance(action, Capture):
            pile = [*pile, action.potion_a, action.potion_b][:2]  # spent: under the pile
        opponent = 1 - self.mover
        drawn = [hidden.hands[p] - self.real[p] for p in range(2)]
        forgotten = isinstance(action, Capture) and self.phase is Phase.FORGOTTEN
        rewarded = int(forgotten and state.ended_by != "captures")
        assert drawn[opponent] == set(pile[:rewarded])
        assert drawn[self.mover] == set(pile[rewarded : rewarded + len(drawn[self.mover])])

    def check_legal(self, state: PotionsState, hidden: PotionsHidden | None) -> None:
        """`legal_actions` against an independent MP-2 oracle, and `is_legal` agreeing with it,
        on legal actions and on illegal ones."""
        legal = state.legal_actions()
        assert legal
        listed = set(legal)
        assert len(listed) == len(legal), "an action listed twice"
        if hidden is not None:
            assert set(hidden.choices(state)) <= listed, "a real hand's card that the table refuses"
        for action in self.rng.sample(legal, min(3, len(legal))):
            assert state.is_legal(action)
        mover, rng = state.to_move, self.rng
        own, theirs = state.zone_cards(mover), state.zone_cards(1 - mover)
        empty = state.empty_slots(mover)
        taken = [k + 1 for k, c in enumerate(state.zones[mover]) if c is not None]
        not_hidden = [*own, *theirs, *(c for t in state.trophies for c in t)]
        not_hidden += [c for pair in state.pile_under for c in pair]
        # A spent card drawn by the other player or still on the pile; a never-seen one when
        # every card of the mover's hand was drawn back spent.
        not_hidden += sorted(state.hidden - state.may_hold(mover))
        holdable = sorted(state.may_hold(mover))
        some_hidden = rng.sample(holdable, min(3, len(holdable)))
        # Illegal placements: a card on the table, under the pile or out of the mover's reach, a
        # slot already taken, a slot off the zone or past the first free one beside it.
        wrong: list[Action] = [
            Place(c, s) for c in rng.sample(not_hidden, min(3, len(not_hidden))) for s in empty[:2]
        ]
        wrong += [Place(c, s) for c in some_hidden for s in rng.sample(taken, min(2, len(taken)))]
        # Slot 0; a slot past the first free one beside the zone; beside it while a table slot
        # is free (FAQ: no limit, but the table's slots come first).
        off = [0, len(state.zones[mover]) + 2] + (
            [ZONE_SLOTS + 1] if empty[0] <= ZONE_SLOTS else []
        )
        wrong += [Place(c, s) for c in some_hidden[:1] for s in off]
        if state.phase is Phase.PLACE:
            # Every card the mover may hold into every empty slot, and nothing else.
            assert len(legal) == len(holdable) * len(empty)
            free = [k + 1 for k in range(ZONE_SLOTS) if state.zones[mover][k] is None]
            assert empty == free or (not free and len(empty) == 1 and empty[0] > ZONE_SLOTS)
            assert set(map(type, legal)) == {Place}
            # A capture, or the end of the turn, waits for the placement (step 1 first). Each
            # `is_legal` of one lists the ~1,400 placements: one a node.
            wrong += state.captures(mover)[:1] or [EndTurn()]
        else:
            # Capture phases: the legal captures are exactly the products that match (MP-2).
            cards = state.cards
            oracle, no_match = set(), []
            for m in theirs:
                for a, b in itertools.combinations(own, 2):
                    capture = Capture(m, *sorted((a, b)))
                    if cards[a].potion * cards[b].potion == cards[m].monster:
                        oracle.add(capture)
                    else:
                        no_match.append(capture)
            ends = {EndTurn()} if state.phase is Phase.CAPTURE else set()
            assert listed == oracle | ends
            # Each `is_legal` of a capture lists the captures again: a few of each kind.
            wrong += rng.sample(no_match, min(2, len(no_match)))
            if own and theirs:
                wrong.append(Capture(theirs[0], own[0], own[0]))  # one potion twice
            if len(theirs) > 1 and own:
                wrong.append(Capture(own[0], *sorted(theirs[:2])))  # the sides swapped
            if some_hidden and empty:
                wrong.append(Place(some_hidden[0], empty[0]))  # a second placement
        for action in wrong:
            assert not state.is_legal(action), action
            assert action not in listed, action

    def check_lights(self, state: PotionsState) -> None:
        lights = GAME.lights(state)
        hints = {spot for spot, role in lights.items() if role == "hint"}
        forgotten = {spot for spot, role in lights.items() if role == "forgotten"}
        if state.phase is Phase.FORGOTTEN:
            assert forgotten and forgotten == alert_spots(state)
        else:
            assert not forgotten and not alert_spots(state)
        possible = state.captures(state.to_move)
        if state.phase is Phase.CAPTURE and state.options["hints"] and possible:
            spots = set()
            for c in possible:
                p = state.to_move
                spots.add(zone_spot(1 - p, state.zones[1 - p].index(c.monster) + 1))
                spots.add(zone_spot(p, state.zones[p].index(c.potion_a) + 1))
                spots.add(zone_spot(p, state.zones[p].index(c.potion_b) + 1))
            assert hints == spots
        else:
            assert not hints

    def check_end(self, state: PotionsState) -> None:
        """MP-4: five captures, or the pile empty when a player must draw; more captures win,
        equal captures draw."""
        a, b = (len(t) for t in state.trophies)
        if state.ended_by == "captures":
            assert len(state.trophies[self.mover]) == WINNING_CAPTURES
        else:
            # Nothing else ends a game: the FAQ caps no zone.
            assert state.ended_by == "pile"
            assert state.pile_size == 0 and state.pile_unseen == 0 and not state.pile_under
            assert state.hands[self.mover] < HAND
        assert max(a, b) <= WINNING_CAPTURES
        expected = [0.0, 0.0] if a == b else [1.0, -1.0] if a > b else [-1.0, 1.0]
        assert state.returns() == expected
        assert state.legal_actions() == [] and state.chance_outcomes() == []


def play(
    options: dict[str, Any], rng: random.Random, real_hands: bool, redeal: bool = False
) -> tuple[PotionsState, Watcher]:
    state = GAME.new_initial_state(options)
    assert isinstance(state, PotionsState)
    hidden = GAME.deal(state, rng) if real_hands else None
    assert hidden is None or isinstance(hidden, PotionsHidden)
    watcher = Watcher(state, random.Random(rng.random()))
    redeal_at = rng.randrange(2, 60) if redeal else -1
    bound = action_bound(len(state.cards))
    for step in range(bound):
        if state.is_terminal():
            break
        if step == redeal_at and hidden is not None:
            # `deal` fits real hands to any public state, a game under way included.
            hidden = GAME.deal(state, rng)
            assert isinstance(hidden, PotionsHidden)
            watcher.check_hidden(state, hidden)
        watcher.before(state, hidden)
        action = random_step(state, rng, hidden)
        watcher.after(state, action, hidden)
    assert state.is_terminal(), f"no end after {bound} actions"
    return state, watcher


def _public(state: GameState) -> Any:
    assert isinstance(state, PotionsState)
    return (
        GAME.layout(state),
        state.trophies,
        state.hands,
        state.hidden,
        list(state.pile_under),
        state.phase,
        GAME.result(state),
    )


def _games(options: dict[str, Any], seed: str, games: int, real_hands: bool) -> Counter[str]:
    rng = random.Random(seed)
    kinds: Counter[str] = Counter()
    for n in range(games):
        state, watcher = play(options, rng, real_hands, redeal=n % REDEAL == 0)
        kinds += watcher.kinds
        kinds[f"ended by {state.ended_by}"] += 1
        if n % REPLAY == 0:
            again = GAME.replay(state.history(), state.options)
            assert _public(again) == _public(state)
            assert again.history() == state.history()
    return kinds


@pytest.mark.parametrize("half", [0, 1])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_games_with_real_hands_keep_every_invariant(name: str, half: int) -> None:
    # Two halves of the games, so that pytest-xdist shares them between cores.
    kinds = _games(CONFIGS[name], f"potions {name}, half {half}", GAMES // 2, real_hands=True)
    # The games reach every step: captures, forgotten ones (MP-3) and turns ended without one.
    assert kinds["Capture"] > kinds["forgotten"] > 0
    assert kinds["EndTurn"] > kinds["forgotten"]
    assert kinds["ended by captures"] > 0


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_games_from_the_public_state_keep_every_invariant(name: str) -> None:
    kinds = _games(CONFIGS[name], f"potions public {name}", PUBLIC_GAMES, real_hands=False)
    assert kinds["Capture"] > kinds["forgotten"] > 0


def _write_deck(path: Path, cards: list[tuple[int, int]]) -> str:
    lines: list[str] = []
    for n, (monster, potion) in enumerate(cards):
        lines += ["[[cards]]", f'id = "c{n}"', f"monster = {monster}", f"potion = {potion}"]
        lines += ['colour = "green"', ""]
    path.write_text("\n".join(lines))
    return str(path)


def test_random_games_that_empty_the_pile(tmp_path: Path) -> None:
    """MP-4: an empty pile ends the game; more captures win, equal captures draw."""
    # MP-1: any deck is a file. 97 is no product of these potions, so captures are rare and
    # the pile runs out, which it almost never does with the real decks.
    cards = [(97, 2)] * 16 + [(4, 2)] * 4 + [(9, 3)] * 4
    pile_deck = _write_deck(tmp_path / "rare.toml", cards)
    kinds: Counter[str] = Counter()
    rng = random.Random("potions pile")
    for real_hands in (True, False):
        for _ in range(150):
            state, _ = play({"deck": pile_deck}, rng, real_hands)
            a, b = (len(t) for t in state.trophies)
            kinds[f"{state.ended_by}, {'draw' if a == b else 'win'}"] += 1
    assert kinds["pile, draw"] > 0 and kinds["pile, win"] > 0 and kinds["captures, win"] > 0
    assert set(kinds) == {"pile, draw", "pile, win", "captures, win"}


def test_random_games_grow_the_zones_past_the_tables_slots(tmp_path: Path) -> None:
    """FAQ: no limit to the cards in front of a player. With no capture ever possible, a
    60-card deck puts 25 or more cards in each zone, more than its 20 slots on the table; play
    goes on beside the zone until the pile runs out (MP-4), a draw."""
    deck = _write_deck(tmp_path / "none.toml", [(97, 1)] * 60)
    rng = random.Random("potions zone")
    for real_hands in (True, False):
        for _ in range(5):
            state, watcher = play({"deck": deck}, rng, real_hands)
            assert state.ended_by == "pile" and state.returns() == [0.0, 0.0]
            assert watcher.kinds["Capture"] == 0
            assert min(len(state.zone_cards(p)) for p in range(2)) > ZONE_SLOTS
            beside = {s for p in range(2) for s, _ in state.zone_slots(p) if s > ZONE_SLOTS}
            assert beside and set(GAME.layout(state)) <= set(GAME.spots())


def test_every_random_game_ends_within_the_bound_the_rules_set(tmp_path: Path) -> None:
    """No loop without an end: whatever the deck, every game ends within `action_bound` actions
    (a pile that only captures refill, and at most 9 captures). Random play from the public
    state, where any card the mover may hold can be placed, on decks where captures are rare,
    common, or impossible; the longest game stays within the bound."""
    decks = {
        "rare": [(97, 2)] * 16 + [(4, 2)] * 4 + [(9, 3)] * 4,
        "common": [(m, p) for m in (2, 3, 4, 6) for p in (1, 2)] * 4,
        "none": [(97, 1)] * 90,
    }
    rng = random.Random("potions bound")
    for name, cards in decks.items():
        deck = _write_deck(tmp_path / f"{name}.toml", cards)
        longest = 0
        for n in range(30):
            state, _ = play({"deck": deck}, rng, real_hands=n % 2 == 0)
            longest = max(longest, len(state.actions()))
        assert 0 < longest <= action_bound(len(cards)), (name, longest)
    assert action_bound(80) == 269  # the full pack
