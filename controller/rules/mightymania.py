"""Mightymania (`mightymania.txt`, clarifications MM-1 to MM-8).

The state is the public one that the table shows (DESIGN.md §3): it never knows which face-down
card is which. A card turned face up is a chance node whose outcomes are the cards that could lie
there, and the camera's reading is the outcome; `deal` gives bots and random games the real cards.

Each player has a row of 4 positions, "s1.c1".."s1.c4" for player_1 and "s2.c1".."s2.c4" for
player_2, column k facing column k (MM-3), and 5 round slots for power cards ("s1.r1".."s1.r5").
Set-up lays the cards face down (rule 1), then dice pick the first attacker (rule 2). Each attack
then runs: moves, defender first (MM-7, rule 15); the attack (rules 3-4), or a pass when none is
in reach (MM-8); the attacking card turned up (rule 6); the Leader's defence, decided while the
attacked card is still as it lay (MM-5, rule 5); the card that fights for the defender turned up
(rule 6), never a defended Leader; the rounds roll (MM-4, rule 7); the power cards laid, then
revealed round by round (rules 8-10); a life lost (MM-4, MM-6, rules 12-13); the table cleared
(rule 14) before attacker and defender swap (MM-7). Two passes in a row end the game in a draw
(MM-8).

Only a Leader may be defended (MM-5), so a defence shows where a face-down Leader lies: the
state keeps that place (`leader_down`), and no other face-down card can turn up as that Leader.

Columns and rounds are numbered from 1 in actions, as in the spot names; lists count from 0.
"""

from __future__ import annotations

import enum
import functools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Self

from mypy_extensions import mypyc_attr

from controller.rules.api import (
    CAMERA,
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    DiceRequest,
    Game,
    GameState,
    Hidden,
    IllegalActionError,
    Layout,
    Problem,
    construct,
    leads,
    read_toml,
)
from controller.rules.game_type import (
    CARDS,
    CardDeck,
    CardFace,
    Detail,
    GameType,
    Look,
    Looks,
    Option,
    Role,
)

PLAYERS = ("player_1", "player_2")
COLUMNS = 4  # MM-3
DECK_SIZE = 4  # MM-1: 1 Leader and 3 Squad cards
MAX_LIVES = 3  # MM-1
MAX_ROUNDS = 5  # MM-4: a 6 is rolled again
BONUS = 2  # MM-2
D6 = (1, 2, 3, 4, 5, 6)
DOWN = "down"  # the token of a face-down card, squad or power
POS = tuple(tuple(f"s{p + 1}.c{i + 1}" for i in range(COLUMNS)) for p in range(2))
SLOT = tuple(tuple(f"s{p + 1}.r{k + 1}" for k in range(MAX_ROUNDS)) for p in range(2))
# spot -> (player, is a round slot, index)
SPOT_INFO = {
    **{POS[p][i]: (p, False, i) for p in range(2) for i in range(COLUMNS)},
    **{SLOT[p][k]: (p, True, k) for p in range(2) for k in range(MAX_ROUNDS)},
}


# -- decks and the power cycle (MM-1, MM-2) ----------------------------------------------------


class MightymaniaDataError(ValueError):
    """A deck or power-cycle file that cannot be played."""


@dataclass(frozen=True)
class Card:
    id: str
    name: str
    lives: int
    leader: bool
    powers: Mapping[str, int]


@dataclass(frozen=True)
class Deck:
    name: str
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class GameData:
    """Both decks and the power cycle, loaded once per option value."""

    powers: tuple[str, ...]
    beats: frozenset[tuple[str, str]]  # (winner, loser) pairs of MM-2
    decks: tuple[Deck, Deck]
    cards: Mapping[str, Card]
    owner: Mapping[str, int]
    ids: tuple[tuple[str, ...], tuple[str, ...]]
    leaders: tuple[str, str]


def _data_file(name: str) -> Path:
    return Path(str(resources.files("controller.rules") / name))


def builtin_decks() -> list[str]:
    """The names of the decks shipped in controller/rules/decks/."""
    folder = _data_file("decks")
    return sorted(p.stem.removeprefix("mightymania-") for p in folder.glob("mightymania-*.toml"))


def deck_path(entry: str) -> Path:
    """A deck named by its built-in name ("titans") or by the path of a TOML file."""
    if entry.endswith(".toml") or "/" in entry:
        return Path(entry)
    path = _data_file("decks") / f"mightymania-{entry}.toml"
    if not path.exists():
        known = ", ".join(builtin_decks())
        raise MightymaniaDataError(f"unknown Mightymania deck {entry!r}; built-in decks: {known}")
    return path


def load_cycle(source: str) -> tuple[str, ...]:
    """The power cycle of a rules file (MM-2); "" is the built-in one."""
    path = Path(source) if source else _data_file("mightymania.toml")
    data = read_toml(path, "Mightymania rules", MightymaniaDataError)
    powers = data.get("powers")

    def fail(message: str) -> MightymaniaDataError:
        return MightymaniaDataError(f"Mightymania rules {path}: powers {message}")

    if not isinstance(powers, list) or not all(isinstance(p, str) and p for p in powers):
        raise fail(f"must be a list of power names, not {powers!r}")
    if len(set(powers)) != len(powers) or DOWN in powers:
        raise fail(f"must be different names, none of them {DOWN!r}: {powers}")
    # Each player lays a different power in each round (MM-4), and an odd cycle gives every pair
    # of different powers a winner (MM-2).
    if len(powers) < MAX_ROUNDS or len(powers) % 2 == 0:
        raise fail(f"must be an odd number of powers, at least {MAX_ROUNDS}, not {len(powers)}")
    return tuple(powers)


