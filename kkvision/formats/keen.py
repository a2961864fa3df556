"""Simon Tatham's Keen game ids: `<size>[params]:<block structure>,<clues>`.

Block structure: walk the w*(w-1) inner vertical edges in reading order, then
the w*(w-1) inner horizontal edges in transposed order, plus a final virtual
edge; write the count of non-edges before each edge as `_`=0, `a`=1 ... `y`=25,
with `z` meaning 25 non-edges and no edge; a letter followed by a number
repeats it.  Clues follow for each cage in the order of its first cell:
`a` add, `m` multiply, `s` subtract, `d` divide, then the target.  Keen has
no constant cages (a single cell is `a<digit>`) and no hidden operators.
"""

from __future__ import annotations

import re

from ..errors import UnknownFormat
from ..puzzle import Cage, Puzzle, join_cells
from ._common import check_size, make_puzzle, shown, to_int

_ID = re.compile(r"^(\d+)[a-z]*:([_a-z0-9]+),([amsd0-9]+)$")
_CLUES = re.compile(r"^(?:[amsd][0-9]+)+$")
_FMT = "Keen id"
_KEEN_OP = {"+": "a", "*": "m", "-": "s", "/": "d", "=": "a"}
_OP_KEEN = {"a": "+", "m": "*", "s": "-", "d": "/"}


def looks_like(text: str) -> bool:
    return _ID.match(text.strip()) is not None


def _edge_cells(i: int, w: int) -> tuple[int, int]:
    if i < w * (w - 1):
        y, x = divmod(i, w - 1)
        return y * w + x, y * w + x + 1
    x, y = divmod(i - w * (w - 1), w - 1)
    return y * w + x, (y + 1) * w + x


def read(text: str) -> Puzzle:
    if not text.strip():
        raise UnknownFormat(f"{_FMT}: the text is empty")
    m = _ID.match(text.strip())
    if not m:
        raise UnknownFormat(f"{_FMT}: not a Keen game id like 4:_a2b_,a6m8s1d2...")
    w = check_size(to_int(m[1], f"{_FMT} size"), _FMT)
    structure, clues = m[2], m[3]
    joined: list[tuple[int, int]] = []
    pos, total = 0, 2 * w * (w - 1)
    for letter, rep in re.findall(r"([_a-z])([0-9]*)", structure):
        for _ in range(to_int(rep, f"{_FMT} repeat count") if rep else 1):
            run = 0 if letter == "_" else ord(letter) - ord("a") + 1
            if pos + run > total:  # non-edges past the last inner edge
                raise UnknownFormat(f"{_FMT}: too much block structure data for a {w}x{w} grid")
            for _ in range(run):
                joined.append(_edge_cells(pos, w))
                pos += 1
            if run != 25:
                pos += 1
    if pos != total + 1:
        raise UnknownFormat(f"{_FMT}: block structure does not fit a {w}x{w} grid")
    ordered = join_cells(w * w, joined)
    if not _CLUES.match(clues):
        raise UnknownFormat(f"{_FMT}: cannot read the clues {shown(clues)} (want a6m8s1d2...)")
    found = re.findall(r"([amsd])([0-9]+)", clues)
    if len(found) != len(ordered):
        raise UnknownFormat(f"{_FMT}: {len(found)} clues for {len(ordered)} blocks")
    cages = [
        Cage("=" if len(g) == 1 else _OP_KEEN[op], to_int(t, f"{_FMT} clue {shown(op + t)}"),
             tuple(divmod(i, w) for i in g))
        for g, (op, t) in zip(ordered, found)
    ]
    return make_puzzle(w, cages, _FMT)


def write(puzzle: Puzzle) -> str:
    w = puzzle.size
    owner = {}
    for k, cage in enumerate(puzzle.cages):
        for r, c in cage.cells:
            owner[r * w + c] = k
    out, run = [], 0
    for i in range(2 * w * (w - 1) + 1):
        edge = True if i == 2 * w * (w - 1) else owner[_edge_cells(i, w)[0]] != owner[_edge_cells(i, w)[1]]
        if not edge:
            run += 1
            continue
        while run > 25:
            out.append("z")
            run -= 25
        out.append(chr(ord("a") - 1 + run) if run else "_")
        run = 0
    compressed = re.sub(r"(.)\1{2,}", lambda m: m[1] + str(len(m[0])), "".join(out))
    clues = []
    for cage in puzzle.cages:
        if cage.op == "?":
            raise UnknownFormat("Keen ids cannot hold hidden operators")
        if cage.book_rule:
            raise UnknownFormat(f"Keen ids cannot hold a '{cage.op}' cage over more than two cells ({cage.label} at"
                                f" {cage.where})")
        clues.append(f"{_KEEN_OP[cage.op]}{cage.target}")
    return f"{w}:{compressed},{''.join(clues)}\n"
