"""The dashboard in a real browser: Debian's headless Chromium, driven by Playwright, against
simulated daemons. Playwright never downloads a browser of its own here."""

from __future__ import annotations

import re
from pathlib import Path

from browser import measure_all
from dice_photos import photos
from page_play import RAW_ID, visible_ids
from playwright.sync_api import Page, expect
from web_daemon import dashboard, fetch

from controller.config import load_config
from controller.journal import Journal
from controller.snapshot import hex_colour

ARTEFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artifacts"
PALETTE = {role: hex_colour(rgb) for role, rgb in load_config(None).palette.items()}


def test_akuma_played_by_clicking(page: Page, tmp_path: Path) -> None:
    with dashboard(tmp_path, "--game", "akuma", "--seed", "3") as table:
        page.goto(table.page)
        root = page.locator("html")
        expect(root).to_have_attribute("data-game", "akuma")
        expect(root).to_have_attribute("data-to-move", "hawkmoth")
        expect(page.locator('[data-spot="1"]')).to_have_attribute("data-light", PALETTE["civilian"])

        # Hawk Moth rolls two dice (AK-3), typed in: 3 + 4 akumatizes square 7.
        page.locator('[data-action="choose_dice:2"]').click()
        expect(page.locator("#turn")).to_have_text("Turn 1 · Hawk Moth: roll both dice")
        # The dice start unset: the form is not sent until each one is set.
        expect(page.locator("#dice-inputs select:invalid")).to_have_count(2)
        page.locator("#roll-form button[type=submit]").click()
        page.locator('#dice-inputs select[name="die0"]').select_option("3")
        page.locator("#roll-form button[type=submit]").click()
        expect(page.locator("#log li")).to_have_count(1)
        page.locator('#dice-inputs select[name="die0"]').select_option("3")
        page.locator('#dice-inputs select[name="die1"]').select_option("4")
        page.locator("#roll-form button[type=submit]").click()
        # The roll under the name of the side that threw it (AK-3).
        expect(page.locator("#log li").last).to_have_text("Hawk Moth: Rolled 7")
        expect(root).to_have_attribute("data-to-move", "ladybug")
        expect(page.locator('[data-spot="7"]')).to_have_attribute("data-light", PALETTE["rolled"])
        # A legend says what the colours lit now mean.
        expect(page.locator("#legend li", has_text="rolled")).to_have_count(1)
        # And a mark beside the colour, as the terminal draws it (AK's "rolled" is "+").
        expect(page.locator('[data-spot="7"] > .mark')).to_have_text("+")
        akuma = page.locator('[data-spot="7.akuma"]')
        expect(akuma).to_have_attribute("data-expected", "piece")
        expect(akuma).not_to_have_attribute("data-sensed", re.compile(".*"))

        # The marker and the akuma go on square 7: clicks on the simulated reeds.
        akuma.click()
        page.locator('[data-spot="7.hawkmoth"]').click()
        expect(akuma).to_have_attribute("data-sensed", "piece")
        expect(akuma).to_have_attribute("data-light", PALETTE["akuma"])
        expect(page.locator('[data-spot="7.hawkmoth"]')).to_have_attribute(
            "data-light", PALETTE["hawkmoth"]
        )
        expect(page.locator("#fixes")).to_be_hidden()

        # Ladybug rolls one die, with the simulated table's Roll button.
        page.locator('[data-action="choose_dice:1"]').click()
        page.locator("#roll-random").click()
        expect(page.locator("#log li")).to_have_count(4)
        expect(page.locator("#log li").last).to_have_text(re.compile(r"Rolled [1-6]$"))

        # A roll the simulated table drew was not misread: no "Misread?" under it.
        expect(page.locator("#correct-form")).to_be_hidden()
        # A refused request shows the daemon's reason.
        page.evaluate("post('correct', {values: [9, 9, 9]})")
        expect(page.locator("#error")).to_be_visible()
        expect(page.locator("#error")).not_to_be_empty()

        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTEFACTS / "dashboard.png"), full_page=True)

        # Paused and resumed from the page.
        page.locator("#pause").click()
        expect(page.locator("#pause")).to_have_text("Resume")
        expect(page.locator("#turn")).to_contain_text("paused")
        # What to do now no longer gives the move (the walk: a player made it, and was refused).
        expect(page.locator("#phase-help")).to_contain_text("The game is paused")
        page.locator("#pause").click()
        expect(page.locator("#pause")).to_have_text("Pause")

        # A new game, abandoning this one once the players confirm.
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-form button").click()
        expect(page.locator("#log li")).to_have_count(0)
        expect(page.locator("html")).to_have_attribute("data-to-move", "hawkmoth")

        # In French, and remembered.
        page.locator("#lang").select_option("fr")
        expect(page.locator("#new-form button")).to_have_text("Commencer")
        page.reload()
        expect(page.locator("#log-box h2")).to_have_text("Journal de la partie")
        expect(page.locator("#new-form button")).to_have_text("Commencer")


