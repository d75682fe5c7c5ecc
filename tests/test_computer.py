"""The table as a player (issue 24): computer seats on the simulated table, their moves lit and
carried out by hands (a wrong one blinks), thinking that never holds up the table, hints, and
bad seats or levels refused. Dice Race (tests/dice_race.py) keeps the thinking short."""

from __future__ import annotations

import io
import math
import queue
import random
import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import RunOptionsMaker, fast_sim_config, wait_for
from daemon_run import call, serving
from playwright.sync_api import Page, expect
from table_session import session_over, without
from voodoo_play import position

from controller.cli import main
from controller.computer import FEW_PLAYOUTS, Computer
from controller.daemon import Daemon
from controller.hands import SimHands
from controller.journal import Journal
from controller.operations import answer
from controller.operations.table import _next_steps
from controller.rules import get_game
from controller.rules.api import JSON, Game
from controller.rules.takeover import TakeoverState
from controller.rules.words import action_text, word_text
from controller.search import Choice, Thought
from controller.session import Session
from controller.simulate import random_step
from controller.startup import StartupError
from controller.thinker import Job, Thinker, thought_from_json

SHOWN = {"shown_from", "shown_to", "shown_take", "shown_swap"}


def test_computer_seats_play_a_game_to_its_end_and_a_restart_keeps_them(
    race: Game, run_options: RunOptionsMaker, tmp_path: Path
) -> None:
    """Both seats thinking, the bots as hands carrying out each move; the journal keeps the
    seats, so a restart plays them too; a hint when the game is over is refused."""
    config = fast_sim_config(game=race.name)
    run = run_options(bots=True, pace=0.0, until_end=True, seed=4, computer=("1:easy", "blue"))
    daemon = Daemon(config, run)
    daemon.open()
    try:
        assert daemon.computer_seats == {0, 1}
        assert daemon.run() == 0
        assert daemon.session.state.is_terminal()
        assert daemon.session.sensed == daemon.session.expected
        refused = answer(daemon, {"op": "hint"}, daemon.clock())
        assert refused["ok"] is False and refused["key"] == "hint_over"
        assert "game is over" in refused["error"]
    finally:
        daemon.close()
    record = Journal(tmp_path).read()
    assert record.computer == {0: "easy", 1: "normal"} and record.hints
    assert record.computer_dice == "hand"  # none asked for
    again = Daemon(config, run_options(seed=4))
    again.open()
    try:
        assert again.computer_seats == {0, 1}
        assert again.snapshot(again.clock())["computer"] == ["easy", "normal"]
    finally:
        again.close()


def test_who_throws_the_tables_dice_is_kept_by_the_journal(
    race: Game, tmp_path: Path, run_options: RunOptionsMaker
) -> None:
    """`--computer-dice virtual` is the game's: journalled, kept by a restart without it, and
    a restart asking for hand dice is another game, refused with nothing changed. A journal
    from before the choice reads as dice thrown by hand."""
    config = fast_sim_config(game=race.name)
    daemon = Daemon(config, run_options(seed=4, computer=("2",), computer_dice="virtual"))
    daemon.open()
    try:
        assert daemon.snapshot(daemon.clock())["computer_dice"] == "table"
    finally:
        daemon.close()
    assert Journal(tmp_path).read().computer_dice == "virtual"
    again = Daemon(config, run_options(seed=4))
    again.open()
    try:
        assert again.snapshot(again.clock())["computer_dice"] == "table"
    finally:
        again.close()
    with pytest.raises(StartupError, match="computer's dice are thrown by the table"):
        Daemon(config, run_options(seed=4, computer_dice="hand")).open()
    assert Journal(tmp_path).read().computer_dice == "virtual"
    assert (tmp_path / "journal.jsonl").read_text().count("computer_dice") == 1


def _snap(daemon: Daemon) -> dict[str, object]:
    return call(daemon, op="snapshot")


