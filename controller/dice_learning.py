"""Icon dice learned from the camera, as the dashboard guides the builder (issue 23).

`smartboard dice learn` learns from photos on disk; here the photos are the camera's. For each
face in turn (and, for dice of several colours, a colour with it) the builder lays one die
showing it in the tray and asks for its frames: a thread of its own takes `SHOTS` frames in
which one die lies in the tray, each cut about the die as `dice learn` wants its photos, with a
pause between them for the die to be turned a little. Once every face has its frames the same
thread learns (`learn_and_score`, the command's own learning), off the daemon's loop, and the
accuracy is shown; the model is saved where `dice learn` saves it, once the builder says so.

On the simulated table, `show` lays the die asked for in the simulated tray: a builder who rolls
the face asked for.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from controller.refusals import Refused
from controller.rules.api import JSON
from controller.rules.game_type import IconDice
from vision.calibration import Points
from vision.icon_crops import find_blobs
from vision.icon_dice import AUGMENTED, FOLDS, NoDieError, learn_and_score, model_path
from vision.icon_model import IconModel
from vision.image_files import Image
from vision.sim_frames import SimDie

log = logging.getLogger(__name__)

SHOTS = 5
"""Frames of each face learned (`dice learn` needs 3 photos of each at least)."""
SHOT_S = 0.5
"""Between two frames kept: time for the die to be turned a little."""
GIVE_UP_S = 20.0
"""A face whose die is not seen in the tray for this long is given up, with the reason."""
CROP_SIDES = 4.0
"""A learning photo spans this many times the die's side, the die in its middle."""
VARIANTS = AUGMENTED
FOLDS_SCORED = FOLDS
"""How `learn_and_score` learns: the command's own numbers (tests make them smaller)."""

TrayFrame = Callable[[], tuple[Image, Points | None] | None]
"""The camera's latest frame and the tray's polygon in it (None: the whole frame); None when
the camera gives none."""
State = Literal["ready", "taking", "learning", "learned", "failed", "saved", "cancelled"]


@dataclass(frozen=True)
class Step:
    face: str
    colour: str | None


def die_photo(image: Image, tray: Points | None) -> Image | str:
    """The one die in the tray, cut out with the die in the middle; else why not ("none",
    "several")."""
    mask = None
    if tray is not None:
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillPoly(mask, [tray.round().astype(np.int32)], 255)
        # The tray's own rim is an edge too: left out.
        mask = np.asarray(cv2.erode(mask, np.ones((9, 9), np.uint8)), np.uint8)
    blobs = find_blobs(image, mask)
    if len(blobs) != 1:
        return "none" if not blobs else "several"
    blob = blobs[0]
    side = max(8, round(CROP_SIDES * blob.side))
    return np.asarray(cv2.getRectSubPix(image, (side, side), blob.centre), np.uint8)


