"""A written answer's second reading: its ink alone, framed as MNIST frames a digit.

    framed_crops(alone, cell_boxes) -> crops        each cell's answer ink in a FRAME x FRAME crop (None: no ink)
    stroke_crops(square, ink, cell_boxes) -> crops  ... its whole strokes, where the mask `ink` touches them
    read_framed(crops) -> probabilities             (N, 9): the digits 1..9 (a row of zeros where a crop is None)
    shapes(crops) -> features                       (N, F): what the reader sees in each, unit length (zeros: None)

The cell reader (digits.py) reads the whole cell as it is: the label, the lines,
pencil marks and an answer of any size anywhere in it, which it must learn to
tell apart.  check's second look (answers.read_written) gives an answer read
neither surely right nor surely wrong another reading: the cell's ink that is no
label's alone (contents.alone_in), its box scaled to BOX on its longer side and
centred by its mass in FRAME x FRAME, as MNIST's digits are framed, so that a
network trained on real writers' digits (models/answers.onnx, made by
devtools/train_answers.py; run by nets.py) reads it without the cell round it,
and whatever its size and place.  Specks of the label or the lines left with
the answer (under SPECK of its ink) are left out.  The content network's mask
may miss part of an answer (half an 8's loop, a stroke's end beside the label):
stroke_crops frames the cell's strokes themselves that the mask covers at
least TOUCHED of (off the cell's lines and out of the label's place where the
mask is not), the answer's whole strokes; check takes either framing's reading.
shapes gives what the network's last layer reads of each crop (its 'features'
output), so that answers can be compared with each other: two answers a hand
wrote alike are near there whatever digit the classes make of them
(answers.in_one_hand).
"""

from __future__ import annotations

import cv2
import numpy as np

from . import contents, digits, nets

MODEL = "answers.onnx"
FRAME, BOX = 28, 20  # MNIST's: a 28 x 28 crop, the digit's box 20 px on its longer side
LEVEL = 0.3  # of the cell's darkness (paper to its darkest ink): a pixel this dark is the answer's ink
SPECK = 0.05  # of the answer's ink: a piece of ink apart from the rest smaller than this is a speck
# a piece of ink with nearly all its pixels (EDGE_SHARE) this near the area's sides (of its side) is a cell
# line's, never the answer's: a phone photo's blurred frame, its colour near a dark pen's, was left in the
# answer's mask as an L along two sides and framed with a 6 read 4 (EDGE: the band by a lattice line a
# taken-out pixel may be on, contents.LINE_BAND: the heaviest cage border and its blur are under a tenth of a cell)
EDGE, EDGE_SHARE = contents.LINE_BAND, 0.9
AREA = (0.02, 0.02, 0.98, 0.98)  # the part of the cell looked at, in cell sides: all but its lines' middle
AREA_SIDE = 64  # px: the cell's area is read at this size before framing (a 20 px box keeps its detail)
# stroke_crops: a stroke (a piece of the cell's ink) the mask covers this share of is the answer's whole
TOUCHED = 0.3
LINES = 0.06  # of the area's side at its edges: where the cell's lines lie (never a stroke of the answer's)
# the label's place, kept out: contents.LABEL_PLACE's fractions, here of the area's side (its 2% in from the
# cell's lines move it by about a pixel at AREA_SIDE)
LABEL_PLACE = contents.LABEL_PLACE


def framed_crops(alone: np.ndarray, cell_boxes: list[tuple[float, float, float, float]]) -> list[np.ndarray | None]:
    """Each cell's answer in `alone` (a square with only the answers' ink, contents.alone_in) framed:
    FRAME x FRAME float32 darkness 0..1; None where the cell has no ink."""
    return [framed(digits.darkness(a)) for a in digits.cell_areas(alone, cell_boxes, AREA, AREA_SIDE)]


