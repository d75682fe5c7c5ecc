"""Input changes waiting for the host's acknowledgement: pure logic, for CPython and MicroPython.

Each change gets the next event id. The host acknowledges cumulatively ("every id below N"), and
accepts ids only in order, so the firmware resends every unacknowledged event, oldest first, once
the oldest has waited `resend_ms`. If more than `capacity` wait, the queue is dropped and
`overflowed` is set: the host is then sent a snapshot, which stands for the dropped events.
"""


class EventQueue:
    def __init__(self, capacity=512, resend_ms=20):
        self.capacity = capacity
        self.resend_ms = resend_ms
        self.next_id = 0
        self.pending = []  # [id, row, col, state, last sent (ms) or None]
        self.overflowed = False

    def push(self, row, col, state):
        if len(self.pending) >= self.capacity:
            self.pending = []
            self.overflowed = True
        self.pending.append([self.next_id, row, col, state, None])
        self.next_id += 1

    def ack(self, upto):
        """The host has every event whose id is below `upto`."""
        pending = self.pending
        i = 0
        while i < len(pending) and pending[i][0] < upto:
            i += 1
        if i:
            self.pending = pending[i:]

    def resend_now(self):
        """The host missed one: every unacknowledged event goes out again at the next poll."""
        for e in self.pending:
            e[4] = None

    def clear(self):
        """A snapshot was sent: it stands for every event so far."""
        self.pending = []
        self.overflowed = False

    def due(self, now):
        """The events to send now: the new ones, or all of them when a resend is due."""
        pending = self.pending
        if not pending:
            return []
        oldest = pending[0][4]
        if oldest is not None and now - oldest >= self.resend_ms:
            out = pending
        else:
            out = [e for e in pending if e[4] is None]
        for e in out:
            e[4] = now
        return out
