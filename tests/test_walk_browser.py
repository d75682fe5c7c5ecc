"""A new player's first turns against the table, in Chromium: what the page says while no player
decides, where a hint's moves are played, the board's names over cards, the turn counted as the
game counts it."""

from __future__ import annotations

import random
import re
from pathlib import Path

from browser import measure_all
from mightymania_play import attack, duel, started
from playwright.sync_api import Page, expect
from web_daemon import dashboard, fetch

from controller.journal import Journal
from controller.rules.voodoo import GAME as GAME_VOODOO
from controller.simulate import random_step

TABLE = ("--computer", "2:easy", "--computer-dice", "virtual")


def lay_squad(page: Page) -> None:
    """Player 1 lays their squad face down, a card of their choice in each position, as the
    page offers them (rule 1: theirs to choose, never laid out for them)."""
    for i in range(1, 5):
        page.locator(f'#board [data-spot="s1.c{i}"]').click()
        page.locator("#chooser-tokens button[data-secret]").first.click()
        expect(page.locator(f'#board [data-spot="s1.c{i}"]')).to_have_attribute(
            "data-sensed", "down"
        )


def test_mightymania_against_the_table_as_a_new_player_reads_it(page: Page, tmp_path: Path) -> None:
    with dashboard(tmp_path, "--game", "mightymania", "--seed", "1", *TABLE) as table:
        page.goto(table.page)
        lay_squad(page)
        # Seed 1: the start rolls give Player 1 the first attack.
        page.locator("#lay-out").click()
        attackers = page.locator('#board .square.pointable[data-spot^="s1.c"]')
        expect(attackers.first).to_be_visible(timeout=15_000)
        # Places, not moves: the list beside counts the moves.
        expect(page.locator("#point-help")).to_have_text(
            f"Tap one of the {attackers.count()} outlined places on the board to play."
        )
        # The hint's attack is lit on the board, from the card to the card it attacks.
        page.locator("#hint").click()
        expect(page.locator("#hint-note")).to_contain_text(
            "Tap a move to light it on the board", timeout=15_000
        )
        # An attack is two taps: the attacking card, then the opponent's card it attacks.
        source = attackers.first.get_attribute("data-spot")
        assert source is not None
        # Tapped where they are, whatever the board's scroll does meanwhile: the hint's lit move
        # is brought into view, and under load a click by position landed beside the card.
        attackers.first.dispatch_event("click")
        page.locator('#board .square.target[data-spot^="s2.c"]').first.dispatch_event("click")
        expect(page.locator("#phase-help")).to_contain_text("Turn the fighting card face up")
        # The log says whose move it was: the same attack twice would not.
        expect(page.locator("#log li").last).to_have_text(
            re.compile(r"^Player 1: Attack the opponent.s position \d from position \d$")
        )
        # Nobody decides while the cards turn up: said in words, and no empty "Dice" heading.
        to_move = page.locator('#details [data-detail="to_move"]')
        expect(to_move).to_have_text("the cards to lay or turn up, or the dice")
        # A card face up is named in the details as on the board ("Colossus", not "T1").
        page.evaluate(
            "() => { snap.details.positions = {'s1.c1': {card: 'T1', lives: 3, leader: true}};"
            " render(); }"
        )
        positions = page.locator('#details [data-detail="positions"]')
        expect(positions).to_contain_text("Colossus")
        expect(positions).not_to_contain_text("T1")
        expect(page.locator("#dice-box")).to_be_hidden()
        # The spot's name over a face-down card stands on a plate of its own.
        # Named as the decisions name it, not by its id.
        label = page.locator('.square[data-spot="s1.c1"] > .label')
        expect(label).to_have_text("position 1")
        plate = label.evaluate("node => getComputedStyle(node).backgroundColor")
        assert plate not in ("", "transparent", "rgba(0, 0, 0, 0)")
        # The card offered on the simulated table is named inside its button: under its
        # picture, by the name its deck gives it ("Colossus", not "T1"), not over the picture
        # a letter a line.
        page.locator(f'.square[data-spot="{source}"]').click()
        offer = page.locator('#chooser .choice[data-why="next"]')
        expect(offer).to_be_visible()
        name = offer.locator("> span:not(.look)")
        expect(name).to_have_text(re.compile(r"^[A-Z][a-z]+$"))
        expect(offer.locator(".on-card")).to_be_hidden()
        inside, outside = offer.bounding_box(), name.bounding_box()
        assert inside is not None and outside is not None
        assert inside["y"] <= outside["y"] and outside["y"] + outside["height"] <= (
            inside["y"] + inside["height"]
        )
        page.keyboard.press("Escape")
        # A card taken away is to be put back: said with the spot's name in words.
        page.locator('.square[data-spot="s1.c1"]').click()
        page.locator('#chooser .choice[data-token=""]').click()
        expect(page.locator("#turn")).to_contain_text(
            "Put the face-down card on Player 1's position 1"
        )
        page.locator('.square[data-spot="s1.c1"]').click()
        page.locator('#chooser .choice[data-token="down"]').click()
        page.locator("#lang").select_option("fr")
        expect(to_move).to_have_text("les cartes à poser ou à retourner, ou les dés")


