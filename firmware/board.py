"""The thin layer over the Pico's `machine` and `neopixel`: only this module touches hardware.

Rows are driven low one at a time (the others float, as inputs); columns are inputs pulled up,
so a closed reed, through its diode, pulls its column low. `read_row(r)` returns the closed reeds
of row r as a bit mask. MicroPython only.
"""

import time

import machine
import neopixel


class Board:
    def __init__(self, config):
        self.rows = [machine.Pin(p, machine.Pin.IN) for p in config["row_pins"]]
        self.cols = [
            machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in config["col_pins"]
        ]
        self.count = config["led_count"]
        self.pixels = neopixel.NeoPixel(machine.Pin(config["led_pin"]), self.count)

    def read_row(self, r):
        pin = self.rows[r]
        pin.init(machine.Pin.OUT, value=0)
        time.sleep_us(5)  # let the column lines settle through the diodes
        mask = 0
        cols = self.cols
        for c in range(len(cols)):
            if not cols[c].value():
                mask |= 1 << c
        pin.init(machine.Pin.IN)
        return mask

    def show(self, frame):
        """frame: bytes, R, G, B per LED."""
        pixels = self.pixels
        for i in range(self.count):
            pixels[i] = (frame[3 * i], frame[3 * i + 1], frame[3 * i + 2])
        pixels.write()
