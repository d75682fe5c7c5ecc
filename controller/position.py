"""A position on the table: the game's state, the layout the table should show, and what each
move from it would change, worked out once per state (the lights are redrawn on every loop
turn); and what a layout sensed there says: the chance outcome the board shows, a move made
together with the card it turned up, pieces put down ahead of the rules, a piece in the hand.

The session (controller/session.py) keeps one for its state and decides with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.rules.api import Action, Game, GameState, Layout

MOST_OF_BOARD = 0.75
"""Moves of pieces on the board lit on more of its squares than this light none of them."""


def differing(a: Layout, b: Layout) -> frozenset[str]:
    """The spots whose tokens differ between two layouts (absent counts as empty)."""
    return frozenset(spot for spot in a.keys() | b.keys() if a.get(spot) != b.get(spot))


class Position:
    def __init__(self, game: Game, state: GameState) -> None:
        self.game = game
        self.state = state
        self.expected: Layout = game.layout(state)
        self._layouts_after: dict[Action, Layout] = {}
        self._changes: dict[Action, frozenset[str]] = {}
        self._legal_actions: list[Action] | None = None

    def legal_actions(self) -> list[Action]:
        """The state's legal decisions, listed once: the same objects each time, so that their
        ids, worked out once, are kept."""
        if self._legal_actions is None:
            self._legal_actions = self.state.legal_actions()
        return self._legal_actions

    def layout_after(self, action: Action) -> Layout:
        """What the table should show once `action` is taken."""
        if action not in self._layouts_after:
            self._layouts_after[action] = self.game.layout(self.state.child(action))
        return self._layouts_after[action]

    def changes(self, action: Action) -> frozenset[str]:
        """The spots that `action` changes on the table."""
        if action not in self._changes:
            self._changes[action] = differing(self.layout_after(action), self.expected)
        return self._changes[action]

    def board_chance(self) -> bool:
        """A chance node whose outcome is read from the board, not from dice."""
        return self.state.is_chance_node() and self.game.dice_wanted(self.state) is None

    def at_decision(self) -> bool:
        return not (self.state.is_terminal() or self.state.is_chance_node())

    def legal_spots(self, moves: Sequence[Action]) -> set[str]:
        """Where one of `moves` (the decisions lit) would put or take a piece, less the spots
        all of them share; when they all change the same spots, where they put a piece.

        At a chance node read from the board, every spot an outcome would change: where the
        next piece goes.
        """
        if self.board_chance():
            outcomes = [outcome for outcome, _ in self.state.chance_outcomes()]
            return {s for o in outcomes for s in self.changes(o)}
        if not self.at_decision():
            return set()
        moves = [a for a in moves if self.changes(a)]
        if not moves:
            return set()
        diffs = [self.changes(a) for a in moves]
        if all(d == diffs[0] for d in diffs):
            # One way to change the table (a pawn with one cell to go to): not where it leaves.
            after = self.layout_after(moves[0])
            return {spot for spot in diffs[0] if spot in after}
        spots = set(frozenset.union(*diffs) - frozenset.intersection(*diffs))
        # Pieces that may move from and to nearly every square (a Voodoo turn's start, whose
        # powers move almost any die): "legal" lit everywhere would say nothing, so the game's
        # own lights speak, and a piece lifted still lights where it may go. A piece to lay
        # anywhere (a trap, a set-up die) is still lit everywhere: that says what to do.
        moving = any(spot in self.expected for spot in spots)
        return set() if moving and self._share_of_board(spots) > MOST_OF_BOARD else spots

    def _share_of_board(self, spots: set[str]) -> float:
        """The share of the board's squares that `spots` lie in (a cell's camera spot "r0c0.map"
        in the cell's square)."""
        board = {square for row in self.game.board_rows() for square in row}
        squares = {spot.rpartition(".")[0] if spot not in board else spot for spot in spots}
        return len(squares & board) / max(len(board), 1)

    def outcome_shown(self, board: Layout) -> Action | None:
        """At a chance node read from the board, the one outcome that `board` shows: it changes
        some spots, each as the board has it. None if no outcome or several fit."""
        if not self.board_chance():
            return None
        fits = [o for o, _ in self.state.chance_outcomes() if self.shows(board, o)]
        return fits[0] if len(fits) == 1 else None

    def shows(self, board: Layout, action: Action) -> bool:
        """`board` shows every spot that `action` changes as the action leaves it."""
        after, changed = self.layout_after(action), self.changes(action)
        return bool(changed) and all(after.get(s) == board.get(s) for s in changed)

    def decided_and_shown(
        self, decisions: Sequence[Action], sensed: Layout
    ) -> list[tuple[Action, Action]]:
        """Decisions seen together with the chance outcome read from the board that follows
        them: a defending card put on its Leader and turned face up in one go."""
        if not self.at_decision():
            return []
        found: list[tuple[Action, Action]] = []
        for action in decisions:
            after = self.layout_after(action)
            # Only a decision whose own spots are the ones still wrong can be the first step.
            left = differing(after, sensed)
            if not left or not left <= differing(after, self.expected):
                continue
            child = self.state.child(action)
            if not child.is_chance_node() or self.game.dice_wanted(child) is not None:
                continue
            found.extend(
                (action, outcome)
                for outcome, _ in child.chance_outcomes()
                if self.game.layout(child.child(outcome)) == sensed
            )
        return found

    def moved_ahead(self, decisions: Sequence[Action], sensed: Layout) -> frozenset[str]:
        """At a decision, the spots of a legal move already made on the table while other spots
        are still to be put right (a trap laid before the Akuma put down by the last roll): they
        wait for the rest, and are not to be undone. The move that explains the most spots; a
        game that explains the table itself (`Game.explain`) is not second-guessed."""
        if not self.at_decision():
            return frozenset()
        pending = differing(sensed, self.expected)
        made = [
            changed
            for action in decisions
            if (changed := self.changes(action)) < pending and self.shows(sensed, action)
        ]
        return max(made, key=len, default=frozenset())

    def filled_ahead(self, sensed: Layout, limit: int = 100) -> frozenset[str]:
        """At a chance node read from the board, the differing spots that later outcomes explain.

        The chain of outcomes is played ahead on a copy: an outcome the board shows is taken,
        and where the board shows none yet, any outcome stands in for the piece still to come.
        """
        if not self.board_chance():
            return frozenset()
        pending = set(differing(sensed, self.expected))
        state, expected = self.state, self.expected
        explained: set[str] = set()
        for at in range(limit):
            if at == 1:
                # A piece taken away ahead only for the very next outcome (the table cleared
                # after the duel), not for one further on: a power card lifted from its round
                # is a mistake, though the table is cleared later (the walk, Mightymania).
                pending = {s for s in pending if s in sensed}
            if not pending or not state.is_chance_node() or self.game.dice_wanted(state):
                break
            children = [state.child(outcome) for outcome, _ in state.chance_outcomes()]
            layouts = [self.game.layout(child) for child in children]
            shown = [
                k
                for k, after in enumerate(layouts)
                if (changed := differing(after, expected)) <= pending
                and all(after.get(s) == sensed.get(s) for s in changed)
                and changed
            ]
            if shown:
                k = shown[0]
                changed = differing(layouts[k], expected)
                explained |= changed
                pending -= changed
            else:
                # The stand-in must not use up a piece the board already shows further on
                # (a card dealt to the second seat before the first's).
                ahead = {sensed.get(s) for s in pending}
                k = next(
                    (
                        k
                        for k, after in enumerate(layouts)
                        if not any(after.get(s) in ahead for s in differing(after, expected))
                    ),
                    0,
                )
                # An outcome half laid out (power cards cleared one by one) is no mistake.
                begun = {
                    s
                    for after in layouts
                    for s in differing(after, expected) & pending
                    if after.get(s) == sensed.get(s)
                }
                explained |= begun
                pending -= begun
            state, expected = children[k], layouts[k]
        return frozenset(explained)

    def landing_spots(
        self,
        decisions: Sequence[Action],
        sensed: Layout,
        to_find: Callable[[Action], bool],
        finding: bool,
    ) -> frozenset[str] | None:
        """If the only difference is a piece lifted off one spot, where `decisions` put it.

        None when that is not what the table shows, or no decision takes that piece anywhere:
        then it is a mistake to put right, not a move under way. While a decision is to be
        found (`finding`), any piece lifted is in the hand, lit nowhere: lighting where it
        lands would say the move is open, and blinking that none is (the walk: a monster
        lifted for a right Multipli Potion capture blinked).
        """
        diff = differing(sensed, self.expected)
        if len(diff) != 1 or not self.at_decision():
            return None
        (lifted_from,) = diff
        lifted = self.game.lifted(self.state)
        if sensed.get(lifted_from) != lifted.get(lifted_from):
            return None
        piece = self.expected.get(lifted_from)
        landing: set[str] = set()
        taken_off = finding
        for action in decisions:
            after = self.layout_after(action)
            if after.get(lifted_from) != lifted.get(lifted_from) or to_find(action):
                continue
            taken_off = True
            # A landing on a lookalike die shows only in what lies beneath the top.
            changed = differing(after, self.expected) | differing(
                self.game.lifted(self.state.child(action)), lifted
            )
            landing.update(
                spot for spot in changed if spot != lifted_from and after.get(spot) == piece
            )
        return frozenset(landing) if taken_off else None
