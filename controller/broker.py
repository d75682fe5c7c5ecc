"""The connection of linked tables to their MQTT broker (paho-mqtt): an outgoing client, so that
nothing new listens on the network. paho's own thread reads and reconnects; what comes is handed
on as events, for the daemon's loop alone to act on (controller/room.py)."""

from __future__ import annotations

import logging
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

log = logging.getLogger(__name__)

ROOM_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
CONNECT_S = 5.0
"""How long start-up waits for the broker to accept the connection."""
KEEPALIVE_S = 15
"""How often an idle connection is checked: a dropped one is noticed within 1.5 times this."""
CLOSE_S = 3.0
"""How long closing waits for the broker to acknowledge what was sent."""


class BrokerError(RuntimeError):
    """The broker cannot be reached, or refused this table: said with its host and port."""


@dataclass(frozen=True)
class LinkAddress:
    """`mqtt://[USER:PASS@]HOST[:PORT]/ROOM` (or `mqtts://`, TLS, port 8883 by default)."""

    host: str
    port: int
    room: str
    username: str | None = None
    password: str | None = None
    tls: bool = False

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"

    def __str__(self) -> str:
        """Without the password: it goes into logs and the snapshot."""
        scheme = "mqtts" if self.tls else "mqtt"
        user = f"{self.username}@" if self.username else ""
        return f"{scheme}://{user}{self.where}/{self.room}"


def parse_link(url: str) -> LinkAddress:
    """The broker and room of a `--link` URL; a ValueError says what is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ValueError(f"a link is mqtt://[USER:PASS@]HOST[:PORT]/ROOM, not {url!r}")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{url!r}: the port must be a number in 1..65535") from None
    if not parts.hostname:
        raise ValueError(f"{url!r} names no broker host")
    room = parts.path.removeprefix("/")
    if not ROOM_NAME.fullmatch(room) or parts.query or parts.fragment:
        raise ValueError(
            f"{url!r}: the room is one name of letters, digits, - and _ (64 at most) after the "
            "host, as in mqtt://broker.local/kitchen"
        )
    tls = parts.scheme == "mqtts"
    return LinkAddress(
        host=parts.hostname,
        port=port or (8883 if tls else 1883),
        room=room,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        tls=tls,
    )


Received = Callable[[str, bytes, bool], None]
"""Handed each message: its topic, its payload, and whether the broker kept it (retained, from
before this connection) (on paho's thread)."""
Connected = Callable[[bool, str], None]
"""Handed each change of the connection: up or not, and why (on paho's thread)."""


class Broker:
    """One client connection to the broker, reconnecting by itself once made."""

    def __init__(
        self,
        address: LinkAddress,
        client_id: str,
        received: Received,
        connected: Connected,
        tls_ca: str | None = None,
        will: tuple[str, bytes] | None = None,
    ) -> None:
        self.address = address
        self._received = received
        self._connected = connected
        self._first: threading.Event = threading.Event()
        self._refused: str | None = None
        self._dropped = False  # the broker closed the connection before accepting it
        self._tls_ca = tls_ca
        self._sent: list[mqtt.MQTTMessageInfo] = []  # publications the broker may not have yet
        client = self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id)
        if address.username is not None:
            client.username_pw_set(address.username, address.password)
        if address.tls or tls_ca:
            try:
                client.tls_set(ca_certs=tls_ca or None)
            except (OSError, ValueError) as error:
                unread = isinstance(error, OSError) and not isinstance(error, ssl.SSLError)
                what = "cannot be read" if unread else "holds no PEM certificate"
                why = getattr(error, "strerror", None) or error
                raise BrokerError(f"[link] tls_ca {tls_ca} {what} ({why})") from None
        if will is not None:
            client.will_set(will[0], will[1], qos=1, retain=True)
        client.reconnect_delay_set(1, 30)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_socket_open = self._on_socket_open

    def connect(self, timeout: float = CONNECT_S) -> None:
        """Connect, and wait for the broker to accept: a BrokerError says why not."""
        where = self.address.where
        try:
            self.client.connect(self.address.host, self.address.port, KEEPALIVE_S)
        except ssl.SSLCertVerificationError as error:
            raise BrokerError(self._untrusted(error)) from None
        except OSError as error:
            hint = ""
            if self.address.tls and isinstance(error, (ConnectionResetError, ssl.SSLError)):
                hint = " (a listener without TLS? then the link is mqtt://)"
            raise BrokerError(
                f"cannot reach the MQTT broker at {where}: {error.strerror or error}{hint}"
            ) from None
        self.client.loop_start()
        if not self._first.wait(timeout):
            self.close()
            if self._dropped and not self.address.tls:
                raise BrokerError(
                    f"the MQTT broker at {where} closed the connection without answering: "
                    "if it listens with TLS, the link is mqtts://"
                )
            raise BrokerError(f"the MQTT broker at {where} did not answer in {timeout:g} s")
        if self._refused is not None:
            self.close()
            raise BrokerError(f"the MQTT broker at {where} refused this table: {self._refused}")

    def _untrusted(self, error: ssl.SSLCertVerificationError) -> str:
        """Why the broker's certificate was not trusted, and what to give instead."""
        said = f"the MQTT broker at {self.address.where} is not trusted: its certificate "
        reason = str(error.verify_message or error.reason or error)
        if "mismatch" in reason.lower():  # the hostname, or the IP address
            return said + (
                f"is not for {self.address.host!r}: the link must name the broker as its "
                "certificate does (its subjectAltName)"
            )
        if self._tls_ca is None:
            return said + (
                f"was signed by no authority this system trusts ({reason}): give [link] tls_ca "
                "the certificate of the authority that signed it"
            )
        return said + f"was not signed by [link] tls_ca {self._tls_ca} ({reason})"

    def subscribe(self, topic: str) -> None:
        self.client.subscribe(topic, qos=1)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """Sent at QoS 1: paho keeps it until the broker has it, across a reconnection."""
        self._sent = [info for info in self._sent if not info.is_published()]
        self._sent.append(self.client.publish(topic, payload, qos=1, retain=retain))

    def close(self) -> None:
        """Disconnect once the broker has what was sent (a game's last move), or in a few
        seconds if it is out of reach."""
        deadline = time.monotonic() + CLOSE_S
        for info in self._sent:
            left = deadline - time.monotonic()
            if left <= 0 or not self.client.is_connected():
                break
            try:
                info.wait_for_publish(left)
            except (RuntimeError, ValueError):
                break  # never to be sent: the connection is gone
        self.client.disconnect()
        self.client.loop_stop()

    # -- paho's thread --------------------------------------------------------------------

    def _on_connect(
        self, client: mqtt.Client, userdata: object, flags: object, reason: object, props: object
    ) -> None:
        failed = bool(getattr(reason, "is_failure", False))
        if failed and not self._first.is_set():
            self._refused = str(reason)
        self._first.set()
        if failed:
            log.warning("the MQTT broker at %s refused this table: %s", self.address.where, reason)
            return
        self._connected(True, "connected")

    def _on_disconnect(
        self, client: mqtt.Client, userdata: object, flags: object, reason: object, props: object
    ) -> None:
        if not self._first.is_set():
            self._dropped = True
        self._connected(False, str(reason))

    def _on_socket_open(self, client: mqtt.Client, userdata: object, sock: object) -> None:
        """Small messages sent at once: with Nagle's algorithm, one sent while the last is not
        yet acknowledged waits for the peer's delayed ACK (up to 40 ms)."""
        if isinstance(sock, socket.socket):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        self._received(message.topic, bytes(message.payload), bool(message.retain))