def beating(powers: Sequence[str]) -> frozenset[tuple[str, str]]:
    """MM-2: each power beats the next (n - 1) // 2 powers of the cycle."""
    n = len(powers)
    return frozenset(
        (powers[i], powers[(i + step) % n]) for i in range(n) for step in range(1, (n - 1) // 2 + 1)
    )


def load_deck(path: Path, powers: Sequence[str]) -> Deck:
    """Read and check a deck file (MM-1) against the power cycle."""
    data = read_toml(path, "Mightymania deck", MightymaniaDataError)

    def fail(message: str) -> MightymaniaDataError:
        return MightymaniaDataError(f"Mightymania deck {path}: {message}")

    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise fail(f"name must be a non-empty string, not {name!r}")
    entries = data.get("cards")
    if not isinstance(entries, list) or len(entries) != DECK_SIZE:
        count = len(entries) if isinstance(entries, list) else 0
        raise fail(f"cards must be exactly {DECK_SIZE} [[cards]] tables (MM-1), not {count}")
    cards = tuple(_card(entry, k, powers, fail) for k, entry in enumerate(entries))
    ids = [card.id for card in cards]
    if len(set(ids)) != len(ids):
        raise fail(f"cards[].id must differ: {ids}")
    leaders = [card.id for card in cards if card.leader]
    if len(leaders) != 1:
        raise fail(f"exactly one card must have leader = true (MM-1), not {len(leaders)}")
    return Deck(name, cards)


def _card(
    entry: object, k: int, powers: Sequence[str], fail: Callable[[str], MightymaniaDataError]
) -> Card:
    where = f"cards[{k}]"
    if not isinstance(entry, dict):
        raise fail(f"{where} must be a table")
    card_id, name, lives = entry.get("id"), entry.get("name"), entry.get("lives")
    leader, values = entry.get("leader"), entry.get("powers")
    if not isinstance(card_id, str) or not card_id or card_id == DOWN or card_id in powers:
        raise fail(f"{where}.id must be a name that is neither {DOWN!r} nor a power: {card_id!r}")
    if not isinstance(name, str) or not name:
        raise fail(f"{where}.name must be a non-empty string, not {name!r}")
    if type(lives) is not int or not 1 <= lives <= MAX_LIVES:
        raise fail(f"{where}.lives must be a whole number 1 to {MAX_LIVES} (MM-1), not {lives!r}")
    if type(leader) is not bool:
        raise fail(f"{where}.leader must be true or false, not {leader!r}")
    if not isinstance(values, dict) or set(values) != set(powers):
        got = sorted(values) if isinstance(values, dict) else values
        raise fail(f"{where}.powers must give exactly the powers {list(powers)} (MM-1), not {got}")
    for power, value in values.items():
        if type(value) is not int or value < 0:
            raise fail(f"{where}.powers.{power} must be a whole number 0 or more, not {value!r}")
    return Card(card_id, name, lives, leader, dict(values))


@functools.lru_cache(maxsize=32)
def load_game_data(decks: str, rules: str) -> GameData:
    """The options' two decks and power cycle, checked; cached per option value."""
    entries = [entry.strip() for entry in decks.split(",")]
    if len(entries) != 2 or not all(entries):
        raise MightymaniaDataError(
            f"option 'decks' must name two decks separated by a comma, not {decks!r}"
        )
    powers = load_cycle(rules)
    first, second = (load_deck(deck_path(entry), powers) for entry in entries)
    ids = (tuple(c.id for c in first.cards), tuple(c.id for c in second.cards))
    shared = sorted(set(ids[0]) & set(ids[1]))
    if shared:
        raise MightymaniaDataError(
            f"decks {entries[0]!r} and {entries[1]!r} share card ids {shared}: "
            "the camera tells cards apart by their ids"
        )
    cards = {c.id: c for deck in (first, second) for c in deck.cards}
    owner = {card_id: p for p in range(2) for card_id in ids[p]}
    leaders = (_leader(first), _leader(second))
    return GameData(powers, beating(powers), (first, second), cards, owner, ids, leaders)


def _leader(deck: Deck) -> str:
    return next(c.id for c in deck.cards if c.leader)


# -- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lay(Action):
    """Chance read from the board (rule 1): a card laid face down at set-up."""

    player: int
    col: int


@dataclass(frozen=True)
class StartRoll(Action):
    """Chance (rule 2): the d6 of player_1, then of player_2, for the first attacker."""

    value: int


@dataclass(frozen=True)
class Move(Action):
    """Rule 15, MM-7: one card of the player to move goes to an empty position of their row."""

    from_col: int
    to_col: int


@dataclass(frozen=True)
class Stay(Action):
    """No move before the attack (rule 15); or, with no attack in reach, the attacker's pass
    (MM-8)."""


@dataclass(frozen=True)
class Attack(Action):
    """Rules 3-4, MM-3: the attacker's card in `from_col` attacks the opponent's in `to_col`."""

    from_col: int
    to_col: int


@dataclass(frozen=True)
class Reveal(Action):
    """Chance read by the camera (rule 6): the card from `col` of `player` turned face up. A
    defending card is named by its own column, though it lies on the Leader."""

    player: int
    col: int
    card: str


@dataclass(frozen=True)
class Defend(Action):
    """Rule 5, MM-5: the card in `from_col`, next to the attacked Leader, fights instead. The
    Leader stays as it lay, face down if it was."""

    from_col: int


@dataclass(frozen=True)
class NoDefence(Action):
    """Rule 5, MM-5: no defence; the attacked card, which may be the Leader, fights itself and
    is turned up if face down."""


@dataclass(frozen=True)
class Rounds(Action):
    """Chance (rule 7, MM-4): the attacker's d6, the duel's rounds; a 6 is rolled again."""

    value: int


@dataclass(frozen=True)
class LayPower(Action):
    """Chance read from the board (rule 8): a power card laid face down for `round`."""

    player: int
    round: int


@dataclass(frozen=True)
class RevealPower(Action):
    """Chance read by the camera (rule 9): the power card of `round` turned face up."""

    player: int
    round: int
    power: str


@dataclass(frozen=True)
class Clear(Action):
    """Chance read from the board (rule 14): power cards taken away, a beaten card off the
    table (rule 12), a defending card back in its own position (MM-5)."""


class Phase(enum.Enum):
    SETUP = "setup"
    START_ROLL = "start_roll"
    MOVE = "move"
    ATTACK = "attack"
    REVEAL = "reveal"
    DEFEND = "defend"
    ROUNDS = "rounds"
    LAY_POWER = "lay_power"
    REVEAL_POWER = "reveal_power"
    CLEAR = "clear"
    OVER = "over"


# From the attack until the duel is decided.
DUEL = frozenset({Phase.REVEAL, Phase.DEFEND, Phase.ROUNDS, Phase.LAY_POWER, Phase.REVEAL_POWER})


# -- the state --------------------------------------------------------------------------------


class MightymaniaState(GameState):
    def __init__(self, options: Mapping[str, Any], data: GameData) -> None:
        super().__init__(options)
        self.data = data
        self.phase = Phase.SETUP
        # Each player's row: a card id face up, DOWN face down, None empty. A defending card
        # keeps its own position here while it lies on the Leader (`guard`).
        self.rows: list[list[str | None]] = [[None] * COLUMNS for _ in range(2)]
        self.lives = {card_id: card.lives for card_id, card in data.cards.items()}
        self.up: set[str] = set()  # revealed for good (rule 6), removed cards too
        # Per player, the column of their Leader lying face down where a defence showed it to be
        # (MM-5: only the Leader may be defended); None while its place is not known that way.
        self.leader_down: list[int | None] = [None, None]
        self.passes = 0  # turns in a row that ended in a pass (MM-8)
        self.removed: list[str] = []
        self.rolls: list[int] = []  # the start rolls so far (rule 2)
        self.attacker = 0
        self.turn = 0  # the attack's number
        self.movers: list[int] = []  # who may still move before this attack (MM-7)
        # The duel under way: the columns of the attacking and the attacked card, and of the
        # card defending the Leader (MM-5).
        self.source = 0
        self.target = 0
        self.guard: int | None = None
        self.defence_asked = False
        self.reveals: list[tuple[int, int]] = []  # (player, column) still to turn up
        self.rounds = 0  # 0 until rolled
        self.powers: list[list[str]] = [[], []]  # each side's round slots: DOWN or a power
        self.results: list[int | None] = []  # per round: its winner, None a draw
        self.leaving: tuple[int, int, str] | None = None  # beaten off, still on the table
        # What the last duel came to, for the news: (event, attacker, rounds won by the
        # attacker, by the defender, the card that lost a life or None, its lives left, turn).
        self.last_duel: tuple[str, int, int, int, str | None, int, int] | None = None
        self.winner: int | None = None  # None at the end: a draw (MM-8)

    def clone(self) -> Self:
        other = self._copy()
        other.rows = [list(row) for row in self.rows]
        other.lives = dict(self.lives)
        other.up = set(self.up)
        other.leader_down = list(self.leader_down)
        other.removed = list(self.removed)
        other.rolls = list(self.rolls)
        other.movers = list(self.movers)
        other.reveals = list(self.reveals)
        other.powers = [list(laid) for laid in self.powers]
        other.results = list(self.results)
        return other

    @property
    def num_players(self) -> int:
        return 2

    @property
    def defender(self) -> int:
        return 1 - self.attacker

    # -- facts --------------------------------------------------------------------------

    def unrevealed(self, player: int) -> list[str]:
        """The player's cards that may be any of their face-down ones (or still in hand)."""
        return [c for c in self.data.ids[player] if c not in self.up]

    def candidates(self, player: int, col: int) -> list[str]:
        """The cards that may lie face down in `col` of the player's row: the unrevealed ones,
        but only the Leader where a defence showed it, and never it elsewhere then (MM-5)."""
        known, leader = self.leader_down[player], self.data.leaders[player]
        if known is None:
            return self.unrevealed(player)
        if col == known:
            return [leader]
        return [c for c in self.unrevealed(player) if c != leader]

    def is_leader(self, player: int, col: int) -> bool | None:
        """Whether the table knows that `col` of the player's row holds their Leader: True or
        False, or None when a face-down card there may or may not be it."""
        token, leader = self.rows[player][col], self.data.leaders[player]
        if token is None:
            return False
        if token != DOWN:
            return token == leader
        cards = self.candidates(player, col)
        return None if leader in cards and len(cards) > 1 else leader in cards

    def unused_powers(self, player: int) -> list[str]:
        """MM-4: the powers the player has not shown in this duel."""
        return [p for p in self.data.powers if p not in self.powers[player]]

    def fighter(self, player: int) -> int:
        """The column of the player's card in the duel: a defending card's own column."""
        if player == self.attacker:
            return self.source
        return self.target if self.guard is None else self.guard

    def fighting_down(self, player: int) -> bool:
        """Whether the player's card in the duel is face down: for the defender, the card that
        fights, a defending card and never the defended Leader (MM-5)."""
        return self.rows[player][self.fighter(player)] == DOWN

    def attacks(self) -> list[tuple[int, int]]:
        """MM-3: (from, to) columns of each attack in reach: to is from-1, from or from+1."""
        mine, theirs = self.rows[self.attacker], self.rows[self.defender]
        return [
            (i, j)
            for i in range(COLUMNS)
            if mine[i]
            for j in (i - 1, i, i + 1)
            if 0 <= j < COLUMNS and theirs[j]
        ]

    def defenders(self) -> list[int]:
        """MM-5: the columns next to the attacked Leader with a card that may defend it."""
        row = self.rows[self.defender]
        return [j for j in (self.target - 1, self.target + 1) if 0 <= j < COLUMNS and row[j]]

    def moves(self, player: int) -> list[tuple[int, int]]:
        """Rule 15: (from, to) columns, any card of the row to any empty position of it."""
        row = self.rows[player]
        return [(i, j) for i in range(COLUMNS) if row[i] for j in range(COLUMNS) if not row[j]]

    def leader_attacked(self) -> bool | None:
        """Whether the attacked card is the defender's Leader, as far as the table knows."""
        return self.is_leader(self.defender, self.target)

    def defence_open(self) -> bool:
        """MM-5: the attacked card may be the Leader and has a card beside it to defend it."""
        return self.leader_attacked() is not False and bool(self.defenders())

    def defence_due(self) -> bool:
        """MM-5: in a duel, the defence is open and still to be decided."""
        return not self.defence_asked and self.defence_open()

    def next_lay(self) -> tuple[int, int]:
        """Rule 1: the next empty position at set-up, player_1's first, left to right."""
        return next((p, i) for p in range(2) for i in range(COLUMNS) if self.rows[p][i] is None)

    def next_power_laid(self) -> tuple[int, int]:
        """Rule 8: the attacker lays all the duel's power cards, then the defender."""
        p = self.attacker if len(self.powers[self.attacker]) < self.rounds else self.defender
        return p, len(self.powers[p])

    def next_power_shown(self) -> tuple[int, int]:
        """Rule 9: round by round, the attacker's power card, then the defender's."""
        k = len(self.results)
        return (self.attacker if self.powers[self.attacker][k] == DOWN else self.defender), k

    def shown_row(self, player: int) -> list[str | None]:
        """What lies in each position of the row: a defending card on its Leader (rule 5), a
        beaten card until it is taken away."""
        row = list(self.rows[player])
        if self.leaving is not None and self.leaving[0] == player:
            row[self.leaving[1]] = self.leaving[2]
        if self.guard is not None and player == self.defender:
            row[self.target], row[self.guard] = row[self.guard], None
        return row

    def score(self, player: int, round_index: int) -> int:
        """MM-2, MM-4: the fighting card's value for its power, +2 if it beats the other's."""
        other = 1 - player
        mine, theirs = self.powers[player][round_index], self.powers[other][round_index]
        card = self.rows[player][self.fighter(player)]
        assert card is not None
        bonus = BONUS if (mine, theirs) in self.data.beats else 0
        return self.data.cards[card].powers[mine] + bonus

    # -- the API ------------------------------------------------------------------------

    def current_player(self) -> int:
        match self.phase:
            case Phase.OVER:
                return TERMINAL
            case Phase.MOVE:
                return self.movers[0]
            case Phase.ATTACK:
                return self.attacker
            case Phase.DEFEND:
                return self.defender
            case _:
                return CHANCE

    def legal_actions(self) -> list[Action]:
        match self.phase:
            case Phase.MOVE:
                moves = self.moves(self.movers[0])
                return [Stay(), *(Move(i + 1, j + 1) for i, j in moves)]
            case Phase.ATTACK:
                # MM-8: an attack in reach must be made; with none, the attacker passes.
                return [Attack(i + 1, j + 1) for i, j in self.attacks()] or [Stay()]
            case Phase.DEFEND:
                return [*(Defend(j + 1) for j in self.defenders()), NoDefence()]
            case _:
                return []

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        match self.phase:
            case Phase.SETUP:
                p, i = self.next_lay()
                return [(Lay(p, i + 1), 1.0)]
            case Phase.START_ROLL:
                return [(StartRoll(v), 1 / 6) for v in D6]
            case Phase.ROUNDS:
                return [(Rounds(v), 1 / 6) for v in D6]
            case Phase.REVEAL:
                p, i = self.reveals[0]
                cards = self.candidates(p, i)
                return [(Reveal(p, i + 1, c), 1 / len(cards)) for c in cards]
            case Phase.LAY_POWER:
                p, k = self.next_power_laid()
                return [(LayPower(p, k + 1), 1.0)]
            case Phase.REVEAL_POWER:
                p, k = self.next_power_shown()
                powers = self.unused_powers(p)
                return [(RevealPower(p, k + 1, power), 1 / len(powers)) for power in powers]
            case Phase.CLEAR:
                return [(Clear(), 1.0)]
            case _:
                return []

    def is_legal(self, action: Action) -> bool:
        """Chance outcomes are checked without listing them: random games play many."""
        match self.phase, action:
            case Phase.START_ROLL, StartRoll(value):
                return value in D6
            case Phase.ROUNDS, Rounds(value):
                return value in D6
            case Phase.REVEAL, Reveal(player, col, card):
                due = (player, col - 1) == self.reveals[0]
                return due and card in self.candidates(player, col - 1)
            case Phase.REVEAL_POWER, RevealPower(player, round_number, power):
                due = (player, round_number - 1) == self.next_power_shown()
                return due and power in self.unused_powers(player)
        return super().is_legal(action)

    def returns(self) -> list[float]:
        """+1 and -1 once a Leader has left the table (MM-6); 0 each while the game goes on,
        and for a draw (MM-8)."""
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if p == self.winner else -1.0 for p in range(2)]

    # -- playing ------------------------------------------------------------------------

    def _apply(self, action: Action) -> None:
        match action:
            case Lay(player, col):
                self.rows[player][col - 1] = DOWN
                if all(self.rows[1]):
                    self.phase = Phase.START_ROLL
            case StartRoll(value):
                self._start_roll(value)
            case Move(from_col, to_col):
                mover = self.movers.pop(0)
                row = self.rows[mover]
                row[to_col - 1], row[from_col - 1] = row[from_col - 1], None
                if self.leader_down[mover] == from_col - 1:
                    self.leader_down[mover] = to_col - 1  # the table sees it go (MM-5)
                self.phase = Phase.MOVE if self.movers else Phase.ATTACK
            case Stay() if self.phase is Phase.MOVE:
                self.movers.pop(0)
                self.phase = Phase.MOVE if self.movers else Phase.ATTACK
            case Stay():
                self._pass()
            case Attack(from_col, to_col):
                self.passes = 0  # MM-8: a turn that ends in a duel breaks a run of passes
                self.source, self.target = from_col - 1, to_col - 1
                # Rule 6: the attacking card turns up first; the defender's waits for MM-5.
                a = self.attacker
                self.reveals = [(a, self.source)] if self.fighting_down(a) else []
                self._duel_next()
            case Reveal(player, col, card):
                self.reveals.pop(0)
                self.rows[player][col - 1] = card
                self.up.add(card)  # rule 6: for good
                if self.leader_down[player] == col - 1:
                    self.leader_down[player] = None  # face up now: the row names it
                self._duel_next()
            case Defend(from_col):
                self.guard = from_col - 1
                self.defence_asked = True
                if self.rows[self.defender][self.target] == DOWN:
                    # MM-5: only the Leader may be defended, so it lies there; it stays face
                    # down, out of the fight.
                    self.leader_down[self.defender] = self.target
                self._duel_next()
            case NoDefence():
                self.defence_asked = True
                self._duel_next()
            case Rounds(value):
                if value <= MAX_ROUNDS:  # MM-4: a 6 is rolled again
                    self.rounds = value
                    self.phase = Phase.LAY_POWER
            case LayPower(player, _):
                self.powers[player].append(DOWN)
                if len(self.powers[self.defender]) == self.rounds:
                    self.phase = Phase.REVEAL_POWER
            case RevealPower(player, round_number, power):
                self.powers[player][round_number - 1] = power
                if player == self.defender:
                    self._score_round(round_number - 1)
            case Clear():
                self._clear()

    def _start_roll(self, value: int) -> None:
        self.rolls.append(value)
        if len(self.rolls) < 2:
            return
        first, second = self.rolls
        if first == second:
            self.rolls = []  # rule 2: a tie, both roll again
            return
        self.attacker = 0 if first > second else 1
        self._begin_attack()

    def _pass(self) -> None:
        """MM-8: with no attack in reach the attacker passes and the roles swap, as after an
        attack; the second pass in a row ends the game in a draw."""
        self.passes += 1
        if self.passes >= 2:
            self.phase = Phase.OVER
            return
        self.attacker = self.defender
        self._begin_attack()

    def _begin_attack(self) -> None:
        """MM-7, rule 15: the defender may move first, then the attacker; a full row can't."""
        self.turn += 1
        self.movers = [p for p in (self.defender, self.attacker) if None in self.rows[p]]
        self.phase = Phase.MOVE if self.movers else Phase.ATTACK

    def _duel_next(self) -> None:
        """The attacking card turned up (rule 6); then the defence, decided before anything of
        the attacked card shows (MM-5, rule 5); then the card fighting for the defender turned
        up (rule 6); then the rounds roll."""
        if self.reveals:
            self.phase = Phase.REVEAL
        elif self.defence_due():
            self.phase = Phase.DEFEND
        elif self.fighting_down(self.defender):
            self.reveals.append((self.defender, self.fighter(self.defender)))
            self.phase = Phase.REVEAL
        else:
            self.phase = Phase.ROUNDS

    def _score_round(self, k: int) -> None:
        """MM-4: the higher total wins the round; equal totals draw it."""
        a, d = self.attacker, self.defender
        ours, theirs = self.score(a, k), self.score(d, k)
        self.results.append(a if ours > theirs else d if theirs > ours else None)
        if len(self.results) == self.rounds:
            self._end_duel()

    def _end_duel(self) -> None:
        """MM-4: the loser's fighting card loses a life; MM-6: at 0 it leaves the table, and a
        Leader gone ends the game (rule 16)."""
        self.phase = Phase.CLEAR
        won = [self.results.count(p) for p in range(2)]
        a, d = self.attacker, self.defender
        if won[0] == won[1]:
            self.last_duel = ("drawn", a, won[a], won[d], None, 0, self.turn)
            return  # MM-4: nobody loses a life
        loser = 0 if won[0] < won[1] else 1
        col = self.fighter(loser)  # MM-5: a defending card, never the Leader beneath it
        card = self.rows[loser][col]
        assert card is not None
        self.lives[card] -= 1
        left = self.lives[card]
        event = (
            "life_lost"
            if left
            else "leader_beaten"
            if card == self.data.leaders[loser]
            else "card_left"
        )
        self.last_duel = (event, a, won[a], won[d], card, left, self.turn)
        if left:
            return
        self.rows[loser][col] = None
        self.removed.append(card)
        self.leaving = (loser, col, card)
        if card == self.data.leaders[loser]:
            self.winner = 1 - loser
            self.phase = Phase.OVER

    def _clear(self) -> None:
        self.guard = None  # MM-5: back in its own position
        self.defence_asked = False
        self.rounds = 0
        self.powers = [[], []]
        self.results = []
        self.leaving = None
        self.attacker = self.defender  # MM-7: roles alternate every attack
        self._begin_attack()


