"""The dashboard's pictures in the README and docs/: each game played a while by the bots on
the simulated table, paused, and photographed in headless Chromium (Debian's, as the browser
tests use); and the table test, run on a simulated table built with faults (`--table-test`).

    .venv/bin/python docs/screenshots.py [--seconds 3] [GAME ...]
    .venv/bin/python docs/screenshots.py --table-test [--size 390x844]
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import launch  # noqa: E402  (the tests' own launcher: Debian's chromium)
from daemon_run import call, serving  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from controller.config import load_config  # noqa: E402
from controller.daemon import RunOptions  # noqa: E402
from controller.rules import GAMES  # noqa: E402
from hardware.leds import SimStrip  # noqa: E402
from hardware.reeds import ReedBank, WiringFaults  # noqa: E402


def photograph(game: str, seconds: float) -> Path:
    out = HERE / f"dashboard-{game}.jpg"
    with tempfile.TemporaryDirectory() as state:
        command = [sys.executable, "-m", "controller", "run", "--sim", "--bots", "--no-show"]
        daemon = subprocess.Popen(
            [
                *command,
                "--pace",
                "0.05",
                "--game",
                game,
                "--state-dir",
                state,
                "--web",
                "127.0.0.1:0",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert daemon.stdout is not None
            url = daemon.stdout.readline().split()[-1]
            token = (Path(state) / "web_token").read_text().strip()
            time.sleep(seconds)  # the bots play on meanwhile
            # Held still for the picture; a game already over has nothing to pause.
            subprocess.run(
                [sys.executable, "-m", "controller", "pause", "--state-dir", state],
                capture_output=True,
            )
            with sync_playwright() as playwright:
                browser = launch(playwright)
                page = browser.new_page(viewport={"width": 1200, "height": 860})
                page.goto(f"{url}?token={token}")
                page.wait_for_selector("#board [data-spot]")
                # The cards' pictures drawn too.
                page.wait_for_function("[...document.images].every((image) => image.complete)")
                page.screenshot(path=str(out), type="jpeg", quality=80)
                browser.close()
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait()
    return out


def photograph_table_test(width: int, height: int) -> Path:
    """The table test on Hostile Takeover's simulated table, with a dead LED and two crossed
    reeds: the check's report, the live map with the faults marked, a spot lit."""
    # The README's is the desktop's; a phone's is only looked at.
    out = HERE / "table-test.jpg" if width > 700 else HERE.parent / "build" / "table-test-phone.jpg"
    out.parent.mkdir(exist_ok=True)
    config = replace(load_config(None).simulated(), game="takeover", web_listen="127.0.0.1:0")
    with tempfile.TemporaryDirectory() as state:
        options = RunOptions(state_dir=Path(state), socket_path=Path(state) / "control.sock")
        with serving(config, options) as daemon, sync_playwright() as playwright:
            assert call(daemon, op="pause")["ok"] and daemon.web is not None
            strip, reeds = daemon.strip, daemon.reeds
            assert isinstance(strip, SimStrip) and isinstance(reeds, ReedBank)
            strip.stuck[40] = (0, 0, 0)
            reeds.faults = WiringFaults(crossed=(("r4c5", "r4c6"),))
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(daemon.web.url(with_token=True))
            page.click("#tools-open")
            page.click("#test-run")
            page.wait_for_selector("#test-summary[data-passed=false]")
            # A piece laid on the board meanwhile: its reeds close on the live map.
            for spot in ("r6c3", "r6c4", "r7c3"):
                reeds.drive(spot, True)
            page.wait_for_function(
                "document.querySelectorAll('#test-map [data-closed=true]').length === 3"
            )
            page.click('#test-map [data-spot="r3c4"]')
            page.wait_for_selector("#test-map [data-lit]")
            if width <= 700:  # a phone: the report's top in view
                page.locator("#test-summary").scroll_into_view_if_needed()
            page.screenshot(path=str(out), type="jpeg", quality=65)
            browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="all if none given")
    parser.add_argument("--seconds", type=float, default=3.0, help="how long the bots play first")
    parser.add_argument("--table-test", action="store_true", help="the table test's picture")
    parser.add_argument("--size", default="1280x900", help="its page's WIDTHxHEIGHT")
    args = parser.parse_args()
    if args.table_test:
        width, _, height = args.size.partition("x")
        print(photograph_table_test(int(width), int(height)))
        return
    unknown = set(args.games) - set(GAMES)
    if unknown:
        parser.error(f"no game {', '.join(sorted(unknown))}; known: {', '.join(sorted(GAMES))}")
    for game in args.games or sorted(GAMES):
        print(photograph(game, args.seconds))


if __name__ == "__main__":
    main()
