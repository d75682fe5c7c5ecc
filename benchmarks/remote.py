"""Linked tables (issue 25): an action published on one table, received and lit on the other.

Two simulated tables (two daemons, each in a process of its own, bots on their own seats
carrying out the other table's moves as hands) play Capture the Akuma through a throw-away
Mosquitto on a free port of the loopback, its files in a temporary folder (Debian's `mosquitto`
must be installed). A third client of the broker's (in this process) duplicates and reorders the
game's messages: every third one is held back and sent again twice, after the next, out of
order.

Figures, over the actions each table received from the other:
- relayed: published on one table -> at a third client of the broker's (the transport alone);
- received: published on one table -> handled by the other's loop (room.py has it in order);
- lit: published -> the other table's LED frame drawn (and written to the strip) with the move
  lit for a hand to carry out, or with a roll or an unseen decision applied;
- lit_ready: the same, for the actions that came once the other table had applied the one
  before (not waiting behind a move for a hand to carry out first);
- lost / duplicated: actions of the room missing from a table's journal, or applied there more
  than once (target 0/0), and the duplicates the tables saw and dropped.

Run: .venv/bin/python benchmarks/remote.py [--json] [--actions 200]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, replace
from multiprocessing import Queue
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.config import load_config
from controller.daemon import Daemon
from controller.journal import Journal
from controller.room import verify
from controller.rules.api import JSON
from controller.startup import RunOptions

SECRET = "benchmark secret"
GAME = "akuma"
PARTS = {
    "relayed": "through the broker (to a third client)",
    "received": "handled by the other table's loop",
    "lit": "lit on the other table",
    "lit_ready": "lit, if the other table had applied the action before",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_broker(folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Mosquitto on a free port of the loopback, anonymous, its config in `folder`."""
    binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin")
    if binary is None:
        raise SystemExit("benchmarks/remote.py needs Mosquitto: apt-get install mosquitto")
    port = free_port()
    conf = folder / "mosquitto.conf"
    user = f"user {os.environ.get('USER', 'root')}\n" if os.geteuid() == 0 else ""
    conf.write_text(
        user + f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
    )
    broker = subprocess.Popen([binary, "-c", str(conf)], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return broker, port
        if broker.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("mosquitto did not start")
        time.sleep(0.02)


class Shuffler:
    """A client of the broker's that sends the game's messages again: every third one is held
    back and, once the next comes, both are sent twice, the later one first."""

    def __init__(self, port: int, room: str) -> None:
        self.held: mqtt.MQTTMessage | None = None
        self.count = 0
        self.sent = 0
        self.mine: set[bytes] = set()
        self.first: dict[str, float] = {}  # when each topic first came
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(f"smartboard/{room}/game/#", qos=1)
        self.client.loop_start()

    def _message(self, client: object, userdata: object, message: mqtt.MQTTMessage) -> None:
        payload = bytes(message.payload)
        self.first.setdefault(message.topic, time.monotonic())
        if payload in self.mine:
            return  # one of its own, back
        self.count += 1
        if self.held is not None:
            for again in (message, self.held, message, self.held):
                self._send(again)
            self.held = None
        elif self.count % 3 == 0:
            self.held = message

    def _send(self, message: mqtt.MQTTMessage) -> None:
        self.mine.add(bytes(message.payload))
        self.client.publish(message.topic, bytes(message.payload), qos=1)
        self.sent += 1

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@dataclass
class Table:
    """One daemon, with the times its room published and received each action, and its frames."""

    daemon: Daemon
    published: dict[int, float] = field(default_factory=dict)
    actions: dict[int, JSON] = field(default_factory=dict)
    received: dict[int, float] = field(default_factory=dict)
    lit: dict[int, float] = field(default_factory=dict)
    waiting: set[int] = field(default_factory=set)  # came before the table had the one before


def open_table(folder: Path, url: str, seat: int, seed: int) -> Table:
    config = replace(
        load_config(None).simulated(),
        debounce_s=0.005,
        settle_s=0.2,
        link_url=url,
        link_seats=(seat,),
        link_secret=SECRET,
    )
    folder.mkdir(parents=True)
    options = RunOptions(
        state_dir=folder,
        socket_path=folder / "c.sock",
        game=GAME,
        bots=True,
        pace=0,
        until_end=True,
        seed=seed,
    )
    daemon = Daemon(config, options)
    daemon.open()
    table = Table(daemon)
    room = daemon.room
    assert room is not None
    publish, on_event, show = room.broker.publish, room.on_event, daemon._show

    def timed_publish(topic: str, payload: bytes, retain: bool = False) -> None:
        if "/game/" in topic:
            body = verify(SECRET.encode(), topic, payload)
            seq = body["seq"]
            if seq not in table.published:
                table.published[seq] = time.monotonic()
                table.actions[seq] = body["action"]
        publish(topic, payload, retain)

    def timed_event(event: tuple[object, ...], session: Any) -> None:
        before = len(room.known)
        on_event(event, session)
        now = time.monotonic()
        applied = len(session.state.actions())
        for seq in range(before, len(room.known)):
            table.received.setdefault(seq, now)
            if applied < seq:
                table.waiting.add(seq)

    def timed_show(now: float) -> None:
        """The frame drawn (and written, if it changed): lit, once the session has applied the
        action or shows it for a hand to carry out."""
        show(now)
        done = time.monotonic()
        session = daemon.session
        applied = len(session.state.actions())
        for seq in table.received.keys() - table.lit.keys():
            if applied > seq or (applied == seq and session.shown is not None):
                table.lit[seq] = done

    room.broker.publish = timed_publish  # type: ignore[method-assign]
    room.on_event = timed_event  # type: ignore[method-assign]
    daemon._show = timed_show  # type: ignore[method-assign]
    return table


def run_table(folder: Path, url: str, seat: int, seed: int, results: Queue[JSON]) -> None:
    """In a process of its own, as on a Pi of its own: one table's game to its end, and what
    its room published, received and lit, when."""
    table = open_table(folder, url, seat, seed)
    try:
        table.daemon.run()
    finally:
        table.daemon.close()
    room = table.daemon.room
    assert room is not None
    results.put(
        {
            "seat": seat,
            "published": table.published,
            "actions": table.actions,
            "received": table.received,
            "lit": table.lit,
            "waiting": table.waiting,
            "duplicates": room.counts["duplicates"],
            "disagree": room.disagree is not None,
            "game_id": room.game_id,
        }
    )


def play(folder: Path, port: int, room: str, seed: int) -> dict[str, Any]:
    """One linked game to its end; what each table's journal and room say of it."""
    shuffler = Shuffler(port, room)
    url = f"mqtt://127.0.0.1:{port}/{room}"
    context = multiprocessing.get_context("fork")
    results: Queue[JSON] = context.Queue()
    processes = [
        context.Process(
            target=run_table, args=(folder / f"table{seat}", url, seat, seed + seat, results)
        )
        for seat in (1, 2)
    ]
    try:
        for process in processes:
            process.start()
        tables = sorted((results.get(timeout=300) for _ in processes), key=lambda t: t["seat"])
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
        shuffler.close()
    room_actions = tables[0]["actions"] | tables[1]["actions"]
    reference = [room_actions[seq] for seq in sorted(room_actions)]
    lost = duplicated = 0
    for table in tables:
        history = Journal(folder / f"table{table['seat']}").read().history()
        common = next(
            (n for n, (a, b) in enumerate(zip(history, reference, strict=False)) if a != b),
            min(len(history), len(reference)),
        )
        lost += len(reference) - common
        duplicated += max(0, len(history) - len(reference))
    game_id = tables[0]["game_id"]
    received, lit, relayed, ready = [], [], [], []
    for sender, receiver in (tables, tables[::-1]):
        for seq, sent in sender["published"].items():
            came = shuffler.first.get(f"smartboard/{room}/game/{game_id}/{seq}")
            if came is not None:
                relayed.append((came - sent) * 1000)
            if seq in receiver["received"] and seq not in receiver["published"]:
                received.append((receiver["received"][seq] - sent) * 1000)
                if seq in receiver["lit"]:
                    lit.append((receiver["lit"][seq] - sent) * 1000)
                    if seq not in receiver["waiting"]:
                        ready.append(lit[-1])
    return {
        "actions": len(reference),
        "relayed": relayed,
        "received": received,
        "lit": lit,
        "lit_ready": ready,
        "lost": lost,
        "duplicated": duplicated,
        "duplicates_dropped": sum(table["duplicates"] for table in tables),
        "disagree": any(table["disagree"] for table in tables),
        "resent": shuffler.sent,
    }


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--actions", type=int, default=200, help="at least this many, in games")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        broker, port = start_broker(folder)
        totals: dict[str, Any] = {"games": 0, "actions": 0, "disagree": False}
        totals |= {part: [] for part in PARTS}
        for key in ("lost", "duplicated", "duplicates_dropped", "resent"):
            totals[key] = 0
        try:
            while totals["actions"] < args.actions:
                games = totals["games"]
                game = play(folder / f"game{games}", port, f"bench{games}", seed=10 * games)
                totals["games"] += 1
                for key in ("actions", *PARTS, "lost", "duplicated", "duplicates_dropped"):
                    totals[key] += game[key]
                totals["resent"] += game["resent"]
                totals["disagree"] |= game["disagree"]
        finally:
            broker.terminate()
            broker.wait(timeout=10)
    times = {part: totals.pop(part) for part in PARTS}
    figures: dict[str, Any] = {**totals, "measured": len(times["received"])}
    for part, values in times.items():
        figures[f"{part}_ms"] = {
            "median": round(statistics.median(values), 2),
            "p99": round(percentile(values, 0.99), 2),
        }
    figures["unlit"] = len(times["received"]) - len(times["lit"])
    figures["waited"] = len(times["lit"]) - len(times["lit_ready"])
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(
        f"{figures['games']} linked game(s) of {GAME}, {figures['actions']} actions, "
        f"{figures['measured']} received from the other table"
    )
    for part, what in PARTS.items():
        ms = figures[f"{part}_ms"]
        print(f"published -> {what}: median {ms['median']} ms, p99 {ms['p99']} ms")
    print(
        f"messages sent again (twice, out of order): {figures['resent']}; duplicates dropped: "
        f"{figures['duplicates_dropped']}; lost {figures['lost']}, applied twice "
        f"{figures['duplicated']}; tables disagree: {figures['disagree']}"
    )


if __name__ == "__main__":
    main()
