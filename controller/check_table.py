"""`smartboard check`: the table's parts tried one by one, for any game's profile, on the
backends of the config or on the simulated table, and a report of what failed.

`run_check` drives parts already open (`Table`): those `open_table` opens for the command, or
the daemon's own while its game is paused or over (the `check` control op). On the simulated
table simulated hands walk the board, and wiring faults can be injected (`SimFaults`), so that
every finding of the check can be seen, and tested, without a table.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from controller.backends import TableBackends, camera_frames
from controller.check_camera import check_camera, frame_figures
from controller.check_lights import check_lights
from controller.check_link import check_link
from controller.check_reeds import CheckedReeds, Hands, Order, Walk, check_reeds
from controller.check_report import PARTS, CheckReport, Listener, PartReport, quiet
from controller.config import Config
from controller.event_loop import Events
from controller.profile_lint import lint_profile
from controller.rules.api import Game
from hardware.leds import RGB, Frame, LedStrip, SimStrip
from hardware.link_bench import BENCH_CONFIG
from hardware.link_sim import Faults, SimTable
from hardware.profile import BoardProfile
from hardware.reeds import ReedBank, ReedError, WiringFaults, mock_factories
from hardware.serial_link import SerialLink, SerialReedBank, SerialStrip
from vision.calibration import Calibration, CalibrationError
from vision.frame_sources import FrameSource, Image

SIM_PICO_WAIT_S = 1.0
"""How long the simulated Pico's reed may take to report a piece put on it by the hands."""

FAULT_KINDS = ("crossed", "dead-expander", "dead-row", "chatter", "stuck-led")
FAULT_HELP = (
    "crossed:SPOT,SPOT (their reed wires swapped), dead-expander:CHIP or dead-row:ROW (an "
    "expander or a Pico's scan row that does not answer), chatter:SPOT (a reed that bounces), "
    "stuck-led:INDEX (a dead LED) or stuck-led:INDEX=#RRGGBB (one stuck at a colour)"
)


@dataclass(frozen=True)
class SimFaults:
    """A table built wrong, simulated: what `smartboard check --sim --fault` injects."""

    crossed: tuple[tuple[str, str], ...] = ()
    dead: frozenset[int] = frozenset()  # expanders (gpiochips), or a Pico's scan rows
    chatter: frozenset[str] = frozenset()
    stuck: tuple[tuple[int, RGB], ...] = ()
    dead_as: frozenset[str] = frozenset()  # how `dead` was given: dead-expander, dead-row

    def add(self, spec: str) -> SimFaults:
        """This and one more fault, written as `FAULT_HELP` says; ValueError if it is not."""
        kind, _, value = spec.partition(":")
        try:
            if kind == "crossed":
                a, b = value.split(",")
                return replace(self, crossed=((a, b), *self.crossed))
            if kind in ("dead-expander", "dead-row"):
                return replace(self, dead=self.dead | {int(value)}, dead_as=self.dead_as | {kind})
            if kind == "chatter" and value:
                return replace(self, chatter=self.chatter | {value})
            if kind == "stuck-led":
                index, _, colour = value.partition("=")
                rgb = (0, 0, 0) if not colour else _colour(colour)
                return replace(self, stuck=((int(index), rgb), *self.stuck))
        except ValueError:
            pass
        raise ValueError(f"--fault {spec!r}: one of {FAULT_HELP}")

    def check(self, profile: BoardProfile) -> None:
        """ValueError for a fault that this profile's simulated table cannot have."""
        channels = profile.reed_channels()
        for spot in {s for pair in self.crossed for s in pair} | self.chatter:
            if spot not in channels:
                raise ValueError(f"--fault: {spot!r} is no reed spot of {profile.name}")
        for index, _ in self.stuck:
            if not 0 <= index < profile.led_count:
                raise ValueError(f"--fault: no LED {index} on a strip of {profile.led_count}")
        if profile.link is not None and (self.chatter or self.stuck):
            raise ValueError(
                "--fault: chatter and stuck-led are simulated on a table without a Pico (the "
                "Pico debounces its reeds, and its LEDs are not read back)"
            )
        # The number a dead part is given by: a scan row of the Pico's matrix, or a gpiochip.
        used = sorted({channel.chip for channel in channels.values()})
        what, other = (
            ("dead-row", "dead-expander") if profile.link else ("dead-expander", "dead-row")
        )
        if other in self.dead_as:
            raise ValueError(
                f"--fault {other}: {profile.name} has its reeds on "
                + ("a Pico's scan rows" if profile.link else "I/O expanders")
                + f": use {what}:{'ROW' if profile.link else 'CHIP'}"
            )
        unused = sorted(self.dead - set(used))
        if unused:
            raise ValueError(
                f"--fault {what}:{unused[0]}: no reed of {profile.name} is on "
                + (f"scan row {unused[0]}" if profile.link else f"/dev/gpiochip{unused[0]}")
                + f"; its reeds are on {'scan rows' if profile.link else 'gpiochips'} "
                + ", ".join(map(str, used))
            )


