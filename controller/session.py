"""The session: reconciles what the table senses with what the rules allow (DESIGN.md §2).

A chance event's observation is its outcome. A decision is inferred by comparing the sensed
layout with the layout after each legal action, as PicoChess does for chess. A layout that
matches nothing is left alone for a settle time, then the spots that differ blink.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from controller.journal import Journal
from controller.rules.api import JSON, Action, Game, GameState, IllegalActionError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class View:
    """What the lights should show now: a role per spot, and which of those spots blink."""

    roles: dict[str, str]
    blinking: frozenset[str]


class Session:
    def __init__(self, game: Game, state: GameState, journal: Journal, settle_s: float) -> None:
        self.game = game
        self.state = state
        self.journal = journal
        self.settle_s = settle_s
        self.expected = game.layout(state)
        self.sensed = self.expected
        self.message = ""
        self._mismatch_since: float | None = None
        self._candidates: list[Action] = []
        self._layouts_after: dict[Action, frozenset[str]] = {}
        self._last_reading: tuple[int, int] | None = None  # (history length before, actions)

    # -- what happened on the table -------------------------------------------------------

    def on_layout(self, sensed: frozenset[str], now: float) -> None:
        self.sensed = sensed
        self._reconcile(now)

    def on_dice(self, values: Sequence[int | str], now: float) -> list[Action]:
        """Apply a settled dice reading as the chance outcome (and AK-3-like choices it implies)."""
        before = len(self.state.actions())
        actions = self.game.dice_actions(self.state, values)
        self._apply(actions, now)
        self._last_reading = (before, len(actions))
        self.message = f"dice {', '.join(map(str, values))}: {', '.join(a.id for a in actions)}"
        return actions

    def correct_dice(self, values: Sequence[int | str], now: float) -> list[Action]:
        """Replace the last dice reading, as long as nothing has been played since."""
        reading = self._last_reading
        if reading is None or reading[0] + reading[1] != len(self.state.actions()):
            raise IllegalActionError("no dice reading to correct: the last roll has been played on")
        before, count = reading
        earlier = self.game.replay(self.state.history()[:before], self.state.options)
        actions = self.game.dice_actions(earlier, values)
        trial = earlier.clone()
        for action in actions:
            trial.apply(action)
        self.journal.append_retraction(count)
        for action in actions:
            self.journal.append_action(action.to_json())
        self.state = trial
        self._last_reading = (before, len(actions))
        self._changed(now)
        self.message = f"corrected the dice to {', '.join(map(str, values))}"
        return actions

    def act(self, action_id: str, now: float) -> Action:
        """Apply a legal decision by its id: the control interface's way in."""
        for action in self.state.legal_actions():
            if action.id == action_id:
                self._apply([action], now)
                self.message = f"{action.id} (control)"
                return action
        legal = ", ".join(a.id for a in self.state.legal_actions()) or "none"
        raise IllegalActionError(f"{action_id!r} is not a legal action now; legal: {legal}")

    # -- time ---------------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        if self._mismatch_since is None:
            return None
        return self._mismatch_since + self.settle_s

    def fixes(self, now: float) -> frozenset[str]:
        """Spots to put right: those differing once the settle time has passed."""
        deadline = self.next_deadline()
        if deadline is None or now < deadline:
            return frozenset()
        return self.sensed ^ self.expected

    def view(self, now: float) -> View:
        roles = self.game.lights(self.state)
        for spot in self._legal_spots():
            roles.setdefault(spot, "legal")
        fixes = self.fixes(now)
        for spot in self.sensed ^ self.expected:
            roles[spot] = "fix" if spot in fixes else "changed"
        for action in self._candidates:
            for spot in self._layout_after(action) ^ self.expected:
                roles[spot] = "candidate"
        return View(roles, fixes)

    def candidates(self) -> list[Action]:
        return list(self._candidates)

    # -- internals ------------------------------------------------------------------------

    def _layout_after(self, action: Action) -> frozenset[str]:
        # The lights are redrawn on every loop turn; clone and lay out once per state.
        if action not in self._layouts_after:
            after = self.state.clone()
            after.apply(action)
            self._layouts_after[action] = self.game.layout(after)
        return self._layouts_after[action]

    def _legal_spots(self) -> set[str]:
        """Where a legal decision would put or take a piece, less the spots all of them share."""
        if self.state.is_terminal() or self.state.is_chance_node():
            return set()
        diffs = [self._layout_after(a) ^ self.expected for a in self.state.legal_actions()]
        diffs = [d for d in diffs if d]
        if not diffs:
            return set()
        return set(frozenset.union(*diffs) - frozenset.intersection(*diffs))

    def _reconcile(self, now: float) -> None:
        self._candidates = []
        if self.sensed == self.expected:
            self._mismatch_since = None
            return
        matches: list[Action] = []
        if not self.state.is_terminal() and not self.state.is_chance_node():
            matches = [
                a for a in self.state.legal_actions() if self._layout_after(a) == self.sensed
            ]
        if len(matches) == 1:
            self._apply(matches, now)
            self.message = f"{matches[0].id} (seen on the table)"
            return
        if matches:
            self._candidates = matches
            self.message = "several moves fit the table: " + ", ".join(a.id for a in matches)
        # Hands may still be moving pieces: the settle time runs from the latest change.
        self._mismatch_since = now

    def _apply(self, actions: Sequence[Action], now: float) -> None:
        trial = self.state.clone()
        for action in actions:
            trial.apply(action)  # raises with the state untouched
        for action in actions:
            self.journal.append_action(action.to_json())
        self.state = trial
        self._last_reading = None
        for action in actions:
            log.info("applied %s", action.id)
        self._changed(now)

    def _changed(self, now: float) -> None:
        self._layouts_after.clear()
        self.expected = self.game.layout(self.state)
        self._mismatch_since = None
        self._reconcile(now)


def describe_state(game: Game, state: GameState) -> JSON:
    """The public summary that `smartboard status` and the control socket give."""
    player = state.current_player()
    return {
        "game": game.name,
        "turn": game.describe(state).get("turn", len(state.actions())),
        "to_move": None if state.is_terminal() else state.player_name(player),
        "history": state.history(),
        "result": game.result(state),
        "details": game.describe(state),
    }
