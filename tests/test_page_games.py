"""Whole games played on the page by taps alone (issue 20), at a desktop's size and a phone's:
no bots and no API calls, only what a person taps: the board, the chooser and the buttons the
page offers (tests/page_play.py). Screenshots are kept as CI artefacts."""

from __future__ import annotations

from pathlib import Path

import pytest
from page_play import play_by_taps
from playwright.sync_api import Browser, expect
from web_daemon import dashboard

ARTEFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artifacts"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
# A quicker simulated camera and reeds than the defaults: the rules and the page are the same.
QUICK = "[reeds]\ndebounce_ms = 5\n[camera]\nfps = 60\nstable_frames = 2\n"


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("game", ["akuma", "potions"])
def test_a_whole_game_is_played_by_taps(
    browser: Browser, tmp_path: Path, game: str, size: str
) -> None:
    width, height = SIZES[size]
    config = tmp_path / "quick.toml"
    config.write_text(QUICK)
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        with dashboard(
            tmp_path / "state", "--game", game, "--seed", "3", "--config", str(config)
        ) as table:
            page.goto(table.page)
            steps = play_by_taps(page, seed=1)
            expect(page.locator("#result")).to_be_visible()
            result = page.evaluate("snap.result")
            assert result is not None and len(result["returns"]) == 2
            assert steps > 10
            ARTEFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTEFACTS / f"game-{game}-{size}.png"), full_page=True)
    finally:
        page.close()
