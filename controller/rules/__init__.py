"""The rules of each game, pure Python: no hardware, threads or clocks."""

from controller.rules.akuma import GAME as AKUMA
from controller.rules.api import Game
from controller.rules.mightymania import GAME as MIGHTYMANIA
from controller.rules.potions import GAME as POTIONS
from controller.rules.takeover import GAME as TAKEOVER
from controller.rules.voodoo import GAME as VOODOO

GAMES: dict[str, Game] = {
    game.name: game for game in (AKUMA, VOODOO, TAKEOVER, POTIONS, MIGHTYMANIA)
}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(
            f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}"
        ) from None
