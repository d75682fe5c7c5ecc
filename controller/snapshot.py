"""The table as one JSON object: what the dashboard shows, built by the daemon's loop.

Lights are the colours the LEDs show when lit: a blinking spot is marked `fix` rather than
alternating, so a page redraws only when something happens on the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.lights import render
from controller.rules import GAMES
from controller.rules.api import JSON, Action, Game
from controller.rules.words import action_fields, catalogue
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


def words(game: Game) -> JSON:
    """The game's catalogue in both languages, and each action kind's fields, which its
    templates name (words.py): what the page phrases ids with. Served once a game
    (GET /api/words.json), not in every snapshot."""
    return {**catalogue(game), "fields": action_fields(game)}


def games_offered() -> JSON:
    """The games the table plays, with their titles and default options."""
    return {
        name: {
            "title": game.title,
            "titles": {"en": game.info.title, "fr": game.info.title_fr},
            "options": dict(game.default_options),
            # The new-game form names the options of any game, in the page's language.
            "option_words": {
                language: words.get("options", {}) for language, words in catalogue(game).items()
            },
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
        "log": [a.id for a in state.actions()],
        "result": game.result(state),
        "message": session.message,
        "note": session.note,
        "options": dict(state.options),
        "games": games_offered(),
    }
