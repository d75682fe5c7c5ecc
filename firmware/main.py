"""The Pico's entry point: scan the matrix every scan_ms, talk to the host over USB serial.

Copied to the Pico's root as main.py (the rest of the package to /firmware, README.md), it runs at
power-up. The USB serial port is sys.stdin/sys.stdout: the REPL is taken over and Ctrl-C is off,
so README.md says how to stop it before copying new files.
"""

import json
import select
import sys
import time

import machine
import micropython

from firmware.board import Board
from firmware.device import Device


def main():
    with open("config.json") as f:
        config = json.load(f)
    board = Board(config)
    boot_id = int.from_bytes(machine.unique_id()[-2:], "big") ^ (time.ticks_us() & 0xFFFF)
    device = Device(config, boot_id, board.show)
    micropython.kbd_intr(-1)  # frames may hold 0x03: Ctrl-C must not stop us
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poll = select.poll()
    poll.register(stdin, select.POLLIN)
    scan_ms = config.get("scan_ms", 2)
    now = 0
    last = time.ticks_ms()
    device.boot(board.read_row, now)
    next_scan = now
    while True:
        t = time.ticks_ms()
        now += time.ticks_diff(t, last)
        last = t
        if now >= next_scan:
            next_scan = now + scan_ms
            device.scan(board.read_row)
        while poll.poll(0):
            data = stdin.read(1)
            if not data:
                break
            device.receive(data, now)
        data = device.poll(now)
        if data:
            stdout.write(data)


main()