def test_a_game_of_bots_is_served_with_its_nine_squares(page: Page, tmp_path: Path) -> None:
    """The acceptance: `smartboard run --sim --bots --game akuma --pace 0.3 --web ...`."""
    with dashboard(tmp_path, "--bots", "--game", "akuma", "--pace", "0.3") as table:
        page.goto(table.page)
        expect(page.locator("html")).to_have_attribute("data-game", "akuma")
        squares = page.locator("#board > [data-spot]")
        expect(squares).to_have_count(9)
        assert squares.evaluate_all("nodes => nodes.map(n => n.dataset.spot)") == [
            str(n) for n in range(1, 10)
        ]
        # The bots play on: each move is pushed to the open page.
        page.wait_for_function("document.querySelectorAll('#log li').length >= 3")


def test_the_page_opens_with_its_token_only_on_loopback_too(page: Page, tmp_path: Path) -> None:
    """Any local user can reach 127.0.0.1: the address is no proof (issue 19)."""
    with dashboard(tmp_path, "--game", "akuma") as table:
        refused = page.goto(table.url)
        assert refused is not None and refused.status == 401
        # A person reads what to do, with the command for this table's state directory (the
        # walk: JSON, and a command that failed without --state-dir).
        asked = f"`smartboard dashboard --state-dir {tmp_path}`"
        said = f"this dashboard needs its token: {asked} on the table's machine"
        expect(page.locator("body")).to_contain_text(said)
        assert f"dashboard: {asked} prints its address" in table.printed[1]
        page.goto(table.page)
        assert page.url == table.url  # the token left the address bar for a cookie
        expect(page.locator("html")).to_have_attribute("data-game", "akuma")
        page.locator('[data-action="choose_dice:1"]').click()
        # The page's own requests carried the cookie, or the game would not have moved.
        expect(page.locator("#log li")).to_have_count(1)


def test_rows_of_different_lengths_keep_to_their_own_rows(page: Page, tmp_path: Path) -> None:
    """Mightymania's rows of 5 and 4 cards: a shorter row never flows into the next one."""
    with dashboard(tmp_path, "--game", "mightymania") as table:
        page.goto(table.page)
        spots = ("s2.r1", "s2.c4", "s2.c1", "s1.c1", "s1.r1")
        for spot in spots:
            expect(page.locator(f'[data-spot="{spot}"]')).to_be_visible()
        # Measured in one script: a redraw between two measures would detach a node.
        boxes = page.evaluate(
            "spots => Object.fromEntries(spots.map(spot => [spot, document.querySelector("
            '`[data-spot="${spot}"]`).getBoundingClientRect().toJSON()]))',
            list(spots),
        )
        # s2.c1 starts the second row, s1.c1 the third: each under the row above, at its left.
        assert boxes["s2.c1"]["x"] == boxes["s1.c1"]["x"] == boxes["s1.r1"]["x"]
        assert boxes["s2.c4"]["y"] == boxes["s2.c1"]["y"] < boxes["s1.c1"]["y"]
        assert boxes["s2.r1"]["y"] < boxes["s2.c1"]["y"]


def test_on_a_phone_every_spot_can_be_tapped(page: Page, tmp_path: Path) -> None:
    """At 390 px wide every spot a finger can place a piece on is at least 44 px each way, and
    a tap on one lays a piece there."""
    page.set_viewport_size({"width": 390, "height": 844})
    with dashboard(tmp_path, "--game", "akuma") as table:
        page.goto(table.page)
        spots = page.locator(".placeable")
        expect(spots.first).to_be_visible()
        sizes = measure_all(
            page,
            ".placeable",
            "nodes => nodes.map(n => [n.dataset.spot, n.getBoundingClientRect().width,"
            " n.getBoundingClientRect().height])",
        )
        assert len(sizes) == 54  # 45 reed spots and the 9 cards the camera reads
        assert [spot for spot, width, height in sizes if min(width, height) < 44] == []
        trap = page.locator('[data-spot="9.trap"]')
        trap.click()  # scrolls it into view, again if a redraw replaced it meanwhile
        expect(trap).to_have_attribute("data-sensed", "piece")
        # Reached by the keyboard too: focused, Enter lays a piece as a tap does.
        other = page.locator('[data-spot="8.trap"]')
        other.focus()
        page.keyboard.press("Enter")
        expect(other).to_have_attribute("data-sensed", "piece")


# Where a spot lies across the board's scrolled width: 0 at its left edge, 1 past its right one.
WHERE_IN_VIEW = """([board, spot]) => {
  const view = board.getBoundingClientRect(), box = spot.getBoundingClientRect();
  return [box.left >= view.left && box.right <= view.right, board.scrollLeft];
}"""


