"""J wiki essay format: `11+,1 2 5 6` per cage, cells row-major from 0."""

from __future__ import annotations

import math
import re

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import lines_of, op_from

_LINE = re.compile(r"^(\d+)\s*([-+*/%x×÷−?]?)\s*,\s*([\d\s]+)$")


def _body(text: str) -> list[str]:
    # Accept the essay's J noun wrapper: `kk0=: 0 : 0` ... `)`.
    return [ln for ln in lines_of(text) if not re.match(r"^\w+\s*=:", ln) and ln != ")"]


def looks_like(text: str) -> bool:
    body = _body(text)
    return bool(body) and all(_LINE.match(ln) for ln in body)


def read(text: str) -> Puzzle:
    raw = []
    for ln in _body(text):
        m = _LINE.match(ln)
        if not m:
            raise UnknownFormat(f"J format: cannot read line {ln!r}")
        raw.append((int(m[1]), m[2], [int(t) for t in m[3].split()]))
    ncells = sum(len(cells) for _, _, cells in raw)
    n = math.isqrt(ncells)
    if n * n != ncells:
        raise UnknownFormat(f"J format: {ncells} cells do not make a square grid")
    cages = tuple(
        Cage(op_from(op, "J format") if len(cells) > 1 or op else "=", target,
             tuple(divmod(i, n) for i in cells))
        for target, op, cells in raw
    )
    return Puzzle(n, cages)


def write(puzzle: Puzzle) -> str:
    n = puzzle.size
    lines = []
    for c in puzzle.cages:
        op = {"=": "", "/": "%"}.get(c.op, c.op)
        lines.append(f"{c.target}{op}," + " ".join(str(r * n + col) for r, col in c.cells))
    return "\n".join(lines) + "\n"
