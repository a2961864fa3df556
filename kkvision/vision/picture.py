"""Stage 0: the picture's bytes -> a BGR array, refusing what should not be decoded.

Before anything is decoded the header is read (Pillow opens images lazily:
only the header) for the declared size: more than `max_pixels` pixels, or a
side shorter than MIN_SIDE, is refused with exit 3 without a decode attempt.
Then OpenCV decodes it with its own and its codecs' messages silenced (a
truncated PNG makes libpng print to the process's stderr): one line on
stderr is kkvision's, whatever the file.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ..defaults import MAX_PIXELS
from ..errors import InputImageError

MIN_SIDE = 32  # px: no puzzle grid with legible labels fits in fewer
STDERR_FD = 2  # where C libraries (libpng, libjpeg) write their complaints
FORMATS = "png, jpeg, bmp, tiff, webp, gif"


def decode(path: Path, data: bytes, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The picture as a BGR array; InputImageError (exit 3) for anything else."""
    check_size(str(path), *declared_size(path, data), max_pixels)
    import cv2

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # kkvision reports failures, once
    with _quiet_stderr():
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        except cv2.error:  # e.g. beyond OpenCV's own pixel limit when --max-pixels was raised
            image = None
    if image is None or image.size == 0:
        raise InputImageError(f"{path}: not an image kkvision can decode ({FORMATS}), or a damaged one")
    check_size(str(path), image.shape[1], image.shape[0], max_pixels)
    return image


def check_size(name: str, width: int, height: int, max_pixels: int = MAX_PIXELS,
               raise_with: str = "--max-pixels") -> None:
    """InputImageError unless a picture of this size may hold a puzzle and be read
    within the pixel limit (`raise_with`: how the caller raises the limit)."""
    if width * height > max_pixels:
        raise InputImageError(f"{name}: image too large ({width * height / 1e6:.0f} MP; limit"
                              f" {max_pixels / 1e6:g} MP, {raise_with} to raise)")
    if min(width, height) < MIN_SIDE:
        raise InputImageError(f"{name}: image too small to hold a puzzle ({width}x{height} px;"
                              f" at least {MIN_SIDE} px a side)")


def declared_size(path: Path, data: bytes) -> tuple[int, int]:
    """(width, height) from the header alone."""
    from PIL import Image, UnidentifiedImageError

    if not data:
        raise InputImageError(f"{path}: the file is empty")
    Image.MAX_IMAGE_PIXELS = None  # kkvision applies its own limit, with its own message
    try:
        with Image.open(io.BytesIO(data)) as im:
            return im.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        raise InputImageError(f"{path}: not an image kkvision can decode ({FORMATS}), or a damaged one") from None


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Send what C libraries write to the process's stderr (file descriptor 2)
    to /dev/null meanwhile."""
    try:
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass
    saved = os.dup(STDERR_FD)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, STDERR_FD)
        yield
    finally:
        os.dup2(saved, STDERR_FD)
        os.close(saved)
        os.close(devnull)
