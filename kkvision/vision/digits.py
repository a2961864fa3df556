"""Read the answer written in a cell (printed, typed by an app, or by hand).

The crop is the whole cell inside its lines (CROP_*), normalised to SIDE x SIDE
darkness: an answer may be written anywhere in it and as big as it, over the
label's corner and up to the lines, so the network tells the kinds of ink
apart itself (the label at the top left, pencil marks, a placeholder, the
answer).  A small network (models/digits.onnx, made by
devtools/train_digits.py from synthetic cells and real writers' digits, its
probabilities calibrated by a temperature fitted on writers it never trained
on; run by nets.py) gives 11 classes: 0 = nothing written, 1..9, or NOTES =
only pencil marks (small candidate digits: a player's notes, never an
answer), with probabilities; a cell read with less than SURE is unsure, never
taken as an answer (nor as empty).  Whether there is ink where an answer goes
at all (ink_contrast) is measured below the label's row (AREA_*).
"""

from __future__ import annotations

import cv2
import numpy as np

from . import nets, stats

SIDE = 32
# what the network sees, in cell sides from the cell's top-left corner: the cell inside its lines
CROP_LEFT, CROP_RIGHT, CROP_TOP, CROP_BOTTOM = 0.04, 0.96, 0.04, 0.96
# where any answer has ink, whatever its size (the label's row above it): the ink tests look here
AREA_LEFT, AREA_RIGHT, AREA_TOP, AREA_BOTTOM = 0.1, 0.9, 0.2, 0.96
MIN_CONTRAST = 0.2  # darkness stretch never amplifies less than this (of 255) into full ink
PAPER_PERCENTILE, INK_PERCENTILE = 80, 1  # of the area's grey levels: its paper, and its darkest ink
SURE = 0.9  # a cell's reading below this probability is unsure
NOTES = 10  # the class of a cell holding only pencil marks
# an answer is ink at least this many grey levels darker than its paper: the faintest answer of
# bench/check.py's scenes has 37; a photo's streaks and a page's show-through that looked like a 1, 17-20
FAINT_INK = 28.0
# a cell whose answer place's darkest ink is less than this share of its lines' darkness holds nothing
# (surely blank whatever the network says): the faintest answer of bench/check.py's scenes is 0.19
EMPTY_INK_SHARE = 0.1
LINES_MARGIN = 0.15  # of the cell side round the cell: its grid lines are inside
LINES_PERCENTILE = 0.5  # of the grey levels of the cell and its margin: its lines (they are a few %)
MODEL = "digits.onnx"
# a cell's box moved by these (dx, dy, scale: shares of its side) is read again before its answer is
# called wrong (answers.read_written): a few percent of a cell is how far the grid stage's cell lines
# may be off in a photo, and a written digit read surely as another must stay that digit under them
NUDGES = ((0.03, 0.0, 1.0), (-0.03, 0.0, 1.0), (0.0, 0.03, 1.0), (0.0, -0.03, 1.0), (0.0, 0.0, 1.06),
          (0.0, 0.0, 0.94))


def cell_areas(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]],
               part: tuple[float, float, float, float] = (AREA_LEFT, AREA_TOP, AREA_RIGHT, AREA_BOTTOM),
               side: int = SIDE) -> list[np.ndarray]:
    """A part of each cell (left, top, right, bottom in cell sides), side x side grey levels (averaged
    down, not aliased): by default where an answer has ink.  The picture is blurred once for each size
    of averaging the cells ask for (a grid's cells ask for one or two), not once a cell."""
    blurred: dict[tuple[int, int], np.ndarray] = {}
    out = []
    for x0, y0, x1, y1 in cell_boxes:
        w, h = x1 - x0, y1 - y0
        bx0, by0 = x0 + part[0] * w, y0 + part[1] * h
        bx1, by1 = x0 + part[2] * w, y0 + part[3] * h
        sx, sy = (bx1 - bx0) / side, (by1 - by0) / side
        m = np.array([[sx, 0, bx0 + 0.5 * sx - 0.5], [0, sy, by0 + 0.5 * sy - 0.5]], np.float32)
        src = gray
        if sx > 1.5:
            k = (max(1, int(sx)), max(1, int(sy)))
            if k not in blurred:
                blurred[k] = cv2.blur(gray, k)
            src = blurred[k]
        out.append(cv2.warpAffine(src, m, (side, side), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE).astype(np.float32))
    return out


