"""A control request on its way to the daemon's loop, from the socket or the page: parsed within
bounds, identified, and answered at most once.

A request is one JSON object `{"op": NAME, "request_id": ID, ...}`. Its id, chosen by the client
(a random word), lets a
retry after a time-out get the first reply instead of applying the request again (the loop keeps
the replies of the changing ops by id, `Answered`). A request that waited in the loop's queue too
long is not applied at all, so a server that gives up on the loop can say "unknown" with a
clear conscience: the client retries with the same id, or checks the status.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from controller.rules.api import JSON

MAX_REQUEST = 64 * 1024
"""The longest request, in bytes: a decision or a game's options, with room to spare."""
MAX_DEPTH = 8
"""The deepest nesting of a request: `{"options": {"teams": [[...]]}}` is three."""
ANSWER_WITHIN_S = 8.0
"""A changing request still queued after this long is refused unapplied by the loop..."""
REPLY_TIMEOUT_S = 10.0
"""...before its server stops waiting, so that a server that gave up knows it stays unknown only
if the loop took the request in time and then stuck."""
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class RequestError(ValueError):
    """A request that cannot be read: not JSON, not an object, too big or too deep, a bad id."""


class Reply(Protocol):
    """Where the loop puts its answer: a queue, or a future on a server's event loop."""

    def put(self, answer: JSON) -> None: ...


Submit = Callable[[JSON, Reply], None]
"""Hands a request to the daemon's loop (`Events.submit_control`), from any thread."""


def parse_request(data: bytes, op: str | None = None) -> JSON:
    """The request in `data`, its op `op` if given (the page's POST names it in the path)."""
    if len(data) > MAX_REQUEST:
        raise RequestError(f"a request is at most {MAX_REQUEST} bytes")
    try:
        request = json.loads((data or b"{}") if op else data)
    except RecursionError:
        raise RequestError(f"a request is nested at most {MAX_DEPTH} deep") from None
    except ValueError as error:  # UnicodeDecodeError too
        raise RequestError(f"not JSON: {error}") from None
    if not isinstance(request, dict):
        raise RequestError('a request is a JSON object with an "op"')
    if op is not None:
        request["op"] = op
    if not isinstance(request.get("op"), str):
        raise RequestError('a request is a JSON object with an "op"')
    if _depth(request) > MAX_DEPTH:
        raise RequestError(f"a request is nested at most {MAX_DEPTH} deep")
    request_id = request.get("request_id")
    if request_id is not None and not (isinstance(request_id, str) and _ID.fullmatch(request_id)):
        raise RequestError('"request_id" is 1 to 64 letters, digits, "-" or "_"')
    return request


def _depth(value: object) -> int:
    """How deeply lists and objects nest in `value`, counted without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((inner, depth + 1) for inner in item)
    return deepest


def unknown(error: str) -> JSON:
    """The reply of a server that stopped waiting for the loop: the request may yet be applied."""
    return {
        "ok": False,
        "unknown": True,
        "error": f"{error}; it may still be applied: check the status, or retry with the same id",
    }


async def ask(submit: Submit, request: JSON) -> JSON:
    """The loop's answer to `request`, awaited on the calling server's event loop."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[JSON] = loop.create_future()

    class _Settle:
        def put(self, reply: JSON) -> None:
            loop.call_soon_threadsafe(_settle, answer, reply)

    submit(request, _Settle())
    try:
        return await asyncio.wait_for(answer, REPLY_TIMEOUT_S)
    except TimeoutError:
        return unknown(f"the table did not answer in {REPLY_TIMEOUT_S:g} s")


def _settle(answer: asyncio.Future[JSON], reply: JSON) -> None:
    if not answer.done():  # not given up on
        answer.set_result(reply)


class Answered:
    """The replies of the latest changing requests, by id, for retries: the loop's alone."""

    def __init__(self, size: int = 1024) -> None:
        self._size = size
        self._replies: OrderedDict[str, JSON] = OrderedDict()

    def get(self, request_id: object) -> JSON | None:
        if not isinstance(request_id, str):
            return None
        return self._replies.get(request_id)

    def keep(self, request_id: object, reply: JSON) -> None:
        if not isinstance(request_id, str):
            return
        self._replies[request_id] = reply
        self._replies.move_to_end(request_id)
        while len(self._replies) > self._size:
            self._replies.popitem(last=False)
