"""Secret cards laid by judgement (`Hidden.decide_for`, `Hidden.planned`): Mightymania's power
cards are laid face down (rule 8), so which one is a choice the table cannot see. The seats the
table plays, a one-ply player's and every seat of a search's worlds choose theirs as the game
judges (`wise_power`); the table names its choice for the hand that lays it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import RunOptionsMaker, fast_sim_config, wait_for
from daemon_run import call, serving
from mightymania_play import P1, P2, attack, started
from playwright.sync_api import Page, expect

from controller.cli import main
from controller.cli.game import _spot_line
from controller.computer import Computer
from controller.hands import SimHands
from controller.journal import Journal
from controller.operations.table import _natural
from controller.refusals import Refused
from controller.rules import get_game
from controller.rules.api import Action, GameState
from controller.rules.mightymania import (
    GAME,
    PRINTED_POWERS,
    Lay,
    LayPower,
    MightymaniaHidden,
    MightymaniaState,
    Phase,
    Rounds,
    power_margins,
)
from controller.search.mcts import Worlds
from controller.thinker import Thinker


def _at_lay(rounds: int) -> MightymaniaState:
    """player_1's T2 attacks player_2's R2, both turned up (rule 6), `rounds` rolled."""
    state = started()
    attack(state, 2, 2, "T2", "R2")
    state.apply(Rounds(rounds))
    assert state.phase is Phase.LAY_POWER
    return state


def test_a_judging_seat_lays_the_powers_that_win_the_most_rounds_mm_2_mm_4() -> None:
    """T2 (brainwashing 3, thermokinetic 8, invisibility 4, speed 5, force 2) attacks R2 (2, 7,
    3, 5, 6), both judging. R2, the defender, lays last (rule 8), so its cards are chosen ahead,
    to be told: thermokinetic, force, speed (their margins below). T2's are not told, since R2
    would see them before laying, but laid by the same judgement: over R2's five answers
    thermokinetic wins 4 rounds and draws 1 (+4), speed and invisibility each win 2 and lose 1
    (+1; MM-2's +2 counted each way), brainwashing and force lose more than they win: so
    thermokinetic, then those two in either order. Each power once (MM-4)."""
    state = _at_lay(3)
    hidden = MightymaniaHidden(state, random.Random(1))
    hidden.decide_for(frozenset({P1, P2}))
    planned = []
    while state.phase is Phase.LAY_POWER:
        player, slot = state.next_power_laid()
        plan = hidden.planned(state)
        assert hidden.planned(state) == plan  # chosen once, kept until laid
        if player == P1:
            assert plan == (P1, None)
        else:
            assert plan is not None and plan[0] == P2
            planned.append(plan[1])
        lay = LayPower(player, slot + 1)
        state.apply(lay)
        hidden.observe(lay, state)
    assert planned == ["thermokinetic", "force", "speed"]
    assert [hidden.laid[P2][k] for k in range(3)] == planned
    attacked = [hidden.laid[P1][k] for k in range(3)]
    assert attacked[0] == "thermokinetic" and set(attacked[1:]) == {"speed", "invisibility"}


def test_a_seat_that_does_not_judge_lays_any_power_mm_4() -> None:
    laid = set()
    for seed in range(40):
        state = _at_lay(1)
        hidden = MightymaniaHidden(state, random.Random(seed))
        state.apply(LayPower(P1, 1))
        hidden.observe(LayPower(P1, 1), state)
        laid.add(hidden.laid[P1][0])
    assert laid == set(PRINTED_POWERS)


def test_judgement_is_kept_when_the_others_cards_are_dealt_again() -> None:
    state = _at_lay(2)
    hidden = MightymaniaHidden(state, random.Random(2))
    hidden.decide_for(frozenset({P1}))
    again = hidden.redeal(state, random.Random(3), P1)
    assert again.planned(state) == (P1, None)  # judging, though not told: it attacks


def test_every_seat_of_a_search_world_lays_by_judgement() -> None:
    """The searching seat lays as it will; the others as players who think would."""
    game = get_game("mightymania")
    state = _at_lay(2)
    hidden = game.deal(state, random.Random(4))
    assert hidden is not None and hidden.planned(state) is None
    world, dealt = Worlds(game, state, P2, hidden).sample(random.Random(5))
    assert dealt is not None
    assert dealt.planned(world) == (P1, None)
    while world.phase is not Phase.REVEAL_POWER:  # type: ignore[attr-defined]
        lay = world.chance_outcomes()[0][0]
        assert dealt.planned(world) is not None
        world.apply(lay)
        dealt.observe(lay, world)


def _no_thinking() -> Thinker:
    raise AssertionError("the table thought about a lay of cards")


@pytest.mark.parametrize("simulated", [True, False])
def test_the_table_names_the_power_card_its_seat_lays_and_the_hands_lay_it(
    simulated: bool,
) -> None:
    """Mightymania, player_2 the table's: at each of its face-down lays (rule 8) as the defender,
    who lays last, the table says which power card, as a token for the page to name; the
    simulated hands then lay that one, or on a real table (no simulated hands) the table's
    virtual hand holds it there. As the attacker, whose cards the defender would see before
    laying, it asks for one laid unseen, as it does for its squad cards at set-up (rule 1), or
    player_1 would know where its Leader lies. player_1's lays are not the table's to speak
    of."""
    game = get_game("mightymania")
    rng = random.Random(7)
    state = game.new_initial_state()
    hands = SimHands(game, state, rng)
    computer = Computer(game, {P2: "easy"}, False, _no_thinking, hands if simulated else None, rng)
    said: list[dict[str, object]] = []
    told = unseen = squad = 0
    while min(told, unseen) < 3 and not state.is_terminal():
        if state.is_chance_node():
            table = SimpleNamespace(
                state=state,
                elsewhere=frozenset(),
                table_seats=None,
                say=lambda text, key, **params: said.append({"key": key, **params}),
                called=lambda player: player,
                words=lambda ids: "; ".join(ids),
            )
            computer.step(table, halted=False)  # type: ignore[arg-type]
            lay: Action = state.chance_outcomes()[0][0]
            if isinstance(lay, Lay):
                hidden_lay = lay.player == P2
                assert said == (
                    [{"key": "computer_lays_unseen", "player": "player_2", "actions": [lay.id]}]
                    if hidden_lay
                    else []
                )
                squad += hidden_lay
                said.clear()
            elif isinstance(lay, LayPower):
                if lay.player == P2 and MightymaniaState.of(state).attacker == P2:
                    assert said == [
                        {"key": "computer_lays_unseen", "player": "player_2", "actions": [lay.id]}
                    ]
                    unseen += 1
                    said.clear()
                elif lay.player == P2:
                    assert [note["key"] for note in said] == ["computer_lays"]
                    card = said[0]["card"]
                    assert said[0]["actions"] == [lay.id] and card in PRINTED_POWERS
                    state.apply(lay)
                    held = hands if simulated else computer._virtual
                    assert held is not None
                    hidden = held.follow(state)
                    assert isinstance(hidden, MightymaniaHidden)
                    assert hidden.laid[P2][lay.round - 1] == card
                    told += 1
                    said.clear()
                    continue
                assert said == []
        _step(state, hands, rng)
    assert squad == 4 and told >= 3 and unseen >= 3


def _step(state: GameState, hands: SimHands, rng: random.Random) -> None:
    """A random step that the hands hear of when they next follow the game."""
    if state.is_chance_node():
        action = hands.outcome(state)
        if action is None:
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            action = rng.choices(outcomes, weights)[0]
    else:
        choices = hands.choices(state)
        assert choices
        action = rng.choice(choices)
    state.apply(action)


def test_laying_out_chance_stops_at_a_card_a_person_lays_face_down_mm_4_rule_1() -> None:
    """The walk: "lay it out for me" laid a person's squad and power cards, choices that are
    the game itself. The hands lay the table's cards and what chance turns up, and stop where
    a person lays a card face down: set-up's squad (rule 1), a duel's power cards (MM-4)."""
    game = get_game("mightymania")
    state = game.new_initial_state()
    hands = SimHands(game, state, random.Random(4))
    player_2_played = frozenset({P2})
    assert hands.person_lays(state, player_2_played)  # player_1's squad first: theirs
    assert hands.chance_steps(state, player_2_played) == 0
    player_1_played = frozenset({P1})
    assert not hands.person_lays(state, player_1_played)
    assert hands.chance_steps(state, player_1_played) == 4  # the table's squad, then player_2's
    both = frozenset({P1, P2})
    assert not hands.person_lays(state, both)
    assert hands.chance_steps(state, both) == steps_to_a_decision(state)
    state = started()  # after set-up and the start rolls: player_1 attacks
    hands = SimHands(game, state, random.Random(4))
    attack(state, 2, 2, "T2", "R2")  # the cards turned up, the defence declined: powers next
    while not (state.is_chance_node() and hands.secret_choices(state)):
        _step(state, hands, random.Random(1))
    assert hands.person_lays(state, player_2_played)
    assert not hands.person_lays(state, player_1_played)


def steps_to_a_decision(state: GameState) -> int:
    """Chance steps before the next decision, for a table that lays every card itself (the
    outcomes in turn: the start rolls never tie twice)."""
    state, steps = state.clone(), 0
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply(outcomes[steps % len(outcomes)][0])
        steps += 1
    return steps


def test_the_lay_advice_ranks_the_powers_for_the_player_who_lays_now_mm_2_mm_4() -> None:
    """T2 against R2 as above, the tie in the cycle's order (MM-2); then R2 (brainwashing 2,
    thermokinetic 7, invisibility 3, speed 5, force 6) against T2, over T2's five answers:
    thermokinetic wins 4 and loses 1 (+3), force wins 2, draws 2, loses 1 (+1), speed wins 2
    and loses 2 (0), invisibility wins 1, draws 1, loses 3 (-2), brainwashing draws 1 and loses
    4 (-4). None outside a lay."""
    state = _at_lay(3)
    ranked = ["thermokinetic", "invisibility", "speed", "brainwashing", "force"]
    assert GAME.lay_advice(state) == ranked
    for k in (1, 2, 3):
        state.apply(LayPower(P1, k))
    assert state.next_power_laid()[0] == P2
    assert power_margins(state, P2) == {
        "brainwashing": -4,
        "thermokinetic": 3,
        "invisibility": -2,
        "speed": 0,
        "force": 1,
    }
    assert GAME.lay_advice(state) == [
        "thermokinetic",
        "force",
        "speed",
        "invisibility",
        "brainwashing",
    ]
    assert GAME.lay_advice(started()) is None


def _table(state: GameState, said: list[dict[str, object]]) -> SimpleNamespace:
    return SimpleNamespace(
        state=state,
        elsewhere=frozenset(),
        table_seats=None,
        say=lambda text, key, **params: said.append({"key": key, **params}),
        called=lambda player: player,
        expected=GAME.layout(state),
        layout_after=lambda action: GAME.layout(state.child(action)),
    )


def test_a_hint_at_a_lay_names_the_cards_best_first_for_a_player_not_the_table() -> None:
    """player_1 lays power cards (rule 8), player_2 is the table's: player_1 may ask which,
    and the hint says the powers best first; at player_2's lays the table lays its own, and at
    a roll chance has no hint."""
    state = _at_lay(3)
    computer = Computer(GAME, {P2: "easy"}, True, _no_thinking, None, random.Random(1))
    said: list[dict[str, object]] = []
    table = _table(state, said)
    assert computer.lay_hint_for(table) == "player_1"  # type: ignore[arg-type]
    reply = computer.ask_hint(table)  # type: ignore[arg-type]
    cards = ["thermokinetic", "invisibility", "speed", "brainwashing", "force"]
    lay = LayPower(P1, 1).id
    assert reply == {
        "ok": True,
        "pending": False,
        # A real table (no simulated hands): a hand lays it, no `place` command to give.
        "lay": {"player": "player_1", "cards": cards, "id": lay, "spot": None},
    }
    assert said == [{"key": "hint_lay", "player": "player_1", "cards": cards, "actions": [lay]}]
    for k in (1, 2, 3):
        state.apply(LayPower(P1, k))
    assert computer.lay_hint_for(table) is None  # type: ignore[arg-type]
    with pytest.raises(Refused) as refused:
        computer.ask_hint(table)  # type: ignore[arg-type]
    assert refused.value.key == "hint_computer"
    rolling = started()
    attack(rolling, 2, 2, "T2", "R2")
    with pytest.raises(Refused) as refused:
        computer.ask_hint(_table(rolling, said))  # type: ignore[arg-type]
    assert refused.value.key == "hint_chance"


def test_on_the_simulated_table_the_lay_hint_names_only_the_cards_still_in_hand() -> None:
    """Its hands know the power cards player_1 laid face down (rule 8: each power once a duel),
    so the hint at the next lay leaves them out."""
    state = _at_lay(3)
    hands = SimHands(GAME, state, random.Random(2))
    computer = Computer(GAME, {P2: "easy"}, True, _no_thinking, hands, random.Random(1))
    hands.choose(state, "thermokinetic")  # the best, as the hint above says
    state.apply(LayPower(P1, 1))
    reply = computer.ask_hint(_table(state, []))  # type: ignore[arg-type]
    assert reply["lay"]["cards"] == ["invisibility", "speed", "brainwashing", "force"]


def test_smartboard_hint_prints_the_cards_to_lay_after_a_restart(
    run_options: RunOptionsMaker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game resumed from its journal at player_1's lay of power cards, player_2 the table's:
    `smartboard hint` names the card to lay and the others, best first; `--json` gives them."""
    state = _at_lay(3)
    journal = Journal(tmp_path)
    journal.start(GAME.name, state.options, computer={P2: "easy"})
    journal.append_actions(state.history())
    state_dir = ["--state-dir", str(tmp_path)]
    with serving(fast_sim_config(game=GAME.name), run_options(seed=2)):
        assert main(["hint", *state_dir]) == 0
        said = capsys.readouterr().out
        # Where, and the command that lays it (the walk: an id that `act` refuses, a lay
        # being read from the table).
        place = "on s1.r1 (`smartboard place s1.r1 --secret thermokinetic`)"
        assert said.startswith(f"hint for Player 1: lay thermokinetic face down {place}; ")
        assert said.endswith("then, best first: invisibility, speed, brainwashing, force\n")
        assert main(["hint", "--json", *state_dir]) == 0
        assert json.loads(capsys.readouterr().out)["cards"][0] == "thermokinetic"