def cell_area(gray: np.ndarray, cell_box: tuple[float, float, float, float],
              part: tuple[float, float, float, float] = (AREA_LEFT, AREA_TOP, AREA_RIGHT, AREA_BOTTOM),
              side: int = SIDE) -> np.ndarray:
    """cell_areas of one cell."""
    return cell_areas(gray, [cell_box], part, side)[0]


def _levels(area: np.ndarray) -> tuple[float, float]:
    """The area's paper and ink grey levels."""
    return stats.percentile(area, PAPER_PERCENTILE), stats.percentile(area, INK_PERCENTILE)


def darkness(area: np.ndarray) -> np.ndarray:
    """Grey levels as float32 darkness 0..1, stretched between the area's paper and its darkest ink
    (never by more than 1 / MIN_CONTRAST: a blank area's grain stays faint)."""
    paper, ink = _levels(area)
    return np.clip((paper - area) / max(paper - ink, MIN_CONTRAST * 255.0), 0.0, 1.0)


def digit_crops(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]]) -> list[np.ndarray]:
    """digit_crop of many cells of one picture (blurred once, cell_areas)."""
    return [darkness(a) for a in cell_areas(gray, cell_boxes, (CROP_LEFT, CROP_TOP, CROP_RIGHT, CROP_BOTTOM))]


def digit_crop(gray: np.ndarray, cell_box: tuple[float, float, float, float]) -> np.ndarray:
    """The network's input for one cell: SIDE x SIDE float32 darkness of the whole cell inside its lines,
    stretched between its paper and its darkest ink."""
    return digit_crops(gray, [cell_box])[0]


def nudged(cell_box: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
    """The cell's box moved and scaled by each of NUDGES."""
    x0, y0, x1, y1 = cell_box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return [(cx + dx * w - k * w / 2, cy + dy * h - k * h / 2, cx + dx * w + k * w / 2, cy + dy * h + k * h / 2)
            for dx, dy, k in NUDGES]


def line_contrast(gray: np.ndarray, cell_box: tuple[float, float, float, float]) -> float:
    """How much darker than the paper the cell's lines (or its darkest ink) are, in grey levels: the
    whole cell and a margin round it, so its own grid lines."""
    x0, y0, x1, y1 = cell_box
    m = LINES_MARGIN * (x1 - x0)
    i0, j0 = max(0, int(x0 - m)), max(0, int(y0 - m))
    i1, j1 = min(gray.shape[1], int(x1 + m) + 1), min(gray.shape[0], int(y1 + m) + 1)
    region = gray[j0:j1, i0:i1]
    if region.size == 0:
        return 0.0
    return float(np.percentile(region, PAPER_PERCENTILE) - np.percentile(region, LINES_PERCENTILE))


def ink_contrast(gray: np.ndarray, cell_box: tuple[float, float, float, float]) -> float:
    """How much darker than the paper the darkest ink of the answer's place is, in grey levels."""
    paper, ink = _levels(cell_area(gray, cell_box))
    return paper - ink


def handwriting_crop(darkness: np.ndarray) -> np.ndarray:
    """A small darkness image of a lone digit (e.g. scikit-learn's 8x8 digits)
    placed as an answer sits in digit_crop's area."""
    inner = int(round(0.62 * SIDE))
    digit = cv2.resize(darkness.astype(np.float32), (inner, inner), interpolation=cv2.INTER_LINEAR)
    out = np.zeros((SIDE, SIDE), np.float32)
    top, left = int(round(0.45 * SIDE - inner / 2)), (SIDE - inner) // 2
    out[top:top + inner, left:left + inner] = digit
    return np.clip(out / max(float(out.max()), 1e-3), 0.0, 1.0)


def read_digits(crops: list[np.ndarray]) -> np.ndarray:
    """(N, 11) probabilities: column 0 nothing written, column d the digit d, NOTES only pencil marks."""
    if not crops:
        return np.zeros((0, NOTES + 1), np.float32)
    return nets.softmax(nets.scores(MODEL, crops), axis=1)
