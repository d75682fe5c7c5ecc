"""`smartboard kit`: the printed pieces of a game whose board the camera reads as a map."""

from __future__ import annotations

import argparse
from pathlib import Path

from controller.cli.arguments import Commands, add_profile_choice, board_profile
from controller.cli.errors import EX_CONFIG, CommandError
from controller.rules import get_game
from hardware.profile import BoardProfile, ProfileError


def add_commands(commands: Commands) -> None:
    kit = commands.add_parser(
        "kit",
        help="write the printed pieces of a game whose map the camera reads, a PDF",
        description="Write every printed piece of a game whose map the camera reads (laid on the "
        "board, and on each other) on A4 pages, at the cell size of the board profile, each "
        "cell with its ArUco marker. Print at 100 % on card stock, check the 100 mm bar on the "
        "first page with a ruler, and cut on the lines.",
    )
    add_profile_choice(kit)
    kit.add_argument("--out", type=Path, required=True, metavar="FILE.pdf", help="the PDF to write")
    kit.set_defaults(command=_kit)


def cell_mm(profile: BoardProfile) -> float:
    """The side of the profile's cells: the kit is printed at it, so all must be one square."""
    sizes = {(region.w, region.h) for region in profile.camera_regions().values()}
    if len(sizes) != 1 or len({*next(iter(sizes))}) != 1:
        shown = ", ".join(f"{w:g} x {h:g} mm" for w, h in sorted(sizes)) or "none"
        raise CommandError(
            f"board profile {profile.source}: a kit is printed at one square cell size, and its "
            f"camera cells are {shown}",
            EX_CONFIG,
        )
    return next(iter(sizes))[0]


def _kit(args: argparse.Namespace) -> int:
    from controller.game_vision import map_kit
    from vision.map_kit import KitError
    from vision.map_sheet import write_map_sheet

    try:
        profile = board_profile(args)
    except ProfileError as error:
        raise CommandError(str(error), EX_CONFIG) from None
    game = get_game(profile.game)
    try:
        pieces = map_kit(game)
    except KitError as error:
        raise CommandError(str(error)) from None
    pitch = cell_mm(profile)
    try:
        pages = write_map_sheet(pieces, pitch, game.title, args.out)
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror}") from None
    except KitError as error:
        raise CommandError(f"board profile {profile.source}: {error}", EX_CONFIG) from None
    count = sum(piece.copies for piece in pieces)
    print(
        f"wrote the {game.title} map kit ({count} pieces, {pitch:g} mm cells) on {pages} pages "
        f"to {args.out}: print at 100 % on card stock, check the 100 mm bar with a ruler, then "
        "cut on the lines"
    )
    return 0
