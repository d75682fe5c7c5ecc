"""Whole games played on the page by taps alone (issue 20), at a desktop's size and a phone's
by turns, ten steps each (one game at each size apart took a fifth of the test suite's time,
and the two played the same game): no bots and no API calls, only what a person taps: the
board, the chooser and the buttons the page offers (tests/page_play.py). At the end, no id
shows where a player reads words, in English or French. Screenshots at both sizes are kept as
CI artefacts."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from page_play import Choice, at_random, play_by_taps, visible_ids
from playwright.sync_api import Browser, expect
from web_daemon import dashboard

ARTEFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artifacts"
DATA = Path(__file__).resolve().parent / "data"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
STEPS_AT_A_SIZE = 10
# A quicker simulated camera and reeds than the defaults: the rules and the page are the same.
QUICK = "[reeds]\ndebounce_ms = 5\n[camera]\nfps = 60\nstable_frames = 2\n"


def _cell(name: str) -> tuple[int, int]:
    found = re.match(r"r(\d+)c(\d+)", name)
    assert found is not None, name
    return int(found[1]), int(found[2])


def toward_combat(
    snap: dict[str, Any], actions: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """A Hostile Takeover player who fights: random play wanders for 1,400 decisions, while
    a game ends when one player is left (HT-6). Attack when it can, else mostly step towards
    the nearest other pawn (HT-5's eight directions)."""
    attacks = [a for a in actions if a["id"].startswith("attack")]
    if attacks:
        return rng.choice(attacks)
    me = snap["to_move"]
    others = [
        _cell(cell) for who, cell in (snap["details"]["pawns"] or {}).items() if who != me and cell
    ]
    moves = [a for a in actions if a["id"].startswith("move") and a["to"]]
    if not (others and moves) or rng.random() < 0.1:
        return rng.choice(actions)

    def distance(action: dict[str, Any]) -> int:
        r, c = _cell(action["to"])
        return min(max(abs(r - o[0]), abs(c - o[1])) for o in others)

    nearest = min(map(distance, moves))
    return rng.choice([a for a in moves if distance(a) == nearest])


PLAYERS: dict[str, Choice] = {
    "akuma": at_random,
    "mightymania": at_random,
    "potions": at_random,
    "takeover": toward_combat,
    "voodoo": at_random,
}
# Baron Voodoo to a house target of 6 points (BV-11's rule data, tests/data/voodoo), Mightymania
# with one life a card (MM-1's deck files, tests/data/mightymania), Multipli Potion with the
# green monsters only (its `colours` option): the same games and page, in a third or a half of
# the moves.
SHORT_SQUADS = ",".join(
    str(DATA / "mightymania" / f"{n}-one-life.toml") for n in ("titans", "rogues")
)
OPTIONS = {
    "voodoo": ["--option", f"rules={DATA / 'voodoo' / 'short_game.toml'}"],
    "mightymania": ["--option", f"decks={SHORT_SQUADS}"],
    "potions": ["--option", "colours=green"],
}


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_whole_game_is_played_by_taps(browser: Browser, tmp_path: Path, game: str) -> None:
    config = tmp_path / "quick.toml"
    config.write_text(QUICK)
    sizes = [dict(zip(("width", "height"), SIZES[size], strict=True)) for size in sorted(SIZES)]
    page = browser.new_page(viewport=sizes[0])

    def turn_the_screen(step: int) -> None:
        page.set_viewport_size(sizes[step // STEPS_AT_A_SIZE % len(sizes)])

    try:
        with dashboard(
            tmp_path / "state",
            *("--game", game, "--seed", "3", "--config", str(config)),
            *OPTIONS.get(game, []),
        ) as table:
            page.goto(table.page)
            steps = play_by_taps(page, seed=1, choose=PLAYERS[game], before_step=turn_the_screen)
            assert steps > STEPS_AT_A_SIZE  # taps at both sizes
            expect(page.locator("#result")).to_be_visible()
            result = page.evaluate("snap.result")
            assert result is not None and len(result["returns"]) == 2  # both seats scored
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            for size in sorted(SIZES):
                width, height = SIZES[size]
                page.set_viewport_size({"width": width, "height": height})
                if (game, size) == ("voodoo", "phone"):
                    # Its 7 columns of dice fit a 390 px phone: none is out of view or overflows.
                    board = "document.getElementById('board')"
                    assert page.evaluate(f"{board}.scrollWidth <= {board}.clientWidth")
                page.screenshot(path=str(ARTEFACTS / f"game-{game}-{size}.png"), full_page=True)
            # The whole game's log, the result and the details, in words in both languages.
            for language in ("en", "fr"):
                page.locator("#lang").select_option(language)
                expect(page.locator("html")).to_have_attribute("lang", language)
                assert visible_ids(page) == [], language
    finally:
        page.close()
