"""Taking back moves (issue 24): how far a take-back goes in every game, the dice it keeps or
rolls again, the lights guiding the pieces back, the journal a restart resumes from, the
control op, the command and the page's button."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import fast_sim_config, options_in, wait_for
from daemon_run import call, serving
from playwright.sync_api import Page, expect
from table_session import session_over
from web_daemon import dashboard, fetch

from controller.cli import main
from controller.daemon import Daemon, RunOptions
from controller.hands import SimHands
from controller.journal import Journal, JournalError, Record
from controller.refusals import Refused
from controller.replay import load_record
from controller.rules import GAMES, get_game
from controller.rules.api import Action, Game, GameState
from controller.rules.words import action_text
from controller.session import Session, differing
from controller.takeback import Step, plan

NOW = 100.0


def played(game: Game, seed: int, decisions: int) -> GameState:
    """A game played at random until `decisions` decisions are made and the chance outcomes
    after the last one have come."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    made = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply(rng.choices(outcomes, weights)[0])
            continue
        if made == decisions:
            break
        state.apply(rng.choice(state.legal_actions()))
        made += 1
    return state


def journalled(game: Game, tmp_path: Path, state: GameState) -> Session:
    """A session over `state` whose journal holds its whole history, as the daemon's would."""
    session = session_over(game, tmp_path, game.new_initial_state(state.options))
    session.journal.append_actions(state.history())
    session.state = state
    session.sensed = session.expected
    return session


# -- how far a take-back goes -----------------------------------------------------------


def test_a_take_back_is_the_last_decision_and_what_followed_it() -> None:
    deal, roll = Step(None, False), Step(None, True)
    first, second = Step(0, False), Step(1, False)
    # Set-up cards, a decision, its roll; the same player's decision made on that roll.
    game = [deal, deal, first, roll, roll, first, roll]
    taken = plan(game)
    assert taken is not None
    assert (taken.keep, taken.rolled, taken.player) == (5, 2, 0)
    assert taken.kept(reroll=True) == 3  # the roll the decision was made on goes too
    # The next player's decision after another's roll: that roll is not theirs to throw again
    # (Hawk Moth's choice of dice after Ladybug's Miraculous die), unless the rules say it is.
    taken = plan([deal, first, roll, second, roll])
    assert taken is not None and (taken.keep, taken.rolled, taken.player) == (3, 0, 1)
    taken = plan([deal, first, roll, Step(None, True, roller=1), second])
    assert taken is not None and (taken.keep, taken.rolled) == (4, 1)
    # A card turned up before the decision stays up, even when rolling again.
    taken = plan([deal, first, deal, second])
    assert taken is not None and (taken.keep, taken.rolled) == (3, 0)
    assert plan([deal, roll, deal]) is None  # only the set-up: nothing to take back
    # Against the computer (seat 1), back to the person's last decision, its replies with it.
    taken = plan([deal, deal, first, roll, roll, second, roll], skip={1})
    assert taken is not None and (taken.keep, taken.rolled, taken.player) == (2, 0, 0)
    assert plan([deal, second, roll, second], skip={1}) is None
    # "End the turn" goes back with the move of the turn it ended, not alone; a turn that was
    # only ended is taken back alone.
    ended = Step(0, False, ends_turn=True)
    taken = plan([deal, first, roll, ended, second], skip={1})
    assert taken is not None and (taken.keep, taken.rolled) == (1, 0)
    taken = plan([deal, first, roll, first, ended, deal])
    assert taken is not None and (taken.keep, taken.rolled, taken.player) == (3, 1, 0)
    taken = plan([deal, second, ended])
    assert taken is not None and taken.keep == 2
    # The dice a decision brought (an attack's two rolls) go back with it, kept as they fell.
    taken = plan([deal, roll, first, roll, roll, deal])
    assert taken is not None and (taken.keep, taken.rolled, taken.fallen) == (2, 1, 2)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_takes_back_its_last_move_and_the_lights_guide_the_pieces_back(
    name: str, tmp_path: Path
) -> None:
    game = get_game(name)
    before = played(game, seed=7, decisions=6)
    session = journalled(game, tmp_path, before)
    shown = dict(session.sensed)  # the table as the move left it
    taken_plan = session.take_back_plan()
    assert taken_plan is not None
    history = before.history()
    taken = session.take_back(NOW)
    assert [a.to_json() for a in taken] == history[taken_plan.keep :]
    assert session.state.history() == history[: taken_plan.keep]
    assert session.state.current_player() == taken_plan.player  # that player's turn again
    assert session.state.is_legal(taken[0])
    expected = game.layout(session.state)
    assert session.expected == expected
    assert session.restoring == (expected != shown)
    # The table still shows the move: it is not read again, and once the settle time has
    # passed the spots to put back blink.
    session.on_layout(shown, NOW + 0.1)
    assert session.state.history() == history[: taken_plan.keep]
    assert session.fixes(NOW + 5) == differing(shown, expected)
    assert session.view(NOW + 5).blinking >= differing(shown, expected)
    session.on_layout(expected, NOW + 6)
    assert not session.restoring and session.fixes(NOW + 10) == frozenset()
    assert session.note == {"key": "took_back", "actions": [a.id for a in taken]}  # no more to do
    # The journal resumes the game as it is now, and the same move can be made again.
    record = Journal(tmp_path).read()
    assert record.history() == session.state.history()
    assert game.layout(game.replay(record.history(), record.options)) == expected
    # Made again, the decision gets the dice it had brought as they fell, not a new throw.
    session.act(taken[0].id, NOW + 11)
    assert session.state.history() == history[: taken_plan.keep + 1 + taken_plan.fallen]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_nothing_to_take_back_is_refused_and_changes_nothing(name: str, tmp_path: Path) -> None:
    game = get_game(name)
    state = played(game, seed=1, decisions=0)  # the set-up's deals and dice: no one's move
    session = journalled(game, tmp_path, state)
    written = session.journal.path.read_bytes()
    with pytest.raises(Refused, match="nothing to take back") as refused:
        session.take_back(NOW)
    assert refused.value.key == "nothing_to_undo"
    assert session.state.history() == state.history() and not session.restoring
    assert session.journal.path.read_bytes() == written