def test_a_tap_first_where_a_piece_goes_takes_the_decisions_ending_there(
    page: Page, tmp_path: Path
) -> None:
    """The walk: a player taps the lit destination first. Once it laid a second piece there on
    the simulated table; now it takes the decisions that end there, a chooser when several
    start elsewhere."""
    with dashboard(tmp_path, "--game", "mightymania", "--seed", "1", *TABLE) as table:
        page.goto(table.page)
        lay_squad(page)
        page.locator("#lay-out").click()
        attackers = page.locator('#board .square.pointable[data-spot^="s1.c"]')
        expect(attackers.first).to_be_visible(timeout=15_000)
        actions = fetch(f"{table.url}api/snapshot", headers=table.key).json()["actions"]
        target = next(a["to"] for a in actions if a.get("to"))
        ending = [a["id"] for a in actions if a.get("to") == target]
        page.locator(f'#board .square[data-spot="{target}"]').click()
        if len(ending) > 1:
            choices = page.locator("#chooser .choice")
            expect(choices).to_have_count(len(ending))
            choices.first.click()
        expect(page.locator("#log li").last).to_have_text(
            re.compile(rf"^Player 1: Attack the opponent.s position {target[-1]} from position \d$")
        )
        # Nothing was laid on the opponent's card: nothing to put right.
        expect(page.locator("#fixes")).to_be_hidden()


def test_the_page_names_the_players_seat_and_whose_dice_to_roll_for_the_table(
    page: Page, tmp_path: Path
) -> None:
    """The walk: nothing said which seat was the player's, and "Roll your d12" was shown when
    the d12 to throw was one of the table's seats (its dice rolled by hand, by default)."""
    seats = ("--computer", "2:easy", "--computer", "3:easy")
    with dashboard(tmp_path, "--game", "takeover", "--players", "3", *seats) as table:
        page.goto(table.page)
        banner = page.locator("#thinking-text")
        # Red rolls first for the first player (HT-5): a person's roll.
        expect(banner).to_have_text("The table plays Blue (easy), Green (easy) \u00b7 you play Red")
        expect(page.locator("#phase-help")).not_to_contain_text("the table")
        assert fetch(f"{table.url}api/roll", {"values": [3]}, table.key).json()["ok"]
        # Blue's d12: a hand throws it for the table.
        expect(banner).to_have_text("Roll Blue\u2019s dice for the table")
        expect(page.locator("#phase-help")).to_contain_text(
            "Blue is played by the table (easy), and its dice are rolled by hand"
        )
        page.locator("#lang").select_option("fr")
        expect(banner).to_have_text("Lancez les dés de Bleu pour la table")


