"""The thin layer over the Pico's `machine` and `neopixel`: only this module touches hardware.

Rows are driven low one at a time; columns are inputs pulled up, so a closed reed, through its
diode, pulls its column low. `read_row(r)` returns the closed reeds of row r as a bit mask.
MicroPython only.

The rows have a pin each (`row_pins`: the row read is driven low, the others float, as
inputs), or go through a 74HC154 4-to-16 decoder (`row_select_pins`: its inputs A0-A3, low bit
first), whose active-low outputs drive the rows: the row read is low, the others high, which
their diodes block. The decoder lets 16 rows and 16 columns fit the Pico's pins.
"""

import time

import machine
import neopixel


class Board:
    def __init__(self, config):
        rows, cols = config["rows"], config["cols"]
        select = config.get("row_select_pins")
        if select is not None:
            if "row_pins" in config:
                raise ValueError("config.json: row_pins or row_select_pins, not both")
            if rows > 1 << len(select):
                raise ValueError("config.json: too few row_select_pins for %d rows" % rows)  # noqa: UP031
            self.select = [machine.Pin(p, machine.Pin.OUT, value=0) for p in select]
            self.rows = None
        else:
            if len(config["row_pins"]) != rows:
                raise ValueError("config.json: row_pins must give %d pins" % rows)  # noqa: UP031
            self.select = None
            self.rows = [machine.Pin(p, machine.Pin.IN) for p in config["row_pins"]]
        if len(config["col_pins"]) != cols:
            raise ValueError("config.json: col_pins must give %d pins" % cols)  # noqa: UP031
        self.cols = [
            machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in config["col_pins"]
        ]
        self.count = config["led_count"]
        self.pixels = neopixel.NeoPixel(machine.Pin(config["led_pin"]), self.count)

    def read_row(self, r):
        if self.select is not None:
            for bit in range(len(self.select)):
                self.select[bit].value((r >> bit) & 1)
        else:
            pin = self.rows[r]
            pin.init(machine.Pin.OUT, value=0)
        time.sleep_us(5)  # let the column lines settle through the diodes
        mask = 0
        cols = self.cols
        for c in range(len(cols)):
            if not cols[c].value():
                mask |= 1 << c
        if self.select is None:
            pin.init(machine.Pin.IN)
        return mask

    def show(self, frame):
        """frame: bytes, R, G, B per LED."""
        pixels = self.pixels
        for i in range(self.count):
            pixels[i] = (frame[3 * i], frame[3 * i + 1], frame[3 * i + 2])
        pixels.write()
