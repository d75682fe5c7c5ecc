"""How to play: every game's guide in English and French, the help of every phase it can show,
and the ways to reach them (the control op `guide`, `smartboard how-to-play`)."""

from __future__ import annotations

import importlib
import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import fast_sim_config, smartboard
from daemon_run import call, serving

from controller.cli import main
from controller.cli.how_to_play import render
from controller.daemon import RunOptions
from controller.rules import GAMES
from controller.rules.api import Game
from controller.rules.guide import LANGUAGES, SECTIONS, GuideError, guide
from controller.rules.words import catalogue
from controller.simulate import random_step

GUIDED = [name for name, game in GAMES.items() if game.info.guide]
# A random game of each, chance sampled, and each set-up of Baron Voodoo: the phases they show.
PLAYS = [(name, {}) for name in GUIDED] + [("voodoo", {"setup": "place"})]


def test_every_built_in_game_has_a_guide() -> None:
    assert set(GUIDED) == {"akuma", "voodoo", "takeover", "potions", "mightymania"}


def declared_phases(game: Game) -> set[str]:
    """The values of the game's `Phase` enum, for a rules module that has one, or the phases it
    describes beside them (`DESCRIBED_PHASES`: Baron Voodoo's start with no capture open)."""
    module = importlib.import_module(type(game).__module__)
    described = getattr(module, "DESCRIBED_PHASES", None)
    if described is not None:
        return set(described)
    phases = getattr(module, "Phase", None)
    return {phase.value for phase in phases} if phases is not None else set()


def phases_shown(game: Game, options: dict[str, object], seed: int) -> set[str]:
    """Every "phase" detail a random game shows, from its first position to its last."""
    rng = random.Random(seed)
    state = game.new_initial_state(options)
    hidden = game.deal(state, rng)
    shown = {game.describe(state)["phase"]}
    while not state.is_terminal():
        random_step(state, rng, hidden)
        shown.add(game.describe(state)["phase"])
    return shown


@pytest.mark.parametrize(("name", "options"), PLAYS)
def test_every_phase_a_game_shows_has_help_in_both_languages(
    name: str, options: dict[str, object]
) -> None:
    game = GAMES[name]
    declared = declared_phases(game)
    shown = phases_shown(game, options, seed=7)
    assert shown <= declared or not declared
    for lang in LANGUAGES:
        helps = guide(game.info, lang).phases
        assert shown | declared <= set(helps), f"{name} {lang}: no help for a phase"
        # No help for a phase the game never has: a renamed phase leaves none behind.
        assert not declared or set(helps) == declared
        assert all(len(text) < 240 for text in helps.values()), "a sentence or two, not a page"


@pytest.mark.parametrize("name", GUIDED)
def test_the_help_of_a_phase_shows_players_no_clarification_id(name: str) -> None:
    """The help of "what to do now" is read by players mid-game: "(HT-5)" means nothing to
    them. The ids stay in the code, the tests and the guide pages."""
    for lang in LANGUAGES:
        helps = guide(GAMES[name].info, lang).phases
        assert helps and not [t for t in helps.values() if re.search(r"\b[A-Z]{2}-\d+", t)]


@pytest.mark.parametrize("name", GUIDED)
def test_every_guide_has_its_sections_in_both_languages_in_the_subset_drawn(name: str) -> None:
    info = GAMES[name].info
    pages = {lang: guide(info, lang) for lang in LANGUAGES}
    for lang, page in pages.items():
        lines = page.text.splitlines()
        assert lines[0].startswith(f"# {page.title}"), lines[0]
        assert tuple(line[3:] for line in lines if line.startswith("## ")) == SECTIONS[lang]
        for line in lines:
            # What the terminal and the page draw: no nested list, link, table, quote, image.
            assert not re.match(r"\s+(- |\d+\. )|>|\||!?\[", line), f"{name}.{lang}: {line}"
            assert not line.startswith("###"), line
            # Nor *one star*, which the page and the terminal show as it is (the walk).
            assert not re.search(r"(?<![*\w])\*[^*\s][^*]*\*(?![*\w])", line), line
        assert f"smartboard how-to-play {name}" in page.text