def test_named_players_are_told_their_seat_of_the_game(page: Page, tmp_path: Path) -> None:
    """The walk: with the seats named Ana and Bob, nothing tied Ana to Mamy Wata, whose yellow
    the legend and the guide speak of. The banner names both."""
    seats = ("--players", "3", "--names", "Ana,Bob", "--computer", "3:easy")
    with dashboard(tmp_path, "--game", "voodoo", *seats) as table:
        page.goto(table.page)
        expect(page.locator("#thinking-text")).to_have_text(
            "The table plays Papa Legba (easy) \u00b7 you play Ana (Mamy Wata), Bob (Gran Bwa)"
        )


def test_the_tables_turn_is_said_whole_under_the_board(page: Page, tmp_path: Path) -> None:
    """The walk: after the table's turn the line under the board said its last move alone ("End
    the turn"), its capture and point only in the log far below. It says the turn's moves."""
    with dashboard(tmp_path, "--game", "akuma", "--seed", "1", *TABLE) as table:
        page.goto(table.page)
        expect(page.locator('#actions [data-action^="choose_dice:"]').first).to_be_visible()
        # The game's words come in their own request, after the first drawing of the page.
        page.wait_for_function("() => 'akuma' in gameWords")
        said = page.evaluate(
            """messageText({
                note: {key: "computer_played", player: "ladybug", actions: ["power:venom"]},
                log: ["choose_dice:1", "roll:4", "choose_dice:2", "roll:7", "power:venom"],
                log_by: ["hawkmoth", "hawkmoth", "ladybug", "ladybug", "ladybug"],
                message: "",
            })"""
        )
        assert said == (
            "Ladybug (the table) played: Roll both dice; Rolled 7; Miraculous power: Venom"
        )
        # The header on the table's turn names it, not a prompt that speaks to "you".
        header = page.evaluate(
            """headerText({...snap, to_move: "ladybug", computer: [null, "easy"],
                details: {...snap.details, phase: "choose_dice"}})"""
        )
        assert header == "Ladybug is played by the table (easy)"
        # The end says who won and why (AK-9), one winner "Winner".
        page.evaluate(
            """snap = {...snap, result: {winners: ["ladybug"], ended: "cleared"}}; drawResult()"""
        )
        expect(page.locator("#result p:not(.verdict)")).to_have_text(
            "Winner: Ladybug: no akuma and no trap are left on the board."
        )
        # Where the game counts points, each player's, the highest first.
        page.evaluate(
            """snap = {...snap, result: {...snap.result, scores: {hawkmoth: 2, ladybug: 5}}};
               drawResult()"""
        )
        expect(page.locator("#result .scores")).to_have_text("Scores: Ladybug 5 · Hawk Moth 2")
        # Against the table, the one person at the page is told how it went for them.
        page.evaluate("snap = {...snap, computer: [null, 'easy']}; drawResult()")
        expect(page.locator("#result .verdict")).to_have_text("You lost.")
        page.evaluate("snap = {...snap, computer: ['easy', null]}; drawResult()")
        expect(page.locator("#result .verdict")).to_have_text("You won!")
        page.evaluate("snap = {...snap, computer: [null, null]}; drawResult()")
        expect(page.locator("#result .verdict")).to_have_count(0)  # two people: no "you"
        # What the end added is beside each score (the walk: Voodoo's majorities, BV-11).
        page.evaluate(
            """snap = {...snap, result: {...snap.result, end_bonus: {hawkmoth: 0, ladybug: 3}}};
               drawResult()"""
        )
        expect(page.locator("#result .scores")).to_have_text(
            "Scores: Ladybug 5 (+3 at the end) · Hawk Moth 2"
        )
        # The header says it too: on a phone the result box lies a screen below the board.
        page.evaluate("drawTurn()")
        expect(page.locator("#turn")).to_have_text(
            re.compile(r"^Turn \d+ · Game over · Winner: Ladybug")
        )


