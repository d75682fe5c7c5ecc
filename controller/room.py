"""Linked tables (issue 25): one game played on several tables through an MQTT broker.

Each table owns some seats: it senses their moves and rolls, journals them as ever, and publishes
each action applied, numbered by its place in the history (its sequence number) with the digest
of the history before it, on a retained topic of its own (`smartboard/ROOM/game/ID/SEQ`), QoS 1.
A table that (re)connects is handed every action of the game by the broker, and the room's
retained state (game, options, length, digest). The other tables' actions are followed as a
computer seat's are (controller/computer.py): a decision lit for a hand to carry out, checked by
the sensors and blinking until it is (on a dashboard-only participant, `page_only`, applied at
once: there are no hands); a chance outcome applied as rolled there. With the room's option
`dice = "software"`, the table of the seat that rolls draws each chance outcome in software and
publishes it as any. An action comes once per sequence number: one seen again is a duplicate;
one that does not follow this table's history stops the exchange, "tables disagree", naming the
last action both have.

Every message is signed with the room's secret (HMAC-SHA256 over topic and body): a stranger on
the broker cannot act in the game; what fails the check, or cannot be read, is logged and
ignored. The table of seat 1 opens the room's game; the others join it if it is their game,
with their option for chance (controller/room_peers.py says what the players are told when a
table keeps out of it). A new game on a table leaves the room's game; the table of seat 1 opens
the next. This module runs in the daemon's loop alone; the broker's thread only queues what it
receives (controller/broker.py).
"""

from __future__ import annotations

import json
import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from controller.broker import Broker, LinkAddress
from controller.home_assistant import HomeAssistant
from controller.room_peers import (
    Alert,
    Peer,
    disagree_alert,
    misfit,
    moved_on_alert,
    peers_alert,
    reconnecting_alert,
    refusal_alert,
    same_seat_alert,
)
from controller.room_signing import WrongSecret, chain, claims_online, sign, verify
from controller.rules.api import JSON, Action, Game
from controller.session import Session
from controller.spectators import Spectators

log = logging.getLogger(__name__)

MAX_AHEAD = 4096
"""Actions held that came before those they follow (retained ones come in any order)."""
BINDING = "room.json"
"""In the state directory: the room's id of the game the journal holds."""

Roles = Callable[[Session, Action], dict[str, str]]
"""The lights of a move shown for a hand to carry out (`Computer.roles`)."""
Submit = Callable[..., None]
"""Puts a room event on the daemon's queue (`Events.on_room`)."""


