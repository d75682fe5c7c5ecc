"""What the rest of the program knows of a game, declared once next to its rules.

OpenSpiel's `GameType` is the model: one typed record per game, which the CLI, the dashboard,
the terminal, the config, the camera's readers and the printable sheets read through the registry
(`controller.rules`), so that none of them names a game. Everything here is plain data: it
crosses into the layers below (vision, hardware) as values, never as an import of the rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

OptionValue = bool | int | str

_HEX = re.compile(r"#[0-9a-fA-F]{6}")


@dataclass(frozen=True)
class Option:
    """A game option: its default gives its type; `choices` or `low`..`high` bound it. `unit`
    follows a bound in messages ("12 to 16 cells"); `rule` is the clarification behind it.
    `board`: the option changes the board itself, its spots, rows and profile (`Game.on_board`,
    `GameType.profile_for`). `seat`: the value is a seat, 0 for the first, as the journal keeps
    it; a form shows the seats as it numbers them. `shown_with`: (option, value) under which a form
    offers it at all (two teams only with 4 players); otherwise it keeps its default. `advanced`:
    a form keeps it out of a newcomer's way (an order of seats, a rules file of one's own)."""

    name: str
    default: OptionValue
    help: str
    choices: tuple[OptionValue, ...] = ()
    low: int | None = None
    high: int | None = None
    unit: str = ""
    rule: str = ""
    board: bool = False
    seat: bool = False
    shown_with: tuple[str, OptionValue] | None = None
    advanced: bool = False

    def problem(self, game: GameType, value: object) -> str | None:
        """What is wrong with `value` for this option of `game`, or None."""
        if type(value) is not type(self.default):
            expected = type(self.default).__name__
            return f"option {self.name!r} for {game.name} must be {expected}: {value!r}"
        if self.choices and value not in self.choices:
            return f"option {self.name!r} must be {_either(self.choices)}, not {value!r}"
        if isinstance(value, bool) or not isinstance(value, int):
            return None
        low = self.low if self.low is not None else value
        high = self.high if self.high is not None else value
        if low <= value <= high:
            return None
        why = f" ({self.rule})" if self.rule else ""
        bounds = _either((low, high)) if high == low + 1 else f"{low} to {high}"
        if self.name == "players":
            return f"{game.title} is for {bounds} players, not {value}{why}"
        return f"option {self.name!r} must be {bounds}{self.unit}, not {value}{why}"


def _either(values: tuple[OptionValue, ...]) -> str:
    """'a', 'b' or 'c'."""
    shown = [repr(v) for v in values]
    return f"{', '.join(shown[:-1])} or {shown[-1]}" if len(shown) > 1 else shown[0]


@dataclass(frozen=True)
class Role:
    """A palette role the game's lights use: its default colour ("#rrggbb", which the config may
    override) and, for a terminal without colour, the mark shown after a square lit with it."""

    name: str
    colour: str
    mark: str = ""

    def __post_init__(self) -> None:
        if not _HEX.fullmatch(self.colour):
            raise ValueError(f"role {self.name!r}: {self.colour!r} is not a colour like #ff8000")


@dataclass(frozen=True)
class CardFace:
    """A printable card of the game: its id (the token the camera reports for it face up),
    the face's title and lines, its border ("#rrggbb"), its place in the deck's block of marker
    indices, how many copies a set prints, and facts for `smartboard cards list`. `headline`:
    the first line is printed large."""

    id: str
    title: str
    lines: tuple[str, ...]
    border: str
    index: int
    copies: int = 1
    headline: bool = False
    data: Mapping[str, object] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class CardDeck:
    """The cards a game prints, each carrying its markers (vision/card_deck.py).

    `cards` makes them when asked (some decks are files). The registry gives each deck a block
    of `size` card indices, its cards' `index` counting from the block's start; `first` pins a
    block whose cards are already printed, so that no new deck moves them. An unpinned deck
    takes the next free block.
    """

    cards: Callable[[], tuple[CardFace, ...]]
    size: int
    first: int | None = None


@dataclass(frozen=True)
class IconDice:
    """A kind of dice with pictures that a learned model reads: its faces, and for dice of
    several body colours, the colours it tells apart."""

    kind: str
    faces: tuple[str, ...]
    colours: tuple[str, ...] | None = None


@dataclass(frozen=True)
class MapPiece:
    """A printed piece laid on the board's cells, which the camera reads by its markers (issue
    21): the token it shows on each cell it covers, its size in cells as printed (width,
    height; the camera reads it turned any quarter), its printed ground ("#rrggbb"), label (a
    letter on each cell) and title (its name, printed along it) for the players, how many a kit
    prints, and its layer (0 lies on the board, 1 on a piece of layer 0). A kit's pieces keep
    their order: each cell of each piece carries its own marker, numbered in that order, so
    printed kits stay readable."""

    token: str
    cells: tuple[int, int] = (1, 1)
    colour: str = "#ffffff"
    label: str = ""
    copies: int = 1
    layer: int = 0
    title: str = ""

    def __post_init__(self) -> None:
        if not _HEX.fullmatch(self.colour):
            raise ValueError(f"piece {self.token!r}: {self.colour!r} is not a colour like #ff8000")
        if min(self.cells) < 1 or self.copies < 1 or self.layer < 0:
            raise ValueError(f"piece {self.token!r}: cells and copies from 1, layer from 0")


@dataclass(frozen=True)
class Detail:
    """A field of the game's public description (`Game.describe`), and what it means: the one
    place where each game documents what the dashboard, the terminal, `smartboard status` and a
    computer player can read of a position."""

    name: str
    help: str
    inner: bool = False
    """Bookkeeping of the rules' own (the step last taken, a set-up's next space) or what the
    board already shows: the page's Game panel leaves it out; `smartboard status` keeps it."""