def _colour(text: str) -> RGB:
    value = text.removeprefix("#")
    if len(value) != 6:
        raise ValueError(text)
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


@dataclass
class Table:
    """The parts a check drives, open already. `hands` lay simulated pieces; `shown` reads
    back what the LEDs show (the simulated strip); `camera` opens the camera's frames, or
    `camera_frame` gives the latest one of a camera already running. `unavailable`: the parts
    that could not be opened, with why."""

    profile: BoardProfile
    config: Config
    simulated: bool
    strip: LedStrip | None = None
    reeds: CheckedReeds | None = None
    link: SerialLink | None = None
    hands: Hands | None = None
    shown: Callable[[], Frame | None] | None = None
    camera: Callable[[], FrameSource] | None = None
    camera_frame: Callable[[], Image | None] | None = None
    calibration: Calibration | None = None
    unavailable: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckOptions:
    """Which parts to run; the guided walk (always on the simulated table, where hands put the
    pieces), its order and time limit per spot; how long each light stays lit; how long the
    camera is watched, and waited for."""

    parts: tuple[str, ...] = PARTS
    walk: bool = False
    order: Order = "turn"
    spot_timeout_s: float = 30.0
    skip: Callable[[], bool] = lambda: False
    ask: Callable[[str], str] | None = None  # a question to the person on the walk
    step_s: float = 0.0
    camera_s: float = 3.0
    camera_timeout_s: float = 5.0


def run_check(table: Table, options: CheckOptions, listen: Listener = quiet) -> CheckReport:
    profile = table.profile
    report = CheckReport(profile.name, profile.source, profile.game, table.simulated)
    for name in PARTS:
        if name in options.parts:
            report.parts.append(_part(name, table, options, listen))
    return report


def _part(name: str, table: Table, options: CheckOptions, listen: Listener) -> PartReport:
    profile, config = table.profile, table.config
    if name in table.unavailable:
        part = PartReport(name)
        part.fault("unavailable", table.unavailable[name])
        return part
    if name == "profile":
        return lint_profile(profile, table.calibration)
    if name == "link":
        return check_link(table.link, listen)
    if name == "lights":
        if table.strip is None:
            return PartReport(name, skipped="no LEDs open")
        return check_lights(
            table.strip,
            profile,
            config.brightness_cap,
            config.power_budget_ma,
            listen,
            table.shown,
            options.step_s,
            options.ask if options.walk else None,
        )
    if name == "reeds":
        if table.reeds is None or not table.reeds.channels:
            return PartReport(name, skipped="this profile has no reeds")
        walk = None
        if options.walk or table.hands is not None:
            # Simulated hands are as quick as the pins: a spot that closes nothing at once never
            # will. The simulated Pico scans its reeds every 2 ms and reports them in turn: a
            # reed silent for SIM_PICO_WAIT_S is dead, not slow (a person's 30 s would make a
            # dead scan row of 16 spots take 8 minutes).
            timeout = options.spot_timeout_s
            if table.hands is not None:
                timeout = 0.0 if table.link is None else min(timeout, SIM_PICO_WAIT_S)
            settle = 0.01 if table.link is not None else 0.0
            walk = Walk(options.order, timeout, settle, options.skip)
        part = check_reeds(table.reeds, profile, listen, walk, table.hands)
        if walk is None:
            part.warn(
                "not_walked",
                "the guided walk needs a person at the table: `smartboard check --walk` asks "
                "for a piece on each spot in turn",
            )
        return part
    if table.camera is not None:
        return check_camera(
            table.camera,
            profile,
            table.calibration,
            listen,
            options.camera_s,
            options.camera_timeout_s,
            config.camera_fps,
        )
    frame = None if table.camera_frame is None else table.camera_frame()
    if frame is None:
        why = "the simulated table has no camera frames: --camera-folder DIR checks photos"
        return PartReport(name, skipped=why if table.simulated else "no camera frame at hand")
    part = PartReport(name)
    frame_figures(part, frame, profile, table.calibration)
    return part