def stroke_crops(square: np.ndarray, ink: np.ndarray, cell_boxes: list[tuple[float, float, float, float]]
                 ) -> list[np.ndarray | None]:
    """Each cell's strokes that `ink` (contents.written_ink's mask of the square, 255 on the answers'
    ink) covers at least TOUCHED of, with the ink it covers, off the cell's lines, framed: FRAME x FRAME
    float32; None: no ink."""
    out = []
    edge = int(LINES * AREA_SIDE)
    left, top, right, bottom = (int(f * AREA_SIDE) for f in LABEL_PLACE)
    masks = digits.cell_areas(ink.astype(np.float32), cell_boxes, AREA, AREA_SIDE)
    for area, mask in zip(digits.cell_areas(square, cell_boxes, AREA, AREA_SIDE), masks):
        dark, covered = digits.darkness(area), mask > 127
        free = dark >= LEVEL
        free[:edge], free[-edge:], free[:, :edge], free[:, -edge:] = False, False, False, False
        kept = covered & free  # the mask's ink but on the lines
        free[top:bottom, left:right] &= covered[top:bottom, left:right]
        count, parts = cv2.connectedComponents(free.astype(np.uint8), connectivity=8)
        for k in range(1, count):
            part = parts == k
            if (part & covered).sum() >= TOUCHED * part.sum():
                kept |= part
        kept = cv2.dilate(kept.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0  # with the strokes' soft rims
        out.append(framed(np.where(kept, dark, 0.0).astype(np.float32)))
    return out


def framed(dark: np.ndarray) -> np.ndarray | None:
    """A digit's darkness (0..1, any size) framed as MNIST frames one: its ink's box (specks and the lines'
    pieces along the sides left out, EDGE) scaled to BOX on its longer side, centred by its mass in FRAME x
    FRAME; None when it has no ink."""
    ink = (dark >= LEVEL).astype(np.uint8)
    if int(ink.sum()) < 4:
        return None
    _, parts, sizes, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = sizes[1:, cv2.CC_STAT_AREA]
    h, w = dark.shape
    ys, xs = np.mgrid[:h, :w]
    near = ((np.minimum(ys, h - 1 - ys) < EDGE * h) | (np.minimum(xs, w - 1 - xs) < EDGE * w)).ravel()
    edged = np.bincount(parts.ravel(), weights=near, minlength=len(areas) + 1)[1:] >= EDGE_SHARE * areas
    if not edged.all():  # the lines' pieces out, unless they are all the ink there is
        areas = np.where(edged, 0, areas)
    big = np.flatnonzero(areas >= SPECK * areas.sum())  # none when the ink is all specks: its largest
    kept = np.isin(parts, 1 + (big if len(big) else np.array([int(areas.argmax())])))
    kept = cv2.dilate(kept.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0  # with the strokes' soft rims
    ys, xs = np.nonzero(kept & (ink > 0))
    glyph = np.where(kept, dark, 0.0)[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)
    scale = BOX / max(glyph.shape)
    w, h = max(1, round(glyph.shape[1] * scale)), max(1, round(glyph.shape[0] * scale))
    small = cv2.resize(glyph, (w, h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    mass = float(small.sum())
    cy = float((np.arange(h)[:, None] * small).sum()) / mass if mass > 0 else h / 2
    cx = float((np.arange(w)[None, :] * small).sum()) / mass if mass > 0 else w / 2
    y0 = min(max(round(FRAME / 2 - cy), 0), FRAME - h)
    x0 = min(max(round(FRAME / 2 - cx), 0), FRAME - w)
    out = np.zeros((FRAME, FRAME), np.float32)
    out[y0:y0 + h, x0:x0 + w] = small
    return np.clip(out, 0.0, 1.0)


def read_framed(crops: list[np.ndarray | None]) -> np.ndarray:
    """(N, 9): each framed crop's probabilities of the digits 1..9 (calibrated: the network's scores are
    divided by a temperature fitted on writers it never trained on); zeros where a crop is None."""
    out = np.zeros((len(crops), 9), np.float32)
    have = [i for i, c in enumerate(crops) if c is not None]
    if have:
        out[have] = nets.softmax(nets.scores(MODEL, [crops[i] for i in have]), axis=1)
    return out


def shapes(crops: list[np.ndarray | None]) -> np.ndarray:
    """(N, F): what the framed-answer network's last layer reads of each framed crop (its 'features'
    output), scaled to unit length, so that the dot product of two rows is their likeness (their cosine:
    0..1, the features being never negative); zeros where a crop is None."""
    have = [i for i, c in enumerate(crops) if c is not None]
    if not have:
        return np.zeros((len(crops), 0), np.float32)
    seen = nets.scores(MODEL, [crops[i] for i in have], "features").astype(np.float32)
    seen /= np.maximum(np.linalg.norm(seen, axis=1, keepdims=True), 1e-9)
    out = np.zeros((len(crops), seen.shape[1]), np.float32)
    out[have] = seen
    return out
