"""The Baron Voodoo and Hostile Takeover engines still play as they did before they were made
faster (issue 24): seeded random games hash to the digests that the engines of commit fda95bd
gave.

Each digest covers, at every step of a few dozen games per configuration, the player to move,
the legal action ids in order (or the chance outcomes and their odds), the action drawn, and at
the end the returns and the result; now and then a clone is played on a few steps and hashed
too. Any change of behaviour, even of the order of a listing, changes a digest: a change of rule
must come with its new digest, worked out on purpose.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import Any

import pytest

from controller.rules.api import Game, GameState
from controller.rules.takeover import GAME as TAKEOVER
from controller.rules.voodoo import GAME as VOODOO

CLONE_EVERY = 40  # steps between two clones played on
CLONE_STEPS = 3


def _step(state: GameState, rng: random.Random, out: Any) -> None:
    """Hash the state's choices and play one drawn at random."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        out.update(repr([(a.id, p) for a, p in outcomes]).encode())
        action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    else:
        legal = state.legal_actions()
        out.update(f"{state.current_player()}:{'|'.join(a.id for a in legal)}".encode())
        action = rng.choice(legal)
    out.update(action.id.encode())
    state.apply(action)


def digest(game: Game, options: Mapping[str, Any], games: int, seed: int) -> str:
    out = hashlib.sha256()
    for k in range(games):
        rng = random.Random(seed * 1000 + k)
        state = game.new_initial_state(options)
        steps = 0
        while not state.is_terminal():
            if steps % CLONE_EVERY == CLONE_EVERY - 1:
                clone = state.clone()
                for _ in range(CLONE_STEPS):
                    if not clone.is_terminal():
                        _step(clone, rng, out)
            _step(state, rng, out)
            steps += 1
        out.update(repr(state.returns()).encode())
        out.update(json.dumps(game.result(state), sort_keys=True).encode())
    return out.hexdigest()


# (name, game, options, games, seed)
CASES: list[tuple[str, Game, dict[str, Any], int, int]] = [
    ("voodoo-2", VOODOO, {"players": 2}, 20, 1),
    ("voodoo-3", VOODOO, {"players": 3}, 20, 2),
    ("voodoo-4", VOODOO, {"players": 4}, 20, 3),
    ("voodoo-teams", VOODOO, {"teams": True}, 20, 4),
    ("voodoo-2-place", VOODOO, {"players": 2, "setup": "place"}, 6, 5),
    ("voodoo-4-place", VOODOO, {"players": 4, "setup": "place"}, 6, 6),
    ("takeover-2", TAKEOVER, {"players": 2}, 8, 7),
    ("takeover-3", TAKEOVER, {"players": 3}, 6, 8),
    ("takeover-4", TAKEOVER, {"players": 4}, 6, 9),
]

# Worked out with the engines before they were made faster.
DIGESTS = {
    "voodoo-2": "585bd0eebb024884c314f4c3b520083f74c977abfeed8b23b5b1d4e005b8e2e2",
    "voodoo-3": "8f38e0881d269c9571de35423cabb4baef45b19393c5911ce13b2f3ff284e3b4",
    "voodoo-4": "f48ff80f639d5af6eb3eeecab1e08ed1f0e631e907102da99bf38a55a8de706f",
    "voodoo-teams": "1b65886ac2514a959625a171753f64445d0444b9871fb7df9329a654457d3704",
    "voodoo-2-place": "0fc04be59cb8de350522c8e9f5994e98aca2916e961b20203444cda6428ccc21",
    "voodoo-4-place": "f1e7c65224a1c4a6ab5f4d9d72bd3d7a095d10c71e97c077f529148b31c5423c",
    "takeover-2": "160e535114b81eab2b3eb234d6ac17fb38bbce04c0ea455d4a028e889173b61a",
    "takeover-3": "fb252f94f4b709949acd5c4176bee284a7dab689158fb52dc471369c37392818",
    "takeover-4": "dc905d7a2d1581f41009ad4adfec734dbacf2267a85940b8a1c2d83acf390cf8",
}


@pytest.mark.parametrize(
    ("name", "game", "options", "games", "seed"), CASES, ids=[case[0] for case in CASES]
)
def test_seeded_random_games_play_as_before(
    name: str, game: Game, options: Mapping[str, Any], games: int, seed: int
) -> None:
    assert digest(game, options, games, seed) == DIGESTS[name]
