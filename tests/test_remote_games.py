"""Whole games of each of the five games between two simulated tables linked through a real
Mosquitto (issue 25), each table with bots on its own seats carrying out the other's moves as
hands (tests/linked_tables.py), under the faults a real link meets: messages handed over twice
and out of order, the broker killed and started again (having kept nothing), a table killed and
restarted. Each game must end on both tables with the same result and both journals alike: no
action lost, none applied twice (a journal replays only legal actions, so one applied twice
would end the journals differently or not at all)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Mosquitto, wait_for
from linked_tables import GAME_S, Broker, Table, lost_and_twice, two_tables
from mqtt_proxy import FaultyProxy


def _same_game(tables: list[Table]) -> None:
    try:
        results = [table.finish() for table in tables]
    finally:
        _stop(tables)
    assert results[0] == results[1]
    assert tables[0].history() == tables[1].history()
    assert lost_and_twice(tables) == (0, 0)
    assert len(tables[0].history()) > 8


def _stop(tables: list[Table]) -> None:
    for table in tables:
        table.stop()


@pytest.fixture
def own_broker(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Broker]:
    broker = Broker(mosquitto.binary, tmp_path)
    yield broker
    broker.kill()


@pytest.mark.parametrize("game", ["akuma", "mightymania"])
def test_a_whole_game_through_a_link_that_repeats_and_reorders_messages(
    mosquitto: Mosquitto, tmp_path: Path, game: str
) -> None:
    proxy = FaultyProxy(mosquitto.port, seed=len(game))
    try:
        _same_game(two_tables(tmp_path, f"mqtt://127.0.0.1:{proxy.port}/{game}", game))
    finally:
        proxy.close()
    assert proxy.counts["duplicated"] > 5 and proxy.counts["reordered"] > 5


def test_a_whole_game_with_the_broker_killed_and_started_again_mid_game(
    own_broker: Broker, tmp_path: Path
) -> None:
    """Killed, the broker forgets every retained message; the tables reconnect by themselves
    and carry on from what they have. Three players: the second table plays two seats."""
    tables = two_tables(tmp_path, own_broker.url("voodoo"), "voodoo", players=3)
    try:
        wait_for(lambda: len(tables[1].history()) >= 30, GAME_S, "the game under way")
        own_broker.kill()
        own_broker.start()
    except BaseException:
        _stop(tables)
        raise
    _same_game(tables)


@pytest.mark.parametrize(("game", "players"), [("potions", 0), ("takeover", 2)])
def test_a_whole_game_with_a_table_killed_and_restarted_mid_game(
    mosquitto: Mosquitto, tmp_path: Path, game: str, players: int
) -> None:
    tables = two_tables(tmp_path, mosquitto.url(game), game, players)
    try:
        wait_for(lambda: len(tables[1].history()) >= 20, GAME_S, "the game under way")
        tables[1].kill()
        tables[1].start()
    except BaseException:
        _stop(tables)
        raise
    _same_game(tables)