def _carry_out(daemon: Daemon, pawn: str, start: int, end: int) -> None:
    """A hand moves a pawn on the simulated table: lifted, then laid."""
    assert call(daemon, op="place", spot=f"{start}.{pawn}", lift=True)["ok"]
    assert call(daemon, op="place", spot=f"{end}.{pawn}", token="piece")["ok"]


def test_a_computer_move_is_lit_and_only_that_move_is_taken(
    race: Game, run_options: RunOptionsMaker, page: Page
) -> None:
    """Red plays from the page, with a hint; blue is the table's, its dice rolled by the table:
    it lights its move, refuses another one (which blinks) and takes its own. A new game from
    the page's form, with a seat for the table and hints off; bad seats are refused with nothing
    changed."""
    config = fast_sim_config(game=race.name, web_listen="127.0.0.1:0")
    run = run_options(seed=3, computer=("2:easy",), think_s=0.3, computer_dice="virtual")
    with serving(config, run) as daemon:
        assert daemon.web is not None
        page.goto(daemon.web.url(with_token=True))
        assert call(daemon, op="hint")["key"] == "hint_chance"  # red rolls: nobody to hint
        assert call(daemon, op="roll", values=[4])["ok"]
        # Red's hint: thought about in the worker, then lit and listed, best first.
        page.locator("#hint").click()
        expect(page.locator("#hint-choices li")).to_have_count(2)
        hint = _snap(daemon)["hint"]
        assert isinstance(hint, dict) and hint["player"] == "red"
        ids = [choice["id"] for choice in hint["choices"]]
        assert sorted(ids) == ["advance:1", "advance:4"] and hint["best"] == ids[0]
        assert sum(choice["share"] for choice in hint["choices"]) == pytest.approx(1, abs=0.01)
        # Each listed with its chance of winning, from the mean return (-1 to 1) after it, or
        # none where too few playouts tried it.
        chances = [
            "few tries" if c["playouts"] < FEW_PLAYOUTS else f"{c['chance']} %"
            for c in hint["choices"]
        ]
        assert [c["chance"] is None for c in hint["choices"]] == [
            c["playouts"] < FEW_PLAYOUTS for c in hint["choices"]
        ]
        assert all(
            c["chance"] == math.floor((c["value"] + 1) * 50 + 0.5)
            for c in hint["choices"]
            if c["chance"] is not None
        )
        expect(page.locator("#hint-choices li .share")).to_have_text(chances)
        # Another move of the hint tapped is lit and brought into view: on a phone the board
        # may lie a screen above the list (the walk, Hostile Takeover).
        page.set_viewport_size({"width": 390, "height": 400})
        second = page.locator("#hint-choices li").nth(1)
        second.scroll_into_view_if_needed()
        lit = page.locator('#board [data-role^="shown_"]')
        expect(lit.first).not_to_be_in_viewport()
        second.click()
        expect(second).to_have_class(re.compile(r"\blit\b"))
        expect(lit.first).to_be_in_viewport()
        page.set_viewport_size({"width": 1100, "height": 900})
        page.locator("#hint-choices li").first.click()  # the best lit again, as it was
        expect(page.locator("#hint-choices li").first).to_have_class(re.compile(r"\blit\b"))
        reply = call(daemon, op="hint")
        assert reply["ok"] and not reply["pending"] and reply["hint"]["best"] == hint["best"]
        spots = _snap(daemon)["spots"]
        assert isinstance(spots, dict)
        assert {spot["role"] for spot in spots.values()} & SHOWN
        assert call(daemon, op="act", id="advance:4")["ok"]
        # Blue is the table's: it rolls, thinks, then shows one move and offers only that one.
        wait_for(lambda: len(_snap(daemon)["actions"]) == 1, what="the table's move")
        snap = _snap(daemon)
        rolled = snap["log"][-1]
        assert rolled.startswith("roll:") and rolled != "roll:1"
        (shown,) = (action["id"] for action in snap["actions"])
        other = "advance:1" if shown != "advance:1" else f"advance:{rolled[5:]}"
        assert snap["thinking"] is None and snap["note"]["key"] == "computer_move"
        assert call(daemon, op="hint")["key"] == "hint_computer"
        assert "played by the table" in call(daemon, op="act", id=other)["error"]
        # A hand carries out the other legal move: not taken, and it blinks until put right.
        log = len(snap["log"])
        _carry_out(daemon, "blue", 1, 1 + int(other.split(":")[1]))
        wait_for(lambda: any(s["fix"] for s in _snap(daemon)["spots"].values()), what="blink")
        snap = _snap(daemon)
        assert len(snap["log"]) == log and snap["note"]["key"] == "not_shown"
        _carry_out(daemon, "blue", 1 + int(other.split(":")[1]), 1 + int(shown.split(":")[1]))
        wait_for(lambda: len(_snap(daemon)["log"]) == log + 1, what="the table's move taken")
        assert _snap(daemon)["log"][-1] == shown
        # A new game from the page's form: blue the table's at the strong level, hints off, its
        # dice thrown by hand now (asked only once a seat is the table's; as this game's first).
        page.select_option("#new-game", race.name)
        page.select_option('#new-seats select[data-seat="2"]', "")
        expect(page.locator("#new-dice")).to_be_hidden()
        page.select_option('#new-seats select[data-seat="2"]', "strong")
        expect(page.locator("#new-dice")).to_have_value("virtual")
        page.select_option("#new-dice", "hand")
        page.locator("#new-hints").uncheck()
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("#new-form button[type=submit]").click()
        wait_for(lambda: _snap(daemon)["log"] == [], what="the new game")
        snap = _snap(daemon)
        assert snap["computer"] == [None, "strong"] and snap["hints"] is False
        assert snap["computer_dice"] == "hand" and daemon.journal.computer_dice == "hand"
        expect(page.locator("#hint")).to_be_hidden()
        assert call(daemon, op="roll", values=[2])["ok"]
        refused = call(daemon, op="hint")
        assert refused["key"] == "hints_off" and "switched off" in refused["error"]
        for bad, said in ((["3"], "no seat 3"), (["1:genius"], "no level 'genius'")):
            reply = call(daemon, op="new", abandon=True, computer=bad)
            assert not reply["ok"] and said in reply["error"]
        reply = call(daemon, op="new", abandon=True, computer=["2"], computer_dice="dealt")
        assert not reply["ok"] and "'dealt'" in reply["error"]
        assert _snap(daemon)["log"] == ["roll:2"]  # nothing changed


