"""The daemon: sense -> decide -> show, in one thread that alone touches the session.

gpiozero callbacks, camera frames, the control socket and the bots only put events on a queue.
The loop sleeps until the next event or deadline (a debounce, the settle time, a blink, a
watchdog ping). What the session senses is the debounced reeds and the camera's settled board.
"""

from __future__ import annotations

import logging
import os
import queue
import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

import cv2

from controller.bots import Bots
from controller.config import Config
from controller.control import ControlServer
from controller.game_vision import board_contents
from controller.journal import Journal, JournalError
from controller.lights import dim, render, role_colour
from controller.notify import notify, watchdog_interval
from controller.rules import get_game, icon_dice
from controller.rules.api import (
    JSON,
    PRESENT,
    Game,
    GameState,
    HistoryError,
    IllegalActionError,
    Layout,
)
from controller.session import Session, View, describe_state
from controller.snapshot import table_snapshot
from controller.terminal import draw
from controller.web import Dashboard, WebError
from hardware.leds import Frame, LedStrip, NeoPixelStrip, SimStrip, limit_frame
from hardware.profile import BoardProfile, builtin_profile_path, load_profile
from hardware.reeds import Debouncer, ReedBank, gpio_factories, mock_factories
from hardware.serial_link import LinkError, SerialLink, SerialReedBank, SerialStrip
from vision.board_camera import Board, BoardCamera, FrameSettler, SimBoardCamera
from vision.calibration import Calibration, CalibrationError, Points, annotate, detect_markers
from vision.camera_watch import CameraStatus
from vision.dice_reader import DiceReader, draw_dice
from vision.dice_settle import DiceSettler, SettledRoll
from vision.dice_sources import DiceReading, VirtualDice
from vision.frame_sources import BackendMissingError, frame_source
from vision.table_camera import BoardFrames, IconTray, TableCamera, TrayDice, TrayReader
from vision.table_reader import (
    BoardReader,
    BoardReaderError,
    NoModelError,
    board_reader,
    learned_model,
)

log = logging.getLogger(__name__)

EX_TEMPFAIL = 75
"""The daemon's exit status when its table cannot be reopened: the service restarts it."""


class StartupError(RuntimeError):
    """The daemon cannot start: bad profile, unreadable journal, missing hardware."""


class UnavailableError(StartupError):
    """The game needs a sensor that this table cannot read yet: restarting will not help."""


@dataclass(frozen=True)
class RunOptions:
    state_dir: Path
    socket_path: Path
    game: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # game options for a new game
    bots: bool = False
    pace: float = 0.5
    until_end: bool = False
    new_game: bool = False
    seed: int | None = None
    show: TextIO | None = None
    colour: bool = False


Event = tuple[Any, ...]

# Trouble with the table itself flashes every LED for a moment every few seconds: seen from
# across the room, and the game's lights still show in between.
TROUBLE_PERIOD_S = 2.0
TROUBLE_FLASH_S = 0.25
# Control requests that change the game, after which the simulated hands lay its pieces.
GAME_OPS = ("act", "roll", "correct", "confirm", "new")
# Requests refused while the game is paused: a click on the simulated table is a move too.
PAUSED_OPS = ("act", "roll", "correct", "confirm", "place")
# How bright the lights stay while the game is paused: still readable, plainly not in play.
PAUSED_LEVEL = 0.25


class Publisher(Protocol):
    """Whoever shows the table elsewhere (the dashboard): handed each new snapshot."""

    def publish(self, snapshot: JSON) -> None: ...


