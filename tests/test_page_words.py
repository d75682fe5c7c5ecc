"""Every message the table says (`Session.say`'s key) has the page's words for it in English and
in French (strings.js, words.js): a key without them is shown as the English sentence, to a
French player too."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "controller" / "web_static"
# say(text, "key", ...): the text may span lines and hold calls, the key is a literal.
SAID = re.compile(r"\.say\(\s*(?:[^,()]|\([^()]*\))+,\s*\"([a-z_0-9]+)\"", re.S)
PHRASED_APART = {"problem"}  # the rules' own problems: their template comes from the game's words


def page_keys(language: str) -> set[str]:
    """The `note_*` keys of one language in the page's catalogues."""
    keys: set[str] = set()
    strings = (STATIC / "strings.js").read_text(encoding="utf-8")
    start = strings.index(f"\n  {language}: {{")
    end = strings.find("\n  fr: {", start + 1) if language == "en" else len(strings)
    keys |= set(re.findall(r"^\s+(note_[a-z_0-9]+):", strings[start:end], re.M))
    words = (STATIC / "words.js").read_text(encoding="utf-8")
    block = words[words.index(f"Object.assign(STRINGS.{language}, {{") :]
    block = block[: block.index("\n});")]
    keys |= set(re.findall(r"^\s+(note_[a-z_0-9]+):", block, re.M))
    return keys


def said_keys() -> set[str]:
    keys: set[str] = set()
    for path in (ROOT / "controller").rglob("*.py"):
        keys |= set(SAID.findall(path.read_text(encoding="utf-8")))
    return keys - PHRASED_APART


def test_every_message_the_table_says_has_the_pages_words_in_both_languages() -> None:
    said = said_keys()
    assert len(said) > 25  # the scan finds the table's messages
    for language in ("en", "fr"):
        missing = sorted(key for key in said if f"note_{key}" not in page_keys(language))
        assert not missing, f"{language}: no words for {missing}"