LOOK_KINDS = ("card", "back", "die", "piece", "tile", "building", "spawn")
"""How the page may draw a token: a card's picture (from the game's deck), a card face down, an
icon or d6 die, a piece, or the map's ground, buildings and spawns (which fill their cell)."""
_GROUP = re.compile(r"\{\d\}")


@dataclass(frozen=True)
class Look:
    """How the page draws a sensed token (issue 20): the first of a game's looks whose `match`
    (a regular expression, as simple as JavaScript reads it alike) matches the whole token, and
    whose `spot` (if any) matches the whole spot id, draws it. "{1}", "{2}" in the other fields
    stand for its groups, "{0}" for the whole token.

    `colour`: a colour name of the game's `Looks` (a palette role or one of `Looks.colours`) or
    "#rrggbb"; `glyph`: a short symbol; `label`: a few characters written on it; `face`: a die's
    face, drawn as the dice box draws it; `span`: how many cells one token covers (a large
    building's cells each show it)."""

    match: str
    kind: str
    colour: str = ""
    glyph: str = ""
    label: str = ""
    face: str = ""
    spot: str = ""
    span: int = 1

    def __post_init__(self) -> None:
        if self.kind not in LOOK_KINDS:
            raise ValueError(f"look {self.match!r}: kind {self.kind!r} is not one of {LOOK_KINDS}")
        groups = re.compile(self.match).groups
        for text in (self.colour, self.glyph, self.label, self.face):
            if any(int(g[1]) > groups for g in _GROUP.findall(text)):
                raise ValueError(f"look {self.match!r}: {text!r} names a group it does not have")

    def fill(self, token: str) -> dict[str, str]:
        """The look's fields for `token`, its groups put in: what the page computes itself."""
        found = re.fullmatch(self.match, token)
        if found is None:
            raise ValueError(f"look {self.match!r} does not match {token!r}")
        parts = (found.group(0), *found.groups(default=""))
        fields = {
            "colour": self.colour,
            "glyph": self.glyph,
            "label": self.label,
            "face": self.face,
        }
        return {
            key: _GROUP.sub(lambda g: parts[int(g.group()[1])], text)
            for key, text in fields.items()
        }


@dataclass(frozen=True)
class Looks:
    """How the page draws the game (issue 20): its tokens, its seats' colours, its dice faces.

    `seats`: each seat's colour, as `GameType.player_names`, for names and pieces; `colours`:
    named colours beyond the palette roles; `faces`: a glyph for each icon-dice face; `stacks`:
    the detail field giving each spot's stack (spot -> its tokens, bottom first), whose height
    the page shows; `owners`: the detail field giving where each player's piece is (player ->
    spot), so that a piece the sensors feel is drawn in its owner's colour; `ground`: the detail
    field giving each board spot's printed colour (spot -> colour), drawn under its tokens;
    `numbers`: the detail field giving the number a piece on a spot is named by in the game's
    decisions (spot -> number from 0, shown from 1 as the words' `{field|from1}`), which the
    board itself does not show; `from_one`: the fields of the details whose numbers count from
    0 and are shown counted from 1 (Takeover's building numbers, in its list and its claim);
    `worn`: the detail field giving the points left of a piece that has lost some, and those it
    started with (spot -> [left, full]), shown beside its number: a worn piece looks as a whole
    one does."""

    tokens: tuple[Look, ...]
    seats: tuple[str, ...] = ()
    colours: Mapping[str, str] = field(default_factory=dict)
    faces: Mapping[str, str] = field(default_factory=dict)
    stacks: str = ""
    owners: str = ""
    ground: str = ""
    numbers: str = ""
    from_one: tuple[str, ...] = ()
    worn: str = ""

    def __post_init__(self) -> None:
        for name, colour in self.colours.items():
            if not _HEX.fullmatch(colour):
                raise ValueError(f"looks: colour {name!r} is {colour!r}, not like #ff8000")

    def find(self, token: str, spot: str) -> Look | None:
        """The look that draws `token` on `spot`, as the page finds it."""
        for look in self.tokens:
            if re.fullmatch(look.match, token) and (not look.spot or re.fullmatch(look.spot, spot)):
                return look
        return None


