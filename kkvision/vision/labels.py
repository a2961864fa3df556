"""Read cage labels with the shipped neural network (run by nets.py).

Each label is read from a crop of its cell: the top part of the cell, a
little beyond its borders, in the straightened grid square, normalised to
CROP_H x CROP_W darkness (0 paper .. 1 ink).  Labels a third of the cell high
and more (as many websites print them) reach below that crop: when a grid's
labels are not all sure, it is read again with a TALL crop and the crop whose
labels read more surely, over the whole grid, is kept (labels of one grid
share one size).  A small convolutional network
(models/labels.onnx, trained by devtools/train_labels.py) gives, for each of
CROP_W/4 columns, a probability per character; CTC prefix beam search turns
them into the few most probable texts with their probabilities.  The text
alphabet is ALPHABET: digits and the four operators, with × x * read as '*'
and ÷ / as '/'.  An empty text means no label in the cell.

The network runs with OpenCV's dnn module: no training framework at run time.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict

import cv2
import numpy as np

from ..vocab import ARITHMETIC
from . import nets
from .stages import LabelReading
from .stats import grey_percentile, grey_percentiles, median

ALPHABET = "0123456789" + ARITHMETIC  # class k+1 is ALPHABET[k]; class 0 is the CTC blank (the model's order)
CROP_H, CROP_W = 40, 88
# The crop, in cell sides, relative to the cell's top-left corner: labels sit
# in the top-left of the cell; a little of the borders is kept so the crop
# never cuts a label that touches them, and the bottom stops above the middle
# where solution digits and pencil marks sit.
CROP_LEFT, CROP_RIGHT = -0.05, 1.03
CROP_TOP, CROP_BOTTOM = -0.05, 0.47
# The crop for big labels, as (width, height) times the usual crop's, from the
# same top-left corner: 1.25x as tall takes in labels up to ~45% of the cell
# (the training crops' labels end above CROP_BOTTOM, so a big label's foot is
# cut off in the usual crop), only 1.1x as wide so the right neighbour's label
# stays out of it (the network, trained on crops ending at the cell's right
# border, reads a neighbour's label as part of the cell's when it sees it whole).
TALL = (1.1, 1.25)
SURE = 0.9  # a grid whose every cell reads at least this surely is not read again with the TALL crop
CUT_OFF = 0.1  # ... nor one where fewer than this share of its labels reach the usual crop's bottom (cut off there):
               # book photos 0, big web labels 0.5-1, small app labels among dashed outlines 0.16 (read better TALL)
FOOT = (3, (0.12, 0.6), 0.5)  # a label reaches the bottom: ink (darkness >= 0.5) in the crop's last 3 rows, from
                              # past the cell's left border (at 0.05 of the crop) to 60% of its width
TALL_GAIN = 1.0  # nats: the TALL crop is kept only when its cells' best texts are this much likelier, in sum
MIN_CONTRAST = 0.16  # darkness stretch never amplifies less than this (of 255) into full ink
# A cell whose ink, where a label would be, spans less than FAINT of the median span of the cells read surely
# as labels holds no label (show-through, a pencil note) unless nothing else makes a puzzle: its texts are made
# FAINT_WEIGHT as likely (the reading stage's margin is 50x).  Real-dev's labels: 0.71 and more; held-out
# scenes' pale pink labels on tinted cages, 0.40; a book page's mirrored show-through read as '0', 0.13.
FAINT = 0.25
FAINT_WEIGHT = 0.01
FAINT_SURE = 3  # ... judged only in a grid with at least this many labels read surely
FAINT_IN = 0.04  # ... measured this far inside the cell's lines (of its side; a label starts 0.05 in and more)
BEAM = 8  # texts kept per step of the beam search
KEEP_PROB = 1e-3  # characters less likely than this at a step are not expanded
MODEL = "labels.onnx"
# A second label model, trained by the same script on crops whose faces are also reshaped (narrower,
# wider, slanted, lighter, heavier: devtools/train_labels.py --reshape): it reads other unseen app and web
# faces better and small URW print worse than MODEL, so it is asked only when MODEL's reading of a grid
# is refused (vision/read.py), never to overrule an answer.
SECOND_MODEL = "labels-second.onnx"
# The cell box moved and grown (dx, dy, grow: fractions of its side) for an ensemble reading (ensemble):
# a label of a face neither model saw can read otherwise when the crop moves by a few pixels (a blurred
# serif 5 read as 6 surely in one place, even odds 3% of a cell to the right), so where each model's
# reading and their mixture were refused (vision/read.py), each model reads every such crop and the texts'
# probabilities are averaged.  3% of a cell is 3-9 px in the 900 px square; grown 5% or shrunk 4% a side,
# the label is drawn about 9% smaller or bigger in the crop.
JITTERS = ((0.0, 0.0, 0.0), (0.03, 0.0, 0.0), (0.0, 0.03, 0.0), (0.0, 0.0, 0.05), (0.0, 0.0, -0.04))


def crop_box(cell_box: tuple[float, float, float, float], scale: tuple[float, float] = (1.0, 1.0)
             ) -> tuple[float, float, float, float]:
    """Where the label crop of a cell lies, in the same coordinates as the cell
    box; `scale` stretches it (width, height) from its top-left corner (TALL)."""
    x0, y0, x1, y1 = cell_box
    w, h = x1 - x0, y1 - y0
    right = CROP_LEFT + (CROP_RIGHT - CROP_LEFT) * scale[0]
    bottom = CROP_TOP + (CROP_BOTTOM - CROP_TOP) * scale[1]
    return x0 + CROP_LEFT * w, y0 + CROP_TOP * h, x0 + right * w, y0 + bottom * h


def label_crop(gray: np.ndarray, cell_box: tuple[float, float, float, float],
               scale: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """The network's input for one cell: CROP_H x CROP_W float32 darkness."""
    return normalise(_grey_crop(gray, cell_box, scale))


