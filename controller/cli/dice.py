"""`smartboard dice`: the camera's dice readers on photos, and the learning of icon dice."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.arguments import CONFIG_HELP, Commands, add_state_dir, read_config
from controller.cli.errors import EX_USAGE, CommandError, failing
from controller.cli.images import add_images, read_each, readable
from controller.paths import default_state_dir
from controller.rules import icon_dice
from controller.rules.game_type import IconDice
from vision.choices import VIEWS

if TYPE_CHECKING:
    from vision.die import Die
    from vision.image_files import Image

DICE = ("die", "dice")


def add_commands(commands: Commands) -> None:
    dice = commands.add_parser("dice", help="the camera's dice reader, on photos")
    dice_sub = dice.add_subparsers(required=True, metavar="ACTION")
    read = dice_sub.add_parser(
        "read",
        help="read the pip dice (d6) in photos",
        description="Read every d6 in each photo: its value, its box in pixels and a confidence. "
        "Dice below the config's dice.min_confidence would not be applied to a game.",
    )
    add_images(
        read,
        'one line per image: {"image": PATH, "dice": [{"value": V, "box": [x, y, w, h], '
        '"confidence": C}]}',
    )
    read.add_argument(
        "--overlay",
        type=Path,
        metavar="DIR",
        help="also write each image into DIR with the boxes and values drawn on it",
    )
    read.add_argument(
        "--view",
        choices=VIEWS,
        help="top: straight down over a tray; oblique: at an angle; auto: a square photo is a "
        "top view (default: the config's dice.view)",
    )
    read.add_argument("--config", type=Path, metavar="FILE", help=CONFIG_HELP)
    read.add_argument(
        "--kind",
        choices=("d6", *icon_dice()),
        default="d6",
        help="the dice to read: d6 (pips, the default) or a kind learned by `dice learn`; "
        'then each die is {"face": F, "colour": C or null, "box": [x, y, w, h], "confidence": C}',
    )
    read.add_argument(
        "--model",
        type=Path,
        metavar="FILE",
        help="the learned model of --kind (default: the one `dice learn` saved in the state "
        "directory)",
    )
    add_state_dir(read)
    read.set_defaults(command=_dice_read)
    learn = dice_sub.add_parser(
        "learn",
        help="learn the user's icon dice or d12 from photos of them",
        description="Learn one kind of dice from photos of one die each, roughly in the middle, "
        "each face shown in 3 photos at least (5-10 is better), on the tray's surface. The face "
        "(and a soul die's colour) comes from the file name: among its words, cut at - _ . or "
        "spaces, "
        + "; ".join(f"{kind} dice need {_accepted_names(d)}" for kind, d in icon_dice().items())
        + " (venom_3.jpg, red-steal-2.png, d12_11_a.jpg; not d12.jpg nor IMG_0012.jpg). Photos "
        "whose names say nothing are asked about when run in a terminal. Prints the photos per "
        "face and the accuracy on each photo learned without it, and writes the model.",
    )
    learn.add_argument("--kind", required=True, choices=list(icon_dice()))
    learn.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="where to write the model (default: icon-model-KIND.npz in the state directory, "
        "where the daemon looks)",
    )
    add_state_dir(learn)
    learn.add_argument(
        "photos",
        nargs="+",
        type=Path,
        metavar="PHOTO",
        help="a photo of one die, its face (and colour) named in its file name, as above",
    )
    learn.set_defaults(command=_dice_learn)
    stats = dice_sub.add_parser(
        "stats",
        help="are your dice fair? each face's count and a chi-square test, from the games played",
        description="Count the faces of every roll of real dice the table's games recorded (read "
        "by the camera, confirmed, corrected or typed in; not those the software rolled), per "
        "game, kind of dice and die, and test each tally against fair dice (Pearson's "
        "chi-square). A warning is given only on strong evidence (p < 0.01) over enough rolls.",
    )
    add_state_dir(stats)
    stats.add_argument("--json", action="store_true", help="print one JSON list of tallies")
    stats.set_defaults(command=_dice_stats)


def _dice_read(args: argparse.Namespace) -> int:
    config = read_config(args.config)
    if args.kind != "d6":
        return _icon_dice_read(args)
    import cv2

    from vision.dice_reader import DiceReader, draw_dice

    reader = DiceReader(args.view or config.dice_view)
    if args.overlay is not None:
        args.overlay.mkdir(parents=True, exist_ok=True)

    def overlay(path: Path, image: Image, dice: list[Die]) -> bool:
        """The photo with its dice drawn on it, written into --overlay."""
        drawn = draw_dice(image, dice, config.dice_min_confidence)
        out = args.overlay / path.name
        if out.resolve() == path.resolve():
            raise CommandError(f"--overlay would write over {path}: name another folder", EX_USAGE)
        if not cv2.imwrite(str(out), drawn):
            print(f"smartboard: cannot write {out}", file=sys.stderr)
            return False
        return True

    return read_each(
        args,
        "dice",
        reader.read,
        lambda d: f"{d.value} ({d.confidence:.2f})",
        DICE,
        None if args.overlay is None else overlay,
    )


def _icon_dice_read(args: argparse.Namespace) -> int:
    from vision.icon_dice import IconModel, IconModelError, IconReader, model_path

    if args.overlay is not None:
        raise CommandError("--overlay draws d6 readings only", EX_USAGE)
    path = args.model or model_path(args.state_dir or default_state_dir(), args.kind)
    with failing(1, IconModelError):
        reader = IconReader(IconModel.load(path, icon_dice()[args.kind]))
    return read_each(
        args,
        "dice",
        reader.read,
        lambda d: f"{' '.join(filter(None, (d.colour, d.face)))} ({d.confidence:.2f})",
        DICE,
    )


def _dice_learn(args: argparse.Namespace) -> int:
    from vision.icon_dice import (
        NoDieError,
        label_of,
        learn_and_score,
        model_path,
    )

    dice = icon_dice()[args.kind]
    failed: list[Path] = []
    photos = list(readable(args.photos, "dice", False, failed))
    if failed:
        return 1
    labels = [label_of(path.name, dice) for path, _ in photos]
    colours = dice.colours
    unlabelled = [
        path
        for (path, _), (face, colour) in zip(photos, labels, strict=True)
        if face is None or (colours is not None and colour is None)
    ]
    if unlabelled and not sys.stdin.isatty():
        raise CommandError(
            f"these photos' names give no {dice.kind} face"
            + (" and colour" if colours else "")
            + ": "
            + ", ".join(map(str, unlabelled))
            + f"; name them like {_label_example(dice)}, with {_accepted_names(dice)} among "
            "words cut at - _ . or spaces, or run in a terminal to be asked",
            EX_USAGE,
        )
    samples = []
    for (path, image), (face, colour) in zip(photos, labels, strict=True):
        if face is None:
            face = _ask(f"face of {path}", dice.faces)
        if colours is not None and colour is None:
            colour = _ask(f"colour of {path}", colours)
        samples.append((image, face, colour))
    try:
        model, score = learn_and_score(dice, samples)
    except NoDieError as error:
        raise CommandError(f"{photos[error.index][0]}: {error}") from None
    except ValueError as error:
        raise CommandError(str(error)) from None
    out = args.out or model_path(args.state_dir or default_state_dir(), dice.kind)
    try:
        model.save(out)
    except OSError as error:
        raise CommandError(f"cannot write {out}: {error.strerror}") from None
    print(f"learned the {dice.kind} die from {len(samples)} photos:")
    print("  photos per face: " + ", ".join(f"{f} {n}" for f, n in score.faces.items()))
    if score.colours is not None:
        print("  photos per colour: " + ", ".join(f"{c} {n}" for c, n in score.colours.items()))
    accuracy = (
        "  cross-validated accuracy (each photo read by a model learned without it): "
        f"face {score.face_accuracy:.1%}"
    )
    if score.colour_accuracy is not None:
        accuracy += f", colour {score.colour_accuracy:.1%}"
    print(accuracy)
    print(f"model written to {out}")
    return 0


def _label_example(dice: IconDice) -> str:
    """A photo's name that `label_of` reads: a face (and a colour), then anything."""
    face = dice.faces[-1].replace("_", "-")
    return f"{dice.colours[0]}-{face}-a.png" if dice.colours else f"{face}_a.jpg"


