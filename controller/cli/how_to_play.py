"""`smartboard how-to-play [GAME]`: a game's guide (controller/rules/guide.py), printed for a
terminal. No daemon is needed; without GAME, the running table's game is asked for."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

from controller.cli.arguments import Commands, add_state_dir
from controller.cli.errors import EX_USAGE, CommandError, failing
from controller.control import ControlError, request
from controller.paths import client_socket_path
from controller.rules import GAMES, get_game
from controller.rules.guide import LANGUAGES, guide

_ITEM = re.compile(r"(- |\d+\. )")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)
WIDTH = 88
"""The widest a line is printed, however wide the terminal: longer lines read badly."""


def add_commands(commands: Commands) -> None:
    command = commands.add_parser(
        "how-to-play",
        help="how to play a game, in English or French (no daemon needed)",
        description="Print a game's guide: its goal, set-up, a turn, its end, and how this "
        "table reads it.",
    )
    command.add_argument(
        "game",
        nargs="?",
        metavar="GAME",
        help=f"{', '.join(sorted(GAMES))} (default: the game on the running table)",
    )
    command.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="the language (default: French if $LANG says so, else English)",
    )
    add_state_dir(command)
    command.set_defaults(command=_how_to_play)


def _how_to_play(args: argparse.Namespace) -> int:
    lang = args.lang or _language()
    if args.game is None:
        text = _from_table(args.state_dir, lang)
    else:
        with failing(EX_USAGE, ValueError):
            text = guide(get_game(args.game).info, lang).text
    bold = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    width = min(WIDTH, shutil.get_terminal_size().columns - 1)
    print(render(text, width, bold), end="")
    return 0


def _language() -> str:
    """French if the locale's language is, else English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            return "fr" if value.startswith("fr") else "en"
    return "en"


def _from_table(state_dir: Path | None, lang: str) -> str:
    """The guide of the game on the running table."""
    try:
        reply = request(
            client_socket_path(state_dir), {"op": "guide", "lang": lang}, timeout=3.0, attempts=1
        )
    except ControlError:
        known = ", ".join(sorted(GAMES))
        raise CommandError(
            f"no table is running to say which game: name one ({known})", EX_USAGE
        ) from None
    if not reply.get("ok"):
        raise CommandError(str(reply.get("error", "refused")))
    return str(reply["guide"])


def render(markdown: str, width: int, bold: bool) -> str:
    """The guide's Markdown for a terminal: headings underlined, paragraphs and list items
    wrapped to `width` (an item's lines under its first word), **bold** as bold when `bold`."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", markdown.strip()):
        lines = block.splitlines()
        heading = re.match(r"(#{1,3}) (.*)", lines[0])
        if heading:
            title = _inline(heading[2], False)
            rule = "=" if len(heading[1]) == 1 else "-"
            out.append(_inline(f"**{title}**", bold) + "\n" + rule * len(title))
        elif _ITEM.match(lines[0]):
            out.append("\n".join(_item(item, width, bold) for item in _items(lines)))
        else:
            out.append(_wrap(" ".join(line.strip() for line in lines), width, "", "", bold))
    return "\n\n".join(out) + "\n"


def _items(lines: list[str]) -> list[str]:
    """A list block's items, each with its indented continuation lines joined to it."""
    items: list[str] = []
    for line in lines:
        if _ITEM.match(line) or not items:
            items.append(line.strip())
        else:
            items[-1] += " " + line.strip()
    return items


def _item(item: str, width: int, bold: bool) -> str:
    marker = _ITEM.match(item)
    assert marker is not None
    head = "  • " if marker[1] == "- " else f"  {marker[1]}"
    return _wrap(item[marker.end() :], width, head, " " * len(head), bold)


def _wrap(text: str, width: int, first: str, rest: str, bold: bool) -> str:
    wrapped = textwrap.fill(
        text, width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    )
    return _inline(wrapped, bold)


def _inline(text: str, bold: bool) -> str:
    """**bold** in bold (or plain), `code` plain."""
    text = text.replace("`", "")
    return _BOLD.sub(r"\033[1m\1\033[0m" if bold else r"\1", text)