def test_on_a_phone_a_piece_to_put_right_is_scrolled_into_view(page: Page, tmp_path: Path) -> None:
    """At 390 px Hostile Takeover's 12 columns show 7: a tile laid on column L, where none should
    be, lights its cell to put right, and the board scrolls to it; a redraw (another language)
    keeps the scroll, and a player's own swipe back is kept until something else lights."""
    page.set_viewport_size({"width": 390, "height": 844})
    with dashboard(tmp_path, "--game", "takeover", "--players", "3") as table:
        page.goto(table.page)
        board, cell = page.locator("#board"), page.locator('#board [data-spot="r5c11"]')
        expect(page.locator("#board-more")).to_be_visible()
        assert board.evaluate("b => b.scrollLeft") == 0
        laid = fetch(f"{table.url}api/place", {"spot": "r5c11.map", "token": "tile"}, table.key)
        assert laid.json()["ok"]
        expect(page.locator('[data-spot="r5c11.map"][data-fix]')).to_have_count(1)
        seen, scrolled = page.evaluate(
            WHERE_IN_VIEW, [board.element_handle(), cell.element_handle()]
        )
        assert seen and scrolled > 0
        page.locator("#lang").select_option("fr")  # the board drawn afresh
        expect(page.locator("#board-more")).not_to_have_text(re.compile("wider"))
        assert board.evaluate("b => b.scrollLeft") == scrolled
        board.evaluate("b => { b.scrollLeft = 0; }")  # the player swipes back
        page.locator("#lang").select_option("en")
        expect(page.locator("#board-more")).to_have_text(re.compile("wider"))
        assert board.evaluate("b => b.scrollLeft") == 0
        # A new game starts from the first column, wherever the last one was left.
        lifted = fetch(f"{table.url}api/place", {"spot": "r5c11.map", "lift": True}, table.key)
        assert lifted.json()["ok"]
        expect(page.locator("#board [data-fix]")).to_have_count(0)
        board.evaluate("b => { b.scrollLeft = 200; }")
        assert fetch(f"{table.url}api/new", {"abandon": True}, table.key).json()["ok"]
        page.wait_for_function("document.getElementById('board').scrollLeft === 0")
        # The walk: at a first turn the player's own pawn lay past the edge, and nothing said
        # where it was. The few places a player may move from are scrolled to as well (drawn
        # here as the pawn on column L to move; not where nearly every piece may move).
        page.evaluate(
            "() => { snap.actions = [{id: 'move:r5c10', at: 'r5c11', to: 'r5c10'}]; render(); }"
        )
        pawn = page.locator('#board [data-spot="r5c11"]')
        expect(pawn).to_have_class(re.compile("pointable"))
        seen, scrolled = page.evaluate(
            WHERE_IN_VIEW, [board.element_handle(), pawn.element_handle()]
        )
        assert seen and scrolled > 0


# Each square's name and a card's value: how far each reaches past its square, and its size.
SPILLS = """squares => squares.flatMap(square => {
  const box = square.getBoundingClientRect();
  return [...square.querySelectorAll(".label, .on-card")].map(text => {
    const r = text.getBoundingClientRect();
    return [square.dataset.spot, text.textContent, Math.max(box.left - r.left, r.right - box.right),
            parseFloat(getComputedStyle(text).fontSize)];
  });
})"""


def test_on_a_phone_multipli_potions_names_stay_in_their_slots(page: Page, tmp_path: Path) -> None:
    """At 390 px the twenty slots of a play zone are 44 px wide: each slot's name ("slot 11", as
    the decisions name it) and a card's value ("8 times 3") stay within their slot, at a size a
    phone can read, rather than run into the next one."""
    page.set_viewport_size({"width": 390, "height": 844})
    with dashboard(tmp_path, "--game", "potions", "--seed", "2") as table:
        page.goto(table.page)
        page.locator("#lay-out").click()  # the first cards dealt face up
        expect(page.locator("#board .on-card")).to_have_count(2)
        texts = measure_all(page, "#board .square", SPILLS)
        assert len(texts) == 2 + 2 * (5 + 20)  # two cards, each seat's hand and play zone
        assert [text for text in texts if text[2] > 0.5] == []
        assert min(size for *_, size in texts) >= 12
        names = [text for spot, text, *_ in texts if text.startswith(("slot", "trophy"))]
        assert "slot 11" in names and "trophy 5" in names and len(names) == 50