def test_a_person_chooses_the_card_they_lay_face_down_mm_4_rule_1() -> None:
    """The simulated hands hold each player's cards: at set-up the squad cards still in hand
    (rule 1), while power cards are laid those not laid in this duel (MM-4); the one a person
    names is the one laid, and one they do not hold is refused with those they do."""
    setup = GAME.new_initial_state()
    hidden = MightymaniaHidden(MightymaniaState.of(setup), random.Random(3))
    assert hidden.secret_choices(setup) == ["T1", "T2", "T3", "T4"]
    hidden.choose(setup, "T3")
    setup.apply(Lay(P1, 1))
    hidden.observe(Lay(P1, 1), setup)
    assert hidden.down[P1][0] == "T3" and hidden.secret_choices(setup) == ["T1", "T2", "T4"]
    with pytest.raises(ValueError, match="'T3' cannot be laid face down now: one of T1, T2, T4"):
        hidden.choose(setup, "T3")
    state = _at_lay(2)
    hidden = MightymaniaHidden(state, random.Random(4))
    hidden.choose(state, "force")
    state.apply(LayPower(P1, 1))
    hidden.observe(LayPower(P1, 1), state)
    assert hidden.laid[P1][0] == "force"
    assert "force" not in hidden.secret_choices(state) and len(hidden.secret_choices(state)) == 4
    state.apply(LayPower(P1, 2))
    hidden.observe(LayPower(P1, 2), state)
    assert hidden.secret_choices(state) == list(PRINTED_POWERS)  # player_2's, none laid yet
    started_state = started()
    with pytest.raises(ValueError, match="no card is laid face down"):
        hidden.choose(started_state, "force")


