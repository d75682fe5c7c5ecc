"""The table's thinking, in a worker process of its own: the daemon's loop never waits for it.

One worker, started when first needed and kept for the daemon's life, is handed plain values:
the game's name (and rules module, for a game registered at run time), its options, its history
as JSON, the hidden cards the table keeps in step (of which the search uses only the deciding
seat's), the level and a seed. It replays the position and searches it (controller/search). Two
numbers are shared with it: the job wanted now, and that job's progress. A job stops as soon as
another is wanted (a move taken back, a new game, a pause), so one worker is always enough.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from controller.rules import GAMES, get_game, register
from controller.rules.api import JSON, Action, Game, Hidden
from controller.search import LEVELS, Choice, Thought, think

log = logging.getLogger(__name__)

NICE = 5
"""How much less CPU the worker claims than the daemon: the table's senses come first."""


@dataclass(frozen=True)
class Job:
    """A position to think about, in plain values that cross to the worker."""

    game: str
    module: str  # where the game's rules live, for a game that the worker has not registered
    options: dict[str, Any]
    history: list[JSON]
    level: str
    seed: int
    hidden: Hidden | None = None
    seconds: float | None = None  # at most this long, whatever the level allows


Done = Callable[[int, JSON | None, str | None], None]
"""Told of a job's end, on another thread: its number, its result (`thought_json`) or why it
failed."""


class Thinker:
    """The worker and its jobs, seen from the daemon."""

    def __init__(self, done: Done) -> None:
        self._done = done
        self._context = multiprocessing.get_context("spawn")  # a fork would copy the threads
        self._wanted: Any = self._context.RawValue("q", 0)
        self._fraction: Any = self._context.RawValue("d", 0.0)
        self._number = 0
        self._pool: ProcessPoolExecutor | None = None

    def start(self, job: Job) -> int:
        """Think about `job`, stopping any job before it: its number."""
        self._number += 1
        number = self._number
        self._wanted.value = number
        self._fraction.value = 0.0
        try:
            future = self._open().submit(_run, job, number)
        except BrokenProcessPool:
            log.warning("the thinking worker had died: starting another")
            self._pool = None
            future = self._open().submit(_run, job, number)
        future.add_done_callback(lambda ended: self._ended(number, ended))
        return number

    def cancel(self) -> None:
        """Stop the job under way, if any: its end is still told, and is to be ignored."""
        self._number += 1
        self._wanted.value = self._number

    def fraction(self, number: int) -> float:
        """How far job `number` has come, 0 to 1 (0 once another is wanted)."""
        return float(self._fraction.value) if number == self._number else 0.0

    def close(self) -> None:
        self.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _open(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=self._context,
                initializer=_worker_started,
                initargs=(self._wanted, self._fraction),
            )
        return self._pool

    def _ended(self, number: int, future: Future[JSON]) -> None:
        if future.cancelled():
            return
        error = future.exception()
        if error is None:
            self._done(number, future.result(), None)
            return
        if isinstance(error, BrokenProcessPool):
            self._pool = None  # the next job starts a worker afresh
        self._done(number, None, f"{type(error).__name__}: {error}")


def thought_json(thought: Thought) -> JSON:
    """A search's result in plain values, to cross back from the worker."""
    return {
        "best": thought.best.to_json(),
        "ranked": [
            {"action": choice.action.to_json(), "share": choice.share, "value": choice.value}
            for choice in thought.ranked
        ],
        "iterations": thought.iterations,
        "seconds": thought.seconds,
    }


def thought_from_json(game: Game, data: JSON) -> Thought:
    """`thought_json` read back, its actions the game's own."""
    ranked = tuple(
        Choice(game.action_from_json(c["action"]), float(c["share"]), float(c["value"]))
        for c in data["ranked"]
    )
    best: Action = game.action_from_json(data["best"])
    return Thought(best, ranked, int(data["iterations"]), float(data["seconds"]))


# -- in the worker -----------------------------------------------------------------------

_shared: dict[str, Any] = {}


def _worker_started(wanted: Any, fraction: Any) -> None:
    _shared.update(wanted=wanted, fraction=fraction)
    # A system that refuses: the worker runs at the daemon's priority.
    with contextlib.suppress(OSError):
        os.nice(NICE)


def _run(job: Job, number: int) -> JSON:
    wanted, fraction = _shared["wanted"], _shared["fraction"]
    rules = _game(job.game, job.module).on_board(job.options)
    state = rules.replay(job.history, job.options)

    def progress(done: float) -> None:
        if wanted.value == number:
            fraction.value = done

    thought = think(
        rules,
        state,
        LEVELS[job.level],
        job.seed,
        hidden=job.hidden,
        seconds=job.seconds,
        progress=progress,
        stop=lambda: wanted.value != number,
    )
    return thought_json(thought)


def _game(name: str, module: str) -> Game:
    """The game by its name; one the worker does not know yet is registered from its module."""
    if name not in GAMES:
        found = [
            value
            for value in vars(importlib.import_module(module)).values()
            if isinstance(value, Game) and value.name == name
        ]
        if found:
            register(found[0])
    return get_game(name)