def test_a_card_is_dealt_by_tapping_its_slot(page: Page, tmp_path: Path) -> None:
    """On the simulated table a camera spot offers what the game may see there next: a tap on
    Mightymania's first slot offers the squad cards player_1 holds, one of which they lay face
    down (rule 1), named as their deck names them, or any of them; laying it deals it."""
    with dashboard(tmp_path, "--game", "mightymania") as table:
        page.goto(table.page)
        slot = page.locator('[data-spot="s1.c1"]')
        slot.click()
        chosen = page.locator('#chooser-tokens .choice[data-why="secret"]')
        expect(chosen).to_have_count(4)
        assert [choice.get_attribute("data-secret") for choice in chosen.all()] == [
            "T1",
            "T2",
            "T3",
            "T4",
        ]
        # By the names their deck gives them: the walk met "T1" to "T4" (MM-1).
        expect(chosen.locator("span:not(.look):not(.on-card)")).to_have_text(
            ["Colossus", "Pyra", "Whisper", "Bolt"]
        )
        expect(chosen.locator("small")).to_have_text(["laid face down"] * 4)
        offered = page.locator('#chooser-tokens .choice[data-why="next"]')
        expect(offered).to_have_count(1)
        expect(offered).to_have_attribute("data-token", "down")
        expect(offered.locator("small")).to_have_text("one of the hand, unseen")
        offered.click()
        expect(page.locator("#chooser")).not_to_be_visible()
        expect(slot).to_have_attribute("data-sensed", "down")
        expect(page.locator("#log li")).to_have_count(1)
        # A slot the game wants nothing on says so.
        page.locator('[data-spot="s2.r5"]').click()
        expect(page.locator("#chooser-tokens")).to_have_text("Nothing the game wants here now.")
        page.locator("#chooser button[value=cancel]").click()
        expect(page.locator("#chooser")).not_to_be_visible()


def deal_by_taps(page: Page) -> int:
    """Lay what the game waits for on the camera's spots, by taps alone, while it waits for a
    draw: each spot tapped offers what may lie there next, and the first offer is laid."""
    root = page.locator("html")
    expect(root).to_have_attribute("data-to-move", "chance")
    laid = 0
    while root.get_attribute("data-to-move") == "chance" and laid < 100:
        for spot in page.locator('#table [data-sensor="camera"]').all():
            spot.click()
            offered = page.locator("#chooser-tokens .choice")
            expect(page.locator("#chooser")).to_be_visible()
            if offered.count() == 0:
                page.locator("#chooser button[value=cancel]").click()
                continue
            before = page.locator("#log li").count()
            offered.first.click()
            laid += 1
            expect(page.locator("#log li")).not_to_have_count(before)
            break
        else:
            raise AssertionError("the game waits for a draw that no spot offers")
    return laid


def test_potions_is_dealt_by_taps_and_played_by_pointing(page: Page, tmp_path: Path) -> None:
    """Issue 20: the deal stalled on the page, then a turn showed 1,463 buttons at once. Now the
    simulated table's seats hold real hands: a tap on a slot offers the few cards of the hand
    (MP-1's deal of 4), a tap on a card of the hand marks the slots it may go to, and the list of
    every placement stays folded for those who want it."""
    with dashboard(tmp_path, "--game", "potions", "--seed", "4") as table:
        page.goto(table.page)
        assert deal_by_taps(page) >= 2
        expect(page.locator("html")).not_to_have_attribute("data-to-move", "chance")
        assert page.locator("#actions button:visible").count() <= 2  # end the turn, at most
        expect(page.locator("#all-actions-box")).not_to_have_attribute("open", "")
        # The folded list finds a placement by its words.
        page.locator("#all-actions-box > summary").click()
        page.locator("#actions-filter").fill("zzz")
        expect(page.locator("#all-actions button:visible")).to_have_count(0)
        # A card of the hand, tapped, marks the slots it may be played into (the walk: a tap
        # on it did nothing; a list of 19 "into slot N" would be no better); let go, the board
        # is as it was.
        card = page.locator("#secrets-list button.in-hand").first
        card.click()
        targets = page.locator("#board .target")
        expect(targets.first).to_be_visible()
        expect(page.locator("#point-help")).to_contain_text("tap a place marked")
        assert targets.count() > 4
        page.locator("#point-help button.cancel").click()
        expect(targets).to_have_count(0)
        # Tapped again, then a slot marked: played there. (A slot tapped first offers the few
        # cards of the hand: tests/page_play.py plays so.)
        token = card.get_attribute("data-token")
        card.click()
        slot = targets.nth(1).get_attribute("data-spot")
        assert token is not None and slot is not None
        targets.nth(1).click()
        expect(page.locator("#log li")).to_have_count(3)
        assert page.evaluate("snap.log[2]").split(":")[1:] == [token, slot.rpartition(".z")[2]]
        # The card placed, the hand's cards are no longer to be played: pictures, not buttons.
        expect(page.locator("#secrets-list button.in-hand")).to_have_count(0)


