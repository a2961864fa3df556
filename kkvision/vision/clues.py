"""Stage 3: read each cage's label as texts with probabilities.

The label reader (readers.py, chosen by --ocr) reads the top of every cell
(read_cells: the cage stage checks its borders against where labels are);
each cage's label is its first cell's reading, confirmed by the reader's
second witness where it has one (read_clues); a label the user gave with
--label replaces what was read (given_labels).  The reading stage then weighs
every cage's candidates together with the solver.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidPuzzle, LabelNotACage
from ..puzzle import Cage, target_possible
from ..vocab import ARITHMETIC, Cell, cell_name, label_parts, operator
from .readers import LabelReader
from .stages import CageLayout, ClueReading, GivenLabel, GridGeometry, LabelReading

# the operators that on a single cell still say its digit: the sum and the product of one digit
GIVEN_OPERATORS = "+*"


def clue_for(text: str, cells: tuple[Cell, ...], n: int, latin: bool = True) -> Cage | None:
    """The clue a label's text gives for these cells; None when it cannot be
    one ('-' or '/' on a single cell, no digits, or a target no digits up to n
    can make: each once per row and column, or with latin=False in any way, as
    a puzzle's text is checked).  A sum or product on a single cell ('7+', '9×':
    some apps print their givens so) is that cell's digit, as a bare number is;
    '-' or '/' over more than two cells is a puzzle book's (Cage.book_rule)."""
    if text and (operator(text[-1]) or "?") in GIVEN_OPERATORS and len(cells) == 1:
        text = text[:-1]
    if text and text[-1] in ARITHMETIC and len(cells) == 1:
        return None
    op, target = label_parts(text, len(cells))
    if target is None:
        return None
    try:
        cage = Cage(op, target, cells)
    except InvalidPuzzle:
        return None
    return cage if target_possible(cage, n, latin) else None


def read_cells(square: np.ndarray, geom: GridGeometry, reader: LabelReader) -> dict[Cell, LabelReading]:
    """What the label reader finds at the top of every cell (an empty text: no label)."""
    cells = [(r, c) for r in range(geom.size) for c in range(geom.size)]
    return dict(zip(cells, reader.read_cells(square, [geom.cell_box(*cell) for cell in cells])))


def read_clues(square: np.ndarray, geom: GridGeometry, layout: CageLayout, cells: dict[Cell, LabelReading],
               reader: LabelReader) -> tuple[ClueReading, ...]:
    """Every cage's label: the reading of its first cell (read_cells), confirmed
    by the reader's second witness where it has one."""
    readings = [ClueReading(cage, cells[cage[0]].texts) for cage in layout.cages]
    return tuple(reader.confirm(square, [geom.cell_box(*cage[0]) for cage in layout.cages], readings))


def given_labels(readings: tuple[ClueReading, ...], given: tuple[GivenLabel, ...]) -> tuple[ClueReading, ...]:
    """The readings with the labels the user gave (--label B3=12+) in place of
    what was read: certain, and marked as the user's."""
    if not given:
        return readings
    by_first = {rd.cells[0]: i for i, rd in enumerate(readings)}
    out = list(readings)
    for label in given:
        if label.cell not in by_first:
            starts = ", ".join(cell_name(rd.cells[0]) for rd in readings)
            raise LabelNotACage(f"--label {label}: no cage starts at {cell_name(label.cell)} as read (cages start"
                                f" at {starts}); see the cages with --debug-dir")
        i = by_first[label.cell]
        out[i] = ClueReading(readings[i].cells, ((label.text, 1.0),), "given")
    return tuple(out)
