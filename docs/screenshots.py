"""The README's pictures of the dashboard: each game played a while by the bots on the simulated
table, paused, and photographed in headless Chromium (Debian's, as the browser tests use).

    .venv/bin/python docs/screenshots.py [--seconds 3] [GAME ...]
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import launch  # noqa: E402  (the tests' own launcher: Debian's chromium)
from playwright.sync_api import sync_playwright  # noqa: E402

from controller.rules import GAMES  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME", help="all if none given")
    parser.add_argument("--seconds", type=float, default=3.0, help="how long the bots play first")
    args = parser.parse_args()
    unknown = set(args.games) - set(GAMES)
    if unknown:
        parser.error(f"no game {', '.join(sorted(unknown))}; known: {', '.join(sorted(GAMES))}")
    for game in args.games or sorted(GAMES):
        print(photograph(game, args.seconds))


if __name__ == "__main__":
    main()