def test_the_legend_says_a_role_lit_at_several_levels_once(page: Page, tmp_path: Path) -> None:
    """The walk: Takeover's legend read "Blue 25 %", "Blue 100 %", "Green 20 %", figures that
    mean nothing to a player. A role is said once, with what its brightness tells."""
    with dashboard(tmp_path, "--game", "takeover") as table:
        page.goto(table.page)
        expect(page.locator("#turn")).not_to_be_empty()
        said = page.evaluate(
            """() => {
                const lit = (role, light) => ({sensor: "reed", role, light});
                snap = {...snap, spots: {
                    r0c0: lit("blue@0.25", "#000040"), r0c1: lit("blue@1.00", "#0000ff"),
                    r0c2: lit("green@0.20", "#003300"), r0c3: lit("legal", "#0040ff"),
                }};
                drawLegend();
                const items = [...document.querySelectorAll("#legend li")];
                return items.map((li) => li.lastChild.textContent);
            }"""
        )
        assert said == [
            "Blue: a building, as bright as its points left; Blue\u2019s spawn, dim",
            "Green: a building, as bright as its points left; Green\u2019s spawn, dim",
            "a place a legal move changes",
        ]
        # The swatch is the role's brightest light.
        swatch = page.locator("#legend li .swatch").first
        assert swatch.evaluate("node => node.style.background") == "rgb(0, 0, 255)"
        # A spot that blinks as the game lights it (a forgotten capture to be made) keeps its
        # role in the legend; one lit for nothing else is to be put right (the walk: Potions'
        # cards, where they should be, were "to put right").
        blinking = "({fix: true, role: %s})"
        assert page.evaluate("blinkRole" + blinking % '"forgotten"') == "forgotten"
        assert page.evaluate("blinkRole" + blinking % "null") == "fix"


def test_a_hint_whose_moves_look_alike_says_so(page: Page, tmp_path: Path) -> None:
    """The walk: a Takeover hint at set-up listed five tiles, all "49 %", "the best first". When
    the chances are within the playouts' noise the note says any will do. A Voodoo hint listed
    five moves, each "few tries": when none was tried enough, the note says so once."""
    with dashboard(tmp_path, "--game", "akuma", "--seed", "1", *TABLE) as table:
        page.goto(table.page)
        expect(page.locator('#actions [data-action^="choose_dice:"]').first).to_be_visible()
        note = """chances => {
            const ids = ["choose_dice:1", "choose_dice:2"];
            snap = {...snap, hint: {player: "hawkmoth", lit: null, iterations: 900,
                choices: chances.map((chance, i) => ({id: ids[i], chance}))}};
            drawComputer();
            return document.getElementById("hint-note").textContent;
        }"""
        alike = "These moves look alike to the table"
        assert alike in page.evaluate(note, [49, 48])
        assert alike not in page.evaluate(note, [62, 41])
        assert alike not in page.evaluate(note, [49, None])  # too few tries to say
        untried = "in 900 playouts, tried none of them often enough to give its chance"
        said = page.evaluate(note, [None, None])
        assert untried in said and "chance of winning" not in said
        expect(page.locator("#hint-choices .share")).to_have_count(0)  # no "few tries" each
        assert untried not in page.evaluate(note, [49, None])
        expect(page.locator("#hint-choices .share")).to_have_count(2)


def test_on_a_phone_a_pill_says_the_decisions_wait_below_the_board(
    page: Page, tmp_path: Path
) -> None:
    """The walk: on a phone Akuma's first decisions sit 1.5 screens below the board, and nothing
    says so. A pill at the foot of the screen does, while they are out of view, and takes the
    player there."""
    page.set_viewport_size({"width": 390, "height": 844})
    with dashboard(tmp_path, "--game", "akuma", "--seed", "1", *TABLE) as table:
        page.goto(table.page)
        pill = page.locator("#below-pill")
        expect(pill).to_have_text("\u2193 2 decisions to choose from, below")
        expect(pill).to_be_visible()
        choice = page.locator('#actions [data-action="choose_dice:1"]')
        expect(choice).not_to_be_in_viewport()
        pill.click()
        expect(choice).to_be_in_viewport()
        expect(pill).to_be_hidden()
        page.locator("#lang").select_option("fr")
        page.evaluate("window.scrollTo(0, 0)")
        expect(pill).to_have_text("\u2193 2 décisions au choix, plus bas")


