"""Games played from the command line alone against a simulated daemon: `place` and `remove`
lay and lift what the camera or the reeds would feel, `act` and `roll` do the rest, and
`actions` shows the legal ids grouped by kind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import fast_sim_config, options_in, wait_for
from daemon_run import serving

from controller.cli import main
from controller.cli.errors import EX_USAGE
from controller.daemon import Daemon


@pytest.fixture
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Daemon]:
    """A simulated table (no bots) playing the game the test is parametrized with."""
    game = getattr(request, "param", "akuma")
    with serving(fast_sim_config(), options_in(tmp_path, game=game, seed=3)) as daemon:
        yield daemon


def cli(daemon: Daemon, capsys: pytest.CaptureFixture[str], *words: str) -> str:
    """What `smartboard WORDS` prints, which must succeed."""
    capsys.readouterr()
    status = main([*words, "--state-dir", str(daemon.options.state_dir)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


def settled(daemon: Daemon, moves: int) -> None:
    """The table shows what the game expects, `moves` actions in."""
    session = daemon.session
    wait_for(lambda: len(session.state.history()) == moves and session.sensed == session.expected)


def test_a_game_of_akuma_from_the_command_line_alone(
    table: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = cli(table, capsys, "place", "--list")
    assert "5 (camera): shows civilian-5\n" in listed
    assert "empty, and the next move lays nothing there: 1.akuma 1.hawkmoth" in listed
    cli(table, capsys, "act", "choose_dice:2")
    rolled = cli(table, capsys, "roll", "4", "6")
    assert rolled == "applied: Rolled 10 (roll:10)\n"  # AK-5: a trap to lay
    assert "5.trap (reed): shows -; next: piece\n" in cli(table, capsys, "place", "--list")
    assert cli(table, capsys, "place", "5.trap") == "5.trap: piece laid\n"
    settled(table, 3)  # the trap laid is the move: place_trap:5
    assert table.session.state.history()[-1] == {"type": "PlaceTrap", "square": 5}
    cli(table, capsys, "act", "choose_dice:1")
    cli(table, capsys, "roll", "5")
    cli(table, capsys, "place", "5.ladybug")
    cli(table, capsys, "roll", "cataclysm")  # the last trap destroyed: Ladybug wins (AK-9)
    assert cli(table, capsys, "remove", "5.trap") == "5.trap: lifted\n"
    settled(table, 6)
    assert "over: Ladybug won" in cli(table, capsys, "status")


@pytest.mark.parametrize("table", ["potions", "mightymania"], indirect=True)
def test_a_set_up_of_cards_in_slots_advances_by_place_alone(
    table: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each card laid is the next one `place --list` offers, as a player would read it there."""
    session = table.session
    assert session.state.is_chance_node()
    laid = 0
    while session.state.is_chance_node() and session.game.dice_wanted(session.state) is None:
        offered = cli(table, capsys, "place", "--list").splitlines()
        spot, _, rest = next(line for line in offered if "; next: " in line).partition(" ")
        token = rest.split("; next: ")[1].split()[0]
        assert cli(table, capsys, "place", spot, token) == f"{spot}: {token}\n"
        laid += 1
        settled(table, laid)
    assert laid >= 2


def test_place_and_remove_say_what_they_did_or_why_not(
    table: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    state_dir = str(table.options.state_dir)
    assert cli(table, capsys, "place", "5", "akumatized-5") == "5: akumatized-5\n"
    assert cli(table, capsys, "remove", "5") == "5: emptied\n"
    assert cli(table, capsys, "place", "5.trap", "piece") == "5.trap: piece laid\n"
    assert cli(table, capsys, "place", "5.trap", "piece") == "5.trap: piece laid\n"  # still there
    assert main(["place", "5.trap", "red:3", "--state-dir", state_dir]) == 1
    assert "a reed feels a piece, never which: not 'red:3'" in capsys.readouterr().err
    assert main(["remove", "5.dragon", "--state-dir", state_dir]) == 1
    said = capsys.readouterr().err
    assert "no spot '5.dragon' on the Capture the Akuma table (`smartboard place --list`" in said
    assert main(["place", "trap", "--state-dir", state_dir]) == 1
    said = capsys.readouterr().err  # the walk: "z1", each seat's "s1.z1", named alone
    assert "did you mean 1.trap or 2.trap or 3.trap? (`smartboard place --list`" in said
    assert main(["place", "--state-dir", state_dir]) == EX_USAGE
    assert "give a spot, or --list" in capsys.readouterr().err


def test_place_tells_how_to_find_spots_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["place", "--help"])
    assert "smartboard place --list` prints each spot" in " ".join(capsys.readouterr().out.split())


def test_actions_are_grouped_by_kind_and_cut_at_the_terminal(
    table: Daemon, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli(table, capsys, "actions") == "to move: Hawk Moth\n  choose_dice: 1 2\n"
    cli(table, capsys, "act", "choose_dice:2")
    cli(table, capsys, "roll", "4", "6")  # AK-5: a trap on any of the 9 squares
    wide = "to move: Hawk Moth\n  place_trap: 1 2 3 4 5 6 7 8 9\n"
    assert cli(table, capsys, "actions") == wide
    monkeypatch.setenv("COLUMNS", "40")
    cut = cli(table, capsys, "actions").splitlines()[1]
    assert cut == "  place_trap: 1 2 3 … and 6 more: --all"
    assert len(cut) <= 40
    every = cli(table, capsys, "actions", "--all").splitlines()
    assert every[1:] == [f"  place_trap:{square}" for square in range(1, 10)]


@pytest.mark.parametrize("table", ["potions"], indirect=True)
def test_actions_list_the_cards_the_simulated_hands_hold_first(
    table: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    """The rules take any card the camera may read (1,480 places); a person at the terminal
    wants those of the four cards in hand, a line each."""
    cli(table, capsys, "lay-out")
    session = table.session
    wait_for(lambda: not session.state.is_chance_node())
    assert table.hands is not None
    held = table.hands.choices(session.state)
    assert held is not None
    cards = sorted({a.id.rpartition(":")[0] for a in held})
    lines = cli(table, capsys, "actions").splitlines()
    assert lines[1] == "  with the cards the simulated table's hands hold:"
    assert sorted(line.split(": ")[0].strip() for line in lines[2:-1]) == cards
    others = len(session.state.legal_actions()) - len(held)
    assert lines[-1] == f"  and {others} more the rules allow with other cards: --all"
    every = cli(table, capsys, "actions", "--all").splitlines()
    assert len(every) == 1 + len(session.state.legal_actions())


def test_an_action_of_one_word_is_its_own_kind() -> None:
    """The review: "end_turn" and "take_offering" were listed under a blank kind."""
    from controller.cli.game import _kinds

    ids = ["take_offering", "end_turn", "papa_legba:r1c1:r2c1"]
    assert _kinds(ids) == {"take_offering": [], "end_turn": [], "papa_legba": ["r1c1:r2c1"]}
    by_card = _kinds(ids, by_card=True)
    assert by_card == {"take_offering": [], "end_turn": [], "papa_legba:r1c1": ["r2c1"]}