def label_crops(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]],
                scale: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """label_crop of every cell box, as one (N, CROP_H, CROP_W) array, normalised together."""
    if not cell_boxes:
        return np.zeros((0, CROP_H, CROP_W), np.float32)
    return normalise_all(np.stack([_grey_crop(gray, box, scale) for box in cell_boxes]))


def _grey_crop(gray: np.ndarray, cell_box: tuple[float, float, float, float],
               scale: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """The grey CROP_H x CROP_W crop of one cell's label, before normalise."""
    bx0, by0, bx1, by1 = crop_box(cell_box, scale)
    # an affine map of the box onto the crop, so sub-pixel boxes and boxes
    # reaching past the picture's edge (its border pixels repeated) work alike
    sx, sy = (bx1 - bx0) / CROP_W, (by1 - by0) / CROP_H
    m = np.array([[sx, 0, bx0 + 0.5 * sx - 0.5], [0, sy, by0 + 0.5 * sy - 0.5]], np.float32)
    interp = cv2.INTER_AREA if sx > 1.5 else cv2.INTER_LINEAR
    src = gray
    if sx > 1.5:  # shrinking a lot: smooth the crop's neighbourhood first so thin strokes survive
        k = int(sx) | 1
        h, w = gray.shape[:2]
        x0, y0 = max(0, int(bx0) - k), max(0, int(by0) - k)
        x1, y1 = min(w, int(bx1) + k + 1), min(h, int(by1) + k + 1)
        if x1 > x0 and y1 > y0:
            src = cv2.blur(gray[y0:y1, x0:x1], (k, k))
            m[0, 2] -= x0
            m[1, 2] -= y0
    return cv2.warpAffine(src, m, (CROP_W, CROP_H), flags=interp | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def normalise(crop: np.ndarray) -> np.ndarray:
    """Grey crop -> darkness 0 (paper) .. 1 (darkest ink), robust to tint and faint print."""
    c = crop.astype(np.float32)
    paper = float(np.percentile(c, 75))
    ink = float(np.percentile(c, 1))
    span = max(paper - ink, MIN_CONTRAST * 255.0)
    return np.clip((paper - c) / span, 0.0, 1.0)


def normalise_all(crops: np.ndarray) -> np.ndarray:
    """normalise of each of (N, h, w) grey crops, in one pass (the same numbers as one by one)."""
    c = crops.astype(np.float32)
    if crops.dtype == np.uint8 and crops.size:  # whole grey levels: from histograms, the same numbers
        grey = crops.reshape(len(crops), -1)
        paper, ink = grey_percentiles(grey, 75).astype(np.float64), grey_percentiles(grey, 1).astype(np.float64)
    else:  # one percentile per call, as normalise takes them: a list of percentiles would be computed in float64
        flat = c.reshape(len(c), -1)
        paper, ink = np.percentile(flat, 75, axis=1).astype(np.float64), np.percentile(flat, 1, axis=1).astype(np.float64)
    span = np.maximum(paper - ink, MIN_CONTRAST * 255.0)
    # as normalise's Python floats meet a float32 crop: each taken as float32
    paper32, span32 = paper.astype(np.float32)[:, None, None], span.astype(np.float32)[:, None, None]
    return np.clip((paper32 - c) / span32, 0.0, 1.0)


def probabilities(crops: list[np.ndarray], model: str | None = None) -> np.ndarray:
    """(N, T, classes) per-column character probabilities for N crops (by MODEL unless another is named)."""
    if not crops:
        return np.zeros((0, CROP_W // 4, len(ALPHABET) + 1), np.float32)
    logits = nets.scores(model or MODEL, crops)  # (N, classes, 1, T)
    return nets.softmax(logits.reshape(logits.shape[0], logits.shape[1], -1).transpose(0, 2, 1), axis=2)


def decode(probs: np.ndarray, keep: int = 5) -> tuple[tuple[str, float], ...]:
    """CTC prefix beam search over one crop's (T, classes) probabilities:
    the `keep` most probable texts with their probabilities."""
    beams: dict[tuple[int, ...], tuple[float, float]] = {(): (1.0, 0.0)}  # prefix -> (ends blank, ends char)
    live_at: list[list[int]] = [[] for _ in range(len(probs))]  # per step, the characters likely enough to expand
    for t, k in zip(*(ix.tolist() for ix in np.nonzero(probs[:, 1:] >= KEEP_PROB))):
        live_at[t].append(k + 1)
    for live, row in zip(live_at, probs.tolist()):
        blank = row[0]
        if not live:  # only the blank is likely: every prefix now ends in it, and keeps its place in the ranking
            beams = {prefix: ((pb + pc) * blank, 0.0) for prefix, (pb, pc) in beams.items()}
            continue
        nxt: dict[tuple[int, ...], list[float]] = {}
        for prefix, (pb, pc) in beams.items():
            total = pb + pc
            entry = nxt.setdefault(prefix, [0.0, 0.0])
            entry[0] += total * blank
            for k in live:
                p = row[k]
                if prefix and prefix[-1] == k:
                    entry[1] += pc * p  # a repeat without a blank between merges
                    ext = nxt.setdefault(prefix + (k,), [0.0, 0.0])
                    ext[1] += pb * p
                else:
                    ext = nxt.setdefault(prefix + (k,), [0.0, 0.0])
                    ext[1] += total * p
        ranked = sorted(nxt.items(), key=lambda kv: kv[1][0] + kv[1][1], reverse=True)[:BEAM]
        beams = {k: (v[0], v[1]) for k, v in ranked}
    ranked_out = sorted(beams.items(), key=lambda kv: kv[1][0] + kv[1][1], reverse=True)[:keep]
    return tuple(("".join(ALPHABET[k - 1] for k in prefix), pb + pc) for prefix, (pb, pc) in ranked_out)


def read_labels(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]], model: str | None = None
                ) -> list[LabelReading]:
    """The most probable texts of the label in each cell (an empty text: no
    label), from the usual crop or, for a grid of big labels, the TALL one.
    A grid's retries read its square again with a model that read it before
    (both models together, then from moved crops too): the last READ_MEMO
    readings are kept, by square (the same array, never changed once made),
    boxes and model."""
    key = (id(gray), tuple(map(tuple, cell_boxes)), model or MODEL, nets.generation())  # id: checked below
    with _MEMO_LOCK:
        kept = _MEMO.get(key)
        if kept is not None and kept[0]() is gray:
            _MEMO.move_to_end(key)
            return list(kept[1])
    readings = _read_labels(gray, cell_boxes, model)
    with _MEMO_LOCK:
        _MEMO[key] = (weakref.ref(gray), tuple(readings))
        while len(_MEMO) > READ_MEMO:
            _MEMO.popitem(last=False)
    return readings


def _read_labels(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]], model: str | None
                 ) -> list[LabelReading]:
    crops, usual = _read(gray, cell_boxes, (1.0, 1.0), model)
    if all(rd.texts and rd.texts[0][1] >= SURE for rd in usual) or _cut_off(crops, usual) < CUT_OFF:
        return _faint(gray, cell_boxes, usual)
    _, tall = _read(gray, cell_boxes, TALL, model)
    return _faint(gray, cell_boxes, tall if _sureness(tall) > _sureness(usual) + TALL_GAIN else usual)


