"""The table as one JSON object: what the dashboard shows, built by the daemon's loop.

Lights are the colours the LEDs show when lit: a blinking spot is marked `fix` rather than
alternating, so a page redraws only when something happens on the table.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from controller.lights import render
from controller.rules import GAMES
from controller.rules.api import JSON, Action, Game, GameState, Layout
from controller.rules.words import action_fields, catalogue
from controller.seats import dice_owner
from controller.session import Session, View
from hardware.leds import RGB
from hardware.profile import BoardProfile


def hex_colour(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def pointed(
    expected: Layout, after: Layout, changes: frozenset[str], places: Mapping[str, int | str]
) -> tuple[str, str | None]:
    """Where a player points to take a decision that changes the board: the place (a board
    square, or a spot off the board) of the piece it moves and the place it moves it to; for a
    piece laid, turned or taken away where it lies, that place and None. `changes`: the spots
    that differ; `places`: see `board_places`."""
    # In reading order, a spot left empty first: the piece moved leaves nothing behind unless
    # it stood on a stack, and a die beneath may look like another.
    changed = sorted(changes, key=lambda spot: (after.get(spot) is not None, _order(spot, places)))
    for spot in changed:
        token = expected.get(spot)
        if token is None or after.get(spot) == token:
            continue
        for there in changed:
            if there != spot and after.get(there) == token and expected.get(there) != token:
                start, end = _place(spot, places), _place(there, places)
                return start, None if end == start else end
    laid = [spot for spot in changed if after.get(spot) is not None] or changed
    return _place(min(laid, key=lambda spot: _order(spot, places)), places), None


@functools.cache
def board_places(game: Game) -> dict[str, int | str]:
    """Each spot's place: a board square's reading-order index, and for a sub-spot "S.x" drawn
    inside square S, S; spots off the board come after the board, in the game's order."""
    squares = [spot for row in game.board_rows() for spot in row]
    places: dict[str, int | str] = {spot: index for index, spot in enumerate(squares)}
    for spot in game.spots():
        square = spot.rpartition(".")[0]
        if spot not in places:
            places[spot] = square if square in squares else len(places)
    return places


def decision_places(
    game: Game,
    state: GameState,
    action: Action,
    expected: Layout,
    after: Layout,
    changes: frozenset[str],
    places: Mapping[str, int | str],
) -> tuple[str | None, str | None]:
    """Where the page points for `action`, from `expected` to `after` (`changes` the spots that
    differ): where the game says (`Game.pointing`), even for a decision that moves nothing (an
    attack), else as the layouts show (`pointed`); (None, None) for a button."""
    told = game.pointing(state, action)
    if told is not None:
        at, end = _place(told[0], places), told[1] and _place(told[1], places)
        return at, None if end == at else end
    if changes:
        return pointed(expected, after, changes, places)
    return None, None


def _place(spot: str, places: Mapping[str, int | str]) -> str:
    square = places.get(spot)
    return square if isinstance(square, str) else spot


def _order(spot: str, places: Mapping[str, int | str]) -> int:
    place = places.get(spot, len(places))
    return _order(place, places) if isinstance(place, str) else place


def words(game: Game) -> JSON:
    """The game's catalogue in both languages, and each action kind's fields, which its
    templates name (words.py): what the page phrases ids with. Served once a game
    (GET /api/words.json), not in every snapshot."""
    return {**catalogue(game), "fields": action_fields(game)}


def games_offered() -> JSON:
    """The games the table plays, with their titles and default options."""
    return _offered(tuple(GAMES.values()))


@functools.cache  # the same while the games registered stay the same
def _offered(games: tuple[Game, ...]) -> JSON:
    return {
        game.name: {
            "title": game.title,
            "titles": {"en": game.info.title, "fr": game.info.title_fr},
            "options": dict(game.default_options),
            "seats": list(game.player_names),
            "dice": list(game.dice_kinds),  # none for a game of cards alone
            # The options whose value is a seat (from 0): the form offers the seats by name.
            "seat_options": [option.name for option in game.info.options if option.seat],
            # The new-game form names the options of any game, in the page's language.
            "option_words": {
                language: words.get("options", {}) for language, words in catalogue(game).items()
            },
            # ... what an option takes, where its name does not say, and its choices if bound.
            "option_help": {
                language: words.get("option_help", {})
                for language, words in catalogue(game).items()
            },
            "option_choice_words": {
                language: words.get("option_choices", {})
                for language, words in catalogue(game).items()
            },
            "option_choices": {
                option.name: list(option.choices) for option in game.info.options if option.choices
            },
            # ... or its bounds, which a number field keeps to ("players": 2 to 4).
            "option_bounds": {
                option.name: [option.low, option.high]
                for option in game.info.options
                if option.low is not None or option.high is not None
            },
            # ... which to offer only beside another's value, and which under "More options".
            "option_shown_with": {
                option.name: list(option.shown_with)
                for option in game.info.options
                if option.shown_with
            },
            "advanced_options": [option.name for option in game.info.options if option.advanced],
            # ... and its seats ("Hawk Moth"), for any game, not only the one on the table.
            "seat_words": {
                language: words.get("players", {}) for language, words in catalogue(game).items()
            },
        }
        for game in sorted(games, key=lambda game: game.name)
    }


