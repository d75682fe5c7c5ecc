"""Who may reach the dashboard: the address it listens on and the token it asks for.

Apart from the web server, so that the config can check its `[web]` section without it.
"""

from __future__ import annotations

import ipaddress
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


# Documentation addresses (RFC 5737, RFC 3849): the route towards them is the way out of this
# machine, and a UDP socket connected there has the address it leaves by, with no packet sent.
_OUTSIDE = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}


def reachable_hosts(host: str, *, by_name: bool = False) -> list[str]:
    """The hosts at which a browser reaches a server that listens on `host`: `host` itself,
    unless it is a wildcard (0.0.0.0, ::), which stands for every address of this machine in its
    family. Then the one its traffic goes out by comes first, with (`by_name`) the addresses of its
    host name after it; loopback and link-local ones are left out, unless there is no other."""
    try:
        wildcard = ipaddress.ip_address(host)
    except ValueError:  # a host name
        return [host]
    if not wildcard.is_unspecified:
        return [host]
    family = socket.AF_INET if wildcard.version == 4 else socket.AF_INET6
    found = [_outgoing_address(family)]
    if by_name:
        # Start-up only: the name may be looked up in DNS, not to be waited for on the loop.
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None, family, socket.SOCK_STREAM)
        except OSError:
            infos = []
        found += [str(info[4][0]) for info in infos]
    hosts = [address for address in dict.fromkeys(found) if address and _outward(address)]
    return hosts or ["127.0.0.1" if family == socket.AF_INET else "::1"]


def _outward(address: str) -> bool:
    """Reachable from another machine: loopback is not, nor link-local without its interface."""
    ip = ipaddress.ip_address(address)
    return not (ip.is_loopback or ip.is_link_local)


def _outgoing_address(family: socket.AddressFamily) -> str | None:
    """The address of this machine that its traffic out goes from; None with no route out."""
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((_OUTSIDE[family], 9))
            return str(probe.getsockname()[0])
    except OSError:
        return None


def check_token(token: str) -> None:
    """A configured token is long enough to resist guessing and fits in a URL."""
    if len(token) < 16 or not all(c.isalnum() or c in "-_" for c in token):
        raise ValueError("the token must be at least 16 letters, digits, '-' or '_'")
