"""Stage 3: read each cage's label as texts with probabilities.

The label network (labels.py) reads the top of every cell (read_cells: the
cage stage checks its borders against where labels are) and, for each cage's
first cell, gives its few most probable texts ('12+', '3', '' for nothing legible).  In
`tesseract` mode tesseract also reads every label's digits in ONE
process (ocr.py) and counts as an independent witness: texts whose digits
agree with it become more probable (TESSERACT_RIGHT), and its own digits join
the candidates when the network did not offer them.  The reading stage then
weighs every cage's candidates together with the solver.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidPuzzle, LabelNotACage
from ..puzzle import Cage, Cell, cell_name, target_possible
from . import ocr
from .cages import CageLayout
from .grid import GridGeometry
from .labels import LabelReading, label_crop, read_labels

OPERATORS = {"+": "+", "-": "-", "*": "*", "/": "/", "÷": "/", "x": "*", "×": "*", "−": "-"}
TESSERACT_RIGHT = 0.75  # how often tesseract's digits are the label's (its likelihood as a witness)
DIGIT_STRINGS = 20  # the digit strings tesseract is taken to confuse among, for its error likelihood
NEW_TEXT_SHARE = 0.5  # of the network's leftover probability, what a tesseract-only text may take


@dataclass(frozen=True)
class ClueReading:
    cells: tuple[Cell, ...]
    texts: tuple[tuple[str, float], ...]  # what the label may say, most probable first ('' = nothing)
    source: str = "model"  # 'model', 'model+tesseract', or 'given' (--label)

    @property
    def text(self) -> str:
        return self.texts[0][0] if self.texts else ""

    @property
    def probability(self) -> float:
        return self.texts[0][1] if self.texts else 0.0

    @property
    def op(self) -> str:
        return parse(self.text, len(self.cells))[0]

    @property
    def target(self) -> int | None:
        return parse(self.text, len(self.cells))[1]


def parse(text: str, ncells: int) -> tuple[str, int | None]:
    """'12+' -> ('+', 12); bare numbers -> '=' on one cell, '?' on several."""
    op = ""
    if text and text[-1] in OPERATORS:
        op, text = OPERATORS[text[-1]], text[:-1]
    digits = "".join(ch for ch in text if ch.isdigit())
    target = int(digits) if digits else None
    if ncells == 1:
        return "=", target
    if op in ("-", "/") and ncells != 2:
        op = "?"
    return (op or "?"), target


def clue_for(text: str, cells: tuple[Cell, ...], n: int) -> Cage | None:
    """The clue a label's text gives for these cells; None when it cannot be
    one (an operator on a single cell, '-' or '/' on other than two cells, no
    digits, or a target no digits up to n can make)."""
    if text and text[-1] in "+-*/" and len(cells) == 1:
        return None
    if text and text[-1] in "-/" and len(cells) != 2:
        return None
    op, target = parse(text, len(cells))
    if target is None:
        return None
    try:
        cage = Cage(op, target, cells)
    except InvalidPuzzle:
        return None
    return cage if target_possible(cage, n) else None


def read_cells(square: np.ndarray, geom: GridGeometry) -> dict[Cell, LabelReading]:
    """What the label reader finds at the top of every cell (an empty text: no label)."""
    cells = [(r, c) for r in range(geom.size) for c in range(geom.size)]
    return dict(zip(cells, read_labels(square, [geom.cell_box(*cell) for cell in cells])))


def read_clues(square: np.ndarray, geom: GridGeometry, layout: CageLayout, cells: dict[Cell, LabelReading],
               engine: str = "model") -> tuple[ClueReading, ...]:
    """Every cage's label: the reading of its first cell (read_cells), with
    tesseract's digits as a second witness in `tesseract` mode."""
    boxes = [geom.cell_box(*cage[0]) for cage in layout.cages]
    readings = [ClueReading(cage, cells[cage[0]].texts) for cage in layout.cages]
    if engine != "tesseract" or not readings:
        return tuple(readings)
    crops = [_digit_crop(square, box, rd.text) for box, rd in zip(boxes, readings)]
    numbers = ocr.read_numbers(crops)
    return tuple(_witness(rd, digits) for rd, digits in zip(readings, numbers))


def _digit_crop(square: np.ndarray, box: tuple[float, float, float, float], text: str) -> np.ndarray:
    """The label's crop as darkness, without its operator's share of the width
    (tesseract reads only digits; an operator would be read as one)."""
    crop = label_crop(square, box)
    if text and text[-1] in OPERATORS and len(text) > 1:
        ink = np.flatnonzero(crop.max(axis=0) > 0.5)
        if ink.size:
            right = ink[0] + (ink[-1] - ink[0]) * (len(text) - 1) / len(text)
            crop = crop[:, : int(right) + 1]
    return crop


def _witness(rd: ClueReading, digits: str) -> ClueReading:
    """Bayes with tesseract as an independent witness of the digits."""
    if not digits:
        return rd
    right, wrong = TESSERACT_RIGHT, (1 - TESSERACT_RIGHT) / DIGIT_STRINGS
    texts = dict(rd.texts)
    leftover = max(0.0, 1.0 - sum(texts.values()))
    op = rd.text[-1] if rd.text and rd.text[-1] in OPERATORS else ""
    if digits + op not in texts:
        texts[digits + op] = NEW_TEXT_SHARE * leftover
    weighted = {t: p * (right if t.rstrip("+-*/") == digits else wrong) for t, p in texts.items()}
    total = sum(weighted.values()) + leftover * (1 - NEW_TEXT_SHARE) * wrong
    ranked = sorted(((t, p / total) for t, p in weighted.items() if p > 0), key=lambda tp: -tp[1])
    return ClueReading(rd.cells, tuple(ranked), "model+tesseract")


def given_labels(readings: tuple[ClueReading, ...], given: tuple[tuple[Cell, str], ...]) -> tuple[ClueReading, ...]:
    """The readings with the labels the user gave (--label B3=12+) in place of
    what was read: certain, and marked as the user's."""
    if not given:
        return readings
    by_first = {rd.cells[0]: i for i, rd in enumerate(readings)}
    out = list(readings)
    for cell, text in given:
        if cell not in by_first:
            starts = ", ".join(cell_name(rd.cells[0]) for rd in readings)
            raise LabelNotACage(f"--label {cell_name(cell)}: no cage starts there as read (cages start at"
                                f" {starts}); see the cages with --debug-dir")
        i = by_first[cell]
        out[i] = ClueReading(readings[i].cells, ((text, 1.0),), "given")
    return tuple(out)