def test_thinking_never_holds_up_the_table(run_options: RunOptionsMaker) -> None:
    """Hawk Moth is the table's, at the strong level: while it thinks the table answers, its
    progress shows on the page and in the terminal; a pause stops the thinking, and the next
    game's seats are the players'."""
    shown = io.StringIO()
    run = run_options(seed=2, computer=("hawkmoth:strong",), show=shown)
    with serving(fast_sim_config(game="akuma"), run) as daemon:
        wait_for(lambda: _snap(daemon)["thinking"] is not None, what="thinking")
        thinking = _snap(daemon)["thinking"]
        assert thinking["player"] == "hawkmoth" and thinking["level"] == "strong"
        assert not thinking["hint"]
        started = time.monotonic()
        wait_for(lambda: _snap(daemon)["thinking"]["fraction"] > 0, what="progress")
        # Answered as it thinks: many snapshots in the time one move takes.
        assert time.monotonic() - started < 4.0
        assert call(daemon, op="act", id="choose_dice:1")["key"] == "illegal"
        assert "thinking (Hawk Moth, strong) " in shown.getvalue()
        assert call(daemon, op="pause")["ok"]
        wait_for(lambda: _snap(daemon)["thinking"] is None, what="thinking stopped")
        assert call(daemon, op="new", abandon=True)["ok"]
        assert _snap(daemon)["computer"] == [None, None]
        assert daemon.computer_seats == frozenset()