class DiceLearning:
    """One kind of dice being learned: its steps, the photos taken, the model once learned."""

    def __init__(
        self, dice: IconDice, frames: TrayFrame, show: Callable[[Sequence[SimDie]], None] | None
    ) -> None:
        self.dice = dice
        self._frames = frames
        self._show = show
        colours = dice.colours
        # Each face once; a die of several colours shows each colour in turn, so that every
        # colour is learned too (there are as many faces as colours, or more).
        self.steps = [
            Step(face, None if colours is None else colours[i % len(colours)])
            for i, face in enumerate(dice.faces)
        ]
        self._photos: list[list[Image]] = [[] for _ in self.steps]
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.state: State = "ready"
        self.taking: int | None = None
        self.error: tuple[str, str, dict[str, object]] | None = None
        self.model: IconModel | None = None
        self.accuracy: tuple[float, float | None] | None = None
        self.saved: Path | None = None

    # -- requests, on the daemon's loop ---------------------------------------------------

    def take(self, face: str | None) -> int:
        """Take the frames of `face` (again), or of the next face without them; its step."""
        with self._lock:
            if self.state in ("taking", "learning"):
                raise Refused(
                    f"the camera is busy {self.state} the {self.dice.kind} dice: wait, or cancel",
                    "learning_busy",
                )
            if self.state == "cancelled":
                raise Refused("this learning was cancelled: start again", "learning_none")
            if face is None:
                step = self._next()
                if step is None:
                    raise Refused("every face has its frames", "learning_done")
            else:
                faces = [s.face for s in self.steps]
                if face not in faces:
                    raise Refused(
                        f"{face!r} is not a face of the {self.dice.kind} die: {', '.join(faces)}",
                        "learning_no_face",
                        face=face,
                    )
                step = faces.index(face)
            self._photos[step] = []
            self.state, self.taking, self.error = "taking", step, None
            self.model = self.accuracy = self.saved = None
            self._thread = threading.Thread(
                target=self._work, args=(step,), name="dice learning", daemon=True
            )
            self._thread.start()
        return step

    def save(self, folder: Path) -> Path:
        """Save the model learned in `folder`, where `smartboard dice learn` saves it."""
        path = model_path(folder, self.dice.kind)
        with self._lock:
            model = self.model
            if model is None or self.state not in ("learned", "saved"):
                raise Refused(
                    "nothing learned to save yet: every face needs its frames first",
                    "learning_not_learned",
                )
        try:
            model.save(path)
        except OSError as error:
            raise Refused(
                f"cannot write {path}: {error.strerror}", "learning_write", path=str(path)
            ) from None
        with self._lock:
            self.state, self.saved = "saved", path
        return path

    def cancel(self) -> None:
        """Stop taking or learning; the thread ends at its next frame."""
        self._stop.set()
        with self._lock:
            self.state, self.taking = "cancelled", None
        if self._show is not None:
            self._show(())

    def to_json(self) -> JSON:
        with self._lock:
            error = None
            if self.error is not None:
                text, key, params = self.error
                error = {"text": text, "key": key, "params": params}
            next_step = self._next()
            return {
                "kind": self.dice.kind,
                "state": self.state,
                "shots": SHOTS,
                "steps": [
                    {"face": s.face, "colour": s.colour, "taken": len(p)}
                    for s, p in zip(self.steps, self._photos, strict=True)
                ],
                "taking": self.taking,
                "next": next_step,
                "error": error,
                "accuracy": None
                if self.accuracy is None
                else {"face": self.accuracy[0], "colour": self.accuracy[1]},
                "saved": None if self.saved is None else str(self.saved),
            }

    def _next(self) -> int | None:
        """The first step without all its frames."""
        return next((i for i, p in enumerate(self._photos) if len(p) < SHOTS), None)

    # -- on the learning's thread ---------------------------------------------------------

    def _work(self, step: int) -> None:
        try:
            if self._take(step) and self._complete():
                self._learn()
        except Exception as error:  # said on the page, not lost in a thread
            log.exception("learning the %s dice", self.dice.kind)
            self._fail(f"learning failed: {error}", "learning_failed", reason=str(error))
        finally:
            if self._show is not None:
                self._show(())

    def _take(self, step: int) -> bool:
        """The frames of one step; False if cancelled or given up."""
        face, colour = self.steps[step].face, self.steps[step].colour
        if self._show is not None:
            self._show([(self.dice.faces.index(face) + 1, colour)])
        seen = time.monotonic()
        why = "none"
        while True:
            got = self._frames()
            photo = "camera" if got is None else die_photo(*got)
            if isinstance(photo, str):
                why = photo
            else:
                seen = time.monotonic()
                with self._lock:
                    if self.state != "taking":
                        return False
                    self._photos[step].append(photo)
                    if len(self._photos[step]) >= SHOTS:
                        self.state, self.taking = "ready", None
                        return True
            if time.monotonic() - seen > GIVE_UP_S:
                self._give_up(step, why)
                return False
            if self._stop.wait(SHOT_S):
                return False

    def _give_up(self, step: int, why: str) -> None:
        face = self.steps[step].face
        seconds = round(GIVE_UP_S)
        if why == "camera":
            self._fail(f"the camera gives no frame: {face} not taken", "learning_camera", face=face)
        elif why == "several":
            self._fail(
                f"several dice in the tray for {seconds} s: leave one die showing {face}",
                "learning_several",
                face=face,
                seconds=seconds,
            )
        else:
            self._fail(
                f"no die seen in the tray for {seconds} s: lay one die showing {face} there",
                "learning_no_die",
                face=face,
                seconds=seconds,
            )

    def _complete(self) -> bool:
        """Every step has its frames: learning starts (unless cancelled meanwhile)."""
        with self._lock:
            if self.state != "ready" or self._next() is not None:
                return False
            self.state = "learning"
            return True

    def _learn(self) -> None:
        samples = [
            (photo, step.face, step.colour)
            for step, photos in zip(self.steps, self._photos, strict=True)
            for photo in photos
        ]
        try:
            model, score = learn_and_score(self.dice, samples, VARIANTS, FOLDS_SCORED)
        except NoDieError as error:
            face = samples[error.index][1]
            self._fail(
                f"no die found in a frame of {face}: take {face} again", "learning_lost", face=face
            )
            return
        except ValueError as error:
            self._fail(str(error), "learning_failed", reason=str(error))
            return
        with self._lock:
            if self.state != "learning":
                return  # cancelled meanwhile
            self.model = model
            self.accuracy = (score.face_accuracy, score.colour_accuracy)
            self.state = "learned"
        log.info(
            "learned the %s dice from the camera: accuracy %.1f%%",
            self.dice.kind,
            100 * score.face_accuracy,
        )

    def _fail(self, text: str, key: str, **params: object) -> None:
        with self._lock:
            if self.state == "cancelled":
                return
            self.state, self.taking, self.error = "failed", None, (text, key, params)
        log.warning("learning the %s dice: %s", self.dice.kind, text)

    def close(self) -> None:
        """Stop the thread, and wait for it a moment (learning ends at its next step)."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout=1.0)
