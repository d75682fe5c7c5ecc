"""A past game on the page: the players named in the new-game form, the game kept once the
next one starts, shown again step by step while the live table waits aside."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect
from web_daemon import dashboard, fetch

from controller.config import load_config
from controller.snapshot import hex_colour

PALETTE = {role: hex_colour(rgb) for role, rgb in load_config(None).palette.items()}


def test_a_named_game_is_kept_and_replayed_step_by_step(page: Page, tmp_path: Path) -> None:
    with dashboard(tmp_path, "--game", "akuma", "--seed", "3") as table:
        page.goto(table.page)
        # A name field per seat of the game chosen; the set-up game is abandoned for the new one.
        names = page.locator("#new-names input")
        expect(names).to_have_count(2)
        expect(names.first).to_have_attribute("placeholder", "Hawk Moth")
        names.nth(0).fill(" Ana ")
        names.nth(1).fill("Bob")
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-form button[type=submit]").click()
        expect(page.locator("#past-list li")).to_have_count(1)  # the game it replaced
        snapshot = fetch(f"{table.url}api/snapshot", headers=table.key).json()
        assert snapshot["names"] == ["Ana", "Bob"]

        # Ana rolls 3 + 4, which akumatizes square 7 (AK-3); then the game is abandoned.
        for op, body in (("act", {"id": "choose_dice:2"}), ("roll", {"values": [3, 4]})):
            assert fetch(f"{table.url}api/{op}", body, table.key).json()["ok"]
        assert fetch(f"{table.url}api/new", {"abandon": True}, table.key).json()["ok"]
        kept = page.locator("#past-list li", has_text="Ana, Bob")
        expect(kept).to_contain_text("abandoned · 2 moves")

        # Only a game of the list opens; a query's own op is not obeyed.
        refused = fetch(f"{table.url}api/replay?id=..%2Fweb_token&step=0", headers=table.key)
        assert refused.status == 409 and "no past game" in refused.json()["error"]
        asked = fetch(f"{table.url}api/replay?op=new&abandon=true&step=0", headers=table.key)
        assert asked.status == 409 and 'replay needs "id"' in asked.json()["error"]

        kept.locator("button.replay").click()
        bar = page.locator("#replay-bar")
        expect(bar).to_contain_text("Replaying Capture the Akuma")
        expect(bar).to_contain_text("Ana, Bob")
        expect(page.locator("#replay-step-text")).to_have_text("Step 0 of 2:")
        expect(page.locator("#replay-action")).to_have_text("the set-up")
        # Looked at, not played: no decisions, set-up or pause.
        for hidden in ("#actions-box", "#setup", "#pause"):
            expect(page.locator(hidden)).to_be_hidden()
        square = page.locator('[data-spot="7"]')
        expect(square).to_have_attribute("data-light", PALETTE["civilian"])
        page.locator("#replay-next").click()
        page.locator("#replay-next").click()
        expect(page.locator("#replay-step-text")).to_have_text("Step 2 of 2:")
        expect(page.locator("#replay-action")).to_have_text("Rolled 7")
        expect(square).to_have_attribute("data-light", PALETTE["rolled"])
        expect(page.locator("#replay-next")).to_be_disabled()

        # The live table goes on meanwhile, kept aside.
        assert fetch(f"{table.url}api/act", {"id": "choose_dice:1"}, table.key).json()["ok"]
        page.locator("#replay-step").press("ArrowLeft")
        expect(page.locator("#replay-action")).to_have_text("Roll both dice")
        expect(page.locator("#log li")).to_have_count(1)
        expect(square).to_have_attribute("data-light", PALETTE["civilian"])

        page.locator("#replay-close").click()
        expect(bar).to_be_hidden()
        expect(page.locator("#log li")).to_have_text(["Hawk Moth: Roll one die"])
        expect(page.locator("#setup")).to_be_visible()
        expect(page.locator("#turn")).to_contain_text("roll the die")

        download = fetch(
            f"{table.url}api/record.json?id={kept.get_attribute('data-game-id')}", headers=table.key
        )
        assert download.json()["names"] == ["Ana", "Bob"]
        assert "akuma-" in download.headers["Content-Disposition"]
