"""J wiki essay format: `11+,1 2 5 6` per cage, cells row-major from 0."""

from __future__ import annotations

import math
import re

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import OP_CHARS, check_size, content_lines, lines_of, make_puzzle, op_from, shown, to_int

_LINE = re.compile(r"^([0-9]+)\s*(" + OP_CHARS + r"?)\s*,\s*([0-9\s]+)$")
_FMT = "J format"


def _body(text: str) -> list[str]:
    # Accept the essay's J noun wrapper: `kk0=: 0 : 0` ... `)`.
    return [ln for ln in lines_of(text) if not re.match(r"^\w+\s*=:", ln) and ln != ")"]


def looks_like(text: str) -> bool:
    body = _body(text)
    return bool(body) and all(_LINE.match(ln) for ln in body)


def read(text: str) -> Puzzle:
    content_lines(text, _FMT)
    body = _body(text)
    if not body:
        raise UnknownFormat(f"{_FMT}: no cage lines (only the J noun wrapper)")
    raw = []
    for ln in body:
        m = _LINE.match(ln)
        if not m:
            raise UnknownFormat(f"{_FMT}: cannot read line {shown(ln)}")
        where = f"{_FMT} line {shown(ln)}"
        raw.append((to_int(m[1], where), m[2], [to_int(t, where) for t in m[3].split()]))
    ncells = sum(len(cells) for _, _, cells in raw)
    n = math.isqrt(ncells)
    if n * n != ncells:
        raise UnknownFormat(f"{_FMT}: {ncells} cells do not make a square grid")
    check_size(n, f"{_FMT}: {ncells} cells")
    cages = [
        Cage(op_from(op, _FMT) if len(cells) > 1 or op else "=", target,
             tuple(divmod(i, n) for i in cells))
        for target, op, cells in raw
    ]
    return make_puzzle(n, cages, _FMT)


def write(puzzle: Puzzle) -> str:
    n = puzzle.size
    lines = []
    for c in puzzle.cages:
        op = {"=": "", "/": "%"}.get(c.op, c.op)
        lines.append(f"{c.target}{op}," + " ".join(str(r * n + col) for r, col in c.cells))
    return "\n".join(lines) + "\n"
