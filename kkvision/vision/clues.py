"""Stage 3: read each cage's label into (operator, target).

The glyph model reads every glyph; the operator is the label's last glyph
when that is an operator class (÷ is recognised as its own three-part shape,
never as +).  A label with no operator is a bare number: a constant on a
single cell, a hidden operator on a bigger cage.  Each reading keeps, per
glyph, the runner-up classes so the reading stage can try corrections.  In
auto and tesseract modes every label's digits are also read by ONE batched
tesseract process: where the two readers agree the digits are sure; where
they differ the surer reading leads (tesseract's always in tesseract mode)
and the other is the first correction tried.
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
UNSURE = 0.12  # glyph confidence below which tesseract's digits lead when the readers differ


@dataclass(frozen=True)
class ClueReading:
    cells: tuple[Cell, ...]
    text: str  # the glyph classes read, e.g. '12+' ('÷' kept as read)
    op: str
    target: int | None  # None: no digits found
    confidence: float  # weakest glyph's
    alternatives: tuple[str, ...]  # other plausible texts, most likely first
    source: str = "glyphs"  # or 'tesseract'
    op_confidence: float = 1.0  # the operator glyph's (tesseract cannot vouch for it)


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


def _alternatives(chars: list[str], confs: list[float], others: list[tuple[str, ...]]) -> tuple[str, ...]:
    """Texts with one glyph swapped for its runner-up (least sure first; an
    operator for each other operator), then with one glyph dropped."""
    order = sorted(range(len(chars)), key=lambda i: confs[i])
    alts = []
    for i in order:
        swaps = [o for o in others[i] if o in OPERATORS][:3] if chars[i] in OPERATORS else list(others[i][:1])
        for o in swaps:
            alts.append("".join(chars[:i] + [o] + chars[i + 1:]))
    for i in order:
        alts.append("".join(chars[:i] + chars[i + 1:]))
    return tuple(dict.fromkeys(a for a in alts if a and a != "".join(chars)))


def _digit_crop(dark: np.ndarray, glyphs: list[Glyph], chars: list[str]) -> np.ndarray:
    """The label without its final operator: what tesseract is asked to read."""
    keep = glyphs[:-1] if len(glyphs) > 1 and chars[-1] in OPERATORS else glyphs
    x0, y0 = min(g.x0 for g in keep), min(g.y0 for g in keep)
    x1, y1 = max(g.x1 for g in keep), max(g.y1 for g in keep)
    return dark[y0:y1, x0:x1]


def read_clues(dark: np.ndarray, geom: GridGeometry, layout: CageLayout, engine: str = "auto"
               ) -> tuple[ClueReading, ...]:
    crops, readings, asked = [], [], []
    cut = [(label_crop(dark, geom, cells[0]), cells) for cells in layout.cages]
    segmented = [segment(crop) for crop, _ in cut]
    everything = classify([g for glyphs in segmented for g in glyphs])  # one batch for the puzzle
    at = 0
    for (crop, cells), glyphs in zip(cut, segmented):
        classes = everything[at: at + len(glyphs)]
        at += len(glyphs)
        chars = [c for c, _, _ in classes]
        confs = [p for _, p, _ in classes]
        others = [s for _, _, s in classes]
        text = "".join(chars)
        op, target = parse(text, len(cells))
        conf = min(confs) if confs else 0.0
        if any(ch in OPERATORS for ch in text[:-1]):  # an operator mid-label: something was misread
            conf = 0.0
        op_conf = confs[-1] if chars and chars[-1] in OPERATORS else 1.0
        readings.append(ClueReading(cells, text, op, target, conf, _alternatives(chars, confs, others),
                                    op_confidence=op_conf))
        crops.append(_digit_crop(crop, glyphs, chars) if glyphs else crop)
        if engine in ("tesseract", "auto"):
            asked.append(len(readings) - 1)
    if asked:
        numbers = ocr.read_numbers([crops[i] for i in asked])
        for i, digits in zip(asked, numbers):
            readings[i] = _combine(readings[i], digits, engine)
    return tuple(readings)


def _combine(glyph: ClueReading, digits: str, engine: str) -> ClueReading:
    """Merge tesseract's digits with the glyph reading.  Agreement makes a
    label sure; on disagreement the surer reading leads and the other becomes
    the first alternative the reading stage tries."""
    op_char = glyph.text[-1] if glyph.text and glyph.text[-1] in OPERATORS else ""
    theirs = digits + op_char
    ncells = len(glyph.cells)
    if not digits or theirs == glyph.text:
        sure = min(0.95, glyph.op_confidence) if digits else glyph.confidence
        return ClueReading(glyph.cells, glyph.text, glyph.op, glyph.target, max(glyph.confidence, sure),
                           glyph.alternatives, glyph.source, glyph.op_confidence)
    if engine == "tesseract" or glyph.confidence < UNSURE or glyph.target is None:
        op, target = parse(theirs, ncells)
        other_ops = tuple(digits + o for o in "+-*÷" if digits + o != theirs)
        return ClueReading(glyph.cells, theirs, op, target, 0.0,
                           (glyph.text,) + other_ops + glyph.alternatives, "tesseract", glyph.op_confidence)
    return ClueReading(glyph.cells, glyph.text, glyph.op, glyph.target, 0.0,
                       (theirs,) + glyph.alternatives, glyph.source, glyph.op_confidence)
