"""Who may reach the dashboard: the address it listens on and the token it asks for.

Apart from the web server, so that the config can check its `[web]` section without it.
"""

from __future__ import annotations

import socket


def parse_listen(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6), or a bare `PORT` on 127.0.0.1."""
    host, sep, port_text = text.strip().rpartition(":")
    if not sep:
        host = "127.0.0.1"
    host = host.removeprefix("[").removesuffix("]")
    if not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"listen address must be HOST:PORT, such as 127.0.0.1:8080, not {text!r}")
    return host, int(port_text)


class UnresolvableError(ValueError):
    """A listen address whose host does not resolve; `lasting` unless the resolver said to try
    again (a network not up yet at boot, say)."""

    def __init__(self, message: str, lasting: bool) -> None:
        super().__init__(message)
        self.lasting = lasting


def resolve_listen(text: str) -> None:
    """Check, at start-up, that the host of a `HOST:PORT` resolves to an address to listen on."""
    host, port = parse_listen(text)
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        lasting = error.errno != socket.EAI_AGAIN
        later = "" if lasting else " for now (a restart will try again)"
        raise UnresolvableError(
            f"the host {host!r} of listen address {text!r} does not resolve{later}: "
            f"{error.strerror}",
            lasting,
        ) from None


def check_token(token: str) -> None:
    """A configured token is long enough to resist guessing and fits in a URL."""
    if len(token) < 16 or not all(c.isalnum() or c in "-_" for c in token):
        raise ValueError("the token must be at least 16 letters, digits, '-' or '_'")
