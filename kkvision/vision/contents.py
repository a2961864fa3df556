"""What is in each cell: the ink that is no label's, found and taken out before labels and borders are read.

    find_contents(square, geom, colour) -> Contents  the written cells, where their ink lies, the print alone
    written_ink(square, geom, cells, colour) -> mask  where those cells' ink is no label's (check's second look)
    written_in_lattice(square, n) -> mask       the same in a frame not yet known a grid (the grid stage's second look)
    by_colour(colour, square, geom, cells, ink)      the pen's pixels and the print alone, told by colour
    alone_in(square, ink) -> square             only the ink of that mask: an answer alone
    clean(square, geom, contents) -> square     that ink painted over from the paper and lines round it
    unlabelled(contents, layout) -> cells       the written cells no label can be in
    under_answers(geom, contents) -> cells      the cells whose label a written answer may hide

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
     are coarse) and, in a blurred photo, on into the strokes' grey rim
     (haloed), with the mask's small holes (where an answer crossed a
     label or a line: closed) are painted over (fill): within LINE_BAND of a lattice
     line along that line, so a cell line an answer crossed runs on under
     it, and elsewhere by inpainting from round them (cv2.inpaint) with
     the lines left out, so their ink is not smeared into the cell (it
     was: dark blobs beside the lines where a big answer touched them,
     read as labels' digits);
  4. in a colour picture whose pen colour lies apart from the print's
     (CHROMA_APART), each pixel of the written cells is unmixed into paper,
     print and pen (by_colour):
     the pen's pixels join the mask, and the mask is painted with the print
     alone (a crossed label keeps its ink, with a gap under the pen).
A blank picture's cells are all read as nothing written: it is read as before.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from ..vocab import Cell
from . import cages, digits, nets
from .stages import CageLayout, Contents, GridGeometry

SIDE = 48  # the segmentation network's crop of one whole cell: 48 px keep a pencil mark's strokes apart
MODEL = "contents.onnx"
# a cell holds something when "nothing written" is less probable than this (the digit reader's
# probabilities are calibrated: at 0.5 it is as likely written as not)
WRITTEN = 0.5
INK = 0.5  # a pixel's probability of being no label's ink above which it is taken out
GROW = 0.02  # of the cell side: the mask is grown by this (a network pixel is 1/48 of the cell)
HALO = 0.06  # of the cell side: the mask is grown at most this far into its strokes' blur (haloed)
BLURRED = 0.5  # ... only where the strokes are blurred past the mask: this share of the pixels just round it is
               # still a rim (measured: 0.66..0.88 in phone photos, 0.09..0.32 in sharp pictures, where the
               # growth ate into labels the answers touched)
HALO_FLOOR = 0.08  # of the square's contrast (paper to its darkest ink): darker than the paper by this is a rim
HALO_DROP = 0.02  # ... and lighter by this than its neighbour in the mask: downhill, so the mask does not walk
                  # along the flat ink of a line or a label it touches, nor along the even grey beside a line
# of the cell side: holes in the mask this small are painted over too.  Where an answer crosses a
# label's stroke the network calls the crossing the label's ink; kept, inpainting spread its dark over
# the answer's pixels round it into blobs read as labels' marks ('3-' read '3/', '11+' read '11/' on
# hand-big book pages).  Closed, the label has a gap there, as the label model saw half its crossed
# labels in training (devtools/train_labels.py CROSSED); a line's gap runs on (fill's LINE_BAND).
CLOSE = 0.03
# where a label's ink sits in its cell (left, top, right, bottom, of the cell side): its first characters
LABEL_PLACE = (0.04, 0.04, 0.5, 0.3)
HIDES = 0.05  # of LABEL_PLACE covered by written ink: the label may be under an answer
PAINT_RADIUS = 0.03  # of the cell side: how far round a taken-out pixel inpainting looks
PAPER = 90  # percentile of a square's grey levels taken as its paper (alone_in, haloed)
# by_colour: a pen's colour lies this far (grey levels, of 255) or more off the line from the paper through
# the print's to be told from it; the unmixing's error grows as the distance shrinks.  The scenes' pens
# (devtools/scenes.PENS) on white, over black labels: green 51, blue 78, red 102, grey 4-8 (a photo's
# noise); over navy labels: a black pen 120, a blue one 25 (too near: left out)
CHROMA_APART = 30.0
# of CHROMA_APART: a pixel whose colour the paper, print and pen leave this far from explained is none of
# them (a cage's coloured outline: 70 grey levels off in an ios-light scene; the pens' pixels 2, their JPEG
# rims under 15): left to the network
UNEXPLAINED = 0.5
PEN_SHARE = 0.5  # of the pen's colour a pixel's mix holds (b) from which it is the pen's
CORE = 0.25  # of a cell's contrast: its pixels this near its darkest are ink cores, whose colours are taken
MIN_CORE = 20  # pixels: fewer ink cores give no colour
LINE_CLEAR = 0.05  # of the cell side: pixels this near a lattice line are left to the network
LINE_BAND = 0.12  # of the cell side: a taken-out pixel this near a lattice line may be on it (the heaviest cage
                  # borders are under a tenth of a cell, and the square's lines are straight to a few pixels)


def crops(gray: np.ndarray, cell_boxes: list[tuple[float, float, float, float]]) -> list[np.ndarray]:
    """The network's input for each cell: SIDE x SIDE float32 darkness of the whole cell, its lines at the
    border, stretched between its paper and its darkest ink."""
    return [digits.darkness(a) for a in digits.cell_areas(gray, cell_boxes, (0.0, 0.0, 1.0, 1.0), SIDE)]


def ink_probability(crops: list[np.ndarray]) -> np.ndarray:
    """(N, SIDE, SIDE): each pixel's probability that its ink is no label's."""
    if not crops:
        return np.zeros((0, SIDE, SIDE), np.float32)
    return 1.0 / (1.0 + np.exp(-nets.scores(MODEL, crops)[:, 0]))


def find_contents(square: np.ndarray, geom: GridGeometry,
                  colour: Callable[[], np.ndarray | None] | None = None) -> Contents:
    """The cells of the grid where something besides a label is written, where its ink lies, and (given
    `colour`, which makes the square in colour or None for a grey picture: called only when some cell is
    written, so a blank grid does not pay for it) the print alone in the cells where colour tells it
    (by_colour)."""
    n = geom.size
    cells = [(r, c) for r in range(n) for c in range(n)]
    written = [cell for cell, w in zip(cells, _holds(square, [geom.cell_box(r, c) for r, c in cells])) if w]
    if not written:
        return Contents(())
    return Contents(tuple(written), *_written(square, geom, written, colour() if colour else None))


def written_ink(square: np.ndarray, geom: GridGeometry, cells: list[Cell], colour: np.ndarray | None = None
                ) -> np.ndarray:
    """Where the ink of the given cells is no label's (above INK, and where `colour`, the square in
    colour, tells a pen from the print: by_colour), grown by GROW: 255 there, 0 elsewhere."""
    return _written(square, geom, cells, colour)[0]


def written_in_lattice(square: np.ndarray, n: int) -> np.ndarray:
    """Where the ink of the cells of an n x n lattice filling `square` (dark ink on light paper) is no
    label's or line's, in the cells the digit reader finds written, grown by GROW: 255 there, 0
    elsewhere.  The grid stage's second look at a frame whose lattice lines are all inked but whose
    cells hold long strokes off them (big answers written in: a 1's stem, a 2's foot)."""
    edges = np.linspace(0.0, float(square.shape[1]), n + 1), np.linspace(0.0, float(square.shape[0]), n + 1)
    boxes = [(float(edges[0][c]), float(edges[1][r]), float(edges[0][c + 1]), float(edges[1][r + 1]))
             for r in range(n) for c in range(n)]
    written = [box for box, w in zip(boxes, _holds(square, boxes)) if w]
    return grown(_network_ink(square, written), square.shape[1] / n)


def _holds(square: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> list[bool]:
    """Whether each cell box holds something written: the digit reader reads nothing less than WRITTEN."""
    return [bool(p[0] < 1.0 - WRITTEN) for p in digits.read_digits(digits.digit_crops(square, boxes))]


def _written(square: np.ndarray, geom: GridGeometry, cells: list[Cell], colour: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray | None]:
    """written_ink's mask, and by_colour's print alone (None without `colour`)."""
    ink = _network_ink(square, [geom.cell_box(r, c) for r, c in cells])
    printed = None
    if colour is not None and colour.shape[:2] == square.shape[:2]:
        pen, printed = by_colour(colour, square, geom, cells, ink)
        ink = np.maximum(ink, pen)
    return haloed(grown(ink, _cell_side(geom)), square, _cell_side(geom)), printed


def _network_ink(square: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> np.ndarray:
    """255 where the content network gives the ink of these cell boxes more than INK of being no label's."""
    maps = ink_probability(crops(square, boxes))
    ink = np.zeros(square.shape[:2], np.uint8)
    for (x0, y0, x1, y1), prob in zip(boxes, maps):
        i0, j0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
        i1, j1 = min(square.shape[1], int(np.ceil(x1))), min(square.shape[0], int(np.ceil(y1)))
        if i1 <= i0 or j1 <= j0:
            continue
        sx, sy = SIDE / (x1 - x0), SIDE / (y1 - y0)  # square pixel -> network pixel
        m = np.array([[sx, 0, (i0 - x0) * sx - 0.5], [0, sy, (j0 - y0) * sy - 0.5]], np.float32)
        part = cv2.warpAffine(prob.astype(np.float32), m, (i1 - i0, j1 - j0),
                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        ink[j0:j1, i0:i1] = np.maximum(ink[j0:j1, i0:i1], (part > INK).astype(np.uint8) * 255)
    return ink


def by_colour(colour: np.ndarray, square: np.ndarray, geom: GridGeometry, cells: list[Cell], ink: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Where the given cells' ink is a pen's by its colour (255; 0 elsewhere), and the square's grey
    with the print alone there (NaN elsewhere), in the cells where the pen's colour and the print's are
    told apart; `ink` is the network's mask (255 on no label's ink).

    The network knows an answer by its shape and place, and misses where they look like a label's: the
    top of a big answer's stroke beside a label (left in, read as the label's operator: '6/' for '6')
    and the pixels where it crosses the label.  Most pens are not the print's colour (a blue or green
    answer over black or navy labels), and each pixel's colour is then a mix of three known ones: the
    cell's paper W, the print's P and the pen's Q, x = W + a (P - W) + b (Q - W), solved for a and b
    by least squares (linear unmixing).  P is the colour of the darkest CORE of the ink in the given
    cells' labels' places (LABEL_PLACE) the network leaves; Q a cell's, of the ink it takes out.  Where
    Q lies CHROMA_APART or more off the line from the paper through P, a pixel is the pen's when b is
    PEN_SHARE or more and more than a, and the print alone is W + a (P - W): where the pen covered the
    label, paper (a gap, as the label model saw half its crossed labels in training), not the dark blob
    that inpainting from round it makes there.  A grey or black pen over black print is one line from
    the paper (b and a trade off): those cells are left to the network and inpainting.  The cell lines
    (within LINE_CLEAR of the lattice: their colour is often neither), and a pixel the three colours do
    not explain (UNEXPLAINED: a cage's coloured outline), are left to them too."""
    side = _cell_side(geom)
    g = square.astype(np.float32)
    col = colour.astype(np.float32)
    taken = ink > 0
    near_taken = cv2.dilate(ink, np.ones((5, 5), np.uint8)) > 0
    h, w = square.shape[:2]
    off_x = np.abs(np.arange(w)[:, None] - np.asarray(geom.xs, np.float32)[None, :]).min(1) >= LINE_CLEAR * side
    off_y = np.abs(np.arange(h)[:, None] - np.asarray(geom.ys, np.float32)[None, :]).min(1) >= LINE_CLEAR * side
    clear = off_y[:, None] & off_x[None, :]
    boxes, prints = [], []
    left, top, right, bottom = LABEL_PLACE
    for r, c in cells:
        x0, y0, x1, y1 = geom.cell_box(r, c)
        i0, j0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
        i1, j1 = min(w, int(np.ceil(x1))), min(h, int(np.ceil(y1)))
        if i1 - i0 < 4 or j1 - j0 < 4:
            continue
        cg, cc, ok = g[j0:j1, i0:i1], col[j0:j1, i0:i1], clear[j0:j1, i0:i1]
        paper_level, darkest = np.percentile(cg[ok], (PAPER, 1)) if ok.any() else (0.0, 0.0)
        if paper_level - darkest <= 0:
            continue
        paper = np.median(cc[ok & (cg >= paper_level)], axis=0)
        core = ok & (cg <= darkest + CORE * (paper_level - darkest))
        place = np.zeros_like(ok)
        place[int(top * (j1 - j0)):int(bottom * (j1 - j0)), int(left * (i1 - i0)):int(right * (i1 - i0))] = True
        prints.append(cc[core & place & ~near_taken[j0:j1, i0:i1]])
        pen = cc[core & taken[j0:j1, i0:i1]]
        boxes.append((i0, j0, i1, j1, paper, np.median(pen, axis=0) if len(pen) >= MIN_CORE else None))
    out = np.zeros((h, w), np.uint8)
    alone = np.full((h, w), np.nan, np.float32)
    printed = np.concatenate(prints) if prints else np.zeros((0, 3), np.float32)
    if len(printed) < MIN_CORE:
        return out, alone
    p = np.median(printed, axis=0)
    grey = np.array([0.114, 0.587, 0.299], np.float32)  # of a BGR colour, as cv2's
    negative = geom.light_on_dark
    for i0, j0, i1, j1, paper, q in boxes:
        if q is None or _off_line(p - paper, q - paper) < CHROMA_APART:
            continue
        mix = np.stack([p - paper, q - paper], axis=1)  # (3, 2): x - W = mix @ (a, b)
        x = (col[j0:j1, i0:i1] - paper).reshape(-1, 3).T
        ab = np.linalg.pinv(mix) @ x
        left = np.linalg.norm(x - mix @ ab, axis=0).reshape(j1 - j0, i1 - i0)  # what the three colours leave
        a, b = ab.reshape(2, j1 - j0, i1 - i0)
        ok = clear[j0:j1, i0:i1] & (left <= UNEXPLAINED * CHROMA_APART)
        out[j0:j1, i0:i1] = ((b >= PEN_SHARE) & (b > a) & ok).astype(np.uint8) * 255
        level = float(paper @ grey) + np.clip(a, 0.0, 1.0) * float((p - paper) @ grey)
        alone[j0:j1, i0:i1] = np.where(ok, 255.0 - level if negative else level, np.nan)
    return out, alone


def _off_line(u: np.ndarray, v: np.ndarray) -> float:
    """How far the colour v lies off the line along u (both seen from the paper; grey levels)."""
    nu = float(np.linalg.norm(u))
    if nu < 1e-6:
        return 0.0
    along = u / nu
    return float(np.linalg.norm(v - float(v @ along) * along))


def grown(ink: np.ndarray, side: float) -> np.ndarray:
    """A mask of ink grown by GROW of the cell `side` (px) every way: the network's pixels are coarse."""
    grow = max(1, int(round(GROW * side)))
    return cv2.dilate(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))