class Room:
    """This table's part in a room: the seats it owns, the room's history as it knows it."""

    def __init__(
        self,
        address: LinkAddress,
        secret: str,
        seats: frozenset[int],
        state_dir: Path,
        submit: Submit,
        tls_ca: str | None = None,
        home_assistant: bool = False,
        dice: str = "table",
        page_only: bool = False,
        seed: int | None = None,
    ) -> None:
        self.address = address
        self.dice = dice  # where chance is rolled: "table", or "software"
        self.page_only = page_only  # no table: the others' moves are applied at once
        self._rng = random.Random(None if seed is None else f"room dice {seed}")
        self.secret = secret.encode()
        self.seats = seats  # seat indexes this table owns
        self.elsewhere: frozenset[int] = frozenset()  # set once the game's seats are known
        self.table = secrets.token_hex(4)
        self.root = f"smartboard/{address.room}"
        self._binding_path = state_dir / BINDING
        self.game_id: str | None = None
        self._bound_started: float | None = None
        self._read_binding()
        presence = f"{self.root}/table/{self.table}"
        self.broker = Broker(
            address,
            f"smartboard-{self.table}",
            lambda topic, payload, kept: submit("message", topic, payload, kept),
            lambda up, why: submit("link", up, why),
            tls_ca,
            will=(presence, sign(self.secret, presence, {"online": False})),
        )
        seated = "-".join(str(seat + 1) for seat in sorted(seats))

        def retained(topic: str, payload: bytes) -> None:
            self.broker.publish(topic, payload, retain=True)

        sensors = HomeAssistant(retained, self.root, address.room, seated)
        self.spectators = Spectators(
            retained, f"{self.root}/snapshot/{seated}", sensors if home_assistant else None
        )
        self.up = False
        self.was_up = False
        self.synced = False
        self._marker = 0
        self.known: list[JSON] = []  # the room's history, as far as this table knows it
        self._known_digests = [""]
        self._ahead: dict[int, JSON] = {}
        self.echoed: set[int] = set()  # sequence numbers the broker has handed back
        self._local: list[JSON] = []
        self._local_digests = [""]
        self._verified = 0
        self.room_state: JSON | None = None
        self.disagree: JSON | None = None
        self.refusal: JSON | None = None  # why this table keeps out of the room's game
        self.moved_on = False  # the table of seat 1 opened another game than the one played
        self._left: list[str] = []  # the room's games this table left for new ones
        self.peers: dict[str, Peer] = {}  # the other tables, by id
        # Each presence is numbered: one handed over again late (QoS 1) is not taken for news.
        self._announced = 0
        self._heard: dict[str, int] = {}  # the latest number of each other table's presence
        self.counts = dict.fromkeys(("published", "received", "duplicates", "refused"), 0)
        self._game: Game | None = None  # the game played, for naming its actions
        # Messages came signed with another secret since another table's last signed as this.
        self.foreign = False
        self._unreadable: set[str] = set()  # topics whose last message had another secret
        self._foreign_online: set[str] = set()  # presences so signed that say they are online

    def open(self) -> None:
        """Connect; a BrokerError names the broker that cannot be reached."""
        self.broker.connect()

    def close(self) -> None:
        self._announce(online=False)  # the last will says so only of a table lost
        self.broker.close()

    # -- the loop: what came --------------------------------------------------------------

    def on_event(self, event: tuple[object, ...], session: Session) -> None:
        kind = event[0]
        if kind == "link":
            self._link(bool(event[1]), str(event[2]))
        elif kind == "message":
            topic, payload, kept = event[1], event[2], event[3]
            assert isinstance(topic, str) and isinstance(payload, bytes)
            self._message(topic, payload, session, kept is True)

    def _link(self, up: bool, why: str) -> None:
        self.up, self.synced = up, False
        if not up:
            log.warning("link to %s lost (%s): reconnecting", self.address.where, why)
            return
        self.was_up = True
        self.spectators.reset()
        self.broker.subscribe(f"{self.root}/state")
        self.broker.subscribe(f"{self.root}/sync/{self.table}")
        self.broker.subscribe(f"{self.root}/table/+")
        self._announce()
        if self.game_id is not None:
            self.broker.subscribe(f"{self.root}/game/{self.game_id}/+")
        self._send_marker()

    def _announce(self, online: bool = True) -> None:
        """This table's presence: its seats, the room's game it plays, its option for chance,
        why it keeps out of the room's game, the game it left."""
        if not self.up:
            return  # said again once the link is up
        presence = f"{self.root}/table/{self.table}"
        self._announced += 1
        body = {
            "n": self._announced,
            "online": online,
            "seats": sorted(self.seats),
            "game_id": self.game_id,
            "dice": self.dice,
            "refused": None if self.refusal is None else self.refusal["why"],
            "left": self._left[-1] if self._left else None,
            "disagrees": self.disagree is not None,
        }
        self.broker.publish(presence, sign(self.secret, presence, body), retain=True)

    def _send_marker(self) -> None:
        """Once this comes back, the broker has handed over every retained message before it."""
        self._marker += 1
        topic = f"{self.root}/sync/{self.table}"
        self.broker.publish(topic, sign(self.secret, topic, {"marker": self._marker}))

    def _message(self, topic: str, payload: bytes, session: Session, kept: bool = False) -> None:
        try:
            body = verify(self.secret, topic, payload)
            self._unreadable.discard(topic)
            sender = topic.rpartition("/")[2] if "/table/" in topic else body.get("by")
            if not kept and sender not in (None, self.table) and self.foreign:
                self._foreign_gone()  # another table signs as this one does
            if topic == f"{self.root}/sync/{self.table}":
                if body.get("marker") == self._marker:
                    self._marker_back(session)
            elif topic == f"{self.root}/state":
                self._state(body, session)
            elif topic.startswith(f"{self.root}/game/"):
                self._action(topic, body)
            elif topic.startswith(f"{self.root}/table/"):
                table = topic.rpartition("/")[2]
                number = body.get("n")  # none in a last will: the latest news, whenever it comes
                if table != self.table and (
                    type(number) is not int or number > self._heard.get(table, 0)
                ):
                    known = self.peers.get(table)
                    if "seats" not in body and known is not None:
                        # A last will says only that the table is gone: its seats and game stay
                        # those it announced, so that the others can say whose moves wait.
                        self.peers[table] = replace(known, online=False)
                    else:
                        self.peers[table] = Peer.of(body)
                    if type(number) is int:
                        self._heard[table] = number
                    # Its opener may be back. (The table of seat 1 opens the room's game: it
                    # joins none, and a game left on the broker is no refusal of it.)
                    if self.game_id is None and self.room_state is not None and 0 not in self.seats:
                        self._consider(self.room_state, session)
        except (ValueError, KeyError, TypeError) as error:
            self.counts["refused"] += 1
            log.warning("room %s: ignored a message on %s: %s", self.address.room, topic, error)
            if isinstance(error, WrongSecret):
                self._wrongly_signed(topic, payload, kept)

    def _wrongly_signed(self, topic: str, payload: bytes, kept: bool) -> None:
        """A message signed with another secret: a table of the room now, given another, whose
        players and this table's would wait for each other's moves, each told all is well. (A
        message the broker kept may be an evening's with an older secret: not told, unless it
        is the presence of a table still online.) Once the tables so keyed have gone, this
        table carries on: opens the room's game if it is seat 1's, writes what it holds back."""
        self._unreadable.add(topic)
        presence = "/table/" in topic
        online = presence and claims_online(payload)
        if online:
            self._foreign_online.add(topic)
        else:
            self._foreign_online.discard(topic)
        if not self.foreign and (not kept or online):
            self.foreign = True
            # Said once to that table too, live: what it had of this one came kept, from
            # before it connected, and counts for nothing there.
            self._announce()
        elif self.foreign and presence and not self._foreign_online:
            self._foreign_gone()  # its last will

    def _foreign_gone(self) -> None:
        """No table keyed otherwise is left: the room's game, held back, may be opened, and
        what was held back written."""
        self.foreign = False
        self._send_marker()

    def _state(self, body: JSON, session: Session) -> None:
        if not isinstance(body.get("game_id"), str) or not isinstance(body.get("length"), int):
            raise ValueError("a room state with no game id or length")
        if body.get("by") == self.table:
            return
        self.room_state = body
        if self.game_id is not None and body["game_id"] != self.game_id:
            # The table of seat 1 opened another game: this one is left to this table.
            self.moved_on = self.moved_on or body.get("opener") is True
        elif 0 not in self.seats or self.game_id is not None:
            self._consider(body, session)

    def _consider(self, state: JSON, session: Session) -> None:
        """Join the room's game that `state` names, or its game already joined, if this table
        can play it; else keep out of it, saying why."""
        if state["game_id"] in self._left:
            return  # the game this table left for a new one
        game, options = session.game.name, dict(session.state.options)
        refusal = misfit(state, game, options, self.dice)
        if refusal != self.refusal:
            self.refusal = refusal
            if refusal is not None:
                log.error("room %s: %s", self.address.room, refusal_alert(refusal, game)[0])
            self._announce()
        if refusal is None and self.game_id is None and self._opened_by_seat_1(state["game_id"]):
            self._bind(state["game_id"], session)

    def _opened_by_seat_1(self, game_id: str) -> bool:
        """The table of seat 1 is in the room and plays `game_id`: the game left on the broker
        by an earlier evening's tables is not joined by a table started afresh."""
        return any(
            peer.online and 1 in peer.seats and peer.game_id == game_id
            for peer in self.peers.values()
        )

    def _marker_back(self, session: Session) -> None:
        if self.game_id is None:
            if 0 in self.seats and not self.foreign:
                # The table of seat 1 opens the room's game (not over that of tables keyed
                # otherwise, still in the room).
                self._bind(secrets.token_hex(6), session)
            elif self.room_state is not None:
                self._consider(self.room_state, session)  # it came before: a game left since
            return  # the others wait for the room's state to name it
        self.synced = True
        # What this table published that the broker never handed back (sent as the link fell).
        for seq in range(len(self.known)):
            if seq not in self.echoed:
                self._publish(seq)

    def _bind(self, game_id: str, session: Session) -> None:
        self.game_id = game_id
        self._bound_started = session.journal.started
        binding = {"room": self.address.room, "game_id": game_id, "started": self._bound_started}
        self._binding_path.write_text(json.dumps(binding))
        log.info("room %s: playing game %s", self.address.room, game_id)
        self.broker.subscribe(f"{self.root}/game/{game_id}/+")
        self._publish_state(session)
        self._announce()
        self._send_marker()

    def _action(self, topic: str, body: JSON) -> None:
        parts = topic.split("/")
        if len(parts) != 5 or parts[3] != self.game_id:
            return  # another game of the room's
        seq, action, before = body["seq"], body["action"], body["prev"]
        if type(seq) is not int or str(seq) != parts[4] or not isinstance(action, dict):
            raise ValueError(f"a sequence number {seq!r} not that of its topic")
        if seq < len(self.known):
            self.echoed.add(seq)
            if chain(self._known_digests[seq], action) != self._known_digests[seq + 1]:
                self._disagree(seq, self.known[seq], action)
            elif body.get("by") != self.table:
                self.counts["duplicates"] += 1
            return
        if seq > len(self.known):
            if len(self._ahead) < MAX_AHEAD:
                self._ahead[seq] = body
            return
        if before != self._known_digests[-1]:
            self._disagree(seq, None, action)
            return
        self._append(action)
        self.echoed.add(seq)
        self.counts["received"] += 1
        following = self._ahead.pop(seq + 1, None)
        if following is not None:
            self._action(f"{self.root}/game/{self.game_id}/{seq + 1}", following)

    def _append(self, action: JSON) -> None:
        self.known.append(action)
        self._known_digests.append(chain(self._known_digests[-1], action))

    # -- the loop: each turn --------------------------------------------------------------

    def step(self, session: Session, roles: Roles, now: float) -> bool:
        """Publish what this table applied, follow what the others did; whether a move of
        theirs was shown or made just now."""
        self._game = session.game
        if self.game_id is not None and session.journal.started != self._bound_started:
            log.warning("room %s: a new game here leaves the room's game", self.address.room)
            self._leave()
        if self.game_id is None and self.refusal is not None and self.room_state is not None:
            # Kept out of the room's game: a new game here may be it (the walk: a table stayed
            # refused after starting the very game it was told to start).
            self._consider(self.room_state, session)
        if self._out:
            return False
        self._mirror(session)
        common = min(len(self._local), len(self.known))
        for seq in range(self._verified, common):
            if self._local_digests[seq + 1] != self._known_digests[seq + 1]:
                self._disagree(seq, self._local[seq], self.known[seq])
                return False
        self._verified = common
        if not self.synced:
            return False
        if len(self._local) > len(self.known):
            for action in self._local[len(self.known) :]:
                self._append(action)
                self._publish(len(self.known) - 1)
            self._publish_state(session)
            return False
        if len(self._local) < len(self.known):
            return self._follow(session, roles, now)
        return self._draw(session, now)

    def due(self, session: Session) -> bool:
        """The next step has work at once: an action of this table's to publish, one of the
        room's to follow that is not lit waiting for hands, or a roll to draw."""
        if not self.synced or self._out:
            return False
        played, known = len(session.state.actions()), len(self.known)
        if played < known and session.shown is not None:
            return False
        return played != known or self._to_draw(session)

    @property
    def _out(self) -> bool:
        """Out of the room's exchange: the tables disagree, this one keeps out of the room's
        game, or the room moved on to another."""
        return self.disagree is not None or self.refusal is not None or self.moved_on

    def _to_draw(self, session: Session) -> bool:
        """With chance in software, a roll of a seat this table plays is due."""
        state = session.state
        return self.dice == "software" and state.is_chance_node() and not session.rolled_elsewhere()

    def owes(self, session: Session) -> bool:
        """Actions applied here that the room has not been sent yet."""
        return self.game_id is not None and len(session.state.actions()) > len(self.known)

    def _draw(self, session: Session, now: float) -> bool:
        """With chance in software, a roll of a seat this table plays: drawn from the rules'
        outcomes at their odds, applied, and published at the next step."""
        if not self._to_draw(session):
            return False
        outcomes, odds = zip(*session.state.chance_outcomes(), strict=True)
        session.apply_elsewhere(self._rng.choices(outcomes, odds)[0], now, drawn=True)
        return True

    def _mirror(self, session: Session) -> None:
        """The local history and its digests, kept up with the session's."""
        count = len(session.state.actions())
        if count < len(self._local):
            del self._local[count:], self._local_digests[count + 1 :]
            self._verified = min(self._verified, count)
        if count > len(self._local):
            for action in session.state.history()[len(self._local) :]:
                self._local.append(action)
                self._local_digests.append(chain(self._local_digests[-1], action))

    def _follow(self, session: Session, roles: Roles, now: float) -> bool:
        """The next action of the room's that this table has not: lit for the hands, or
        applied (a chance outcome, or a move no sensor sees); refused if it cannot be this
        table's next."""
        seq = len(self._local)
        given = self.known[seq]
        state, game = session.state, session.game
        try:
            action = game.action_from_json(given)
        except (ValueError, KeyError, TypeError) as error:
            return self._refuse(seq, f"unreadable action {given!r}: {error}")
        if state.is_terminal():
            return self._refuse(seq, f"{action.id} after the end of the game")
        if state.is_chance_node():
            if not session.rolled_elsewhere():
                return self._refuse(seq, f"{action.id} rolled for a seat this table plays")
            if action not in [outcome for outcome, _ in state.chance_outcomes()]:
                return self._refuse(seq, f"{action.id} is no outcome of this roll")
            session.apply_elsewhere(action, now)
            return True
        seat = state.current_player()
        player = state.player_name(seat)
        if seat in self.seats:
            return self._refuse(seq, f"{action.id} played for {player}, who plays here")
        if action not in session.legal_actions():
            return self._refuse(seq, f"{action.id} is not legal here")
        if self.page_only:
            # No hands to carry it out: the page shows the board as the game has it.
            session.show(action, {}, only=True)
        elif session.shown == action:
            return False
        else:
            session.show(action, roles(session, action), only=True)
        if self.page_only or not session.changes(action):
            session.act(action.id, now)
            said = f"{session.called(player)} (another table) played {session.words([action.id])}"
            session.say(said, "remote_played", player=player, actions=[action.id])
        else:
            said = f"{session.called(player)} (another table) plays {session.words([action.id])}: "
            said += "carry it out as lit"
            session.say(said, "remote_move", player=player, actions=[action.id])
        return True

    def _refuse(self, seq: int, why: str) -> bool:
        log.error("room %s: action %d refused: %s", self.address.room, seq, why)
        self._disagree(seq, None, self.known[seq])
        return False

    def _disagree(self, seq: int, ours: JSON | None, theirs: JSON) -> None:
        """The room's action `seq` does not follow this table's history: the exchange stops."""
        if self.disagree is not None:
            return
        last = self._local[seq - 1] if 0 < seq <= len(self._local) else None
        self.disagree = {
            "seq": seq,
            "last_common": None if last is None else self._named(last),
            "ours": None if ours is None else self._named(ours),
            "theirs": self._named(theirs),
        }
        log.error("room %s: the tables disagree at action %d: %s", self.address.room, seq, self)
        self._announce()  # for the other tables to say it too

    def _leave(self) -> None:
        if self.game_id is not None:
            self._left.append(self.game_id)
        self.game_id, self.refusal, self.moved_on = None, None, False
        self.known, self._known_digests, self._ahead = [], [""], {}
        self.echoed, self._verified, self.disagree = set(), 0, None
        self._local, self._local_digests = [], [""]
        if self.up:
            self._announce()
            self._send_marker()

    def _publish(self, seq: int) -> None:
        topic = f"{self.root}/game/{self.game_id}/{seq}"
        body = {
            "game_id": self.game_id,
            "seq": seq,
            "action": self.known[seq],
            "prev": self._known_digests[seq],
            "by": self.table,
        }
        if self._retain(topic, body):
            self.counts["published"] += 1

    def _publish_state(self, session: Session) -> None:
        topic = f"{self.root}/state"
        body = {
            "game_id": self.game_id,
            "game": session.game.name,
            "options": dict(session.state.options),
            "length": len(self.known),
            "digest": self._known_digests[-1],
            "dice": self.dice,
            "opener": 0 in self.seats,
            "by": self.table,
        }
        self._retain(topic, body)

    def _retain(self, topic: str, body: JSON) -> bool:
        """Publish a message for the broker to keep; not over one signed with another secret
        while a table so keyed is in the room: which of the two is wrong, only the players can
        tell (the walk: a table restarted with a wrong secret wrote its history over the room's).
        Whether it was sent."""
        if self.foreign and topic in self._unreadable:
            log.warning("room %s: %s not sent over another secret's", self.address.room, topic)
            return False
        self.broker.publish(topic, sign(self.secret, topic, body), retain=True)
        return True

    def _read_binding(self) -> None:
        try:
            binding = json.loads(self._binding_path.read_text())
        except (OSError, ValueError):
            return
        if isinstance(binding, dict) and binding.get("room") == self.address.room:
            game_id, started = binding.get("game_id"), binding.get("started")
            if isinstance(game_id, str) and isinstance(started, int | float):
                self.game_id, self._bound_started = game_id, float(started)

    # -- what the table shows -------------------------------------------------------------

    @property
    def status(self) -> str:
        if self.disagree is not None:
            return "disagree"
        if self.refusal is not None:
            return "refused"
        if self.moved_on:
            return "moved_on"
        if not self.up:
            return "reconnecting" if self.was_up else "connecting"
        if self.game_id is None:
            return "waiting"
        return "playing" if self.synced else "catching_up"

    def to_json(self, rolled_elsewhere: bool = False) -> JSON:
        """The snapshot's `room`; `rolled_elsewhere`: the roll awaited is made at another table
        (`Session.rolled_elsewhere`), so the page offers none to enter."""
        return {
            "room": self.address.room,
            "broker": self.address.where,
            "state": self.status,
            "game_id": self.game_id,
            "seats": sorted(seat + 1 for seat in self.seats),
            "elsewhere": sorted(seat + 1 for seat in self.elsewhere),
            "length": len(self.known),
            **self.counts,
            "disagree": self.disagree,
            "refusal": self.refusal,
            "moved_on": self.moved_on,
            "dice": self.dice,
            "page_only": self.page_only,
            "rolled_elsewhere": rolled_elsewhere,
            "tables": [peer.to_json() for peer in self.peers.values() if peer.online],
        }

    def trouble(self, game: str, over: bool = False) -> Alert | None:
        """An alert: the tables disagree, the broker is out of reach, or the tables do not play
        the same game of the room (`game`: this table's; `over`: its game has ended, and no
        table gone is waited for)."""
        # A table kept out of the game (or one of them) plays no seat: no clash with it.
        same = None if self.refusal is not None else same_seat_alert(self.peers, self.seats)
        if same is not None:
            return same
        if self.disagree is not None:
            return disagree_alert(self.disagree)
        if self.status == "reconnecting":
            return reconnecting_alert(self.address.where)
        if self.refusal is not None:
            return refusal_alert(self.refusal, game)
        if self.moved_on:
            return moved_on_alert()
        if self.foreign:
            return (
                "messages come to this room signed with another secret: another table was given "
                "another --link-secret, and neither hears the other's moves; start it again "
                "with this table's",
                "room_foreign_secret",
                {},
            )
        return peers_alert(self.peers, self.game_id, self.seats, over)

    def __str__(self) -> str:
        return json.dumps(self.disagree)

    def _named(self, action: JSON) -> str:
        """An action by its id, or as it came if the game cannot read it."""
        try:
            assert self._game is not None
            return self._game.action_from_json(action).id
        except (AssertionError, ValueError, KeyError, TypeError):
            return json.dumps(action)[:80]