def _resumed_at_lay(tmp_path: Path) -> None:
    """A journal of player_1 about to lay 3 power cards, player_2 the table's."""
    state = _at_lay(3)
    journal = Journal(tmp_path)
    journal.start(GAME.name, state.options, computer={P2: "easy"})
    journal.append_actions(state.history())


def _laid(hands: SimHands) -> dict[int, str]:
    """player_1's power cards laid face down, by round slot, as the daemon's thread last
    followed the hands (read only: `SimHands.follow` belongs to that thread)."""
    hidden = hands.hidden
    assert isinstance(hidden, MightymaniaHidden)
    return dict(hidden.laid[P1])


def test_the_simulated_table_lays_the_power_card_a_person_chooses(
    run_options: RunOptionsMaker, tmp_path: Path, page: Page, capsys: pytest.CaptureFixture[str]
) -> None:
    """player_1 taps their first round slot: the page offers their five power cards, laid
    face down; the one tapped is the one the hands hold there. The next, from the command line
    (`place --list` names the four left, `place --secret`). A card not held, a slot not theirs,
    or a lift with a card are refused."""
    _resumed_at_lay(tmp_path)
    config = fast_sim_config(game=GAME.name, web_listen="127.0.0.1:0")
    with serving(config, run_options(seed=2)) as daemon:
        spots = call(daemon, op="place", list=True)["spots"]
        assert spots["s1.r1"]["secret"] == list(PRINTED_POWERS)
        assert all("secret" not in spots[spot] for spot in spots if spot != "s1.r1")
        refused = call(daemon, op="place", spot="s1.r1", token="down", secret="luck")
        assert "'luck' cannot be laid face down now" in refused["error"]
        assert (
            "no card is laid face down on s2.r1"
            in call(daemon, op="place", spot="s2.r1", token="down", secret="force")["error"]
        )
        assert "error" in call(daemon, op="place", spot="s1.r1", lift=True, secret="force")
        assert daemon.web is not None
        page.goto(daemon.web.url(with_token=True))
        page.locator('[data-spot="s1.r1"]').click()
        offers = page.locator("#chooser-tokens button[data-secret]")
        expect(offers).to_have_count(5)
        page.locator('#chooser-tokens button[data-secret="speed"]').click()
        wait_for(lambda: len(daemon.session.state.history()) == 16, what="the lay")
        hands = daemon.hands
        assert hands is not None
        wait_for(lambda: _laid(hands) == {0: "speed"}, what="speed laid by the hands")
        state_dir = ["--state-dir", str(tmp_path)]
        assert main(["place", "--list", *state_dir]) == 0
        (line,) = (line for line in capsys.readouterr().out.splitlines() if "s1.r2" in line)
        assert line.endswith(
            "; next: down (face down: your choice, --secret "
            "brainwashing|thermokinetic|invisibility|force)"
        )
        assert main(["place", "s1.r2", "--secret", "force", *state_dir]) == 0
        assert capsys.readouterr().out == "s1.r2: down\n"
        wait_for(lambda: len(daemon.session.state.history()) == 17, what="the second lay")
        wait_for(lambda: _laid(hands) == {0: "speed", 1: "force"}, what="force laid")
    # Restarted, with no seed: the hands lay the same cards where the person laid them (the
    # walk: a Mightymania squad reshuffled by a restart), from the journal.
    with serving(config, run_options()) as again:
        held = again.hands
        assert held is not None
        wait_for(lambda: _laid(held) == {0: "speed", 1: "force"}, what="the same after a restart")


