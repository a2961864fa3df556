"""'#'-size format: `# 3` then `+ 3 A1 B1`, `! 1 A3` (row letter, column number).

As in the "Solver for KenKen puzzles (Representation)" post: letters name
ROWS (A at the top), numbers name COLUMNS (1 at the left), so the upper-left
cell of a 9x9 is A1 and the lower-right I9.  Fields may be separated by
spaces or tabs.
"""

from __future__ import annotations

import re

from ..errors import UnknownFormat
from ..puzzle import Cage, Cell, Puzzle
from ._common import check_size, content_lines, lines_of, make_puzzle, op_from, shown, to_int

_CELL = re.compile(r"^([A-Za-z])([0-9]+)$")
_SIZE = re.compile(r"^#\s*([0-9]+)$")
_FMT = "'#' format"


def looks_like(text: str) -> bool:
    lines = lines_of(text)
    return bool(lines) and _SIZE.match(lines[0]) is not None


def cell_label(cell: Cell) -> str:
    """This format's name of a cell: row letter, column number ('A1' top-left)."""
    return f"{chr(ord('A') + cell[0])}{cell[1] + 1}"


def _cell(token: str) -> Cell:
    m = _CELL.match(token)
    if not m:
        raise UnknownFormat(f"{_FMT}: {shown(token)} is not a cell name like A1 (row letter, column number)")
    column = to_int(m[2], f"{_FMT} cell {shown(token)}")
    if column < 1:
        raise UnknownFormat(f"{_FMT}: {shown(token)}: columns are numbered from 1")
    return ord(m[1].upper()) - ord("A"), column - 1


def read(text: str) -> Puzzle:
    lines = content_lines(text, _FMT)
    m = _SIZE.match(lines[0])
    if not m:
        raise UnknownFormat(f"{_FMT}: the first line must be '# <size>', found {shown(lines[0])}")
    n = check_size(to_int(m[1], f"{_FMT} size line"), _FMT)
    cages = []
    for ln in lines[1:]:
        parts = ln.split()
        if len(parts) < 3:
            raise UnknownFormat(f"{_FMT}: cannot read line {shown(ln)} (want: op target cell...)")
        where = f"{_FMT} line {shown(ln)}"
        op = op_from(parts[0], where)
        cages.append(Cage(op, to_int(parts[1], where), tuple(_cell(t) for t in parts[2:])))
    return make_puzzle(n, cages, _FMT)


def write(puzzle: Puzzle) -> str:
    lines = [f"# {puzzle.size}"]
    for c in puzzle.cages:
        op = "!" if c.op == "=" else c.op
        lines.append(f"{op} {c.target} " + " ".join(cell_label(cell) for cell in c.cells))
    return "\n".join(lines) + "\n"
