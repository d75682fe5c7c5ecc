"""Games people keep: the players' names kept with a game, the past games of the state
directory listed, downloaded and shown again position by position."""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import fast_sim_config
from daemon_run import call, serving

from controller.cli import main
from controller.cli.game import _game_row
from controller.config import load_config
from controller.daemon import RunOptions
from controller.journal import JOURNAL, Journal, read_journal
from controller.past_games import past_games, past_position, past_record, record_json
from controller.rules import get_game
from controller.seats import MAX_NAME, check_names, split_names

PALETTE = load_config(None).palette


def test_names_are_trimmed_and_a_blank_one_is_the_seats_own() -> None:
    assert check_names(None, 2) == [None, None]
    assert check_names([" Ana ", ""], 3) == ["Ana", None, None]
    assert check_names(["Zoé", None], 2) == ["Zoé", None]
    assert split_names("Ana, ,Bob,,") == ["Ana", None, "Bob"]


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ("Ana", "must be a list of names"),
        (["A", "B", "C"], "3 names for a game of 2 seats"),
        (["x" * (MAX_NAME + 1)], f"at most {MAX_NAME}"),
        ([3], "seat 1's name must be text"),
        (["Ana\nBob"], "control character"),
        (["Ana", "ana"], "two seats are named"),
    ],
)
def test_a_bad_name_is_refused_with_why(given: object, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        check_names(given, 2)


def _play(journal: Journal, game: str, names: list[str | None], moves: int | None) -> None:
    """A new game in `journal`, played at random for `moves` moves (None: to its end)."""
    rules = get_game(game)
    state = rules.new_initial_state({})
    journal.start(game, state.options, names)
    rng = random.Random(7)
    while not state.is_terminal() and (moves is None or len(state.actions()) < moves):
        if state.is_chance_node():
            action = rng.choice([outcome for outcome, _ in state.chance_outcomes()])
        else:
            action = rng.choice(state.legal_actions())
        state.apply(action)
        journal.append_action(action.to_json())


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    """A state directory with a finished game, an abandoned one, a file that is no journal and
    the game on the table."""
    journal = Journal(tmp_path)
    _play(journal, "akuma", ["Ana", "Bob"], None)
    _play(journal, "akuma", [None, "Cid"], 2)
    _play(journal, "akuma", [], 1)  # on the table: not a past game
    journal.close()
    (tmp_path / "journal-20200101-000000.jsonl").write_text("not a journal\n")
    (tmp_path / "journal.damaged-20200101-000000").write_text("kept aside, no game\n")
    return tmp_path


def test_names_go_round_the_journal_and_an_old_journal_has_none(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.start("akuma", {}, ["Ana", None])
    journal.close()
    record = read_journal(tmp_path / JOURNAL)[0]
    assert record.names == ["Ana", None] and record.started is not None
    old = {"game": "akuma", "options": {}}  # as journals were written before names
    text = json.dumps(old, separators=(",", ":"), sort_keys=True)
    line = f'{{"crc":{zlib.crc32(text.encode())},"body":{text}}}\n'
    (tmp_path / JOURNAL).write_text(line)
    record = read_journal(tmp_path / JOURNAL)[0]
    assert record.names == [] and record.started is None
    assert record_json(record)["names"] == [None, None]


def test_past_games_are_listed_newest_first_and_a_bad_file_as_unreadable(kept: Path) -> None:
    games = past_games(kept)
    readable = [g for g in games if "unreadable" not in g]
    assert [(g["names"], g["moves"]) for g in readable] == [
        ([None, "Cid"], 2),
        (["Ana", "Bob"], 22),
    ]
    abandoned, finished = readable
    assert abandoned["result"] == "abandoned"
    assert finished["result"]["winners"] and finished["players"] == ["hawkmoth", "ladybug"]
    assert finished["title"] == "Capture the Akuma" and finished["started"] < abandoned["started"]
    (bad,) = [g for g in games if "unreadable" in g]
    assert bad["id"] == "journal-20200101-000000.jsonl" and str(kept) not in bad["unreadable"]


def test_a_past_position_is_drawn_as_the_table_showed_it(kept: Path) -> None:
    finished = past_games(kept)[-1]
    steps = finished["moves"]
    first = past_position(kept, finished["id"], 0, {}, PALETTE)
    assert (first["step"], first["steps"], first["action"]) == (0, steps, None)
    last = past_position(kept, finished["id"], str(steps), {}, PALETTE)
    snapshot = last["snapshot"]
    assert last["action"] == snapshot["log"][-1] and len(snapshot["log"]) == steps
    assert snapshot["result"]["winners"] == finished["result"]["winners"]
    assert snapshot["names"] == ["Ana", "Bob"] and snapshot["actions"] == []
    assert snapshot["sim"] is False  # nothing on it to click
    assert all(spot["sensed"] == spot["expected"] for spot in snapshot["spots"].values())
    lit = {spot["light"] for spot in snapshot["spots"].values()}
    assert lit != {spot["light"] for spot in first["snapshot"]["spots"].values()}
    # Stepping back goes through the positions kept on the way.
    back = past_position(kept, finished["id"], 1, {}, PALETTE)["snapshot"]
    assert back["log"] == snapshot["log"][:1]


@pytest.mark.parametrize("step", [-1, 23, "x", None, 1.0, "1e3"])
def test_a_step_out_of_the_game_is_refused(kept: Path, step: Any) -> None:
    finished = past_games(kept)[-1]
    with pytest.raises(ValueError, match="step must be a whole number from 0 to 22"):
        past_position(kept, finished["id"], step, {}, PALETTE)


@pytest.mark.parametrize(
    "game_id", ["../journal.jsonl", "journal.jsonl", "/etc/passwd", "journal-*.jsonl", 3, None]
)
def test_only_a_game_of_the_list_opens(kept: Path, game_id: Any) -> None:
    with pytest.raises(ValueError, match=r"no past game|must name a past game"):
        past_record(kept, game_id)
    with pytest.raises(ValueError, match=r"no past game|must name a past game"):
        past_position(kept, game_id, 0, {}, PALETTE)


def test_names_are_chosen_kept_over_a_restart_and_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = RunOptions(
        state_dir=tmp_path, socket_path=tmp_path / "control.sock", names=("Ana", "Bob")
    )
    with serving(fast_sim_config(), options) as daemon:
        assert call(daemon, op="snapshot")["names"] == ["Ana", "Bob"]
        assert call(daemon, op="act", id="choose_dice:2")["ok"]
        refused = call(daemon, op="new", abandon=True, names=["A", "B", "C"])
        assert refused == {"ok": False, "error": "3 names for a game of 2 seats"}
        assert main(["new", "--abandon", "--names", "Zoé,", "--state-dir", str(tmp_path)]) == 0
        assert call(daemon, op="snapshot")["names"] == ["Zoé", None]
        (game,) = call(daemon, op="games")["games"]
        assert (game["names"], game["result"], game["moves"]) == (["Ana", "Bob"], "abandoned", 1)
        record = call(daemon, op="record", id=game["id"])["record"]
        assert record["names"] == ["Ana", "Bob"] and len(record["history"]) == 1
        capsys.readouterr()
        assert main(["games", "--state-dir", str(tmp_path)]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].split() == ["id", "started", "game", "players", "result", "moves"]
        assert game["id"] in lines[1] and "Ana, Bob" in lines[1] and "abandoned" in lines[1]
    with serving(fast_sim_config(), replace(options, names=None)) as daemon:
        assert call(daemon, op="snapshot")["names"] == ["Zoé", None]  # resumed with the game


def test_a_past_games_seats_left_unnamed_go_by_the_games_own_names() -> None:
    """The walk: `smartboard games` said "player_2" and "won by hawkmoth"."""
    row = {
        "id": "g1",
        "started": None,
        "game": "akuma",
        "title": "Capture the Akuma",
        "players": ["hawkmoth", "ladybug"],
        "names": [None, "Bob"],
        "result": {"winners": ["hawkmoth"]},
        "note": None,
        "moves": 5,
    }
    assert _game_row(row)[3:5] == ("Hawk Moth, Bob", "won by Hawk Moth")
    gone = row | {"game": "chess"}  # a game this version does not have: its seats' ids
    assert _game_row(gone)[3] == "hawkmoth, Bob"