@contextlib.contextmanager
def open_table(
    config: Config,
    game: Game,
    profile: BoardProfile,
    state_dir: Path,
    simulated: bool,
    faults: SimFaults = SimFaults(),
) -> Iterator[Table]:
    """The table's parts for a check, closed after it: the simulated table's (with `faults`)
    or the config's real ones; a part that cannot open is said in `unavailable`."""
    table = Table(profile, config, simulated)
    table.calibration = _calibration(config, profile, state_dir, table)
    if config.camera_backend == "camera":
        table.camera = lambda: camera_frames(config, loop=False)
    if simulated and profile.link is not None:
        with _sim_pico(profile, faults, table):
            yield table
        return
    if simulated:
        strip = SimStrip(profile.led_count, keep=2, stuck=dict(faults.stuck))
        table.strip, table.shown = strip, lambda: strip.last
        try:
            bank = ReedBank(
                profile.reed_channels(),
                mock_factories(),
                lambda spot, occupied, at: None,
                time.monotonic,
                profile.pull_up,
                WiringFaults(faults.crossed, faults.dead, faults.chatter),
            )
        except ReedError as error:
            table.unavailable["reeds"] = str(error)
            yield table
            return
        table.reeds, table.hands = bank, bank.drive
        try:
            yield table
        finally:
            bank.close()
        return
    parts = TableBackends(config, game, profile, state_dir, None, Events(), time.monotonic)
    try:
        for name, opening in (("lights", parts.strip), ("reeds", parts.reeds)):
            try:
                opened = opening()
            except Exception as error:  # any backend's: NeoPixels off a Pi, a missing gpiochip
                table.unavailable[name] = f"cannot open the {name}: {error}"
                if profile.link is not None:  # the Pico serves both: its error is the link's
                    table.unavailable["link"] = str(error)
                continue
            if isinstance(opened, ReedBank | SerialReedBank):
                table.reeds = opened
            else:
                table.strip = opened
        table.link = parts.serial_link
        yield table
    finally:
        parts.close()


@contextlib.contextmanager
def _sim_pico(profile: BoardProfile, faults: SimFaults, table: Table) -> Iterator[None]:
    """The profile's Pico simulated (hardware/link_sim.py), its wiring faults injected."""
    link_profile = profile.link
    assert link_profile is not None
    channels = profile.reed_channels()
    rows, cols, leds = link_profile.rows, link_profile.cols, profile.led_count
    crossed = tuple(
        ((channels[a].chip, channels[a].line), (channels[b].chip, channels[b].line))
        for a, b in faults.crossed
    )
    wiring = Faults(dead_rows=tuple(sorted(faults.dead)), crossed=crossed)
    with tempfile.TemporaryDirectory(prefix="smartboard-check-") as folder:
        path = Path(folder) / "ttySmartboard"
        config = BENCH_CONFIG | {"rows": rows, "cols": cols, "led_count": leds}
        sim = SimTable(path, config, wiring)
        link = SerialLink(str(path), rows, cols, leds)
        try:
            link.start(wait_s=10)
            table.link = link
            table.strip = SerialStrip(link)
            table.reeds = SerialReedBank(channels, link, lambda spot, occupied, at: None)

            def hands(spot: str, occupied: bool) -> None:
                sim.set(channels[spot].chip, channels[spot].line, occupied)

            table.hands = hands
            yield
        finally:
            link.close()
            sim.close()


def _calibration(
    config: Config, profile: BoardProfile, state_dir: Path, table: Table
) -> Calibration | None:
    """The camera's calibration for this profile, if any: one for another profile, or
    unreadable, is a fault of the camera part."""
    path = config.calibration_path(state_dir)
    if not path.exists():
        return None
    try:
        calibration = Calibration.load(path)
    except CalibrationError as error:
        table.unavailable["camera"] = f"{error}: run `smartboard calibrate` again"
        return None
    if calibration.profile != profile.name:
        table.unavailable["camera"] = (
            f"calibration {path} is for {calibration.profile!r}, not {profile.name!r}: "
            "run `smartboard calibrate` for this profile"
        )
        return None
    return calibration
