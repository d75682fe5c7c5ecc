"""Whole games of each of the five games between two simulated tables linked through a real
Mosquitto (issue 25), each table with bots on its own seats carrying out the other's moves as
hands, under the faults a real link meets: messages handed over twice and out of order, the
broker killed and started again (having kept nothing), a table killed and restarted. Each game
must end on both tables with the same result and both journals alike: no action lost, none
applied twice (a journal replays only legal actions, so one applied twice would end the
journals differently or not at all)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO, Mosquitto, free_port, listening, wait_for
from mqtt_proxy import FaultyProxy

from controller.journal import Journal, JournalError

SECRET = "room secret"
# Quick hands and a quick camera: a move is seen in a few frames of 60 a second.
FAST = (
    "[reeds]\ndebounce_ms = 5\n[session]\nsettle_s = 0.05\n[camera]\nfps = 60\nstable_frames = 2\n"
)
GAME_S = 120
"""Long enough for any of the games on a loaded machine (they take 2 to 15 s here)."""


class Table:
    """A simulated table's daemon playing `seats` of a game in a room, with bots."""

    def __init__(self, folder: Path, url: str, game: str, players: int, seats: str) -> None:
        folder.mkdir(exist_ok=True)
        config = folder / "config.toml"
        config.write_text(FAST)
        self.folder = folder
        self.args = ["run", "--sim", "--bots", "--pace", "0", "--until-end", "--no-show"]
        self.args += ["--game", game, "--config", str(config), "--state-dir", str(folder)]
        self.args += ["--players", str(players)] if players else []
        self.args += ["--link", url, "--seats", seats, "--link-secret", SECRET]
        self.args += ["--seed", str(7 * sum(map(ord, game + seats)))]
        self.process = self.start()

    def start(self) -> subprocess.Popen[str]:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller", *self.args],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        return self.process

    def played(self) -> int:
        """How many actions its journal holds (read while it plays)."""
        try:
            return len(Journal(self.folder).read().history())
        except JournalError:
            return 0  # not written yet

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.communicate(timeout=10)

    def finish(self) -> str:
        """Its result line, once it has ended the game."""
        try:
            out, err = self.process.communicate(timeout=GAME_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
            pytest.fail(f"{self.folder.name} did not end its game:\n{err[-3000:]}")
        assert self.process.returncode == 0, err[-3000:]
        assert "disagree" not in err, err[-3000:]
        results = [line for line in out.splitlines() if line.startswith("result:")]
        assert results, out[-2000:]
        return results[-1]


def _two_tables(tmp: Path, url: str, game: str, players: int = 0) -> list[Table]:
    others = ",".join(str(seat) for seat in range(2, max(players, 2) + 1))
    return [
        Table(tmp / "first", url, game, players, "1"),
        Table(tmp / "second", url, game, players, others),
    ]


def _same_game(tables: list[Table]) -> None:
    results = [table.finish() for table in tables]
    assert results[0] == results[1]
    first, second = (Journal(table.folder).read() for table in tables)
    assert first.history() == second.history()
    assert len(first.history()) > 8


class Broker:
    """A Mosquitto of the test's own, keeping nothing on disk: killed, it forgets the room."""

    def __init__(self, mosquitto: Mosquitto, folder: Path) -> None:
        self.binary, self.port = mosquitto.binary, free_port()
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(
            mosquitto.conf_head + f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
        )
        self.process = self.start()

    def start(self) -> subprocess.Popen[bytes]:
        self.process = subprocess.Popen(
            [self.binary, "-c", str(self.conf)], stderr=subprocess.DEVNULL
        )
        wait_for(lambda: listening(self.port), what="the broker")
        return self.process

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)

    def url(self, room: str) -> str:
        return f"mqtt://127.0.0.1:{self.port}/{room}"


@pytest.fixture
def own_broker(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Broker]:
    broker = Broker(mosquitto, tmp_path)
    yield broker
    broker.kill()


def _stop(tables: list[Table]) -> None:
    for table in tables:
        if table.process.poll() is None:
            table.process.kill()
            table.process.communicate()


@pytest.mark.parametrize("game", ["akuma", "mightymania"])
def test_a_whole_game_through_a_link_that_repeats_and_reorders_messages(
    mosquitto: Mosquitto, tmp_path: Path, game: str
) -> None:
    proxy = FaultyProxy(mosquitto.port, seed=len(game))
    tables = _two_tables(tmp_path, f"mqtt://127.0.0.1:{proxy.port}/{game}", game)
    try:
        _same_game(tables)
    finally:
        _stop(tables)
        proxy.close()
    assert proxy.counts["duplicated"] > 5 and proxy.counts["reordered"] > 5


def test_a_whole_game_with_the_broker_killed_and_started_again_mid_game(
    own_broker: Broker, tmp_path: Path
) -> None:
    """Killed, the broker forgets every retained message; the tables reconnect by themselves
    and carry on from what they have."""
    tables = _two_tables(tmp_path, own_broker.url("voodoo"), "voodoo", players=3)
    try:
        wait_for(lambda: tables[1].played() >= 30, timeout=GAME_S, what="the game under way")
        own_broker.kill()
        own_broker.start()
        _same_game(tables)
    finally:
        _stop(tables)


@pytest.mark.parametrize(("game", "players"), [("potions", 0), ("takeover", 2)])
def test_a_whole_game_with_a_table_killed_and_restarted_mid_game(
    mosquitto: Mosquitto, tmp_path: Path, game: str, players: int
) -> None:
    tables = _two_tables(tmp_path, mosquitto.url(game), game, players)
    try:
        wait_for(lambda: tables[1].played() >= 20, timeout=GAME_S, what="the game under way")
        tables[1].kill()
        tables[1].start()
        _same_game(tables)
    finally:
        _stop(tables)
