"""Read the labels that written answers hide in part: what shows of each, with the rest left free.

    read_hidden(square, geom, contents, layout, clues, models) -> clues

A big answer written over a cage's label hides some of its strokes, and the
content stage takes the answer's ink out with the label's strokes under it
(contents.clean): what is left of '10+' under a 5 is a '1', a gap and a '+'.
The label network, shown that, reads it as some other text, often surely
('20+' for '18+', '4*' for '4-'): on the working split's pages, one in six of
such labels read so that the truth was more than the reading stage's margin
less probable than the network's first text.  Not reading them at all
(reading.resolve_in_part's first way) leaves every cell they decide open.

So each such label is read again here, knowing where the answer lay: the
network's per-column character probabilities (labels.probabilities) are kept
where the label's band of the crop is clear of the answer's ink, and where
the answer covered more than OCCLUDED of a column's band, its probabilities
are mostly (FREE) replaced by even odds over every character and the blank:
the column may have held anything.  Every text that can be a clue for the
cage (clues.clue_for: the sums, differences, products and quotients its
cells can make, with or without an operator printed) is then weighed by CTC's
forward sum over those columns, and the weights are made probabilities over
those texts: a cage has a clue.  What shows of the label picks among the
clues its visible strokes fit ('1?+'), and the reading stage weighs those
with the other labels, as it weighs any label's candidates.

Measured on the working split's hand pages (bench/check.py's real hands, 'dev' writers, seeds 100..279,
not the ones it reports: 1,119 labels under answers, each with the truth among the cage's clues): the
network's own first text of the cleaned crop was the truth for 51%, and the truth more than the reading
stage's margin (50x) less probable than it for 174; read again here, the truth is the first text for 70%,
never more than the margin below it, and more than 2 nats below it for 3.
"""

from __future__ import annotations

import math

import numpy as np

from ..vocab import ARITHMETIC, PART_SHOWN, Cell
from . import labels
from .clues import clue_for
from .contents import closed
from .stages import CageLayout, ClueReading, Contents, GridGeometry

# The rows of the label crop a label's strokes lie in, as fractions of the cell side from its top: an
# answer's ink below them (where the crop reaches to the cell's middle) hides no label.
LABEL_BAND = (0.0, 0.31)
OCCLUDED = 0.1  # a column whose band the answer's ink covers more than this share of may have held anything
# ... and the columns either side of it too: the network reads a character from its neighbours' pixels as
# well, so a '+' whose upright the answer hid reads '-' in a column the answer hardly touched (on the working
# split's pages, 2 of 601 hidden labels' truths fell more than the margin below the first text without)
NEXT_TO = 1
FREE = 0.8  # ... its probabilities are this much even odds (the rest the network's: strokes at its edge show)
KEEP = 12.0  # nats: texts this much less probable than the first are left out (the reading stage's options)
MOST = 60  # ... and no more than this many texts are kept, most probable first
MAX_TARGET = 400_000  # products up to this are enumerated (4 cells of a 9x9: 9^4 = 6561; bigger cages rarer)


def read_hidden(square: np.ndarray, geom: GridGeometry, contents: Contents, layout: CageLayout,
                clues: tuple[ClueReading, ...], models: tuple[str, ...]) -> tuple[ClueReading, ...]:
    """The clues with each label whose band the written ink (`contents`, taken out of the cleaned `square`)
    covers in part read again from what shows of it (by each of `models`, their probabilities averaged):
    each text that can be a clue for the cage, with its probability, the source PART_SHOWN.  A label the
    user gave is kept; so is every clue when no model is named (a reader without column probabilities),
    and the label of a cage whose borders were changed to agree with where labels are (agree.py): an
    answer's strokes read as a label split a cage there, and what shows of its own label ('6', its '+'
    under the answer) is then read as a clue for the wrong cells (a lone '6')."""
    written = set(contents.written)
    mended = {cell for change in layout.changed for cell in (change.a, change.b)}
    todo = [i for i, rd in enumerate(clues)
            if rd.cells[0] in written and rd.source != "given" and not mended & set(rd.cells)]
    if not todo or not models or contents.ink is None:
        return clues
    side = float(geom.xs[-1] - geom.xs[0]) / geom.size
    mask = closed(contents.ink, side)  # as clean painted it over
    covered = {i: _occluded(labels.mask_crop(mask, geom.cell_box(*clues[i].cells[0]))) for i in todo}
    todo = [i for i in todo if covered[i].any()]
    if not todo:
        return clues
    crops = list(labels.label_crops(square, [geom.cell_box(*clues[i].cells[0]) for i in todo]))
    probs = [labels.probabilities(crops, model) for model in models]
    out = list(clues)
    for k, i in enumerate(todo):
        rd = clues[i]
        texts = candidates(rd.cells, geom.size)
        if not texts:
            continue
        weights = np.mean([_text_probabilities(_freed(p[k], covered[i]), texts) for p in probs], axis=0)
        order = np.argsort(-weights, kind="stable")
        top = float(weights[order[0]])
        kept = [(texts[j], float(weights[j])) for j in order[:MOST] if weights[j] >= top * math.exp(-KEEP)]
        out[i] = ClueReading(rd.cells, tuple(kept), PART_SHOWN)
    return tuple(out)


