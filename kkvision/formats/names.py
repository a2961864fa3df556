"""'#'-size format: `# 3` then `+ 3 A1 B1`, `! 1 A3` (column letter, row number)."""

from __future__ import annotations

import re

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle, cell_name
from ._common import lines_of, op_from, to_int

_CELL = re.compile(r"^([A-Za-z])(\d+)$")


def looks_like(text: str) -> bool:
    lines = lines_of(text)
    return bool(lines) and re.match(r"^#\s*\d+$", lines[0]) is not None


def _cell(token: str) -> tuple[int, int]:
    m = _CELL.match(token)
    if not m:
        raise UnknownFormat(f"'#' format: {token!r} is not a cell name like A1")
    return int(m[2]) - 1, ord(m[1].upper()) - ord("A")


def read(text: str) -> Puzzle:
    lines = lines_of(text)
    n = to_int(lines[0].lstrip("#").strip(), "'#' format size line")
    cages = []
    for ln in lines[1:]:
        parts = ln.split()
        if len(parts) < 3:
            raise UnknownFormat(f"'#' format: cannot read line {ln!r}")
        op = op_from(parts[0], f"'#' format line {ln!r}")
        cages.append(Cage(op, to_int(parts[1], ln), tuple(_cell(t) for t in parts[2:])))
    return Puzzle(n, tuple(cages))


def write(puzzle: Puzzle) -> str:
    lines = [f"# {puzzle.size}"]
    for c in puzzle.cages:
        op = "!" if c.op == "=" else c.op
        lines.append(f"{op} {c.target} " + " ".join(cell_name(cell) for cell in c.cells))
    return "\n".join(lines) + "\n"