def test_a_hint_whose_move_lights_nothing_says_to_use_its_button(
    page: Page, tmp_path: Path
) -> None:
    """Capture the Akuma's first decision, one die or two (AK-3), is no place on the board: the
    hint says to play it with its button rather than to tap it on the board."""
    with dashboard(tmp_path, "--game", "akuma", "--seed", "1", *TABLE) as table:
        page.goto(table.page)
        expect(page.locator('#actions [data-action^="choose_dice:"]').first).to_be_visible()
        page.locator("#hint").click()
        expect(page.locator("#hint-note")).to_contain_text(
            "Play it with its button among the decisions", timeout=15_000
        )
        expect(page.locator("#hint-note")).not_to_contain_text("light it on the board")


def test_multipli_potion_counts_its_actions_not_turns_in_the_header(
    page: Page, tmp_path: Path
) -> None:
    with dashboard(tmp_path, "--game", "potions", "--seed", "3", *TABLE) as table:
        page.goto(table.page)
        page.locator("#lay-out").click()
        expect(page.locator("#turn")).to_have_text(
            "Actions played 2 · Player 1: play a card from your hand"
        )
        page.locator("#lang").select_option("fr")
        expect(page.locator("#turn")).to_contain_text("Actions jouées 2 · Joueur 1")


def test_multipli_potions_rows_say_whose_zone_they_are(page: Page, tmp_path: Path) -> None:
    """The walk: six rows of "slot 1".."trophy 5" and nothing said whose they were. Each row
    has a caption naming its player by the name given (words section `rows`)."""
    names = ("--names", "Ada,Bo")
    with dashboard(tmp_path, "--game", "potions", "--seed", "3", *names, *TABLE) as table:
        page.goto(table.page)
        captions = page.locator("#board .row-caption")
        expect(captions).to_have_text(
            [
                "Bo: trophies",
                "Bo: play zone, slots 11-20",
                "Bo: play zone, slots 1-10",
                "Ada: play zone, slots 1-10",
                "Ada: play zone, slots 11-20",
                "Ada: trophies",
            ]
        )
        # A detail holding decisions (MP-3's forgotten captures) says them in words.
        capture = "capture:8x10:2x10:2x8"
        said = page.evaluate("(id) => valueText('forgotten', id)", capture)
        assert said == page.evaluate("(id) => actionText(id)", capture) and ":" not in said
        page.locator("#lang").select_option("fr")
        expect(captions.first).to_have_text("Bo : trophées")


WHOSE_ROWS = (
    ("Player 2", "power cards, round by round"),
    ("Player 2", "squad"),
    ("Player 1", "squad"),
    ("Player 1", "power cards, round by round"),
)


def test_a_spot_named_in_a_sentence_says_whose_it_is(page: Page, tmp_path: Path) -> None:
    """The walk: "s1.c1" in the details, and "position 3" said of either player's card. On the
    board a square's label stays short; the details and what the page asks name the seat
    (words section `places`), in either language."""
    state = started()
    journal = Journal(tmp_path)
    journal.start("mightymania", state.options)
    journal.append_actions(state.history())
    with dashboard(tmp_path, "--game", "mightymania") as table:
        page.goto(table.page)
        details = page.locator("#details")
        expect(details).to_contain_text("Player 1's position 1")
        expect(details).not_to_contain_text("s1.c1")
        expect(page.locator('[data-spot="s2.c3"] > .label')).to_have_text("position 3")
        expect(page.locator("#board .row-caption")).to_have_text(
            [f"{who}: {what}" for who, what in WHOSE_ROWS]
        )
        assert page.evaluate("fixText('s2.c3', { expected: 'down' })") == (
            "Put the face-down card on Player 2's position 3"
        )
        problem = {"key": "problem", "problem": "not_power_card"}
        note = problem | {"params": {"spot": "s1.r2", "token": "T1"}}
        assert page.evaluate("(note) => messageText({ note })", note) == (
            "Player 1's round 2: Colossus is no power card"
        )
        page.locator("#lang").select_option("fr")
        expect(details).to_contain_text("position 1 du Joueur 1")


