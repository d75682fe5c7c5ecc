"""The table as a player (issue 24): computer seats that think, then light their move for a hand
to carry out; and hints, the best move lit for the player to move.

A computer seat to move: the table thinks in its worker process (controller/thinker.py), its
progress on the dashboard and in the terminal, and reads no move for that seat from the board
meanwhile. Then it lights its move (where a piece leaves, where one goes, what is taken) and
accepts that move alone (`Session.show`): another, legal or not, blinks until put right. A move
that no sensor can see (a choice named on the page) the table makes itself, saying so. Its dice
are rolled by a hand in the tray as anyone's, or with `roll` by the table.

Hidden cards: on the simulated table the hands (controller/hands.py) hold every seat's. A real
table cannot see a hand: it deals its own seats a virtual one that fits what it has seen
(`Game.deal`, kept in step as the simulated hands are), and a player fetches the card it plays
from the cards set aside for it. A hint on a real table knows no player's hand. The search uses
only the deciding seat's secrets.
"""

from __future__ import annotations

import logging
import math
import random
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from controller.hands import SimHands
from controller.journal import JournalWriteError
from controller.refusals import Refused
from controller.rules.api import JSON, Action, Game, GameState, Hidden, Layout
from controller.rules.words import action_text
from controller.search import DEFAULT_LEVEL, LEVELS, Choice, Thought
from controller.seats import dice_owner
from controller.session import Session
from controller.thinker import Job, Thinker, thought_from_json
from vision.dice_sources import DiceReading, VirtualDice

log = logging.getLogger(__name__)

SHOWN_FROM, SHOWN_TO, SHOWN_TAKE = "shown_from", "shown_to", "shown_take"
SHOWN_SWAP = "shown_swap"
"""The lights of a move the table shows: where a piece leaves, where one goes (or a card is
played), and what is taken away."""
HINT_LEVEL = "strong"
HINT_SECONDS = 3.0
"""A hint thinks at the strong level, this long at most."""
HINT_CHOICES = 5
"""How many moves a hint lists, the best first."""
FEW_PLAYOUTS = 20
"""A hint's move tried in fewer playouts than this gets no chance of winning: the few games
after it would say 0 % or 100 % of a move the search hardly looked at."""
ATTEMPTS = 2
"""How often a seat's move is thought about before the table gives it up to the players."""
PROGRESS_S = 0.25
"""How often the loop wakes while thinking, to show its progress."""


@dataclass(frozen=True)
class Asked:
    """A position handed to the thinker: job `number`, for `seat`."""

    number: int
    key: tuple[Action, ...]
    seat: int
    level: str
    hint: bool