def haloed(ink: np.ndarray, gray: np.ndarray, side: float) -> np.ndarray:
    """The mask `ink` grown downhill into its strokes' blur: a pixel next to it joins while it is darker
    than the paper by HALO_FLOOR of the square's contrast and lighter by HALO_DROP than the mask's pixel
    it touches, at most HALO of the cell `side` (px) out; only in a blurred picture (BLURRED).  A photo's
    blurred answer leaves a grey rim past the network's pixels, which inpainting drew back in as a ghost
    of the answer (read as a label's digits); a label or line beside it is darker again past the valley
    between them: kept.  In a sharp picture the mask's rim is paper but where an answer touched a label
    (the label's own soft edge, which growing would eat): left as it is."""
    mask = ink > 0
    if not mask.any():
        return ink
    g = gray.astype(np.float32)
    darkest, paper = np.percentile(g, (1, PAPER))  # one pass over the square for both
    dark = (paper - g) / max(1.0, float(paper - darkest))
    kernel = np.ones((3, 3), np.uint8)
    rim = cv2.dilate(mask.astype(np.uint8), kernel).astype(bool) & ~mask
    if not rim.any() or (dark[rim] > HALO_FLOOR).mean() < BLURRED:
        return ink
    level = np.where(mask, dark, 0).astype(np.float32)
    front = mask & ~cv2.erode(mask.astype(np.uint8), kernel).astype(bool)
    for _ in range(max(1, int(round(HALO * side)))):
        reach = cv2.dilate(np.where(front, level, 0).astype(np.float32), kernel)
        join = (reach > 0) & ~mask & (dark > HALO_FLOOR) & (dark < reach - HALO_DROP)
        if not join.any():
            break
        level = np.where(join, dark, level)
        mask |= join
        front = join
    return mask.astype(np.uint8) * 255


