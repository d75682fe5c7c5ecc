"""A game's words: what the page says of it, in English and French (`<game>.words.toml`).

The rules speak in ids (`place_trap:7`, `hawkmoth`, `purple:point`); players read sentences.
Each game declares its catalogue beside its rules (`GameType.words`); the page phrases every
id from it, and falls back on the id itself, underscores made spaces, where a game has none.

A catalogue has one table per language, each with these sections:

- players: a seat's name ("hawkmoth" -> "Hawk Moth");
- actions: an action kind's phrase, a template over its fields ("Lay a trap on square
  {square}"); `{field|seat}` names a player by index, `{field|token}` a token,
  `{field|tokens}` tokens joined by "+", `{field|actions}` a list of action ids, `{field|from1}`
  a number counted from 1 for 0 (the first building), `{field|token.FACET}` a facet of a token
  as `Game.token_names` names it ("ID.FACET": a Multipli Potion card's monster, "40"), else
  the token;
- kinds: an action kind as the heading of a group of decisions;
- details: a detail's name, or a field's within one (also the columns of a table of rows);
- values: for a detail, what each of its values says ("phase" -> "place_trap" -> ...);
- prompts: by phase, what the table waits for, a template over the details ("{side}: lay a
  trap"); `{player}` is the player to move, `{dice}` the dice wanted;
- roles: a light's meaning, by palette role;
- options: a new game's option, by name;
- option_help: what such an option takes, where its name does not say, shown under its field;
- option_choices: the name of an option's choice, by "OPTION:CHOICE" ("setup:roll");
- tokens: what lies on a spot, by token; a `*` stands for any part, `{1}`, `{2}`... for the
  parts it stood for ("civilian-*" -> "Civilian card {1}"); `{1|letter}` a whole number part
  as a letter from A for 0, `{1|from1}` counted from 1 for 0, for a grid's cells ("r*c*" ->
  "{2|letter}{1|from1}": "r0c2" is "C1"), and a key only fits an id whose such parts are numbers;
- spots: a spot's name on the board, by spot id, `*` as in tokens ("s*.r*" -> "round {2}"), as
  the game's decisions name it; the page shows the id where a game has none;
- places: a spot's name in a sentence where its name on the board does not say whose it is,
  `*` and `{1|seat}` as in rows ("s*.c*" -> "{1|seat}'s position {2}"); else its spots name;
- rows: a caption the page shows over a row of the board, by the row's first spot, `*` as in
  spots; `{1|seat}` names the seat that part numbers from 1, as spot ids do ("s2" -> Player 2);
- words: single words that ids are made of (colours, faces, powers);
- dice: a dice kind's name, one and many (["die", "dice"]);
- problems: `Problem.key`'s sentence, a template over `Problem.params`;
- news: what an event came to, by the detail that records it (a combat, a claim), a template
  over that detail's fields, shown by the page when the detail changes; "DETAIL:EVENT" is the
  template for one value of its `event` field (Akuma's "last_event:venom").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from controller.rules.api import Game, read_toml

LANGUAGES = ("en", "fr")
SECTIONS = (
    "players",
    "actions",
    "kinds",
    "details",
    "values",
    "prompts",
    "roles",
    "options",
    "option_help",
    "option_choices",
    "tokens",
    "spots",
    "places",
    "rows",
    "words",
    "dice",
    "problems",
    "news",
)
MODIFIERS = ("", "seat", "token", "tokens", "actions", "letter", "from1")
PART = re.compile(r"\{(\d+)(?:\|(\w+))?\}")  # a starred key's part in its template: "{2|letter}"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
NUMBER_FORMS = ("seat", "letter", "from1")  # a starred part read so must be a number
PLACEHOLDER = re.compile(r"\{(\w+)(?:\|(\w+(?:\.\w+)?))?\}")

Catalogue = dict[str, dict[str, Any]]
"""Language -> section -> entries."""


class WordsError(ValueError):
    """A catalogue that cannot be read, or whose languages do not say the same things."""


def placeholders(template: str) -> list[tuple[str, str]]:
    """The (name, modifier) of each `{name|modifier}` in `template`."""
    return [(m[1], m[2] or "") for m in PLACEHOLDER.finditer(template)]


@cache
def starred(pattern: str) -> re.Pattern[str]:
    """A catalogue key with `*` for any part ("civilian-*", "s*.r*") as a regex, a group for
    each star."""
    return re.compile("(.+?)".join(map(re.escape, pattern.split("*"))))


@cache  # read once: a message, a status line or a hint each phrase several ids
def _load(path: Path) -> Catalogue:
    data = read_toml(path, "the words file", WordsError)
    if sorted(data) != sorted(LANGUAGES):
        raise WordsError(f"{path}: one table per language, {' and '.join(LANGUAGES)}")
    keys: dict[str, set[str]] = {}
    for language in LANGUAGES:
        for section, entries in data[language].items():
            if section not in SECTIONS or not isinstance(entries, dict):
                raise WordsError(f"{path}: [{language}.{section}] is no section of a catalogue")
            for key, entry in entries.items():
                _check_entry(path, f"{language}.{section}.{key}", section, entry)
            names = _flat_keys(section, entries)
            other = keys.setdefault(section, names)
            if other != names:
                missing = sorted(other ^ names)
                raise WordsError(f"{path}: [{section}] differs between languages: {missing}")
    return data


def _flat_keys(section: str, entries: dict[str, Any]) -> set[str]:
    if section == "values":
        return {f"{key}.{value}" for key, values in entries.items() for value in values}
    return set(entries)


def _check_entry(path: Path, where: str, section: str, entry: object) -> None:
    if section == "values":
        ok = isinstance(entry, dict) and all(isinstance(v, str) for v in entry.values())
    elif section == "dice":
        ok = isinstance(entry, list) and len(entry) == 2 and all(isinstance(v, str) for v in entry)
    else:
        ok = isinstance(entry, str)
    if not ok:
        raise WordsError(f"{path}: {where} is not what a [{section}] entry holds")
    for _, modifier in placeholders(entry) if isinstance(entry, str) else ():
        if modifier not in MODIFIERS and not modifier.startswith("token."):
            raise WordsError(f"{path}: {where}: no such form as |{modifier}")


def catalogue(game: Game) -> Catalogue:
    """The game's words in each language; empty sections for a game without a catalogue."""
    path = game.info.words
    if path is None:
        return {language: {} for language in LANGUAGES}
    return _load(Path(path))