# -- the players' secrets ---------------------------------------------------------------------


class MightymaniaHidden(Hidden):
    """Which card lies face down where, the cards still in hand at set-up, and the power of each
    face-down power card: dealt at random to fit the public state, then kept in step. Which
    power a seat lays is chance too, except for the seats given to `decide_for`: those lay by
    judgement (`wise_power`)."""

    def __init__(
        self,
        state: MightymaniaState,
        rng: random.Random,
        kept: tuple[int, MightymaniaHidden] | None = None,
    ) -> None:
        """`kept`: a seat and secrets whose part for that seat stays; the rest is dealt afresh."""
        self.rng = rng
        self.wise: frozenset[int] = frozenset() if kept is None else kept[1].wise
        # The card laid face down next, chosen before a hand lays it, by a wise seat or a person
        # (`choose`): (player, column or round slot, card).
        self.plan: tuple[int, int, str] | None = None
        self.down: list[dict[int, str]] = []  # per player: column -> card
        self.hand: list[list[str]] = []
        self.laid: list[dict[int, str]] = []  # per player: round slot -> power
        for p in range(2):
            if kept is not None and p == kept[0]:
                self.down.append(dict(kept[1].down[p]))
                self.hand.append(list(kept[1].hand[p]))
                self.laid.append(dict(kept[1].laid[p]))
                continue
            cards = state.unrevealed(p)
            rng.shuffle(cards)
            spots = [i for i, token in enumerate(state.rows[p]) if token == DOWN]
            known = state.leader_down[p]
            if known is not None:  # MM-5: where a defence showed the Leader to lie
                cards.remove(state.data.leaders[p])
                cards.insert(spots.index(known), state.data.leaders[p])
            self.down.append(dict(zip(spots, cards, strict=False)))
            self.hand.append(cards[len(spots) :])
            powers = state.unused_powers(p)
            rng.shuffle(powers)
            slots = [k for k, token in enumerate(state.powers[p]) if token == DOWN]
            self.laid.append(dict(zip(slots, powers, strict=False)))

    def redeal(self, state: GameState, rng: random.Random, seat: int) -> MightymaniaHidden:
        """The opponent's face-down cards and power cards dealt afresh (within what MM-5 has
        shown); `seat` keeps its own, which it laid and knows (rules 1 and 8)."""
        return construct(MightymaniaHidden, MightymaniaState.of(state), rng, (seat, self))

    def known_to(self, seat: int) -> list[tuple[str, str]]:
        """The seat's squad cards face down where they lie and those still in hand at set-up
        (rule 1: its Leader among them), and the power cards it laid face down this duel."""
        return (
            [(POS[seat][col], card) for col, card in sorted(self.down[seat].items())]
            + [("", card) for card in sorted(self.hand[seat])]
            + [(SLOT[seat][k], power) for k, power in sorted(self.laid[seat].items())]
        )

    def choices(self, state: GameState) -> list[Action]:
        """Every decision is public, but a face-down card may be defended only if it really is
        the Leader (MM-5)."""
        s = MightymaniaState.of(state)
        d = s.defender
        face_down = s.phase is Phase.DEFEND and s.rows[d][s.target] == DOWN
        if face_down and self.down[d].get(s.target) != s.data.leaders[d]:
            return [NoDefence()]
        return s.legal_actions()

    def outcome(self, state: GameState) -> Action | None:
        s = MightymaniaState.of(state)
        match s.phase:
            case Phase.REVEAL:
                p, i = s.reveals[0]
                return Reveal(p, i + 1, self.down[p][i])
            case Phase.REVEAL_POWER:
                p, k = s.next_power_shown()
                return RevealPower(p, k + 1, self.laid[p][k])
        return None

    def observe(self, action: Action, state: GameState) -> None:
        s = MightymaniaState.of(state)
        match action:
            case Lay(player, col):
                hand = self.hand[player]
                plan = self.plan
                if plan is not None and plan[:2] == (player, col - 1) and plan[2] in hand:
                    hand.remove(plan[2])  # the card a person chose (`choose`)
                    self.down[player][col - 1] = plan[2]
                else:
                    self.down[player][col - 1] = hand.pop(self.rng.randrange(len(hand)))
                self.plan = None
            case Move(from_col, to_col):
                # The mover's row is the one whose face-down card left `from_col`.
                for p, down in enumerate(self.down):
                    if from_col - 1 in down and s.rows[p][from_col - 1] is None:
                        down[to_col - 1] = down.pop(from_col - 1)
            case Reveal(player, col, card):
                _settle(self.down[player], col - 1, card)
            case Defend():
                # A defence from outside the secrets (a person at the table) shows where the
                # Leader lies face down (MM-5): the secrets swap it there.
                d, leader = s.defender, s.data.leaders[s.defender]
                if s.leader_down[d] == s.target and self.down[d].get(s.target) != leader:
                    _swap_in(self.down[d], s.target, leader, self.hand[d])
            case LayPower(player, round_number):
                self.laid[player][round_number - 1] = self._power(s, player, round_number - 1)
                self.plan = None
            case RevealPower(player, round_number, power):
                _settle(self.laid[player], round_number - 1, power)

    def decide_for(self, seats: frozenset[int]) -> None:
        self.wise = seats

    def planned(self, state: GameState) -> tuple[int, str | None] | None:
        """The power card a wise seat lays now (`wise_power`), kept until it is laid; none to
        tell for the attacker, whose cards the defender would see before laying (rule 8), nor
        for a squad card at set-up, whose place the other player would see (rule 1)."""
        s = MightymaniaState.of(state)
        if s.phase is Phase.SETUP:
            player = s.next_lay()[0]
            return (player, None) if player in self.wise else None
        if s.phase is not Phase.LAY_POWER:
            return None
        player, slot = s.next_power_laid()
        if player not in self.wise:
            return None
        if player == s.attacker:
            return player, None
        if self.plan is None or self.plan[:2] != (player, slot):
            self.plan = (player, slot, wise_power(s, player, self._left(s, player), self.rng))
        return player, self.plan[2]

    def secret_choices(self, state: GameState) -> list[str]:
        """At set-up, the squad cards the player laying still holds (rule 1); while power cards
        are laid, the powers they have not laid in this duel (MM-4)."""
        s = MightymaniaState.of(state)
        if s.phase is Phase.SETUP:
            return sorted(self.hand[s.next_lay()[0]])
        if s.phase is Phase.LAY_POWER:
            return self._left(s, s.next_power_laid()[0])
        return []

    def choose(self, state: GameState, card: str) -> None:
        choices = self.secret_choices(state)
        if card not in choices:
            raise ValueError(
                f"{card!r} cannot be laid face down now: "
                + (f"one of {', '.join(choices)}" if choices else "no card is laid face down")
            )
        s = MightymaniaState.of(state)
        player, index = s.next_lay() if s.phase is Phase.SETUP else s.next_power_laid()
        self.plan = (player, index, card)

    def _left(self, s: MightymaniaState, player: int) -> list[str]:
        """The player's powers neither shown nor laid face down in this duel (MM-4)."""
        held = self.laid[player].values()
        return [p for p in s.unused_powers(player) if p not in held]

    def _power(self, s: MightymaniaState, player: int, slot: int) -> str:
        """The power laid face down now: as planned, by judgement for a wise seat, else any."""
        left = self._left(s, player)
        plan = self.plan
        if plan is not None and plan[:2] == (player, slot) and plan[2] in left:
            return plan[2]
        if player in self.wise:
            return wise_power(s, player, left, self.rng)
        return self.rng.choice(left)


