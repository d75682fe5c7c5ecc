"""A whole game played on the dashboard by taps alone, as a person would on a phone: no bots,
no API calls. The player reads the page's own snapshot to pick a decision (the page shows the
same), then takes it by tapping the board, the chooser and the buttons the page offers."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

Snapshot = dict[str, Any]
TAP_MS = 5000  # a tap on something the page no longer shows gives up after this

Choice = Callable[[Snapshot, list[dict[str, Any]], random.Random], dict[str, Any]]

# After `version`, the page is settled when the table has read every piece laid.
SETTLED = """(version) => typeof snap !== "undefined" && snap !== null && snap.version !== version
  && !snap.settling"""


def at_random(snap: Snapshot, actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    return rng.choice(actions)


def place(page: Page, spot: str) -> Any:
    """A board square or a spot drawn off the board, not a sub-spot inside a square."""
    return page.locator(f'#board > [data-spot="{spot}"], #other-spots > [data-spot="{spot}"]')


def tap_decision(page: Page, action: dict[str, Any]) -> None:
    """Take `action` as a person would: by pointing at the board, or with its button."""
    wanted = action["id"]
    if action.get("at") is None:
        button = page.locator(f'#actions [data-action="{wanted}"]')
        group = page.locator("#actions details", has=button)
        if group.count() and not group.get_attribute("open"):
            group.locator("summary").click()
        button.click()
        return
    place(page, action["at"]).click()
    if action.get("to") is not None:
        place(page, action["to"]).click()
    chooser = page.locator(f'#chooser[open] [data-action="{wanted}"]')
    here = page.locator(f'#point-help [data-action="{wanted}"]')
    if chooser.count():
        chooser.click()
    elif here.count():
        here.click()


def put_right(page: Page, snap: Snapshot) -> bool:
    """Tap each spot that does not show what the game expects (the pieces a roll calls for,
    drawn outlined): a reed's piece laid or lifted, a camera spot's token chosen. Whether there
    was anything to put right."""
    fixes = {
        spot: s["expected"]
        for spot, s in snap["spots"].items()
        if s["sensor"] != "unsensed" and s.get("sensed") != s.get("expected")
    }
    for spot, expected in fixes.items():
        page.locator(f'[data-spot="{spot}"]').click()
        if snap["spots"][spot]["sensor"] == "camera":
            page.locator("#chooser[open] .choice").filter(has_text=expected or "").first.click()
    return bool(fixes)


def lay_draw(page: Page, rng: random.Random) -> None:
    """At a chance node read from the board (a card dealt): tap where the next card goes, then
    what the chooser offers."""
    lit = page.locator('#table [data-sensor="camera"][data-role="legal"]')
    spots = lit.all() or page.locator('#table [data-sensor="camera"]').all()
    for spot in spots:
        spot.click()
        page.locator("#chooser[open]").wait_for(timeout=TAP_MS)
        offered = page.locator("#chooser[open] .choice")
        if offered.count():
            offered.nth(rng.randrange(offered.count())).click()
            return
        page.locator("#chooser button[value=cancel]").click()
    raise AssertionError("the game waits for a draw that no spot offers")


def play_by_taps(page: Page, seed: int, choose: Choice = at_random, limit: int = 2000) -> int:
    """Play until the game is over; the number of steps taken. A tap that finds the page gone
    on (a roll the camera read first) is tried again from what the page shows then."""
    rng = random.Random(seed)
    page.wait_for_function(SETTLED, arg=None)
    missed = 0
    for step in range(limit):
        snap: Snapshot = page.evaluate("snap")
        if snap["result"] is not None:
            return step
        try:
            if put_right(page, snap):
                pass
            elif snap["to_move"] == "chance":
                if snap["dice_wanted"] is not None:
                    page.locator("#dice-wanted button.die").first.click(timeout=TAP_MS)
                else:
                    lay_draw(page, rng)
            else:
                tap_decision(page, choose(snap, snap["actions"], rng))
        except PlaywrightTimeoutError as error:
            missed += 1
            print(f"step {step}: {error}"[:400])
            assert missed < 5, f"the page stopped answering taps: {snap['message']}"
            continue
        missed = 0
        page.wait_for_function(SETTLED, arg=snap["version"])
    raise AssertionError(f"no end after {limit} steps")
