"""How to play on the page, in Chromium: the guide's dialog in French and the phase's help."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect
from web_daemon import dashboard


def test_the_guide_and_the_phase_help_in_french(page: Page, tmp_path: Path) -> None:
    with dashboard(tmp_path, "--game", "potions", "--seed", "3") as table:
        page.goto(table.page)
        help_box = page.locator("#phase-help")
        # The set-up deal of Multipli Potion: its help, in English first.
        expect(help_box).to_contain_text("lay one card face up in the first slot")
        page.locator("#lang").select_option("fr")
        expect(help_box.locator("h2")).to_have_text("À faire maintenant")
        expect(help_box).to_contain_text("posez une carte face visible")

        page.locator("#guide-open").click()
        guide = page.locator("#guide")
        expect(guide).to_be_visible()
        expect(guide.locator("h2")).to_contain_text("Multipli Potion")
        expect(guide.locator("h3")).to_have_text(
            [
                "Le but",
                "Le matériel",
                "La mise en place",
                "Un tour",
                "La fin de la partie",
                "Sur cette table",
            ]
        )
        expect(guide.locator("li strong").first).to_be_visible()  # Markdown drawn, not shown
        expect(guide).not_to_contain_text("**")
        guide.locator("button[value=close]").click()
        expect(guide).to_be_hidden()

        # The cards laid out: French contracts "de" and "à" before a seat's name.
        page.locator("#lay-out").click()
        expect(page.locator("#secrets-title")).to_have_text(
            "Les cartes du Joueur 1, que les autres ne voient pas"
        )
        expect(page.locator("#message")).to_contain_text("au Joueur 1 de jouer")
