"""Stage 3: read each cage's label into (operator, target).

The glyph model reads every glyph; the operator is the label's last glyph
when that is an operator class (÷ is recognised as its own three-part shape,
never as +).  A label with no operator is a bare number: a constant on a
single cell, a hidden operator on a bigger cage.  Each reading keeps, per
glyph, the runner-up class so the reading stage can try corrections.  With
--ocr tesseract (or for labels the model is unsure of, in auto mode) the
digits come from ONE batched tesseract process for all those labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..puzzle import Cell
from . import ocr
from .cages import CageLayout
from .glyphs import Glyph, classify, label_crop, segment
from .grid import GridGeometry

OPERATORS = {"+": "+", "-": "-", "*": "*", "/": "/", "÷": "/"}
UNSURE = 0.12  # glyph confidence below which auto mode asks tesseract too


@dataclass(frozen=True)
class ClueReading:
    cells: tuple[Cell, ...]
    text: str  # the glyph classes read, e.g. '12+' ('÷' kept as read)
    op: str
    target: int | None  # None: no digits found
    confidence: float  # weakest glyph's
    alternatives: tuple[str, ...]  # other plausible texts, most likely first
    source: str = "glyphs"  # or 'tesseract'


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


def _alternatives(chars: list[str], confs: list[float], seconds: list[str]) -> tuple[str, ...]:
    """Texts with one glyph swapped for its runner-up (least sure first), then one glyph dropped."""
    order = sorted(range(len(chars)), key=lambda i: confs[i])
    alts = []
    for i in order:
        alts.append("".join(chars[:i] + [seconds[i]] + chars[i + 1:]))
    for i in order:
        alts.append("".join(chars[:i] + chars[i + 1:]))
    return tuple(dict.fromkeys(a for a in alts if a and a != "".join(chars)))


def _digit_crop(dark: np.ndarray, glyphs: list[Glyph], chars: list[str]) -> np.ndarray:
    keep = [g for g, ch in zip(glyphs, chars) if ch not in OPERATORS] or glyphs
    x0, y0 = min(g.x0 for g in keep), min(g.y0 for g in keep)
    x1, y1 = max(g.x1 for g in keep), max(g.y1 for g in keep)
    return dark[y0:y1, x0:x1]


def read_clues(dark: np.ndarray, geom: GridGeometry, layout: CageLayout, engine: str = "auto"
               ) -> tuple[ClueReading, ...]:
    crops, readings, unsure = [], [], []
    for cells in layout.cages:
        crop = label_crop(dark, geom, cells[0])
        glyphs = segment(crop)
        classes = classify(glyphs)
        chars = [c for c, _, _ in classes]
        confs = [p for _, p, _ in classes]
        seconds = [s for _, _, s in classes]
        text = "".join(chars)
        op, target = parse(text, len(cells))
        conf = min(confs) if confs else 0.0
        readings.append(ClueReading(cells, text, op, target, conf, _alternatives(chars, confs, seconds)))
        crops.append(_digit_crop(crop, glyphs, chars) if glyphs else crop)
        if engine == "tesseract" or (engine == "auto" and (conf < UNSURE or target is None)):
            unsure.append(len(readings) - 1)
    if unsure:
        numbers = ocr.read_numbers([crops[i] for i in unsure])
        for i, digits in zip(unsure, numbers):
            old = readings[i]
            if not digits or (engine == "auto" and digits == str(old.target)):
                continue
            op_char = old.text[-1] if old.text and old.text[-1] in OPERATORS else ""
            text = digits + op_char
            op, target = parse(text, len(old.cells))
            alts = (old.text,) + old.alternatives if engine == "auto" else old.alternatives
            readings[i] = ClueReading(old.cells, text, op, target, old.confidence, alts, "tesseract")
    return tuple(readings)
