"""Debian's headless Chromium, driven by Playwright: never a browser of Playwright's own, which
cannot be downloaded here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Playwright

CHROMIUM = Path("/usr/bin/chromium")
# What works as root on a headless machine; no network chatter of Chromium's own.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright: Playwright) -> Browser:
    if not CHROMIUM.exists():
        raise RuntimeError("the browser tests need Debian's chromium: apt-get install chromium")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)


def measure_all(page: Page, selector: str, script: str) -> Any:
    """Run `script` over the nodes matching `selector`, found and measured in one script.

    Locator.evaluate_all finds the nodes and then runs the script in a second round trip: a redraw
    in between leaves it measuring detached nodes, whose boxes are all zero."""
    return page.evaluate(
        f"selector => ({script})([...document.querySelectorAll(selector)])", selector
    )
