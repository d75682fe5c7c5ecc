"""The parts of the table for the game on it, each from the backend the config chooses, and what
its camera sees.

Real or simulated: the LED strip (NeoPixels, the microcontroller's, or recorded), the reeds
(gpiozero, the microcontroller's, or mock pins), the serial link they may share, the simulated
board camera of --sim, and the one camera over the table with its tray dice and board readers,
which see through the camera's calibration.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from controller.config import Config
from controller.event_loop import Events
from controller.game_vision import board_contents
from controller.held_roll import HeldRoll
from controller.rules import icon_dice
from controller.rules.api import JSON, Game
from controller.startup import SetupError, StartupError, UnavailableError
from hardware.leds import LedStrip, NeoPixelStrip, SimStrip
from hardware.link_state import LinkState
from hardware.profile import BoardProfile, builtin_profile_path
from hardware.reeds import ReedBank, gpio_factories, mock_factories
from hardware.serial_link import (
    LinkError,
    SerialLink,
    SerialReedBank,
    SerialStrip,
)
from vision.board_camera import SimBoardCamera
from vision.calibration import Calibration, CalibrationError, Points
from vision.dice_reader import DiceReader, roll_picture
from vision.dice_settle import DiceSettler, SettledRoll
from vision.frame_sources import BackendMissingError, FrameSource, frame_source
from vision.image_files import Image
from vision.table_camera import BoardFrames, IconTray, TableCamera, TrayDice, TrayReader
from vision.table_reader import (
    BoardReader,
    BoardReaderError,
    NoModelError,
    board_reader,
    learned_model,
)

log = logging.getLogger(__name__)


def close_all(parts: list[Any]) -> None:
    """Close `parts`, the last opened first, and forget them."""
    for part in reversed(parts):
        try:
            part.close()
        except Exception:  # closing must go on for the rest of the hardware
            log.exception("closing %s", type(part).__name__)
    parts.clear()


def camera_frames(config: Config, loop: bool) -> FrameSource:
    """The frames of the config's `[camera]`; a replay starts again at its end if `loop`."""
    return frame_source(
        config.camera_source,
        config.camera_device,
        config.camera_width,
        config.camera_height,
        config.camera_fps,
        config.replay_fps,
        loop,
    )