@pytest.mark.parametrize("name", sorted(name for name, game in GAMES.items() if game.turn_enders))
def test_a_take_back_after_ending_the_turn_takes_back_the_move_too(
    name: str, tmp_path: Path
) -> None:
    """The walk: taking back at the start of the next turn undid "End the turn" alone, the
    player left at the end of their turn again, where they meant their move."""
    game = get_game(name)
    rng = random.Random(3)
    state = game.new_initial_state()
    while True:
        assert not state.is_terminal(), "no turn ended after a move"
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply(rng.choices(outcomes, weights)[0])
            continue
        legal = state.legal_actions()
        ending = [a for a in legal if type(a) in game.turn_enders]
        seat = state.current_player()
        if ending and len(legal) > 1 and made_by(game, state) == seat:
            break
        state.apply(rng.choice(legal))
    move = len(state.actions()) - 1  # the seat's move before it ends the turn
    state.apply(ending[0])
    session = journalled(game, tmp_path, state)
    taken = session.take_back(NOW)
    assert taken[0] == state.actions()[move] and type(taken[1]) in game.turn_enders
    assert session.state.current_player() == seat


def made_by(game: Game, state: GameState) -> int | None:
    """The seat whose decision was the last action of `state`, if it was a decision."""
    before = game.replay(state.history()[:-1], state.options)
    return None if before.is_chance_node() else before.current_player()


def test_a_finished_game_takes_back_the_move_that_ended_it(tmp_path: Path) -> None:
    game = get_game("akuma")
    over = played(game, seed=3, decisions=10_000)
    assert over.is_terminal()
    session = journalled(game, tmp_path, over)
    session.take_back(NOW)
    assert not session.state.is_terminal() and game.result(session.state) is None


def test_the_dice_stay_as_they_fell_unless_rolled_again(tmp_path: Path) -> None:
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.act("choose_dice:2", NOW)
    session.on_dice([4, 6], NOW)  # 10: the Hawk Moth lays a trap (AK-4)
    session.act("place_trap:5", NOW)  # a decision made on the Hawk Moth's own roll
    taken = session.take_back(NOW)
    assert [a.id for a in taken] == ["place_trap:5"]
    assert [a["type"] for a in session.state.history()] == ["ChooseDice", "Roll"]  # kept
    session.act("place_trap:5", NOW)
    taken = session.take_back(NOW, reroll=True)
    assert [a.id for a in taken] == ["roll:10", "place_trap:5"]
    assert session.state.is_chance_node() and game.dice_wanted(session.state) is not None
    record = Journal(tmp_path).read()
    assert [entry.get("take_back") for entry in record.entries if "take_back" in entry] == [1, 2]
    assert len(record.history()) == 1
    # The rolls taken back were thrown all the same: the dice's record keeps them.
    assert [entry["dice"]["values"] for entry in record.entries if "dice" in entry] == [[4, 6]]


