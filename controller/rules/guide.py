"""How to play each game, in the project's own words: a page per language, and for each phase of
the game a sentence or two on what the player does now, on the table.

A game's `GameType.guide` names its files in guides/: NAME.en.md and NAME.fr.md, Markdown that
reads as it is on GitHub, in the small subset that the terminal and the page render (headings,
paragraphs, lists, **bold**, `code`); and NAME.phases.toml, a table per value of the game's
"phase" detail with its help in each language. The rulebooks in ../shared are explained, never
copied: a page cites the clarification (AK-3, BV-5, ...) where our reading settles a gap;
the help of a phase, shown to players as they play, names none.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources

from controller.rules.game_type import GameType

LANGUAGES = ("en", "fr")

SECTIONS = {
    "en": ("Goal", "What you play with", "Setting up", "A turn", "How it ends", "On this table"),
    "fr": (
        "Le but",
        "Le matériel",
        "La mise en place",
        "Un tour",
        "La fin de la partie",
        "Sur cette table",
    ),
}
"""The second-level headings of every page, in this order."""


class GuideError(ValueError):
    """A guide that cannot be given: an unknown language, a game without one, a damaged file."""


@dataclass(frozen=True)
class Guide:
    """A game's page in one language, and the help of each of its phases in that language."""

    game: str
    title: str
    lang: str
    text: str
    phases: dict[str, str]

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "title": self.title,
            "lang": self.lang,
            "guide": self.text,
            "phases": self.phases,
        }


def guide(info: GameType, lang: str) -> Guide:
    """`info`'s guide in `lang`; a GuideError says why there is none."""
    if lang not in LANGUAGES:
        raise GuideError(f"no guides in {lang!r}; languages: {', '.join(LANGUAGES)}")
    if not info.guide:
        raise GuideError(f"{info.title} has no guide")
    title = info.title_fr if lang == "fr" else info.title
    return Guide(info.name, title, lang, _page(info.guide, lang), _phases(info.guide)[lang])


def _file(name: str) -> str:
    try:
        return (resources.files("controller.rules") / "guides" / name).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise GuideError(f"cannot read the guide {name}: {error}") from None


@functools.cache
def _page(name: str, lang: str) -> str:
    return _file(f"{name}.{lang}.md")


@functools.cache
def _phases(name: str) -> dict[str, dict[str, str]]:
    """Each language's help by phase; a phase without every language is an error."""
    try:
        table = tomllib.loads(_file(f"{name}.phases.toml"))
    except tomllib.TOMLDecodeError as error:
        raise GuideError(f"{name}.phases.toml is not valid TOML: {error}") from None
    found: dict[str, dict[str, str]] = {lang: {} for lang in LANGUAGES}
    for phase, helps in table.items():
        for lang in LANGUAGES:
            text = helps.get(lang) if isinstance(helps, dict) else None
            if not isinstance(text, str) or not text.strip():
                raise GuideError(f"{name}.phases.toml: phase {phase!r} has no {lang!r} help")
            # Lines joined; a no-break space (French "\u00a0:") is kept.
            found[lang][phase] = re.sub(r"[ \t\n]+", " ", text).strip()
    return found
