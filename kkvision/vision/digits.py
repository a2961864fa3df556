"""Read the answer written in a cell (printed, typed by an app, or by hand).

The crop is the middle and bottom of the cell (the label sits at the top
left; pencil marks are small and the network learned to pass them over),
normalised to SIDE x SIDE darkness.  A small network (models/digits.onnx,
made by devtools/train_digits.py, run by nets.py) gives 10 classes: 0 = nothing written, or
1..9, with probabilities; a cell read with less than SURE is unsure, never
taken as an answer.
"""

from __future__ import annotations

import cv2
import numpy as np

from . import nets

SIDE = 28
# where an answer is written, in cell sides from the cell's top-left corner
AREA_LEFT, AREA_RIGHT, AREA_TOP, AREA_BOTTOM = 0.1, 0.9, 0.2, 0.96
MIN_CONTRAST = 0.2  # darkness stretch never amplifies less than this (of 255) into full ink
SURE = 0.9  # a cell's reading below this probability is unsure
MODEL = "digits.onnx"


def digit_crop(gray: np.ndarray, cell_box: tuple[float, float, float, float]) -> np.ndarray:
    """The network's input for one cell: SIDE x SIDE float32 darkness."""
    x0, y0, x1, y1 = cell_box
    w, h = x1 - x0, y1 - y0
    bx0, by0 = x0 + AREA_LEFT * w, y0 + AREA_TOP * h
    bx1, by1 = x0 + AREA_RIGHT * w, y0 + AREA_BOTTOM * h
    sx, sy = (bx1 - bx0) / SIDE, (by1 - by0) / SIDE
    m = np.array([[sx, 0, bx0 + 0.5 * sx - 0.5], [0, sy, by0 + 0.5 * sy - 0.5]], np.float32)
    src = cv2.blur(gray, (max(1, int(sx)), max(1, int(sy)))) if sx > 1.5 else gray
    crop = cv2.warpAffine(src, m, (SIDE, SIDE), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    paper, ink = float(np.percentile(crop, 80)), float(np.percentile(crop, 1))
    return np.clip((paper - crop) / max(paper - ink, MIN_CONTRAST * 255.0), 0.0, 1.0)


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
    """(N, 10) probabilities: column 0 nothing written, column d the digit d."""
    if not crops:
        return np.zeros((0, 10), np.float32)
    return nets.softmax(nets.scores(MODEL, crops), axis=1)