def action_fields(game: Game) -> dict[str, list[str]]:
    """Each action kind's fields, in the order its id lists them: what a template may use."""
    return _fields(tuple(game.action_types))


@cache
def _fields(action_types: tuple[type, ...]) -> dict[str, list[str]]:
    return {
        _kind(action): [field.name for field in dataclasses.fields(action)]
        for action in action_types
    }


def _kind(action: type) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", action.__name__).lower()


def word_text(game: Game, part: str, language: str = "en") -> str:
    """A seat or another word of an id as a player reads it (words.js `wordText`):
    "mamy_wata" -> "Mamy Wata", "player_2" -> "Player 2"; else the id made readable."""
    words = catalogue(game)
    for section in ("players", "words"):
        found = words.get(language, {}).get(section, {}).get(part)
        if found is None:
            found = words.get("en", {}).get(section, {}).get(part)
        if found is not None:
            return str(found)
    return part.replace("_", " ")


def _named(game: Game, section: str, value: str, language: str) -> str | None:
    """`value` by its own entry in `section`, else by the first starred key it fits."""
    words = catalogue(game)
    exact = words.get(language, {}).get(section, {}).get(value)
    if exact is None:
        exact = words.get("en", {}).get(section, {}).get(value)
    if exact is not None:
        return str(exact)
    patterns = {**words.get("en", {}).get(section, {}), **words.get(language, {}).get(section, {})}

    def seat(number: str) -> str:  # "2" in "s2.z3" is the second seat
        return word_text(game, game.player_names[int(number) - 1], language)

    return starred_text(patterns, value, lambda part: word_text(game, part, language), seat)