def power_margins(s: MightymaniaState, player: int) -> dict[str, int] | None:
    """For each power, the rounds it wins less those it loses against each power the other may
    lay alike (MM-2, MM-4): what a player sure of nothing about the other's power cards goes by,
    once both fighting cards are face up (rule 6). None while one of them is face down."""
    other = 1 - player
    mine, theirs = s.rows[player][s.fighter(player)], s.rows[other][s.fighter(other)]
    if mine is None or theirs is None or DOWN in (mine, theirs):
        return None
    ours, their = s.data.cards[mine].powers, s.data.cards[theirs].powers
    beats = s.data.beats
    margins = {}
    for power in s.data.powers:
        margin = 0
        for answer in s.data.powers:
            us = ours[power] + (BONUS if (power, answer) in beats else 0)
            them = their[answer] + (BONUS if (answer, power) in beats else 0)
            margin += (us > them) - (us < them)
        margins[power] = margin
    return margins


def wise_power(s: MightymaniaState, player: int, left: Sequence[str], rng: random.Random) -> str:
    """The power card among `left` with the best margin (`power_margins`), ties at random; a
    fighting card still face down leaves the choice to chance.

    It matters more than any other choice: in random games where one seat lays so and the
    other at random, that seat won 978 of 1,000. A player who reads it can answer it, so it is
    a judgement for search and for the table's seats, not a best play."""
    margins = power_margins(s, player)
    if margins is None:
        return rng.choice(list(left))
    best = max(margins[power] for power in left)
    return rng.choice([power for power in left if margins[power] == best])


