"""The rules-engine API shared by every game, modelled on OpenSpiel (DESIGN.md §3).

A game is a tree of decisions and chance nodes. States are mutable, cloneable and replayable:
their history of immutable actions is the save format.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import random
import re
import tomllib
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Self

from mypy_extensions import mypyc_attr

from controller.rules.game_type import GameType, OptionValue

CHANCE = -1
TERMINAL = -2

JSON = dict[str, Any]

Layout = dict[str, str]
"""What the sensors should report: spot -> token. A spot absent from it has nothing there."""

PRESENT = "piece"
"""The token of a reed spot: a reed feels a piece, never which one."""

# What senses a spot, in `Game.spots()`: a reed switch, the camera, or nothing (lit only).
REED = "reed"
CAMERA = "camera"
UNSENSED = ""


# As hardware/toml_files.py (which the rules may not import): a game's data file above 1 MiB is
# refused unread, and a deeply nested one is an error, not a RecursionError.
MAX_TOML_BYTES = 1 << 20


def read_toml(path: Path, what: str, error: type[ValueError]) -> dict[str, Any]:
    """Parse a game's data file; an unreadable, oversized or malformed one raises `error`
    naming it."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_TOML_BYTES + 1)
    except OSError as problem:
        raise error(f"cannot read {what} {path}: {problem.strerror}") from problem
    if len(raw) > MAX_TOML_BYTES:
        raise error(f"{what} {path} is larger than {MAX_TOML_BYTES // 1024} KiB")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as problem:
        raise error(f"{what} {path} is not valid TOML: {problem}") from problem
    except ValueError as problem:  # tomllib's int() of more than 4,300 digits
        raise error(f"{what} {path} holds a number too long to read") from problem
    except RecursionError:
        raise error(f"{what} {path} nests arrays or tables too deeply") from None


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state; the state is left unchanged."""


class HistoryError(ValueError):
    """A saved history that does not replay."""


@dataclass(frozen=True)
@mypyc_attr(allow_interpreted_subclasses=True)
class Action:
    """A small immutable move or chance outcome. Subclasses add typed fields."""

    def to_json(self) -> JSON:
        return {"type": type(self).__name__, **dataclasses.asdict(self)}

    @functools.cached_property
    def id(self) -> str:
        """A stable short name, used by `smartboard act ID` and the control socket; worked out
        once, since pages list a thousand of them on every change."""
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()
        values = [str(v) for v in dataclasses.astuple(self)]
        return ":".join([name, *values]) if values else name

    def __str__(self) -> str:
        return self.id

    # Immutable: a copy is the action itself. (Compiled by mypyc, copying a frozen dataclass
    # field by field would fail.)
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self


def action_from_json(data: Mapping[str, Any], kinds: Iterable[type[Action]]) -> Action:
    """Rebuild an action from `Action.to_json`, refusing unknown types and fields."""
    by_name = {kind.__name__: kind for kind in kinds}
    if not isinstance(data, Mapping) or "type" not in data:
        raise HistoryError(f"not an action: {data!r}")
    kind = by_name.get(str(data["type"]))
    if kind is None:
        raise HistoryError(f"unknown action type {data['type']!r}; known: {sorted(by_name)}")
    fields = {k: v for k, v in data.items() if k != "type"}
    names = set(_field_types(kind))
    if set(fields) != names:
        raise HistoryError(f"{kind.__name__} takes fields {sorted(names)}, not {sorted(fields)}")
    problem = _type_problem(kind, fields)
    if problem:
        raise HistoryError(problem)
    return kind(**fields)


_FIELD_TYPES: dict[type[Action], dict[str, type]] = {}


def _field_types(kind: type[Action]) -> dict[str, type]:
    if kind not in _FIELD_TYPES:
        _FIELD_TYPES[kind] = typing.get_type_hints(kind)
    return _FIELD_TYPES[kind]


def _type_problem(action: type[Action], fields: Mapping[str, Any]) -> str | None:
    """Exact field types: True == 1 and 1.0 == 1 would pass as legal and then spoil the state.
    (Checked before the action is made: compiled by mypyc, Roll(True) would be Roll(1).)"""
    for name, kind in _field_types(action).items():
        value = fields[name]
        if type(value) is not kind:
            return f"{action.__name__}.{name} must be {kind.__name__}: {value!r}"
    return None


@dataclass(frozen=True)
class DiceRequest:
    """What a chance node wants read from the table: `count` dice of one kind."""

    kind: str
    count: int
    faces: tuple[int | str, ...]


@dataclass(frozen=True)
class Problem:
    """What is wrong with a sensed layout: a message, and the spots at fault. `key` and
    `params` say it again for the game's catalogue of words (words.py), which the page phrases
    in the reader's language; `message` is English, for the terminal and the logs. Problems
    are equal when they say the same of the same spots."""

    message: str
    spots: frozenset[str] = frozenset()
    key: str = dataclasses.field(default="", compare=False)
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)


@mypyc_attr(allow_interpreted_subclasses=True)
class GameState:
    """One position of a game. Subclasses implement the underscored hooks."""

    game: ClassVar[Game]

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        # Only allocates (as object's does): compiled by mypyc, a class's own __new__ would run
        # __init__ too, and `_copy` needs a bare state to fill.
        return object.__new__(cls)

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options: dict[str, Any] = dict(options)
        self._history: list[Action] = []

    @property
    @abstractmethod
    def num_players(self) -> int: ...

    @abstractmethod
    def current_player(self) -> int:
        """A player index, CHANCE or TERMINAL."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """The decisions open to the player to move; empty at chance and terminal nodes."""

    def sample(self, rng: random.Random) -> Action:
        """One of the legal actions drawn uniformly at random, for random play; a game whose
        listing is slow may draw it without listing them all, with the same odds."""
        return rng.choice(self.legal_actions())

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """(outcome, probability) pairs at a chance node; empty elsewhere."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Each player's result: +1 a win, -1 a loss, 0 while the game goes on."""

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Play an action already known to be legal."""

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def apply(self, action: Action) -> None:
        """Play a decision or a chance outcome; an illegal one raises and changes nothing."""
        if self.is_terminal():
            raise IllegalActionError(f"{action} after the game has ended")
        fields = {name: getattr(action, name) for name in _field_types(type(action))}
        if _type_problem(type(action), fields) or not self.is_legal(action):
            if self.is_chance_node():
                allowed = [outcome for outcome, _ in self.chance_outcomes()]
                where = "chance outcome"
            else:
                allowed = self.legal_actions()
                where = f"action for {self.player_name(self.current_player())}"
            listed = ", ".join(a.id for a in allowed[:40])
            more = f" and {len(allowed) - 40} more" if len(allowed) > 40 else ""
            raise IllegalActionError(f"{action} is not a legal {where}; legal now: {listed}{more}")
        self._apply(action)
        self._history.append(action)

    def is_legal(self, action: Action) -> bool:
        """Whether `action` may be played now. Games with long lists may check fewer actions."""
        if self.is_chance_node():
            return any(action == outcome for outcome, _ in self.chance_outcomes())
        return action in self.legal_actions()

    def child(self, action: Action) -> Self:
        """A copy with `action` played, which must come from this state's own legal actions or
        chance outcomes: they are not checked again, since listing can cost more than playing."""
        after = self.clone()
        after.play(action)
        return after

    def play(self, action: Action) -> None:
        """Play, in place and unchecked, an action from this state's own legal actions or
        chance outcomes: for searches, which list before they play."""
        self._apply(action)
        self._history.append(action)

    def history(self) -> list[JSON]:
        return [action.to_json() for action in self._history]

    def actions(self) -> Sequence[Action]:
        return tuple(self._history)

    def clone(self) -> Self:
        """A deep copy. (Not copy.deepcopy of the state: compiled by mypyc, that would drop the
        fields of a subclass written in Python.)"""
        other = self._copy()
        memo: dict[int, Any] = {}
        for name, value in self._fields().items():
            setattr(other, name, copy.deepcopy(value, memo))
        return other

    def _fields(self) -> dict[str, Any]:
        """The state's fields by name. Compiled by mypyc (compiled.py), a state keeps them in
        slots that its class names; a subclass written in Python adds a __dict__."""
        fields = {
            name: getattr(self, name)
            for name in getattr(type(self), "__mypyc_attrs__", ())
            if name != "__dict__" and hasattr(self, name)
        }
        fields.update(getattr(self, "__dict__", {}))
        return fields

    def _copy(self) -> Self:
        """A shallow copy with its own options and history: a game's fast `clone` starts from
        it and copies the fields its actions change in place."""
        cls = type(self)
        other = cls.__new__(cls)  # copy.copy, without its generic machinery
        for name, value in self._fields().items():
            setattr(other, name, value)
        other.options = dict(self.options)
        other._history = list(self._history)
        return other

    @classmethod
    def of(cls, state: GameState) -> Self:
        """`state` as this game's state; a TypeError if it is another game's."""
        if not isinstance(state, cls):
            raise TypeError(f"not a {cls.game.title} state: {type(state).__name__}")
        return state

    def player_name(self, player: int) -> str:
        if player == CHANCE:
            return "chance"
        if player == TERMINAL:
            return "nobody"
        return self.game.player_names[player]


def leads(strengths: Sequence[float], scale: float) -> list[float]:
    """An evaluation (`Game.evaluate`) from each player's strength, on the scale of the
    returns (1 a win, -1 a loss): 2p - 1 for each player's chance p of winning, the chances a
    softmax of the strengths. With two players it is the tanh of the lead over `scale` (a lead
    of `scale` gives about 0.76); with more, players level with each other have a fair seat's
    chance (1/N: -0.5 each of four), as the returns of their games would average, so a hint's
    chance of winning is one (the walk: 53 % for every seat of four)."""
    top = max(strengths)
    weights = [math.exp(2.0 * (strength - top) / scale) for strength in strengths]
    total = sum(weights)
    return [2.0 * weight / total - 1.0 for weight in weights]


_T = typing.TypeVar("_T")


def construct(cls: type[_T], *args: Any) -> _T:
    """`cls(*args)`, called as Python would: mypyc (2.4) compiles a direct call of a class with
    its own `__new__` so that an exception raised by its `__init__` is lost."""
    return cls(*args)


@mypyc_attr(allow_interpreted_subclasses=True)
class Hidden:
    """What the players know and the table cannot see: the cards in their hands, which card
    lies face down where, the power cards they lay.

    A game's state is public (DESIGN.md §3), so a hidden choice looks to it like any legal one,
    and a card turned up like chance. Bots and `smartboard simulate` keep a `Hidden` beside the
    state so that they play from real hands; the session never sees it.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        # Only allocates, as GameState's: a search's worker is sent the hidden cards pickled,
        # and unpickling makes a bare object to fill.
        return object.__new__(cls)

    @abstractmethod
    def choices(self, state: GameState) -> list[Action]:
        """The legal decisions that the player to move can really make with what they hold."""

    @abstractmethod
    def outcome(self, state: GameState) -> Action | None:
        """At a chance node, the outcome that the hidden cards decide (a card turned up, one put
        face up from the pile); None for true chance, such as dice, drawn with its odds."""

    @abstractmethod
    def observe(self, action: Action, state: GameState) -> None:
        """Keep in step: `action` has just been played, and `state` is the state after it."""

    @abstractmethod
    def redeal(self, state: GameState, rng: random.Random, seat: int) -> Hidden:
        """Another deal that fits the public `state`, in which `seat`'s own secrets (its hand,
        its face-down cards) are as here and everybody else's are dealt afresh at random: the
        worlds that seat cannot tell apart, for a search that must not peek."""

    def secret_choices(self, state: GameState) -> list[str]:
        """At a chance node where a seat lays a secret card (face down), the cards it may lay
        from what it holds (tokens), for a person at the simulated table to choose from; none
        anywhere else."""
        return []

    def choose(self, state: GameState, card: str) -> None:
        """A person at the simulated table names the secret card that the seat laying now lays,
        one of `secret_choices`: it is laid when the lay is observed. A ValueError says why
        not."""
        raise ValueError("no card is laid face down now")

    def known_to(self, seat: int) -> list[tuple[str, str]]:
        """What `seat` holds or laid unseen, as (spot, token): a card face down on a spot of
        the board, or "" for one in its hand. The simulated table shows it to the person
        playing that seat, who has no real cards to look at. Nothing by default."""
        return []

    def decide_for(self, seats: frozenset[int]) -> None:
        """Let `seats` choose the secret cards they lay (face down) by the game's own judgement
        rather than at random: the seats the table plays, a one-ply player's, and every seat in
        a search's worlds. A game whose players lay no secret card ignores it."""

    def planned(self, state: GameState) -> tuple[int, str | None] | None:
        """At a chance node where a seat given to `decide_for` lays a secret card: that seat
        and the card it lays (a token), chosen now so that a hand can be told, and laid when
        the lay is observed; or None for the card where telling would give it away to a seat
        that lays after it (then the hand lays one unseen). None anywhere else."""
        return None


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC):
    """A game's rules plus what its pieces look like to the table's sensors and lights."""

    info: ClassVar[GameType]
    """Everything else the program knows of the game (game_type.py)."""
    action_types: ClassVar[tuple[type[Action], ...]]
    turn_enders: ClassVar[tuple[type[Action], ...]] = ()
    """Decisions that only end their player's turn ("End the turn"): a take-back after one goes
    back to the move before it, which is what a player taking back means."""

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def title(self) -> str:
        return self.info.title

    @property
    def player_names(self) -> tuple[str, ...]:
        return self.info.player_names

    _board: Mapping[str, OptionValue] = MappingProxyType({})
    """The board options this copy of the game is on (`on_board`); none for the game itself."""
    _plain: Game | None = None
    """The game itself, for a copy on another board."""
    _boards: dict[str, Game] | None = None
    """The game's copies made so far, by board (the game itself's only)."""

    @property
    def default_options(self) -> dict[str, OptionValue]:
        return self.info.default_options | dict(self._board)

    def on_board(self, options: Mapping[str, Any]) -> Game:
        """The game on the board that `options` call for: itself when its board options
        (`Option.board`) are the defaults, else a copy, one kept for each board, whose
        `default_options` carry them, so that `spots()`, `board_rows()` and its profile
        (`GameType.profile_for`) follow. A ValueError names a bad option."""
        plain = self._plain or self
        merged = plain.info.check_options(options)
        board = {name: merged[name] for name in plain.info.board_options(merged)}
        if not board:
            return plain
        if plain._boards is None:
            plain._boards = {}
        boards = plain._boards
        key = repr(sorted(board.items()))
        if key not in boards:
            other = copy.copy(plain)
            other._board, other._plain = board, plain
            boards[key] = other
        return boards[key]

    @property
    def dice_kinds(self) -> tuple[str, ...]:
        """The kinds of dice its `DiceRequest`s name: the table reads those it has a reader for."""
        return self.info.dice_kinds

    @abstractmethod
    def _new_state(self, options: Mapping[str, Any]) -> GameState: ...

    def new_initial_state(self, options: Mapping[str, Any] | None = None) -> GameState:
        return self._new_state(self.info.check_options({**self._board, **(options or {})}))

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        return action_from_json(data, self.action_types)

    def replay(self, history: Iterable[Mapping[str, Any]], options: Mapping[str, Any]) -> GameState:
        """Rebuild a state from its JSON history; a step that no longer applies is an error."""
        state = self.new_initial_state(options)
        for step, data in enumerate(history):
            try:
                state.apply(self.action_from_json(data))
            except (IllegalActionError, HistoryError) as error:
                raise HistoryError(f"history step {step} does not replay: {error}") from error
        return state

    @abstractmethod
    def layout(self, state: GameState) -> Layout:
        """What each sensed spot should report in this state; empty spots are left out."""

    def lifted(self, state: GameState) -> Layout:
        """What each spot would report with its top piece lifted off (a stack's next piece).

        The session uses it to tell a piece held in the air mid-move from a mistake.
        """
        return {}

    @abstractmethod
    def lights(self, state: GameState) -> dict[str, str]:
        """A palette role for each lit spot; unlisted spots are dark. "role@0.40" is the role's
        colour at that fraction of its brightness."""

    def alert(self, state: GameState) -> Problem | None:
        """What the players must attend to in this state, such as a forgotten capture: the
        session shows its message and blinks its spots, with the roles `lights` gives them."""
        return None

    @abstractmethod
    def board_rows(self) -> list[list[str]]:
        """The board's square spots, row by row as the players see them, for text displays."""

    @abstractmethod
    def spots(self) -> dict[str, str]:
        """Every spot the game uses, mapped to its sensor: REED, CAMERA or UNSENSED."""

    @abstractmethod
    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        """The actions that a settled dice reading stands for here, or IllegalActionError."""

    @abstractmethod
    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        """At a chance node read from dice, which dice; None if no dice apply."""

    def roller(self, state: GameState) -> int | None:
        """At a chance node, the seat whose hand makes its outcome where the rules name one (a
        player's own die, their own cards laid): on linked tables, the table of that seat reads
        it. None lets the table judge by the turns around it."""
        return None

    def lay_advice(self, state: GameState) -> list[str] | None:
        """At a chance node where a player lays a card face down (`roller` names whom), the
        cards they may lay (tokens), the best first by the game's judgement, knowing nothing of
        those they laid before in secret: a hint for that player. None elsewhere."""
        return None

    def token_names(self, state: GameState) -> dict[str, str]:
        """Names that tokens coded by id go by in this game's `state` (a squad card "T1" is
        "Colossus"), for the page to say; the words' `tokens` name the rest. "ID.FACET" names a
        facet of a token that a words template asks for as `{field|token.FACET}` (a Multipli
        Potion card's monster, "8x5.monster": "40")."""
        return {}

    def result(self, state: GameState) -> JSON | None:
        """A JSON summary of the outcome once the game is over."""
        if not state.is_terminal():
            return None
        returns = state.returns()
        winners = [state.player_name(p) for p, r in enumerate(returns) if r > 0]
        return {"winners": winners, "returns": returns}

    def deal(self, state: GameState, rng: random.Random) -> Hidden | None:
        """For a game with hidden cards, players' secrets dealt at random to fit the public
        `state`, which may be a game under way; None for a game without them."""
        return None

    def describe(self, state: GameState) -> JSON:
        """Extra public facts for status displays; games add to it."""
        return {}

    def search_actions(self, state: GameState, hidden: Hidden | None) -> list[Action]:
        """The decisions of the player to move that a search need weigh, from what they really
        hold where `hidden` gives it: one of each group that the rules treat alike, such as a
        card laid in one free slot or another. All of them by default."""
        return state.legal_actions() if hidden is None else hidden.choices(state)

    def evaluate(self, state: GameState) -> list[float] | None:
        """A guess at each player's return from the public `state`, each in -1..1, for a search
        that stops its playouts short; None: the game has no such guess, playouts run to the end."""
        return None

    def playout_horizon(self) -> int | None:
        """The most random actions a search's playout runs before `evaluate` judges, where the
        game's evaluation is worth more than random play much further on: a long game whose
        positions change little a move blurs under random moves. None: the level's."""
        return None

    def pointing(self, state: GameState, action: Action) -> tuple[str, str | None] | None:
        """Where a player points to take `action` on a drawing of the board: the spot of the
        piece it moves, and the spot it goes to (None: it stays where it lies). None: the page
        works it out from the layouts before and after, which cannot tell two pieces alike apart
        (a die jumping over a die of the same colour and face)."""
        return None

    def to_find(self, state: GameState, action: Action) -> bool:
        """A legal decision the players are to find for themselves (Multipli Potion's captures
        without its hints option: finding them is the game): the table lights no place for it
        and the page outlines none, but it is made as any other."""
        return False

    def finding(self, state: GameState) -> int:
        """How many pieces a player taps on the page to guess a decision to find (`to_find`),
        its place to go being the game's: a guess is judged only once whole, and may be made
        whether or not any such decision is open, so that trying says nothing before. 0: none
        to find now."""
        return 0

    def explain(self, state: GameState, sensed: Layout) -> Problem | None:
        """Why a sensed layout that fits no legal action breaks the rules, if the game can say;
        the session shows it and lights the spots named."""
        return None

    def hidden(self, sensed: Layout) -> frozenset[str]:
        """The camera spots that pieces felt on other spots hide from the camera (a pawn on a
        printed cell): where the camera then sees nothing, the table keeps what it saw last."""
        return frozenset()
