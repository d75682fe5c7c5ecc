"""The simulated table's hands: the cards its players hold, and laying pieces where they go.

A card game's state never knows a hand (DESIGN.md §3), so as far as the rules can tell a
player may lay any card not yet seen. On a real table the players hold real cards; on the
simulated one somebody must, or a Multipli Potion turn offers every card of the deck. The
simulated table deals hidden hands (`Game.deal`) and keeps them in step with the game, for the
bots and for a person playing from the page alike.
"""

from __future__ import annotations

import copy
import logging
import random

from controller.rules.api import Action, Game, GameState, Hidden, Layout
from hardware.reeds import ReedBank
from vision.board_camera import SimBoardCamera

log = logging.getLogger(__name__)

STEPS_COUNTED = 500
"""The most chance steps `SimHands.chance_steps` counts."""


class SimHands:
    """The hidden cards of a game on the simulated table, dealt at random to fit it."""

    def __init__(
        self, game: Game, state: GameState, rng: random.Random, wise: frozenset[int] = frozenset()
    ) -> None:
        """`wise`: the seats that lay their secret cards by the game's judgement (the seats
        the table plays); the others' hands lay any."""
        self.game = game
        self.rng = rng
        self.wise = wise
        self._shadow: GameState  # what the hidden cards have seen, from `_deal`
        # The hidden cards as they were before each action the shadow played (by its index):
        # after a take-back the cards lie as they did then, so a card turned up again is the
        # same card, as on a real table (issue 24, controller/takeback.py).
        self._before: dict[int, Hidden] = {}
        # The cards a person chose to lay face down, by the place in the line of the step
        # that laid each: laid again when the hands are dealt afresh and brought up to the
        # game (a restart, `Journal.secrets`; the walk: a Mightymania squad reshuffled).
        self.secrets: dict[int, str] = {}
        self.hidden: Hidden | None = self._deal(state)

    def _deal(self, state: GameState) -> Hidden | None:
        """Cards dealt afresh to fit `state`, which the shadow now follows from."""
        self._shadow = state.clone()
        self._before = {}
        hidden = self.game.deal(self._shadow, self.rng)
        if hidden is not None:
            hidden.decide_for(self.wise)
        return hidden

    def deal_alike(
        self, rng: random.Random, start: GameState, state: GameState, game: Game | None = None
    ) -> None:
        """Dealt from `rng` at the game's `start`, then brought up to `state`: dealt from one
        seed, the hands are the same cards each time. So a restart deals the hands the players
        held (the walk: a person's hand changed when the daemon restarted), and tables linked
        in a room, which each simulate all the hands, hold the same cards: a card one table's
        player lays is one the other table's deal gave them. `game`: a new game's, dealt
        afresh (its first steps would otherwise read as a take-back to the start of the last
        game with the same options)."""
        self.game = game or self.game
        self.rng = rng
        self.hidden = self._deal(start)
        self.follow(state)

    def decide_for(self, seats: frozenset[int]) -> None:
        """From now on `seats` lay their secret cards by judgement (`Hidden.decide_for`)."""
        self.wise = seats
        if self.hidden is not None:
            self.hidden.decide_for(seats)

    def follow(self, state: GameState) -> Hidden | None:
        """The hidden cards brought up to date with what the game has played since."""
        if self.hidden is None:
            return None
        seen = self._shadow.actions()
        now = state.actions()
        # A new game with other options (another deck) starts from a deal of its own.
        same_game = state.options == self._shadow.options
        if same_game and len(now) in self._before and seen[: len(now)] == now:
            return self._take_back(state)
        if same_game and now[: len(seen)] == seen:
            try:
                for index in range(len(seen), len(now)):
                    self._before[index] = copy.deepcopy(self.hidden)
                    if index in self.secrets:
                        self._choose_again(index)
                    self._shadow.apply(now[index])
                    self.hidden.observe(now[index], self._shadow)
                return self.hidden
            except (ValueError, KeyError, IndexError) as error:
                # A step this deal cannot follow (a card it did not hold, typed in by hand).
                log.warning("the simulated hands are dealt again: %s", error)
        # A corrected dice reading or a new game: deal afresh to fit the table.
        self.hidden = self._deal(state)
        return self.hidden

    def _choose_again(self, index: int) -> None:
        """The card a person chose for the `index`-th step laid again; forgotten if it no
        longer fits (a card that a step before now took), rather than dealing again."""
        assert self.hidden is not None
        try:
            self.hidden.choose(self._shadow, self.secrets[index])
        except ValueError as error:
            log.warning("a card laid face down is chosen afresh: %s", error)
            del self.secrets[index]

    def _take_back(self, state: GameState) -> Hidden | None:
        """The hidden cards as they were when the game stood at `state`, a take-back's; the
        cards chosen for the steps taken back forgotten."""
        kept = len(state.actions())
        self.secrets = {index: card for index, card in self.secrets.items() if index < kept}
        self.hidden = self._before[kept]
        self.hidden.decide_for(self.wise)
        self._before = {index: cards for index, cards in self._before.items() if index < kept}
        self._shadow = state.clone()
        return self.hidden

    def secret_choices(self, state: GameState) -> list[str]:
        """The cards the seat laying face down now may lay from its hand (`Hidden`)."""
        hidden = self.follow(state)
        return [] if hidden is None else hidden.secret_choices(state)

    def person_lays(self, state: GameState, table_seats: frozenset[int]) -> bool:
        """Whether the chance step at hand is a card a person lays face down from the hand
        held for them (a seat not in `table_seats`): theirs to choose, never the hands'."""
        return _person_lays(self.game, state, self.follow(state), table_seats)

    def chance_steps(self, state: GameState, table_seats: frozenset[int]) -> int | None:
        """How many chance steps come before the next decision, the end, or a card a person
        lays face down (`person_lays`): what the hands laying out chance lay from `state`.
        Their number hardly depends on what comes up (a set-up's spaces, the cards turned up),
        so the outcomes are taken in turn, never the same tie twice, but the cards the hidden
        deal turns up as it says. None past `STEPS_COUNTED`."""
        hidden = copy.deepcopy(self.follow(state))
        state = state.clone()
        steps = 0
        while state.is_chance_node() and not _person_lays(self.game, state, hidden, table_seats):
            if steps == STEPS_COUNTED:
                return None
            outcomes = state.chance_outcomes()
            dealt = None if hidden is None else hidden.outcome(state)
            action = outcomes[steps % len(outcomes)][0] if dealt is None else dealt
            state.play(action)  # its own outcome: not checked again
            if hidden is not None:
                hidden.observe(action, state)
            steps += 1
        return steps

    def choose(self, state: GameState, card: str) -> None:
        """A person lays `card` face down now, of those `secret_choices` gives; a ValueError
        says why not."""
        hidden = self.follow(state)
        if hidden is None:
            raise ValueError(f"{self.game.name} has no cards laid face down")
        hidden.choose(state, card)
        self.secrets[len(state.actions())] = card

    def known_to(self, state: GameState, seats: list[int]) -> dict[str, list[list[str]]]:
        """What each of `seats` holds or laid unseen, by seat name: [spot, card] pairs, the
        spot "" for a card in hand (`Hidden.known_to`); nothing for a game without them."""
        hidden = self.follow(state)
        if hidden is None:
            return {}
        return {
            state.player_name(seat): [[spot, card] for spot, card in hidden.known_to(seat)]
            for seat in seats
        }

    def choices(self, state: GameState) -> list[Action] | None:
        """The decisions the player to move can really make with what they hold; None for a
        game without hidden cards, where every legal decision can be made."""
        if state.is_chance_node() or state.is_terminal():
            return []
        hidden = self.follow(state)
        return None if hidden is None else hidden.choices(state)

    def outcome(self, state: GameState) -> Action | None:
        """At a chance node, the card the hidden deal turns up; None for true chance."""
        hidden = self.follow(state)
        return None if hidden is None else hidden.outcome(state)


def _person_lays(
    game: Game, state: GameState, hidden: Hidden | None, table_seats: frozenset[int]
) -> bool:
    if hidden is None or not state.is_chance_node():
        return False
    seat = game.roller(state)
    return seat is not None and seat not in table_seats and bool(hidden.secret_choices(state))


def lay_out(reeds: ReedBank, camera: SimBoardCamera | None, layout: Layout) -> None:
    """Put the simulated table's pieces as `layout` has them, as hands would."""
    for spot, occupied in reeds.read().items():
        if (spot in layout) != occupied:
            reeds.drive(spot, spot in layout)
    if camera is not None:
        camera.show(layout)