def test_a_take_back_never_throws_another_players_roll_again(tmp_path: Path) -> None:
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.act("choose_dice:1", NOW)
    session.on_dice([4], NOW)  # the Hawk Moth's roll (AK-3)
    session.act("choose_dice:1", NOW)  # the Ladybug's turn: her choice is not made on it
    taken_plan = session.take_back_plan()
    assert taken_plan is not None and taken_plan.rolled == 0
    with pytest.raises(Refused, match="no roll to take back"):
        session.take_back(NOW, reroll=True)
    taken = session.take_back(NOW)
    assert [a.id for a in taken] == ["choose_dice:1"]
    assert [a["type"] for a in session.state.history()] == ["ChooseDice", "Roll"]


def test_a_decision_made_again_gets_the_dice_it_had_brought(tmp_path: Path) -> None:
    """The walk: a lost fight taken back was fought again with new dice, and won. The same
    decision made again gets its dice as they fell, two take-backs in a row too; another
    decision throws afresh; rolling again never throws the dice a move brought."""
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.act("choose_dice:2", NOW)
    session.on_dice([1, 2], NOW)  # a 3: not what Hawk Moth hoped for
    with pytest.raises(Refused, match="no roll to take back"):
        session.take_back(NOW, reroll=True)  # her choice was made on no roll
    assert [a.id for a in session.take_back(NOW)] == ["choose_dice:2", "roll:3"]
    session.act("choose_dice:2", NOW)
    assert [a.id for a in session.state.actions()] == ["choose_dice:2", "roll:3"]
    assert session.note == {"key": "as_fallen", "actions": ["choose_dice:2", "roll:3"]}
    session.take_back(NOW)
    session.act("choose_dice:1", NOW)  # another decision: its own throw
    assert session.state.is_chance_node()
    # Taken back too, the first decision made again still gets its dice (the walk: another
    # move tried between, and the fight was fought afresh).
    session.take_back(NOW)
    session.act("choose_dice:2", NOW)
    assert [a.id for a in session.state.actions()] == ["choose_dice:2", "roll:3"]
    session.take_back(NOW)
    session.act("choose_dice:1", NOW)
    session.on_dice([4], NOW)
    session.act("choose_dice:1", NOW)  # Ladybug's turn
    session.on_dice([5], NOW)
    session.take_back(NOW)
    session.take_back(NOW)  # both moves, each with the die it brought
    assert not session.state.actions()
    session.act("choose_dice:1", NOW)
    session.act("choose_dice:1", NOW)
    assert [a.id for a in session.state.actions()] == [
        "choose_dice:1", "roll:4", "choose_dice:1", "roll:5"
    ]  # fmt: skip


def test_rolling_again_a_move_made_on_no_roll_is_refused(tmp_path: Path) -> None:
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.act("choose_dice:2", NOW)
    with pytest.raises(Refused, match="no roll to take back") as refused:
        session.take_back(NOW, reroll=True)
    assert refused.value.key == "no_reroll"
    assert len(session.state.history()) == 1


def test_against_the_computer_a_take_back_goes_back_a_whole_round(tmp_path: Path) -> None:
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.table_seats = frozenset({1})  # the table plays the Ladybug
    session.act("choose_dice:1", NOW)
    session.on_dice([4], NOW)
    chosen = next(a for a in session.legal_actions() if a.id == "choose_dice:2")
    session.show(chosen, {}, only=True)  # the table's choice, lit for a hand to carry out
    session.act("choose_dice:2", NOW)
    session.on_dice([3, 5], NOW)
    taken = session.take_back(NOW)
    assert [a.id for a in taken] == ["choose_dice:1", "roll:4", "choose_dice:2", "roll:8"]
    assert session.state.history() == []


