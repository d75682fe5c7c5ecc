"""Each game's words (controller/rules/words.py): every id a player may see on the page has its
phrase in English and in French, and a game without a catalogue still reads."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest
from conftest import module_source
from stack_game import StackGame

from controller.rules import GAMES
from controller.rules.api import Game
from controller.rules.guide import guide
from controller.rules.words import (
    LANGUAGES,
    WordsError,
    _load,
    action_fields,
    catalogue,
    column_letters,
    phrased,
    placeholders,
    starred,
    starred_text,
)
from controller.simulate import random_step

BUILT_IN = ("akuma", "voodoo", "takeover", "potions", "mightymania")
GAMES_PLAYED = 3  # random games a game, for the phases and action ids they reach
MOST_STEPS = 400


def played(game: Game) -> tuple[set[str], set[str]]:
    """The phases and action ids that a few short random games reach, chance outcomes drawn
    with their odds, as tests/test_*_random.py do."""
    phases: set[str] = set()
    ids: set[str] = set()
    for seed in range(GAMES_PLAYED):
        rng = random.Random(seed)
        state = game.new_initial_state()
        hidden = game.deal(state, rng)
        for _ in range(MOST_STEPS):
            phases.add(str(game.describe(state).get("phase")))
            if state.is_terminal():
                break
            ids.add(random_step(state, rng, hidden).id)
    return phases, ids


def problem_keys(game: Game) -> dict[str, set[str] | None]:
    """The catalogue keys of the problems that the game's module can say, each with the names
    of its parameters where the source spells them out (None where it passes them on)."""
    tree = ast.parse(module_source(type(game).__module__))
    found: dict[str, set[str] | None] = {}

    def params(node: ast.expr | None) -> set[str] | None:
        if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
            return {k.value for k in node.keys if isinstance(k, ast.Constant)}
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("Problem", "_problem"):
            given = {kw.arg: kw.value for kw in node.keywords}
            at = 2 if node.func.id == "Problem" else 1  # type: ignore[attr-defined]
            key = given.get("key", node.args[at] if len(node.args) > at else None)
            if isinstance(key, ast.Constant):
                found[key.value] = params(given.get("params", node.args[3:4] and node.args[3]))
        # mightymania's (message, key, params) of a spot
        if isinstance(node, ast.Tuple) and len(node.elts) == 3:
            key = node.elts[1]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                found[key.value] = params(node.elts[2])
    return {key: names for key, names in found.items() if key}


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_id_has_words_in_both_languages(name: str) -> None:
    game = GAMES[name]
    words = catalogue(game)
    fields = action_fields(game)
    phases, ids = played(game)
    problems = problem_keys(game)
    info = game.info
    for language in LANGUAGES:
        said = words[language]
        assert set(info.player_names) <= set(said["players"]), language
        assert set(fields) <= set(said["kinds"]), language
        for kind in fields:
            exact = [key for key in said["actions"] if key.partition(":")[0] == kind]
            assert exact, f"{language}: no words for {kind}"
        for key, template in said["actions"].items():
            kind = key.partition(":")[0]
            assert kind in fields, f"{language}: {key} is no action of {name}"
            for field, _ in placeholders(template):
                assert field in fields[kind], f"{language}: {key} has no field {field!r}"
        for action_id in ids:
            kind = action_id.partition(":")[0]
            assert action_id in said["actions"] or kind in said["actions"], action_id
        assert {detail.name for detail in info.details} <= set(said["details"]), language
        assert phases - {"None"} <= set(said["values"]["phase"]), language
        assert phases - {"None", "over"} <= set(said["prompts"]), language
        assert {role.name for role in info.palette} <= set(said["roles"]), language
        assert {option.name for option in info.options} <= set(said["options"]), language
        choices = {
            f"{option.name}:{choice}" for option in info.options for choice in option.choices
        }
        assert set(said.get("option_choices", {})) == choices, language  # each named, no other
        assert set(info.dice_kinds) <= set(said.get("dice", {})), language
        assert set(problems) <= set(said.get("problems", {})), language
        for pattern in said.get("spots", {}):  # each names spots of the game's board
            named = starred(pattern).fullmatch
            assert any(named(spot) for spot in game.spots()), f"{language}: no spot {pattern}"
        for key, template in said.get("problems", {}).items():
            assert key in problems, f"{language}: {key} is no problem of {name}"
            names = problems[key]
            if names is not None:
                used = {field for field, _ in placeholders(template)}
                assert used <= names | {"spot"}, f"{language}: {key} names {used - names}"


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_news_name_details_and_say_every_event_they_record(name: str) -> None:
    """A news template is a detail's ("last_combat") or one of its events' ("last_event:venom"):
    every value that random games give such a detail has its template, in both languages, and
    a template names only the detail's fields."""
    game = GAMES[name]
    news = catalogue(game)["en"].get("news", {})
    details = {key.partition(":")[0] for key in news}
    assert details <= {detail.name for detail in game.info.details}
    seen: list[tuple[str, dict[str, object]]] = []
    for seed in range(GAMES_PLAYED * 4):
        rng = random.Random(seed)
        state = game.new_initial_state()
        hidden = game.deal(state, rng)
        for _ in range(MOST_STEPS):
            described = game.describe(state)
            seen += [(key, described[key]) for key in details if described.get(key)]
            if state.is_terminal():
                break
            random_step(state, rng, hidden)
    assert bool(seen) == bool(details)
    for language in LANGUAGES:
        said = catalogue(game)[language]["news"] if details else {}
        for key, value in seen:
            template = said.get(f"{key}:{value.get('event')}", said.get(key))
            assert template is not None, f"{language}: no news for {key} {value}"
            used = {field for field, _ in placeholders(template)}
            assert used <= set(value), f"{language}: {key} names {used - set(value)}"


