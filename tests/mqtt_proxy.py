"""A faulty network between MQTT clients and a broker, for the linked-table tests (issue 25):
a TCP proxy that reads the MQTT packets going both ways and, at random (seeded), sends a
PUBLISH twice (QoS 1 is "at least once": a broker or a client may hand a message over again)
or holds one back until the packet after it has gone (messages of several topics in another
order). Every other packet (CONNECT, SUBSCRIBE, acknowledgements) passes as it came."""

from __future__ import annotations

import contextlib
import random
import socket
import threading

PUBLISH = 3
HOLD_S = 0.03
"""A packet held back goes anyway when nothing follows it for this long."""


def _packets(buffer: bytearray) -> list[bytes]:
    """The whole MQTT packets at the start of `buffer`, taken out of it."""
    packets = []
    while len(buffer) >= 2:
        length, shift, at = 0, 0, 1
        while True:
            if at >= len(buffer):
                return packets  # the remaining length is not all there yet
            byte = buffer[at]
            length |= (byte & 0x7F) << shift
            shift, at = shift + 7, at + 1
            if not byte & 0x80:
                break
        if len(buffer) < at + length:
            return packets
        packets.append(bytes(buffer[: at + length]))
        del buffer[: at + length]
    return packets


class FaultyProxy:
    """Listens on `port` of the loopback and carries each connection to the broker's
    `upstream` port, duplicating (`duplicate`) and reordering (`hold`) PUBLISH packets."""

    def __init__(self, upstream: int, seed: int, duplicate: float = 0.2, hold: float = 0.2) -> None:
        self.upstream = upstream
        self.rng = random.Random(seed)
        self.duplicate, self.hold = duplicate, hold
        self.counts = {"duplicated": 0, "reordered": 0}
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            broker = socket.create_connection(("127.0.0.1", self.upstream))
            for sock in (client, broker):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._sockets += [client, broker]
            threading.Thread(target=self._pump, args=(client, broker), daemon=True).start()
            threading.Thread(target=self._pump, args=(broker, client), daemon=True).start()

    def _roll(self, chance: float, count: str) -> bool:
        with self._lock:
            if self.rng.random() >= chance:
                return False
            self.counts[count] += 1
            return True

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        buffer = bytearray()
        held: bytes | None = None
        source.settimeout(HOLD_S)
        try:
            while True:
                try:
                    data = source.recv(65536)
                except TimeoutError:
                    if held is not None:
                        sink.sendall(held)
                        held = None
                    continue
                if not data:
                    break
                buffer += data
                for packet in _packets(buffer):
                    out = packet
                    if packet[0] >> 4 == PUBLISH:
                        if held is None and self._roll(self.hold, "reordered"):
                            held = packet
                            continue
                        if self._roll(self.duplicate, "duplicated"):
                            out = packet + packet
                    if held is not None:
                        out, held = out + held, None
                    sink.sendall(out)
        except OSError:
            pass  # either end went away: so does the other
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._server.close()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.close()