def test_the_position_put_back_by_hand_offers_the_take_back(tmp_path: Path) -> None:
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    start = dict(session.expected)
    session.act("choose_dice:2", NOW)
    session.on_dice([3, 5], NOW)  # the Akuma goes to square 8
    session.on_layout(session.expected, NOW)
    session.on_layout(start, NOW + 1)  # and is put back where it stood by hand
    assert session.shows_before() and session.note == {"key": "undo_offer"}
    assert len(session.state.history()) == 2  # offered, not done
    session.take_back(NOW + 2)
    assert session.state.history() == [] and not session.restoring
    assert session.fixes(NOW + 10) == frozenset()


def test_a_move_taken_on_the_page_is_not_offered_back_before_hands_carry_it_out(
    tmp_path: Path,
) -> None:
    """The table still shows the position before a move taken on the page: that is the move
    waiting for hands, not a take-back by hand. Once carried out and then put back, it is."""
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    start = dict(session.expected)
    session.act("choose_dice:2", NOW)
    session.on_dice([3, 5], NOW)  # the Akuma goes to square 8; the table shows it nowhere
    session.on_layout(start, NOW + 1)
    assert not session.shows_before() and session.note != {"key": "undo_offer"}
    session.on_layout(session.expected, NOW + 2)
    session.on_layout(start, NOW + 3)
    assert session.shows_before()


# -- the journal ------------------------------------------------------------------------


def test_the_dice_kept_by_a_take_back_outlast_a_restart_and_the_log_says_so(
    tmp_path: Path,
) -> None:
    """The walk: the dice kept were lost at a restart, and the page's note saying why no dice
    were thrown was gone with the computer's reply. The journal keeps both."""
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.act("choose_dice:2", NOW)
    session.on_dice([1, 2], NOW)
    session.take_back(NOW)
    assert session.journal.take_backs.fallen_json() == []
    journal = Journal(tmp_path)
    record = journal.recover()
    restarted = Session(game, game.replay(record.history(), record.options), journal, 1.0)
    restarted.act("choose_dice:2", NOW)
    assert [a.id for a in restarted.state.actions()] == ["choose_dice:2", "roll:3"]
    assert restarted.journal.take_backs.fallen_json() == [1]
    assert Journal(tmp_path).read().take_backs().fallen_json() == [1]  # after another restart
    # Taken back again, the place of the dice kept is no longer in the line.
    restarted.take_back(NOW)
    assert restarted.journal.take_backs.fallen_json() == []
    restarted.act("choose_dice:1", NOW)
    restarted.on_dice([4], NOW)
    assert Journal(tmp_path).read().take_backs().fallen_json() == []
    # A kept record that this version cannot read costs the dice kept, not the game.
    broken = Journal(tmp_path / "broken")
    broken.start("akuma", {})
    broken.dice_kept = [{"at": 0, "decision": {"type": "Nonsense"}, "dice": []}]
    fresh = Session(game, game.new_initial_state(), broken, 1.0)
    fresh.act("choose_dice:2", NOW)
    assert fresh.state.is_chance_node()


def test_the_journal_replays_past_a_take_back(tmp_path: Path) -> None:
    entries = [
        {"action": {"type": "ChooseDice", "count": 1}, "request": "a"},
        {"action": {"type": "Roll", "total": 4}},
        {"take_back": 2, "request": "b"},
        {"action": {"type": "ChooseDice", "count": 2}},
    ]
    record = Record("akuma", {}, entries)
    assert record.history() == [{"type": "ChooseDice", "count": 2}]
    assert record.taken_back() == {"b": [entries[0]["action"], entries[1]["action"]]}
    with pytest.raises(JournalError, match="cannot take back 3 of 2 actions"):
        Record("akuma", {}, [*entries[:2], {"take_back": 3}]).history()
    # A kept game's journal shows again as it ended: `smartboard replay`, past games.
    game = get_game("akuma")
    session = session_over(game, tmp_path, game.new_initial_state())
    session.act("choose_dice:2", NOW)
    session.take_back(NOW)
    session.act("choose_dice:1", NOW)
    assert load_record(session.journal.path).history == [{"type": "ChooseDice", "count": 1}]


# -- the control op and the command, across a restart -----------------------------------


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Daemon]:
    options = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=3)
    with serving(fast_sim_config(), options) as daemon:
        yield daemon


