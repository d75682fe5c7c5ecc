"""The messages of a room of linked tables (controller/room.py): each signed with the room's
secret, HMAC-SHA256 over topic and body, so that a stranger on the broker cannot act in the
game; and the digest of a history, that tells whether two tables' histories are the same."""

from __future__ import annotations

import hashlib
import hmac
import json

from controller.rules.api import JSON

MAX_PAYLOAD = 65536
"""Bytes a message may have: an action or the room's state is far smaller."""


def sign(secret: bytes, topic: str, body: JSON) -> bytes:
    """A message: its body and the HMAC of topic and body with the room's secret."""
    text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    mac = hmac.new(secret, f"{topic}\n{text}".encode(), hashlib.sha256).hexdigest()
    return json.dumps({"body": text, "hmac": mac}).encode()


class WrongSecret(ValueError):
    """A message not signed with this room's secret: a stranger's, or a table given another."""


def verify(secret: bytes, topic: str, payload: bytes) -> JSON:
    """The body of a message signed with `secret` for `topic`; a ValueError says why not."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"{len(payload)} bytes, more than {MAX_PAYLOAD}")
    try:
        envelope = json.loads(payload)
    except (ValueError, RecursionError):
        raise ValueError("not JSON") from None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("body"), str):
        raise ValueError("no body")
    mac = envelope.get("hmac")
    good = hmac.new(secret, f"{topic}\n{envelope['body']}".encode(), hashlib.sha256).hexdigest()
    if not isinstance(mac, str) or not hmac.compare_digest(mac, good):
        raise WrongSecret("missing or wrong HMAC: not signed with this room's secret")
    try:
        body = json.loads(envelope["body"])
    except (ValueError, RecursionError):
        raise ValueError("a body that is not JSON") from None
    if not isinstance(body, dict):
        raise ValueError("a body that is not an object")
    return body


def claims_online(payload: bytes) -> bool:
    """Whether a table's presence says it is online, read without the check of `verify`: only
    ever to hold back, never to act on what it says."""
    try:
        body = json.loads(json.loads(payload)["body"])
    except (ValueError, RecursionError, TypeError, KeyError):
        return False
    return isinstance(body, dict) and body.get("online") is True


def chain(before: str, action: JSON) -> str:
    """The digest of a history: that of the history before its last action, and the action."""
    text = json.dumps(action, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(f"{before}\n{text}".encode()).hexdigest()[:32]