def _swap_in(secrets: dict[int, str], key: int, real: str, hand: list[str]) -> None:
    """Put `real` at `key`, and what was there where `real` was held (in `secrets` or `hand`)."""
    held = secrets[key]
    secrets[key] = real
    for other, value in secrets.items():
        if value == real and other != key:
            secrets[other] = held
            return
    hand[hand.index(real)] = held


def _settle(secrets: dict[int, str], key: int, real: str) -> None:
    """`real` has turned up at `key`. If the secrets held it elsewhere (an outcome that did not
    come from them), what they held at `key` goes there, so the secrets still fit the table."""
    held = secrets.pop(key)
    for other, value in secrets.items():
        if value == real:
            secrets[other] = held


# -- the game ---------------------------------------------------------------------------------


# The built-in squad cards and power cards, as their markers number them (a card's place in
# the deck's block of markers); cards of other deck files are not printed.
PRINTED_SQUAD = ("T1", "T2", "T3", "T4", "R1", "R2", "R3", "R4")
PRINTED_POWERS = ("brainwashing", "thermokinetic", "invisibility", "speed", "force")


def _cards() -> tuple[CardFace, ...]:
    """The built-in squads' cards, and a set of power cards per player (the camera reads the
    power, the slot tells whose it is)."""
    powers = load_cycle("")
    cards: list[CardFace] = []
    for name in builtin_decks():
        for c in load_deck(deck_path(name), powers).cards:
            values = tuple(f"{p[:5]} {c.powers[p]}" for p in powers)
            role = "LEADER" if c.leader else "squad"
            data = {"name": c.name, "deck": name, "lives": c.lives, "leader": c.leader}
            cards.append(
                CardFace(
                    c.id,
                    c.name,
                    (f"{role} - {c.lives} {'life' if c.lives == 1 else 'lives'}", *values),
                    "#aa2828" if c.leader else "#1e5a8c",
                    index=PRINTED_SQUAD.index(c.id),
                    data={**data, "powers": dict(c.powers)},
                )
            )
    for power in powers:
        cards.append(
            CardFace(
                power,
                power,
                ("power card",),
                "#5a5a5a",
                index=len(PRINTED_SQUAD) + PRINTED_POWERS.index(power),
                copies=len(PLAYERS),
                data={"power": power},
            )
        )
    return tuple(cards)


