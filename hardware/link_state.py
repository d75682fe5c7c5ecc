"""The serial link's health as plain values, for `status`, the dashboard and its alerts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GRACE_S = 1.0
"""How long the link may be out of sync before a player is told: a firmware reset or a replug
resynchronises well within it, and an alert that flickers would only worry."""

RECENT_RECOVERY_S = 60.0
"""How long a restart of the link after an unforeseen error stays on the dashboard."""


TROUBLE = {
    "link_silent": "the reed controller (Pico) is not answering on {port}: {why}",
    "link_restarted": "the link to the reed controller (Pico) on {port} was restarted after an "
    "error ({count} so far): {error}",
}


@dataclass(frozen=True)
class LinkState:
    port: str
    connected: bool  # the port is open (an unplugged Pico: its port is gone)
    synced: bool  # introduced, read by a snapshot, and following the firmware's events
    unsynced_s: float | None  # how long the link has been out of sync; None while synced
    last_frame_age_s: float | None  # since the last well-formed frame; None before any
    resyncs: int  # times the link lost sync (silence, firmware reset, reconnect)
    crc_errors: int  # frames dropped by their CRC
    malformed: int  # frames whose CRC held but whose content did not fit: skipped
    recoveries: int  # restarts of the link after an unforeseen error in its reader
    since_recovery_s: float | None  # since the latest of those; None if none
    last_error: str | None  # the latest trouble, in a sentence

    def trouble(self) -> str | None:
        """What a player must know about the link, in a sentence; None when it is fine."""
        said = self.trouble_said()
        return None if said is None else said[0]

    def trouble_said(self) -> tuple[str, str, dict[str, Any]] | None:
        """The trouble in a sentence, and as a key of `TROUBLE` with its values, for a page to
        say in its language."""
        params: dict[str, Any]
        if self.unsynced_s is not None and self.unsynced_s >= GRACE_S:
            why = self.last_error or (
                "its port is closed"
                if not self.connected
                else f"no answer for {self.unsynced_s:.0f} s"
            )
            key, params = "link_silent", {"port": self.port, "why": why}
        elif self.since_recovery_s is not None and self.since_recovery_s < RECENT_RECOVERY_S:
            key = "link_restarted"
            params = {"port": self.port, "count": self.recoveries, "error": self.last_error}
        else:
            return None
        return TROUBLE[key].format(**params), key, params

    def to_json(self, digits: int = 3) -> dict[str, Any]:
        """Plain values; durations rounded to `digits` (0 for the dashboard, which is sent a
        new snapshot whenever one changes)."""

        def seconds(value: float | None) -> float | None:
            return None if value is None else round(value, digits)

        return {
            "port": self.port,
            "connected": self.connected,
            "synced": self.synced,
            "unsynced_s": seconds(self.unsynced_s),
            "last_frame_age_s": seconds(self.last_frame_age_s),
            "resyncs": self.resyncs,
            "crc_errors": self.crc_errors,
            "malformed": self.malformed,
            "recoveries": self.recoveries,
            "last_error": self.last_error,
        }
