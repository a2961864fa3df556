"""The library API: solve the puzzles in a picture or a text, get frozen Results.

    from kkvision import solve_image, solve_puzzles, solve_text

    result = solve_image("photo.jpg")          # a path, the file's bytes, or a numpy BGR/grey array
    result.solution                            # rows of digits
    result.corners                             # the grid's corners in the picture: tl, tr, br, bl
    [(lb.read, lb.probability, lb.how) for lb in result.labels]

    solve_image("page.png", puzzle=2)          # the second puzzle of a page holding several
    for outcome in solve_puzzles("page.png"):  # every puzzle of a page, each a Result or its error
        print(outcome.index, outcome.result.solution if outcome.result else outcome.error.message)

    result = solve_text("# 3\\n+ 3 A1 A2 ...")  # any of the six text formats, or fmt="names" ...

Failures raise kkvision.errors.KkvisionError subclasses (each with .exit_code
and a one-line .message); the command line runs these same functions
(pipeline.read_source) with files, drawing and printing around them.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .defaults import MAX_PIXELS, TIME_LIMIT
from .errors import UsageError
from .pipeline import Options, Outcome, Result, read_source
from .pipeline import solve_text as _solve_text
from .sources import Source, of_array, of_bytes

__all__ = ["Outcome", "Result", "solve_image", "solve_puzzles", "solve_text"]

PictureSource = str | os.PathLike[str] | bytes | bytearray | memoryview | np.ndarray


def solve_puzzles(source: PictureSource, *, ocr: str = "model", time_limit: float = TIME_LIMIT,
                  max_pixels: int = MAX_PIXELS) -> list[Outcome]:
    """Every puzzle in a picture (a file path, the file's bytes, or a decoded
    numpy array, BGR colour or grey), in reading order: each its Result, or
    the error that stopped it.  Raises only when no puzzle could be read at all."""
    page = read_source(_source(source), Options(ocr=ocr, time_limit=time_limit, max_pixels=max_pixels))
    return list(page.outcomes)


def solve_image(source: PictureSource, *, puzzle: int | None = None, ocr: str = "model",
                time_limit: float = TIME_LIMIT, max_pixels: int = MAX_PIXELS) -> Result:
    """Read and solve the puzzle in a picture; on a page of several, the one
    `puzzle` names (1-based, reading order) -- without it such a page raises
    UsageError saying so (solve_puzzles gives them all)."""
    opts = Options(ocr=ocr, time_limit=time_limit, max_pixels=max_pixels, puzzle=puzzle)
    page = read_source(_source(source), opts)
    if len(page.outcomes) > 1:
        raise UsageError(f"{page.name} holds {len(page.outcomes)} puzzles: ask for one with solve_image(...,"
                         " puzzle=N), or for all with solve_puzzles(...)")
    outcome = page.outcomes[0]
    if outcome.error is not None:
        raise outcome.error
    assert outcome.result is not None
    return outcome.result


def solve_text(text: str, fmt: str | None = None, *, time_limit: float = TIME_LIMIT) -> Result:
    """Solve a puzzle text in any of the formats (detected when `fmt` is None).
    Result.unique is False when the puzzle has several solutions (Result.other
    is a second one); the command line refuses those with exit 8."""
    return _solve_text(text, Options(fmt=fmt, time_limit=time_limit))


def _source(source: PictureSource) -> Source:
    if isinstance(source, np.ndarray):
        return of_array(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return of_bytes(bytes(source))
    return Source(str(source), Path(source))