# How the page draws the game (issue 20): a face-down card as a back, any other card as printed
# with its id or power written on it (a squad or power cycle from a file has other ids).
LOOKS = Looks(
    tokens=(Look(DOWN, "back"), Look(r".+", "card", label="{0}")),
    seats=("#3d8bfd", "#f08c00"),
)


@mypyc_attr(allow_interpreted_subclasses=True)  # the tests deal their own cards
class MightymaniaGame(Game):
    info = GameType(
        name="mightymania",
        title="Mightymania",
        title_fr="Mightymania",
        player_names=PLAYERS,
        options=(
            Option(
                "decks",
                "titans,rogues",
                "the two squads, player_1's first: built-in deck names or TOML paths",
            ),
            Option("rules", "", "a power-cycle file; empty: the built-in one", advanced=True),
        ),
        profile="mightymania",
        guide="mightymania",
        palette=(
            # A face-up card's lives ("life@0.67" is 2 lives of 3), the cards that may attack and
            # be attacked; the cards that may defend an attacked Leader, and that Leader; each
            # round's power cards once scored, for that side.
            Role("life", "#00c040"),
            Role("attacker", "#ff8000"),
            Role("target", "#ff00ff", "x"),
            Role("attacked", "#ff00ff", "X"),
            Role("guard", "#00a0ff"),
            Role("danger", "#ff0000"),
            Role("won", "#00ff40"),
            Role("lost", "#ff0020"),
            Role("draw", "#ffd000"),
        ),
        dice_kinds=("d6",),
        board=CARDS,
        # Printed before decks were allocated: the block stays where the cards have it.
        deck=CardDeck(_cards, size=len(PRINTED_SQUAD) + len(PRINTED_POWERS), first=81),
        words=Path(__file__).with_name("mightymania.words.toml"),
        looks=LOOKS,
        details=(
            Detail(
                "turn",
                "the attack turn's number, 1 for the first, each pass counting as one "
                "(MM-7, MM-8).",
            ),
            Detail("phase", 'what happens now ("move", "attack", "defend", "reveal", ...).'),
            Detail(
                "to_move",
                'the player to decide, "chance" when the table or the dice decide, null at '
                "the end.",
            ),
            Detail("attacker", "this turn's attacker, null until the start rolls pick (rule 2)."),
            Detail("defender", "this turn's defender, null until the start rolls pick (rule 2)."),
            Detail(
                "movers",
                "the players still to make or skip their move before this attack, in order (MM-7).",
            ),
            Detail("start_rolls", "the start rolls of the current try, player_1's first (rule 2)."),
            Detail(
                "positions",
                "each occupied position (a defending card in its own) -> card (its id face up, "
                '"down" face down), lives (a face-up card\'s lives left, MM-1, MM-4; null face '
                "down) and leader (true or false when the table knows, else null, MM-5).",
            ),
            Detail("removed", "the cards that have left the table, in order (MM-6)."),
            Detail(
                "passes",
                "the turns in a row that ended in a pass; the second ends the game in a draw "
                "(MM-8).",
            ),
            Detail(
                "duel",
                "null outside a duel; else attacking and attacked (positions), defending (the "
                "position of the card defending the Leader, MM-5), defence (pending, defended, "
                "declined or null), rounds (MM-4), powers (per player, each round's card: down "
                "or its power), results (each round's winner or draw) and won (rounds won).",
            ),
            Detail(
                "duel_won_by",
                "once a duel's rounds are all turned up: the player who won more of them (MM-4), "
                'or "no_one"; else null.',
            ),
            Detail(
                "last_duel",
                "what the last duel came to (MM-4, MM-6), null before any: its event (drawn, "
                "life_lost, card_left, leader_beaten), attacker, defender, winner (null when "
                "drawn), attacker_rounds and defender_rounds won, the card that lost a life "
                "and the lives it has left, and the attack's turn.",
            ),
            Detail(
                "result",
                "the outcome once the game is over (winners, draw, the Leader beaten), else null: "
                "the returns, a search's figures, are in `Game.result`.",
            ),
        ),
    )
    action_types: ClassVar[tuple[type[Action], ...]] = (
        Lay,
        StartRoll,
        Move,
        Stay,
        Attack,
        Reveal,
        Defend,
        NoDefence,
        Rounds,
        LayPower,
        RevealPower,
        Clear,
    )

    def _new_state(self, options: Mapping[str, Any]) -> MightymaniaState:
        return construct(
            MightymaniaState, options, load_game_data(options["decks"], options["rules"])
        )

    def layout(self, state: GameState) -> Layout:
        """Face-down cards show "down", face-up squad cards their id, power cards their power."""
        s = MightymaniaState.of(state)
        seen: Layout = {}
        for p in range(2):
            for i, token in enumerate(s.shown_row(p)):
                if token is not None:
                    seen[POS[p][i]] = token
            for k, power in enumerate(s.powers[p]):
                seen[SLOT[p][k]] = power
        return seen

    def lights(self, state: GameState) -> dict[str, str]:
        """Each face-up card's lives ("life@" lives / 3); each scored round slot "won", "lost" or
        "draw" for its side; while attacking, the cards that may attack ("attacker") and be
        attacked ("target"); while defending, the card attacked ("attacked") and the cards that
        may defend it ("guard"); an attacked card known to be the Leader that fights itself,
        "danger". A face-down card shows nothing of itself, a defended Leader included (MM-5)."""
        s = MightymaniaState.of(state)
        roles: dict[str, str] = {}
        for p in range(2):
            for i, token in enumerate(s.shown_row(p)):
                if token is not None and token != DOWN and s.lives[token]:  # not one beaten off
                    roles[POS[p][i]] = f"life@{s.lives[token] / MAX_LIVES:.2f}"
            for k, winner in enumerate(s.results):
                roles[SLOT[p][k]] = "draw" if winner is None else "won" if winner == p else "lost"
        a, d = s.attacker, s.defender
        if s.phase is Phase.ATTACK:
            for i, j in s.attacks():
                roles[POS[a][i]] = "attacker"
                roles[POS[d][j]] = "target"
        if s.phase is Phase.DEFEND:
            # The card attacked, and who may defend it: a defender sees which card the attack
            # is on (the walk: the table's attack left it unmarked), told from one that may be.
            roles[POS[d][s.target]] = "attacked"
            roles.update((POS[d][j], "guard") for j in s.defenders())
        if s.phase in DUEL and s.guard is None and s.leader_attacked():
            roles[POS[d][s.target]] = "danger"
        return roles

    def pointing(self, state: GameState, action: Action) -> tuple[str, str | None] | None:
        """An attack points from the attacking card to the card it attacks (MM-3); a defence
        from the defending card to the attacked Leader it fights for (MM-5). Neither moves a
        card, so the layouts alone cannot show them."""
        s = MightymaniaState.of(state)
        match action:
            case Attack(from_col, to_col):
                a = s.current_player()
                return POS[a][from_col - 1], POS[1 - a][to_col - 1]
            case Defend(from_col):
                return POS[s.defender][from_col - 1], POS[s.defender][s.target]
        return None

    def board_rows(self) -> list[list[str]]:
        # As player_1 sees the table: player_2 lays power cards left to right from their side.
        return [list(reversed(SLOT[1])), list(POS[1]), list(POS[0]), list(SLOT[0])]

    def spots(self) -> dict[str, str]:
        return dict.fromkeys(SPOT_INFO, CAMERA)

    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        if MightymaniaState.of(state).phase in (Phase.START_ROLL, Phase.ROUNDS):
            return DiceRequest("d6", 1, D6)
        return None

    def lay_advice(self, state: GameState) -> list[str] | None:
        """While power cards are laid (rule 8): the powers best first by their margins
        (`power_margins`), ties in the cycle's order."""
        s = MightymaniaState.of(state)
        if s.phase is not Phase.LAY_POWER:
            return None
        margins = power_margins(s, s.next_power_laid()[0])
        if margins is None:
            return None
        return sorted(s.data.powers, key=lambda power: -margins[power])

    def token_names(self, state: GameState) -> dict[str, str]:
        """The squads' cards by the names their deck files give them (MM-1)."""
        return {card.id: card.name for card in MightymaniaState.of(state).data.cards.values()}

    def roller(self, state: GameState) -> int | None:
        """Each player lays and reveals their own cards (rules 1 and 8) and rolls their own
        start die, player_1's first (rule 2); the attacker rolls for the rounds (MM-4)."""
        s = MightymaniaState.of(state)
        match s.phase:
            case Phase.SETUP:
                return s.next_lay()[0]
            case Phase.START_ROLL:
                return len(s.rolls)
            case Phase.ROUNDS:
                return s.attacker
            case Phase.REVEAL:
                return s.reveals[0][0]
            case Phase.LAY_POWER:
                return s.next_power_laid()[0]
            case Phase.REVEAL_POWER:
                return s.next_power_shown()[0]
        return None

    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        s = MightymaniaState.of(state)
        if self.dice_wanted(s) is None:
            raise IllegalActionError("no die roll is expected now")
        if len(reading) != 1 or type(reading[0]) is not int or reading[0] not in D6:
            raise IllegalActionError(f"one d6 (1-6) is wanted, not {list(reading)}")
        value = int(reading[0])
        return [StartRoll(value) if s.phase is Phase.START_ROLL else Rounds(value)]

    def deal(self, state: GameState, rng: random.Random) -> MightymaniaHidden:
        return construct(MightymaniaHidden, MightymaniaState.of(state), rng)

    def evaluate(self, state: GameState) -> list[float]:
        """For a search: the lives each side has left on the table (MM-6), the Leader's
        counting three times since losing it loses the game."""
        s = MightymaniaState.of(state)
        strengths = [
            sum(s.lives[c] for c in s.data.ids[p] if c not in s.removed)
            + 2 * s.lives[s.data.leaders[p]]
            for p in range(2)
        ]
        return leads(strengths, 3.0)

    def explain(self, state: GameState, sensed: Layout) -> Problem | None:
        """The first sensed card that breaks the rules, its spot named and lit."""
        s = MightymaniaState.of(state)
        laid = _defence_laid(s, sensed)
        if laid is not None:
            return laid
        expected = self.layout(s)
        for spot in sorted(SPOT_INFO):
            token, was = sensed.get(spot), expected.get(spot)
            if token is None or token == was or _in_progress(s, spot, token, expected, sensed):
                continue
            player, is_slot, _ = SPOT_INFO[spot]
            said = _foreign(s, player, is_slot, token)
            if said is None:
                check = _slot_problem if is_slot else _position_problem
                said = check(s, spot, token, was)
            message, key, params = said
            return Problem(f"{spot}: {message}", frozenset({spot}), key, {"spot": spot, **params})
        return None

    def describe(self, state: GameState) -> JSON:
        """The public facts of the table: the fields of `info.details`, in that order."""
        s = MightymaniaState.of(state)
        positions: JSON = {}
        for p in range(2):
            for i, token in enumerate(s.rows[p]):
                if token is not None:
                    lives = None if token == DOWN else s.lives[token]
                    leader = s.is_leader(p, i)
                    positions[POS[p][i]] = {"card": token, "lives": lives, "leader": leader}
        started = s.phase not in (Phase.SETUP, Phase.START_ROLL)
        player = s.current_player()
        facts: JSON = {
            "turn": s.turn,
            "phase": s.phase.value,
            "to_move": None if player == TERMINAL else s.player_name(player),
            "attacker": PLAYERS[s.attacker] if started else None,
            "defender": PLAYERS[s.defender] if started else None,
            "movers": [PLAYERS[p] for p in s.movers] if s.phase is Phase.MOVE else [],
            "start_rolls": list(s.rolls),
            "positions": positions,
            "removed": list(s.removed),
            "passes": s.passes,
            "duel": None,
            "duel_won_by": None,
            "last_duel": _describe_last_duel(s),
            "result": _outcome(self.result(s)),
        }
        if s.phase in DUEL or s.phase is Phase.CLEAR or (s.phase is Phase.OVER and s.results):
            facts["duel"] = _describe_duel(s)
        if s.rounds and len(s.results) == s.rounds:
            won = [s.results.count(p) for p in range(2)]
            facts["duel_won_by"] = "no_one" if won[0] == won[1] else PLAYERS[won.index(max(won))]
        return facts

    def result(self, state: GameState) -> JSON | None:
        """Winners and returns (`Game.result`); draw: True after two passes in a row (MM-8),
        else False; leader_beaten: the player and card of the Leader beaten (MM-6); ended:
        "leader" or "passes", which the page says."""
        summary = super().result(state)
        s = MightymaniaState.of(state)
        if summary is None:
            return None
        summary["draw"] = s.winner is None
        summary["ended"] = "passes" if s.winner is None else "leader"
        if s.winner is not None:
            loser = 1 - s.winner
            summary["leader_beaten"] = {"player": PLAYERS[loser], "card": s.data.leaders[loser]}
        return summary


