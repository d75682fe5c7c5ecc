"""The rules of each game, pure Python: no hardware, threads or clocks; and the registry of games.

Every other part of the program asks the registry about games, and reads each game's
`GameType` (game_type.py): adding a game is its rules module, its board profile, and a line in
`_BUILT_IN` (or a call to `register`, as the tests do for a game of their own).
"""

from pathlib import Path

from controller.rules.compiled import use_fresh

COMPILED = use_fresh(__name__, Path(__file__).parent)
"""Whether the rules run compiled by mypyc (`make`), about twice as fast as their source."""

# These imports find the compiled build or, when it is out of date, the source (compiled.py).
from controller.rules.akuma import GAME as AKUMA  # noqa: E402
from controller.rules.api import Game  # noqa: E402
from controller.rules.game_type import CardDeck, IconDice, Role  # noqa: E402
from controller.rules.mightymania import GAME as MIGHTYMANIA  # noqa: E402
from controller.rules.potions import GAME as POTIONS  # noqa: E402
from controller.rules.takeover import GAME as TAKEOVER  # noqa: E402
from controller.rules.voodoo import GAME as VOODOO  # noqa: E402

_BUILT_IN = (AKUMA, VOODOO, TAKEOVER, POTIONS, MIGHTYMANIA)

GAMES: dict[str, Game] = {}
"""Every game the table plays, by name, in the order they were registered."""

BACK_INDEX = 0
"""The card index of every card's back, shared by all decks."""


class RegistryError(ValueError):
    """A game that cannot join the others: a name, palette role, dice kind or deck that clashes."""


def register(game: Game) -> None:
    """Add a game, after checking it against the others; nothing changes if it clashes."""
    info = game.info
    if info.name in GAMES:
        raise RegistryError(f"a game named {info.name!r} is already registered")
    _check_roles(game)
    _check_dice(game)
    GAMES[info.name] = game
    try:
        card_blocks()
    except RegistryError:
        del GAMES[info.name]
        raise


def unregister(name: str) -> None:
    """Take a game off the registry (a test's own game, when the test ends)."""
    del GAMES[name]


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(
            f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}"
        ) from None


def palette_roles() -> dict[str, Role]:
    """Every game's palette roles, by name."""
    return {role.name: role for game in GAMES.values() for role in game.info.palette}


def icon_dice() -> dict[str, IconDice]:
    """Every kind of icon dice some game rolls, by kind."""
    return {dice.kind: dice for game in GAMES.values() for dice in game.info.icon_dice}


def card_games() -> list[str]:
    """The games that have printable cards."""
    return [name for name, game in GAMES.items() if game.info.deck is not None]


def card_blocks() -> dict[str, int]:
    """Each deck's first card index: pinned blocks where they are, the others after them in
    registration order. Index 0 is the back's."""
    decks = {name: game.info.deck for name, game in GAMES.items() if game.info.deck is not None}
    taken: list[tuple[int, int, str]] = [(BACK_INDEX, BACK_INDEX + 1, "the card backs")]
    first: dict[str, int] = {}
    for name, deck in decks.items():
        if deck.first is not None:
            _claim(taken, deck.first, deck, name)
            first[name] = deck.first
    for name, deck in decks.items():
        if deck.first is None:
            start = max(end for _, end, _ in taken)
            _claim(taken, start, deck, name)
            first[name] = start
    return {name: first[name] for name in decks}


def _claim(taken: list[tuple[int, int, str]], start: int, deck: CardDeck, name: str) -> None:
    end = start + deck.size
    for low, high, owner in taken:
        if start < high and low < end:
            raise RegistryError(
                f"the cards of {name} (indices {start}-{end - 1}) overlap those of {owner} "
                f"({low}-{high - 1})"
            )
    taken.append((start, end, name))


def _check_roles(game: Game) -> None:
    known = palette_roles()
    for role in game.info.palette:
        other = known.get(role.name)
        if other is not None and other != role:
            raise RegistryError(
                f"{game.name}'s palette role {role.name!r} is {role.colour} {role.mark!r}; "
                f"another game has it as {other.colour} {other.mark!r}"
            )


def _check_dice(game: Game) -> None:
    known = icon_dice()
    for dice in game.info.icon_dice:
        other = known.get(dice.kind)
        if other is not None and other != dice:
            raise RegistryError(f"{game.name}'s {dice.kind!r} dice differ from another game's")


for _game in _BUILT_IN:
    register(_game)
