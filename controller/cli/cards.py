"""`smartboard cards`: the card games' printable cards, and the card reader on photos."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.arguments import Commands, add_profile_choice, board_profile
from controller.cli.errors import EX_CONFIG, EX_USAGE, CommandError
from controller.cli.images import add_images, read_each
from controller.rules import card_games, get_game
from hardware.profile import ProfileError

if TYPE_CHECKING:
    from vision.image_files import Image


def add_commands(commands: Commands) -> None:
    cards = commands.add_parser(
        "cards", help="the card games' printable cards, and the card reader"
    )
    cards_sub = cards.add_subparsers(required=True, metavar="ACTION")
    sheet = cards_sub.add_parser(
        "sheet",
        help="write a game's cards on A4 pages with cut marks, a PDF to print double-sided",
        description="Write a game's cards (63 x 88 mm) on A4 pages: faces, each with its id's "
        "ArUco markers, then their backs, all with the one back marker. Print double-sided at "
        "100 % (flip on the long edge) and cut at the marks.",
    )
    sheet.add_argument("--game", required=True, choices=card_games())
    sheet.add_argument(
        "--out", type=Path, required=True, metavar="FILE.pdf", help="the PDF to write"
    )
    sheet.set_defaults(command=_cards_sheet)
    listing = cards_sub.add_parser("list", help="list a game's cards: ids, faces and markers")
    listing.add_argument("--game", required=True, choices=card_games())
    listing.add_argument("--json", action="store_true", help="print one JSON list of objects")
    listing.set_defaults(command=_cards_list)
    cards_read = cards_sub.add_parser(
        "read",
        help="read the cards in photos: ids, face up or down, corners",
        description="Find every card in each photo by its ArUco markers: its id (null face "
        "down), its corners in pixels and a confidence. With --calibration, each card is also "
        "placed in the board profile's slot holding its centre.",
    )
    add_images(
        cards_read,
        'one line per image: {"image": PATH, "cards": [{"id": ID, "face": "up"|"down", '
        '"corners": [[x, y], ...], "confidence": C}]}',
    )
    cards_read.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="a calibration.json from `smartboard calibrate`: add each card's slot, from the "
        "profile of --game, --profile or the config",
    )
    add_profile_choice(cards_read)
    cards_read.set_defaults(command=_cards_read)


def _cards_sheet(args: argparse.Namespace) -> int:
    from controller.game_vision import deck
    from vision.card_sheet import write_card_sheet

    game = get_game(args.game)
    try:
        pages = write_card_sheet(deck(game), game.title, args.out)
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror}") from None
    print(
        f"wrote the {args.game} cards on {pages} pages to {args.out}: print double-sided at "
        "100 % (flip on the long edge), then cut at the marks"
    )
    return 0


def _cards_list(args: argparse.Namespace) -> int:
    from controller.game_vision import deck

    cards = [card.to_json() for card in deck(get_game(args.game))]
    if args.json:
        print(json.dumps(cards))
    else:
        for card in cards:
            lines = ", ".join(map(str, card["lines"]))  # type: ignore[call-overload]
            print(f"{card['id']}: {card['title']} ({lines}) markers {card['markers']}")
    return 0


def _cards_read(args: argparse.Namespace) -> int:
    from controller.game_vision import all_cards, deck
    from vision.calibration import Calibration, CalibrationError
    from vision.card_deck import CardDeckError
    from vision.card_reader import CardReader, SeenCard, place_in_slots

    calibration: Calibration | None = None
    regions: dict[str, Any] = {}
    try:
        cards = all_cards() if args.game is None else deck(get_game(args.game))
        if args.calibration is not None:
            calibration = Calibration.load(args.calibration)
            regions = dict(board_profile(args).camera_regions())
    except CardDeckError as error:
        raise CommandError(str(error), EX_USAGE) from None
    except (ProfileError, CalibrationError) as error:
        raise CommandError(str(error), EX_CONFIG) from None
    except OSError as error:
        raise CommandError(f"cannot read {error.filename}: {error.strerror}") from None
    reader = CardReader(cards)

    def read(image: Image) -> list[SeenCard]:
        seen = reader.read(image)
        return seen if calibration is None else place_in_slots(seen, calibration, regions)

    return read_each(
        args,
        "cards",
        read,
        lambda c: f"{c.id or 'back'}{f' in {c.slot}' if c.slot else ''} ({c.confidence:.2f})",
        ("card", "cards"),
    )
