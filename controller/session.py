"""The session: reconciles what the table senses with what the rules allow (DESIGN.md §2).

A chance event's observation is its outcome: a dice reading, or for a chance node that no dice
stand for, the board itself once exactly one outcome fits it. A decision is inferred by comparing
the sensed layout with the layout after each legal action, as PicoChess does for chess, or after
an action and the card it turns face up, when both are done in one go. A layout
that matches nothing is left alone for a settle time, then the spots that differ blink, with the
spots that the game names as the cause (`Game.explain`); a piece held in the air mid-move never
blinks, and the spots where it may land are lit.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from controller.journal import Journal
from controller.position import Position, differing
from controller.refusals import Refused, nearest
from controller.rules.api import (
    JSON,
    Action,
    Game,
    GameState,
    IllegalActionError,
    Layout,
    Problem,
)
from controller.rules.words import action_text
from controller.seats import roller, seat_caller
from controller.takeback import Step, TakeBack, dice_as_fallen, kept_dice, plan, step, steps

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class View:
    """What the lights should show now: a role per spot, and which of those spots blink."""

    roles: dict[str, str]
    blinking: frozenset[str]


class Session:
    def __init__(self, game: Game, state: GameState, journal: Journal, settle_s: float) -> None:
        self.game = game
        self.position = Position(game, state)  # the state, and what each move would change
        self.journal = journal
        self.settle_s = settle_s
        self.sensed: Layout = dict(self.expected)
        self._message = ""
        self.note: JSON | None = None  # the message as a key and parameters, for the page
        self._mismatch_since: float | None = None
        self._candidates: list[Action] = []
        self._landing: frozenset[str] | None = None  # set while a piece is in the hand
        self._ahead: frozenset[str] = frozenset()
        # How the page offers each decision (controller/snapshot.py), worked out once per state.
        self.offered: dict[Action, JSON] = {}
        self.kind_gains: dict[str, JSON] = {}  # what each kind of decision costs, likewise
        self._legal: set[str] | None = None
        self._last_reading: tuple[int, int] | None = None  # (history length before, actions)
        self.problem: Problem | None = None  # why the sensed layout breaks the rules, if known
        # Taking back (controller/takeback.py): the game's steps as played, found once and then
        # kept up; what a take-back would undo, and the layout it goes back to, once per state.
        self._steps: list[Step] | None = None
        self._take_back: tuple[TakeBack | None] | None = None
        self._before: Layout | None = None
        self._carried_out = True  # the table has shown the position since the game last moved
        # What the table showed when a decision was taken by name (`act`), until hands carry it
        # out: no decision is read from that layout, as no hand has touched the table since.
        self._untouched: Layout | None = None
        self.restoring = False
        """Moves were taken back and the table still shows them: none is read from it until it
        shows the position the game went back to; the spots to put right blink meanwhile."""
        # The seats the table plays (controller/computer.py): the board is read for their moves
        # only once the table has chosen and shown one (`show`), unless `released` for this one;
        # a take-back goes back past their decisions to a person's.
        self.table_seats: frozenset[int] = frozenset()
        self.released = False
        # A move the table lights for the players, and whether it is the one decision it
        # accepts now (a computer seat's, not a hint's).
        self.shown: Action | None = None
        self._shown_roles: dict[str, str] = {}
        # Seats played at another table (controller/room.py): their moves and rolls come from
        # there; the table lights the moves for a hand to carry out, as a computer seat's.
        self.elsewhere: frozenset[int] = frozenset()
        self._rolled_elsewhere: bool | None = None
        # Chance drawn in software by the room's option (`--link-dice software`): no die nor
        # board is read for it, on any table.
        self.chance_drawn = False
        self._last_seat: tuple[int | None] | None = None  # who made the last action, once known

    @property
    def state(self) -> GameState:
        return self.position.state

    @state.setter
    def state(self, state: GameState) -> None:
        self.position = Position(self.game, state)

    @property
    def expected(self) -> Layout:
        """What the table should show now."""
        return self.position.expected

    # -- what the table says -------------------------------------------------------------

    @property
    def message(self) -> str:
        """What the table says now, in English: `smartboard status`, the terminal, the logs."""
        return self._message

    @message.setter
    def message(self, text: str) -> None:
        """A message with no key: the page shows it as it is."""
        self._message = text
        self.note = None

    def words(self, ids: Sequence[str]) -> str:
        """Actions by their ids, in the words the page says them, for a message in English."""
        names = self.game.token_names(self.state)
        return "; ".join(action_text(self.game, action_id, names=names) for action_id in ids)

    def called(self, player: str) -> str:
        """A seat as players read it, for a message in English: the name chosen for it
        ("Ana"), else the game's own ("Player 2")."""
        return seat_caller(self.game, self.journal.names)(player)

    def say(self, text: str, key: str, **params: object) -> None:
        """A message, and its key and parameters in the page's catalogue (words.js), which
        phrases it in the reader's language from ids rather than sentences."""
        self._message = text
        self.note = {"key": key, **params}

    def _problem_text(self, problem: Problem) -> str:
        """The rules' sentence, which names seats by their ids ("player_2"), with their names."""
        text = problem.message
        for seat in self.game.player_names:
            # The name as it is: one chosen may hold a backslash, which re.sub would read.
            name = self.called(seat).replace("\\", "\\\\")
            text = re.sub(rf"\b{re.escape(seat)}\b", name, text)
        return text

    def _say_problem(self, problem: Problem) -> None:
        text = self._problem_text(problem)
        if problem.key:
            self.say(text, "problem", problem=problem.key, params=dict(problem.params))
        else:
            self.message = text

    # -- what happened on the table -------------------------------------------------------

    def on_layout(self, sensed: Layout, now: float) -> None:
        self.sensed = dict(sensed)
        self._carried_out |= self.sensed == self.expected
        self._reconcile(now)

    def on_dice(
        self, values: Sequence[int | str], now: float, source: str = "typed"
    ) -> list[Action]:
        """Apply a settled dice reading as the chance outcome (and AK-3-like choices it implies).
        `source`: how the roll came (`ROLL_SOURCES`), journalled with it for the dice's record."""
        if self.rolled_elsewhere():
            raise IllegalActionError("this roll is made at another table: wait for it")
        if self.chance_drawn:
            raise IllegalActionError(
                "the linked tables roll chance in software (--link-dice software): no dice are "
                "entered, the roll comes once the move before it is made"
            )
        if self.table_moves() and not self.state.is_chance_node():
            # Dice that would tell a seat's choice (AK-3) while the table chooses for it.
            player = self.state.player_name(self.state.current_player())
            raise IllegalActionError(
                f"{self.called(player)} is played by the table: wait for its move"
            )
        before = len(self.state.actions())
        actions = self.game.dice_actions(self.state, values)
        self._apply(actions, now, self._roll(values, source))
        # A roll the software drew was not misread: nothing to correct ("Misread?" on the page).
        self._last_reading = None if source == "virtual" else (before, len(actions))
        ids = [a.id for a in actions]
        self.say(f"dice {', '.join(map(str, values))}: {self.words(ids)}", "dice", actions=ids)
        return actions

    @property
    def correctable(self) -> bool:
        """The last dice reading may still be corrected: nothing has been played since."""
        reading = self._last_reading
        return reading is not None and sum(reading) == len(self.state.actions())

    def correct_dice(self, values: Sequence[int | str], now: float) -> list[Action]:
        """Replace the last dice reading, as long as nothing has been played since."""
        reading = self._last_reading
        if reading is None or not self.correctable:
            raise IllegalActionError("no dice reading to correct: the last roll has been played on")
        before, count = reading
        earlier = self.game.replay(self.state.history()[:before], self.state.options)
        actions = self.game.dice_actions(earlier, values)
        trial = earlier.clone()
        for action in actions:
            trial.apply(action)
        roll = self._roll(values, "corrected", earlier)
        self.journal.append_actions([a.to_json() for a in actions], retract=count, dice=roll)
        self.state = trial
        self._last_reading = (before, len(actions))
        self._steps = None  # found again when a take-back needs them
        self._changed()
        self._reconcile(now)
        shown = ", ".join(map(str, values))
        self.say(f"corrected the dice to {shown}", "corrected", values=list(values))
        return actions

    def act(self, action_id: str, now: float) -> Action:
        """Apply a legal decision by its id: the control interface's way in."""
        for action in self._decisions():
            if action.id != action_id:
                continue
            if action == self.shown:
                # The move the table showed for a seat it plays, carried out by a tap: whose.
                player = self.state.player_name(self.state.current_player())
                said = f"{self.words([action.id])} (control, for {self.called(player)})"
                self.say(said, "carried_out", player=player, actions=[action.id])
            else:
                self.say(f"{self.words([action.id])} (control)", "played", actions=[action.id])
            self._commit([action])
            self._untouched = None if self._carried_out else dict(self.sensed)
            self._reconcile(now)
            return action
        if self.shown is not None or self.table_moves():
            player = self.state.player_name(self.state.current_player())
            chosen = (
                "is still thinking"
                if self.shown is None
                else f"has chosen: {self.words([self.shown.id])}, to be carried out as lit"
            )
            raise IllegalActionError(
                f"{self.called(player)} is played by the table, which {chosen}"
            )
        legal = [a.id for a in self.legal_actions()]
        raise IllegalActionError(
            f"{action_id!r} is not a legal action now; {nearest(action_id, legal)}"
        )

    def apply_elsewhere(self, action: Action, now: float, drawn: bool = False) -> None:
        """A chance outcome rolled at another table (controller/room.py), or `drawn` here in
        software, applied as it came: the hands lay out what the lights then ask for."""
        self._apply([action], now)
        if drawn:
            self.say(
                f"{self.words([action.id])} (rolled in software)", "drawn", actions=[action.id]
            )
        else:
            said = f"{self.words([action.id])} (another table)"
            self.say(said, "remote_roll", actions=[action.id])

    def chance_not_read(self) -> bool:
        """A chance node whose outcome is not read on this table: rolled at another, or drawn
        in software."""
        return self.rolled_elsewhere() or (self.chance_drawn and self.state.is_chance_node())

    def rolled_elsewhere(self) -> bool:
        """A chance node rolled by a seat played at another table: not read here. The seat the
        rules name (`Game.roller`), else the one whose decision the roll follows (AK-3: the dice
        thrown are the choice), else the one that decides after it (`roller`)."""
        if self._rolled_elsewhere is None:
            self._rolled_elsewhere = False
            if self.elsewhere and self.state.is_chance_node():
                owner = self.game.roller(self.state)
                if owner is None:
                    seat = self._last_decider()
                    owner = roller(self.state) if seat is None else seat
                # One no turn tells (a set-up laid in turn) is rolled by the first seat's table.
                self._rolled_elsewhere = (0 if owner is None else owner) in self.elsewhere
        return self._rolled_elsewhere

    def _last_decider(self) -> int | None:
        """The seat whose decision the last action was; None for a chance outcome or none."""
        if self._last_seat is None:
            history = self.state.history()
            seat = None
            if history:
                before = self.game.replay(history[:-1], self.state.options)
                seat = before.current_player() if before.current_player() >= 0 else None
            self._last_seat = (seat,)
        return self._last_seat[0]

    # -- taking back ----------------------------------------------------------------------

    def take_back_plan(self) -> TakeBack | None:
        """What a take-back would undo now (`takeback.plan`); None if nothing."""
        if self._take_back is None:
            self._take_back = (plan(self.played_steps(), self.table_seats),)
        return self._take_back[0]

    def played_steps(self) -> list[Step]:
        """Each action of the game so far as it was played: the seat that decided it, or
        chance. Found by playing the game again once, then kept up as it goes on."""
        if self._steps is None:
            self._steps = steps(self.game, self.state)
        return self._steps

    def shows_before(self) -> bool:
        """The table shows the position before the last move, as if the players had taken it
        back by hand: the page offers the take-back."""
        taken = self.take_back_plan()
        # A move taken on the page leaves the table as it was until hands carry it out.
        if taken is None or not self._carried_out or self.sensed == self.expected:
            return False
        if self._before is None:
            earlier = self.game.replay(self.state.history()[: taken.keep], self.state.options)
            self._before = self.game.layout(earlier)
        return self.sensed == self._before

    def take_back(self, now: float, reroll: bool = False) -> list[Action]:
        """Take back the last move (`takeback.plan`), and with `reroll` the roll it was made on;
        journalled first. The lights then guide the pieces back: the moves taken back are not
        read again from the table meanwhile. Returns the actions taken back."""
        taken = self.take_back_plan()
        if taken is None:
            raise Refused("nothing to take back: no move has been made yet", "nothing_to_undo")
        if reroll and not taken.rolled:
            raise Refused(
                "no roll to take back: that move was not made on a roll of the dice; take it "
                "back without rolling again",
                "no_reroll",
            )
        keep = taken.kept(reroll)
        gone = list(self.state.actions()[keep:])
        earlier = self.game.replay(self.state.history()[:keep], self.state.options)
        self.journal.append_take_back(len(gone), kept_dice(self.state, taken))
        played = None if self._steps is None else self._steps[:keep]
        self.state = earlier
        self._last_reading = None
        self._changed()
        self._steps = played
        self.restoring = True
        self._reconcile(now)
        ids = [a.id for a in gone]
        back = "; put the pieces back as the lights show" if self.restoring else ""
        key = "took_back_restore" if self.restoring else "took_back"
        self.say(f"took back {self.words(ids)}{back}", key, actions=ids)
        for action in gone:
            log.info("took back %s", action.id)
        return gone

    # -- time ---------------------------------------------------------------------------

    def next_deadline(self, now: float) -> float | None:
        """When a mismatch standing at `now` will have stood the settle time, for the loop to
        wake and light it; None once it has (the blinking keeps its own time), or a daemon
        waiting on a deadline already past spins until the board is put right."""
        deadline = self._settle_deadline()
        return deadline if deadline is not None and deadline > now else None

    def _settle_deadline(self) -> float | None:
        return None if self._mismatch_since is None else self._mismatch_since + self.settle_s

    def settled(self, now: float) -> bool:
        """A mismatch has stood for the settle time."""
        deadline = self._settle_deadline()
        return deadline is not None and now >= deadline

    def fixes(self, now: float) -> frozenset[str]:
        """Spots to put right: those differing once the settle time has passed, less pieces put
        down ahead of the rules' order that a later chance outcome will read."""
        if not self.settled(now):
            return frozenset()
        return differing(self.sensed, self.expected) - self._ahead

    def show(self, action: Action, roles: dict[str, str], only: bool) -> None:
        """Light `action` with `roles` until the game moves on; with `only`, it is the one
        decision the table accepts now (a computer seat's): a hand that does another, legal or
        not, blinks to be put right."""
        self.shown = action if only else None
        self._shown_roles = dict(roles)
        self._legal = None

    def view(self, now: float) -> View:
        roles = self.game.lights(self.state)
        shown = self._shown_roles
        # A hint gives way to a piece lifted elsewhere: its landings, not the hint, matter now
        # (a table's own move, `shown`, stays lit until carried out). A piece of the hint's own
        # move (the die it moves, the one it captures) keeps it lit.
        in_hand = self._landing is not None and self.shown is None
        if in_hand and not differing(self.sensed, self.expected) & shown.keys():
            shown = {}
        if shown:
            # Only where the move shown goes, not every capture the game would show.
            roles = {spot: role for spot, role in roles.items() if role != "landing"}
        alert = self.game.alert(self.state)
        alerts = alert.spots if alert is not None else frozenset()
        for spot in self._legal_spots():
            roles.setdefault(spot, "legal")
        roles.update(shown)
        if self._landing is not None:
            # Only where the piece in the hand may go, not every capture the game would show.
            roles = {spot: role for spot, role in roles.items() if role != "landing"}
            roles.update(dict.fromkeys(self._landing, "landing"))
        fixes = self.fixes(now)
        for spot in differing(self.sensed, self.expected):
            roles[spot] = "fix" if spot in fixes else "changed"
        for action in self._candidates:
            for spot in self.changes(action):
                roles[spot] = "candidate"
        if self.problem is not None and self.settled(now):
            # The spots at fault blink too, though they may be as the game expects them.
            roles.update(dict.fromkeys(self.problem.spots, "fix"))
            fixes |= self.problem.spots
        return View(roles, fixes | alerts)

    def legal_actions(self) -> list[Action]:
        """The state's legal decisions (`Position.legal_actions`)."""
        return self.position.legal_actions()

    def table_moves(self) -> bool:
        """A seat the table plays is to move, and its move is not shown yet."""
        player = self.state.current_player()
        return self.shown is None and not self.released and player in self.table_seats

    def _decisions(self) -> list[Action]:
        """The decisions the table reads from the board now: the move it showed, if it accepts
        that one alone; none while it still thinks; else every legal one."""
        if self.shown is not None:
            return [self.shown]
        return [] if self.table_moves() else self.legal_actions()

    def finding(self) -> int:
        """How many pieces a person taps to guess a decision to find now (`Game.finding`)."""
        return self.game.finding(self.state) if self._persons_turn() else 0

    def to_find(self, action: Action) -> bool:
        """A decision the players are to find for themselves (`Game.to_find`); never the
        table's own, which it lights for a hand to carry out (the walk: the table's capture
        could not be carried out on the page)."""
        return self._persons_turn() and self.game.to_find(self.state, action)

    def _persons_turn(self) -> bool:
        return self.state.current_player() not in self.table_seats

    def changes(self, action: Action) -> frozenset[str]:
        """The spots that `action` changes on the table."""
        return self.position.changes(action)

    def candidates(self) -> list[Action]:
        return list(self._candidates)

    def layout_after(self, action: Action) -> Layout:
        """What the table should show once `action` is taken."""
        return self.position.layout_after(action)

    # -- internals ------------------------------------------------------------------------

    def _legal_spots(self) -> set[str]:
        """Where the legal decisions would change the table (`Position.legal_spots`), not
        where one the players are to find would: that would say it. Worked out once."""
        if self._legal is None:
            moves = [a for a in self._decisions() if not self.to_find(a)]
            self._legal = self.position.legal_spots(moves)
        return self._legal

    def _reconcile(self, now: float) -> None:
        before = self.problem
        self._match(now)
        if (
            before is not None
            and self.problem is None
            and self.message == self._problem_text(before)
        ):
            self.message = ""  # put right: the problem's message goes with it
        alert = self.game.alert(self.state)
        if alert is not None and self.problem is None:
            self._say_problem(alert)

    def _match(self, now: float) -> None:
        # Each outcome or move seen is applied in turn: a board filled ahead of the rules (cells
        # of a set-up filled in any order) catches up as far as it can.
        while True:
            self._candidates = []
            self._landing = None
            self._ahead = frozenset()
            self.problem = None
            if self.sensed == self.expected:
                self._mismatch_since = None
                if self.restoring and self.note and self.note["key"] == "took_back_restore":
                    # The pieces are back: the message no longer asks for them.
                    ids = self.note["actions"]
                    self.say(f"took back {self.words(ids)}", "took_back", actions=ids)
                self.restoring = False
                return
            if self.restoring:
                # The moves taken back still on the table must not be read again.
                self._mismatch_since = now
                return
            outcome = None if self.chance_not_read() else self.position.outcome_shown(self.sensed)
            if outcome is not None:
                self._commit([outcome])
                self.say(
                    f"{self.words([outcome.id])} (seen on the table)", "seen", actions=[outcome.id]
                )
                continue
            matches: list[Action] = []
            # The pieces of a move taken on the page, not yet carried out, must not be read as
            # the next player's move putting them back (a Baron Voodoo die moved back).
            untouched = not self._carried_out and self.sensed == self._untouched
            if not (untouched or self.state.is_terminal() or self.state.is_chance_node()):
                matches = [a for a in self._decisions() if self.layout_after(a) == self.sensed]
            if len(matches) == 1:
                if not self._commit(matches):  # else said with the dice given again
                    ids = [matches[0].id]
                    self.say(f"{self.words(ids)} (seen on the table)", "seen", actions=ids)
                continue
            if not matches and not untouched:
                both = self.position.decided_and_shown(self._decisions(), self.sensed)
                if len(both) == 1:
                    if not self._commit(both[0]):
                        ids = [a.id for a in both[0]]
                        self.say(f"{self.words(ids)} (seen on the table)", "seen", actions=ids)
                    continue
            break
        self._ahead = self.position.filled_ahead(self.sensed)
        if matches:
            # Nothing to put right: the table is lit for a choice through `smartboard act`.
            self._candidates = matches
            ids = [a.id for a in matches]
            self.say("several moves fit the table: " + ", ".join(ids), "several", actions=ids)
            self._mismatch_since = None
            return
        landing = self.position.landing_spots(
            self._decisions(), self.sensed, self.to_find, self.finding() > 0
        )
        if landing is not None:
            # A piece in the hand, like a lifted chess piece: no settle time, no blinking.
            self._landing = landing
            self._mismatch_since = None
            return
        # Hands may still be moving pieces: the settle time runs from the latest change.
        self._mismatch_since = now
        if self.shows_before():
            self.say(
                "the table shows the position before the last move: take it back with "
                "`smartboard undo`, or put it back",
                "undo_offer",
            )
            return
        self.problem = self.game.explain(self.state, self.sensed)
        if self.problem is not None:
            self._say_problem(self.problem)
        else:
            self._ahead |= self.position.moved_ahead(self._decisions(), self.sensed)
        if self.table_moves():
            player = self.state.player_name(self.state.current_player())
            if self.state.current_player() in self.elsewhere:
                self.say(
                    f"{self.called(player)} plays at another table: wait for its move",
                    "wait_remote",
                    player=player,
                )
            else:
                self.say(
                    f"{self.called(player)} is played by the table: wait for its move",
                    "wait_table",
                    player=player,
                )
        shown = self.shown
        if shown is not None and any(
            self.layout_after(a) == self.sensed for a in self.legal_actions()
        ):
            self.say(
                f"not the move the table chose: put it back and play "
                f"{self.words([shown.id])} as lit",
                "not_shown",
                actions=[shown.id],
            )

    def _apply(self, actions: Sequence[Action], now: float, roll: JSON | None = None) -> None:
        self._commit(actions, roll)
        self._reconcile(now)

    def _roll(
        self, values: Sequence[int | str], source: str, state: GameState | None = None
    ) -> JSON:
        """The journal's record of a roll: its kind of dice, faces and source."""
        if source not in ROLL_SOURCES:
            raise ValueError(f"a roll comes {' or '.join(ROLL_SOURCES)}, not {source!r}")
        state = self.state if state is None else state
        wanted = None if state.is_terminal() else self.game.dice_wanted(state)
        kinds = self.game.dice_kinds
        kind = wanted.kind if wanted is not None else kinds[0] if len(kinds) == 1 else None
        return {"kind": kind, "values": list(values), "source": source}

    def _commit(self, actions: Sequence[Action], roll: JSON | None = None) -> list[Action]:
        """Journal and play actions (with the `roll` they came from); one that is illegal raises
        with nothing changed. Returns the dice a decision taken back had brought, given again
        as they fell (said so), if it was made again."""
        trial = self.state.clone()
        played = []
        last: int | None = None
        for action in actions:
            played.append(step(self.game, trial, action))
            last = trial.current_player() if trial.current_player() >= 0 else None
            trial.apply(action)
        kept = dice_as_fallen(self.game, trial, self.journal.dice_kept)
        for action in kept:  # not thrown again: no roll of the dice's record
            played.append(step(self.game, trial, action))
            trial.apply(action)
        if kept:
            ids = [a.id for a in (*actions, *kept)]
            said = f"{self.words(ids)}: the dice as they fell before the take-back"
            self.say(said, "as_fallen", actions=ids)
        actions = [*actions, *kept]
        self.journal.append_actions([a.to_json() for a in actions], dice=roll, fallen=len(kept))
        if self._steps is not None:
            self._steps += played
        self.state = trial
        self._last_reading = None
        for action in actions:
            log.info("applied %s", action.id)
        self._changed()
        self._last_seat = (last,)
        return kept

    def _changed(self) -> None:
        self.shown = None
        self.released = False
        self._shown_roles = {}
        self.offered.clear()
        self.kind_gains.clear()
        self._legal = None
        self._take_back = None
        self._before = None
        self._rolled_elsewhere = None
        self._last_seat = None
        self._carried_out = self.sensed == self.expected
        self._untouched = None
        self._mismatch_since = None


ROLL_SOURCES = ("read", "confirmed", "corrected", "typed", "virtual")
"""How a roll came: read by the camera, read unsure and confirmed as read, typed over a misread
(or unsure) reading, typed with no reading, or rolled by the software (the simulated table)."""


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
