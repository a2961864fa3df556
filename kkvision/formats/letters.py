"""Region-letter grid: `a16+,b1-,b,...`, one token per cell, row-major.

A token is the cage's name (one or more letters: `a`, `aa`, `cd`) and, on one
cell of the cage (written on its top-left cell), the clue.  A bare number on
a multi-cell cage means a hidden operator; on a single cell it is the digit
(`v2`, `kk3`).  Tokens are separated by commas and/or white space, so a grid
may be written one row per line.  A first line starting with `#` is a
comment, as in C. England's SMT encoding of kenken.com puzzles.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterator

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import OP_CHARS, check_size, make_puzzle, op_from, shown, to_int

_TOKEN = re.compile(r"^([A-Za-z]+)(?:([0-9]+)(" + OP_CHARS + r"?))?$")
_FMT = "region-letter format"


def _tokens(text: str) -> list[str]:
    lines = text.strip().splitlines()
    if lines and lines[0].lstrip().startswith("#"):  # a comment line first
        lines = lines[1:]
    return [t for t in re.split(r"[,\s]+", "\n".join(lines)) if t]


def looks_like(text: str) -> bool:
    toks = _tokens(text)
    return "," in text and len(toks) >= 9 and all(_TOKEN.match(t) for t in toks)


def read(text: str) -> Puzzle:
    toks = _tokens(text)
    if not toks:
        raise UnknownFormat(f"{_FMT}: the text is empty (no cell tokens)")
    n = math.isqrt(len(toks))
    if n * n != len(toks):
        raise UnknownFormat(f"{_FMT}: {len(toks)} tokens do not make a square grid")
    check_size(n, f"{_FMT}: {len(toks)} tokens")
    cells: dict[str, list[tuple[int, int]]] = {}
    clues: dict[str, tuple[int, str]] = {}
    for i, tok in enumerate(toks):
        m = _TOKEN.match(tok)
        if not m:
            raise UnknownFormat(f"{_FMT}: cannot read token {shown(tok)} (want a cage name like a or aa,"
                                " with a clue like 16+ on one cell)")
        name = m[1]
        cells.setdefault(name, []).append(divmod(i, n))
        if m[2] is not None:
            if name in clues:
                raise UnknownFormat(f"{_FMT}: cage {shown(name)} has two clues")
            clues[name] = (to_int(m[2], f"{_FMT} token {shown(tok)}"), m[3])
    cages = []
    for name, members in cells.items():
        if name not in clues:
            raise UnknownFormat(f"{_FMT}: cage {shown(name)} has no clue")
        target, op = clues[name]
        op = op_from(op, f"{_FMT} cage {shown(name)}") if op else ("=" if len(members) == 1 else "?")
        cages.append(Cage(op, target, tuple(members)))
    return make_puzzle(n, cages, _FMT)


def _names() -> Iterator[str]:
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
