"""Spectators of a linked table (issue 25): the table's snapshot, the one its dashboard reads
(controller/snapshot.py), published retained on `smartboard/ROOM/snapshot/SEATS` when it
changes, at most twice a second, so that a screen or a phone subscribed to the room sees the
game without a seat in it. Plain JSON, not signed: a spectator has no room secret, and what
keeps strangers from writing there is the broker's ACL (a `spectator` user that may only read,
docs/two-tables.md). Home Assistant's sensors, if on, are fed from the same
snapshot (controller/home_assistant.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

from controller.home_assistant import HomeAssistant
from controller.rules.api import JSON

MIN_INTERVAL_S = 0.5
"""The least time between two snapshots published: a blinking table changes often."""

PRIVATE = frozenset({"version", "actions", "hint", "secrets"})
"""Kept from spectators (and so from the other tables, whose account may read them): the page's
version number; the decisions open to the player to move, which on a table that knows its
players' hands (a page-only seat's, the simulated table's) are the cards in that hand; the
hint, its moves made from them; and the simulated table's hands shown to their players."""
Publish = Callable[[str, bytes], None]
"""Sends a retained message: its topic and payload."""


class Spectators:
    """What this table last showed its spectators, and when."""

    def __init__(
        self, publish: Publish, topic: str, home_assistant: HomeAssistant | None = None
    ) -> None:
        self.topic = topic
        self.home_assistant = home_assistant
        self._publish = publish
        self._last: JSON | None = None
        self._when: float | None = None

    def due(self, now: float) -> bool:
        """Whether a snapshot may be offered now: worth building only then."""
        return self._when is None or now - self._when >= MIN_INTERVAL_S

    def offer(self, snapshot: JSON, now: float) -> None:
        """Publish `snapshot` if it changed, without its page's version number and what would
        show a seat's hidden cards (`PRIVATE`)."""
        self._when = now
        shown = {key: value for key, value in snapshot.items() if key not in PRIVATE}
        if shown == self._last:
            return
        self._publish(self.topic, json.dumps(shown, separators=(",", ":")).encode())
        self._last = shown
        if self.home_assistant is not None:
            self.home_assistant.offer(shown)

    def reset(self) -> None:
        """After a reconnection: the broker may have lost what it held, so send it again."""
        self._last = None
        if self.home_assistant is not None:
            self.home_assistant.reset()