def test_a_phone_scrolled_down_still_sees_the_table_think(
    run_options: RunOptionsMaker, page: Page
) -> None:
    """On a phone, the bar above the board scrolls away with it: while the table thinks, its
    words and progress stay in brief at the foot of the screen, gone again once the bar is back
    in view (a tap on them brings it)."""
    config = fast_sim_config(game="akuma", web_listen="127.0.0.1:0")
    run = run_options(seed=2, computer=("hawkmoth:strong",), think_s=60.0)
    with serving(config, run) as daemon:
        assert daemon.web is not None
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(daemon.web.url(with_token=True))
        expect(page.locator("#thinking-progress")).to_be_visible()
        pill = page.locator("#thinking-pill")
        expect(pill).to_be_hidden()  # the bar itself is in view
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        expect(page.locator("#thinking")).not_to_be_in_viewport()
        expect(pill).to_be_in_viewport()
        expect(pill).to_contain_text("Hawk Moth (the table, strong) is thinking")
        expect(page.locator("#thinking-pill-progress")).to_be_visible()
        pill.click()
        expect(page.locator("#thinking")).to_be_in_viewport()
        expect(pill).to_be_hidden()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--computer", "4"], "no seat 4: this game has seats 1 to 3"),
        (["--computer", "2:genius"], "no level 'genius'; the levels are easy, normal, strong"),
        (["--computer", "baron"], "no seat named 'baron'"),
        (
            ["--computer", "2:"],
            "'2:': a level is missing after the colon; the levels are easy, normal, strong",
        ),
        (["--computer", ":strong"], "':strong': a seat is missing before the colon"),
        (["--computer", " "], "a seat is missing, as in 2:strong"),
        (["--computer", "2", "--computer", "gran_bwa:easy"], "seat 2 (gran_bwa) is given twice"),
    ],
)
def test_bad_computer_seats_are_refused_before_the_table_starts(
    given: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "--sim", "--no-show", "--game", "voodoo", "--players", "3"]
    assert main([*args, *given, "--state-dir", str(tmp_path)]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "journal.jsonl").exists()


def test_waiting_for_the_table_names_its_seat(tmp_path: Path) -> None:
    """The table's seat is to move while the pieces of the move before are still to lay: the
    message names whom it waits for (the page says it in words from the seat)."""
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.table_seats = frozenset({1})  # the table plays the Ladybug
    start = dict(session.expected)
    session.act("choose_dice:1", 0.0)
    session.on_dice([4], 0.0)  # the Akuma goes to square 4: the table shows it nowhere yet
    session.on_layout(start, 1.0)
    assert session.note == {"key": "wait_table", "player": "ladybug"}


def test_a_move_shown_is_lit_without_the_games_landings(tmp_path: Path) -> None:
    """Baron Voodoo lights where every capture may land (BV-5); once the table shows its move,
    only that move's lights are left to follow: the game's landings go, and come back after."""
    game = get_game("voodoo")
    state, rng = game.new_initial_state({"players": 3}), random.Random(2)
    while state.is_chance_node():
        random_step(state, rng)
    session = session_over(game, tmp_path, state)
    landing = {s for s, role in session.view(0.0).roles.items() if role == "landing"}
    move = next(a for a in session.legal_actions() if a.id.startswith("jump"))
    assert landing
    session.show(move, {move.id.split(":")[1]: "shown_from"}, only=True)
    assert "landing" not in session.view(0.0).roles.values()
    session.show(move, {}, only=False)
    assert {s for s, role in session.view(0.0).roles.items() if role == "landing"} == landing


