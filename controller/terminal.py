"""The table drawn in a terminal: each square in its light's colour, with its piece spots.

A spot that the camera reads shows the token on top there, abbreviated: "yellow:steal" is Y.st.
A square whose reed feels a pawn and whose camera spot sees what lies under it (Hostile
Takeover's cells) shows both in three characters: "large:red" is LR, "small:none" s-, "spawn:blue"
@B, a bare "tile" t, then * for a piece on the reed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from controller.lights import rank, role_colour
from controller.rules import GAMES, palette_roles
from controller.rules.api import CAMERA, JSON, REED, Game, GameState
from controller.seats import seat_caller
from controller.session import View
from hardware.leds import RGB

RESET = "\x1b[0m"
# Without colour, the square's light shows as a mark after its name: the table's own roles'
# marks, and those the games declare with their palette roles.
TABLE_MARKS = {
    "candidate": "?",
    "fix": "!",
    "changed": "~",
    "legal": "o",
    "landing": "v",
    # A move the table shows (a computer seat's, a hint): from, to, taken away, swapped.
    "shown_from": "^",
    "shown_to": "@",
    "shown_take": "/",
    "shown_swap": "=",
}


def mark(role: str) -> str:
    """The mark of a square lit with `role` (a space if it has none)."""
    return role_marks().get(role) or " "


def role_marks() -> dict[str, str]:
    """The marks of the roles that have one: shown with the colour, for colour-blind eyes too."""
    return _marks(tuple(GAMES))


@functools.cache
def _marks(games: tuple[str, ...]) -> dict[str, str]:
    """Every role's mark, built once for the games registered (a square per call would
    otherwise rebuild it)."""
    declared = {name: role.mark for name, role in palette_roles().items() if role.mark}
    return declared | TABLE_MARKS


def _bg(rgb: RGB) -> str:
    return f"\x1b[48;2;{rgb[0]};{rgb[1]};{rgb[2]}m"


def _fg(rgb: RGB) -> str:
    return f"\x1b[38;2;{rgb[0]};{rgb[1]};{rgb[2]}m"


def draw(
    game: Game,
    state: GameState,
    view: View,
    palette: Mapping[str, RGB],
    colour: bool,
    message: str = "",
    thinking: JSON | None = None,
    called: Callable[[str], str] | None = None,
) -> str:
    """The board, then a status line: the turn, whose move (each seat as `called` names it,
    else by the game's own names), what the table says, and while it thinks
    (controller/computer.py) for whom and how far."""
    say = called or seat_caller(game, ())
    pieces: dict[str, list[str]] = {}
    sensors = game.spots()
    for spot in sorted(sensors):
        square, _, piece = spot.partition(".")
        if piece:
            pieces.setdefault(square, []).append(spot)
    layout = game.layout(state) if CAMERA in sensors.values() else {}
    lines = []
    for row in game.board_rows():
        cells = []
        for square in row:
            role = view.roles.get(square, "")
            if sensors.get(square) == CAMERA and square not in pieces:
                cells.append(_camera_cell(layout.get(square), role, palette, colour))
                continue
            under = [s for s in pieces.get(square, []) if sensors[s] == CAMERA]
            if sensors.get(square) == REED and len(under) == 1:
                (seen,) = under
                # The more urgent of the two lights, as the square's LED shows it.
                seen_role = view.roles.get(seen, "")
                shown = (
                    seen_role if seen_role and rank(seen_role) > rank(role) else role or seen_role
                )
                pawn = square in layout
                cells.append(_mapped_cell(layout.get(seen), pawn, shown, palette, colour))
                continue
            marks: list[tuple[str, str | None]] = []
            for spot in pieces.get(square, []):
                spot_role = view.roles.get(spot)
                letter = spot.partition(".")[2][0].upper()
                if spot_role is None:
                    marks.append(("." if colour else " ", None))
                elif spot_role in ("fix", "changed", "candidate"):
                    marks.append((letter if colour else "!", spot_role))
                elif spot_role == "legal":
                    marks.append(("o", spot_role))
                else:
                    marks.append((letter, spot_role))
            if colour:
                body = "".join(
                    _fg(role_colour(r, palette, (200, 200, 200)) if r else (90, 90, 90)) + ch
                    for ch, r in marks
                )
                bg = _bg(_dim(role_colour(role, palette, (0, 0, 0))))
                cells.append(f"{bg} {square} {body} {RESET}")
            else:
                body = "".join(ch for ch, _ in marks)
                cells.append(f"{square}{mark(role)}[{body}]")
        lines.append(" ".join(cells))
    player = state.current_player()
    who = "game over" if state.is_terminal() else f"to move: {say(state.player_name(player))}"
    details = game.describe(state)
    status = f"turn {details.get('turn', '?')} · {who}"
    if thinking is not None:
        purpose = "a hint for " if thinking["hint"] else ""
        status += f" · thinking ({purpose}{say(thinking['player'])}, {thinking['level']}) "
        status += f"{round(thinking['fraction'] * 100)} %"
    if message:
        status += f" · {message}"
    if view.blinking:
        status += f" · put right: {', '.join(sorted(view.blinking))}"
    lines.append(status)
    return "\n".join(lines)


def abbreviate(token: str | None) -> str:
    """Four characters for a token: colour:face as C.fa ("yellow:steal" is Y.st)."""
    if token is None:
        return " .. "
    colour, _, face = token.partition(":")
    text = f"{colour[:1].upper()}.{face[:2]}" if face else token[:4]
    return text.ljust(4)


def _camera_cell(token: str | None, role: str, palette: Mapping[str, RGB], colour: bool) -> str:
    text = abbreviate(token)
    if not colour:
        return text + mark(role)
    # The token's colour (a Loa's dice colour is a palette role) on the spot's light.
    ink = palette.get((token or "").partition(":")[0], (200, 200, 200))
    return f"{_bg(_dim(role_colour(role, palette, (0, 0, 0))))}{_fg(ink)} {text} {RESET}"


def short(token: str | None) -> str:
    """Two characters for what the camera sees under a piece: kind, then owner ("-" for none)."""
    if token is None:
        return "  "
    kind, _, owner = token.partition(":")
    if not owner:
        return kind[:1].ljust(2)
    mark = "@" if kind == "spawn" else kind[:1].upper() if kind == "large" else kind[:1]
    return mark + ("-" if owner == "none" else owner[:1].upper())


def _mapped_cell(
    token: str | None, pawn: bool, role: str, palette: Mapping[str, RGB], colour: bool
) -> str:
    text = short(token) + ("*" if pawn else " ")
    if not colour:
        return text + mark(role)
    ink = palette.get((token or "").partition(":")[2], (200, 200, 200))
    bg = _bg(_dim(role_colour(role, palette, (0, 0, 0))))
    return f"{bg}{_fg(ink)}{text}{RESET}"


def _dim(rgb: RGB) -> RGB:
    # Full palette colours as backgrounds would drown the piece letters.
    r, g, b = rgb
    return (r // 3, g // 3, b // 3)
