"""The table as one JSON object: what the dashboard shows, built by the daemon's loop.

Lights are the colours the LEDs show when lit: a blinking spot is marked `fix` rather than
alternating, so a page redraws only when something happens on the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from controller.lights import render
from controller.rules import GAMES
from controller.rules.api import JSON, Action, Game
from controller.session import Session, View
from hardware.leds import RGB
from hardware.profile import BoardProfile


def hex_colour(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def label(action: Action) -> str:
    """ "choose_dice:2" -> "choose dice: 2": the id, readable."""
    name, _, values = action.id.partition(":")
    words = name.replace("_", " ")
    return f"{words}: {values.replace(':', ', ')}" if values else words


def games_offered() -> JSON:
    """The games the table plays, with their titles and default options."""
    return {
        name: {
            "title": game.title,
            "titles": {"en": game.info.title, "fr": game.info.title_fr},
            "options": dict(game.default_options),
        }
        for name, game in sorted(GAMES.items())
    }


def table_snapshot(
    game: Game,
    session: Session,
    view: View,
    profile: BoardProfile,
    palette: Mapping[str, RGB],
) -> JSON:
    """The game and what the table shows of it (`view`: the session's view now); the daemon
    adds its own parts (camera, pause)."""
    state = session.state
    frame = render(view, profile, palette, blink_on=True)
    spots: dict[str, Any] = {}
    for spot_id, sensor in sorted(game.spots().items()):
        spot = profile.spots.get(spot_id)
        leds = spot.leds if spot is not None else ()
        spots[spot_id] = {
            "sensor": sensor or "unsensed",
            "light": hex_colour(frame[leds[0]]) if leds else None,
            "role": view.roles.get(spot_id),
            "sensed": session.sensed.get(spot_id),
            "expected": session.expected.get(spot_id),
            "fix": spot_id in view.blinking,
        }
    player = state.current_player()
    terminal = state.is_terminal()
    wanted = None if terminal else game.dice_wanted(state)
    details = game.describe(state)
    return {
        "game": game.name,
        "title": game.title,
        "players": [state.player_name(p) for p in range(state.num_players)],
        "to_move": None if terminal else state.player_name(player),
        "turn": details.get("turn", len(state.actions())),
        "board_rows": game.board_rows(),
        "spots": spots,
        "details": details,
        "detail_help": {detail.name: detail.help for detail in game.info.details},
        "actions": [
            {"id": a.id, "label": label(a), "moves_pieces": session.moves_pieces(a)}
            for a in state.legal_actions()
        ],
        "candidates": [a.id for a in session.candidates()],
        "dice_wanted": None
        if wanted is None
        else {"kind": wanted.kind, "count": wanted.count, "faces": list(wanted.faces)},
        "log": [label(a) for a in state.actions()],
        "result": game.result(state),
        "message": session.message,
        "options": dict(state.options),
        "games": games_offered(),
        "looks": looks(game, palette),
    }


def looks(game: Game, palette: Mapping[str, RGB]) -> JSON | None:
    """How the page draws the game's tokens (`GameType.looks`), its colour names as "#rrggbb" (the
    configured palette's, for roles); None for a game that declares none (drawn as text)."""
    declared = game.info.looks
    if declared is None:
        return None
    roles = {role.name for role in game.info.palette}
    colours = {name: hex_colour(rgb) for name, rgb in palette.items() if name in roles}
    colours |= declared.colours
    return {
        "tokens": [
            # Empty fields left out, and a span of one cell (the page's default).
            {k: v for k, v in dataclasses.asdict(look).items() if v and (k, v) != ("span", 1)}
            for look in declared.tokens
        ],
        "colours": colours,
        "seats": {
            name: colours.get(colour, colour)
            for name, colour in zip(game.player_names, declared.seats, strict=False)
        },
        "faces": dict(declared.faces),
        "dice": list(game.dice_kinds),
        "stacks": declared.stacks,
        "owners": declared.owners,
    }