def test_a_stack_jumped_over_is_lit_to_take_its_top_not_to_land_on(tmp_path: Path) -> None:
    """The walk, Baron Voodoo: the table's jump over a stack lit the stack "it ends here" beside
    the cell it lands on, and a tap there did nothing. The stack loses its top die (BV-5): it
    is lit to take that away, and only the landing says "ends here"."""
    game = get_game("voodoo")
    # P on T at r2c2 jumps r2c3, R on Y, to r2c4 (as test_voodoo_table's HELD, a stack jumped).
    board = {"r2c2": "TP", "r2c3": "YR", "r1c2": "Y", "r0c2": "W", "r3c2": "Y"}
    state = position(board, players=4, to_move=3, offerings=[0, 0, 0, 0])
    session = session_over(game, tmp_path, state)
    jump = next(a for a in session.legal_actions() if a.id == "jump:r2c2:r2c4")
    roles = Computer(game, {}, True, Thinker, None, random.Random(1)).roles(session, jump)
    assert roles == {"r2c2": "shown_from", "r2c3": "shown_take", "r2c4": "shown_to"}


def test_the_tables_move_carried_out_by_a_tap_says_whose_it_was(tmp_path: Path) -> None:
    """The walk: a tap carrying out the table's move said "Played: ...", which read as the
    player's own move. It says for whom it was carried out; a move of one's own stays "played"."""
    game = get_game("voodoo")
    state, rng = game.new_initial_state({"players": 3}), random.Random(2)
    while state.is_chance_node():
        random_step(state, rng)
    session = session_over(game, tmp_path, state)
    first = session.legal_actions()[0]
    session.show(first, {}, only=True)
    session.act(first.id, 0.0)
    player = state.player_name(state.current_player())
    assert session.note == {"key": "carried_out", "player": player, "actions": [first.id]}
    said = f"{action_text(game, first.id)} (control, for {word_text(game, player)})"
    assert session.message == said and "_" not in said
    own = session.legal_actions()[0]
    session.act(own.id, 1.0)
    assert session.note == {"key": "played", "actions": [own.id]}
    assert session.message == f"{action_text(game, own.id)} (control)"


def test_a_hint_names_a_move_as_undo_and_the_page_do(tmp_path: Path) -> None:
    """The walk: a hint said "Claim building 12" for the building `undo` and the page call
    13 (the words' `from1` form unread). A hint's words are the page's, for every move."""
    game = get_game("takeover")
    state, rng = game.new_initial_state({"players": 3}), random.Random(4)
    while not any(a.id.startswith("claim:") for a in state.legal_actions()):
        random_step(state, rng)
    claims = [a for a in state.legal_actions() if a.id.startswith("claim:")]
    computer = Computer(game, {}, True, _no_thinking, None, rng)
    thought = Thought(claims[0], tuple(Choice(a, 1 / len(claims), 0.0) for a in claims), 9, 1.0)
    computer.hint = ((), 0, thought)
    hint = computer.hint_json(session_over(game, tmp_path, state))
    assert isinstance(hint, dict)
    building = int(claims[0].id.split(":")[1])
    assert hint["choices"][0]["words"] == f"Claim building {building + 1}"
    assert [c["words"] for c in hint["choices"]] == [action_text(game, a.id) for a in claims]


