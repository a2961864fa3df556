"""The label readers: one class per reader, chosen by name (--ocr).

A reader reads the top of every cell of the straightened square (the cage
stage checks its borders against where labels are), then may confirm each
cage's label with a second witness.  Replacing the label network is writing
one class here with these two methods and listing it in READERS.

  model      the shipped label network (labels.py): the default
  tesseract  the network, with tesseract reading each cage label's digits in one
             process as an independent witness (Bayes): measured no better on
             real or synthetic pictures, and 0.1-0.2 s slower (README)
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..vocab import ARITHMETIC, READER_ALIASES
from .stages import Box, ClueReading, LabelReading

TESSERACT_RIGHT = 0.75  # how often tesseract's digits are the label's (its likelihood as a witness)
DIGIT_STRINGS = 20  # the digit strings tesseract is taken to confuse among, for its error likelihood
NEW_TEXT_SHARE = 0.5  # of the network's leftover probability, what a tesseract-only text may take
BOTH = "both"  # reader(..., second=BOTH): both label models' readings as one (labels.mixture)
MOVED = "moved"  # reader(..., second=MOVED): both models' readings of the usual and moved crops (labels.ensemble)


class LabelReader(Protocol):
    name: str
    processes: int  # helper processes this reader has started (tesseract)

    def read_cells(self, square: np.ndarray, boxes: list[Box]) -> list[LabelReading]:
        """What the top of each cell box may say ('' = no label)."""
        ...

    def confirm(self, square: np.ndarray, boxes: list[Box], clues: list[ClueReading]) -> list[ClueReading]:
        """Each cage's label reading (its first cell's box), weighed with any second witness."""
        ...


class NetworkReader:
    """The shipped label network, run by OpenCV's dnn module (`second`: the
    second label model, asked when the first one's reading is refused; 'both':
    the two models' readings as one, labels.mixture, asked when each alone is
    refused; 'moved': theirs of the usual crop and of crops moved a little,
    labels.ensemble, asked when that is refused too)."""

    name = "model"

    def __init__(self, second: bool | str = False) -> None:
        self.processes = 0
        self.second = second

    def read_cells(self, square: np.ndarray, boxes: list[Box]) -> list[LabelReading]:
        from .labels import MODEL, SECOND_MODEL, ensemble, mixture, read_labels

        if self.second == BOTH:
            return mixture(read_labels(square, boxes, MODEL), read_labels(square, boxes, SECOND_MODEL))
        if self.second == MOVED:
            return ensemble(square, boxes)
        return read_labels(square, boxes, SECOND_MODEL if self.second else MODEL)

    def confirm(self, square: np.ndarray, boxes: list[Box], clues: list[ClueReading]) -> list[ClueReading]:
        return clues


class TesseractWitness(NetworkReader):
    """The network, with tesseract's digits as an independent witness."""

    name = "tesseract"

    def confirm(self, square: np.ndarray, boxes: list[Box], clues: list[ClueReading]) -> list[ClueReading]:
        from . import ocr

        if not clues:
            return clues
        numbers = ocr.read_numbers([_digit_crop(square, box, rd.text) for box, rd in zip(boxes, clues)])
        self.processes += 1
        return [witness(rd, digits, self.name) for rd, digits in zip(clues, numbers)]


READERS: dict[str, type[NetworkReader]] = {cls.name: cls for cls in (NetworkReader, TesseractWitness)}


def reader(name: str, second: bool | str = False) -> LabelReader:
    """A fresh reader of that name (vocab.LABEL_READERS, or an older alias),
    with the second label model when `second` (both models when BOTH, from moved crops too when MOVED)."""
    return READERS[READER_ALIASES.get(name, name)](second)


def _digit_crop(square: np.ndarray, box: Box, text: str) -> np.ndarray:
    """The label's crop as darkness, without its operator's share of the width
    (tesseract reads only digits; an operator would be read as one)."""
    from .labels import label_crop

    crop = label_crop(square, box)
    if text and text[-1] in ARITHMETIC and len(text) > 1:
        ink = np.flatnonzero(crop.max(axis=0) > 0.5)
        if ink.size:
            right = ink[0] + (ink[-1] - ink[0]) * (len(text) - 1) / len(text)
            crop = crop[:, : int(right) + 1]
    return crop


def witness(rd: ClueReading, digits: str, source: str = "tesseract") -> ClueReading:
    """Bayes with a second reader as an independent witness of the digits."""
    if not digits:
        return rd
    right, wrong = TESSERACT_RIGHT, (1 - TESSERACT_RIGHT) / DIGIT_STRINGS
    texts = dict(rd.texts)
    leftover = max(0.0, 1.0 - sum(texts.values()))
    op = rd.text[-1] if rd.text and rd.text[-1] in ARITHMETIC else ""
    if digits + op not in texts:
        texts[digits + op] = NEW_TEXT_SHARE * leftover
    weighted = {t: p * (right if t.rstrip(ARITHMETIC) == digits else wrong) for t, p in texts.items()}
    total = sum(weighted.values()) + leftover * (1 - NEW_TEXT_SHARE) * wrong
    ranked = sorted(((t, p / total) for t, p in weighted.items() if p > 0), key=lambda tp: -tp[1])
    return ClueReading(rd.cells, tuple(ranked), f"model+{source}")
