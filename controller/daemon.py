"""The daemon: sense -> decide -> show, in one thread that alone touches the session.

gpiozero callbacks, camera frames, the control socket and the bots only put events on a queue
(controller/event_loop.py). The loop sleeps until the next event or deadline (a debounce, the
settle time, a blink, a watchdog ping). What the session senses is the debounced reeds and the
camera's settled board. The game comes from the journal (controller/startup.py), the table's
hardware from the config (controller/backends.py); control requests are answered by their
operations (controller/operations/), and the LEDs drawn by controller/lights.py.
"""

from __future__ import annotations

import logging
import random
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from controller import report
from controller.backends import TableBackends, close_all
from controller.bots import Bots
from controller.broker import BrokerError, parse_link
from controller.camera_desk import CameraDesk
from controller.computer import PROGRESS_S, Computer
from controller.config import Config
from controller.control import ControlServer
from controller.dice_learning import DiceLearning
from controller.event_loop import Event, Events, Watchdog
from controller.game_vision import board_contents
from controller.hands import SimHands, lay_out
from controller.held_roll import HeldRoll
from controller.journal import (
    Journal,
    JournalError,
    JournalWriteError,
    StateDirInUseError,
)
from controller.lights import next_flash_edge, table_frame
from controller.new_game import NewGame
from controller.notify import notify
from controller.operations import answer
from controller.requests import Answered
from controller.room import Room
from controller.rules.api import (
    CAMERA,
    JSON,
    PRESENT,
    REED,
    Game,
    GameState,
    IllegalActionError,
    Layout,
)
from controller.session import Session, View
from controller.startup import RunOptions, StartupError, board_profile, deal_seed, resume
from controller.terminal import draw
from controller.thinker import Thinker
from hardware.leds import Frame
from hardware.profile import BoardProfile
from hardware.reeds import Debouncer, ReedBank
from hardware.serial_link import SerialReedBank
from vision.board_camera import HIDDEN, Board, BoardCamera, FrameSettler, SimBoardCamera
from vision.camera_watch import CameraStatus
from vision.dice_settle import SettledRoll
from vision.dice_sources import DiceReading
from vision.table_reader import BoardReading

log = logging.getLogger(__name__)

EX_TEMPFAIL = 75
"""The daemon's exit status when its table cannot be reopened: the service restarts it."""

JOURNAL_RETRY_S = 5.0
COVERED_S = 3.0
"""How long the camera may see pieces covered with nothing felt on them (a hand passing over)
before the table says so."""
"""How often a journal that could not be written (a full disk) is tried again."""


class Publisher(Protocol):
    """Whoever shows the table elsewhere (the dashboard): handed each new snapshot."""

    def publish(self, snapshot: JSON) -> None: ...

    def url(self, with_token: bool = False) -> str: ...


