"""The tables of a room as one table sees them (controller/room.py), and the alerts its players
are shown about the room. Each table announces itself on a retained topic of its own
(`smartboard/ROOM/table/ID`, its last will saying it went offline): the seats it plays, the
room's game it plays, where it rolls chance, why it keeps out of the room's game if it does, the
game it left. The players of each table are told when the tables do not play the same game (a
new game started on one of them, another game, another option for chance), and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules.api import JSON

Alert = tuple[str, str, dict[str, object]]
"""An alert of the dashboard's: its sentence, its key in the page's catalogue, its parameters."""


@dataclass(frozen=True)
class Peer:
    """Another table of the room, as its latest presence message has it."""

    seats: tuple[int, ...]  # seat numbers from 1
    online: bool
    game_id: str | None
    refused: str | None  # why it keeps out of the room's game: "dice" or "game"
    left: str | None  # the room's game it left for a new game of its own
    disagrees: bool = False  # its game stopped: the room's moves do not follow its own

    @classmethod
    def of(cls, body: JSON) -> Peer:
        seats, game_id, refused = body.get("seats", []), body.get("game_id"), body.get("refused")
        if not isinstance(seats, list) or not all(type(seat) is int for seat in seats):
            raise ValueError(f"a presence with seats {seats!r}")
        left = body.get("left")
        return cls(
            tuple(seat + 1 for seat in seats),
            body.get("online") is True,
            game_id if isinstance(game_id, str) else None,
            refused if refused in ("dice", "game") else None,
            left if isinstance(left, str) else None,
            body.get("disagrees") is True,
        )

    @property
    def named(self) -> str:
        return ", ".join(map(str, self.seats))

    def to_json(self) -> JSON:
        return {
            "seats": list(self.seats),
            "online": self.online,
            "game_id": self.game_id,
            "refused": self.refused,
            "left": self.left,
            "disagrees": self.disagrees,
        }


def misfit(state: JSON, game: str, options: JSON, dice: str) -> JSON | None:
    """Why this table cannot play the room's game that `state` announces: another option for
    chance (the tables would not agree who reads what), or another game or options; None if
    it can."""
    theirs = state.get("dice", "table")
    if theirs != dice:
        return {"why": "dice", "room": theirs, "here": dice}
    if state.get("game") != game or state.get("options") != options:
        return {"why": "game", "room": state.get("game"), "options": state.get("options")}
    return None


def refusal_alert(refusal: JSON, game: str) -> Alert:
    """The alert of a table that keeps out of the room's game, and what to do about it."""
    if refusal["why"] == "dice":
        room, here = refusal["room"], refusal["here"]
        return (
            f"this table cannot join the room's game: the room rolls chance {DICE_WORDS[room]} "
            f"and this table {DICE_WORDS[here]}; start it again with --link-dice {room}",
            "room_dice_differ",
            {"room": room, "here": here},
        )
    room_game, options = refusal["room"], refusal["options"]
    # As the command line takes them, not a Python dict: --option loas= --option players=3.
    said = " ".join(f"{key}={value}" for key, value in (options or {}).items()) or "no options"
    return (
        f"this table cannot join the room's game: the room plays {room_game} ({said}), this "
        f"table {game}; start a new game of {room_game} with those options to join it",
        "room_game_differs",
        {"room": room_game, "here": game},
    )


DICE_WORDS = {"table": "on the tables", "software": "in software"}


def same_seat_alert(peers: dict[str, Peer], own: frozenset[int]) -> Alert | None:
    """Another table, online, that plays a seat of this one's: each would take the other's
    moves of it for its own (the walk: two tables started with --seats 1 said nothing until
    their boards disagreed). Said before whatever follows from it."""
    mine = {seat + 1 for seat in own}
    for peer in peers.values():
        both = sorted(mine & set(peer.seats))
        if peer.online and peer.refused is None and both:
            seats = ", ".join(map(str, both))
            return (
                f"seat {seats} is played at another table too: start one of them again with "
                "other --seats",
                "peer_same_seat",
                {"seats": seats},
            )
    return None


def peers_alert(
    peers: dict[str, Peer], game_id: str | None, own: frozenset[int], over: bool
) -> Alert | None:
    """The first other table, online, that does not play this table's game of the room; else
    the seats of this game whose table is gone."""
    if game_id is None:
        return None
    for peer in peers.values():
        if peer.online and peer.game_id == game_id and peer.disagrees:
            # Said here too: the table that found it stopped, this one would play on alone.
            return (
                f"the table of seat {peer.named} found that the tables disagree, and stopped: "
                "compare the two boards, then start a new game",
                "peer_disagrees",
                {"seats": peer.named},
            )
        if not peer.online or (peer.game_id == game_id and peer.refused is None):
            continue
        if peer.refused == "dice":
            return (
                f"the table of seat {peer.named} cannot join this game: it rolls chance "
                "another way (--link-dice); it must be started again with this room's",
                "peer_dice_differ",
                {"seats": peer.named},
            )
        if peer.refused == "game":
            return (
                f"the table of seat {peer.named} cannot join this game: it has another game "
                "or options; a new game of this one started there joins it",
                "peer_game_differs",
                {"seats": peer.named},
            )
        if peer.left == game_id and peer.game_id is not None:
            return moved_on_alert()  # it opened the room's next game
        if peer.left == game_id:
            return (
                f"the table of seat {peer.named} left this game for a new one: start a new "
                "game here too to play it together",
                "peer_left",
                {"seats": peer.named},
            )
        if peer.game_id is None:
            return (
                f"the table of seat {peer.named} has not joined this game yet",
                "peer_joining",
                {"seats": peer.named},
            )
        return (
            f"the table of seat {peer.named} still plays the room's previous game: a new "
            "game started there joins this one",
            "peer_behind",
            {"seats": peer.named},
        )
    # A table of this game gone (stopped, or its link lost: its last will), that no table has
    # taken the place of: its moves wait for it (a restarted table is a new one, online; this
    # one's own earlier run, gone, is no other table). Once the game is over, none is waited for.
    if over:
        return None
    playing = {
        s for peer in peers.values() if peer.online and peer.game_id == game_id for s in peer.seats
    }
    gone = {
        s
        for peer in peers.values()
        if not peer.online and peer.game_id == game_id
        for s in peer.seats
    }
    away = gone - playing - {seat + 1 for seat in own}
    if away:
        named = ", ".join(map(str, sorted(away)))
        return (
            f"the table of seat {named} is not connected to the room: its moves come when it is "
            "back, and a restart there joins this game again",
            "peer_away",
            {"seats": named},
        )
    return None


def disagree_alert(disagree: JSON) -> Alert:
    """The room's action `disagree["seq"]` does not follow this table's history."""
    last = disagree["last_common"] or "the start of the game"
    theirs = disagree["theirs"]
    return (
        f"the tables disagree: the room's action {disagree['seq'] + 1} ({theirs}) does not "
        f"follow this table's game; the last action both have is {last}",
        "tables_disagree",
        # The page names the actions in its language: `last` null is the start of the game.
        {"seq": disagree["seq"] + 1, "last": disagree["last_common"], "theirs": theirs},
    )


def reconnecting_alert(broker: str) -> Alert:
    return (
        f"the link to the other tables is down (broker {broker}): reconnecting; the game here "
        "is kept",
        "room_reconnecting",
        {"broker": broker},
    )


def moved_on_alert() -> Alert:
    """This table still plays a game the room has left: another table started a new one."""
    return (
        "another table started a new game in the room: start a new game here too (New game) "
        "to join it; this game is no longer played there",
        "room_moved_on",
        {},
    )