# Ids as the table sends them: "place_trap", "choose_dice:2", "purple:point", "player_1".
def test_the_page_shows_words_not_ids(page: Page, tmp_path: Path) -> None:
    """Every string a player reads comes from the catalogues (words.js, rules/*.words.toml):
    decisions, log, details, legend, header and put-right guidance, in English and French."""
    for game, lay in (("akuma", "7.akuma"), ("potions", None)):
        with dashboard(tmp_path / game, "--game", game, "--seed", "3") as table:
            page.goto(table.page)
            page.locator("#lang").select_option("en")
            expect(page.locator("html")).to_have_attribute("data-game", game)
            if game == "akuma":
                page.locator("#new-seats select").nth(1).select_option("easy")
                expect(page.locator("#new-dice-label")).to_be_visible()  # who throws its dice
                page.locator('[data-action="choose_dice:2"]').click()
                expect(page.locator("#turn")).to_have_text("Turn 1 · Hawk Moth: roll both dice")
                # While the dice are awaited no decision is pointed at: a tap lays a piece
                # where none belongs.
                page.locator(f'#board [data-spot="{lay}"]').click()
                expect(page.locator("#fixes li").first).to_contain_text("Take the akuma off 7")
                page.locator(f'#board [data-spot="{lay}"]').click()
                page.locator("#roll-random").click()
                expect(page.locator("#log li")).to_have_count(2)
            else:
                expect(page.locator("#turn")).to_contain_text("Deal a card face up")
                # A game of cards alone: nothing to roll, no dice to throw or to keep a record
                # of (the walk: "Roll and lay it out", "The table's dice", "Your dice").
                expect(page.locator("#lay-out")).to_have_text("Lay it out for me")
                expect(page.locator("#dice-record")).to_be_hidden()
                page.locator("#new-seats select").nth(1).select_option("easy")
                expect(page.locator("#new-dice-label")).to_be_hidden()
                # Who starts is a seat: offered as the page numbers seats, from 1; the options
                # sent keep it from 0, as the journal does.
                youngest = page.locator("#new-options select[name=youngest]")
                expect(youngest.locator("option")).to_have_text(["Player 1", "Player 2"])
                youngest.select_option(label="Player 2")
                assert page.evaluate("chosenOptions()")["youngest"] == 1
                # An option bound to choices is offered as them; one whose name does not say
                # what it takes has a line on it (the walk: bare text fields).
                colours = page.locator("#new-options select[name=colours]")
                expect(colours.locator("option")).to_have_text(["green", "purple", "both"])
                colours.select_option("green")
                assert page.evaluate("chosenOptions()")["colours"] == "green"
                deck = page.locator("#new-options label", has=page.locator("input[name=deck]"))
                expect(deck.locator(".option-help")).to_contain_text("80 or 64 cards")
                # A capture is said as the cards show it, not by ids that give the product
                # away ("monster 8x5": `Game.token_names`' facets, MP-2).
                capture = "actionText('capture:8x5:7x5:9x8')"
                assert page.evaluate(capture) == "Capture monster 40 with potions 5 and 8"
                # Two captures alike in words say which cards each spends (the walk: three
                # buttons "Capture monster 16 with potions 2 and 8").
                page.evaluate("decide([{id: 'capture:4x4:9x2:2x8'}, {id: 'capture:4x4:3x2:2x8'}])")
                choices = page.locator("#chooser[open] .choice")
                expect(choices.locator(".gains")).to_have_text(["9\u00d72", "3\u00d72"])
                expect(choices.first).to_contain_text("Capture monster 16 with potions 2 and 8")
                page.keyboard.press("Escape")
            expect(page.locator("#details dt").first).to_have_text(re.compile(r"^[A-Z]"))
            assert visible_ids(page) == []
            # A spot's tooltip too (the walk: "2.akuma: sensed -, expected piece").
            titles = page.locator("#board [data-spot]").evaluate_all("n => n.map(s => s.title)")
            assert [title for title in titles if RAW_ID.search(title) or "." in title] == []
            page.locator("#lang").select_option("fr")
            expect(page.locator("#log-box h2")).to_have_text("Journal de la partie")
            if game == "akuma":
                # The log names whose move it was (log_by), in the page's words.
                expect(page.locator("#log li").first).to_have_text(
                    "Papillombre : Lancer les deux dés"
                )
            else:
                expect(page.locator("#new-options label").first).to_have_text(re.compile("Paquet"))
                expect(deck.locator(".option-help")).to_contain_text("80 ou 64 cartes")
                french = "Capturer le monstre 40 avec les potions 5 et 8"
                assert page.evaluate(capture) == french
                expect(page.locator("#new-options select[name=youngest] option")).to_have_text(
                    ["Joueur 1", "Joueur 2"]
                )
            assert visible_ids(page) == []
    # A game with no catalogue reads its ids, made readable.
    fallback = page.evaluate(
        """() => {
            const saved = snap;
            snap = { ...saved, game: "stack", players: ["first", "second"] };
            gameWords.stack = {};
            const said = [actionText("move:a:b"), playerName("first"),
                          detailName("stack_height"), valueText("phase", "set_up")];
            snap = saved;
            return said;
        }"""
    )
    assert fallback == ["move: a, b", "first", "stack height", "set up"]


