"""Fixtures shared by the test files: a fast simulated config, the daemon's run options, the
sixth game (Dice Race, registered only while a test uses it), and a headless browser."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import dice_race
import pytest
from browser import launch
from playwright.sync_api import Browser, Page, sync_playwright

from controller import rules
from controller.config import Config, load_config
from controller.daemon import RunOptions
from controller.rules.api import Game

RunOptionsMaker = Callable[..., RunOptions]


def fast_sim_config(settle_s: float = 0.2) -> Config:
    """The simulated table with a short debounce and settle time and a fast camera, so that
    tests move quickly."""
    return replace(
        load_config(None).simulated(),
        debounce_s=0.005,
        settle_s=settle_s,
        camera_fps=200,
        stable_frames=2,
    )


@pytest.fixture
def sim_config() -> Config:
    return fast_sim_config()


@pytest.fixture
def run_options(tmp_path: Path) -> RunOptionsMaker:
    """RunOptions with the journal and socket in the test's folder, and any field changed."""

    def make(**changes: object) -> RunOptions:
        base = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock")
        return replace(base, **changes)  # type: ignore[arg-type]

    return make


@pytest.fixture
def race() -> Iterator[Game]:
    """Dice Race registered as any game is, and taken off the registry afterwards."""
    rules.register(dice_race.GAME)
    try:
        yield dice_race.GAME
    finally:
        rules.unregister(dice_race.GAME.name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A desktop-sized page whose script must not fail."""
    context = browser.new_context(locale="en-GB", viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], "the page's script failed"
