"""Scanning an N x M reed matrix with debouncing: pure logic, for CPython and MicroPython.

`scan(read_row)` calls `read_row(r)` for each row, which returns the row's closed reeds as a bit
mask (bit c set: the reed at column c is closed). A cell's state changes once its raw value has
differed from its stable value on `debounce_scans` scans in a row; a bounce back resets the count.
"""

MAX_SIZE = 16


class Matrix:
    def __init__(self, rows, cols, debounce_scans, initial=None):
        if not (0 < rows <= MAX_SIZE and 0 < cols <= MAX_SIZE):
            raise ValueError("matrix size must be 1..16 x 1..16")
        if debounce_scans < 1:
            raise ValueError("debounce_scans must be at least 1")
        self.rows = rows
        self.cols = cols
        self.debounce = debounce_scans
        self.stable = list(initial) if initial is not None else [0] * rows
        self.counts = {}  # cell index -> scans its raw value has differed from stable

    def prime(self, read_row):
        """Take the matrix as it is now as stable, without events (at boot)."""
        full = (1 << self.cols) - 1
        for r in range(self.rows):
            self.stable[r] = read_row(r) & full
        self.counts = {}

    def scan(self, read_row):
        """One pass over the rows; returns the settled changes as [(row, col, state)]."""
        changes = []
        counts = self.counts
        full = (1 << self.cols) - 1
        cols = self.cols
        for r in range(self.rows):
            raw = read_row(r) & full
            diff = raw ^ self.stable[r]
            base = r * cols
            if counts:
                # A cell that bounced back to its stable value starts counting again.
                for c in range(cols):
                    cell = base + c
                    if cell in counts and not (diff >> c) & 1:
                        del counts[cell]
            if not diff:
                continue
            for c in range(cols):
                if (diff >> c) & 1:
                    cell = base + c
                    n = counts.get(cell, 0) + 1
                    if n >= self.debounce:
                        if cell in counts:
                            del counts[cell]
                        self.stable[r] ^= 1 << c
                        changes.append((r, c, (raw >> c) & 1))
                    else:
                        counts[cell] = n
        return changes

    def cells(self):
        """Every cell's stable state, row-major, as a list of 0/1."""
        out = []
        for r in range(self.rows):
            row = self.stable[r]
            for c in range(self.cols):
                out.append((row >> c) & 1)
        return out
