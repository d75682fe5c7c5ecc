"""Scripted players for the simulated table: they act as hands would.

They move pieces by driving the simulated reed pins and laying out the board under the simulated
camera, roll the virtual dice, and use the control interface only for decisions that no sensor
could see. Every side plays uniformly at random; chance read from the board (dice placed on
cells at set-up) is drawn with its odds. In card games the bots hold the
simulated table's hidden hands (controller/hands.py): they play from them and turn up the cards
that really lie face down, and the session only ever sees what lands on the table.

The same hands, `chance_only`, lay out for a person playing from the page what chance brings
(Baron Voodoo's set-up dice, BV-1; the cards laid or dealt) and roll the dice, up to the next
decision of a player, which stays theirs (`smartboard lay-out`, the page's button).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.hands import SimHands, lay_out
from controller.rules.api import Action, GameState, IllegalActionError, Layout
from controller.session import Session
from hardware.reeds import ReedBank
from vision.board_camera import SimBoardCamera
from vision.dice_sources import DiceReading, VirtualDice

CAMERA_WAIT_S = 0.05
"""How often bots waiting for a roll the camera reads, or for the table's own move, look again."""


class Bots:
    def __init__(
        self,
        session: Session,
        reeds: ReedBank,
        camera: SimBoardCamera | None,
        submit_dice: Callable[[DiceReading], None],
        rng: random.Random,
        pace: float,
        hands: SimHands,
        camera_kinds: frozenset[str] = frozenset(),
        chance_only: bool = False,
    ) -> None:
        """`camera_kinds`: the dice the camera reads, from frames nobody at this table throws;
        the bots wait for those rolls rather than roll them. `chance_only`: the hands take no
        decision; they are `done` at the first one (or the game's end), the table settled."""
        self.session = session
        self.reeds = reeds
        self.camera = camera
        self.submit_dice = submit_dice
        self.rng = rng
        self.dice = VirtualDice(rng)
        self.pace = pace
        self.camera_kinds = camera_kinds
        self.next_step = 0.0
        self._placed: Action | None = None  # the decision whose layout the hands laid out
        self.hands = hands
        self.chance_only = chance_only
        self.began = len(session.state.actions())  # the steps played when the hands came
        self.limit: int | None = None  # `chance_only`: done after this many steps, if any
        self.done = False
        # Nothing to do at the last step (the game over, the steps asked for laid): no step is
        # due until something else wakes the table, or a due step never taken spins its loop.
        self.resting = False
        self.told: Callable[[GameState], tuple[bool, Action | None]] | None = None
        """Whether a seat the table plays is to move, and its move once shown
        (controller/computer.py): the hands carry that out rather than a move of their own."""

    def step(self, now: float, table_busy: bool) -> None:
        """Take one turn of hands if it is time and the table has settled.

        After the last move the hands still put the table right, so it shows the final position.
        """
        session = self.session
        if now < self.next_step or table_busy:
            return
        self.resting = False
        placed, self._placed = self._placed, None
        if session.sensed != session.expected:
            self.next_step = now + self.pace
            if placed is not None and placed in session.candidates():
                # Several moves look alike on the board: the player names theirs on the dashboard.
                session.act(placed.id, now)
            else:
                self._place(session.expected)  # put the table right, as the lights ask
            return
        state, game = session.state, session.game
        if self.limit is not None and len(state.actions()) - self.began >= self.limit:
            self.done = self.resting = True  # the steps asked for are laid, and settled
            return
        # Laying out chance stops where a player decides, a secret card of theirs included.
        chosen = self.chance_only and (
            not state.is_chance_node() or self.hands.person_lays(state, session.table_seats)
        )
        if state.is_terminal() or chosen:
            if chosen and not state.is_terminal():
                # The last piece seen is no longer the news: all is laid, a player decides.
                seat = game.roller(state) if state.is_chance_node() else state.current_player()
                player = state.player_name(state.current_player() if seat is None else seat)
                session.say(
                    f"laid out; {session.called(player)} to play", "laid_out", player=player
                )
            self.done = self.chance_only
            self.resting = True
            return
        self.next_step = now + self.pace
        if session.chance_not_read():
            # Rolled at another table or in software (controller/room.py): the hands lay what
            # comes.
            self.next_step = now + max(self.pace, CAMERA_WAIT_S)
            return
        if state.is_chance_node():
            wanted = game.dice_wanted(state)
            if wanted is not None:
                self._throw(self.dice.roll(wanted.faces, wanted.count), wanted.kind, now)
                return
            # No dice stand for it: the outcome is laid on the board for the session to see.
            outcome = self.hands.outcome(state)
            if outcome is None:
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                outcome = self.rng.choices(outcomes, weights)[0]
            layout = game.layout(state.child(outcome))
            if session.position.outcome_shown(layout) != outcome:
                raise RuntimeError(f"{game.name}: the board cannot show chance outcome {outcome}")
            self._place(layout)
            return
        table, shown = (False, None) if self.told is None else self.told(state)
        if table and shown is None:
            # The table still thinks for this seat: the hands wait for its move.
            self.next_step = now + max(self.pace, CAMERA_WAIT_S)
            return
        choices = self.hands.choices(state)
        action = shown or self.rng.choice(state.legal_actions() if choices is None else choices)
        after = state.child(action)
        layout = game.layout(after)
        wanted = game.dice_wanted(after)
        if layout != session.expected:
            self._place(layout)
            self._placed = action
            return
        if wanted is not None and not session.chance_drawn:
            reading = self.dice.roll(wanted.faces, wanted.count)
            if self._dice_tell(action, reading):
                # The dice thrown tell the choice (AK-3, or the one building a pawn can claim);
                # the camera's next roll tells it, whichever it is.
                self._throw(reading, wanted.kind, now)
                return
        # Nothing on the table shows it: the player names it through the control interface.
        session.act(action.id, now)

    def _throw(self, reading: DiceReading, kind: str, now: float) -> None:
        """Roll dice the camera does not read; the camera's own roll comes as an event, and
        until it does, looking again at pace 0 would spin the loop and starve the camera's
        thread of the interpreter."""
        if kind in self.camera_kinds:
            self.next_step = now + max(self.pace, CAMERA_WAIT_S)
        else:
            self.submit_dice(reading)

    def _dice_tell(self, action: Action, reading: DiceReading) -> bool:
        """Whether this throw, read now, stands for `action` and its roll."""
        try:
            actions = self.session.game.dice_actions(self.session.state, reading.values)
        except IllegalActionError:
            return False
        return bool(actions) and actions[0] == action

    def _place(self, layout: Layout) -> None:
        lay_out(self.reeds, self.camera, layout)