class Computer:
    """The seats the table plays in one game, and its hints."""

    def __init__(
        self,
        game: Game,
        seats: Mapping[int, str],
        hints: bool,
        thinker: Callable[[], Thinker],
        hands: SimHands | None,
        rng: random.Random,
        roll: Callable[[DiceReading], None] | None = None,
        think_s: float | None = None,
    ) -> None:
        """`seats`: seat index -> level; `thinker` starts the worker when first wanted; `hands`:
        the simulated table's, which hold every seat's cards; `roll`: the table rolls its seats'
        dice with it (None: a hand does); `think_s`: the most a move may take."""
        self.game = game
        self.seats = {
            seat: level if level in LEVELS else _unknown(level) for seat, level in seats.items()
        }
        self.hints = hints
        self._thinker = thinker
        self.hands = hands
        if hands is not None:
            hands.decide_for(frozenset(self.seats))
        self.rng = rng
        self.seed = rng.randrange(1 << 31)
        self.roll = roll
        self.think_s = think_s
        self.asked: Asked | None = None
        self.hint: tuple[tuple[Action, ...], int, Thought] | None = None
        self.lit: Action | None = None  # the hint's move lit: its best, or one tapped
        self._failures: tuple[tuple[Action, ...], int] = ((), 0)
        self._rolled: tuple[Action, ...] | None = None
        self._told: tuple[Action, ...] | None = None  # the lay of a secret card last told
        self._virtual: SimHands | None = None  # a real table's own seats' hands

    # -- the loop's turn ------------------------------------------------------------------

    def step(self, session: Session, halted: bool) -> None:
        """Think for a seat the table plays when it is to move; stop thinking about a position
        the game has left (a move taken back, a pause)."""
        # A seat played at another table waits for its move as one the table plays.
        session.table_seats = frozenset(self.seats) | session.elsewhere
        state = session.state
        key = tuple(state.actions())
        asked = self.asked
        if asked is not None and (halted or asked.key != key):
            self.cancel()
        if self.hint is not None and self.hint[0] != key:
            self.hint = self.lit = None
        if halted or state.is_terminal():
            return
        if state.is_chance_node():
            self._roll_dice(state, key)
            self._tell_lay(session, key)
            return
        seat = state.current_player()
        if seat not in self.seats or self.asked is not None or not session.table_moves():
            return
        chosen = session.journal.chosen
        move = next((a for a in session.legal_actions() if a.id == chosen), None)
        if move is not None:
            # Chosen before a restart, and lit for a hand since: the same move, not another.
            self._carry_out(session, state.player_name(seat), move)
            return
        level = self.seats[seat]
        self._ask(session, seat, level, hint=False)
        player = state.player_name(seat)
        said = f"{session.called(player)} (the table, {level}) is thinking"
        session.say(said, "thinking", player=player)

    def on_thought(
        self, number: int, result: JSON | None, error: str | None, session: Session, now: float
    ) -> None:
        """The thinker's answer: a computer seat's move shown (or made, if no sensor sees it),
        or a hint lit."""
        asked = self.asked
        if asked is None or asked.number != number:
            return  # a job cancelled meanwhile
        self.asked = None
        state = session.state
        if asked.key != tuple(state.actions()):
            return
        player = state.player_name(asked.seat)
        if result is None:
            self._failed(session, asked, player, error or "no answer")
            return
        thought = thought_from_json(self.game, result)
        best = thought.best
        if best not in session.legal_actions():
            self._failed(session, asked, player, f"it chose {best.id}, which is not legal")
            return
        if asked.hint:
            self.hint, self.lit = (asked.key, asked.seat, thought), best
            session.show(best, self.roles(session, best), only=False)
            said = f"hint for {session.called(player)}: {session.words([best.id])}"
            session.say(said, "hint", player=player, actions=[best.id])
            return
        log.info("%s (computer) chose %s in %.1f s", player, best.id, thought.seconds)
        if not session.changes(best):
            # Nothing on the board shows it: the table makes it, and says so.
            session.show(best, self.roles(session, best), only=True)
            session.act(best.id, now)
            said = f"{session.called(player)} (the table) played {session.words([best.id])}"
            session.say(said, "computer_played", player=player, actions=[best.id])
            return
        try:
            session.journal.append_chosen(best.id)
        except JournalWriteError as error:  # the move still stands: a restart thinks again
            log.warning("the table's move is not kept: %s", error)
        self._carry_out(session, player, best)

    def _carry_out(self, session: Session, player: str, move: Action) -> None:
        """Light the move of a seat the table plays, the one it accepts, for a hand to make."""
        session.show(move, self.roles(session, move), only=True)
        said = f"{session.called(player)} (the table) plays {session.words([move.id])}: "
        said += "carry it out as lit"
        session.say(said, "computer_move", player=player, actions=[move.id])

    def cancel(self) -> None:
        if self.asked is not None:
            self._thinker().cancel()
            self.asked = None

    # -- what it shows --------------------------------------------------------------------

    def roles(self, session: Session, action: Action) -> dict[str, str]:
        """The lights of `action`: where its piece leaves and goes (`Game.pointing` says, else a
        spot emptied whose piece turns up elsewhere), where pieces go or cards are laid, what is
        taken away; two pieces that change places, both alike (BV-6's swap)."""
        before, after = session.expected, session.layout_after(action)
        changed = session.changes(action)
        told = self.game.pointing(session.state, action)
        start = told[0] if told is not None else None
        if start is None:
            laid = {after.get(spot) for spot in changed}
            start = next(
                (s for s in sorted(changed) if s not in after and before.get(s) in laid), None
            )
        # Told where the piece goes, another spot that changes but keeps a piece lost its top
        # one: a stack jumped over shows the die beneath (BV-5), and nothing goes there.
        goes_to = None if told is None else told[1]
        roles: dict[str, str] = {}
        for spot in changed:
            if spot == start:
                roles[spot] = SHOWN_FROM
            else:
                roles[spot] = SHOWN_TO if spot in after and goes_to is None else SHOWN_TAKE
        if told is not None:
            # Where it starts and goes, though nothing moves (an attack) or its top may look
            # the same (a die onto a die alike).
            roles[told[0]] = SHOWN_FROM
            if told[1] is not None:
                roles[told[1]] = SHOWN_TO
                if _swapped(before, after, told[0], told[1]):
                    # Lit from and to, a hand would move one piece onto the other.
                    roles[told[0]] = roles[told[1]] = SHOWN_SWAP
        return roles

    def choices(self, session: Session) -> list[Action] | None:
        """The decisions the page offers while a seat the table plays is to move: its move once
        shown, none before; None when a player is to move."""
        if session.state.current_player() not in session.table_seats or session.released:
            return None
        return [] if session.shown is None else [session.shown]

    def told(self, session: Session) -> tuple[bool, Action | None]:
        """For the simulated hands: whether a seat the table plays is to move, and its move
        once shown."""
        if session.state.current_player() not in session.table_seats or session.released:
            return False, None
        return True, session.shown

    def thinking(self, session: Session, thinker: Thinker | None) -> JSON | None:
        """What the dashboard shows while the table thinks: for whom, at what level, how far."""
        asked = self.asked
        if asked is None or thinker is None:
            return None
        return {
            "seat": asked.seat,
            "player": session.state.player_name(asked.seat),
            "level": asked.level,
            "hint": asked.hint,
            # In steps of 5 %: a snapshot is sent whenever one changes.
            "fraction": round(thinker.fraction(asked.number) * 20) / 20,
        }

    def to_json(self, session: Session, thinker: Thinker | None) -> JSON:
        """The snapshot's part: the seats played and their levels, hints, thinking, the hint."""
        seats = session.state.num_players
        return {
            "computer": [self.seats.get(seat) for seat in range(seats)],
            # Who throws its seats' dice: "table" (drawn in software) or "hand" (the tray).
            "computer_dice": "hand" if self.roll is None else "table",
            "levels": list(LEVELS),
            "hints": self.hints,
            "thinking": self.thinking(session, thinker),
            "hint": self.hint_json(session),
            "lay_hint_for": self.lay_hint_for(session),
        }

    # -- hints ----------------------------------------------------------------------------

    def ask_hint(self, session: Session, chosen: object = None) -> JSON:
        """The hint for the player to move: at once if thought about already, else thought
        about now (`pending`), its result in the snapshot and in this op asked again. `chosen`:
        the id of one of the hint's moves, to light that one instead."""
        state = session.state
        if not self.hints:
            raise Refused(
                "hints are switched off for this game: `smartboard hints on` switches them on",
                "hints_off",
            )
        if state.is_terminal():
            raise Refused("the game is over: there is no move to hint", "hint_over")
        if state.is_chance_node():
            return self._lay_hint(session)
        seat = state.current_player()
        player = state.player_name(seat)
        if seat in self.seats:
            raise Refused(
                f"{session.called(player)} is played by the table: no hint",
                "hint_computer",
                player=player,
            )
        key = tuple(state.actions())
        if chosen is not None:
            self._light(session, key, chosen)
        if self.hint is not None and self.hint[0] == key:
            return {"ok": True, "pending": False, "hint": self.hint_json(session)}
        asked = self.asked
        if asked is None or not asked.hint or asked.key != key:
            self.cancel()
            self._ask(session, seat, HINT_LEVEL, hint=True)
            said = f"thinking of a hint for {session.called(player)}"
            session.say(said, "hint_thinking", player=player)
        return {"ok": True, "pending": True, "seconds": self._hint_seconds()}

    def _lay_hint(self, session: Session) -> JSON:
        """At a lay of cards face down (Mightymania's power cards): the cards the player may
        lay, the best first (`Game.lay_advice`), said for them; on the simulated table, only
        those still in their hand. Chance has no other hint."""
        state = session.state
        cards, seat = self.game.lay_advice(state), self.game.roller(state)
        if cards is None or seat is None:
            raise Refused("chance plays now, not a player: there is no move to hint", "hint_chance")
        player = state.player_name(seat)
        if seat in self.seats:
            raise Refused(
                f"{session.called(player)} is played by the table: no hint",
                "hint_computer",
                player=player,
            )
        if self.hands is not None:
            # The simulated table's hands know the cards already laid: only those left count.
            held = self.hands.secret_choices(state)
            cards = [card for card in cards if card in held] or cards
        outcome = state.chance_outcomes()[0][0]
        # Where the card goes: the spot the lay changes (the walk: a terminal had only an id,
        # which `act` refuses, a lay being chance read from the table).
        after, now = session.layout_after(outcome), session.expected
        changed = (s for s in sorted(after) if after[s] != now.get(s))
        # Only the simulated table lays a card by command; on a real one a hand lays it.
        spot = next(changed, None) if self.hands is not None else None
        said = f"hint for {session.called(player)}: lay {cards[0]} face down"
        said += f" (best first: {', '.join(cards)})"
        session.say(said, "hint_lay", player=player, cards=cards, actions=[outcome.id])
        lay = {"player": player, "cards": cards, "id": outcome.id, "spot": spot}
        return {"ok": True, "pending": False, "lay": lay}

    def lay_hint_for(self, session: Session) -> str | None:
        """The player who lays a card face down now and may ask which (`Game.lay_advice`)."""
        state = session.state
        if not state.is_chance_node() or self.game.lay_advice(state) is None:
            return None
        seat = self.game.roller(state)
        return None if seat is None or seat in self.seats else state.player_name(seat)

    def _light(self, session: Session, key: tuple[Action, ...], chosen: object) -> None:
        """Light another of the hint's moves, as the best was: any is a legal move of this
        position, whose lights `roles` finds as for the best."""
        if self.hint is None or self.hint[0] != key:
            raise Refused("there is no hint to choose from: ask for one first", "hint_none")
        listed = self.hint[2].ranked[:HINT_CHOICES]
        action = next((c.action for c in listed if c.action.id == chosen), None)
        if action is None:
            raise Refused(
                f"{chosen!r} is not one of the hint's moves", "hint_not_listed", move=str(chosen)
            )
        self.lit = action
        session.show(action, self.roles(session, action), only=False)
        player = session.state.player_name(self.hint[1])
        if action == listed[0].action:
            said = f"hint for {session.called(player)}: {session.words([action.id])}"
            session.say(said, "hint", player=player, actions=[action.id])
            return
        # Not the hint's best: said so, or the player takes the move lit for the advice.
        rank = next(k for k, c in enumerate(listed, 1) if c.action == action)
        said = f"lit for {session.called(player)}, the hint's move {rank}: "
        session.say(
            said + session.words([action.id]),
            "hint_other",
            player=player,
            rank=rank,
            actions=[action.id],
        )

    def switch_hints(self, session: Session, on: bool) -> None:
        """Hints switched on or off during the game, journalled first: a restart keeps them so.
        Off, a hint thought about or lit goes."""
        state = session.state
        if state.is_terminal():
            raise Refused(
                "the game is over: hints for the next game are chosen with it (`smartboard new "
                "--hints`)",
                "hints_over",
            )
        word = "on" if on else "off"
        if on == self.hints:
            raise Refused(f"hints are already {word} for this game", f"hints_already_{word}")
        if on and all(seat in session.table_seats for seat in range(state.num_players)):
            raise Refused(
                "every seat is played by a table: there is no player to give hints to",
                "hints_nobody",
            )
        session.journal.append_hints(on)
        self.hints = on
        # Said, so that the message of a hint given before goes too.
        session.say(f"hints switched {word} for this game", f"hints_switched_{word}")
        if on:
            return
        if self.asked is not None and self.asked.hint:
            self.cancel()
        if self.hint is not None:
            # The hint's lights go: the same move shown with no lights is none shown.
            session.show(self.hint[2].best, {}, only=False)
            self.hint = self.lit = None

    def hint_json(self, session: Session) -> JSON | None:
        if self.hint is None:
            return None
        _, seat, thought = self.hint
        return {
            "player": session.state.player_name(seat),
            "best": thought.best.id,
            "lit": (self.lit or thought.best).id,
            "choices": [
                self._choice_json(session, choice, thought.iterations)
                for choice in thought.ranked[:HINT_CHOICES]
            ],
            "iterations": thought.iterations,
            "seconds": round(thought.seconds, 2),
        }

    def _choice_json(self, session: Session, choice: Choice, iterations: int) -> JSON:
        """A hint's move: its share of the thought, its mean return for the seat (-1..1), and
        the chance of winning after it (a draw counts half, rounded half up), None where too
        few playouts tried it to say (FEW_PLAYOUTS)."""
        value = round(choice.value, 3)
        playouts = round(choice.share * iterations)
        return {
            "id": choice.action.id,
            "share": round(choice.share, 3),
            "value": value,
            "playouts": playouts,
            "chance": math.floor((value + 1) * 50 + 0.5) if playouts >= FEW_PLAYOUTS else None,
            "words": action_text(
                self.game, choice.action.id, names=self.game.token_names(session.state)
            ),
        }

    # -- internals ------------------------------------------------------------------------

    def _ask(self, session: Session, seat: int, level: str, hint: bool) -> None:
        state = session.state
        key = tuple(state.actions())
        seconds = self._hint_seconds() if hint else self.think_s
        job = Job(
            game=self.game.name,
            module=type(self.game).__module__,
            options=dict(state.options),
            history=state.history(),
            level=level,
            seed=zlib.crc32(f"{self.seed}:{len(key)}:{hint}".encode()),
            hidden=self._hidden(state, hint),
            seconds=seconds,
        )
        self.asked = Asked(self._thinker().start(job), key, seat, level, hint)

    def _hint_seconds(self) -> float:
        return HINT_SECONDS if self.think_s is None else min(HINT_SECONDS, self.think_s)

    def _hidden(self, state: GameState, hint: bool) -> Hidden | None:
        """The hidden cards as the deciding seat knows its own: the simulated hands; on a real
        table its virtual hand for a seat it plays, nothing for a player's hint."""
        if self.hands is not None:
            return self.hands.follow(state)
        if hint:
            return None
        if self._virtual is None:
            self._virtual = SimHands(self.game, state, self.rng, frozenset(self.seats))
        return self._virtual.follow(state)

    def _failed(self, session: Session, asked: Asked, player: str, why: str) -> None:
        key, count = self._failures
        count = count + 1 if key == asked.key else 1
        self._failures = (asked.key, count)
        log.error("thinking for %s failed (%d of %d): %s", player, count, ATTEMPTS, why)
        if asked.hint:
            session.say(f"no hint: {why}", "hint_failed", why=why)
        elif count >= ATTEMPTS:
            # The game must not stall: this once, the players make the seat's move.
            session.released = True
            session.say(
                f"the table could not think for {session.called(player)} ({why}): "
                "play its move by hand",
                "computer_failed",
                player=player,
                why=why,
            )

    def _tell_lay(self, session: Session, key: tuple[Action, ...]) -> None:
        """A secret card that a seat the table plays lays now (Mightymania's power cards): the
        one it chose, named for the hand that lays it face down, or, where a player still to lay
        would learn it so, a word to lay one unseen; the lay is then seen as any."""
        state = session.state
        # Only the seat that lays there may have a card to lay (`Game.roller`): other chance
        # nodes, on every turn of the loop, ask the hands nothing.
        if self._told == key or self.game.roller(state) not in self.seats:
            return
        hidden = self._hidden(state, hint=False)
        planned = None if hidden is None else hidden.planned(state)
        if planned is None or planned[0] not in self.seats:
            return
        self._told = key
        seat, card = planned
        player = state.player_name(seat)
        lay = state.chance_outcomes()[0][0].id
        if card is None:
            said = f"{session.called(player)} (the table): {session.words([lay])}. Take one of "
            said += "its cards without looking, so that nobody knows it."
            session.say(said, "computer_lays_unseen", player=player, actions=[lay])
            return
        said = f"{session.called(player)} (the table) lays {card} face down: {session.words([lay])}"
        session.say(said, "computer_lays", player=player, card=card, actions=[lay])

    def _roll_dice(self, state: GameState, key: tuple[Action, ...]) -> None:
        """With `roll`, the dice of a seat the table plays are rolled by the table: those whose
        outcome the seat then acts on."""
        if self.roll is None or self._rolled == key:
            return
        wanted = self.game.dice_wanted(state)
        if wanted is None or dice_owner(self.game, state) not in self.seats:
            return
        self._rolled = key
        self.roll(VirtualDice(self.rng).roll(wanted.faces, wanted.count))


def _unknown(level: str) -> str:
    """A level the journal names that the search no longer has: its default."""
    log.warning("no computer level %r: playing at %r", level, DEFAULT_LEVEL)
    return DEFAULT_LEVEL


def _swapped(before: Layout, after: Layout, first: str, second: str) -> bool:
    """Whether the pieces on `first` and `second` change places, each still on the board."""
    one, other = before.get(first), before.get(second)
    if one is None or other is None or one == other:
        return False
    return after.get(first) == other and after.get(second) == one