def test_a_new_game_of_cards_is_dealt_afresh(run_options: RunOptionsMaker) -> None:
    """The walk, Multipli Potion: a new game started from the page dealt the very cards of the
    one before: with the same options, its first steps read as the last game's, or as a
    take-back to its start, and the hands kept their deal (MP-1: the deck shuffled anew)."""
    with serving(fast_sim_config(), run_options(game="potions", seed=3)) as daemon:
        assert daemon.hands is not None
        first = daemon.hands.outcome(daemon.session.state)
        assert first is not None  # the first card the deal turns up
        assert call(daemon, op="new", abandon=True)["ok"]
        wait_for(lambda: not daemon.session.state.actions(), what="the new game")
        again = [daemon.hands.outcome(daemon.session.state)]
        for _ in range(3):  # a deal that happens to turn up the same card first, and another
            assert call(daemon, op="new", abandon=True)["ok"]
            again.append(daemon.hands.outcome(daemon.session.state))
        assert any(card != first for card in again)
        assert len(set(again)) > 1


def test_a_new_game_on_another_board_then_back_is_dealt_afresh(
    run_options: RunOptionsMaker,
) -> None:
    """The walk: with `--seed`, a game on another board profile and then back dealt that board's
    first deal again, as each board opened its hands with the seed anew."""
    with serving(fast_sim_config(), run_options(game="potions", seed=3)) as daemon:
        assert daemon.hands is not None
        first = daemon.hands.outcome(daemon.session.state)
        deals = []
        for _ in range(3):  # a deal may turn up the same first card: three chances to differ
            assert call(daemon, op="new", abandon=True, game="akuma")["ok"]
            wait_for(lambda: daemon.game.name == "akuma", what="the game on the other board")
            assert call(daemon, op="new", abandon=True, game="potions")["ok"]
            wait_for(lambda: daemon.game.name == "potions", what="the game back")
            deals.append(daemon.hands.outcome(daemon.session.state))
        assert any(card != first for card in deals)


