"""The rules of each game, pure Python: no hardware, threads or clocks."""

from controller.rules.akuma import GAME as AKUMA
from controller.rules.api import Game

GAMES: dict[str, Game] = {AKUMA.name: AKUMA}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(
            f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}"
        ) from None