def test_a_hint_gives_way_to_a_die_lifted_elsewhere(tmp_path: Path) -> None:
    """The walk, Baron Voodoo: a hint's jump stayed lit while the player lifted another die,
    beside that die's landings. It gives way while the die is in the hand, and comes back once
    the die is put back; the table's own move to carry out stays lit whatever is lifted."""
    game = get_game("voodoo")
    state, rng = game.new_initial_state({"players": 3}), random.Random(2)
    while state.is_chance_node():
        random_step(state, rng)
    session = session_over(game, tmp_path, state)
    jump = next(a for a in session.legal_actions() if a.id.startswith("jump"))
    hinted = Computer(game, {}, True, Thinker, None, random.Random(1)).roles(session, jump)
    # Another die that can move, on none of the hint's spots.
    other = next(
        a.id.split(":")[1]
        for a in session.legal_actions()
        if a.id.startswith("jump") and not set(a.id.split(":")[1:]) & set(hinted)
    )
    start = dict(session.expected)
    lifted = {spot: token for spot, token in start.items() if spot != other}
    beneath = game.lifted(state).get(other)  # what shows there once its top die is lifted
    if beneath is not None:
        lifted[other] = beneath
    for only in (False, True):
        session.show(jump, hinted, only=only)
        assert hinted.items() <= session.view(0.0).roles.items()
        session.on_layout(lifted, 1.0)
        roles = session.view(1.0).roles
        # A hint: where the die in the hand may go. The table's move: that die is a mistake.
        assert ("landing" in roles.values()) is not only
        assert (hinted.items() <= roles.items()) is only
        session.on_layout(start, 2.0)
        assert hinted.items() <= session.view(2.0).roles.items()
    # The die the hinted jump captures, lifted first: the hint stays, it is being carried out.
    session.show(jump, hinted, only=False)
    taken = next(spot for spot, role in hinted.items() if role == "shown_take")
    below = game.lifted(state).get(taken)
    session.on_layout({**without(start, taken), **({taken: below} if below else {})}, 3.0)
    kept = {spot: role for spot, role in hinted.items() if spot != taken}
    assert kept.items() <= session.view(3.0).roles.items()


def test_the_simulated_table_offers_no_card_of_the_tables_hidden_hand(tmp_path: Path) -> None:
    """Multipli Potion, the table playing seat 2: a tap on the simulated table (`place`) offers
    what the next move may lay, from the cards the hands hold; for the table's seat, only the
    move it shows, never its hand (MP-1's hands are hidden)."""
    game = get_game("potions")
    state, rng = game.new_initial_state(), random.Random(3)
    hands = SimHands(game, state, rng)
    while state.is_chance_node() or state.current_player() != 1:
        random_step(state, rng, hands.follow(state))
    session = session_over(game, tmp_path, state)
    table = SimpleNamespace(session=session, hands=hands, game=game)
    held = _next_steps(table)  # type: ignore[arg-type]
    assert held and all(a.id.startswith("place") for a in held)
    session.table_seats = frozenset({1})
    assert _next_steps(table) == []  # type: ignore[arg-type]  # still thinking
    session.show(held[0], {}, only=True)
    assert _next_steps(table) == [held[0]]  # type: ignore[arg-type]


def _no_thinking() -> Thinker:
    pytest.fail("the table was asked to think about a roll")


def test_the_table_rolls_the_dice_of_its_own_seat_and_no_one_elses() -> None:
    """Hostile Takeover, Blue the table's with its dice rolled by the table: it throws Blue's
    d12 whenever the rules call for it (for the first player, to claim, to attack, to defend:
    HT-5), never Red's or Green's, though the turn after a claim or a fight may be Blue's. The
    turns around a roll do not tell whose it is: the rules name the roller (`Game.roller`)."""
    game = get_game("takeover")
    rng = random.Random(6)
    thrown: list[object] = []
    computer = Computer(game, {1: "easy"}, False, _no_thinking, None, rng, thrown.append)
    seen: dict[tuple[str, bool], int] = {}
    for _ in range(6):
        state = game.new_initial_state({"players": 3})
        while not state.is_terminal():
            if game.dice_wanted(state) is not None:
                table = SimpleNamespace(state=state, elsewhere=frozenset(), table_seats=None)
                computer.step(table, halted=False)  # type: ignore[arg-type]
                s = TakeoverState.of(state)
                phase, own = s.phase.value, s.roller() == 1
                assert bool(thrown) == own, (phase, s.roller(), state.history()[-3:])
                seen[phase, own] = seen.get((phase, own), 0) + 1
                thrown.clear()
            random_step(state, rng)
    rolls = ("first_roll", "claim_roll", "attack_roll", "defend_roll")
    assert {(phase, own) for phase in rolls for own in (True, False)} <= set(seen)


