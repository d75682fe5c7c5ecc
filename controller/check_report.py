"""What `smartboard check` found, as plain values: each part's figures, faults and warnings.

A fault fails the check (the command exits non-zero); a warning is said but passes. Each says,
in a sentence a builder can act on, what is wrong and what to do. The report is written to the
state directory (check-report.json) and given whole by `--json` and the `check` control op.
Each step of a part is also told as it happens (`CheckEvent`), for a terminal or a page to
follow the LEDs lit and the spots asked for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

PARTS = ("profile", "lights", "reeds", "link", "camera")
REPORT_FILE = "check-report.json"

Severity = Literal["fault", "warning"]


@dataclass(frozen=True)
class Fault:
    """One thing wrong: its part, a short kind ("crossed", "dead_led"...), the sentence, and
    what it concerns (spots, reed channels, LED indices), for a page to point at."""

    part: str
    kind: str
    text: str
    spots: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    leds: tuple[int, ...] = ()
    severity: Severity = "fault"
    # A problem of the profile: its file, key and line.
    file: str = ""
    key: str = ""
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "part": self.part,
            "kind": self.kind,
            "severity": self.severity,
            "text": self.text,
            "spots": list(self.spots),
            "channels": list(self.channels),
            "leds": list(self.leds),
        }
        if self.file:
            out |= {"file": self.file, "key": self.key, "line": self.line}
        return out


Status = Literal["passed", "failed", "skipped"]


@dataclass
class PartReport:
    """One part of the check: `skipped` (with why) when it cannot run here."""

    name: str
    figures: dict[str, Any] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    skipped: str = ""

    def fault(self, kind: str, text: str, **about: Any) -> None:
        self.faults.append(Fault(self.name, kind, text, **about))

    def warn(self, kind: str, text: str, **about: Any) -> None:
        self.faults.append(Fault(self.name, kind, text, severity="warning", **about))

    @property
    def status(self) -> Status:
        if self.skipped:
            return "skipped"
        return "failed" if any(f.severity == "fault" for f in self.faults) else "passed"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "figures": self.figures}
        if self.skipped:
            out["skipped"] = self.skipped
        out["faults"] = [f.to_json() for f in self.faults]
        return out


@dataclass
class CheckReport:
    profile: str  # the profile's name
    source: str  # its file
    game: str
    simulated: bool
    parts: list[PartReport] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(part.status != "failed" for part in self.parts)

    def faults(self, severity: Severity = "fault") -> list[Fault]:
        return [f for part in self.parts for f in part.faults if f.severity == severity]

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "game": self.game,
            "profile": self.profile,
            "source": self.source,
            "simulated": self.simulated,
            "parts": {part.name: part.to_json() for part in self.parts},
            "faults": [f.to_json() for f in self.faults()],
            "warnings": [f.to_json() for f in self.faults("warning")],
        }

    def write(self, state_dir: Path) -> Path:
        """The report as check-report.json in the state directory, replaced whole."""
        path = state_dir / REPORT_FILE
        state_dir.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".new")
        temporary.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, path)
        return path


def table_named(simulated: bool, profile: str, game: str, source: str) -> str:
    """The table checked, as the first and the last line of a check say it."""
    table = "the simulated table" if simulated else "the table"
    named = f"{profile} ({game}), " if profile else ""
    return f"{table} with board profile {named}{source}"


def report_lines(report: dict[str, Any]) -> list[str]:
    """A report (`CheckReport.to_json`, as the `check` op gives it) for a terminal: each part's
    outcome, then its faults and warnings, after the board checked: a config's profile or the
    built-in one, its game, the real table or the simulated one."""
    named = table_named(report["simulated"], report["profile"], report["game"], report["source"])
    out = [f"checked {named}"]
    for name, part in report["parts"].items():
        skipped = f" ({part['skipped']})" if "skipped" in part else ""
        out.append(f"{name}: {part['status']}{skipped}")
        for fault in part["faults"]:
            out.append(
                f"  {'FAULT' if fault['severity'] == 'fault' else 'warning'}: {fault['text']}"
            )
    faults = len(report["faults"])
    out.append(
        "every part run passed"
        if report["passed"]
        else f"{faults} fault(s): fix them and run `smartboard check` again"
    )
    return out


@dataclass(frozen=True)
class CheckEvent:
    """A step of the check as it happens: an LED lit, a spot to put a piece on, a reed closed."""

    part: str
    step: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "step": self.step, "text": self.text, **self.data}


Listener = Callable[[CheckEvent], None]


def quiet(event: CheckEvent) -> None:
    """A listener that follows nothing."""
