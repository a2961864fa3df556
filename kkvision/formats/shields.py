"""David Shields' format: [title], size, then `target op row col [moves]`.

Rows and columns are 0-based; moves (r, l, u, d) walk from cell to cell
starting at (row, col); a walk may step back onto a cell already listed.
"""

from __future__ import annotations

import re

from ..errors import InvalidPuzzle, UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import check_size, content_lines, lines_of, make_puzzle, op_from, shown, to_int

# row and col are one digit each (`0 0` or `00`) or, on grids above 10x10,
# numbers separated by spaces
_CAGE = re.compile(r"^([0-9]+)\s+(\S)\s+(?:([0-9]+)\s+([0-9]+)|([0-9])([0-9]))(?:\s+([rlud]+))?$")
_FMT = "Shields format"
_STEP = {"r": (0, 1), "l": (0, -1), "d": (1, 0), "u": (-1, 0)}


def looks_like(text: str) -> bool:
    lines = lines_of(text)
    for i, ln in enumerate(lines[:2]):
        if re.match(r"^\d+$", ln):
            rest = lines[i + 1:]
            return bool(rest) and all(_CAGE.match(x) for x in rest)
    return False


def read(text: str) -> Puzzle:
    lines = content_lines(text, _FMT)
    start = 0 if re.match(r"^[0-9]+$", lines[0]) else 1  # optional title line
    if start >= len(lines):
        raise UnknownFormat(f"{_FMT}: no size line after the title {shown(lines[0])}")
    n = check_size(to_int(lines[start], f"{_FMT} size line"), _FMT)
    cages = []
    for ln in lines[start + 1:]:
        m = _CAGE.match(ln)
        if not m:
            raise UnknownFormat(f"{_FMT}: cannot read line {shown(ln)} (want: target op row col moves)")
        where = f"{_FMT} line {shown(ln)}"
        row, col = (m[3], m[4]) if m[3] is not None else (m[5], m[6])
        cells = _cells((to_int(row, where), to_int(col, where)), m[7] or "", n, where)
        cages.append(Cage(op_from(m[2], where), to_int(m[1], where), cells))
    return make_puzzle(n, cages, _FMT)


def _cells(cell: tuple[int, int], moves: str, n: int, where: str) -> tuple[tuple[int, int], ...]:
    """The cells a walk visits from `cell`, each once, in order (the walk must stay on the grid)."""
    cells = {cell: None}  # an ordered set
    for step in moves:
        cell = (cell[0] + _STEP[step][0], cell[1] + _STEP[step][1])
        if not (0 <= cell[0] < n and 0 <= cell[1] < n):
            raise InvalidPuzzle(f"{where}: the moves leave the {n}x{n} grid")
        cells[cell] = None
    return tuple(cells)


def _walk(cells: tuple[tuple[int, int], ...]) -> str:
    """Depth-first walk over the cage from its anchor, stepping back as needed."""
    members, seen, moves = set(cells), {cells[0]}, []
    names = {v: k for k, v in _STEP.items()}

    def visit(cell: tuple[int, int]) -> None:
        for d in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nb = (cell[0] + d[0], cell[1] + d[1])
            if nb in members and nb not in seen:
                seen.add(nb)
                moves.append(names[d])
                visit(nb)
                if len(seen) < len(members):
                    moves.append(names[(-d[0], -d[1])])

    visit(cells[0])
    return "".join(moves)


def write(puzzle: Puzzle) -> str:
    lines = [str(puzzle.size)]
    for c in puzzle.cages:
        if c.op == "?":
            raise UnknownFormat("Shields' format cannot hold hidden operators")
        moves = _walk(c.cells)
        lines.append(f"{c.target} {c.op} {c.anchor[0]} {c.anchor[1]}" + (f" {moves}" if moves else ""))
    return "\n".join(lines) + "\n"