def table_snapshot(
    game: Game,
    session: Session,
    view: View,
    profile: BoardProfile,
    palette: Mapping[str, RGB],
    choices: Sequence[Action] | None = None,
    decisions: bool = True,
) -> JSON:
    """The game and what the table shows of it (`view`: the session's view now); the daemon
    adds its own parts (camera, pause). `choices`: the decisions open to the player to move
    when the table knows their hand (the simulated table's), else every legal one. Without
    `decisions`, a position only looked at (a past game's): none listed, none weighed."""
    state = session.state
    places = board_places(game)
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
    owner = None if wanted is None else dice_owner(game, state)
    details = game.describe(state)
    open_now = [] if not decisions else session.legal_actions() if choices is None else choices
    offered = [_decision(game, a, session, places) for a in open_now]
    _tell_apart(game, session, open_now, offered, details)
    return {
        # What a decision of each kind changes of the mover's counts (an Offering paid for
        # another Loa's power): the page says it of decisions whose own `gains` are not worked out.
        "kind_gains": _kind_gains(game, session, open_now, details),
        "game": game.name,
        "title": game.title,
        "players": [state.player_name(p) for p in range(state.num_players)],
        "to_move": None if terminal else state.player_name(player),
        "turn": details.get("turn", len(state.actions())),
        "board_rows": game.board_rows(),
        "spots": spots,
        "details": details,
        "detail_help": {detail.name: detail.help for detail in game.info.details},
        "inner_details": [detail.name for detail in game.info.details if detail.inner],
        "actions": offered,
        "candidates": [a.id for a in session.candidates()],
        # The pieces a guess at a decision to find takes (a Potions capture: 3), else 0.
        "finding": session.finding() if decisions else 0,
        "dice_wanted": None
        if wanted is None
        else {
            "kind": wanted.kind,
            "count": wanted.count,
            "faces": list(wanted.faces),
            # Whose dice: the page says to roll them for a seat the table plays.
            "roller": None if owner is None else state.player_name(owner),
        },
        "log": [a.id for a in state.actions()],
        # Who decided each, or rolled the dice where the rules name the roller (null: chance),
        # so that the log says whose move or roll it was.
        "log_by": [
            None if seat is None else state.player_name(seat)
            for seat in (
                step.player if step.player is not None else step.roller if step.dice else None
                for step in session.played_steps()
            )
        ],
        # Where moves were taken back: the log marks them ("↶ 2 moves taken back: …").
        "taken_back": session.journal.take_backs.to_json(game),
        # Where dice stand as they fell before a take-back, not thrown again: the log says so.
        "log_fallen": session.journal.take_backs.fallen_json(),
        "correctable": session.correctable,
        "take_back": _take_back(session) if decisions else None,
        "result": game.result(state),
        "message": session.message,
        "note": session.note,
        "options": dict(state.options),
        "games": games_offered(),
        "looks": looks(game, palette),
        "token_names": game.token_names(state),  # "T1" is "Colossus"
    }


def _take_back(session: Session) -> JSON | None:
    """What the page's Take back button undoes (`Session.take_back`): the moves, the roll they
    were made on that rolling again also takes back, and whether the table already shows the
    position before them (put back by hand). None when nothing can be taken back."""
    taken = session.take_back_plan()
    if taken is None:
        return None
    actions = session.state.actions()
    return {
        "player": session.state.player_name(taken.player),
        "actions": [a.id for a in actions[taken.keep :]],
        "rolled": [a.id for a in actions[taken.kept(True) : taken.keep]],
        "shown": session.shows_before(),
    }


