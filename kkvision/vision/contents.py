"""What is in each cell: the ink that is no label's, found and taken out before labels and borders are read.

    find_contents(square, geom) -> Contents     the written cells, and where their ink lies
    clean(square, geom, contents) -> square     that ink painted over from the paper and lines round it
    unlabelled(contents, layout) -> cells       the written cells no label can be in

A player's answers (typed, or written in any hand and any size up to the whole
cell, over the label's corner and the lines), pencil candidates and a site's
placeholders are no part of the puzzle: read as labels, they make labels of
their tops ("1-" from a 3) and doubtful borders of their strokes.  So the
picture is read as its blank puzzle would be:
  1. the cell-digit reader (vision/digits.py) looks at every cell; a cell
     where nothing written is less probable than WRITTEN holds something;
  2. for those cells only, a small segmentation network (models/contents.onnx,
     made by devtools/train_contents.py from synthetic cells whose answers,
     pencil marks and placeholders were drawn as layers of their own; run by
     nets.py) gives, for each pixel of the whole cell seen at SIDE x SIDE, the
     probability that its ink is no label's (answer, notes, placeholder);
  3. pixels above INK, grown by GROW of a cell side (the network's pixels
     are coarse), are painted over by inpainting from round them (cv2.inpaint),
     so a cell line an answer crossed runs on under it.
A blank picture's cells are all read as nothing written: it is read as before.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..vocab import Cell
from . import digits, nets
from .stages import CageLayout, Contents, GridGeometry

SIDE = 48  # the segmentation network's crop of one whole cell: 48 px keep a pencil mark's strokes apart
MODEL = "contents.onnx"
# a cell holds something when "nothing written" is less probable than this (the digit reader's
# probabilities are calibrated: at 0.5 it is as likely written as not)
WRITTEN = 0.5
INK = 0.5  # a pixel's probability of being no label's ink above which it is taken out
GROW = 0.02  # of the cell side: the mask is grown by this (a network pixel is 1/48 of the cell)
PAINT_RADIUS = 0.03  # of the cell side: how far round a taken-out pixel inpainting looks


def crops(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]]) -> list[np.ndarray]:
    """The network's input for each cell: SIDE x SIDE float32 darkness of the whole cell, its lines at the
    border, stretched between its paper and its darkest ink."""
    return [digits.darkness(a) for a in digits.cell_areas(gray, cell_boxes, (0.0, 0.0, 1.0, 1.0), SIDE)]


def ink_probability(crops: list[np.ndarray]) -> np.ndarray:
    """(N, SIDE, SIDE): each pixel's probability that its ink is no label's."""
    if not crops:
        return np.zeros((0, SIDE, SIDE), np.float32)
    return 1.0 / (1.0 + np.exp(-nets.scores(MODEL, crops)[:, 0]))


def find_contents(square: np.ndarray, geom: GridGeometry) -> Contents:
    """The cells of the grid where something besides a label is written, and where its ink lies."""
    n = geom.size
    cells = [(r, c) for r in range(n) for c in range(n)]
    probs = digits.read_digits(digits.digit_crops(square, [geom.cell_box(r, c) for r, c in cells]))
    written = [cell for cell, p in zip(cells, probs) if p[0] < 1.0 - WRITTEN]
    if not written:
        return Contents(())
    maps = ink_probability(crops(square, [geom.cell_box(r, c) for r, c in written]))
    ink = np.zeros(square.shape[:2], np.uint8)
    for (r, c), prob in zip(written, maps):
        x0, y0, x1, y1 = geom.cell_box(r, c)
        i0, j0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
        i1, j1 = min(square.shape[1], int(np.ceil(x1))), min(square.shape[0], int(np.ceil(y1)))
        if i1 <= i0 or j1 <= j0:
            continue
        sx, sy = SIDE / (x1 - x0), SIDE / (y1 - y0)  # square pixel -> network pixel
        m = np.array([[sx, 0, (i0 - x0) * sx - 0.5], [0, sy, (j0 - y0) * sy - 0.5]], np.float32)
        part = cv2.warpAffine(prob.astype(np.float32), m, (i1 - i0, j1 - j0),
                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        ink[j0:j1, i0:i1] = np.maximum(ink[j0:j1, i0:i1], (part > INK).astype(np.uint8) * 255)
    grow = max(1, int(round(GROW * _cell_side(geom))))
    grown = cv2.dilate(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
    return Contents(tuple(written), grown)


def _cell_side(geom: GridGeometry) -> float:
    return float(geom.xs[-1] - geom.xs[0]) / geom.size


def clean(square: np.ndarray, geom: GridGeometry, contents: Contents) -> np.ndarray:
    """The square with the written ink painted over from round it (the square itself when none)."""
    if not contents.written or contents.ink is None or not contents.ink.any():
        return square
    radius = max(2.0, PAINT_RADIUS * _cell_side(geom))
    return cv2.inpaint(square, contents.ink, radius, cv2.INPAINT_TELEA)


def unlabelled(contents: Contents, layout: CageLayout) -> tuple[Cell, ...]:
    """The written cells that no label can be in: not the first cell of a cage (its label's place)."""
    anchors = {cage[0] for cage in layout.cages}
    return tuple(cell for cell in contents.written if cell not in anchors)
