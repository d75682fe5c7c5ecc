"""Linked tables (issue 25) as their players meet them, through a real Mosquitto (the `mosquitto`
fixture), on Dice Race (tests/dice_race.py): a dashboard-only participant (`--page-only`) plays
its seat from the page, the other table's moves applied at once; chance drawn in software by the
room's option (`--link-dice software`), a table with the other option refused with a clear
message on both; no take-back while linked; a new game on one table said on both, until the
other starts one too and joins it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import Mosquitto, fast_sim_config, options_in, wait_for
from daemon_run import call, serving
from linked_tables import SECRET as LINKED
from linked_tables import Table
from playwright.sync_api import Page, expect

from controller.cli import main
from controller.config import Config
from controller.daemon import Daemon, RunOptions
from controller.rules.api import Game

SECRET = "room secret"


def _linked(race: Game, mosquitto: Mosquitto, room: str, seat: int, **changes: Any) -> Config:
    config = fast_sim_config(
        game=race.name, link_url=mosquitto.url(room), link_seats=(seat,), link_secret=SECRET
    )
    return replace(config, **changes)


@contextmanager
def _tables(*tables: tuple[Config, Path, bool]) -> Iterator[list[Daemon]]:
    """Daemons serving in-process, each (config, state folder, page_only), all playing."""
    with ExitStack() as stack:
        daemons = [
            stack.enter_context(serving(config, options_in(folder, page_only=page_only, seed=7)))
            for config, folder, page_only in tables
        ]
        yield daemons


def _status(daemon: Daemon) -> dict[str, Any]:
    return call(daemon, op="status")


def _history(daemon: Daemon) -> list[dict[str, Any]]:
    return _status(daemon)["history"]


def _alert_keys(daemon: Daemon) -> list[str]:
    return [alert["key"] for alert in call(daemon, op="snapshot")["alerts"]]


def test_a_page_only_participant_plays_its_seat_from_the_page(
    mosquitto: Mosquitto, tmp_path: Path, page: Page
) -> None:
    """Hawk Moth sits at a (simulated) table; Ladybug plays from the page alone. Hawk Moth's
    move and roll are applied at once on the page, its board as the game has it; Ladybug's
    choice and roll are made on the page and reach the table. The page says who plays where;
    a take-back is refused there, saying why."""
    link = {"link_url": mosquitto.url("page"), "link_secret": SECRET, "game": "akuma"}
    table = fast_sim_config(link_seats=(1,), **link)
    web = fast_sim_config(link_seats=(2,), web_listen="127.0.0.1:0", **link)
    with _tables((table, tmp_path / "table", False), (web, tmp_path / "page", True)) as (
        hawkmoth,
        ladybug,
    ):
        wait_for(lambda: _status(ladybug)["room"]["state"] == "playing", what="the page joins")
        assert ladybug.web is not None
        page.goto(ladybug.web.url(with_token=True))
        room = page.locator("#room")
        expect(room).to_contain_text("Played on this page: Ladybug (seat 2).")
        expect(room).to_contain_text("At other tables: Hawk Moth (seat 1).")
        expect(room).to_contain_text("Chance is rolled on the table of the seat that rolls.")
        expect(room).to_have_attribute("data-state", "playing")
        # What to do now: not the phase's help, which speaks to the player at Hawk Moth's table.
        help_box = page.locator("#phase-help")
        expect(help_box).to_contain_text("Hawk Moth plays at another table: wait for its move")
        # So says the header, on a phone's first screen (the walk: it read Hawk Moth's prompt).
        expect(page.locator("#turn")).to_contain_text("Hawk Moth plays at another table: wait")
        # Hawk Moth's one die (AK-3), read at its table: applied at once on the page, with the
        # akuma it puts on square 3 where the game has it.
        assert call(hawkmoth, op="roll", values=[3])["ok"]
        wait_for(lambda: len(_history(ladybug)) == 2, what="Hawk Moth's roll on the page")
        assert _status(ladybug)["expected"]["3.akuma"] == "piece"
        settled = lambda: (status := _status(ladybug))["sensed"] == status["expected"]  # noqa: E731
        wait_for(settled, what="the page's simulated board laid out as the game has it")
        assert call(ladybug, op="snapshot")["note"]["key"] == "remote_roll"
        expect(page.locator("#message")).to_contain_text("At another table: Rolled 3.")
        # Ladybug's choice and roll, made on the page, reach the table.
        page.locator('#actions [data-action="choose_dice:1"]').click()
        expect(help_box).to_contain_text("Throw the dice and enter what they show below")
        page.locator("#roll-random").click()
        expect(page.locator("#log li")).to_have_count(4)
        played = _history(ladybug)[:4]
        wait_for(lambda: _history(hawkmoth)[:4] == played, what="Ladybug's roll at the table")
        # A take-back would leave the tables apart.
        expect(page.locator("#undo")).to_be_disabled()
        expect(page.locator("#undo-what")).to_contain_text("No take-back while the tables")
        refused = call(ladybug, op="undo")
        assert refused["key"] == "linked_undo" and "disagree" in refused["error"]
        assert _history(ladybug)[:4] == played


def test_chance_rolled_in_software_and_a_table_with_the_other_option_refused(
    race: Game, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """With `--link-dice software` the table of the seat that rolls draws the roll and publishes
    it; no dice are entered. A table that comes with dice on the table keeps out of the room's
    game, and both tables say so."""
    red_config = _linked(race, mosquitto, "soft", 1, link_dice="software")
    blue_config = _linked(race, mosquitto, "soft", 2, link_dice="software")
    tables = ((red_config, tmp_path / "red", False), (blue_config, tmp_path / "blue", True))
    with _tables(*tables) as (red, blue):
        # Red's roll is drawn at red's table at once, and followed by blue's page.
        wait_for(lambda: len(_history(blue)) == 1, what="red's roll drawn")
        roll = _history(red)[0]
        assert roll["type"] == "Roll" and 1 <= roll["value"] <= 6
        assert call(red, op="snapshot")["note"]["key"] == "drawn"
        refused = call(red, op="roll", values=[3])
        assert not refused["ok"] and "in software" in refused["error"]
        assert call(red, op="act", id=f"advance:{roll['value']}")["ok"]
        # Blue's roll is drawn on blue's page, once red's move has come.
        wait_for(lambda: len(_history(red)) == 3, what="blue's roll drawn, at red's table")
        assert _history(blue) == _history(red)
        assert _status(red)["room"]["dice"] == "software"
        # A table rolling dice on the table: it does not join, and says why; so does red.
        late = _linked(race, mosquitto, "soft", 2)
        with serving(late, options_in(tmp_path / "late")) as other:
            wait_for(lambda: _status(other)["room"]["state"] == "refused", what="refused")
            alert = _status(other)["alerts"][0]
            assert "cannot join the room's game" in alert and "--link-dice software" in alert
            assert _history(other) == []
            wait_for(lambda: "peer_dice_differ" in _alert_keys(red), what="red told")
        assert _history(blue) == _history(red)


def test_a_new_game_on_one_table_is_said_on_both_until_the_other_joins_it(
    race: Game, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """Blue's table starts a new game: red's says blue left, and blue waits for red's next
    game; red starts one, and blue joins it. Then red starts another: blue is told the room
    moved on, and red that blue still plays the previous one, until blue starts one too."""
    red_config = _linked(race, mosquitto, "new", 1)
    blue_config = _linked(race, mosquitto, "new", 2)
    tables = ((red_config, tmp_path / "red", False), (blue_config, tmp_path / "blue", True))
    with _tables(*tables) as (red, blue):
        wait_for(lambda: _status(blue)["room"]["state"] == "playing", what="blue joins")
        assert call(red, op="roll", values=[2])["ok"]
        wait_for(lambda: len(_history(blue)) == 1, what="red's roll on the page")
        assert call(blue, op="new", abandon=True)["ok"]
        wait_for(lambda: "peer_left" in _alert_keys(red), what="red told blue left")
        assert _status(blue)["room"]["state"] == "waiting"
        assert call(red, op="new", abandon=True)["ok"]
        wait_for(lambda: _status(blue)["room"]["state"] == "playing", what="blue joins again")
        game = _status(red)["room"]["game_id"]
        assert _status(blue)["room"]["game_id"] == game
        wait_for(lambda: _alert_keys(red) == _alert_keys(blue) == [], what="no alert")
        # Red starts another game first.
        assert call(red, op="new", abandon=True)["ok"]
        wait_for(lambda: _status(blue)["room"]["state"] == "moved_on", what="blue told")
        assert _alert_keys(blue) == ["room_moved_on"]
        assert "start a new game here too" in _status(blue)["alerts"][0]
        wait_for(lambda: _alert_keys(red) == ["peer_behind"], what="red told")
        assert call(blue, op="new", abandon=True)["ok"]
        wait_for(lambda: _status(blue)["room"]["state"] == "playing", what="blue joins")
        assert _status(blue)["room"]["game_id"] == _status(red)["room"]["game_id"] != game
        wait_for(lambda: _alert_keys(red) == [], what="red's alert gone")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--page-only", "--web", "127.0.0.1:0"], "--page-only takes seats in a game linked"),
        (["--page-only", "--link", "mqtt://127.0.0.1/r", "--seats", "2", "--link-secret", "S"],
         "--page-only is played on the dashboard: give --web"),
        (["--link-dice", "software"], "--link-dice go with --link"),
    ],
)  # fmt: skip
def test_page_only_and_link_dice_are_refused_without_what_they_need(
    args: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--no-show", "--state-dir", str(tmp_path), *args]) == 2
    assert re.search(re.escape(said), capsys.readouterr().err)


def test_a_table_gone_from_the_room_is_said_until_it_is_back(
    race: Game, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: a table killed mid-game left the other one "playing", telling its
    players to wait for a move that could not come. Its seats are now said to be away (its last
    will, or its goodbye), until a table plays them again."""
    red_config = _linked(race, mosquitto, "away", 1)
    blue_config = _linked(race, mosquitto, "away", 2)
    with serving(red_config, options_in(tmp_path / "red", seed=7)) as red:
        with serving(blue_config, options_in(tmp_path / "blue", seed=7)) as blue:
            wait_for(lambda: _status(blue)["room"]["state"] == "playing", what="blue joins")
            wait_for(lambda: _alert_keys(red) == [], what="both tables in the game")
        wait_for(lambda: _alert_keys(red) == ["peer_away"], what="red told blue is gone")
        said = call(red, op="snapshot")["alerts"][0]
        assert said["params"] == {"seats": "2"} and "not connected to the room" in said["text"]
        with serving(blue_config, options_in(tmp_path / "blue", seed=7)) as blue:
            wait_for(lambda: _status(blue)["room"]["state"] == "playing", what="blue back")
            wait_for(lambda: _alert_keys(red) == [], what="red's alert gone")