def looks(game: Game, palette: Mapping[str, RGB]) -> JSON | None:
    """How the page draws the game's tokens (`GameType.looks`), its colour names as "#rrggbb" (the
    configured palette's, for roles); None for a game that declares none (drawn as text)."""
    return _looks(game, tuple(sorted(palette.items())))


@functools.cache  # a snapshot is built on every turn of the loop
def _looks(game: Game, palette_items: tuple[tuple[str, RGB], ...]) -> JSON | None:
    palette = dict(palette_items)
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
        "ground": declared.ground,
        "numbers": declared.numbers,
        "worn": declared.worn,
        "from_one": list(declared.from_one),
    }


def _decision(
    game: Game, action: Action, session: Session, places: Mapping[str, int | str]
) -> JSON:
    """A decision as the page offers it: by pointing at the board (`at`, then `to`), or as a
    button (`decision_places`)."""
    offered = session.offered.get(action)
    if offered is None:
        after = session.layout_after(action)
        at, to = decision_places(
            game, session.state, action, session.expected, after, session.changes(action), places
        )
        offered = session.offered[action] = {"id": action.id, "at": at, "to": to}
        if session.to_find(action):
            offered["find"] = True  # guessed at on the page, neither outlined nor listed
        # The other squares it changes (a tile's three cells besides its corner): a tap on one
        # offers the decisions that cover it.
        covers = {_place(spot, places) for spot in session.changes(action)} - {at, to}
        if at is not None and covers:
            offered["covers"] = sorted(covers, key=lambda square: _order(square, places))
    return offered


def _tell_apart(
    game: Game, session: Session, actions: Sequence[Action], offered: list[JSON], details: JSON
) -> None:
    """`gains` for decisions of different kinds that start and end on the same places (a
    Voodoo jump and a paid power moving a die alike): their words say different things, but not
    what each costs or takes. Decisions of one kind are told apart by their words (which card,
    which monster). Worked out once a position, for those alone: each asks the game to describe
    the position after it."""
    kinds: dict[tuple[Any, Any], set[str]] = {}
    for decision in offered:
        if decision["at"] is not None:
            place = (decision["at"], decision["to"])
            kinds.setdefault(place, set()).add(decision["id"].partition(":")[0])
    for action, decision in zip(actions, offered, strict=True):
        place = (decision["at"], decision["to"])
        if len(kinds.get(place, ())) > 1 and "gains" not in decision:
            decision["gains"] = _gains(game, session.state, action, details)


def _kind_gains(
    game: Game, session: Session, actions: Sequence[Action], details: JSON
) -> dict[str, JSON]:
    """Per kind of decision, the counts of the mover's that its decisions change alike: worked
    out from two of them, once a position (`Session.kind_gains`), a count they disagree on left
    out (it depends on the decision). It takes a kind's cost to be one (Baron Voodoo's Offering
    for another Loa's power, BV-7): a game whose decisions of one kind cost differently would
    need `gains` of each."""
    kinds: dict[str, list[Action]] = {}
    for action in actions:
        some = kinds.setdefault(action.id.partition(":")[0], [])
        if len(some) < 2:
            some.append(action)
    known = session.kind_gains
    for kind, some in kinds.items():
        if kind not in known:
            each = [_gains(game, session.state, action, details) for action in some]
            known[kind] = {
                key: gain
                for key, gain in each[0].items()
                if type(gain) is int and all(other.get(key) == gain for other in each[1:])
            }
    return {kind: known[kind] for kind in kinds if known[kind]}


def _gains(game: Game, state: GameState, action: Action, details: JSON) -> JSON:
    """What `action` changes of the mover's own in the game's details, by detail: a count's
    change (Baron Voodoo's Offerings -1 for another Loa's power, a point +1) or what a list
    gains (the die a jump captures). Bookkeeping (`Detail.inner`) is left out."""
    mover = state.player_name(state.current_player())
    after = game.describe(state.child(action))
    inner = {detail.name for detail in game.info.details if detail.inner}
    gains: JSON = {}
    for key, each in details.items():
        if key in inner or not isinstance(each, dict) or not isinstance(after.get(key), dict):
            continue
        was, now = each.get(mover), after[key].get(mover)
        if type(was) is int and type(now) is int and was != now:
            gains[key] = now - was
        elif isinstance(was, list) and isinstance(now, list) and len(now) > len(was):
            added = list(now)
            for item in was:
                if item in added:
                    added.remove(item)
            gains[key] = added
    return gains