def _outcome(result: JSON | None) -> JSON | None:
    """The result as the players read it in the game's details: not its returns (-1, 1)."""
    return None if result is None else {k: v for k, v in result.items() if k != "returns"}


def _describe_last_duel(s: MightymaniaState) -> JSON | None:
    if s.last_duel is None:
        return None
    event, a, attacker_rounds, defender_rounds, card, lives, turn = s.last_duel
    winner = a if attacker_rounds > defender_rounds else 1 - a
    return {
        "event": event,
        "attacker": PLAYERS[a],
        "defender": PLAYERS[1 - a],
        "winner": None if event == "drawn" else PLAYERS[winner],
        "attacker_rounds": attacker_rounds,
        "defender_rounds": defender_rounds,
        "card": card,
        "lives": lives,
        "turn": turn,
    }


def _describe_duel(s: MightymaniaState) -> JSON:
    a, d = s.attacker, s.defender
    defence = None
    if s.phase is Phase.DEFEND:
        defence = "pending"
    elif s.guard is not None:
        defence = "defended"
    elif s.defence_asked:
        defence = "declined"
    return {
        "attacking": POS[a][s.source],
        "attacked": POS[d][s.target],
        "defending": None if s.guard is None else POS[d][s.guard],
        "defence": defence,
        "rounds": s.rounds or None,
        "powers": {PLAYERS[p]: list(s.powers[p]) for p in range(2)},
        "results": ["draw" if w is None else PLAYERS[w] for w in s.results],
        "won": {PLAYERS[p]: s.results.count(p) for p in range(2)},
    }


