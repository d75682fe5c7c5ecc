"""A request the table cannot take now, said in English for the CLI and logs, and as a key with
its values for the page to say in the player's language."""

from __future__ import annotations


class Refused(ValueError):
    def __init__(self, text: str, key: str, **params: object) -> None:
        super().__init__(text)
        self.key = key
        self.params = params
