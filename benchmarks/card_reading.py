"""The card reader on simulated photos of printed card sheets: share read, wrong ids, time.

Each photo is a random page (faces or backs) of a game's `smartboard cards sheet`, seen as a
camera over the table would (tests/card_photos.py): 2.2-4 px/mm, any rotation, perspective,
uneven light and a shadow, two finger-like blobs each over one marker of a card, blur, noise and
JPEG. Targets (issue 7): at least 99.5 % of cards read, no wrong id. `ms_per_photo` is the
reader alone, on one core, the photo already decoded.

Run: .venv/bin/python benchmarks/card_reading.py [--photos 300] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import cv2
from card_photos import Score, photograph

from vision.card_reader import CardReader
from vision.card_sheet import sheet_layout, sheet_pages

GAMES = ("potions", "mightymania", "akuma")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    sheets = {game: (sheet_pages(game), sheet_layout(game)) for game in GAMES}
    reader = CardReader()
    rng = random.Random(args.seed)
    totals = {game: Score() for game in GAMES}
    seconds: list[float] = []
    for n in range(args.photos):
        game = GAMES[n % len(GAMES)]
        pages, layout = sheets[game]
        page = rng.randrange(len(pages))
        photo = photograph(pages[page], layout[page], rng)
        start = time.perf_counter()
        seen = reader.read(photo.image)
        seconds.append(time.perf_counter() - start)
        totals[game].add(photo, seen)
    cards = sum(s.cards for s in totals.values())
    read = sum(s.read for s in totals.values())
    wrong = sum(s.wrong for s in totals.values())
    seconds.sort()
    result = {
        "photos": args.photos,
        "cards": cards,
        "read_share": round(read / cards, 5),
        "wrong": wrong,
        "ms_per_photo": round(1000 * sum(seconds) / len(seconds), 1),
        "ms_p95": round(1000 * seconds[int(0.95 * (len(seconds) - 1))], 1),
        "per_game": {
            game: {"cards": s.cards, "read": s.read, "wrong": s.wrong} for game, s in totals.items()
        },
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.photos} photos, {cards} cards: {100 * read / cards:.2f} % read, "
            f"{wrong} wrong; {result['ms_per_photo']} ms a photo (p95 {result['ms_p95']} ms)"
        )
        for game, s in totals.items():
            print(f"  {game}: {s.read}/{s.cards} read, {s.wrong} wrong")
    return 0 if read >= 0.995 * cards and wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