# -- explaining a table that fits no action -----------------------------------------------------


def _in_progress(
    s: MightymaniaState, spot: str, token: str, expected: Layout, sensed: Layout
) -> bool:
    """A token that the next steps may put there: a card laid ahead at set-up, one turned up
    ahead of its turn, a move under way, power cards laid or turned ahead, the table cleared."""
    player, is_slot, index = SPOT_INFO[spot]
    if is_slot:
        if s.phase is Phase.LAY_POWER:
            return token == DOWN and index < s.rounds
        laid = s.powers[player]
        turning = s.phase is Phase.REVEAL_POWER and index < len(laid) and laid[index] == DOWN
        return turning and token in s.unused_powers(player)
    match s.phase:
        case Phase.SETUP:
            return token == DOWN
        case Phase.MOVE:
            filled = [x for x in POS[player] if x in sensed and x not in expected]
            return player == s.movers[0] and token in s.rows[player] and len(filled) == 1
        case Phase.REVEAL:
            turning_up = {_reveal_spot(s, p, i): (p, i) for p, i in s.reveals}
            d = s.defender
            if not s.defence_due() and s.fighting_down(d):
                # The defender's card may turn up ahead of the attacker's, unless the defence
                # is still to be decided (MM-5).
                turning_up[_reveal_spot(s, d, s.fighter(d))] = (d, s.fighter(d))
            return spot in turning_up and token in s.candidates(*turning_up[spot])
        case Phase.DEFEND:
            row = s.rows[s.defender]
            on_leader = player == s.defender and index == s.target
            return on_leader and any(row[j] == token for j in s.defenders())
        case Phase.CLEAR:
            return token in s.rows[player]
    return False


def _defence_laid(s: MightymaniaState, sensed: Layout) -> Problem | None:
    """A card from beside an attacked face-down card laid face up on it at one go (MM-5): the
    camera sees a card turn up there, the defence itself no spot shows, so it must be named.
    (On a face-up Leader the session reads both at one go.)"""
    d = s.defender
    spot = POS[d][s.target]
    if s.phase is not Phase.DEFEND or s.rows[d][s.target] != DOWN:
        return None
    token = sensed.get(spot)
    for j in s.defenders():
        own, card = POS[d][j], s.rows[d][j]
        squad = card == token or (card == DOWN and token in s.candidates(d, j))
        if own not in sensed and squad and token != s.data.leaders[d]:
            message = f"{spot}: the card from {own} defends it: name the defence, defend:{j + 1}"
            return Problem(
                f"{message} (MM-5)",
                frozenset({spot, own}),
                "defence_laid",
                {"spot": spot, "own": own},
            )
    return None


def _reveal_spot(s: MightymaniaState, player: int, col: int) -> str:
    """Where a card to turn up lies: a defending card on its Leader."""
    if player == s.defender and col == s.guard:
        return POS[player][s.target]
    return POS[player][col]


Said = tuple[str, str, JSON]
"""What is wrong at a spot: the English message, its key in the catalogue, its parameters."""


def _foreign(s: MightymaniaState, player: int, is_slot: bool, token: str) -> Said | None:
    """A token that may never lie there: another deck's card, no card at all, a gone card."""
    whose = {"token": token, "player": PLAYERS[player]}
    if is_slot:
        if token == DOWN or token in s.data.powers:
            return None
        return f"{token!r} is no power card", "not_power_card", whose
    if token == DOWN:
        return None
    owner = s.data.owner.get(token)
    if owner is None:
        return f"{token!r} is no card of {PLAYERS[player]}'s deck", "not_own_deck", whose
    if owner != player:
        message = f"card {token} is {PLAYERS[owner]}'s, not {PLAYERS[player]}'s"
        return message, "not_yours", {**whose, "owner": PLAYERS[owner]}
    if token in s.removed and (s.leaving is None or s.leaving[2] != token):
        return f"card {token} has left the table (rule 12)", "left_table", whose
    return None


def _slot_problem(s: MightymaniaState, spot: str, token: str, was: str | None) -> Said:
    player, _, index = SPOT_INFO[spot]
    if s.phase not in (Phase.LAY_POWER, Phase.REVEAL_POWER):
        return "power cards laid before the rounds are rolled (rules 7-8)", "powers_early", {}
    if index >= s.rounds:
        message = f"{s.rounds} round(s) in this duel: no power card here (rule 8)"
        return message, "no_round_slot", {"rounds": s.rounds}
    if token == DOWN:
        message = f"{was} was turned up and stays face up until the duel ends (rule 11)"
        return message, "power_stays_up", {"was": was}
    if token in s.powers[player]:
        message = f"{token} is already played in this duel: each power once (MM-4)"
        return message, "power_used", {"token": token}
    message = "power cards are laid face down, then turned up round by round (rules 8-9)"
    return message, "powers_face_down", {}


def _position_problem(s: MightymaniaState, spot: str, token: str, was: str | None) -> Said:
    player = SPOT_INFO[spot][0]
    attacked = s.phase in DUEL and spot == POS[s.defender][s.target]
    if attacked and s.defence_due() and was == DOWN and token in s.candidates(player, s.target):
        # The attacked card turned up would tell whether it is the Leader.
        message = "the defence is decided before the attacked card turns up (MM-5)"
        return message, "defence_first", {}
    if s.phase is Phase.DEFEND and spot == POS[s.defender][s.target]:
        # A face-down neighbour laid face up on the Leader is the defence: the session sees it.
        message = "only a card next to the attacked Leader may defend it (rule 5, MM-5)"
        return message, "only_neighbour", {}
    if was is None:
        if s.phase is Phase.SETUP:
            return "cards are laid face down (rule 1)", "face_down_setup", {}
        if s.phase is Phase.MOVE and player == s.movers[0]:
            message = "one card moves at a time, to an empty position (rule 15)"
            return message, "one_at_a_time", {}
        if s.phase is Phase.MOVE:
            mover, who = PLAYERS[s.movers[0]], PLAYERS[player]
            message = f"{mover} moves a card now, not {who} (rule 15, MM-7)"
            return message, "not_your_move", {"mover": mover, "player": who}
        message = "no card may go here now: cards move only before an attack (rule 15)"
        return message, "no_card_now", {}
    if was != DOWN and token == DOWN:
        return f"{was} was revealed and stays face up (rule 6)", "stays_up", {"was": was}
    if was == DOWN and token in s.unrevealed(player):
        return "a card turned face up, but no reveal is due (rule 6)", "no_reveal_due", {}
    lying = "a card" if was == DOWN else was
    message = f"a second card where {lying} lies: one card per position (rule 15)"
    return message, "second_card", {}


GAME = MightymaniaGame()
MightymaniaState.game = GAME
