"""The library API: solve a puzzle from a picture or a text, get a frozen Result.

    from kkvision import solve_image, solve_text

    result = solve_image("photo.jpg")          # a path, the file's bytes, or a numpy BGR/grey array
    result.solution                            # rows of digits
    result.corners                             # the grid's corners in the picture: tl, tr, br, bl
    [(lb.read, lb.probability, lb.how) for lb in result.labels]

    result = solve_text("# 3\\n+ 3 A1 A2 ...")  # any of the six text formats, or fmt="names" ...

Failures raise kkvision.errors.KkvisionError subclasses (each with .exit_code
and a one-line .message); the command line is these same functions and
Result, with files, drawing and printing around them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .errors import InputImageError
from .pipeline import Options, Result, read_input, solve_picture
from .pipeline import solve_text as _solve_text
from .solver import DEFAULT_TIME_LIMIT
from .vision.picture import MAX_PIXELS, check_size, decode

__all__ = ["Result", "solve_image", "solve_text"]


def solve_image(source: str | os.PathLike[str] | bytes | np.ndarray, *, ocr: str = "model",
                time_limit: float = DEFAULT_TIME_LIMIT, max_pixels: int = MAX_PIXELS) -> Result:
    """Read and solve the puzzle in a picture: a file path, the file's bytes,
    or a decoded numpy array (BGR colour, or grey)."""
    opts = Options(ocr=ocr, time_limit=time_limit, max_pixels=max_pixels)
    if isinstance(source, np.ndarray):
        return solve_picture(_checked_array(source, max_pixels), opts, "picture")
    if isinstance(source, (bytes, bytearray, memoryview)):
        name = Path("<bytes>")
        return solve_picture(decode(name, bytes(source), max_pixels), opts, str(name))
    path = Path(source)
    return solve_picture(decode(path, read_input(path), max_pixels), opts, str(path))


def solve_text(text: str, fmt: str | None = None, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Result:
    """Solve a puzzle text in any of the formats (detected when `fmt` is None).
    Result.unique is False when the puzzle has several solutions (Result.other
    is a second one); the command line refuses those with exit 8."""
    return _solve_text(text, Options(fmt=fmt, time_limit=time_limit))


def _checked_array(image: Any, max_pixels: int) -> np.ndarray:
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)) or image.dtype != np.uint8:
        raise InputImageError("a picture array must be uint8, grey (h, w) or colour (h, w, 3 or 4)")
    check_size("picture", image.shape[1], image.shape[0], max_pixels, raise_with="max_pixels=")
    if image.ndim == 3 and image.shape[2] == 4:
        import cv2

        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return np.ascontiguousarray(image)