READ_MEMO = 8  # readings kept: a grid's retries read its square again by each model (both together, then the unmoved crops first)
_MEMO: OrderedDict[tuple[object, ...], tuple[weakref.ref[np.ndarray], tuple[LabelReading, ...]]] = OrderedDict()
_MEMO_LOCK = threading.Lock()


def _faint(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]], readings: list[LabelReading]
           ) -> list[LabelReading]:
    """The readings, each text of a cell whose ink is far fainter than the grid's sure labels' (FAINT)
    made FAINT_WEIGHT as likely, the rest of its probability going to no label.  Each crop is normalised
    on its own, so a page's show-through (the back's print, mirrored, grey) or a pencil note in a
    label's place reads as surely as print; but the labels of one grid are printed alike."""
    contrast = [_ink_contrast(gray, box) for box in cell_boxes]
    sure = [c for c, rd in zip(contrast, readings) if rd.best and rd.probability >= SURE]
    if len(sure) < FAINT_SURE:
        return readings
    least = FAINT * median(np.asarray(sure))
    out = []
    for c, rd in zip(contrast, readings):
        if c >= least or not rd.best:
            out.append(rd)
            continue
        texts = {t: p * (1.0 if t == "" else FAINT_WEIGHT) for t, p in rd.texts}
        texts[""] = texts.get("", 0.0) + (1.0 - FAINT_WEIGHT) * rd.has_label
        out.append(LabelReading(tuple(sorted(texts.items(), key=lambda tp: -tp[1]))))
    return out