def test_undo_through_the_op_and_the_command_and_after_a_kill(
    running: Daemon, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = running.journal.path
    written = journal.read_bytes()
    nothing = call(running, op="undo")
    assert nothing["ok"] is False and nothing["key"] == "nothing_to_undo"
    bad = call(running, op="undo", reroll="yes")
    assert bad == {"ok": False, "error": "\"reroll\" is true or false, not 'yes'"}
    assert journal.read_bytes() == written  # neither changed anything
    assert call(running, op="act", id="choose_dice:1")["ok"]
    assert call(running, op="roll", values=[4])["ok"]
    undone = call(running, op="undo", request_id="undo-1")
    assert undone["taken_back"] == ["choose_dice:1", "roll:4"]
    assert undone["said"] == ["Roll one die", "Rolled 4"] and undone["player"] == "hawkmoth"
    assert call(running, op="status")["history"] == []
    assert call(running, op="act", id="choose_dice:2")["ok"]
    assert call(running, op="pause")["ok"]
    assert call(running, op="undo")["key"] == "paused"
    assert call(running, op="resume")["ok"]
    assert call(running, op="roll", values=[2, 6])["ok"]
    capsys.readouterr()
    assert main(["undo", "--state-dir", str(tmp_path)]) == 0
    said = capsys.readouterr().out
    # The roll that followed is not said to be Hawk Moth's move.
    taken = "Roll both dice, and the step after it: Rolled 8"
    assert said.startswith(f"took back Hawk Moth's move: {taken}\n")
    # The same decision made again: the dice as they fell before the take-back, not thrown
    # again (nor kept twice in the dice's record).
    assert call(running, op="act", id="choose_dice:2")["ok"]
    assert call(running, op="status")["history"][-1] == {"type": "Roll", "total": 8}
    assert [entry.get("dice") for entry in Journal(tmp_path).read().entries if "dice" in entry][-1][
        "values"
    ] == [2, 6]
    # Killed right after a take-back: the journal on disk is all a restart has.
    assert call(running, op="undo", request_id="undo-2")["ok"]
    killed = tmp_path / "killed"
    killed.mkdir()
    shutil.copy(journal, killed / journal.name)
    again = RunOptions(state_dir=killed, socket_path=killed / "control.sock", seed=3)
    with serving(fast_sim_config(), again) as resumed:
        assert call(resumed, op="status")["history"] == []
        # The same request sent again after the restart is not applied twice.
        repeated = call(resumed, op="undo", request_id="undo-2")
        assert repeated["repeated"] and repeated["taken_back"] == ["choose_dice:2", "roll:8"]
        # The first decision taken back gets the die it had brought, after the restart too.
        assert call(resumed, op="act", id="choose_dice:1")["ok"]
        assert call(resumed, op="undo")["taken_back"] == ["choose_dice:1", "roll:4"]
        assert call(resumed, op="act", id="choose_dice:2")["ok"]
        assert call(resumed, op="status")["history"][-1] == {"type": "Roll", "total": 8}


def test_the_bots_hands_put_the_table_back(tmp_path: Path) -> None:
    options = RunOptions(
        state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=5, bots=True, pace=0.4
    )
    with serving(fast_sim_config(), options) as daemon:
        # Until a roll has moved the Akuma, so that taking it back moves a piece.
        wait_for(lambda: len(call(daemon, op="status")["history"]) >= 4, what="two moves")
        assert call(daemon, op="undo")["ok"]
        left = call(daemon, op="status")["history"]

        def put_back() -> bool:
            status = call(daemon, op="status")
            return status["sensed"] == status["expected"] and status["history"] == left

        # The hands put the table back before they play on (at their pace), and the moves
        # taken back are not read again from the table meanwhile.
        wait_for(put_back, what="the table put back as it was")


def _hidden_games() -> list[str]:
    return [
        name
        for name in GAMES
        if get_game(name).deal(get_game(name).new_initial_state(), random.Random(0))
    ]


@pytest.mark.parametrize("name", _hidden_games())
def test_the_simulated_hands_hold_the_same_cards_after_a_take_back(name: str) -> None:
    """After a take-back every hand holds what it held then, and a card turned up after the
    move taken back is the same card when it is turned up again (controller/takeback.py): the
    simulated table's hands are not dealt again, as real hands are not."""
    game = get_game(name)
    rng = random.Random(4)
    state = game.new_initial_state()
    hands = SimHands(game, state, random.Random(5))
    seen: list[tuple[Action | None, list[Action] | None]] = []  # per action: the hands' say
    while not state.is_terminal() and len(seen) < 90:
        if state.is_chance_node():
            outcome = hands.outcome(state)
            seen.append((outcome, None))
            chances, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply(outcome or rng.choices(chances, weights)[0])
        else:
            choices = hands.choices(state)
            assert choices
            seen.append((None, choices))
            state.apply(rng.choice(choices))
    played = state.actions()
    decisions = [i for i, (_, choices) in enumerate(seen) if choices is not None]
    keep = decisions[len(decisions) // 2]
    back = game.replay(state.history()[:keep], state.options)
    for index in range(keep, len(played)):
        if back.is_chance_node():
            assert (hands.outcome(back), None) == seen[index], index
        else:
            assert (None, hands.choices(back)) == seen[index], index
        back.apply(played[index])
    assert len(played) - keep >= 20


def test_a_restart_deals_the_hands_the_players_held(tmp_path: Path) -> None:
    """The walk: the daemon restarted, a person's Multipli Potion hand was other cards, and
    a take-back then gave them others again. The simulated hands are dealt from the game's own
    seed: the same cards after a restart, and before a move taken back after it."""
    config = fast_sim_config(game="potions", camera_fps=100.0, stable_frames=1)
    options = options_in(tmp_path)
    held: dict[int, list[list[tuple[str, str]]]] = {}  # by the actions played
    with serving(config, options) as daemon:
        for seat in (0, 1, 0, 1, 0, 1):  # three turns each, the draws between
            wait_for(lambda seat=seat: _players_turn(daemon, seat), what="the player's turn")
            state = daemon.session.state
            while state.current_player() == seat:
                held[len(state.actions())] = _hands(daemon)
                assert daemon.hands is not None
                choices = sorted(daemon.hands.choices(state), key=lambda a: a.id != "end_turn")
                assert call(daemon, op="act", id=choices[-1].id)["ok"]  # a place or a capture
                state = daemon.session.state
        wait_for(lambda: _players_turn(daemon, 0), what="Player 1's turn")
        hands = _hands(daemon)
    with serving(config, options) as daemon:
        assert _hands(daemon) == hands
        assert call(daemon, op="undo")["ok"]
        assert _hands(daemon) == held[len(daemon.session.state.actions())]


def test_a_seeded_run_deals_the_same_hands_each_time(tmp_path: Path) -> None:
    """`--seed`: the hands' deal comes from it (and the games started before), kept in the
    journal; without, from a seed drawn at random, kept there too."""
    config = fast_sim_config(game="potions", camera_fps=100.0, stable_frames=1)
    dealt = []
    for run in ("a", "b"):
        with serving(config, options_in(tmp_path / run, seed=3)) as daemon:
            wait_for(lambda: _players_turn(daemon, 0), what="the set-up laid out")
            dealt.append(_hands(daemon))
            assert daemon.journal.deal == "3/0"
    assert dealt[0] == dealt[1] and len(dealt[0][0]) == 4
    with serving(config, options_in(tmp_path / "c")) as daemon:
        assert len(daemon.journal.deal) == 16 and Journal(tmp_path / "c").read().deal


def _hands(daemon: Daemon) -> list[list[tuple[str, str]]]:
    """The cards each seat holds on the simulated table now."""
    assert daemon.hands is not None
    hidden = daemon.hands.follow(daemon.session.state)
    assert hidden is not None
    return [hidden.known_to(seat) for seat in range(daemon.session.state.num_players)]


def _players_turn(daemon: Daemon, seat: int) -> bool:
    """Whether `seat` decides now; what chance brings laid out by the hands meanwhile."""
    if daemon.laying_out() == "offered":
        call(daemon, op="lay_out")
    return daemon.session.state.current_player() == seat


# -- the page ---------------------------------------------------------------------------


def test_the_take_back_button(page: Page, tmp_path: Path) -> None:
    with dashboard(tmp_path, "--game", "akuma", "--seed", "3") as table:
        page.goto(table.page)
        expect(page.locator("#undo")).to_be_disabled()
        expect(page.locator("#undo-what")).to_have_text("Nothing to take back yet")
        for op, body in (("act", {"id": "choose_dice:2"}), ("roll", {"values": [4, 6]})):
            assert fetch(f"{table.url}api/{op}", body, table.key).json()["ok"]
        # A 10: the Hawk Moth lays a trap, a decision made on her own roll (AK-4).
        assert fetch(f"{table.url}api/act", {"id": "place_trap:5"}, table.key).json()["ok"]
        expect(page.locator("#undo-what")).to_have_text(
            "Takes back Hawk Moth\u2019s move: Lay a trap on square 5"
        )
        expect(page.locator("#undo-reroll-label")).to_have_text("and roll again (Rolled 10)")
        page.locator("#undo-reroll").check()
        page.locator("#undo").click()
        # The log keeps one move, then marks the two taken back after it.
        expect(page.locator("#log li")).to_have_text(
            ["Hawk Moth: Roll both dice", "↶ 2 moves taken back: Rolled 10; Lay a trap on square 5"]
        )
        expect(page.locator("#roll-form")).to_be_visible()  # the roll is thrown again
        expect(page.locator("#message")).to_contain_text(
            "Taken back: Rolled 10; Lay a trap on square 5"
        )
        # Many steps: the first and a count (the walk: a Mightymania duel's 19 listed).
        many = """messageText({...snap, note: {key: "took_back",
            actions: ["roll:10", "place_trap:5", "choose_dice:1", "roll:4"]}})"""
        assert page.evaluate(many) == "Taken back: Rolled 10, and the 3 steps after it"
        # The log's mark of take-backs in a row, folded into one: the first and a count, the
        # whole list on hover (the walk: 17 moves on one line).
        five = ["roll:10", "place_trap:5", "choose_dice:1", "roll:4", "choose_dice:2"]
        page.evaluate(
            "(moves) => { snap.taken_back = [{at: 1, count: 5, moves}]; drawLog(); }", five
        )
        mark = page.locator("#log li.taken")
        expect(mark).to_have_text("↶ 5 moves taken back: Rolled 10, and the 4 steps after it")
        assert (mark.get_attribute("title") or "").endswith("; Roll both dice")
        # Hints switched off for the rest of the game, beside the Hint button.
        assert fetch(f"{table.url}api/roll", {"values": [4, 6]}, table.key).json()["ok"]
        expect(page.locator("#hint")).to_be_visible()  # the Hawk Moth to lay her trap
        expect(page.locator("#hints-on")).to_be_checked()
        page.locator("#hints-on").uncheck()
        expect(page.locator("#hint")).to_be_hidden()
        expect(page.locator("#hints-on")).not_to_be_checked()
        page.locator("#lang").select_option("fr")
        expect(page.locator("#undo")).to_have_text("↶ Reprendre")
        expect(page.locator("#undo-what")).to_have_text(
            "Reprend le coup de Papillombre : Lancer les deux dés, et l\u2019étape qui a suivi"
        )
        expect(page.locator("#log li.taken")).to_have_text(
            "↶ 2 coups repris : 10 aux dés ; Poser un piège sur la case 5"
        )
        expect(page.locator("#hints-switch")).to_have_text("Conseils")
        assert Journal(table.state_dir).read().hints is False
        # The same decision made again: the log says the dice were not thrown again, where
        # the note saying so goes with the next move (the walk).
        assert fetch(f"{table.url}api/undo", {}, table.key).json()["ok"]
        assert fetch(f"{table.url}api/act", {"id": "choose_dice:2"}, table.key).json()["ok"]
        expect(page.locator("#log li").last).to_have_text(
            "Papillombre : 10 aux dés (les dés tels qu\u2019ils étaient tombés avant la reprise)"
        )


def test_the_command_line_says_the_moves_in_words_as_the_page_does() -> None:
    said = {
        ("voodoo", "effect_change:red:change:switch"): (
            "Turn the captured red die (Change) to Switch"
        ),
        ("potions", "deal:1:3x1"): "Card 3\u00d71 dealt face up to Player 2",
        ("akuma", "choose_dice:2"): "Roll both dice",
        ("takeover", "move:r5c5"): "Move to F6",  # a cell named as the page's board names it
        ("voodoo", "jump:r0c6:r2c6"): "Jump from G1 to G3",
        ("takeover", "claim:0"): "Claim building 1",  # as the board numbers them, from 1
    }
    for (name, action_id), words in said.items():
        assert action_text(get_game(name), action_id) == words
    assert action_text(get_game("akuma"), "place_trap:7", "fr") == "Poser un piège sur la case 7"
    # The cards by the numbers they show, as the page names them (`Game.token_names`' facets).
    potions = get_game("potions")
    names = potions.token_names(potions.new_initial_state())
    said = action_text(potions, "capture:8x5:7x5:9x8", names=names)
    assert said == "Capture monster 40 with potions 5 and 8"
    assert action_text(get_game("akuma"), "no_such:1") == "no such: 1"