class TableBackends:
    """Opens the parts of one game's table, and closes them together."""

    def __init__(
        self,
        config: Config,
        game: Game,
        profile: BoardProfile,
        state_dir: Path,
        seed: int | None,
        events: Events,
        clock: Callable[[], float],
    ) -> None:
        self.config = config
        self.game = game
        self.profile = profile
        self.state_dir = state_dir
        self.seed = seed
        self.events = events
        self.clock = clock
        self.calibration: Calibration | None = None
        self.camera: TableCamera | None = None  # the one over the table, once opened
        self.typed_kinds: dict[str, str] = {}  # kind -> why the camera does not read it
        # Why the camera does not read the board it is over: no calibration yet (the first is
        # taken from the dashboard, through the camera running for it).
        self.uncalibrated: str | None = None
        self._opened: list[Any] = []
        self._link: SerialLink | None = None
        self._link_error: StartupError | None = None  # said once, for the strip and the reeds

    def close(self) -> None:
        close_all(self._opened)
        self._link = None  # closed with the strip and reeds it served

    def strip(self) -> LedStrip:
        count = self.profile.led_count
        if self.config.leds_backend == "sim":
            strip: LedStrip = SimStrip(count)
        elif self.profile.link is not None:
            strip = SerialStrip(self._serial_link())
        else:
            strip = NeoPixelStrip(count, self.config.led_pin, self.config.pixel_order)
        self._opened.append(strip)
        return strip

    def reeds(self) -> ReedBank | SerialReedBank:
        events = self.events
        if self.config.reeds_backend != "sim" and self.profile.link is not None:
            reeds: ReedBank | SerialReedBank = SerialReedBank(
                self.profile.reed_channels(), self._serial_link(), events.on_edge
            )
        else:
            sim = self.config.reeds_backend == "sim"
            reeds = ReedBank(
                self.profile.reed_channels(),
                mock_factories() if sim else gpio_factories(),
                events.on_edge,
                self.clock,
                pull_up=self.profile.pull_up,
            )
        self._opened.append(reeds)
        return reeds

    @property
    def serial_link(self) -> SerialLink | None:
        """The microcontroller's link, once the strip or the reeds opened it."""
        return self._link

    def link_state(self) -> LinkState | None:
        """The microcontroller's link, if the table has one."""
        return None if self._link is None else self._link.state()

    def _serial_link(self) -> SerialLink:
        """The profile's microcontroller, shared by the reeds and the LEDs it serves."""
        if self._link_error is not None:
            raise self._link_error
        if self._link is None:
            link = self.profile.link
            assert link is not None
            opened = SerialLink(link.port, link.rows, link.cols, self.profile.led_count)
            try:
                opened.start()
            except LinkError as error:
                # Not kept: the reeds asked for next must fail too, not read a closed link.
                opened.close()
                self._link_error = StartupError(f"the table's microcontroller: {error}")
                raise self._link_error from error
            self._link = opened
        return self._link

    def sim_camera(self, spots: set[str]) -> SimBoardCamera:
        """The simulated camera, or on a table without a camera the board its players enter."""
        entered = self.config.camera_backend == "dashboard"
        # Over a real table the simulated camera would watch a board that nobody lays out.
        if self.config.reeds_backend != "sim" and not entered:
            raise UnavailableError(
                f'{self.game.name}: [camera] backend = "sim" is for the simulated table (--sim); '
                'set backend = "camera" to read the board, or "dashboard" (--no-camera) to enter '
                "it on the dashboard"
                if board_contents(self.game) is not None
                else f"the camera reader of {self.game.name}'s pieces is not available yet: play "
                "it on the simulated table with --sim, or enter them on the dashboard (--no-camera)"
            )
        seed = self.seed
        camera = SimBoardCamera(
            spots,
            self.events.on_frame,
            self.config.camera_fps,
            noise=0.0 if entered else self.config.sim_noise,
            delay_s=0.0 if entered else self.config.sim_delay_s,
            rng=random.Random(None if seed is None else f"camera {seed}"),
        )
        self._opened.append(camera)
        return camera

    def table_camera(self, read_board: bool) -> TableCamera | None:
        """The one camera over the table, if it reads the board or some of the game's rolls."""
        if read_board or self.config.dice_source == "camera":
            try:
                self.calibration = self._calibration()
            except CalibrationError as error:
                raise SetupError(f"{error}; run `smartboard calibrate` again") from error
        dice = self._tray_dice(read_board)
        board = None
        if read_board and self.calibration is not None:
            reader = self._board_reader(self.calibration)
            board = BoardFrames(reader, self.events.on_frame, self.events.on_unsure)
        elif read_board:
            # The first calibration is taken from the dashboard: the camera runs for it.
            self.uncalibrated = self._uncalibrated()
            log.warning("%s", self.uncalibrated)
        if dice is None and board is None and self.uncalibrated is None:
            return None
        config = self.config
        try:
            source = camera_frames(config, config.replay_loop)
        except BackendMissingError as error:
            instead = (
                "enter the board on the dashboard with --no-camera, or play on the simulated "
                "table with --sim"
                if read_board
                else 'set [dice] source = "virtual" to type the rolls in'
            )
            raise UnavailableError(f"{error}. Or {instead}") from error
        self.camera = TableCamera(
            source,
            self.events.on_camera,
            config.camera_fps,
            config.camera_retry_s,
            config.camera_retry_max_s,
            dice,
            board,
        )
        self._opened.append(self.camera)
        return self.camera

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
                config.dice_stable_frames,
                config.dice_min_confidence,
                config.dice_box_tolerance_px,
                config.dice_combine_frames,
            ),
            self.events.on_roll,
            self._tray_polygon(table_frames),
        )

    def _models(self) -> Path:
        """The folder of the learned icon-dice models."""
        return self.config.dice_models or self.state_dir

    def _uncalibrated(self) -> str:
        """Why the board is not read with no calibration yet, and how to make one."""
        # The game's own profile by the game's name; any other (a size, a Pico) by its file.
        builtin = builtin_profile_path(self.game.info.profile)
        which = (
            f"--game {self.game.name}"
            if Path(self.profile.source) == builtin
            else f"--profile {self.profile.source}"
        )
        # Saved where this table reads it: the file the config names, else its state directory.
        named = self.config.camera_calibration
        where = f" --out {named}" if named else f" --state-dir {self.state_dir}"
        return (
            f"the camera is not calibrated, so the {self.game.name} board is not read: pause "
            "and open Table test & camera on the dashboard, or run `smartboard calibrate "
            f"--image FRAME.jpg {which}{where}`"
        )

    def _board_reader(self, calibration: Calibration) -> BoardReader:
        """The reader of the board's camera spots, through the camera's calibration."""
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

    def calibration_path(self) -> Path:
        return self.config.calibration_path(self.state_dir)

    def _calibration(self) -> Calibration | None:
        """The camera's calibration for this profile, None if `smartboard calibrate` never ran."""
        path = self.calibration_path()
        if not path.exists():
            return None
        calibration = Calibration.load(path)
        if calibration.profile != self.profile.name:
            raise SetupError(
                f"calibration {path} is for {calibration.profile!r}, not {self.profile.name!r}: "
                "run `smartboard calibrate` for this profile"
            )
        return calibration

    # -- what the camera sees -------------------------------------------------------------

    def camera_status(self, now: float, unsure: HeldRoll | None) -> JSON:
        """The camera's state, the dice of its latest frame, a roll held as `unsure`, the
        board's spots read unsure, and the dice it does not read (typed in instead)."""
        typed = {"dice_typed": dict(self.typed_kinds)} if self.typed_kinds else {}
        camera = self.camera
        if camera is None:
            return typed
        board_unsure = {} if camera.board is None else {"board_unsure": list(camera.board.unsure)}
        return {
            "camera": camera.status.to_json(now),
            "dice_seen": [die.to_json() for die in camera.seen],
            "dice_unsure": None if unsure is None else unsure.to_json(),
            **board_unsure,
            **typed,
        }

    def roll_picture(self, roll: SettledRoll) -> bytes | None:
        """The tray in the frame an uncertain roll was read in, its dice outlined and numbered,
        as a JPEG; None if the roll kept no frame."""
        camera = self.camera
        tray = None if camera is None or camera.dice is None else camera.dice.tray
        drawn = roll_picture(roll, tray, self.config.dice_min_confidence)
        return None if drawn is None else jpeg(drawn)


def jpeg(image: Image) -> bytes | None:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return data.tobytes() if ok else None