def test_what_a_roll_came_to_is_said_under_the_board_and_in_the_details(
    page: Page, tmp_path: Path
) -> None:
    """The walk: a Shell-ter tile that took the blow, a power that did nothing, showed only as
    "Dice read: ..." (AK-5, AK-7). The news line says what the roll did, and so does the
    detail, in words rather than its fields."""
    with dashboard(tmp_path, "--game", "akuma") as table:
        page.goto(table.page)
        page.locator("#lang").select_option("en")
        page.locator('button[data-action="choose_dice:1"]').click()
        expect(page.locator("#log li")).to_have_count(1)
        page.evaluate("post('roll', { values: [5] })")
        said = "Hawk Moth rolled 5: the civilian on 5 is akumatized"
        expect(page.locator("#news")).to_have_text(said)
        expect(page.locator('#details [data-detail="last_event"]')).to_have_text(said)
        # The akuma and its card are to be laid before Ladybug rolls: the header says so, and
        # What to do now puts that first (the walk: "roll" there, under "put the akuma on 5").
        expect(page.locator("#turn")).to_have_text(re.compile(r"Put the akuma on 5$"))
        expect(page.locator("#phase-help")).to_contain_text(
            "First put the pieces right, as the line at the top says. Then: Throw one die or two"
        )
        page.locator("#lang").select_option("fr")
        expect(page.locator("#news")).to_have_text(
            "Papillombre a tiré 5 : le civil de la case 5 est akumatisé"
        )


def test_the_pieces_to_put_right_come_before_the_table_s_own_turn(
    page: Page, tmp_path: Path
) -> None:
    """The walk: the header said to take a pawn off, and What to do now only "Carry out Blue's
    move": the table's turn waits behind the pieces to put right, as a person's does."""
    with dashboard(tmp_path, "--game", "akuma", "--computer", "2:easy", "--seed", "3") as table:
        page.goto(table.page)
        page.locator("#lang").select_option("en")
        page.locator('button[data-action="choose_dice:1"]').click()
        expect(page.locator("#log li")).to_have_count(1)
        page.evaluate("post('roll', { values: [5] })")
        expect(page.locator("#turn")).to_have_text(re.compile(r"Put the akuma on 5$"))
        help_text = page.locator("#phase-help")
        expect(help_text).to_contain_text(
            "First put the pieces right, as the line at the top says. Then:"
        )
        assert page.evaluate("tableTurnHelp()") in help_text.inner_text()


def test_the_new_game_form_offers_teams_at_four_players_and_folds_expert_options(
    page: Page, tmp_path: Path
) -> None:
    """The walk: "Two teams of two" beside 3 players, and a newcomer met the seat order and
    a rules file of one's own first. Teams are offered at 4 players only (BV-3); the Loas' order
    and the rules file wait under "More options", and are sent either way."""
    with dashboard(tmp_path, "--game", "voodoo", "--players", "3") as table:
        page.goto(table.page)
        page.locator("#lang").select_option("en")
        teams = page.locator('#new-options label[data-option="teams"]')
        players = page.locator("#new-options input[name=players]")
        expect(players).to_have_value("3")
        expect(teams).to_be_hidden()
        assert "teams" not in page.evaluate("chosenOptions()")  # left to its default
        for hidden in ("loas", "rules"):
            expect(page.locator(f"#new-options input[name={hidden}]")).to_be_hidden()
        # A choice in words, its value sent as the game takes it (the walk: "roll", "place").
        setup = page.locator("#new-options select[name=setup] option")
        expect(setup).to_have_text(["rolled onto their spaces", "laid by the players in turn"])
        assert setup.evaluate_all("options => options.map(o => o.value)") == ["roll", "place"]
        # Bound as the game bounds it: 9 players cannot be sent (the walk: 9 showed 4 seats).
        expect(players).to_have_attribute("max", "4")
        players.fill("9")
        assert players.evaluate("input => input.checkValidity()") is False
        players.fill("4")
        expect(teams).to_be_visible()
        teams.locator("input").check()
        more = page.locator("#new-options .more-options summary")
        expect(more).to_have_text("More options")
        more.click()
        # The walk: a refused start said why at the page's top, far above the form tapped.
        loas = page.locator("#new-options input[name=loas]")
        loas.fill("red,red,purple,turquoise")
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-form button[type=submit]").click()
        error = page.locator("#error")
        expect(error).to_contain_text("red")
        expect(error).to_be_in_viewport()
        error.click()  # read, tapped away
        expect(error).to_be_hidden()
        loas.fill("red,yellow,purple,turquoise")
        chosen = page.evaluate("chosenOptions()")
        assert chosen["teams"] is True and chosen["loas"] == "red,yellow,purple,turquoise"
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-form button[type=submit]").click()
        expect(page.locator("#new-names input")).to_have_count(4)
        page.wait_for_function("snap.options.teams === true && snap.players.length === 4")
        page.wait_for_function("window.scrollY === 0")  # the new game's board, not the form
        # Back at 3 players, teams are hidden again and not sent.
        page.locator("#new-options input[name=players]").fill("3")
        expect(teams).to_be_hidden()
        assert "teams" not in page.evaluate("chosenOptions()")


