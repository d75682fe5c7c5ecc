"""Every registered game, the sixth (Dice Race, tests/dice_race.py) too, through the same checks:
seeded random play on the rules alone with invariants after every action (OpenSpiel's random
simulation test is the model), and a whole game of bots on the simulated table.

Dice Race is declared only in its own module and profile: these tests, the terminal, the
dashboard, `replay` and `simulate` reach it through the registry, with no edit anywhere else.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from pathlib import Path

import dice_race
import pytest
from conftest import QUICK_CAMERA, RunOptionsMaker, fast_sim_config
from daemon_run import call, serving
from playwright.sync_api import Page, expect

from controller.cli import main
from controller.config import load_config
from controller.daemon import Daemon
from controller.journal import Journal
from controller.rules import GAMES
from controller.rules.api import Action, Game, GameState, IllegalActionError
from controller.simulate import random_step
from controller.snapshot import hex_colour

NAMES = [*GAMES, dice_race.GAME.name]
# Enough actions for a random game of the longest of them to end, or to show it going well.
MAX_ACTIONS = 600


@pytest.fixture(params=NAMES)
def game(request: pytest.FixtureRequest, race: Game) -> Iterator[Game]:
    yield GAMES[request.param]


class Unplayable(Action):
    """An action of no game: every state must refuse it, and stay as it was."""


def check(game: Game, state: GameState) -> None:
    """What must hold in every state of every game."""
    spots = game.spots()
    assert set(game.layout(state)) <= set(spots), "the layout names spots the game has not"
    lit = {spot.partition("@")[0] for spot in game.lights(state)}
    assert lit <= set(spots), "the lights name spots the game has not"
    details = game.info.details
    if details:
        assert list(game.describe(state)) == [d.name for d in details], "undeclared description"
    returns = state.returns()
    assert len(returns) == state.num_players
    if not state.is_terminal():
        assert all(value == 0 for value in returns), "a result before the end"
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert outcomes and not state.legal_actions()
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    elif not state.is_terminal():
        actions = state.legal_actions()
        assert actions, "a player to move with nothing to do"
        ids = [a.id for a in actions]
        assert len(set(ids)) == len(ids), "two legal actions share an id"
        for action in actions[:50]:
            assert game.action_from_json(json.loads(json.dumps(action.to_json()))) == action
    before = state.history()
    with pytest.raises(IllegalActionError):
        state.apply(Unplayable())
    assert state.history() == before, "a refused action changed the state"


def same(a: GameState, b: GameState) -> bool:
    return (
        a.history() == b.history()
        and a.current_player() == b.current_player()
        and a.returns() == b.returns()
        and [x.id for x in a.legal_actions()] == [x.id for x in b.legal_actions()]
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_keep_every_invariant(game: Game, seed: int) -> None:
    rng = random.Random(f"{game.name} {seed}")
    state = game.new_initial_state()
    hidden = game.deal(state, rng)
    check(game, state)
    for step in range(MAX_ACTIONS):
        if state.is_terminal():
            break
        if step % 25 == 0:
            # A clone is independent: playing on it leaves the original as it was.
            twin, original = state.clone(), state.history()
            random_step(twin, random.Random(step))
            assert state.history() == original
        random_step(state, rng, hidden)
        check(game, state)
    # The history is the save format: it replays to the same position.
    replayed = game.replay(json.loads(json.dumps(state.history())), state.options)
    assert same(replayed, state)


def test_bots_play_a_whole_game_on_the_simulated_table(
    game: Game, run_options: RunOptionsMaker, tmp_path: Path
) -> None:
    config = fast_sim_config(game=game.name, **QUICK_CAMERA)
    shown = io.StringIO()
    daemon = Daemon(config, run_options(bots=True, pace=0.0, until_end=True, seed=3, show=shown))
    daemon.open()
    try:
        assert daemon.run() == 0
        state = daemon.session.state
        assert state.is_terminal()
        assert daemon.session.sensed == daemon.session.expected  # the pieces are where they end
        record = Journal(tmp_path).read()
        assert same(game.replay(record.history(), record.options), state)
    finally:
        daemon.close()
    # The terminal drew each position, the last one as the end of the game.
    drawn = shown.getvalue().strip().split("\n\n")
    assert len(drawn) > 1 and " · game over" in drawn[-1].splitlines()[-1]


def test_the_sixth_game_plays_from_the_page(
    race: Game, run_options: RunOptionsMaker, tmp_path: Path, page: Page
) -> None:
    """Dice Race on the dashboard: its track, its pawns' lights, a roll and a move."""
    config = fast_sim_config(game=race.name, web_listen="127.0.0.1:0")
    palette = {role: hex_colour(rgb) for role, rgb in load_config(None).palette.items()}
    with serving(config, run_options(seed=1)) as daemon:
        assert daemon.web is not None
        page.goto(daemon.web.url(with_token=True))
        root = page.locator("html")
        expect(root).to_have_attribute("data-game", "dice_race")
        squares = page.locator("#board > [data-spot]")
        expect(squares).to_have_count(8)
        expect(page.locator('[data-spot="8"]')).to_have_attribute("data-light", palette["goal"])
        pawn = page.locator('[data-spot="1.red"]')
        expect(pawn).to_have_attribute("data-light", palette["red"])
        expect(pawn).to_have_attribute("data-sensed", "piece")
        assert call(daemon, op="roll", values=[4])["ok"]
        # The rules name the roller: the log says whose roll it was.
        expect(page.locator("#log li").last).to_have_text("red: roll: 4")
        expect(page.locator('[data-spot="5.red"]')).to_have_attribute(
            "data-light", palette["legal"]
        )
        # The red pawn carried from 1 to 5 on the simulated table: a click lifts, one lays.
        page.locator('[data-spot="1.red"]').click()
        page.locator('[data-spot="5.red"]').click()
        expect(page.locator("#log li").last).to_have_text("red: advance: 4")
        expect(root).to_have_attribute("data-to-move", "chance")  # blue's roll


def test_the_sixth_game_is_simulated_and_replayed_by_the_cli(
    race: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "dice_race", "--games", "20", "--seed", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["finished"] == 20 and sum(report["wins"].values()) == 20
    # A record of a short game, as the dashboard downloads it, shown again position by position.
    state = race.new_initial_state({"goal": 3})
    for action in (dice_race.Roll(2), dice_race.Advance(2)):
        state.apply(action)
    record = tmp_path / "race.json"
    saved = {"game": "dice_race", "options": state.options, "history": state.history()}
    record.write_text(json.dumps(saved))
    assert main(["replay", str(record), "--delay", "0"]) == 0
    shown = capsys.readouterr().out
    assert "2. advance: 2 (advance:2)" in shown  # a game without words: its ids made readable
    # The red pawn on the goal, marked with the game's own "goal" role ("=").
    assert "3=[ R]" in shown and '"winners": ["red"]' in shown