def test_on_a_phone_a_power_cards_whole_name_shows_on_it(page: Page, tmp_path: Path) -> None:
    """At 390 px a Mightymania spot is 64 px wide: a power card turned up keeps its whole name
    on it ("brainwashing" on two lines), not cut at the card's edge."""
    state = started()
    attack(state, 2, 2, "T2", "R2")
    duel(state, "brainwashing invisibility force", "speed thermokinetic invisibility")
    journal = Journal(tmp_path)
    journal.start("mightymania", state.options)
    journal.append_actions(state.history())
    page.set_viewport_size({"width": 390, "height": 844})
    with dashboard(tmp_path, "--game", "mightymania") as table:
        page.goto(table.page)
        expect(page.locator("#board .on-card", has_text="Brainwashing")).to_be_visible()
        cut = measure_all(page, "#board .square", CUT)
        assert len(cut) >= 6 and [name for name in cut if name[1] or name[2] > 0.5] == []
        # In the page's words: the walk read "thermokinetic" on a card beside "Thermocinétique".
        page.locator("#lang").select_option("fr")
        expect(page.locator("#board .on-card", has_text="Thermocinétique")).to_be_visible()
        cut = measure_all(page, "#board .square", CUT)
        assert [name for name in cut if name[1] or name[2] > 0.5] == []


# Each name on a card: its text, whether it is cut (wider than its box), how far its box reaches
# past its square.
CUT = """squares => squares.flatMap(square => {
  const box = square.getBoundingClientRect();
  return [...square.querySelectorAll(".on-card")].map(text => {
    const r = text.getBoundingClientRect();
    return [text.textContent, text.scrollWidth > text.clientWidth + 1,
            Math.max(box.left - r.left, r.right - box.right)];
  });
})"""


def test_where_a_die_goes_by_a_capture_or_a_paid_power_is_marked_apart(
    page: Page, tmp_path: Path
) -> None:
    """The walk, Baron Voodoo: a die tapped lit its captures and another Loa's swaps with one ◎,
    drawn over the dice's own glyphs, and a tap paid an Offering unawares. Each kind has its
    mark, in the place's corner over a die, and the words say which is which and its cost."""
    state = GAME_VOODOO.new_initial_state({"players": 2})
    rng = random.Random(7)
    while state.is_chance_node():
        random_step(state, rng)
    journal = Journal(tmp_path)
    journal.start("voodoo", state.options)
    journal.append_actions(state.history())
    with dashboard(tmp_path) as table:
        page.goto(table.page)
        actions = fetch(f"{table.url}api/snapshot", headers=table.key).json()["actions"]
        start = next(a["at"] for a in actions if a["id"].startswith("jump:"))
        page.locator(f'#board .square[data-spot="{start}"]').click()
        aims = page.locator("#board .square.target > .aim")
        expect(aims.first).to_be_visible()
        marks = aims.all_text_contents()
        # Where a capture lands, a swap with the die there may go too: both marks (the review).
        assert set(marks) == {"◇", "◎◇"}
        expect(page.locator("#point-help .aims")).to_have_text(
            "◎ Jumps · ◇ Erzulie Freda\u2019s power (Offerings \u22121)"
        )
        disc = aims.first.evaluate("node => getComputedStyle(node).backgroundColor")
        assert disc not in ("", "transparent", "rgba(0, 0, 0, 0)")  # a corner disc over the die