def test_place_list_names_the_squad_cards_a_person_chooses_from(
    run_options: RunOptionsMaker,
) -> None:
    """The walk: `--secret T1|T2|T3|T4` and no name, so nobody could tell which was the
    Leader. The simulated table's spot for a squad card lists each card by its id and name,
    and the spots in the board's order (s1.c2 before s1.c10, were there one)."""
    with serving(fast_sim_config(game=GAME.name), run_options(seed=7, computer=("2",))) as daemon:
        spots = call(daemon, op="place", list=True)["spots"]
    first = spots["s1.c1"]
    names = first["secret_names"]
    assert set(first["secret"]) == set(names) and "Colossus" in names.values()
    line = _spot_line("s1.c1", first)
    assert all(f"{card} {name}" in line for card, name in names.items())
    assert sorted(["s1.z10", "s1.z2", "s1.c1"], key=_natural) == ["s1.c1", "s1.z2", "s1.z10"]


def test_a_card_chosen_for_a_step_taken_back_is_forgotten(tmp_path: Path) -> None:
    """The review: a card chosen to lay face down, kept past a take-back of its step, would be
    laid again at that place in another line (or, not fitting, have the hands dealt again)."""
    journal = Journal(tmp_path)
    journal.start(GAME.name, {})
    journal.append_actions([{"type": "X"}] * 3)  # any three steps: only their count matters
    journal.append_secret(1, "speed")
    journal.append_secret(2, "force")
    journal.append_take_back(1)
    assert journal.secrets == {1: "speed"}
    assert Journal(tmp_path).read().secrets == {1: "speed"}
    journal.append_take_back(2)
    assert journal.secrets == {} and Journal(tmp_path).read().secrets == {}