# The Web Audio API as far as sound.js uses it, keeping the notes played in `tones`.
QUIET_AUDIO = """
window.tones = [];
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  resume() {}
  createGain() {
    const gain = { setValueAtTime() {}, exponentialRampToValueAtTime() {} };
    return { gain, connect: (to) => to };
  }
  createOscillator() {
    const tone = { frequency: { value: 0 }, connect: (to) => to, stop() {} };
    tone.start = () => window.tones.push(tone.frequency.value);
    return tone;
  }
};
"""


# The turn passing to the other player, then the table wrong, then the game over.
CUES = """() => {
    const live = snap, other = live.players.find((seat) => seat !== live.to_move);
    const wrong = { x: { fix: true } };
    soundCues({ ...live, to_move: other });
    soundCues({ ...live, to_move: other, spots: wrong });
    soundCues({ ...live, to_move: other, spots: wrong, result: {} });
    soundCues(live);
    return tones;
}"""


def test_sound_cues_are_off_until_turned_on_and_mark_turn_mistake_and_end(
    page: Page, tmp_path: Path
) -> None:
    """Issue 20's optional sound cues: silent by default; once on (and kept on), two notes when
    the turn passes, a buzz when the table is to be put right, a tune at the end."""
    page.add_init_script(QUIET_AUDIO)
    with dashboard(tmp_path, "--game", "akuma", "--seed", "3") as table:
        page.goto(table.page)
        page.locator("#lang").select_option("en")
        sound = page.locator("#sound")
        expect(sound).to_have_text("Sound: off")
        page.locator('[data-action="choose_dice:2"]').click()
        expect(page.locator("#log li")).to_have_count(1)  # a live snapshot heard
        assert page.evaluate(CUES) == []

        sound.click()
        expect(sound).to_have_attribute("aria-pressed", "true")
        page.reload()
        expect(sound).to_have_text("Sound: on")
        expect(page.locator("html")).to_have_attribute("data-game", "akuma")  # a snapshot heard
        assert page.evaluate(CUES) == [660, 880, 180, 523, 659, 784]
        page.locator("#lang").select_option("fr")
        expect(sound).to_have_text("Son : activé")


def test_a_refusal_is_said_in_the_players_language(page: Page, tmp_path: Path) -> None:
    """A move the game has gone past, or one sent while paused, and the table's own trouble: the
    page says them in French, while the CLI and the logs keep the table's English."""
    with dashboard(tmp_path, "--game", "akuma", "--seed", "3") as table:
        page.goto(table.page)
        page.locator("#lang").select_option("fr")
        expect(page.locator("html")).to_have_attribute("data-game", "akuma")
        page.evaluate('post("act", { id: "voyage:2" })')
        expect(page.locator("#error")).to_have_text(re.compile("^Ce coup n\u2019est pas permis"))
        page.locator("#pause").click()
        expect(page.locator("#pause")).to_have_text(re.compile("Reprendre"))
        page.evaluate('post("act", { id: "choose_dice:2" })')
        paused = "La partie est en pause : reprenez-la d\u2019abord."
        expect(page.locator("#error")).to_have_text(paused)
        refused = fetch(f"{table.url}api/act", {"id": "choose_dice:2"}, table.key).json()
        assert refused["error"] == "the game is paused: resume it first"
        # The table's own trouble atop the page, as the daemon names it (Daemon.alerts).
        page.evaluate(
            """() => {
                const text = "the reed controller (Pico) is not answering on /dev/ttyACM0: x";
                const params = { port: "/dev/ttyACM0", why: "x" };
                snap = { ...snap, alerts: [{ text, key: "link_silent", params }] };
                render();
            }"""
        )
        expect(page.locator("#alerts li")).to_have_text(
            "Le contr\u00f4leur des capteurs (Pico) ne r\u00e9pond pas sur /dev/ttyACM0 : x"
        )
        # A request the table never answered: said in words, not "TypeError: Failed to fetch",
        # and gone once the table is heard again (the walk: kept after the table came back).
        page.route("**/api/act", lambda route: route.abort())
        page.evaluate('post("act", { id: "choose_dice:2" })')
        not_sent = "Pas de r\u00e9ponse de la table."
        expect(page.locator("#error")).to_have_text(re.compile("^" + not_sent))
        page.unroute("**/api/act")
        assert fetch(f"{table.url}api/resume", {}, table.key).json()["ok"]  # heard again
        expect(page.locator("#error")).to_be_hidden()