class Daemon:
    def __init__(self, config: Config, options: RunOptions) -> None:
        self.config = config
        self.options = options
        self.events = Events()
        self.clock: Callable[[], float] = time.monotonic
        self.stopping = False
        self.exit_code = 0
        self._opened: list[Any] = []  # the servers, open for the daemon's whole life
        self._backends: TableBackends | None = None  # the hardware of the game on the table
        self._last_frame: Frame | None = None
        # The LEDs the table test lights instead of the game's (light_test), while it is paused
        # or over.
        self.lit: Frame | None = None
        self._last_drawn: object = None
        self.web: Publisher | None = None
        self._published: object = None
        self.answered = Answered()
        self._version = 0
        self.journal_fault: str | None = None  # why the journal cannot be written, if it cannot
        self._journal_retry = 0.0  # when to try it again
        self._held = 0  # the rolls held unsure so far: each one's number
        self.learning: DiceLearning | None = None  # icon dice learned from the dashboard
        # The dice rolled by a click on the simulated table.
        self.rng = random.Random(None if options.seed is None else f"dashboard {options.seed}")
        # The bots' choices: one stream over every table opened.
        self.bots_rng = random.Random(options.seed)
        self._dealt_for: str | None = None  # the room's game the hands were dealt for
        self._games_started = 0  # new games this run: each deals afresh (`deal_seed`)
        self.thinker: Thinker | None = None  # the computer's worker, started when first wanted
        self._computer: Computer | None = None
        self.room: Room | None = None  # the linked tables' room (controller/room.py), if any

    # -- start-up -------------------------------------------------------------------------

    def open(self) -> None:
        """Resume or start the game, then open the table; READY is sent after this."""
        self.journal = Journal(self.options.state_dir)
        try:
            self.journal.lock()
        except (JournalError, StateDirInUseError) as error:
            raise StartupError(str(error)) from error
        game, state = resume(self.journal, self.options, self.config)
        self._remember_requests(game)
        if self.config.link_url:
            self._join_room(state.num_players)
        self._open_table(game, state)
        recovered = self.journal.recovered
        if recovered is not None and recovered.ends_in_take_back():
            # Stopped right after a take-back: the pieces may still show the moves taken back.
            self.session.restoring = True
        self.session.on_layout(self.sensed(), self.clock())
        self.control = ControlServer(self.options.socket_path, self.events.submit_control)
        self._opened.append(self.control)
        if self.config.web_listen:
            # Loaded only for a dashboard: aiohttp takes a quarter of a second and 12 MB.
            from controller.web import Dashboard, WebError

            try:
                web = Dashboard.open(
                    self.config.web_listen,
                    self.config.web_token,
                    self.config.web_max_connections,
                    self.options.state_dir,
                    self.events.submit_control,
                    self.camera_view,
                    self.held_picture,
                )
            except WebError as error:
                raise StartupError(str(error)) from error
            self._opened.append(web)
            self.web = web

    def _join_room(self, players: int) -> None:
        """Connect to the linked tables' broker: a StartupError names one out of reach."""
        config = self.config
        seats = frozenset(seat - 1 for seat in config.link_seats)
        if max(seats, default=players) >= players:
            raise StartupError(f"--seats {config.link_seats}: this game has seats 1 to {players}")
        ca = None if config.link_tls_ca is None else str(config.link_tls_ca)
        try:
            room = Room(
                parse_link(config.link_url),
                config.link_secret,
                seats,
                self.options.state_dir,
                self.events.on_room,
                ca,
                config.link_home_assistant,
                config.link_dice,
                self.options.page_only,
                self.options.seed,
            )
            room.open()
        except BrokerError as error:
            raise StartupError(str(error)) from error
        self.room = room
        self._opened.append(room)

    def _remember_requests(self, game: Game) -> None:
        """The requests the journal shows applied, answered as such if sent again: a command
        that retries across a restart of the daemon is not applied twice. The record resumed
        is at hand; a game just started holds none."""
        record = self.journal.recovered
        if record is None:
            return
        if record.started_by is not None:
            self.answered.keep(record.started_by, {"ok": True, "game": record.game})
        for request_id, actions in record.requests().items():
            applied = [game.action_from_json(action).id for action in actions]
            self.answered.keep(request_id, {"ok": True, "applied": applied})
        for request_id, actions in record.taken_back().items():
            taken = [game.action_from_json(action).id for action in actions]
            self.answered.keep(request_id, {"ok": True, "taken_back": taken})

    def _open_table(
        self, game: Game, state: GameState, profile: BoardProfile | None = None
    ) -> None:
        """Open the hardware of `game`'s board profile (`profile`, read already, or read now),
        and a session on `state`."""
        self.game = game
        self.profile = profile or board_profile(self.config, game)
        self.session = Session(game, state, self.journal, self.config.settle_s)
        self.paused = False
        self.lit = None
        try:
            self._open_hardware()
        except BaseException:
            self._close_table()
            raise

    def _open_hardware(self) -> None:
        options = self.options
        parts = self._backends = TableBackends(
            self.config,
            self.game,
            self.profile,
            options.state_dir,
            options.seed,
            self.events,
            self.clock,
        )
        self.strip = parts.strip()
        self.reeds = parts.reeds()
        camera_spots = set(self.profile.camera_regions())
        # Until the camera settles, its spots are taken to be as the journal left them, as the
        # session takes every spot at start-up.
        self.camera_board: Board = {
            s: t for s, t in self.session.expected.items() if s in camera_spots
        }
        self.settler = FrameSettler(self.config.stable_frames)
        # The latest frame of the board, if the camera could not read it surely: lit, and said.
        self.board_unsure: BoardReading | None = None
        self._covered_since: float | None = None  # since when frames show pieces covered
        self.camera: BoardCamera | None = None
        self.sim_camera: SimBoardCamera | None = None
        # Replayed photos with no calibration are of the dice alone, not of the table: the
        # game's other pieces stay simulated.
        dice_photos = (
            self.config.camera_source == "replay"
            and bool(self.game.dice_kinds)
            and not parts.calibration_path().exists()
        )
        read_board = (
            bool(camera_spots)
            and self.config.camera_backend == "camera"
            and board_contents(self.game) is not None
            and not dice_photos
        )
        if camera_spots and not read_board:
            # The simulated camera, or on a table without one the pieces entered by hand.
            self.camera = self.sim_camera = parts.sim_camera(camera_spots)
        if isinstance(self.reeds, ReedBank) and self.config.reeds_backend == "sim":
            # Pieces outlive a restart on a real table; the simulated one starts as it was left.
            for spot in self.session.expected:
                if spot in self.reeds.channels:
                    self.reeds.drive(spot, True)
        if self.sim_camera is not None:
            self.sim_camera.show(self.session.expected)
        self._followed = self._expected_seen()
        self.events.discard()  # the edges of the pins just set up
        # A microcontroller debounces its reeds before it reports them.
        debounce = 0.0 if isinstance(self.reeds, SerialReedBank) else self.config.debounce_s
        self.debouncer = Debouncer(debounce, self.reeds.read())
        if self.camera is not None:
            self.camera.start()
        self.unsure: HeldRoll | None = None
        self.table_camera = parts.table_camera(read_board)
        if self.table_camera is not None:
            if self.table_camera.board is not None:
                self.camera = self.table_camera
            self._want_dice()
            self.table_camera.start()
        self.desk = CameraDesk(parts, self.simulated, options.seed, self._sim_board)
        self.bots: Bots | None = None
        self.laying: Bots | None = None  # laying out what chance brings, for the page (`lay_out`)
        self._steps_left: tuple[Session, int, int | None] | None = None  # `laying_steps`' last
        # The simulated table's players hold real hands, whoever plays them: bots or a person
        # on the page, who is offered only the cards their seat holds.
        self.hands: SimHands | None = None
        if self.simulated:
            state = self.session.state
            start = self.game.new_initial_state(state.options)
            self.hands = SimHands(self.game, start, self._game_deal())
            self.hands.secrets = dict(self.journal.secrets)  # as a person laid them
            self.hands.follow(state)
            self._dealt_for = None  # new hands: dealt again for the room's game, if linked
        if self.options.bots:
            if not isinstance(self.reeds, ReedBank) or self.config.reeds_backend != "sim":
                raise StartupError("--bots moves simulated pieces: use it with --sim")
            self.bots = self._hands(self.bots_rng, self.options.pace)
        self._seat_players()

    def _hands(self, rng: random.Random, pace: float, chance_only: bool = False) -> Bots:
        """The simulated table's hands (controller/bots.py), on its reeds and camera."""
        assert isinstance(self.reeds, ReedBank) and self.hands is not None
        read = self.table_camera.dice_kinds if self.table_camera is not None else ()
        return Bots(
            self.session,
            self.reeds,
            self.sim_camera,
            self.events.on_dice,
            rng,
            pace,
            self.hands,
            camera_kinds=frozenset(read),
            chance_only=chance_only,
        )

    def lay_out(self, one: bool = False) -> None:
        """The simulated hands lay out what chance brings up to a player's decision (`one`:
        the next step only, to watch each come), at the pace the table reads it: each step
        seen and journalled as the hands' own would be."""
        self.laying = self._hands(self.rng, 0.0, chance_only=True)
        self.laying.limit = 1 if one else None

    def laying_out(self) -> str | None:
        """Whether the simulated hands lay out what chance brings: "running"; "offered" where
        they may, on the simulated table with no bots, at chance the board shows (no dice stand
        for it); else None (a real table's players lay it out and its camera reads it)."""
        if self.laying is not None:
            return "running"
        state = self.session.state
        if not self.simulated or self.bots is not None or self.room is not None or self.halted:
            return None
        if not state.is_chance_node() or self.game.dice_wanted(state) is not None:
            return None
        if self.hands is not None and self.hands.person_lays(state, self.session.table_seats):
            return None  # the card a person lays face down is theirs to choose
        return "offered"

    def laying_steps(self) -> tuple[int, int | None]:
        """The progress of `lay_out`, for the page: the steps laid since it began, and those left
        up to the next decision (None: too many to count), counted once a position."""
        session, hands = self.session, self.hands
        assert hands is not None  # laying out is offered on the simulated table alone
        played = len(session.state.actions())
        known = self._steps_left
        if known is None or known[0] is not session or known[1] != played:
            left = hands.chance_steps(session.state, session.table_seats)
            known = self._steps_left = (session, played, left)
        return (0 if self.laying is None else played - self.laying.began), known[2]

    def _seat_players(self) -> None:
        """The table's own part in the game journalled: the seats it plays, and hints."""
        if self._computer is not None:
            self._computer.cancel()
        virtual = self.bots is None and self.journal.computer_dice == "virtual"
        seed = self.options.seed
        self._computer = computer = Computer(
            self.game,
            self.journal.computer,
            self.journal.hints,
            self._thinking,
            self.hands,
            random.Random(None if seed is None else f"computer {seed}"),
            self.events.on_dice if virtual else None,
            self.options.think_s,
        )
        if self.room is not None:
            # Every seat of this game that this table does not play is played at another,
            # counted again at each game: a new one may have more seats than the first.
            players = self.session.state.num_players
            self.room.elsewhere = frozenset(range(players)) - self.room.seats
            self.session.elsewhere = self.room.elsewhere
            self.session.chance_drawn = self.room.dice == "software"
        self.session.table_seats = frozenset(computer.seats) | self.session.elsewhere
        if self.bots is not None:
            self.bots.told = lambda state: computer.told(self.session)

    @property
    def computer(self) -> Computer:
        """The seats the table plays in this game, and its hints (controller/computer.py)."""
        assert self._computer is not None
        return self._computer

    @property
    def computer_seats(self) -> frozenset[int]:
        """The seat indexes the table plays: a take-back goes back to a player's decision."""
        return frozenset(self.computer.seats)

    def _thinking(self) -> Thinker:
        """The computer's worker process, started the first time the table thinks."""
        if self.thinker is None:
            self.thinker = Thinker(self.events.on_thought)
        return self.thinker

    @property
    def _parts(self) -> TableBackends:
        """The hardware of the game on the table, opened by `_open_hardware`."""
        assert self._backends is not None
        return self._backends

    @property
    def backends(self) -> TableBackends:
        """The hardware of the game on the table, for the table test to drive."""
        return self._parts

    def redraw(self) -> None:
        """Write the game's lights again at the next turn of the loop: the table test drove
        the strip meanwhile."""
        self._last_frame = None

    def _close_table(self) -> None:
        if self._backends is not None:
            self._backends.close()
        self._last_frame = None

    def stop(self) -> None:
        self.events.stop()

    # -- the loop -------------------------------------------------------------------------

    def run(self) -> int:
        """Serve until stopped (0), or with until_end until the game is over (0). EX_TEMPFAIL when
        the table closed for another game could not be opened again."""
        watchdog = Watchdog(self.clock())
        self._show(self.clock())
        notify("READY=1")
        while not self.stopping:
            if self.options.until_end and self._finished():
                return 0
            now = self.clock()
            next_ping = watchdog.ping(now)
            for event in self.events.take(self._timeout(now, next_ping)):
                with self._recording():
                    self._handle(event)
                if self.stopping:
                    break
            if self.stopping:
                break
            now = self.clock()
            self._retry_journal(now)
            changes = self.debouncer.poll(now)
            with self._recording():
                if changes and not self.halted:
                    self.session.on_layout(self.sensed(), now)
                self.computer.step(self.session, self.halted)
                room, roles = self.room, self.computer.roles
                shown = room is not None and not self.halted and room.step(self.session, roles, now)
                if shown and self.bots is not None:
                    self.bots.next_step = min(self.bots.next_step, now)  # to carry it out
                if shown and self.options.page_only:
                    self.hands_follow()  # no hands: the board as the game has it
                if self.bots is not None and not self.halted:
                    self.bots.step(now, self.table_busy())
                if self.laying is not None and not self.halted:
                    self.laying.step(now, self.table_busy())
                    if self.laying.done or self.laying.session is not self.session:
                        self.laying = None
            self._want_dice()
            self._show(now)
        log.info("stopping")
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

    def _seen_through(self, frame: Board, now: float) -> Board | None:
        """A camera frame, where pieces on reeds hide spots from it (`Game.hidden`) and it sees
        nothing there, or a piece it cannot see (`HIDDEN`), with what the table saw there last:
        hidden is not emptied. None if it sees a piece covered where no piece stands on a reed
        (a hand over it): that frame says nothing sure, and if that lasts (something left
        lying there, a pawn its reed does not feel) the spots are said and lit."""
        if self.sim_camera is not None:
            return frame  # the simulated or entered board: the truth, nothing hidden
        reeds = dict.fromkeys(self.debouncer.occupied(), PRESENT)
        under = self.game.hidden(reeds)
        covered = tuple(sorted(s for s, t in frame.items() if t == HIDDEN and s not in under))
        if covered:
            if self._covered_since is None:
                self._covered_since = now
            elif now - self._covered_since >= COVERED_S and self.board_unsure is None:
                why = f"covered, and no piece felt on the reed there: {', '.join(covered)}"
                self.board_unsure = BoardReading({}, covered, (why,))
            return None
        self._covered_since = None
        seen = {spot: token for spot, token in frame.items() if token != HIDDEN}
        for spot in under:
            if spot not in seen and spot in self.camera_board:
                seen[spot] = self.camera_board[spot]
        return seen

    def table_busy(self) -> bool:
        """Pieces are still on their way to the session: edges, debouncing or camera settling."""
        # Not the camera's steady frames, nor a page asking for the snapshot.
        if self.events.pending("edge", "roll", "dice"):
            return True
        if self.debouncer.next_deadline() is not None:
            return True
        if self.camera is None:
            return False
        settled = self.settler.settled
        if settled is None or self.settler.changing:
            return True
        return self.sim_camera is not None and self.sim_camera.truth != settled

    def _finished(self) -> bool:
        """The game is over, and with bots, their hands have left the final position in place
        and every sensor, the camera too, has settled on it."""
        if not self.session.state.is_terminal():
            return False
        if self.room is not None and self.room.owes(self.session):
            return False  # the last move, sent to the other tables first
        if self.bots is None:
            return True
        return not self.table_busy() and self.session.sensed == self.session.expected

    def _timeout(self, now: float, next_ping: float | None) -> float:
        deadlines = [now + 1.0]
        for deadline in (
            self.debouncer.next_deadline(),
            self.session.next_deadline(now),
            next_ping,
        ):
            if deadline is not None:
                deadlines.append(deadline)
        if self.session.fixes(now) or self.board_unsure is not None:
            deadlines.append(now + 0.5 / self.config.blink_hz)
        if self.trouble() is not None:
            deadlines.append(next_flash_edge(now))
        if self.journal_fault is not None:
            deadlines.append(self._journal_retry)
        if self.computer.asked is not None:
            deadlines.append(now + PROGRESS_S)  # the progress shown
        if self.room is not None and not self.halted and self.room.due(self.session):
            deadlines.append(now)  # one step at a time: the next at once
        for hands in (self.bots, self.laying):
            if (
                hands is not None
                and not hands.resting
                and not self.halted
                and not self.table_busy()
            ):
                # While busy, the hands wait for the table: its events and deadlines wake it.
                # Halted (paused) or resting, they take no step: one past due spins the loop.
                deadlines.append(hands.next_step)
        return max(0.0, min(deadlines) - now)

    def _handle(self, event: Event) -> None:
        kind = event[0]
        now = self.clock()
        if kind == "edge":
            _, spot, occupied, at = event
            self.debouncer.edge(spot, occupied, at)
        elif kind == "unsure":
            self.board_unsure = event[1]
        elif kind == "frame":
            seen = self._seen_through(event[1], now)
            if seen is None:
                return
            self.board_unsure = None
            settled = self.settler.feed(seen)
            if settled is not None:
                self.camera_board = settled
                if not self.halted:
                    self.session.on_layout(self.sensed(), now)
        elif kind == "dice":
            self._apply_dice(event[1], now)
        elif kind == "roll":
            roll: SettledRoll = event[1]
            if roll.certain:
                self._apply_dice(roll.reading, now)
            else:
                self._held += 1
                self.unsure = HeldRoll(roll, self._held)
                self.session.say(
                    f"{self.unsure.sentence()}; `smartboard confirm` applies it as read, "
                    "`smartboard confirm --die N --face F` settles one die, "
                    "`smartboard roll ...` types the right one",
                    "unsure",
                    values=list(roll.values),
                )
        elif kind == "camera":
            status: CameraStatus = event[1]
            if status.state == "retrying" and status.attempt == 1:
                self.session.say(
                    f"camera failing: {status.reason}; retrying",
                    "camera_failing",
                    why=status.reason,
                )
            elif status.state == "ok" and self.session.message.startswith("camera failing"):
                # TrayDice takes the dice lying still as it comes back as no new roll.
                self.session.say(
                    "camera working again; dice that came to rest while it was out are not read: "
                    "throw them again or type the roll with `smartboard roll`",
                    "camera_back",
                )
            elif status.state == "ended":
                self.session.say(
                    f"{status.reason}: type the rolls with `smartboard roll`",
                    "camera_ended",
                    why=status.reason,
                )
        elif kind == "thought":
            _, number, result, error = event
            self.computer.on_thought(number, result, error, self.session, now)
            if self.bots is not None:
                self.bots.next_step = min(self.bots.next_step, now)  # to carry out its move
        elif kind == "room":
            if self.room is not None:
                self.room.on_event(event[1:], self.session)
                self._deal_for_room()
        elif kind == "control":
            _, request, reply, came = event
            reply.put(answer(self, request, now, time.monotonic() - came))
        elif kind == "stop":
            self.stopping = True

    def _game_deal(self) -> random.Random:
        """The simulated hands' deal of the game journalled, the same each time it is dealt:
        from the seed its journal keeps (a journal from before: when the game started)."""
        return random.Random(f"hands {self.journal.deal or self.journal.started}")

    def _deal_for_room(self) -> None:
        """The simulated hands of a table linked in a room dealt from the room's game id, once
        it has one: every table of the room deals the same cards (`SimHands.deal_alike`)."""
        game_id = self.room.game_id if self.room is not None else None
        if self.hands is None or game_id is None or game_id == self._dealt_for:
            return
        self._dealt_for = game_id
        state = self.session.state
        start = self.game.new_initial_state(state.options)
        self.hands.deal_alike(random.Random(f"room deal {game_id}"), start, state)

    def _apply_dice(self, reading: DiceReading, now: float) -> None:
        """A roll read or rolled: applied if the game wants it, else a message says why not."""
        self.unsure = None
        if self.halted:
            why = self.journal_fault or "the game is paused"
            self.session.say(f"dice not applied: {why}", "dice_refused", why=why)
            return
        try:
            source = "read" if reading.source == "camera" else reading.source
            self.session.on_dice(reading.values, now, source)
        except IllegalActionError as error:
            self.session.say(f"dice not applied: {error}", "dice_refused", why=str(error))
            log.warning("%s", self.session.message)

    @property
    def simulated(self) -> bool:
        """The pieces lie on the simulated table (--sim), where a click may lay them."""
        return self.config.reeds_backend == "sim"

    @property
    def placeable(self) -> frozenset[str]:
        """The sensors whose spots a click (or `smartboard place`) may lay pieces on: all on the
        simulated table; the camera's on a table whose players enter what it would read."""
        if self.simulated:
            return frozenset((REED, CAMERA))
        return frozenset((CAMERA,)) if self.sim_camera is not None else frozenset()

    def hands_follow(self, reeds: bool = False) -> None:
        """On the simulated table with no bots, nobody lays out what its camera sees: a
        decision entered through the control interface (a tile placed with `smartboard act`)
        appears on it, as it would on a real table; so it does on the board entered by hand of a
        table without a camera. `reeds`: the pieces on simulated reeds too, as a decision taken
        by name leaves them (a pawn moved by pointing on the page); a roll leaves them to the
        hands, which lay what the dice ask for."""
        if self.bots is not None or not self.placeable:
            return
        camera = self.sim_camera
        reeds = reeds or self.options.page_only  # no hands at all: the board as the game has it
        if reeds and self.simulated and isinstance(self.reeds, ReedBank):
            lay_out(self.reeds, camera, self.session.expected)
        elif camera is not None and self.simulated:
            camera.show(self.session.expected)
        elif camera is not None:
            # The board entered by hand takes only what the game changed since: what the
            # players were entering meanwhile (a tile's first cells) stays.
            expected, board = self._expected_seen(), camera.truth
            for spot in expected.keys() | self._followed.keys():
                if expected.get(spot) != self._followed.get(spot):
                    if spot in expected:
                        board[spot] = expected[spot]
                    else:
                        board.pop(spot, None)
            camera.show(board)
            self._followed = expected

    def _expected_seen(self) -> Board:
        """What the game expects on the camera's spots."""
        camera = self.sim_camera
        if camera is None:
            return {}
        return {s: t for s, t in self.session.expected.items() if s in camera.spots}

    def new_game(self, now: float, plan: NewGame) -> None:
        """Start the game `plan` holds (controller/new_game.py); a game on another board
        (another game, or another size) opens the table with its own board profile. The old
        journal is kept under a dated name."""
        game, state, chosen, seats = plan.game, plan.state, plan.names, plan.computer
        hinting, dice = plan.hints, plan.computer_dice
        self._games_started += 1
        deal = deal_seed(self.options.seed, self._games_started)
        # Read before anything changes: a board with no profile leaves the game as it was.
        profile = board_profile(self.config, game)
        if profile == self.profile:
            # Journalled first: a full disk leaves the game as it was, and what the table shows
            # of the new game is recorded in its own journal.
            self.journal.start(game.name, state.options, chosen, seats, hinting, dice, deal)
            self.game = game
            self.session = Session(game, state, self.journal, self.config.settle_s)
            if self.hands is not None:
                self.hands.secrets = {}
                self.hands.deal_alike(self._game_deal(), state, state, game)
            self._seat_players()
            self.session.on_layout(self.sensed(), now)
            if self.bots is not None:
                self.bots.session = self.session
        else:
            playing = self.game, self.session.state
            self._close_table()
            try:
                self._open_table(game, state, profile)
            except StartupError as error:
                self._reopen(playing, error)
                raise
            try:
                self.journal.start(game.name, state.options, chosen, seats, hinting, dice, deal)
            except JournalWriteError as error:
                self._close_table()
                self._reopen(playing, error)
                raise
            if self.hands is not None:  # dealt for the game just journalled
                self.hands.secrets = dict(self.journal.secrets)
                self.hands.deal_alike(self._game_deal(), state, state)
            self._seat_players()
            # Read once the new game's journal is open: what the table shows is recorded there.
            self.session.on_layout(self.sensed(), now)
        self.paused = False

    def _reopen(self, playing: tuple[Game, GameState], error: Exception) -> None:
        """After `error` opening another game, the table goes on with the game it had."""
        try:
            self._open_table(*playing)
            with self._recording():
                self.session.on_layout(self.sensed(), self.clock())
        except StartupError as again:
            # The journal still holds the old game: a restart by the service resumes it.
            self.stopping = True
            self.exit_code = EX_TEMPFAIL
            raise StartupError(
                f"{error}; then reopening the table for {playing[0].name} failed too "
                f"({again}): the daemon stops for its service to restart it on that game"
            ) from again

    def status(self, now: float) -> JSON:
        return report.status(self, now)

    def alerts(self) -> list[JSON]:
        """The table's own trouble (`report.alerts`)."""
        return report.alerts(self)

    # -- a journal that cannot be written -------------------------------------------------

    @property
    def halted(self) -> bool:
        """The table's changes are not read: the game is paused, or cannot be journalled."""
        return self.paused or self.journal_fault is not None

    @contextmanager
    def _recording(self) -> Iterator[None]:
        """A change to the game whose journal write fails is not made, and the game halts."""
        try:
            yield
        except JournalWriteError as error:
            self.journal_failed(error, self.clock())

    def journal_failed(self, error: JournalWriteError, now: float) -> None:
        cause = "disk full" if error.disk_full else "the game journal cannot be written"
        self.journal_fault = f"{cause}: the game is paused ({error})"
        self._journal_retry = now + JOURNAL_RETRY_S
        log.error("%s; trying again every %g s", self.journal_fault, JOURNAL_RETRY_S)

    def _retry_journal(self, now: float) -> None:
        """Once the journal can be written again, the game goes on from the table as it lies."""
        if self.journal_fault is None or now < self._journal_retry:
            return
        try:
            self.journal.probe()
        except JournalWriteError:
            self._journal_retry = now + JOURNAL_RETRY_S
            return
        log.info("the game journal can be written again: the game goes on")
        self.journal_fault = None
        self.session.say("the journal can be written again: the game goes on", "journal_back")
        if not self.paused:
            with self._recording():
                self.session.on_layout(self.sensed(), now)

    def snapshot(self, now: float, view: View | None = None) -> JSON:
        """What the dashboard shows (`report.snapshot`); `view`: the table's view at `now`, if
        already at hand."""
        return report.snapshot(self, now, self.view(now) if view is None else view) | {
            "version": self._version
        }

    def _publish(self, now: float, view: View) -> None:
        """Hand the dashboard a new snapshot when something it shows has changed, and the
        room's spectators too (rate-limited)."""
        room = self.room
        spectators = room.spectators if room is not None and room.up else None
        if spectators is not None and not spectators.due(now):
            spectators = None
        if self.web is None and spectators is None:
            return
        snapshot = self.snapshot(now, view)
        if spectators is not None:
            spectators.offer(snapshot, now)
        if self.web is None:
            return
        del snapshot["version"]
        if snapshot != self._published:
            self._published = snapshot
            self._version += 1
            self.web.publish({**snapshot, "version": self._version})

    def camera_view(self) -> bytes | None:
        """The camera's latest frame with what was read in it, as a JPEG; None before any
        frame. Safe from any thread."""
        return self.desk.picture()

    def _sim_board(self) -> Board:
        """What lies on the simulated camera's spots, for the simulated table's frames."""
        return {} if self.sim_camera is None else self.sim_camera.truth

    def reopen_camera(self, now: float) -> None:
        """A calibration or a dice model just saved: the camera's readers, made with the table,
        are made again with it (the game goes on, paused or not, as it was)."""
        if self._parts.camera is None:
            return  # no camera reads anything on this table: nothing holds the old ones
        paused, playing = self.paused, (self.game, self.session.state)
        self._close_table()
        try:
            self._open_table(*playing, self.profile)
        except StartupError as error:
            self._reopen(playing, error)
            raise
        self.paused = paused
        if not paused:
            with self._recording():
                self.session.on_layout(self.sensed(), now)

    def held_picture(self, number: int) -> bytes | None:
        """The picture of held roll `number` as a JPEG, if it is still held and its frame was
        kept; made once. Safe from any thread."""
        held = self.unsure
        if held is None or held.number != number:
            return None
        return held.picture(self._parts.roll_picture)

    def trouble(self) -> str | None:
        """The table's own trouble, flashed over the game's lights: a failing camera (the
        palette's `camera_fault`), or a roll read but unsure (`unsure`)."""
        if self.table_camera is not None and self.table_camera.status.state == "retrying":
            return "camera_fault"
        return "unsure" if self.unsure is not None else None

    def view(self, now: float) -> View:
        """What the lights show: the session's view, and the spots the camera cannot read
        blinking to be put right over the game's lights."""
        view = self.session.view(now)
        unsure = self.board_unsure
        if unsure is None:
            return view
        spots = frozenset(unsure.doubtful)
        return View(view.roles | dict.fromkeys(spots, "fix"), view.blinking | spots)

    def _show(self, now: float) -> None:
        view = self.view(now)
        if self.lit is not None and not self.paused and not self.session.state.is_terminal():
            self.lit = None  # the game goes on: its own lights again
        frame = (
            table_frame(view, self.profile, self.config, now, self.trouble(), self.halted)
            if self.lit is None
            else self.lit
        )
        if frame != self._last_frame:
            self.strip.show(frame)
            self._last_frame = frame
        self._publish(now, view)
        out = self.options.show
        if out is None:
            return
        thinking = self.computer.thinking(self.session, self.thinker)
        drawn = (
            len(self.session.state.actions()),
            view.roles,
            view.blinking,
            self.session.message,
            thinking,
        )
        if drawn != self._last_drawn:
            self._last_drawn = drawn
            text = draw(
                self.game,
                self.session.state,
                view,
                self.config.palette,
                self.options.colour,
                self.session.message,
                thinking,
                self.session.called,
            )
            out.write(text + "\n\n")
            out.flush()

    def close(self) -> None:
        if self.learning is not None:
            self.learning.close()
        if self.thinker is not None:
            self.thinker.close()
        close_all(self._opened)
        self._close_table()
        self.journal.close()


def install_signal_handlers(daemon: Daemon) -> None:
    def handler(signum: int, _frame: Any) -> None:
        # No lock may be taken here: the signal may come while this very thread holds the event
        # queue's, and a put would wait for itself for ever. The loop wakes within a second.
        daemon.stopping = True

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
