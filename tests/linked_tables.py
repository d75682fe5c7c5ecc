"""Two simulated tables playing one game through a Mosquitto, each daemon in a process of its
own with bots on its own seats (issue 25), and the faults a real link meets: a broker killed
and started again, a table killed and restarted (the network that repeats and reorders
messages is tests/mqtt_proxy.py). Used by tests/test_remote_games.py and
benchmarks/remote_faults.py."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from conftest import REPO, broker_conf_head, free_port, listening, wait_for

from controller.journal import Journal, JournalError
from controller.rules.api import JSON

SECRET = "room secret"
# Quick hands and a quick camera: a move is seen in a few frames of 60 a second.
FAST = (
    "[reeds]\ndebounce_ms = 5\n[session]\nsettle_s = 0.05\n[camera]\nfps = 60\nstable_frames = 2\n"
)
GAME_S = 120
"""Long enough for any of the games on a loaded machine (they take 2 to 15 s here)."""


class Table:
    """A simulated table's daemon playing `seats` of a game in a room, with bots."""

    def __init__(
        self, folder: Path, url: str, game: str, players: int, seats: str, seed: int = 0
    ) -> None:
        folder.mkdir(exist_ok=True)
        config = folder / "config.toml"
        config.write_text(FAST)
        self.folder = folder
        self.args = ["run", "--sim", "--bots", "--pace", "0", "--until-end", "--no-show"]
        self.args += ["--game", game, "--config", str(config), "--state-dir", str(folder)]
        self.args += ["--players", str(players)] if players else []
        self.args += ["--link", url, "--seats", seats, "--link-secret", SECRET]
        self.args += ["--seed", str(seed + 7 * sum(map(ord, game + seats)))]
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

    def history(self) -> list[JSON]:
        """The actions its journal holds (read while it plays: none before it is written)."""
        try:
            return Journal(self.folder).read().history()
        except JournalError:
            return []

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.communicate(timeout=10)

    def finish(self) -> str:
        """Its result line, once it has ended the game; an AssertionError says what went
        wrong (not ended in time, ended badly, the tables disagreeing)."""
        try:
            out, err = self.process.communicate(timeout=GAME_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
            raise AssertionError(
                f"{self.folder.name} did not end its game:\n{err[-3000:]}"
            ) from None
        assert self.process.returncode == 0, err[-3000:]
        assert "disagree" not in err, err[-3000:]
        results = [line for line in out.splitlines() if line.startswith("result:")]
        assert results, out[-2000:]
        return results[-1]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def two_tables(folder: Path, url: str, game: str, players: int = 0, seed: int = 0) -> list[Table]:
    """Seat 1 on one table, every other seat on the second."""
    others = ",".join(str(seat) for seat in range(2, max(players, 2) + 1))
    return [
        Table(folder / "first", url, game, players, "1", seed),
        Table(folder / "second", url, game, players, others, seed),
    ]


def lost_and_twice(tables: list[Table]) -> tuple[int, int]:
    """Once both have ended, against the longer history: the actions a journal lacks after
    the two part (lost), and those it holds that the other does not (applied twice, forked)."""
    histories = [table.history() for table in tables]
    reference = max(histories, key=len)
    lost = twice = 0
    for history in histories:
        common = next(
            (n for n, (a, b) in enumerate(zip(history, reference, strict=False)) if a != b),
            min(len(history), len(reference)),
        )
        lost += len(reference) - common
        twice += len(history) - common
    return lost, twice


class Broker:
    """A Mosquitto of its own, keeping nothing on disk: killed, it forgets the room."""

    def __init__(self, binary: str, folder: Path) -> None:
        self.binary, self.port = binary, free_port()
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(
            broker_conf_head() + f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
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
