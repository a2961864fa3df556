"""Region-letter grid: `a16+,b1-,b,...`, one token per cell, row-major.

A token is the cage's name (letters) and, on one cell of the cage (written on
its top-left cell), the clue.  A bare number on a multi-cell cage means a
hidden operator.
"""

from __future__ import annotations

import math
import re
import string

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import op_from

_TOKEN = re.compile(r"^([A-Za-z]+)(?:(\d+)([-+*/x×÷−%?]?))?$")


def _tokens(text: str) -> list[str]:
    return [t.strip() for t in re.split(r"[,\s]+", text.strip()) if t.strip()]


def looks_like(text: str) -> bool:
    toks = _tokens(text)
    return "," in text and len(toks) >= 9 and all(_TOKEN.match(t) for t in toks)


def read(text: str) -> Puzzle:
    toks = _tokens(text)
    n = math.isqrt(len(toks))
    if n * n != len(toks):
        raise UnknownFormat(f"region-letter format: {len(toks)} tokens do not make a square grid")
    cells: dict[str, list[tuple[int, int]]] = {}
    clues: dict[str, tuple[int, str]] = {}
    for i, tok in enumerate(toks):
        m = _TOKEN.match(tok)
        if not m:
            raise UnknownFormat(f"region-letter format: cannot read token {tok!r}")
        name = m[1]
        cells.setdefault(name, []).append(divmod(i, n))
        if m[2] is not None:
            if name in clues:
                raise UnknownFormat(f"region-letter format: cage {name!r} has two clues")
            clues[name] = (int(m[2]), m[3])
    cages = []
    for name, members in cells.items():
        if name not in clues:
            raise UnknownFormat(f"region-letter format: cage {name!r} has no clue")
        target, op = clues[name]
        op = op_from(op, f"cage {name!r}") if op else ("=" if len(members) == 1 else "?")
        cages.append(Cage(op, target, tuple(members)))
    return Puzzle(n, tuple(cages))


def _names():
    letters = string.ascii_lowercase + string.ascii_uppercase
    yield from letters
    for a in letters:
        for b in letters:
            yield a + b


def write(puzzle: Puzzle) -> str:
    n = puzzle.size
    toks = [""] * (n * n)
    for name, cage in zip(_names(), puzzle.cages):
        for cell in cage.cells:
            toks[cell[0] * n + cell[1]] = name
        r, c = cage.anchor
        toks[r * n + c] = name + cage.label
    return ",".join(toks) + "\n"