def alone_in(square: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """The square with only its pixels where `ink` (written_ink's mask) is left, the rest paper (PAPER):
    an answer with the label, the lines and whatever else round it painted out."""
    return np.where(ink > 0, square, np.asarray(np.percentile(square, PAPER), square.dtype))


def _cell_side(geom: GridGeometry) -> float:
    return float(geom.xs[-1] - geom.xs[0]) / geom.size


def clean(square: np.ndarray, geom: GridGeometry, contents: Contents) -> np.ndarray:
    """The square with the written ink painted over from round it, or where colour told the print from
    the pen (by_colour), with the print alone (the square itself when nothing is written)."""
    if not contents.written or contents.ink is None or not contents.ink.any():
        return square
    side = _cell_side(geom)
    mask = closed(contents.ink, side) > 0
    out = fill(square, mask, geom.xs, geom.ys, LINE_BAND * side, max(2.0, PAINT_RADIUS * side))
    if contents.printed is not None:  # where colour told the print from the pen: the print alone
        told = mask & ~np.isnan(contents.printed)
        out[told] = np.clip(np.rint(contents.printed[told]), 0, 255).astype(square.dtype)
    return out


def closed(ink: np.ndarray, side: float) -> np.ndarray:
    """A mask of ink with its holes up to CLOSE of the cell `side` (px) across filled: where an answer
    crossed a label's stroke or a line."""
    r = max(1, int(round(CLOSE * side)))
    return cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))


