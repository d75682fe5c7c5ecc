"""Scripted players for the simulated table: they act as hands would.

They move pieces by driving the simulated reed pins, roll the virtual dice, and use the control
interface only for decisions that no sensor could see. Every side plays uniformly at random.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.session import Session
from hardware.reeds import ReedBank
from vision.dice_sources import DiceReading, VirtualDice


class Bots:
    def __init__(
        self,
        session: Session,
        reeds: ReedBank,
        submit_dice: Callable[[DiceReading], None],
        rng: random.Random,
        pace: float,
    ) -> None:
        self.session = session
        self.reeds = reeds
        self.submit_dice = submit_dice
        self.rng = rng
        self.dice = VirtualDice(rng)
        self.pace = pace
        self.next_step = 0.0

    def step(self, now: float, table_busy: bool) -> None:
        """Take one turn of hands if it is time and the table has settled.

        After the last move the hands still put the table right, so it shows the final position.
        """
        session = self.session
        if now < self.next_step or table_busy:
            return
        if session.sensed != session.expected:
            self.next_step = now + self.pace
            self._place(session.expected)  # put the table right, as the lights ask
            return
        if session.state.is_terminal():
            return
        self.next_step = now + self.pace
        state, game = session.state, session.game
        if state.is_chance_node():
            wanted = game.dice_wanted(state)
            if wanted is None:
                raise RuntimeError(f"{game.name}: a chance node the bots cannot roll for")
            self.submit_dice(self.dice.roll(wanted.faces, wanted.count))
            return
        action = self.rng.choice(state.legal_actions())
        after = state.clone()
        after.apply(action)
        layout = game.layout(after)
        wanted = game.dice_wanted(after)
        if layout != session.expected:
            self._place(layout)
        elif wanted is not None:
            # The number of dice thrown tells the choice (AK-3).
            self.submit_dice(self.dice.roll(wanted.faces, wanted.count))
        else:
            session.act(action.id, now)

    def _place(self, layout: frozenset[str]) -> None:
        for spot, occupied in self.reeds.read().items():
            if (spot in layout) != occupied:
                self.reeds.drive(spot, spot in layout)
