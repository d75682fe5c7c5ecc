"""A whole game played on the dashboard by taps alone, as a person would on a phone: no bots,
no API calls. The player reads the page's own snapshot to pick a decision (the page shows the
same), then takes it by tapping the board, the chooser and the buttons the page offers."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

Snapshot = dict[str, Any]
TAP_MS = 5000  # a tap on something the page no longer shows gives up after this

Choice = Callable[[Snapshot, list[dict[str, Any]], random.Random], dict[str, Any]]

# After `version`, the page is settled when the table has read every piece laid and the page
# shows it.
SETTLED = """(version) => typeof snap !== "undefined" && snap !== null && snap.version !== version
  && !snap.settling && document.documentElement.dataset.version === String(snap.version)"""


# An id where a player should read words: snake_case, kind:detail, a seat's own name.
RAW_ID = re.compile(r"\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+:[a-z0-9]+|player_\d")


def visible_ids(page: Page) -> list[str]:
    # The log's folded runs (Baron Voodoo's set-up dice) are read too, as a player opens them.
    page.evaluate("document.querySelectorAll('#log details').forEach((d) => { d.open = true; })")
    return sorted(set(RAW_ID.findall(page.inner_text("body"))))


def at_random(snap: Snapshot, actions: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    return rng.choice(actions)


def place(page: Page, spot: str) -> Any:
    """A board square or a spot drawn off the board, not a sub-spot inside a square."""
    return page.locator(f'#board > [data-spot="{spot}"], #other-spots > [data-spot="{spot}"]')


def tap_decision(page: Page, action: dict[str, Any]) -> None:
    """Take `action` as a person would: by pointing at the board, or with its button."""
    wanted = action["id"]
    if action.get("at") is None:
        named = f'[data-action="{wanted}"]'
        button = page.locator(f"#actions {named}")
        group = page.locator("#actions details", has=page.locator(named))
        if group.count() and not group.evaluate("details => details.open"):
            group.locator("summary").click(timeout=TAP_MS)
        button.click(timeout=TAP_MS)
        return
    if action.get("find"):
        # A decision to find (a Potions capture without hints) is guessed: its pieces tapped.
        for piece in [action["at"], *action.get("covers", [])]:
            place(page, piece).click(timeout=TAP_MS)
        return
    place(page, action["at"]).click(timeout=TAP_MS)
    if action.get("to") is not None:
        place(page, action["to"]).click(timeout=TAP_MS)
    chooser = page.locator(f'#chooser[open] [data-action="{wanted}"]')
    here = page.locator(f'#point-help [data-action="{wanted}"]')
    if chooser.count():
        chooser.click(timeout=TAP_MS)
    elif here.count():
        here.click(timeout=TAP_MS)


def put_right(page: Page, snap: Snapshot) -> bool:
    """Tap each spot that does not show what the game expects (the pieces a roll calls for,
    drawn outlined): a reed's piece laid or lifted, a camera spot's token chosen. Whether there
    was anything to put right."""
    fixes = [
        spot
        for spot, s in snap["spots"].items()
        if s["sensor"] != "unsensed" and s.get("sensed") != s.get("expected")
    ]
    for spot in fixes:
        page.locator(f'#table [data-spot="{spot}"]').click(timeout=TAP_MS)
        if snap["spots"][spot]["sensor"] == "camera":
            page.locator('#chooser[open] .choice[data-why="expected"]').click(timeout=TAP_MS)
    return bool(fixes)


def lay_draw(page: Page, snap: Snapshot, rng: random.Random, done: set[str]) -> None:
    """At a chance node read from the board (a card dealt, power cards cleared): tap a spot lit
    for it, and lay there what the chooser offers as the game's next step. `done`: the spots
    laid or found with nothing to offer since the game last moved on, not tapped again, as a
    person clearing a table remembers."""
    camera = [
        s for s, spot in snap["spots"].items() if spot["sensor"] == "camera" and s not in done
    ]
    # Lit for the draw first, then lit at all (the game's own colours on the cards to clear).
    order = {"legal": 0, None: 2}
    for spot in sorted(camera, key=lambda spot: order.get(snap["spots"][spot]["role"], 1)):
        done.add(spot)
        page.locator(f'#table [data-spot="{spot}"]').click(timeout=TAP_MS)
        page.locator("#chooser[open]").wait_for(timeout=TAP_MS)
        offered = page.locator('#chooser[open] .choice[data-why="next"]').all()
        if offered:
            rng.choice(offered).click(timeout=TAP_MS)
            return
        page.locator("#chooser button[value=cancel]").click(timeout=TAP_MS)
        page.locator("#chooser").wait_for(state="hidden", timeout=TAP_MS)
    raise AssertionError("the game waits for a draw that no spot offers")


def play_by_taps(
    page: Page,
    seed: int,
    choose: Choice = at_random,
    limit: int = 2000,
    to_the_end: bool = True,
    before_step: Callable[[int], None] | None = None,
) -> int:
    """Play until the game is over (or, not `to_the_end`, for `limit` steps at most); the
    number of steps taken. `before_step(step)` is called before each step's taps (to turn the
    phone, say). A tap that finds the page gone on (a roll the camera read first) is tried
    again from what the page shows then."""
    rng = random.Random(seed)
    page.wait_for_function(SETTLED, arg=None)
    missed = 0
    done: set[str] = set()
    moves = 0
    for step in range(limit):
        snap: Snapshot = page.evaluate("snap")
        if snap["result"] is not None:
            return step
        if len(snap["log"]) != moves:
            moves = len(snap["log"])
            done.clear()
        drawing = snap["to_move"] == "chance" and snap["dice_wanted"] is None
        if before_step is not None:
            before_step(step)
        try:
            if page.locator("#chooser[open]").count():
                # Left open by a tap the page took for another (a snapshot came in between).
                page.locator("#chooser button[value=cancel]").click(timeout=TAP_MS)
                page.locator("#chooser").wait_for(state="hidden", timeout=TAP_MS)
            if drawing:
                lay_draw(page, snap, rng, done)  # a draw half laid out is no mistake to put right
            elif put_right(page, snap):
                pass
            elif snap["to_move"] == "chance":
                page.locator("#roll-random").click(timeout=TAP_MS)
            else:
                wanted = choose(snap, snap["actions"], rng)["id"]
                tap_decision(page, next(a for a in snap["actions"] if a["id"] == wanted))
                # The taps played the decision meant, not another.
                played = len(snap["log"])
                page.wait_for_function(f"snap.log.length > {played}", timeout=TAP_MS)
                assert page.evaluate(f"snap.log[{played}]") == wanted
        except PlaywrightTimeoutError as error:
            missed += 1
            print(f"step {step}: {error}"[:1500])
            assert missed < 5, f"the page stopped answering taps: {snap['message']}"
            continue
        missed = 0
        page.wait_for_function(SETTLED, arg=snap["version"])
    assert not to_the_end, f"no end after {limit} steps"
    return limit