def fill(gray: np.ndarray, mask: np.ndarray, xs: tuple[float, ...] | np.ndarray, ys: tuple[float, ...] | np.ndarray,
         band: float, radius: float) -> np.ndarray:
    """`gray` with its `mask` pixels painted over.  Within `band` of a vertical line of `xs`, from the
    nearest pixels not masked above and below in its column, of a horizontal line of `ys` from left and
    right in its row: the brighter of the two, so the line runs on where it does at both ends and its
    ink is drawn nowhere else (where both lines meet, dark if either runs on).  Elsewhere inpainted
    (cv2.INPAINT_TELEA, from `radius` round) from the picture with those bands made paper: a label's
    stroke an answer crossed runs on into it, a line's ink does not (inpainting from all round made
    dark blobs beside the lines where a big answer touched them, read as labels' digits)."""
    left, right = _ends(gray, mask, 1)
    up, down = _ends(gray, mask, 0)
    across, along = np.fmax(left, right), np.fmax(up, down)  # ... of a vertical line, along it
    h, w = gray.shape
    vertical = (np.abs(np.arange(w)[:, None] - np.asarray(xs, float)[None, :]).min(axis=1) < band)[None, :]
    horizontal = (np.abs(np.arange(h)[:, None] - np.asarray(ys, float)[None, :]).min(axis=1) < band)[:, None]
    lines = vertical | horizontal
    paper = cages.paper(gray, float(np.median(np.diff(np.asarray(xs, float)))))  # the paper there, not the square's
    source = np.where(lines, paper, gray)
    inside = cv2.inpaint(source, mask.astype(np.uint8), radius, cv2.INPAINT_TELEA).astype(np.float32)
    value = np.where(vertical & horizontal, np.fmin(along, across),
                     np.where(vertical, along, np.where(horizontal, across, inside)))
    value = np.where(np.isnan(value), paper, value)
    out = gray.copy()
    out[mask] = np.clip(np.rint(value[mask]), 0, 255).astype(gray.dtype)
    return out