def _accepted_names(dice: IconDice) -> str:
    """What `label_of` looks for in a photo's name: for the help, and for a name it cannot read."""
    if all(face.isdigit() for face in dice.faces):
        faces = f"a face from {dice.faces[0]} to {dice.faces[-1]} (no leading zero)"
    else:
        faces = "one face of " + ", ".join(face.replace("_", "-") for face in dice.faces)
    return faces + (f" and one colour of {', '.join(dice.colours)}" if dice.colours else "")


def _ask(question: str, choices: Sequence[str]) -> str:
    """One of `choices`, typed by name or by number at the terminal."""
    listing = "  ".join(f"{i}) {c}" for i, c in enumerate(choices, 1))
    while True:
        answer = input(f"{question}? {listing}\n> ").strip().lower()
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        if answer in choices:
            return answer
        print(f"one of: {', '.join(choices)}")


def _dice_stats(args: argparse.Namespace) -> int:
    import json

    from controller.dice_stats import tallies

    found = tallies(args.state_dir or default_state_dir())
    if args.json:
        print(json.dumps([tally.to_json() for tally in found]))
        return 0
    if not found:
        print("no rolls of real dice recorded yet")
        return 0
    for tally in found:
        shown = zip(tally.faces, tally.counts, strict=True)
        counts = "  ".join(f"{face}: {n}" for face, n in shown)
        verdict = tally.verdict()
        mark = "!" if verdict["warn"] else " "
        print(f"{mark} {tally.game}: {verdict['text']}\n    {counts}")
    return 0
