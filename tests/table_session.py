"""Helpers shared by the table tests: a session over a game state, and what it lights."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.journal import Journal
from controller.rules.api import Game, GameState, Layout
from controller.session import Session


def session_over(game: Game, tmp_path: Path, state: GameState, settle: float = 1.0) -> Session:
    """A session over `state`, its journal started afresh (earlier actions are not written)."""
    journal = Journal(tmp_path)
    journal.start(game.name, state.options)
    return Session(game, state, journal, settle)


def journal_history(tmp_path: Path) -> list[dict[str, Any]]:
    return Journal(tmp_path).read().history()


def roles_of(roles: dict[str, str], role: str) -> set[str]:
    return {spot for spot, r in roles.items() if r == role}


def without(layout: Layout, *spots: str) -> Layout:
    return {s: t for s, t in layout.items() if s not in spots}