@pytest.mark.parametrize("name", GUIDED)
def test_the_french_help_names_the_seats_as_the_page_does(name: str) -> None:
    """The help beside the decisions, and the guide but for a gloss in brackets, call a seat
    what the page's words call it ("Papillombre : posez un piège", not "Hawk Moth pose")."""
    game = GAMES[name]
    words = catalogue(game)
    page = guide(game.info, "fr")
    for seat, english in words["en"].get("players", {}).items():
        if words["fr"]["players"][seat] == english:
            continue
        assert not [text for text in page.phases.values() if english in text], (name, english)
        assert english not in re.sub(r"\([^)]*\)", "", page.text), (name, english)


def test_takeover_in_french_claims_with_one_verb() -> None:
    """HT-5's claim is "revendiquer" in the words (the decision, the header's prompt) and so in
    the help and the guide: a player reading "conquérez" beside "revendiquez" looks for two
    actions."""
    game = GAMES["takeover"]
    words = catalogue(game)["fr"]
    page = guide(game.info, "fr")
    assert words["actions"]["claim"].startswith("Revendiquer")
    assert "revendiquez" in words["prompts"]["turn"] and "revendiquez" in page.phases["turn"]
    said = [json.dumps(words, ensure_ascii=False), page.text, *page.phases.values()]
    assert not [text for text in said if "conqu" in text.lower()]


def test_a_guide_refuses_an_unknown_language_and_a_game_without_one() -> None:
    with pytest.raises(GuideError, match="languages: en, fr"):
        guide(GAMES["akuma"].info, "de")
    with pytest.raises(GuideError, match="has no guide"):
        guide(replace(GAMES["akuma"].info, guide=""), "en")


def test_the_terminal_draws_the_markdown() -> None:
    text = "# Title\n\nA **bold** word and `code`.\n\n- one\n  two\n- three\n\n1. first"
    assert render(text, 40, bold=False) == (
        "Title\n=====\n\nA bold word and code.\n\n  • one two\n  • three\n\n  1. first\n"
    )
    assert "\033[1mbold\033[0m" in render(text, 40, bold=True)


def test_how_to_play_without_a_daemon(capsys: pytest.CaptureFixture[str]) -> None:
    done = smartboard("how-to-play", "potions", "--lang", "fr")
    assert done.returncode == 0, done.stderr
    assert "Le but\n------" in done.stdout and "**" not in done.stdout
    # No GAME and no table: the command says to name one, naming them all.
    assert main(["how-to-play", "chess"]) == 2
    assert "known games: akuma, mightymania" in capsys.readouterr().err
    assert main(["how-to-play", "--state-dir", "/nonexistent", "--lang", "en"]) == 2
    assert "name one (akuma, mightymania, potions, takeover, voodoo)" in capsys.readouterr().err


def test_the_guide_op_and_the_command_ask_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=3)
    with serving(fast_sim_config(), options) as daemon:
        reply = call(daemon, op="guide", lang="fr")
        assert reply["ok"] and (reply["game"], reply["lang"]) == ("akuma", "fr")
        assert reply["title"] == "Capture l'Akuma" and "## Le but" in reply["guide"]
        assert reply["phases"]["choose_dice"].startswith("Lancez un dé ou deux")
        other = call(daemon, op="guide", game="mightymania")
        assert other["lang"] == "en" and "## Goal" in other["guide"]
        assert "unknown game 'chess'" in call(daemon, op="guide", game="chess")["error"]
        assert "languages: en, fr" in call(daemon, op="guide", lang="de")["error"]
        # With no GAME, the command prints the guide of the game on the table.
        assert main(["how-to-play", "--state-dir", str(tmp_path), "--lang", "en"]) == 0
        printed = capsys.readouterr().out
    assert printed.startswith("Capture the Akuma: how to play\n====")