def test_the_dice_record_counts_the_rolls_typed_in(page: Page, tmp_path: Path) -> None:
    """Issue 22: a roll typed in counts in "Your dice", face by face, with a verdict in the
    player's language; the rolls the table makes up itself do not."""
    with dashboard(tmp_path, "--game", "akuma") as table:
        page.goto(table.page)
        expect(page.locator("#dice-record-none")).to_be_visible()
        page.evaluate('post("act", { id: "choose_dice:2" })')
        page.evaluate('post("roll", { values: [3, 5] })')
        die = page.locator("#dice-tallies li")
        expect(die).to_have_count(1)
        expect(die.locator(".verdict")).to_have_text(
            "2 rolls: too few to tell (at least 30 needed)"
        )
        expect(die.locator(".bar")).to_have_count(6)
        expect(die.locator('.bar[title="5: 1"]')).to_have_count(1)
        expect(page.locator("#dice-sources")).to_have_text("Rolls so far: 1 \u2014 typed in 100 %")
        page.locator("#lang").select_option("fr")
        expect(die.locator(".verdict")).to_have_text(re.compile("^2 lancers : trop peu"))
        one = "verdictText({key: 'too_few', params: {rolls: 1, needed: 30}})"
        assert page.evaluate(one).startswith("1 lancer : trop peu")  # the walk: "1 lancers"
        # Another game on the table: the die is still named in its own game's words (the
        # walk: in English, by its id, under Baron Voodoo).
        page.evaluate('post("new", { game: "voodoo", abandon: true })')
        page.wait_for_function("snap.game === 'voodoo'")
        expect(die.locator("strong")).to_have_text("Capture l'Akuma \u00b7 d\u00e9")


def test_an_unsure_roll_is_settled_by_tapping_each_die(page: Page, tmp_path: Path) -> None:
    """Issue 22: a roll held unsure shows the tray as read, each unsure die outlined, and its best
    two readings as buttons a finger can tap; a tap on each applies the roll, as confirmed when
    every tap kept the value read. A picture gone (the daemon restarted) leaves the buttons."""
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "roll.jpg").write_bytes(photos("nell")[0].read_bytes())
    config = tmp_path / "config.toml"
    # Every die unsure. The photo shown again and again, as a camera sees resting dice: shown
    # once, for half a second, a loaded machine read it fewer times than a roll needs to settle.
    config.write_text("[dice]\nmin_confidence = 1.0\n[camera]\nreplay_loop = true\n")
    args = ["--game", "akuma", "--camera-folder", str(frames), "--config", str(config)]
    with dashboard(tmp_path / "state", *args) as table:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(table.page)
        dice = page.locator("#unsure-dice li")
        expect(dice.first).to_be_visible(timeout=40_000)  # the photo read on a loaded machine
        picture = page.locator("#unsure-picture")
        expect(picture).to_be_visible()
        page.wait_for_function("document.getElementById('unsure-picture').naturalWidth > 0")
        # Counted at one instant: a snapshot coming in between re-draws the list.
        count, buttons = page.evaluate(
            "['li', '.reading'].map((s) => document.querySelectorAll('#unsure-dice ' + s).length)"
        )
        assert buttons == 2 * count  # the top view's reader gives a runner-up
        # Measured at one instant too: a button re-drawn between two reads has no box.
        sizes = page.evaluate(
            "[...document.querySelectorAll('#unsure-dice .reading')]"
            ".map((b) => [b.offsetWidth, b.offsetHeight])"
        )
        assert len(sizes) == 2 * count and all(w >= 44 and h >= 44 for w, h in sizes)
        # The picture gone: said, and the buttons kept.
        page.route("**/api/unsure.jpg*", lambda route: route.fulfill(status=404, body="{}"))
        page.evaluate("unsureRoll = null; render()")
        expect(page.locator("#unsure-no-picture")).to_be_visible()
        expect(picture).to_be_hidden()
        expect(dice).to_have_count(count)
        for i in range(count):
            dice.nth(i).locator(".reading").first.click()  # the value read
        expect(page.locator("#dice-unsure")).to_be_hidden()
    journal = Journal(tmp_path / "state").read()
    (roll,) = [entry["dice"] for entry in journal.entries if "dice" in entry]
    assert roll["source"] == "confirmed"