def spot_text(game: Game, spot: str, language: str = "en") -> str | None:
    """A spot as a sentence names it, with its seat (words.js `spotName`): "s2.c3" ->
    "Player 2's position 3"; None where the game has no words for it."""
    return _named(game, "places", spot, language) or _named(game, "spots", spot, language)


def detail_name(game: Game, key: str, seats: Mapping[str, str] | None = None) -> str:
    """A detail's name as the page gives it (words.js `detailName`), in English. `seats`: the
    names the players chose for their seats."""
    if key in game.player_names:
        return (seats or {}).get(key) or word_text(game, key)
    found = catalogue(game).get("en", {}).get("details", {}).get(key)
    return str(found) if found is not None else spot_text(game, key) or key.replace("_", " ")


def detail_text(
    game: Game,
    key: str,
    value: object,
    names: Mapping[str, str],
    seats: Mapping[str, str] | None = None,
) -> str:
    """A detail's value in words, as the page shows it (app.js `detailValue`), in English on
    one line: seats, cards, spots and decisions by their names. `names`: the game's
    `token_names` for the state described; `seats`: the names chosen for the seats."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    looks = game.info.looks
    # Counted from 1, as the words and the board say them (the board's numbers too).
    if isinstance(value, int) and looks is not None and key in (*looks.from_one, looks.numbers):
        return str(value + 1)
    if isinstance(value, list):
        return ", ".join(detail_text(game, key, item, names, seats) for item in value) or "none"
    if isinstance(value, dict):
        # Keys that are seats or spots hold the parent's kind of value; others are fields.
        details = catalogue(game).get("en", {}).get("details", {})
        fields = {inner: inner if inner in details else key for inner in value}
        return "; ".join(
            f"{detail_name(game, inner, seats)} "
            f"{detail_text(game, fields[inner], held, names, seats)}"
            for inner, held in value.items()
        )
    if not isinstance(value, str):
        return str(value)
    if seats and value in seats:
        return seats[value]
    own = catalogue(game).get("en", {}).get("values", {}).get(key, {}).get(value)
    if own is None and ":" in value and value.split(":")[0] in action_fields(game):
        return action_text(game, value, names=names)  # a decision's id: a forgotten capture
    found = own or names.get(value) or _named(game, "tokens", value, "en")
    return str(found) if found else spot_text(game, value) or word_text(game, value)


def action_text(
    game: Game, action_id: str, language: str = "en", names: Mapping[str, str] | None = None
) -> str:
    """An action id in words, as the page says it (words.js `actionText`): "place_trap:7" ->
    "Lay a trap on square 7"; for the command line, which has no page to phrase it. `names`:
    the game's `token_names` for its state, which name cards and their facets."""
    words = catalogue(game)
    spots = game.spots()
    names = names or {}

    def lookup(section: str, key: str) -> Any:
        found = words.get(language, {}).get(section, {}).get(key)
        return found if found is not None else words.get("en", {}).get(section, {}).get(key)

    def word(part: str) -> str:
        return word_text(game, part, language)

    def named(section: str, value: str) -> str | None:
        return _named(game, section, value, language)

    def shown(value: str, form: str) -> str:
        if form == "seat":
            seats = game.player_names
            return word(seats[int(value)] if value.isdigit() and int(value) < len(seats) else value)
        if form.startswith("token."):  # a facet of it ("8x5.monster": "40"), else it whole
            return names.get(f"{value}.{form[len('token.') :]}") or shown(value, "token")
        if form == "token":
            return names.get(value) or named("tokens", value) or word(value)
        if form == "tokens":
            return ", ".join(shown(part, "token") for part in value.split("+"))
        numbered = _numbered(value, form)
        if numbered is not None:
            return numbered
        if value in spots:  # as a sentence names a spot (words.js `placeText`)
            return spot_text(game, value, language) or value
        return word(value)

    exact = lookup("actions", action_id)
    if exact is not None:
        return str(exact)
    kind, *parts = action_id.split(":")
    template = lookup("actions", kind)
    fields = action_fields(game).get(kind)
    values = _values(template, fields, parts) if template and fields else None
    if values is not None:
        filled = PLACEHOLDER.sub(lambda m: shown(values[m[1]], m[2] or ""), template)
        return phrased(filled, language)
    said = kind.replace("_", " ")
    return f"{said}: {', '.join(map(word, parts))}" if parts else said


