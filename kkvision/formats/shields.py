"""David Shields' format: [title], size, then `target op row col [moves]`.

Rows and columns are 0-based; moves (r, l, u, d) walk from cell to cell
starting at (row, col); a walk may step back onto a cell already listed.
"""

from __future__ import annotations

import re

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle
from ._common import lines_of, op_from, to_int

_CAGE = re.compile(r"^(\d+)\s+(\S)\s+(\d)\s*(\d)(?:\s+([rlud]+))?$")
_STEP = {"r": (0, 1), "l": (0, -1), "d": (1, 0), "u": (-1, 0)}


def looks_like(text: str) -> bool:
    lines = lines_of(text)
    for i, ln in enumerate(lines[:2]):
        if re.match(r"^\d+$", ln):
            rest = lines[i + 1:]
            return bool(rest) and all(_CAGE.match(x) for x in rest)
    return False


def read(text: str) -> Puzzle:
    lines = lines_of(text)
    start = 0 if re.match(r"^\d+$", lines[0]) else 1  # optional title line
    n = to_int(lines[start], "Shields format size line")
    cages = []
    for ln in lines[start + 1:]:
        m = _CAGE.match(ln)
        if not m:
            raise UnknownFormat(f"Shields format: cannot read line {ln!r}")
        cell = (int(m[3]), int(m[4]))
        cells = [cell]
        for step in m[5] or "":
            cell = (cell[0] + _STEP[step][0], cell[1] + _STEP[step][1])
            if cell not in cells:
                cells.append(cell)
        cages.append(Cage(op_from(m[2], f"line {ln!r}"), int(m[1]), tuple(cells)))
    return Puzzle(n, tuple(cages))


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