def _occluded(cover: np.ndarray) -> np.ndarray:
    """Per network column (4 px of the crop), whether the answer covered more than OCCLUDED of its label
    band there or in a column NEXT_TO it."""
    top, bottom = (round((f - labels.CROP_TOP) / (labels.CROP_BOTTOM - labels.CROP_TOP) * labels.CROP_H)
                   for f in LABEL_BAND)
    band = cover[max(0, top):bottom]
    step = labels.CROP_W // labels.COLUMNS
    covered = np.array([band[:, t * step:(t + 1) * step].mean() > OCCLUDED for t in range(labels.COLUMNS)])
    out = covered.copy()
    for d in range(1, NEXT_TO + 1):
        out[d:] |= covered[:-d]
        out[:-d] |= covered[d:]
    return out


def _freed(probs: np.ndarray, occluded: np.ndarray) -> np.ndarray:
    """The (T, classes) probabilities with the occluded columns made mostly (FREE) even odds."""
    out = probs.astype(np.float64)
    out[occluded] = (1.0 - FREE) * out[occluded] + FREE / out.shape[1]
    return out


def candidates(cells: tuple[Cell, ...], n: int) -> tuple[str, ...]:
    """Every text that is a clue for these cells in an n x n puzzle: each target the cells can make,
    with each operator they can take and with none printed (clues.clue_for decides)."""
    k = len(cells)
    out = []
    for op in ("",) + tuple(ARITHMETIC):
        for target in _targets(op, k, n):
            text = f"{target}{op}"
            if clue_for(text, cells, n) is not None:
                out.append(text)
    return tuple(out)


def _targets(op: str, k: int, n: int) -> list[int]:
    """The targets worth asking clue_for about (a superset of those it takes)."""
    if k == 1:
        return list(range(1, n + 1)) if op == "" else []
    if op in "-/" and op:
        return list(range(1, n + 1)) if k == 2 else []
    sums = set(range(1, n * k + 1))
    if op == "+":
        return sorted(sums)
    products = {1}
    for _ in range(k):
        products = {p * d for p in products for d in range(1, n + 1) if p * d <= MAX_TARGET}
    return sorted(products if op == "*" else products | sums)


def _text_probabilities(probs: np.ndarray, texts: tuple[str, ...]) -> np.ndarray:
    """Each text's CTC probability under the (T, classes) column probabilities, made to sum to 1."""
    logp = np.log(np.maximum(probs, 1e-30))
    scores = _ctc_log_likelihoods(logp, [[labels.ALPHABET.index(ch) + 1 for ch in t] for t in texts])
    scores -= scores.max()
    weights = np.exp(scores)
    return weights / weights.sum()


def _ctc_log_likelihoods(logp: np.ndarray, targets: list[list[int]]) -> np.ndarray:
    """log P(target | columns) under CTC (class 0 the blank) for each target, all at once."""
    size = 2 * max(len(t) for t in targets) + 1
    ext = np.zeros((len(targets), size), int)  # blank, c1, blank, c2, ..., blank; padded with blanks
    ends = np.array([2 * len(t) for t in targets])
    for i, chars in enumerate(targets):
        ext[i, 1:2 * len(chars):2] = chars
    skip = np.zeros_like(ext, bool)  # s may come from s-2: a character other than the one two back
    skip[:, 2:] = (ext[:, 2:] != 0) & (ext[:, 2:] != ext[:, :-2])
    alpha = np.full(ext.shape, -np.inf)
    alpha[:, 0] = logp[0, 0]
    alpha[:, 1] = logp[0, ext[:, 1]]
    for step in range(1, logp.shape[0]):
        one = np.concatenate([np.full((len(targets), 1), -np.inf), alpha[:, :-1]], axis=1)
        two = np.concatenate([np.full((len(targets), 2), -np.inf), alpha[:, :-2]], axis=1)
        two = np.where(skip, two, -np.inf)
        alpha = np.logaddexp(np.logaddexp(alpha, one), two) + logp[step, ext]
    rows = np.arange(len(targets))
    return np.logaddexp(alpha[rows, ends], alpha[rows, ends - 1])
