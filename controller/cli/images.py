"""The photos a command reads: each that opens, the others named and counted as failed."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from vision.image_files import Image


class Reading(Protocol):
    """What a reader finds in a photo: a die, a card."""

    def to_json(self) -> Mapping[str, object]: ...


Found = TypeVar("Found", bound=Reading)


def add_images(command: argparse.ArgumentParser, json_help: str) -> None:
    """The photos to read, and --json for one line of what was found in each."""
    command.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    command.add_argument("--json", action="store_true", help=json_help)


def readable(
    paths: list[Path], key: str, as_json: bool, failed: list[Path]
) -> Iterator[tuple[Path, Image]]:
    """Each image that can be read, in order; the others are named on stderr (with --json, a
    line `{"image": PATH, KEY: [], "error": WHY}` too) and added to `failed`."""
    from vision.image_files import read_images  # OpenCV, for the commands that read photos

    for path, image in read_images(paths):
        if isinstance(image, str):
            failed.append(path)
            print(f"smartboard: cannot read {path}: {image}", file=sys.stderr)
            if as_json:
                print(json.dumps({"image": str(path), key: [], "error": image}))
            continue
        yield path, image


def read_each(
    args: argparse.Namespace,
    key: str,
    read: Callable[[Image], list[Found]],
    text: Callable[[Found], str],
    nouns: tuple[str, str],
    then: Callable[[Path, Image, list[Found]], bool] | None = None,
) -> int:
    """Read each of `args.images`, printing what was found: with --json a line
    `{"image": PATH, KEY: [...]}`, else a line of each one's `text` after their count, one of
    `nouns` (one, several). `then` does more with a photo and says if it could. The exit status:
    1 if a photo could not be read or `then` could not, else 0."""
    failed: list[Path] = []
    for path, image in readable(args.images, key, args.json, failed):
        found = read(image)
        if args.json:
            print(json.dumps({"image": str(path), key: [f.to_json() for f in found]}))
        else:
            noun = nouns[0] if len(found) == 1 else nouns[1]
            print(f"{path}: {len(found)} {noun}: {', '.join(map(text, found)) or '-'}")
        if then is not None and not then(path, image, found):
            failed.append(path)
    sys.stdout.flush()
    return 1 if failed else 0