def test_a_hint_is_thought_in_the_worker_for_every_game() -> None:
    """`hint` hands the worker the position as plain values (its game, options, history, the
    hidden cards the table keeps in step) at the strong level for a few seconds: in each of the
    five games, a few random steps in, it answers with a move the player could make, and the
    alternatives ranked by their share of the thought."""
    answers: queue.Queue[tuple[int, JSON | None, str | None]] = queue.Queue()
    thinker = Thinker(lambda number, result, error: answers.put((number, result, error)))
    seed = 5
    rng = random.Random(seed)
    try:
        for name in ("akuma", "voodoo", "takeover", "potions", "mightymania"):
            game = get_game(name)
            state = game.new_initial_state()
            hidden = game.deal(state, rng)
            while state.is_terminal() or state.is_chance_node() or rng.random() < 0.9:
                if state.is_terminal():  # a short game (an Akuma can end in two rolls): again
                    state = game.new_initial_state()
                    hidden = game.deal(state, rng)
                random_step(state, rng, hidden)
            job = Job(name, type(game).__module__, dict(state.options), state.history(),
                      "strong", seed, hidden, seconds=0.3)  # fmt: skip
            number = thinker.start(job)
            done, result, error = answers.get(timeout=60)
            assert (done, error) == (number, None) and result is not None
            thought = thought_from_json(game, result)
            could = state.legal_actions() if hidden is None else hidden.choices(state)
            assert thought.best in could, name
            assert {c.action for c in thought.ranked} <= set(state.legal_actions()), name
            shares = [c.share for c in thought.ranked]
            assert shares == sorted(shares, reverse=True) and sum(shares) <= 1.0001, name
    finally:
        thinker.close()


def test_a_hinted_move_tried_in_few_playouts_gets_no_chance_of_winning() -> None:
    """A hint lists each move's chance of winning from the playouts after it; a move the
    search hardly tried (under FEW_PLAYOUTS) would say 0 % or 100 % on a handful of games, so
    it says nothing rather than mislead."""
    game = get_game("akuma")
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        random_step(state, rng)
    first, second = state.legal_actions()[:2]
    computer = Computer(game, {}, True, _no_thinking, None, rng)
    thought = Thought(first, (Choice(first, 0.98, 0.23), Choice(second, 0.02, 1.0)), 500, 1.0)
    computer.hint = ((), 0, thought)
    table = SimpleNamespace(state=state)
    hint = computer.hint_json(table)  # type: ignore[arg-type]
    assert isinstance(hint, dict)
    best, rare = hint["choices"]
    assert (best["playouts"], best["chance"]) == (490, 62)  # (0.23 + 1) * 50, half up
    assert (rare["playouts"], rare["chance"]) == (10, None)


def test_the_move_the_table_chose_is_shown_again_after_a_restart(tmp_path: Path) -> None:
    """The walk: killed while a hand carried out the table's move, the table thought afresh
    and chose another. The move chosen is journalled until the game moves on, and a restart
    shows it again without thinking (`_no_thinking` fails if asked)."""
    game = get_game("akuma")
    state, rng = game.new_initial_state(), random.Random(3)
    session = session_over(game, tmp_path, state)
    while state.is_chance_node() or not any(map(session.changes, session.legal_actions())):
        random_step(state, rng)
        session = session_over(game, tmp_path, state)
    seat = state.current_player()
    move = next(a for a in session.legal_actions() if session.changes(a))
    session.journal.append_chosen(move.id)
    session.journal.close()
    record = Journal(tmp_path).read()
    assert record.chosen == move.id
    resumed = Session(game, state, Journal(tmp_path), 1.0)
    resumed.journal.recover()
    computer = Computer(game, {seat: "easy"}, True, _no_thinking, None, rng)
    computer.step(resumed, halted=False)
    assert resumed.shown == move and resumed.note is not None
    assert resumed.note["key"] == "computer_move" and resumed.note["actions"] == [move.id]
    # Once the game moves on, nothing chosen is left to show again.
    resumed.journal.append_action(move.to_json())
    resumed.journal.close()
    assert Journal(tmp_path).read().chosen is None