def _ends(gray: np.ndarray, mask: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """For every pixel, the value of the nearest pixel not masked before it and after it along `axis`
    (itself when not masked; NaN where there is none)."""
    a, m = np.moveaxis(gray.astype(np.float32), axis, 1), np.moveaxis(mask, axis, 1)
    rows, w = np.arange(a.shape[0])[:, None], a.shape[1]
    at = np.arange(w)[None, :]
    before = np.maximum.accumulate(np.where(m, -1, at), axis=1)
    after = np.minimum.accumulate(np.where(m, w, at)[:, ::-1], axis=1)[:, ::-1]
    b = np.where(before >= 0, a[rows, np.clip(before, 0, w - 1)], np.nan)
    f = np.where(after < w, a[rows, np.clip(after, 0, w - 1)], np.nan)
    return np.moveaxis(b, 1, axis), np.moveaxis(f, 1, axis)


def under_answers(geom: GridGeometry, contents: Contents) -> frozenset[Cell]:
    """The written cells whose label's place (LABEL_PLACE) the written ink covers HIDES of: a label
    a big answer was written over may be read wrong or not at all (its strokes are under the answer's,
    and taken out with them); reading.resolve may solve without it."""
    if not contents.written or contents.ink is None:
        return frozenset()
    left, top, right, bottom = LABEL_PLACE
    out = []
    for r, c in contents.written:
        x0, y0, x1, y1 = geom.cell_box(r, c)
        w, h = x1 - x0, y1 - y0
        place = contents.ink[max(0, int(y0 + top * h)):max(0, int(y0 + bottom * h)),
                             max(0, int(x0 + left * w)):max(0, int(x0 + right * w))]
        if place.size and float((place > 0).mean()) >= HIDES:
            out.append((r, c))
    return frozenset(out)


def unlabelled(contents: Contents, layout: CageLayout) -> tuple[Cell, ...]:
    """The written cells that no label can be in: not the first cell of a cage (its label's place)."""
    anchors = {cage[0] for cage in layout.cages}
    return tuple(cell for cell in contents.written if cell not in anchors)
