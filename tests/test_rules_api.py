"""The generic rules API (controller/rules/api.py), exercised on Capture the Akuma."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest
from akuma_play import new_state, play

from controller.rules import GAMES
from controller.rules.akuma import (
    GAME,
    POWERS,
    AkumaState,
    ChooseDice,
    DeEvilize,
    PlaceTrap,
    Power,
    Roll,
    Voyage,
)
from controller.rules.api import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    GameState,
    HistoryError,
    IllegalActionError,
)
from controller.simulate import play_random_game, random_step

# One example of every action type, with its expected id.
EXAMPLES: list[tuple[Action, str]] = [
    (ChooseDice(2), "choose_dice:2"),
    (Roll(7), "roll:7"),
    (PlaceTrap(5), "place_trap:5"),
    (DeEvilize(3), "de_evilize:3"),
    (Power("second_chance"), "power:second_chance"),
    (Voyage(4), "voyage:4"),
]
EXAMPLE_ACTIONS = [action for action, _ in EXAMPLES]


def snapshot(state: GameState) -> JSON:
    """Everything observable about a state, for before/after and replay comparisons."""
    return {
        "history": state.history(),
        "describe": GAME.describe(state),
        "layout": sorted(GAME.layout(state)),
        "lights": GAME.lights(state),
        "current_player": state.current_player(),
        "legal_actions": state.legal_actions(),
        "chance_outcomes": state.chance_outcomes(),
        "returns": state.returns(),
        "is_terminal": state.is_terminal(),
        "result": GAME.result(state),
    }


def random_game(seed: int, options: dict[str, Any] | None = None) -> GameState:
    return play_random_game(GAME, random.Random(seed), options)


def finished_game() -> GameState:
    """A short game that Hawk Moth wins on the top row."""
    state = new_state()
    play(
        state,
        *(ChooseDice(1), Roll(1)),  # Hawk Moth akumatizes 1
        *(ChooseDice(2), Roll(9), Power("venom")),  # Ladybug: Hawk Moth loses a turn
        *(ChooseDice(2), Roll(9), Power("cataclysm")),  # Ladybug again; no trap on 9
        *(ChooseDice(1), Roll(2)),  # Hawk Moth akumatizes 2
        *(ChooseDice(2), Roll(9), Power("cataclysm")),
        *(ChooseDice(1), Roll(3)),  # Hawk Moth akumatizes 3: top row
    )
    assert state.is_terminal()
    return state


# --- Actions -------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", EXAMPLE_ACTIONS, ids=str)
def test_actions_are_frozen(action: Action) -> None:
    field = dataclasses.fields(action)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(action, field, 1)


@pytest.mark.parametrize("action", EXAMPLE_ACTIONS, ids=str)
def test_actions_are_hashable_and_equal_by_value(action: Action) -> None:
    twin = type(action)(*dataclasses.astuple(action))
    assert twin is not action
    assert twin == action
    assert hash(twin) == hash(action)
    assert len({action, twin}) == 1
    assert {action: "x"}[twin] == "x"


def test_actions_of_different_types_or_values_differ() -> None:
    same_values: list[Action] = [ChooseDice(2), Roll(2), PlaceTrap(2), DeEvilize(2), Voyage(2)]
    for a, b in itertools.combinations(same_values, 2):
        assert a != b
        assert len({a, b}) == 2
    assert Roll(6) != Roll(7)
    assert Power("venom") != Power("voyage")
    assert len(set(EXAMPLE_ACTIONS)) == len(EXAMPLE_ACTIONS)


@pytest.mark.parametrize(("action", "expected"), EXAMPLES, ids=[i for _, i in EXAMPLES])
def test_actions_print_as_their_id(action: Action, expected: str) -> None:
    assert action.id == expected
    assert str(action) == expected
    assert f"{action}" == expected


@pytest.mark.parametrize("action", EXAMPLE_ACTIONS, ids=str)
def test_action_json_round_trip(action: Action) -> None:
    data = action.to_json()
    assert data["type"] == type(action).__name__
    text = json.dumps(data)
    back = GAME.action_from_json(json.loads(text))
    assert back == action
    assert type(back) is type(action)


def test_every_action_type_has_a_json_example() -> None:
    assert {type(a) for a in EXAMPLE_ACTIONS} == set(GAME.action_types)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Teleport", "square": 3},
        {"type": "Roll", "pips": 3},
        {"type": "Roll"},
        {"square": 3},
        "roll:7",
    ],
    ids=["unknown-type", "unknown-field", "missing-field", "no-type", "not-a-mapping"],
)
def test_action_from_json_refuses_bad_data(data: Any) -> None:
    with pytest.raises(HistoryError):
        GAME.action_from_json(data)


# --- History and replay --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(200))
def test_history_is_json_and_replays_to_an_equal_state(seed: int) -> None:
    state = random_game(seed)
    text = json.dumps(state.history())
    replayed = GAME.replay(json.loads(text), state.options)
    assert snapshot(replayed) == snapshot(state)
    assert list(replayed.actions()) == list(state.actions())


@pytest.mark.parametrize("seed", range(50))
def test_replay_of_a_game_cut_short_gives_the_same_position(seed: int) -> None:
    rng = random.Random(1000 + seed)
    options = {"traps": 3, "tiles": 2}
    state = new_state(options)
    for _ in range(rng.randrange(1, 60)):
        if state.is_terminal():
            break
        random_step(state, rng)
    replayed = GAME.replay(json.loads(json.dumps(state.history())), options)
    assert snapshot(replayed) == snapshot(state)


def test_history_lists_every_action_in_order() -> None:
    state = play(new_state(), ChooseDice(2), Roll(10), PlaceTrap(4))
    assert state.history() == [
        {"type": "ChooseDice", "count": 2},
        {"type": "Roll", "total": 10},
        {"type": "PlaceTrap", "square": 4},
    ]
    assert state.actions() == (ChooseDice(2), Roll(10), PlaceTrap(4))


def tampered(history: list[JSON], step: int, data: Any) -> list[Any]:
    changed: list[Any] = list(history)
    changed[step] = data
    return changed


def test_replay_of_an_illegal_step_names_the_step() -> None:
    state = random_game(7)
    history = state.history()
    # Step 1 is the first Roll: 13 is never a legal total.
    assert history[1]["type"] == "Roll"
    with pytest.raises(HistoryError, match=r"step 1\b"):
        GAME.replay(tampered(history, 1, {"type": "Roll", "total": 13}), state.options)
    # Step 0 chooses the dice: a trap is not legal there.
    with pytest.raises(HistoryError, match=r"step 0\b"):
        GAME.replay(tampered(history, 0, {"type": "PlaceTrap", "square": 5}), state.options)


def test_replay_of_an_extra_step_after_the_end_names_the_step() -> None:
    state = finished_game()
    history = [*state.history(), {"type": "ChooseDice", "count": 1}]
    with pytest.raises(HistoryError, match=rf"step {len(history) - 1}\b"):
        GAME.replay(history, state.options)


def test_replay_of_a_dropped_step_fails() -> None:
    state = finished_game()
    history = state.history()
    with pytest.raises(HistoryError, match=r"step 1\b"):
        GAME.replay(history[:1] + history[2:], state.options)


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Teleport", "square": 3},
        {"type": "Roll", "pips": 3},
        {"type": "Roll"},
        "roll:3",
    ],
    ids=["unknown-type", "unknown-field", "missing-field", "not-a-mapping"],
)
def test_replay_of_a_malformed_step_names_the_step(data: Any) -> None:
    """A tampered save must say which step is wrong, whatever is wrong with it."""
    state = finished_game()
    history = state.history()
    with pytest.raises(HistoryError, match=r"step 3\b"):
        GAME.replay(tampered(history, 3, data), state.options)


@pytest.mark.parametrize(
    ("step", "data"),
    [
        (0, {"type": "ChooseDice", "count": True}),
        (1, {"type": "Roll", "total": 1.0}),
        (1, {"type": "Roll", "total": "1"}),
    ],
    ids=["bool-for-int", "float-for-int", "str-for-int"],
)
def test_replay_refuses_a_wrongly_typed_field(step: int, data: JSON) -> None:
    """A value that merely compares equal to a legal one (True == 1, 1.0 == 1) is not legal.

    Otherwise the save replays, and the state then holds 1.0 or True as a square, which the
    layout spells "1.0.hawkmoth".
    """
    state = finished_game()
    history = state.history()
    with pytest.raises(HistoryError, match=rf"step {step}\b"):
        GAME.replay(tampered(history, step, data), state.options)


def test_replay_uses_the_options() -> None:
    state = play(new_state({"traps": 1}), ChooseDice(2), Roll(10), PlaceTrap(4))
    play(state, ChooseDice(2), Roll(12))  # the only trap is on the board: the turn ends
    assert state.current_player() == 0
    replayed = GAME.replay(state.history(), {"traps": 1})
    assert snapshot(replayed) == snapshot(state)
    # Under the default supply, step 4's 12 asks Hawk Moth for a trap, so step 5 does not replay.
    with pytest.raises(HistoryError, match=r"step 5\b"):
        GAME.replay([*state.history(), {"type": "ChooseDice", "count": 1}], {})


# --- clone ---------------------------------------------------------------------------------------


def test_clone_is_equal_and_independent() -> None:
    state = play(new_state(), ChooseDice(1), Roll(5), ChooseDice(2), Roll(10), PlaceTrap(5))
    before = snapshot(state)
    copy = state.clone()
    assert snapshot(copy) == before
    play(copy, ChooseDice(2), Roll(7), ChooseDice(2), Roll(8), Power("shellter"))
    assert snapshot(state) == before
    assert snapshot(copy) != before


def test_mutating_a_clone_directly_leaves_the_original_unchanged() -> None:
    state = play(new_state(), ChooseDice(1), Roll(5))
    before = snapshot(state)
    copy = state.clone()
    assert isinstance(copy, AkumaState)
    copy.akumatized.add(1)
    copy.traps.add(2)
    copy.tiles.add(3)
    copy.options["traps"] = 1
    copy.ladybug_at = 9
    assert snapshot(state) == before
    assert state.options == {"traps": 5, "tiles": 5}


def test_clone_of_a_random_midgame_replays_the_same_future() -> None:
    rng = random.Random(5)
    state = new_state()
    for _ in range(15):
        if not state.is_terminal():
            random_step(state, rng)
    copy = state.clone()
    seed = rng.random()
    for s in (state, copy):
        future = random.Random(seed)
        for _ in range(30):
            if s.is_terminal():
                break
            random_step(s, future)
    assert snapshot(state) == snapshot(copy)


# --- Illegal actions -----------------------------------------------------------------------------


def at_choose_dice() -> GameState:
    return new_state()


def at_roll_two() -> GameState:
    return play(new_state(), ChooseDice(2))


def at_roll_one() -> GameState:
    return play(new_state(), ChooseDice(1))


def at_place_trap() -> GameState:
    # Hawk Moth traps 5, Ladybug rolls 12: Hawk Moth must place another trap.
    return play(new_state(), ChooseDice(2), Roll(10), PlaceTrap(5), ChooseDice(2), Roll(12))


def at_choose_deevilize() -> GameState:
    # Hawk Moth akumatizes 4, Ladybug rolls 11 and must choose an akuma.
    return play(new_state(), ChooseDice(1), Roll(4), ChooseDice(2), Roll(11))


def at_miraculous() -> GameState:
    return play(new_state(), ChooseDice(1), Roll(4), ChooseDice(2), Roll(7))


def at_voyage() -> GameState:
    return play(at_miraculous(), Power("voyage"))


ILLEGAL: list[tuple[str, Any, Action]] = [
    ("trap-when-choosing-dice", at_choose_dice, PlaceTrap(5)),
    ("voyage-when-choosing-dice", at_choose_dice, Voyage(5)),
    ("three-dice", at_choose_dice, ChooseDice(3)),
    ("no-dice", at_choose_dice, ChooseDice(0)),
    ("roll-at-decision", at_choose_dice, Roll(7)),
    ("power-at-decision", at_choose_dice, Power("venom")),
    ("decision-at-roll", at_roll_two, ChooseDice(1)),
    ("trap-at-roll", at_roll_two, PlaceTrap(3)),
    ("one-with-two-dice", at_roll_two, Roll(1)),
    ("thirteen-with-two-dice", at_roll_two, Roll(13)),
    ("seven-with-one-die", at_roll_one, Roll(7)),
    ("zero-with-one-die", at_roll_one, Roll(0)),
    ("power-at-roll", at_roll_one, Power("venom")),
    ("trap-on-trapped-square", at_place_trap, PlaceTrap(5)),
    ("trap-off-board-0", at_place_trap, PlaceTrap(0)),
    ("trap-off-board-10", at_place_trap, PlaceTrap(10)),
    ("deevilize-at-place-trap", at_place_trap, DeEvilize(5)),
    ("roll-at-place-trap", at_place_trap, Roll(5)),
    ("deevilize-a-civilian", at_choose_deevilize, DeEvilize(5)),
    ("trap-at-deevilize", at_choose_deevilize, PlaceTrap(4)),
    ("decision-at-miraculous", at_miraculous, Voyage(3)),
    ("roll-at-miraculous", at_miraculous, Roll(3)),
    ("unknown-face", at_miraculous, Power("teleport")),
    ("voyage-to-same-square", at_voyage, Voyage(7)),
    ("voyage-off-board", at_voyage, Voyage(10)),
    ("power-at-voyage", at_voyage, Power("cataclysm")),
]


@pytest.mark.parametrize(("make", "action"), [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL])
def test_illegal_action_raises_names_it_and_changes_nothing(make: Any, action: Action) -> None:
    state: GameState = make()
    before = snapshot(state)
    if state.is_chance_node():
        legal = [outcome for outcome, _ in state.chance_outcomes()]
    else:
        legal = state.legal_actions()
    assert legal, "the position should offer something"
    assert action not in legal
    with pytest.raises(IllegalActionError) as caught:
        state.apply(action)
    message = str(caught.value)
    assert action.id in message
    for allowed in legal:
        assert allowed.id in message
    assert snapshot(state) == before


def test_illegal_action_is_a_value_error() -> None:
    assert issubclass(IllegalActionError, ValueError)
    assert issubclass(HistoryError, ValueError)


@pytest.mark.parametrize(
    ("make", "data"),
    [
        (at_roll_two, {"type": "Roll", "total": 7.0}),
        (at_roll_one, {"type": "Roll", "total": True}),
        (at_place_trap, {"type": "PlaceTrap", "square": True}),
        (at_place_trap, {"type": "PlaceTrap", "square": 1.0}),
    ],
    ids=["float-total", "bool-total", "bool-square", "float-square"],
)
def test_a_wrongly_typed_action_is_illegal(make: Any, data: JSON) -> None:
    """Roll(7.0) and PlaceTrap(True), as JSON from a client, compare equal to Roll(7) and
    PlaceTrap(1), but they are not legal actions: applied, they put 7.0 or True in the state as a
    square, and the layout then names spots like "7.0.hawkmoth" or "True.trap"."""
    state: GameState = make()
    before = snapshot(state)
    with pytest.raises((IllegalActionError, HistoryError)):
        state.apply(GAME.action_from_json(data))
    assert snapshot(state) == before


@pytest.mark.parametrize("action", [*EXAMPLE_ACTIONS, ChooseDice(1), Power("venom")], ids=str)
def test_any_action_after_the_end_is_illegal(action: Action) -> None:
    state = finished_game()
    before = snapshot(state)
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert state.chance_outcomes() == []
    with pytest.raises(IllegalActionError, match=action.id):
        state.apply(action)
    assert snapshot(state) == before


def test_illegal_actions_in_random_positions_change_nothing() -> None:
    rng = random.Random(11)
    candidates: list[Action] = [
        *(ChooseDice(n) for n in range(0, 4)),
        *(Roll(n) for n in range(0, 14)),
        *(PlaceTrap(n) for n in range(0, 11)),
        *(DeEvilize(n) for n in range(0, 11)),
        *(Voyage(n) for n in range(0, 11)),
        *(Power(face) for face in POWERS),
        Power("bogus"),
    ]
    tried = 0
    for _ in range(40):
        state = new_state()
        while not state.is_terminal():
            if state.is_chance_node():
                legal = {outcome for outcome, _ in state.chance_outcomes()}
            else:
                legal = set(state.legal_actions())
            for action in rng.sample(candidates, 6):
                if action in legal:
                    continue
                before = snapshot(state)
                with pytest.raises(IllegalActionError):
                    state.apply(action)
                assert snapshot(state) == before
                tried += 1
            random_step(state, rng)
    assert tried > 1000


# --- Options -------------------------------------------------------------------------------------


def test_default_options() -> None:
    assert dict(GAME.default_options) == {"traps": 5, "tiles": 5}
    assert new_state().options == {"traps": 5, "tiles": 5}
    assert new_state({"traps": 2}).options == {"traps": 2, "tiles": 5}


def test_unknown_option_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match="akumas"):
        GAME.new_initial_state({"akumas": 9})


@pytest.mark.parametrize(
    "options",
    [{"traps": "5"}, {"traps": 5.0}, {"tiles": None}, {"traps": True}, {"tiles": [5]}],
    ids=["str", "float", "none", "bool", "list"],
)
def test_badly_typed_option_is_a_value_error(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(options))):
        GAME.new_initial_state(options)


@pytest.mark.parametrize(
    "options", [{"traps": -1}, {"tiles": -1}, {"traps": 10}, {"tiles": 100}], ids=str
)
def test_out_of_range_option_is_a_value_error(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(options))):
        GAME.new_initial_state(options)


def test_replay_checks_the_options_too() -> None:
    with pytest.raises(ValueError, match="akumas"):
        GAME.replay([], {"akumas": 1})


# --- Chance --------------------------------------------------------------------------------------


def two_dice_odds() -> dict[int, float]:
    counts = Counter(a + b for a, b in itertools.product(range(1, 7), repeat=2))
    return {total: n / 36 for total, n in counts.items()}


def test_two_dice_odds_are_the_2d6_distribution() -> None:
    outcomes = at_roll_two().chance_outcomes()
    odds = {a.total: p for a, p in outcomes if isinstance(a, Roll)}
    assert len(odds) == len(outcomes) == 11
    assert odds.keys() == two_dice_odds().keys()
    for total, p in two_dice_odds().items():
        assert odds[total] == pytest.approx(p)
    assert odds[7] == pytest.approx(6 / 36)
    assert odds[2] == pytest.approx(1 / 36)
    assert odds[12] == pytest.approx(1 / 36)
    assert sum(odds.values()) == pytest.approx(1.0)


def test_one_die_odds_are_uniform() -> None:
    outcomes = at_roll_one().chance_outcomes()
    assert [a for a, _ in outcomes] == [Roll(n) for n in range(1, 7)]
    assert all(p == pytest.approx(1 / 6) for _, p in outcomes)


def test_miraculous_odds_are_uniform() -> None:
    outcomes = at_miraculous().chance_outcomes()
    assert len(outcomes) == 6
    assert all(p == pytest.approx(1 / 6) for _, p in outcomes)


@pytest.mark.parametrize("seed", range(30))
def test_chance_outcomes_sum_to_one_at_every_chance_node(seed: int) -> None:
    rng = random.Random(seed)
    state = new_state()
    nodes = 0
    while not state.is_terminal():
        outcomes = state.chance_outcomes()
        if state.is_chance_node():
            nodes += 1
            assert state.current_player() == CHANCE
            assert state.legal_actions() == []
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            assert all(p > 0 for _, p in outcomes)
            assert len({a for a, _ in outcomes}) == len(outcomes)
        else:
            assert outcomes == []
            assert state.legal_actions()
        random_step(state, rng)
    assert nodes > 0


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_option_shown_beside_another_names_one_of_its_values(name: str) -> None:
    """`Option.shown_with` hides an option until another has a value (Voodoo's teams at 4
    players, BV-3): that option exists and the value is one it may take, or the form would
    hide the option for good."""
    info = GAMES[name].info
    for option in info.options:
        if option.shown_with is None:
            continue
        other, value = option.shown_with
        by_name = {o.name: o for o in info.options}
        assert other in by_name, f"{option.name}: no option {other!r}"
        assert by_name[other].problem(info, value) is None, f"{option.name}: {other}={value!r}"
