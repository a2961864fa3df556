"""Text formats for puzzles: read, write, detect.

  shields  David Shields' solver input (NYT 4x4 of 2009-02-13):
           optional title line, size line, then `target op row col moves`
           with 0-based row/col and moves r/l/u/d from the previous cell.
  names    '#'-size format: `# 3`, then `op target cell...` with cells named
           A1 (row letter, column number); `!` is a single-cell constant.
  j        J wiki KenKen essay: one `target[op],cell cell...` line per cage,
           cells numbered row-major from 0 (`%` is division, no op = constant).
  letters  region-letter grid: one comma-separated token per cell in
           row-major order, a letter naming the cage, the first token of a
           cage carrying its clue: `a16+,b1-,b,...`; names may be several
           letters (`aa`), tokens may be split over lines, a first `#` line
           is a comment.
  keen     Simon Tatham's Keen game id, `5:<block structure>,<clues>`.
  json     {"size": n, "cages": [{"op": "+", "target": 11, "cells": [[r, c], ...]}]}
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import UnknownFormat
from ..puzzle import Puzzle
from . import jformat, jsonfmt, keen, letters, names, shields

READERS: dict[str, Callable[[str], Puzzle]] = {
    "json": jsonfmt.read,
    "keen": keen.read,
    "letters": letters.read,
    "names": names.read,
    "j": jformat.read,
    "shields": shields.read,
}
WRITERS: dict[str, Callable[[Puzzle], str]] = {
    "json": jsonfmt.write,
    "keen": keen.write,
    "letters": letters.write,
    "names": names.write,
    "j": jformat.write,
    "shields": shields.write,
}
FORMATS = tuple(READERS)


def detect(text: str) -> str:
    """Name of the format `text` is in (raises UnknownFormat)."""
    for name, looks in (
        ("json", jsonfmt.looks_like),
        ("keen", keen.looks_like),
        ("letters", letters.looks_like),
        ("names", names.looks_like),
        ("j", jformat.looks_like),
        ("shields", shields.looks_like),
    ):
        if looks(text):
            return name
    raise UnknownFormat(
        "the text is in none of the puzzle formats kkvision reads"
        f" ({', '.join(FORMATS)}); see README.md for examples"
    )


def read(text: str, fmt: str | None = None) -> Puzzle:
    """The puzzle in `text` (raises UnknownFormat / InvalidPuzzle, nothing else)."""
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    fmt = fmt or detect(text)
    if fmt not in READERS:
        raise UnknownFormat(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return READERS[fmt](text)


def write(puzzle: Puzzle, fmt: str) -> str:
    if fmt not in WRITERS:
        raise UnknownFormat(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return WRITERS[fmt](puzzle)
