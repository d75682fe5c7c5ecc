"""The printed map kit of a board the camera reads cell by cell, and the markers of its pieces.

A game that builds its board from printed pieces (laid on the board, and on each other) declares
them once; the daemon hands them here as plain `Piece`s. Every cell of every piece carries a
marker of its own, printed upright with the piece: one marker seen gives the piece, which of its
cells it is and how the piece is turned, so a piece stays readable while a pawn or a hand covers
the rest.

Marker ids are stable: the pieces keep their declared order and piece k's cells take the ids
after those of pieces 0..k-1, in reading order. The markers are 6x6 ArUco markers, a family of
their own: the table's 4x4 calibration markers and the cards' 5x5 ones are never read as them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2

DICTIONARY = cv2.aruco.DICT_6X6_50
DICTIONARY_SIZE = 50
# A cell's marker as a share of the cell's side, centred on the cell: large enough to read at
# the camera's distance (20 mm in a 30 mm cell), with white paper around it for the detector
# and a border of the piece's colour for the players.
MARKER_SHARE = 2 / 3
QUIET_SHARE = 1 / 15


def dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


class KitError(ValueError):
    """Pieces whose markers cannot be told apart: more than the dictionary holds."""


@dataclass(frozen=True)
class Piece:
    """A printed piece: the token the camera reports on each cell it covers, its size in cells
    as printed (width, height), its printed ground (BGR) and label, how many a kit prints, its
    layer (0 on the board, 1 on a piece of layer 0), the id of its first cell's marker, and its
    title, printed along it for the players."""

    token: str
    cells: tuple[int, int]
    colour: tuple[int, int, int]
    label: str
    copies: int
    layer: int
    first_marker: int
    title: str = ""

    def marker(self, col: int, row: int) -> int:
        """The marker id of the piece's cell `col`, `row` (as printed, from its top-left)."""
        return self.first_marker + row * self.cells[0] + col


def number_markers(pieces: Sequence[Piece]) -> dict[int, tuple[Piece, int, int]]:
    """Every marker id of `pieces` -> (piece, col, row); KitError if they overlap or overflow."""
    table: dict[int, tuple[Piece, int, int]] = {}
    for piece in pieces:
        width, height = piece.cells
        for row in range(height):
            for col in range(width):
                marker = piece.marker(col, row)
                if marker in table or not 0 <= marker < DICTIONARY_SIZE:
                    raise KitError(
                        f"piece {piece.token!r}: marker {marker} is taken or beyond the "
                        f"{DICTIONARY_SIZE} of the kit's dictionary"
                    )
                table[marker] = (piece, col, row)
    return table