class Daemon:
    def __init__(self, config: Config, options: RunOptions) -> None:
        self.config = config
        self.options = options
        self.events: queue.Queue[Event] = queue.Queue()
        self.clock: Callable[[], float] = time.monotonic
        self.stopping = False
        self.exit_code = 0
        self._opened: list[Any] = []  # the servers, open for the daemon's whole life
        self._table: list[Any] = []  # the hardware of the game on the table
        self._last_frame: Frame | None = None
        self._link: SerialLink | None = None
        self._last_drawn: object = None
        self.web: Publisher | None = None
        self._published: object = None
        self._version = 0
        self._rng = random.Random(None if options.seed is None else f"dashboard {options.seed}")

    # -- start-up -------------------------------------------------------------------------

    def open(self) -> None:
        """Resume or start the game, then open the table; READY is sent after this."""
        self.journal = Journal(self.options.state_dir)
        try:
            self.journal.lock()
        except JournalError as error:
            raise StartupError(str(error)) from error
        game, state = self._resume()
        self._open_table(game, state)
        self.control = ControlServer(self.options.socket_path, self._submit_control)
        self._opened.append(self.control)
        if self.config.web_listen:
            try:
                web = Dashboard.open(
                    self.config.web_listen,
                    self.config.web_token,
                    self.options.state_dir,
                    self._submit_control,
                    self.camera_view,
                )
            except WebError as error:
                raise StartupError(str(error)) from error
            self._opened.append(web)
            self.web = web

    def _open_table(self, game: Game, state: GameState) -> None:
        """Open the hardware of `game`'s board profile, and a session on `state`."""
        self.game = game
        self.profile = self._profile(game)
        self.session = Session(game, state, self.journal, self.config.settle_s)
        self.paused = False
        try:
            self._open_hardware()
        except BaseException:
            self._close_table()
            raise

    def _open_hardware(self) -> None:
        self.strip = self._strip()
        self._table.append(self.strip)
        self.reeds = self._reeds()
        self._table.append(self.reeds)
        camera_spots = set(self.profile.camera_regions())
        # Until the camera settles, its spots are taken to be as the journal left them, as the
        # session takes every spot at start-up.
        self.camera_board: Board = {
            s: t for s, t in self.session.expected.items() if s in camera_spots
        }
        self.settler = FrameSettler(self.config.stable_frames)
        self.camera: BoardCamera | None = None
        self.sim_camera: SimBoardCamera | None = None
        # Replayed photos with no calibration are of the dice alone, not of the table: the
        # game's other pieces stay simulated.
        dice_photos = (
            self.config.camera_source == "replay"
            and bool(self.game.dice_kinds)
            and not self._calibration_path().exists()
        )
        read_board = (
            bool(camera_spots)
            and self.config.camera_backend == "camera"
            and board_contents(self.game) is not None
            and not dice_photos
        )
        if camera_spots and not read_board:
            self.camera = self.sim_camera = self._sim_camera(camera_spots)
            self._table.append(self.camera)
        if isinstance(self.reeds, ReedBank) and self.config.reeds_backend == "sim":
            # Pieces outlive a restart on a real table; the simulated one starts as it was left.
            for spot in self.session.expected:
                if spot in self.reeds.channels:
                    self.reeds.drive(spot, True)
        if self.sim_camera is not None:
            self.sim_camera.show(self.session.expected)
        self._drain_edges()
        # A microcontroller debounces its reeds before it reports them.
        debounce = 0.0 if isinstance(self.reeds, SerialReedBank) else self.config.debounce_s
        self.debouncer = Debouncer(debounce, self.reeds.read())
        self.session.on_layout(self.sensed(), self.clock())
        if self.camera is not None:
            self.camera.start()
        self.unsure: SettledRoll | None = None
        self.typed_kinds: dict[str, str] = {}  # kind -> why the camera does not read it
        self.table_camera = self._table_camera(read_board)
        if self.table_camera is not None:
            self._table.append(self.table_camera)
            if self.table_camera.board is not None:
                self.camera = self.table_camera
            self._want_dice()
            self.table_camera.start()
        self.bots: Bots | None = None
        if self.options.bots:
            if not isinstance(self.reeds, ReedBank) or self.config.reeds_backend != "sim":
                raise StartupError("--bots moves simulated pieces: use it with --sim")
            rng = random.Random(self.options.seed)
            read = self.table_camera.dice_kinds if self.table_camera is not None else ()
            self.bots = Bots(
                self.session,
                self.reeds,
                self.sim_camera,
                self._submit_dice,
                rng,
                self.options.pace,
                camera_kinds=frozenset(read),
            )

    def _close_table(self) -> None:
        _close_all(self._table)
        self._link = None  # closed with the strip and reeds it served
        self._last_frame = None

    def _resume(self) -> tuple[Game, GameState]:
        chosen = self.options.game or self.config.game
        try:
            if self.journal.exists() and not self.options.new_game:
                record = self.journal.recover()
                if self.options.game and record.game != self.options.game:
                    raise StartupError(
                        f"{self.journal.path} holds a {record.game} game; finish it, or use "
                        "another --state-dir for a new game"
                    )
                changed = {
                    k: v for k, v in self.options.options.items() if record.options.get(k) != v
                }
                if changed:
                    raise StartupError(
                        f"{self.journal.path} holds a {record.game} game played with "
                        f"{record.options}, not {changed}; finish it, or start a new game"
                    )
                game = get_game(record.game)
                state = game.replay(record.history(), record.options)
                # A finished game stays on the table, showing its result, until `smartboard new`.
                log.info("resumed %s after %d actions", game.name, len(state.actions()))
                return game, state
            game = get_game(chosen)
            state = game.new_initial_state(self.options.options)
            self.journal.start(game.name, state.options)
            return game, state
        except (JournalError, HistoryError, ValueError, OSError) as error:
            raise StartupError(f"cannot open the game journal: {error}") from error

    def _profile(self, game: Game) -> BoardProfile:
        path = self.config.profile or builtin_profile_path(game.info.profile)
        profile = load_profile(path, game.spots())
        if profile.game != game.name:
            raise StartupError(f"board profile {path} is for {profile.game!r}, not {game.name!r}")
        return profile

    def _strip(self) -> LedStrip:
        count = self.profile.led_count
        if self.config.leds_backend == "sim":
            return SimStrip(count)
        if self.profile.link is not None:
            return SerialStrip(self._serial_link())
        return NeoPixelStrip(count, self.config.led_pin, self.config.pixel_order)

    def _serial_link(self) -> SerialLink:
        """The profile's microcontroller, shared by the reeds and the LEDs it serves."""
        if self._link is None:
            link = self.profile.link
            assert link is not None
            self._link = SerialLink(link.port, link.rows, link.cols, self.profile.led_count)
            try:
                self._link.start()
            except LinkError as error:
                self._link.close()
                raise StartupError(f"the table's microcontroller: {error}") from error
        return self._link

    def _sim_camera(self, spots: set[str]) -> SimBoardCamera:
        # Over a real table the simulated camera would watch a board that nobody lays out.
        if self.config.reeds_backend != "sim":
            raise UnavailableError(
                f"{self.game.name} is read by the camera over the board, and the camera reader "
                "is not available yet: play it on the simulated table with --sim"
                if board_contents(self.game) is None
                else f'{self.game.name}: [camera] backend = "sim" is for the simulated table '
                '(--sim); set backend = "camera" to read the board'
            )
        seed = self.options.seed
        return SimBoardCamera(
            spots,
            self._on_frame,
            self.config.camera_fps,
            noise=self.config.sim_noise,
            delay_s=self.config.sim_delay_s,
            rng=random.Random(None if seed is None else f"camera {seed}"),
        )

    def _table_camera(self, read_board: bool) -> TableCamera | None:
        """The one camera over the table, if it reads the board or some of the game's rolls."""
        self.calibration: Calibration | None = None
        if read_board or self.config.dice_source == "camera":
            try:
                self.calibration = self._calibration()
            except CalibrationError as error:
                raise StartupError(f"{error}; run `smartboard calibrate` again") from error
        dice = self._tray_dice(read_board)
        board = BoardFrames(self._board_reader(), self._on_frame) if read_board else None
        if dice is None and board is None:
            return None
        config = self.config
        try:
            source = frame_source(
                config.camera_source,
                config.camera_device,
                config.camera_width,
                config.camera_height,
                config.camera_fps,
                config.replay_fps,
                config.replay_loop,
            )
        except BackendMissingError as error:
            instead = (
                "play on the simulated table with --sim"
                if board is not None
                else 'set [dice] source = "virtual" to type the rolls in'
            )
            raise UnavailableError(f"{error}. Or {instead}") from error
        return TableCamera(
            source,
            lambda status: self.events.put(("camera", status)),
            config.camera_fps,
            config.camera_retry_s,
            config.camera_retry_max_s,
            dice,
            board,
        )

    def _tray_dice(self, table_frames: bool) -> TrayDice | None:
        """The game's rolls that the camera reads in the tray: d6, and the icon dice whose model
        has been learned; the others are typed in (`typed_kinds` says why). `table_frames`:
        the frames show the whole table, even replayed."""
        config = self.config
        if config.dice_source != "camera":
            return None
        readers: dict[str, TrayReader] = {}
        for kind in self.game.dice_kinds:
            if kind in DiceReader.kinds:
                readers[kind] = DiceReader(config.dice_view)
                continue
            try:
                model = learned_model(self._models(), icon_dice()[kind])
            except NoModelError as error:
                self.typed_kinds[kind] = f"typed in: {error}"
                log.warning("%s dice are %s", kind, self.typed_kinds[kind])
                continue
            except BoardReaderError as error:  # a damaged model: learning again mends it
                raise UnavailableError(str(error)) from error
            from vision.icon_dice import IconReader

            readers[kind] = IconTray(IconReader(model))
        if not readers:
            return None
        return TrayDice(
            readers,
            lambda: DiceSettler(
                config.dice_stable_frames, config.dice_min_confidence, config.dice_box_tolerance_px
            ),
            lambda roll: self.events.put(("roll", roll)),
            self._tray_polygon(table_frames),
        )

    def _models(self) -> Path:
        """The folder of the learned icon-dice models."""
        return self.config.dice_models or self.options.state_dir

    def _board_reader(self) -> BoardReader:
        """The reader of the board's camera spots, through the camera's calibration."""
        calibration = self.calibration
        if calibration is None:
            raise UnavailableError(
                f"the camera reads the {self.game.name} board through its calibration, and there "
                f"is none: run `smartboard calibrate --image FRAME.jpg --game {self.game.name}`"
            )
        contents = board_contents(self.game)
        if contents is None:
            raise UnavailableError(f"the camera cannot read the pieces of {self.game.name} yet")
        try:
            return board_reader(
                contents,
                calibration,
                self.profile.camera_regions(),
                self._models(),
                self.config.dice_min_confidence,
            )
        except BoardReaderError as error:
            raise UnavailableError(str(error)) from error

    def _tray_polygon(self, table_frames: bool) -> Points | None:
        """The profile's dice tray in the camera's pixels, or None for the whole frame."""
        tray = self.profile.dice_tray
        if tray is None or (self.config.camera_source == "replay" and not table_frames):
            return None  # replayed photos of dice show a tray, not the table
        if self.calibration is None:
            log.warning("no camera calibration: dice are read in the whole frame")
            return None
        return self.calibration.region_polygon(tray)

    def _calibration_path(self) -> Path:
        return self.config.camera_calibration or self.options.state_dir / "calibration.json"

    def _calibration(self) -> Calibration | None:
        """The camera's calibration for this profile, None if `smartboard calibrate` never ran."""
        path = self._calibration_path()
        if not path.exists():
            return None
        calibration = Calibration.load(path)
        if calibration.profile != self.profile.name:
            raise StartupError(
                f"calibration {path} is for {calibration.profile!r}, not {self.profile.name!r}: "
                "run `smartboard calibrate` for this profile"
            )
        return calibration

    def _reeds(self) -> ReedBank | SerialReedBank:
        if self.config.reeds_backend != "sim" and self.profile.link is not None:
            return SerialReedBank(self.profile.reed_channels(), self._serial_link(), self._on_edge)
        factories = mock_factories() if self.config.reeds_backend == "sim" else gpio_factories()
        return ReedBank(
            self.profile.reed_channels(),
            factories,
            self._on_edge,
            self.clock,
            pull_up=self.profile.pull_up,
        )

    def _drain_edges(self) -> None:
        while not self.events.empty():
            self.events.get_nowait()

    # -- event sources (any thread) ---------------------------------------------------------

    def _on_edge(self, spot: str, occupied: bool, at: float) -> None:
        self.events.put(("edge", spot, occupied, at))

    def _on_frame(self, board: Board) -> None:
        self.events.put(("frame", board))

    def _submit_dice(self, reading: DiceReading) -> None:
        self.events.put(("dice", reading))

    def _submit_control(self, request: JSON, reply: queue.Queue[JSON]) -> None:
        self.events.put(("control", request, reply))

    def stop(self) -> None:
        self.events.put(("stop",))

    # -- the loop -------------------------------------------------------------------------

    def run(self) -> int:
        """Serve until stopped (0), or with until_end until the game is over (0). EX_TEMPFAIL when
        the table closed for another game could not be opened again."""
        watchdog = watchdog_interval()
        next_ping = self.clock()
        self._show(self.clock())
        notify("READY=1")
        while not self.stopping:
            if self.options.until_end and self._finished():
                return 0
            now = self.clock()
            if watchdog is not None and now >= next_ping:
                notify("WATCHDOG=1")
                next_ping = now + watchdog
            timeout = self._timeout(now, next_ping if watchdog else None)
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                event = None
            while event is not None and not self.stopping:
                self._handle(event)
                try:
                    event = self.events.get_nowait()
                except queue.Empty:
                    event = None
            if self.stopping:
                break
            now = self.clock()
            changes = self.debouncer.poll(now)
            if changes and not self.paused:
                self.session.on_layout(self.sensed(), now)
            if self.bots is not None and not self.paused:
                self.bots.step(now, self._table_busy())
            self._want_dice()
            self._show(now)
        return self.exit_code

    def _want_dice(self) -> None:
        """Tell the camera which dice the game wants now, for it to read the tray with."""
        camera = self.table_camera
        state = self.session.state
        if camera is None or camera.dice is None or state.is_terminal():
            return
        wanted = self.game.dice_wanted(state)
        if wanted is None:
            camera.dice.want(None)
        else:
            camera.dice.want(wanted.kind, wanted.faces)

    def sensed(self) -> Layout:
        """The debounced reeds and the camera's settled board, as one layout."""
        reeds = dict.fromkeys(sorted(self.debouncer.occupied()), PRESENT)
        return {**reeds, **self.camera_board}

    def _table_busy(self) -> bool:
        """Pieces are still on their way to the session: edges, debouncing or camera settling."""
        if not self.events.empty() or self.debouncer.next_deadline() is not None:
            return True
        if self.camera is None:
            return False
        settled = self.settler.settled
        if settled is None:
            return True
        return self.sim_camera is not None and self.sim_camera.truth != settled

    def _finished(self) -> bool:
        """The game is over, and with bots, their hands have left the final position in place
        and every sensor, the camera too, has settled on it."""
        if not self.session.state.is_terminal():
            return False
        if self.bots is None:
            return True
        return not self._table_busy() and self.session.sensed == self.session.expected

    def _timeout(self, now: float, next_ping: float | None) -> float:
        deadlines = [now + 1.0]
        for deadline in (self.debouncer.next_deadline(), self.session.next_deadline(), next_ping):
            if deadline is not None:
                deadlines.append(deadline)
        if self.session.fixes(now):
            deadlines.append(now + 0.5 / self.config.blink_hz)
        if self._trouble() is not None:
            phase = now % TROUBLE_PERIOD_S
            edge = TROUBLE_FLASH_S if phase < TROUBLE_FLASH_S else TROUBLE_PERIOD_S
            deadlines.append(now - phase + edge)
        if self.bots is not None and not self._table_busy():
            # While busy, the bots wait for the table: its events and deadlines wake the loop.
            deadlines.append(self.bots.next_step)
        return max(0.0, min(deadlines) - now)

    def _handle(self, event: Event) -> None:
        kind = event[0]
        now = self.clock()
        if kind == "edge":
            _, spot, occupied, at = event
            self.debouncer.edge(spot, occupied, at)
        elif kind == "frame":
            settled = self.settler.feed(event[1])
            if settled is not None:
                self.camera_board = settled
                if not self.paused:
                    self.session.on_layout(self.sensed(), now)
        elif kind == "dice":
            self._apply_dice(event[1], now)
        elif kind == "roll":
            roll: SettledRoll = event[1]
            if roll.certain:
                self._apply_dice(roll.reading, now)
            else:
                self.unsure = roll
                values = ", ".join(map(str, roll.values))
                self.session.message = (
                    f"dice read {values}, but unsure (confidence {roll.confidence:.2f}): "
                    f"`smartboard confirm` applies it, `smartboard roll ...` types the right one"
                )
        elif kind == "camera":
            status: CameraStatus = event[1]
            if status.state == "retrying" and status.attempt == 1:
                self.session.message = f"camera failing: {status.reason}; retrying"
            elif status.state == "ok" and self.session.message.startswith("camera failing"):
                self.session.message = "camera working again"
            elif status.state == "ended":
                self.session.message = f"{status.reason}: type the rolls with `smartboard roll`"
        elif kind == "control":
            _, request, reply = event
            answer = self._control(request, now)
            if answer.get("ok") and request.get("op") in GAME_OPS:
                self._hands_follow()
            reply.put(answer)
        elif kind == "stop":
            self.stopping = True

    def _apply_dice(self, reading: DiceReading, now: float) -> None:
        """A roll read or rolled: applied if the game wants it, else a message says why not."""
        self.unsure = None
        if self.paused:
            self.session.message = "dice not applied: the game is paused"
            return
        try:
            self.session.on_dice(reading.values, now)
        except IllegalActionError as error:
            self.session.message = f"dice not applied: {error}"
            log.warning("%s", self.session.message)

    def _control(self, request: JSON, now: float) -> JSON:
        op = request.get("op")
        session = self.session
        if self.paused and op in PAUSED_OPS:
            return {"ok": False, "error": "the game is paused: resume it first"}
        try:
            if op == "status":
                return {"ok": True, **self.status(now)}
            if op == "snapshot":
                return {"ok": True, **self.snapshot(now)}
            if op == "record":
                state = session.state
                history = state.history()
                record = {"game": self.game.name, "options": state.options, "history": history}
                return {"ok": True, "record": record}
            if op == "actions":
                state = session.state
                actions = [{"id": a.id, "action": a.to_json()} for a in state.legal_actions()]
                to_move = None if state.is_terminal() else state.player_name(state.current_player())
                return {"ok": True, "to_move": to_move, "actions": actions}
            if op == "act":
                action = session.act(str(request.get("id")), now)
                return {"ok": True, "applied": [action.id]}
            if op == "new":
                if not session.state.is_terminal() and not request.get("abandon"):
                    return {"ok": False, "error": "a game is in progress; abandon it to start anew"}
                self._new_game(now, request.get("game"), request.get("options"))
                return {"ok": True, "game": self.game.name}
            if op in ("pause", "resume"):
                return self._pause(op == "pause", now)
            if op == "place":
                return self._place(request.get("spot"), request.get("token"))
            if op == "confirm":
                unsure = self.unsure
                if unsure is None:
                    return {"ok": False, "error": "no unsure dice reading to confirm"}
                applied = session.on_dice(unsure.values, now)
                self.unsure = None
                return {"ok": True, "applied": [a.id for a in applied]}
            if op in ("roll", "correct"):
                values = request.get("values")
                if op == "roll" and values is None and self.simulated:
                    values = self._random_roll()
                if not isinstance(values, list) or not values:
                    return {"ok": False, "error": '"values" must be a non-empty list of die faces'}
                typed = VirtualDice.typed(values).values
                if op == "roll":
                    applied = session.on_dice(typed, now)
                    self.unsure = None
                else:
                    applied = session.correct_dice(typed, now)
                return {"ok": True, "applied": [a.id for a in applied]}
        except (ValueError, StartupError) as error:  # IllegalActionError is a ValueError
            return {"ok": False, "error": str(error)}
        known = (
            "status, snapshot, record, actions, act, roll, correct, confirm, new, pause, resume, "
            "place"
        )
        return {"ok": False, "error": f"unknown op {op!r}; known: {known}"}

    @property
    def simulated(self) -> bool:
        """The pieces lie on the simulated table (--sim), where a click may lay them."""
        return self.config.reeds_backend == "sim"

    def _random_roll(self) -> list[int | str]:
        wanted = (
            None if self.session.state.is_terminal() else self.game.dice_wanted(self.session.state)
        )
        if wanted is None:
            raise IllegalActionError("no dice are wanted now")
        return list(VirtualDice(self._rng).roll(wanted.faces, wanted.count).values)

    def _pause(self, pause: bool, now: float) -> JSON:
        if pause == self.paused:
            return {"ok": False, "error": "the game is already " + ("paused" if pause else "on")}
        if pause and self.session.state.is_terminal():
            return {"ok": False, "error": "the game is over: there is nothing to pause"}
        self.paused = pause
        if pause:
            self.session.message = "paused: the table ignores the pieces until the game resumes"
        else:
            self.session.message = ""
            # What the hands did meanwhile is read now, as if it had just happened.
            self.session.on_layout(self.sensed(), now)
        return {"ok": True, "paused": pause}

    def _place(self, spot: object, token: object) -> JSON:
        """On the simulated table: lay a piece on `spot` or take it away. A camera spot takes
        `token`, else the next of what the game would see there (`_next_token`)."""
        if not self.simulated:
            return {"ok": False, "error": "on a real table the pieces are placed by hand"}
        if not isinstance(spot, str) or spot not in self.game.spots():
            return {"ok": False, "error": f"no spot {spot!r} on the {self.game.name} table"}
        if isinstance(self.reeds, ReedBank) and spot in self.reeds.channels:
            occupied = not self.reeds.read()[spot]
            self.reeds.drive(spot, occupied)
            return {"ok": True, "spot": spot, "occupied": occupied}
        if self.sim_camera is None or spot not in self.sim_camera.spots:
            return {"ok": False, "error": f"spot {spot!r} senses nothing: the table cannot see it"}
        if token is not None and not isinstance(token, str):
            return {"ok": False, "error": f'"token" must be a string, not {token!r}'}
        board = self.sim_camera.truth
        laid = token if token is not None else self._next_token(spot, board.get(spot))
        if laid is None:
            board.pop(spot, None)
        else:
            board[spot] = laid
        self.sim_camera.show(board)
        return {"ok": True, "spot": spot, "token": laid}

    def _next_token(self, spot: str, shown: str | None) -> str | None:
        """What a click lays on a camera spot: what the game expects there if it shows something
        else; else what a legal move would leave there (an Akuma card turned, say); else nothing."""
        expected = self.session.expected.get(spot)
        if shown != expected:
            return expected
        for action in self.session.state.legal_actions():
            after = self.session.layout_after(action).get(spot)
            if after != shown:
                return after
        return None

    def _hands_follow(self) -> None:
        """On the simulated table with no bots, nobody lays out what the simulated camera sees:
        a decision entered through the control interface (a tile placed with `smartboard act`)
        appears on it, as it would on a real table."""
        if self.sim_camera is not None and self.bots is None:
            self.sim_camera.show(self.session.expected)

    def _new_game(self, now: float, name: object = None, options: object = None) -> None:
        """Start a game afresh, this one or another (then on its own board profile); the old
        journal is kept under a dated name."""
        if name is not None and not isinstance(name, str):
            raise ValueError(f"the game must be named: {name!r}")
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"the options must be an object: {options!r}")
        game = self.game if name is None else get_game(name)
        if options is None and game is self.game:
            options = self.session.state.options
        state = game.new_initial_state(options)
        if game is self.game:
            self.session = Session(game, state, self.journal, self.config.settle_s)
            self.session.on_layout(self.sensed(), now)
            if self.bots is not None:
                self.bots.session = self.session
        else:
            playing = self.game, self.session.state
            self._close_table()
            try:
                self._open_table(game, state)
            except StartupError as error:
                try:
                    self._open_table(*playing)  # the table goes on with the game it had
                except StartupError as again:
                    # The journal still holds the old game: a restart by the service resumes it.
                    self.stopping = True
                    self.exit_code = EX_TEMPFAIL
                    raise StartupError(
                        f"{error}; then reopening the table for {playing[0].name} failed too "
                        f"({again}): the daemon stops for its service to restart it on that game"
                    ) from again
                raise
        self.paused = False
        self.journal.start(game.name, state.options)

    def status(self, now: float) -> JSON:
        session = self.session
        out: JSON = {
            **describe_state(self.game, session.state),
            "sensed": dict(sorted(session.sensed.items())),
            "expected": dict(sorted(session.expected.items())),
            "fix": sorted(session.fixes(now)),
            "candidates": [a.id for a in session.candidates()],
            "message": session.message,
            "paused": self.paused,
        }
        return out | self._camera_status(now)

    def _camera_status(self, now: float) -> JSON:
        """The camera's state, the dice of its latest frame, a roll held as unsure, the board's
        spots read unsure, and the dice it does not read (typed in instead)."""
        typed = {"dice_typed": dict(self.typed_kinds)} if self.typed_kinds else {}
        camera = self.table_camera
        if camera is None:
            return typed
        unsure = self.unsure
        board_unsure = {} if camera.board is None else {"board_unsure": list(camera.board.unsure)}
        return {
            "camera": camera.status.to_json(now),
            "dice_seen": [die.to_json() for die in camera.seen],
            "dice_unsure": None
            if unsure is None
            else {"values": list(unsure.values), "confidence": round(unsure.confidence, 3)},
            **board_unsure,
            **typed,
        }

    def snapshot(self, now: float, view: View | None = None) -> JSON:
        """What the dashboard shows: the game, the table's lights and sensors, the camera.
        `view`: the session's view at `now`, if already at hand."""
        if view is None:
            view = self.session.view(now)
        out = table_snapshot(self.game, self.session, view, self.profile, self.config.palette)
        out["version"] = self._version
        out["paused"] = self.paused
        out["sim"] = self.simulated
        out["trouble"] = self._trouble()
        return (
            out | {"camera": None, "dice_seen": [], "dice_unsure": None} | self._camera_status(now)
        )

    def _publish(self, now: float, view: View) -> None:
        """Hand the dashboard a new snapshot when something it shows has changed."""
        if self.web is None:
            return
        snapshot = self.snapshot(now, view)
        del snapshot["version"]
        if snapshot != self._published:
            self._published = snapshot
            self._version += 1
            self.web.publish({**snapshot, "version": self._version})

    def camera_view(self) -> bytes | None:
        """The camera's latest frame as a JPEG, with the markers found, the profile's regions and
        what was read in them, and the dice; None before any frame. Safe from any thread."""
        camera = self.table_camera
        latest = None if camera is None else camera.latest
        if camera is None or latest is None:
            return None
        image, dice = latest
        seen = None if camera.board is None else camera.board.seen
        drawn = annotate(image, detect_markers(image), self.profile, self.calibration, seen)
        drawn = draw_dice(drawn, dice, self.config.dice_min_confidence)
        ok, jpeg = cv2.imencode(".jpg", drawn, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return jpeg.tobytes() if ok else None

    def _trouble(self) -> str | None:
        """The table's own trouble, flashed over the game's lights: a failing camera (the
        palette's `camera_fault`), or a roll read but unsure (`unsure`)."""
        if self.table_camera is not None and self.table_camera.status.state == "retrying":
            return "camera_fault"
        return "unsure" if self.unsure is not None else None

    def _show(self, now: float) -> None:
        view = self.session.view(now)
        blink_on = int(now * self.config.blink_hz * 2) % 2 == 0
        frame = render(view, self.profile, self.config.palette, blink_on)
        trouble = self._trouble()
        if trouble is not None and now % TROUBLE_PERIOD_S < TROUBLE_FLASH_S:
            frame = (role_colour(trouble, self.config.palette),) * len(frame)
        if self.paused:
            frame = tuple(dim(rgb, PAUSED_LEVEL) for rgb in frame)
        frame = limit_frame(frame, self.config.brightness_cap, self.config.power_budget_ma)
        if frame != self._last_frame:
            self.strip.show(frame)
            self._last_frame = frame
        self._publish(now, view)
        out = self.options.show
        if out is None:
            return
        drawn = (len(self.session.state.actions()), view.roles, view.blinking, self.session.message)
        if drawn != self._last_drawn:
            self._last_drawn = drawn
            text = draw(
                self.game,
                self.session.state,
                view,
                self.config.palette,
                self.options.colour,
                self.session.message,
            )
            out.write(text + "\n\n")
            out.flush()

    def close(self) -> None:
        _close_all(self._opened)
        self._close_table()
        self.journal.close()


def _close_all(parts: list[Any]) -> None:
    for part in reversed(parts):
        try:
            part.close()
        except Exception:  # closing must go on for the rest of the hardware
            log.exception("closing %s", type(part).__name__)
    parts.clear()


def install_signal_handlers(daemon: Daemon) -> None:
    def handler(signum: int, _frame: Any) -> None:
        log.info("signal %d: stopping", signum)
        daemon.stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def default_state_dir() -> Path:
    """systemd's StateDirectory= as a service, else the user's state directory."""
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(base) / "smartboard"


def daemon_socket_path(state_dir: Path) -> Path:
    """systemd's RuntimeDirectory= as a service, else beside the journal."""
    runtime = os.environ.get("RUNTIME_DIRECTORY")
    if runtime:
        return Path(runtime.split(":")[0]) / "control.sock"
    return state_dir / "control.sock"


SERVICE_SOCKET = Path("/run/smartboard/control.sock")


def client_socket_path(state_dir: Path | None) -> Path:
    """The daemon of --state-dir if given, else the service's, else the user's own."""
    if state_dir is not None:
        return state_dir / "control.sock"
    if SERVICE_SOCKET.exists():
        return SERVICE_SOCKET
    return default_state_dir() / "control.sock"