_FRENCH = (
    (re.compile(r"(^|[\s(])([dD])e (?=Joueur )"), r"\1\2u "),
    (re.compile(r"(^|[\s(])à (?=Joueur )"), r"\1au "),
    (re.compile(r"(^|[\s(])À (?=Joueur )"), r"\1Au "),
    (re.compile(r"(^|[\s(])([dD])e (?=[AEIOUYÉÈÊ][a-zàâäéèêëïîôöùûü])"), "\\1\\2\u2019"),
)


def phrased(text: str, language: str) -> str:
    """A template filled in, as the language says it (app.js `phrased`): French contracts "de"
    and "à" before a name put in its place ("la carte du Joueur 1", "le tour d\u2019Ana")."""
    if language == "fr":
        for pattern, contracted in _FRENCH:
            text = pattern.sub(contracted, text)
    return text


def starred_text(
    patterns: dict[str, str],
    value: str,
    word: Callable[[str], str],
    seat: Callable[[str], str],
) -> str | None:
    """`value` phrased by the first starred key it fits (words.js `patternMatch`): its parts
    as words, or as `seat`, `letter` or `from1` says; None if no key fits."""
    fitted = _fitted(patterns, value)
    if fitted is None:
        return None
    template, parts = fitted

    def part(m: re.Match[str]) -> str:
        raw, form = parts[int(m[1]) - 1], m[2] or ""
        numbered = _numbered(raw, form)
        if numbered is not None:
            return numbered
        return seat(raw) if form == "seat" else word(raw)

    return PART.sub(part, template)


def _fitted(patterns: dict[str, str], value: str) -> tuple[str, tuple[str, ...]] | None:
    """The template of the first starred key that `value` fits, and the parts its stars stand
    for; a part that the template reads as a number must be one ("r*c*" fits "r0c2", not
    "rocks")."""
    for pattern, template in patterns.items():
        found = "*" in pattern and starred(pattern).fullmatch(value)
        if not found:
            continue
        parts = found.groups()
        numbers = [int(m[1]) for m in PART.finditer(template) if m[2] in NUMBER_FORMS]
        if all(parts[n - 1].isdigit() for n in numbers):
            return template, parts
    return None


def _numbered(value: str, form: str) -> str | None:
    """A whole number counted from 0 as `form` shows it: "from1" from 1, "letter" as a column's
    letters; None for another form or a value that is no number."""
    if form not in ("from1", "letter") or not value.isdigit():
        return None
    return str(int(value) + 1) if form == "from1" else column_letters(int(value))


def column_letters(number: int) -> str:
    """A spreadsheet's column name for 0-based `number`: 0 -> "A", 25 -> "Z", 26 -> "AA"."""
    name = ""
    number += 1
    while number:
        number, left = divmod(number - 1, len(LETTERS))
        name = LETTERS[left] + name
    return name


def _values(template: str, fields: list[str], parts: list[str]) -> dict[str, str] | None:
    """An id's values by field: each field takes a part, and the fields the template calls
    tokens share what is left over (a die "red:point" holds a ":" itself)."""
    wide = {
        name
        for name, modifier in placeholders(template)
        if modifier in ("token", "tokens") or modifier.startswith("token.")
    }
    widening = [name for name in fields if name in wide]
    extra = len(parts) - len(fields)
    if extra < 0 or (extra and not widening) or extra % max(len(widening), 1):
        return None
    each = extra // len(widening) if widening else 0
    values: dict[str, str] = {}
    at = 0
    for name in fields:
        width = 1 + each if name in wide else 1
        values[name] = ":".join(parts[at : at + width])
        at += width
    return values