def _ink_contrast(gray: np.ndarray, cell_box: tuple[float, float, float, float]) -> float:
    """Grey levels from the paper (its brighter quarter) to the darkest ink where a label of the cell would
    be, FAINT_IN inside the cell's lines: the darkest of its pixels averaged two by two (a speck of noise
    is no ink; a thin '1' of a light face, a hundredth of the place, is)."""
    x0, y0, x1, y1 = cell_box
    w, h = x1 - x0, y1 - y0
    region = gray[max(0, int(y0 + FAINT_IN * h)):max(0, int(y0 + CROP_BOTTOM * h)),
                  max(0, int(x0 + FAINT_IN * w)):max(0, int(x1 - FAINT_IN * w))]
    if region.shape[0] < 2 or region.shape[1] < 2:
        return 0.0
    return grey_percentile(region, 75) - float(cv2.blur(region, (2, 2)).min())  # np.percentile's number, quicker


def mixture(*readings: list[LabelReading]) -> list[LabelReading]:
    """Each cell's readings by several models as one: each text's probability the mean of the models'
    (a text a model did not list counts 0 there), most probable first.  Where the models disagree the
    texts share the probability, and the reading stage weighs them by which gives a puzzle."""
    out = []
    for cell in zip(*readings):
        texts: dict[str, float] = {}
        for rd in cell:
            for text, p in rd.texts:
                texts[text] = texts.get(text, 0.0) + p / len(cell)
        out.append(LabelReading(tuple(sorted(texts.items(), key=lambda tp: -tp[1]))))
    return out


def ensemble(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]],
             models: tuple[str, ...] = (MODEL, SECOND_MODEL)) -> list[LabelReading]:
    """Each cell's reading by every model from every JITTERS crop of it, as one (mixture)."""
    readings = []
    for dx, dy, grow in JITTERS:
        boxes = [(x0 + (dx - grow) * (x1 - x0), y0 + (dy - grow) * (y1 - y0),
                  x1 + (dx + grow) * (x1 - x0), y1 + (dy + grow) * (y1 - y0)) for x0, y0, x1, y1 in cell_boxes]
        readings += [read_labels(gray, boxes, model) for model in models]
    return mixture(*readings)


def _read(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]], scale: tuple[float, float],
          model: str | None = None) -> tuple[list[np.ndarray], list[LabelReading]]:
    crops = list(label_crops(gray, cell_boxes, scale))
    return crops, [LabelReading(decode(p)) for p in probabilities(crops, model)]


def _cut_off(crops: list[np.ndarray], readings: list[LabelReading]) -> float:
    """The share of the cells read as labelled whose ink reaches the crop's bottom
    under the label (a big label's foot cut off, or an answer written below it)."""
    rows, (left, right), ink = FOOT
    labelled = [c for c, rd in zip(crops, readings) if rd.texts and rd.texts[0][0]]
    if not labelled:
        return 1.0  # nothing read as a label: perhaps all cut off
    return float(np.mean([c[-rows:, int(left * CROP_W):int(right * CROP_W)].max() >= ink for c in labelled]))


def _sureness(readings: list[LabelReading]) -> float:
    """How surely a grid's cells read: the sum of the log probability of each cell's best text."""
    return sum(math.log(max(rd.texts[0][1] if rd.texts else 0.0, 1e-9)) for rd in readings)