def test_a_game_without_words_gets_empty_sections_and_its_fields() -> None:
    game = StackGame()
    assert game.info.words is None
    assert catalogue(game) == {"en": {}, "fr": {}}
    assert action_fields(game) == {"put": ["cell", "token", "twin"], "move": ["src", "dst"]}


def test_languages_that_differ_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.words.toml"
    path.write_text('[en.players]\na = "A"\nb = "B"\n[fr.players]\na = "A"\n')
    with pytest.raises(WordsError, match=r"\[players\] differs between languages: \['b'\]"):
        _load(path)
    path.write_text('[en.actions]\na = "{x|loud}"\n[fr.actions]\na = "{x}"\n')
    with pytest.raises(WordsError, match=re.escape("no such form as |loud")):
        _load(path)


def test_a_grids_cells_are_named_as_on_a_spreadsheet() -> None:
    """Voodoo's and Takeover's cells "rRcC" read as a column's letter and a row's number,
    on the board and in sentences, in both languages; a part that is not a number is no cell."""
    assert [column_letters(n) for n in (0, 6, 25, 26, 27, 51, 52)] == [
        "A",
        "G",
        "Z",
        "AA",
        "AB",
        "AZ",
        "BA",
    ]
    for name in ("voodoo", "takeover"):
        for language in LANGUAGES:
            spots = catalogue(GAMES[name])[language]["spots"]
            said = [starred_text(spots, cell, str, str) for cell in ("r0c0", "r2c6", "r12c3")]
            assert said == ["A1", "G3", "D13"]
            assert starred_text(spots, "rocks", str, str) is None
            assert starred_text(spots, "r0c0.map", str, str) is None  # the camera's, within A1
    seats = {"s*.z*": "{1|seat}'s slot {2}"}
    assert starred_text(seats, "s2.z10", str, lambda n: f"Player {n}") == "Player 2's slot 10"
    assert starred_text(seats, "sx.z10", str, str) is None


@pytest.mark.parametrize("name", BUILT_IN)
def test_no_sentence_a_player_reads_cites_a_clarification(name: str) -> None:
    """The clarifications' ids (MP-3, HT-1) are the project's, cited in code and tests; a player
    reads the rule itself (the walk: "Forgotten capture (MP-3): ...")."""
    cited = re.compile(r"\b(?:AK|BV|HT|MM|MP)-\d+\b")

    def texts(entries: object) -> list[str]:
        if isinstance(entries, str):
            return [entries]
        if isinstance(entries, dict):
            return [text for entry in entries.values() for text in texts(entry)]
        if isinstance(entries, list):
            return [text for entry in entries for text in texts(entry)]
        return []

    for language in LANGUAGES:
        said = [text for text in texts(catalogue(GAMES[name])[language]) if cited.search(text)]
        assert said == [], f"{language}: {said}"
        # "How to play", its page and each phase's help (the walk: "(AK-9)" in both guides).
        how = guide(GAMES[name].info, language)
        said = [text for text in [how.text, *how.phases.values()] if cited.search(text)]
        assert [cited.findall(text) for text in said] == [], language


def test_french_contracts_de_and_a_before_a_seats_name() -> None:
    """A name put in a French template's place: "de Joueur 1" is "du Joueur 1", "à Joueur 2"
    is "au Joueur 2", "de Ana" is "d\u2019Ana"; a square's name ("de A7") is left alone."""
    assert phrased("La carte de Joueur 1", "fr") == "La carte du Joueur 1"
    assert phrased("À Joueur 2 de jouer ; à Joueur 1 ensuite", "fr") == (
        "Au Joueur 2 de jouer ; au Joueur 1 ensuite"
    )
    assert phrased("Le tour de Ana, pion de A7", "fr") == "Le tour d\u2019Ana, pion de A7"
    assert phrased("Player 1 to move", "en") == "Player 1 to move"
