"""Fixtures shared by the test files: a fast simulated config, the daemon's run options, the
sixth game (Dice Race, registered only while a test uses it), and a headless browser."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import dice_race
import pytest
from browser import launch
from hypothesis import HealthCheck, settings
from playwright.sync_api import Browser, Page, sync_playwright

from controller import rules
from controller.config import Config, load_config
from controller.rules.api import Game
from controller.startup import RunOptions

RunOptionsMaker = Callable[..., RunOptions]

# The fuzz tests of the parsers: enough examples to find a traceback, few enough for CI's two
# cores; no deadline, since a loaded CI machine is slow at random moments. A fixture (a server)
# is shared by the examples of a test on purpose.
settings.register_profile(
    "smartboard",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("smartboard")


QUICK_CAMERA: dict[str, Any] = {"camera_fps": 200, "stable_frames": 2}
"""A simulated camera that settles in a hundredth of a second, for the card and dice boards."""


def fast_sim_config(**changes: Any) -> Config:
    """The simulated table with a short debounce and settle time, so that tests move quickly;
    any other field changed."""
    quick = {"debounce_s": 0.005, "settle_s": 0.2}
    return replace(load_config(None).simulated(), **(quick | changes))


REPO = Path(__file__).resolve().parent.parent


def smartboard(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`smartboard ARGS...` run as a user runs it, in its own process, from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def wait_for(check: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    """Poll `check` until it holds; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what or check}")
        time.sleep(0.01)


@pytest.fixture
def sim_config() -> Config:
    return fast_sim_config()


def options_in(folder: Path, **changes: Any) -> RunOptions:
    """RunOptions with the journal and the control socket in `folder`, any field changed."""
    return replace(RunOptions(state_dir=folder, socket_path=folder / "control.sock"), **changes)


@pytest.fixture
def run_options(tmp_path: Path) -> RunOptionsMaker:
    """`options_in` the test's own folder."""
    return lambda **changes: options_in(tmp_path, **changes)


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
