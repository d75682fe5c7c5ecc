"""A request the table cannot take now, said in English for the CLI and logs, and as a key with
its values for the page to say in the player's language; and the legal moves it names."""

from __future__ import annotations

import difflib


class Refused(ValueError):
    def __init__(self, text: str, key: str, **params: object) -> None:
        super().__init__(text)
        self.key = key
        self.params = params


NEAREST = 8
"""How many legal ids a refusal names: a position may have over a thousand."""


def nearest(wanted: str, legal: list[str]) -> str:
    """The legal ids, or when there are many, the nearest to `wanted` (spelled alike, then of its
    kind, the part before ":", then any) with the count and kinds of them all: one line."""
    if len(legal) <= 2 * NEAREST:
        return f"legal: {', '.join(legal) or 'none'}"
    kind = wanted.partition(":")[0]
    alike = difflib.get_close_matches(wanted, legal, n=NEAREST, cutoff=0.5)
    shown = list(dict.fromkeys([*alike, *(i for i in legal if i.partition(":")[0] == kind)]))
    shown += [i for i in legal[: 2 * NEAREST] if i not in shown]
    kinds = ", ".join(dict.fromkeys(i.partition(":")[0] for i in legal))
    return (
        f"nearest legal: {', '.join(shown[:NEAREST])} ({NEAREST} of {len(legal)}, of kinds "
        f"{kinds}: `smartboard actions` lists them)"
    )
