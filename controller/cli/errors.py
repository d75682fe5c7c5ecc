"""How a command fails: one exception, turned by `main` into one message and one exit status."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

EX_USAGE = 2  # as argparse's own: a bad argument
EX_DATAERR = 65  # a journal that does not replay: restarting will not help
# Another daemon holds the state directory. Not in RestartPreventExitStatus=: a service that
# finds it held (by a daemon started by hand) starts once that one has stopped.
EX_CANTCREAT = 73
EX_TEMPFAIL = 75  # no answer came: the request may yet be applied, `status` tells
EX_CONFIG = 78  # systemd's RestartPreventExitStatus= names it, so a bad config is not retried
EX_SIGPIPE = 141  # stdout's reader closed it early (`| head`): as a tool killed by SIGPIPE


class CommandError(Exception):
    """A command that cannot do its work: `smartboard: MESSAGE` on stderr, exit `status`."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@contextmanager
def failing(status: int, *errors: type[Exception]) -> Iterator[None]:
    """Any of `errors` raised inside fails the command with `status`, saying what it says."""
    try:
        yield
    except errors as error:
        raise CommandError(str(error), status) from None