CARDS = "cards"
"""`GameType.board`: the camera reads cards in the board's camera spots."""
KIT = "kit"
"""`GameType.board`: the camera reads the printed pieces of `GameType.kit` on the board's cells."""


@dataclass(frozen=True)
class GameType:
    """Everything outside a game's rules that depends on which game it is."""

    name: str
    """The short name: `--game NAME`, the journal, the profile's `game`."""
    title: str
    """The name as its box prints it."""
    title_fr: str
    player_names: tuple[str, ...]
    """Every seat the game can have, in turn order; a game for fewer uses the first ones."""
    options: tuple[Option, ...]
    profile: str
    """The board profile: a built-in profile's name (hardware/profiles/NAME.toml), or the path
    of a TOML file for a game kept elsewhere."""
    palette: tuple[Role, ...] = ()
    dice_kinds: tuple[str, ...] = ()
    """The kinds of dice its rolls use: "d6", or an `icon_dice` kind."""
    icon_dice: tuple[IconDice, ...] = ()
    board: str = ""
    """What the camera reads on the board's camera spots: `CARDS`, `KIT`, an `icon_dice` kind
    (the top die of each cell), or "" when the camera cannot read them yet."""
    deck: CardDeck | None = None
    kit: tuple[MapPiece, ...] = ()
    """The printed pieces of a board the camera reads as a map (`KIT`)."""
    details: tuple[Detail, ...] = ()
    """Every field of `Game.describe`, each in every position (None where it does not apply)."""
    guide: str = ""
    """How to play it, in the project's words (guide.py): the name of its files in
    controller/rules/guides/, its page in each language and the help of each value of its "phase"
    detail; "" when it has none."""
    words: Path | None = None
    """Its catalogue of words in English and French (words.py), a file beside its rules; None:
    the page shows its ids, made readable."""
    looks: Looks | None = None
    """How the page draws its tokens; None: as their text."""

    def __post_init__(self) -> None:
        kinds = {dice.kind for dice in self.icon_dice}
        if self.board not in ("", CARDS, KIT, *kinds):
            raise ValueError(f"{self.name}: the board holds {self.board!r}, which it never reads")
        if self.board == CARDS and self.deck is None:
            raise ValueError(f"{self.name}: the camera reads cards, and the game has no deck")
        if (self.board == KIT) != bool(self.kit):
            raise ValueError(f"{self.name}: a kit of pieces goes with board = KIT, and only then")
        tokens = [piece.token for piece in self.kit]
        if len(set(tokens)) != len(tokens):
            raise ValueError(f"{self.name}: two pieces of its kit show the same token")
        if self.looks is not None and len(self.looks.seats) not in (0, len(self.player_names)):
            raise ValueError(f"{self.name}: looks.seats must give a colour to each seat")

    @property
    def players(self) -> tuple[int, int]:
        """The fewest and most players: the "players" option's range, else every seat."""
        for option in self.options:
            if option.name == "players":
                return option.low or 1, option.high or len(self.player_names)
        return len(self.player_names), len(self.player_names)

    @property
    def teams(self) -> bool:
        """Whether it can be played in teams (a "teams" option)."""
        return any(option.name == "teams" for option in self.options)

    @property
    def default_options(self) -> dict[str, OptionValue]:
        return {option.name: option.default for option in self.options}

    def board_options(self, options: Mapping[str, object]) -> dict[str, object]:
        """The board options (`Option.board`) that `options` set off their defaults."""
        return {
            option.name: options[option.name]
            for option in self.options
            if option.board and options.get(option.name, option.default) != option.default
        }

    def profile_for(self, options: Mapping[str, object]) -> str:
        """The built-in profile of the board `options` call for: `profile`, followed by
        "-VALUE" for each board option off its default ("NAME-16" for a "size" of 16)."""
        suffix = ".toml" if self.profile.endswith(".toml") else ""
        board = [str(value) for value in self.board_options(options).values()]
        return "-".join([self.profile.removesuffix(suffix), *board]) + suffix

    def check_options(self, options: Mapping[str, object]) -> dict[str, OptionValue]:
        """The default options overridden by `options`; a ValueError names the first bad one."""
        merged = self.default_options
        by_name = {option.name: option for option in self.options}
        for key, value in options.items():
            if key not in by_name:
                known = ", ".join(by_name) or "none"
                raise ValueError(f"unknown option {key!r} for {self.name}; known: {known}")
            problem = by_name[key].problem(self, value)
            if problem:
                raise ValueError(problem)
            merged[key] = value  # type: ignore[assignment]  # checked just above
        return merged
