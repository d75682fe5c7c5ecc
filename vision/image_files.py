"""Photos and frames read from files, as BGR images."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from queue import Queue

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
"""A BGR picture, height x width x 3."""


def read_image(path: Path) -> Image:
    """A BGR image from a file; OSError if unreadable, ValueError if not an image."""
    data = np.frombuffer(path.read_bytes(), np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ValueError("not an image that OpenCV reads (PNG, JPEG ...)")
    return np.asarray(image, np.uint8)


def read_images(paths: Iterable[Path], ahead: int = 4) -> Iterator[tuple[Path, Image | str]]:
    """Each path with its image, or why it could not be read, in order.

    The files are decoded on a thread of their own, a few ahead: OpenCV lets go of the GIL
    while it decodes, so a reader works on one image while the next is decoded.
    """
    queue: Queue[tuple[Path, Image | str] | None] = Queue(maxsize=ahead)

    def decode() -> None:
        for path in paths:
            try:
                queue.put((path, read_image(path)))
            except OSError as error:
                queue.put((path, error.strerror or str(error)))
            except ValueError as error:
                queue.put((path, str(error)))
        queue.put(None)

    threading.Thread(target=decode, name="decode", daemon=True).start()
    while (item := queue.get()) is not None:
        yield item