def test_a_table_given_another_secret_is_said_on_both(
    race: Game, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: with a wrong --link-secret both pages stayed green and "playing",
    each waiting for the other's moves, which were dropped as unsigned."""
    red_config = _linked(race, mosquitto, "secret", 1)
    blue_config = _linked(race, mosquitto, "secret", 2, link_secret="not ours")
    with serving(red_config, options_in(tmp_path / "red", seed=7)) as red:
        with serving(blue_config, options_in(tmp_path / "blue", seed=7)) as blue:
            # Blue's presence comes to red as it is sent; red's came to blue kept, from before,
            # so red announces itself again for blue to hear: blue is told with no move made.
            wait_for(lambda: _alert_keys(red) == ["room_foreign_secret"], what="red told")
            assert "another --link-secret" in call(red, op="snapshot")["alerts"][0]["text"]
            wait_for(lambda: _alert_keys(blue) == ["room_foreign_secret"], what="blue told")
            assert call(red, op="roll", values=[2])["ok"]
            assert _history(blue) == []
        # Started again with the room's secret: it joins, and red's alert goes.
        with serving(_linked(race, mosquitto, "secret", 2), options_in(tmp_path / "b2", seed=7)):
            wait_for(lambda: _alert_keys(red) == [], what="red's alert gone")


def _bots(folder: Path, seed: int) -> RunOptions:
    """Bots at full pace on a short game: one colour of monsters, 40 cards."""
    return options_in(folder, bots=True, pace=0.0, seed=seed, options={"colours": "green"})


def test_linked_simulated_tables_deal_the_same_cards(
    mosquitto: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The two tables' walk, Multipli Potion: each simulated table dealt its own hands, so a
    card one friend played was another in the other table's deal, and that table dealt again,
    replacing its own player's hand at each of the friend's cards (and two hands could hold the
    same card). Dealt from the room's game id, both tables hold the same cards throughout: no
    card the other table's player lays is a surprise to this one's deal."""
    link = {"link_url": mosquitto.url("deal"), "link_secret": SECRET, "game": "potions"}
    red_config = fast_sim_config(link_seats=(1,), **link)
    blue_config = fast_sim_config(link_seats=(2,), **link)
    with (
        serving(red_config, _bots(tmp_path / "red", 1)) as red,
        serving(blue_config, _bots(tmp_path / "blue", 2)) as blue,
    ):
        # The deal, and several cards laid by each table's player and carried out at the other.
        wait_for(lambda: len(_history(red)) >= 30 and len(_history(blue)) >= 30, 30.0, "play")
        assert _history(red)[:30] == _history(blue)[:30]
        kinds = {action["type"] for action in _history(red)[:30]}
        assert "Place" in kinds, kinds
    assert "dealt again" not in caplog.text


def test_laying_out_on_a_linked_table_is_refused_saying_why(
    race: Game, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: on a linked table at chance, `lay-out` was refused as "a player
    decides, or dice are rolled, next", which was not so."""
    with serving(_linked(race, mosquitto, "lay", 1), options_in(tmp_path, seed=7)) as red:
        refused = call(red, op="lay_out")
        assert not refused["ok"] and refused["key"] == "lay_out_linked"
        assert "lay each card or piece by hand" in refused["error"]


def test_a_table_killed_is_said_to_be_gone_by_its_last_will(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A table killed says nothing: the broker publishes its last will, which says only that
    it went offline. The seats it played stay known, and are said to be away."""
    url = mosquitto.url("killed")
    config = fast_sim_config(game="akuma", link_url=url, link_seats=(1,), link_secret=LINKED)
    with serving(config, options_in(tmp_path / "red", seed=7)) as red:
        blue = Table(tmp_path / "blue", url, "akuma", 0, "2")
        try:
            wait_for(lambda: _tables_seen(red) == [[2]], 30.0, "blue in the room")
            wait_for(lambda: _alert_keys(red) == [], what="both tables in the game")
            blue.kill()
            wait_for(lambda: _alert_keys(red) == ["peer_away"], what="red told blue is gone")
        finally:
            blue.stop()


def _tables_seen(daemon: Daemon) -> list[list[int]]:
    return [table["seats"] for table in call(daemon, op="snapshot")["room"]["tables"]]


def test_a_refused_table_joins_once_it_starts_the_rooms_game(
    race: Game, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: a table refused for playing another game started the room's very
    game, options and all, and stayed refused until its daemon was restarted."""
    red_config = _linked(race, mosquitto, "again", 1)
    with _tables((red_config, tmp_path / "red", True)) as (red,):
        assert call(red, op="new", abandon=True, options={"goal": 5})["ok"]
        wait_for(lambda: _status(red)["room"]["state"] == "playing")
        blue = _linked(race, mosquitto, "again", 2)
        with serving(blue, options_in(tmp_path / "blue", page_only=True)) as other:
            wait_for(lambda: _status(other)["room"]["state"] == "refused", what="refused")
            assert call(other, op="new", abandon=True, options={"goal": 5})["ok"]
            wait_for(lambda: _status(other)["room"]["state"] == "playing", what="joined")
            assert _status(other)["room"]["game_id"] == _status(red)["room"]["game_id"]


def test_two_tables_of_one_seat_are_both_told(
    race: Game, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: a table started again with the other's --seats was taken in
    silently; each then took the other's moves of that seat for its own."""
    first, second = _linked(race, mosquitto, "twice", 1), _linked(race, mosquitto, "twice", 1)
    with _tables((first, tmp_path / "a", True), (second, tmp_path / "b", True)) as tables:
        for table in tables:
            wait_for(lambda t=table: "peer_same_seat" in _alert_keys(t), what="told")
        (alert,) = [
            a for a in call(tables[0], op="snapshot")["alerts"] if a["key"] == "peer_same_seat"
        ]
        assert alert["text"].startswith("seat 1 is played at another table too")


def test_a_refused_table_is_told_the_rooms_options_as_the_command_line_takes_them() -> None:
    """The two tables' walk: the alert showed a Python dict, {'loas': '', 'players': 3}."""
    from controller.room_peers import refusal_alert

    refusal = {"why": "game", "room": "voodoo", "options": {"loas": "", "players": 3}}
    text, key, params = refusal_alert(refusal, "akuma")
    assert text == (
        "this table cannot join the room's game: the room plays voodoo (loas= players=3), this "
        "table akuma; start a new game of voodoo with those options to join it"
    )
    assert key == "room_game_differs" and params == {"room": "voodoo", "here": "akuma"}
