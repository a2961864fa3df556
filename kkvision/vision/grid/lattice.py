"""Is there an n x n grid in this square, and which n?

The square is a candidate frame warped upright.  Two kinds of evidence:
  segments  straight runs of ink at least half the smallest cell long (cage
            borders, cell lines, the frame), in pieces at most a smallest cell
            long: an n explains the square when (nearly) all of them lie on its
            lattice lines.  A line of an n x n grid runs along at least one
            whole cell side, so for each n only runs at least LINE_RUN of its
            cell long are weighed: the strokes of a big digit written in a
            cell (an answer, a keypad key) are no line of a grid of cells that
            size, though they would be of one half as big.  Where all of n's
            lines are inked, n also explains when runs that cross from piece to
            piece at least LINED_RUN of a cell long lie on them (a row of big
            answers written in, each stroke stopping short of the next);
  support   how fully each lattice line is inked along its length, strip by
            strip (so a bowed line still counts), after closing small gaps
            (dotted and faint lines count).
The size is the largest explaining n whose every line is supported (a 6x6's
thin lines also make the 3x3 lattice), else the smallest explaining n (a grid
drawn with cage borders only: only their lattice is certain) counting only the
ink joined to the frame: every cage border ends on another border or on the
frame, while a big digit in a key or a cell floats free of it (a keypad's key
with a '1' in it is no 4x4 grid drawn with borders only).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ...vocab import PICTURE_SIZES
from ..stats import median

SIZES = PICTURE_SIZES  # the sizes a lattice is tried with
SEGMENT = 0.5  # a segment is at least this fraction of the smallest cell (1/9 of the side)
EXPLAIN_TOL = 0.2  # a segment lies on a lattice line when this close, in cells of that lattice (bowed lines)
UNEXPLAINED = 0.12  # an explaining lattice leaves at most this fraction of inner segment length off its lines
# Connected components by Grana's block-based algorithm (BBDT): the same labels as OpenCV's default
# (Spaghetti), in half the time on one thread (2.0 against 4.8 ms a 1000x750 mask of lines, OpenCV 5.0)
COMPONENTS = cv2.CCL_BBDT
PIECES = 9  # segments are cut into this many pieces along the side, so a bowed line's pieces follow it
LINE_RUN = 0.45  # a lattice's line runs at least this share of its cell (a digit drawn in a cell: ~0.35)
LINED_RUN = 0.75  # ... or where all its lines are inked, only crossing runs this long are weighed: a lattice with
                  # a row of written answers (half a cell wide and more, at one height) explains its lines
RUN_TOL = 0.02  # pieces in neighbouring strips this close (of the side) are one run;
TOUCH = 0.01  # ... a crossing run when each also reaches this close (of the side) to the edge between their
              # strips: a line runs on across it, while strokes of digits written in a row of cells stop short
MIN_INNER = 1.0  # a grid has inner segments of at least this many sides' length in all
DASH_GAP = 0.025  # ... or has them once gaps this long (of the side) are closed: dashed lines, whose dashes
                  # (a twelfth of a cell, as long as their gaps) are shorter than a segment
STRIPS = 4  # support is measured in this many strips along each line
LINE_OK = 0.55  # a supported line covers this fraction of its strips
NOISE_MARGIN = 0.45  # ... and stands this far above an ordinary row, towards full coverage
SEARCH = 0.12  # a line is looked for this far from its lattice place, in cells
JOIN = 0.012  # gaps this small (of the side) in a line are bridged when asking what is joined to the frame
FRAME_BAND = 0.03  # ink this close to the square's edge (of the side) is the frame's
FRAME_ONLY = 0  # judge_or_inked's lattice where none is inked but the frame's four sides stand out (see framed)


@dataclass(frozen=True)
class Verdict:
    size: int
    explained: float  # fraction of inner segment length on the lattice
    support: float  # weakest line's support (frame and inner)


def ink(gray: np.ndarray) -> np.ndarray:
    """255 where ink: darker than its neighbourhood (robust to shadows)."""
    block = max(15, (min(gray.shape[:2]) // 40) | 1)
    return cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 12)


def ink_left_of(mask: np.ndarray, columns: list[int]) -> dict[int, np.ndarray]:
    """For each of the sorted `columns` (0 .. the mask's width), per row the count of the mask's ink
    pixels left of it: a row's cumulative count, taken only at the columns asked for (a whole
    cumulative sum of a picture-sized mask had been most of the time of those who asked)."""
    inside = [x for x in columns if x < mask.shape[1]]
    parts = np.add.reduceat((mask > 0).view(np.uint8), np.r_[0, inside].astype(np.intp), axis=1, dtype=np.int32)
    if inside and inside[0] == 0:  # reduceat's first piece, [0, 0), is column 0 itself: nothing lies left of it
        parts[:, 0] = 0
    counts = np.cumsum(parts, axis=1)  # counts[:, i]: left of inside[i]; the last: the whole row
    return {x: counts[:, min(i, len(inside))] for i, x in enumerate(columns)}


def segments(mask: np.ndarray, bridge: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(position, length, run, crossing run) of horizontal and vertical ink runs,
    one row per piece: within each of PIECES strips, a band of consecutive rows
    holding runs is one piece (its length the longest run, its position their
    mean); `run` is the length of the pieces it continues with in neighbouring
    strips, `crossing run` that where its ink also crosses the edges between
    them (_runs).  `bridge`: gaps this long along a run are closed first (dashed lines)."""
    side = mask.shape[0]
    run = max(5, int(SEGMENT * side / max(SIZES)))
    touch = max(1, int(TOUCH * side))
    edges = np.linspace(0, side, PIECES + 1).astype(int)
    out = []
    for axis in (0, 1):  # 0: horizontal segments (position = y)
        m = mask if axis == 0 else mask.T
        if bridge:
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((1, bridge + 1), np.uint8))
        m = cv2.dilate(m, np.ones((3, 1), np.uint8))  # a slightly sloping line stays one run
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (run, 1))) > 0
        inner, outer = np.minimum(edges[:-1] + touch, side), np.maximum(edges[1:] - touch, 0)
        cs = ink_left_of(m, sorted({*edges.tolist(), *inner.tolist(), *outer.tolist()}))
        counts = (_at(cs, edges[1:]) - _at(cs, edges[:-1])).astype(float)  # (rows, pieces)
        # per row and piece: ink within `touch` of the piece's start, of its end
        starts = _at(cs, inner) > _at(cs, edges[:-1])
        ends = _at(cs, edges[1:]) > _at(cs, outer)
        out.append(_runs(_pieces(counts, starts, ends, run), RUN_TOL * side))
    return out[0], out[1]


def _at(counts: dict[int, np.ndarray], columns: np.ndarray) -> np.ndarray:
    """ink_left_of's counts at these columns, as (rows, columns)."""
    return np.stack([counts[x] for x in columns.tolist()], axis=1)


def _pieces(counts: np.ndarray, starts: np.ndarray, ends: np.ndarray, run: int) -> np.ndarray:
    """segments' pieces (position, length, strip, touches its start, its end), strip by strip, top down:
    each band of consecutive rows whose count in a strip (counts: rows x strips) is at least `run`,
    fewer than `run` rows deep (deeper: a blob, not a run); its position the rows' mean weighted
    by count, its length their largest count.  Counts are whole numbers: every sum is exact."""
    rows, strips = counts.shape
    flags = np.zeros((rows + 2, strips), np.int8)
    flags[1:-1] = counts >= run
    change = np.diff(flags, axis=0).T  # (strips, rows + 1): 1 where a band starts, -1 one past its end
    strip, a = np.nonzero(change == 1)  # strip by strip, top down
    b = np.nonzero(change == -1)[1] - 1  # the same order: each band's last row
    keep = b - a + 1 < run
    strip, a, b = strip[keep], a[keep], b[keep]
    if not len(a):
        return np.zeros((0, 5))
    upto = np.zeros((rows + 1, strips))
    np.cumsum(counts, axis=0, out=upto[1:])
    weighted = np.zeros((rows + 1, strips))
    np.cumsum(counts * np.arange(rows)[:, None], axis=0, out=weighted[1:])
    inked = [np.zeros((rows + 1, strips), np.int64) for _ in range(2)]
    np.cumsum(starts, axis=0, out=inked[0][1:])
    np.cumsum(ends, axis=0, out=inked[1][1:])
    total = upto[b + 1, strip] - upto[a, strip]
    centre = (weighted[b + 1, strip] - weighted[a, strip]) / total
    padded = np.concatenate([counts.T, np.zeros((strips, 1))], axis=1).ravel()  # each strip's counts, a 0 after
    bounds = np.stack([strip * (rows + 1) + a, strip * (rows + 1) + b + 1], axis=1).ravel()
    longest = np.maximum.reduceat(padded, bounds)[::2]
    return np.stack([centre, longest, strip, inked[0][b + 1, strip] > inked[0][a, strip],
                     inked[1][b + 1, strip] > inked[1][a, strip]], axis=1).astype(float)


def _runs(pieces: np.ndarray, tol: float) -> np.ndarray:
    """(position, length, run, crossing run): each piece with the summed length
    of the chain of pieces at its position (within tol) in consecutive strips,
    and of the chain joined only where the ink crosses the edge between the
    strips (pieces: position, length, strip, touches its strip's start, end)."""
    out = np.zeros((len(pieces), 4))
    out[:, :2] = pieces[:, :2]
    first, second = _neighbours(pieces, tol)
    out[:, 2] = _chained(pieces, first, second)
    crossing = (pieces[first, 4] > 0) & (pieces[second, 3] > 0)  # ink at the edge the two pieces share
    out[:, 3] = _chained(pieces, first[crossing], second[crossing])
    return out


def _neighbours(pieces: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of pieces in neighbouring strips whose positions lie within tol: the first
    piece's strip and the next one's, as two index arrays."""
    order = np.argsort(pieces[:, 0], kind="stable")
    pos = pieces[order, 0]
    # for each piece, the pieces after it in position order up to tol further on (exactly: pos[b] - pos[a] <= tol)
    ends = np.searchsorted(pos, pos + 2 * tol, side="right")
    counts = ends - np.arange(len(pos)) - 1
    a = np.repeat(np.arange(len(pos)), counts)
    b = a + 1 + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    near = pos[b] - pos[a] <= tol
    i, j = order[a[near]], order[b[near]]
    steps = pieces[j, 2] - pieces[i, 2]
    i, j, steps = i[np.abs(steps) == 1], j[np.abs(steps) == 1], steps[np.abs(steps) == 1]
    return np.where(steps > 0, i, j), np.where(steps > 0, j, i)


def _chained(pieces: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Per piece, the summed length of its chain: the pieces joined to it through pairs (first, second).
    Each piece takes the least index among those it is joined to, until none changes: a chain's pieces
    then share one."""
    chain = np.arange(len(pieces))
    while True:
        was = chain.copy()
        np.minimum.at(chain, first, chain[second])
        np.minimum.at(chain, second, chain[first])
        if np.array_equal(chain, was):
            break
    return np.bincount(chain, weights=pieces[:, 1], minlength=len(pieces))[chain]


def strip_coverage(mask: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Per strip, per row (horizontal lines) / column (vertical) of the canvas:
    inked fraction after closing gaps; the strips cut the square within its pad."""
    side = mask.shape[0] - 2 * pad
    t = max(2, side // 150)
    m = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * t + 1, 2 * t + 1))) > 0
    edges = (pad + np.linspace(side / 30, side - side / 30, STRIPS + 1)).astype(int)
    rows = np.stack([m[:, a:b].mean(axis=1) for a, b in zip(edges, edges[1:])])
    cols = np.stack([m[a:b, :].mean(axis=0) for a, b in zip(edges, edges[1:])])
    return rows, cols


def line_support(cov: np.ndarray, lo: float, hi: float) -> float:
    """Mean over strips of the best coverage between positions lo and hi."""
    a, b = max(0, int(lo)), min(cov.shape[1], int(hi) + 2)
    return float(cov[:, a:b].max(axis=1).mean())


def _explained(segs: np.ndarray, n: int, side: int, lined: bool = False) -> float:
    """Fraction of the length of runs long enough to be n's lines that lies on n's lattice: runs
    LINE_RUN of its cell long, or with `lined` crossing runs LINED_RUN of it long."""
    cell = side / n
    segs = segs[segs[:, 3] >= LINED_RUN * cell] if lined else segs[segs[:, 2] >= LINE_RUN * cell]
    if segs.size == 0:
        return 0.0
    off = np.abs(segs[:, 0] / cell - np.round(segs[:, 0] / cell))
    return float(segs[off <= EXPLAIN_TOL, 1].sum() / segs[:, 1].sum())


def judge(mask: np.ndarray, pad: int, cut: tuple[bool, bool, bool, bool] = (False,) * 4) -> Verdict | None:
    """The grid size the square shows, or None when it is no grid.  `mask`: the
    square's ink with `pad` pixels of the picture around it (a bowed frame line
    may bulge out of the square).  `cut`: top, bottom, left, right lie on the
    picture's edge (a frame line there may have been cropped away)."""
    return _judged(mask, pad, cut, _coverage(mask, pad))


def judge_or_inked(mask: np.ndarray, pad: int, cut: tuple[bool, bool, bool, bool] = (False,) * 4
                   ) -> tuple[Verdict | None, int | None]:
    """judge's verdict and, where it refuses, inked's n, or FRAME_ONLY where no lattice is inked but
    the square is framed (`framed`), from one measure of the lines' coverage."""
    coverage = _coverage(mask, pad)
    verdict = _judged(mask, pad, cut, coverage)
    if verdict is not None:
        return verdict, None
    n = _inked(mask, pad, coverage)
    return verdict, (FRAME_ONLY if n is None and _framed(mask, pad, coverage) else n)


def _judged(mask: np.ndarray, pad: int, cut: tuple[bool, bool, bool, bool],
            coverage: tuple[np.ndarray, np.ndarray, float]) -> Verdict | None:
    """judge, given the square's _coverage."""
    side = mask.shape[0] - 2 * pad
    rows, cols, need = coverage
    sides = _sides(rows, cols, pad, side)
    if any(s < need and not c for s, c in zip(sides, cut)) or sum(s < need for s in sides) > 1:
        return None
    frame = min(sides)
    margin = 0.5 * side / max(SIZES)
    for bridge in (0, int(DASH_GAP * side)):  # solid lines; else dashed ones (an app's cage outlines)
        h, v = segments(mask[pad:pad + side, pad:pad + side], bridge)
        inner = np.vstack([s[(s[:, 0] > margin) & (s[:, 0] < side - margin)] for s in (h, v)])
        if inner.size and inner[:, 1].sum() >= MIN_INNER * side:
            break
    else:
        return None
    explaining, lined = [], []
    for n in SIZES:
        frac = _explained(inner, n, side)
        if frac >= 1 - UNEXPLAINED:
            explaining.append((n, frac))
        frac = max(frac, _explained(inner, n, side, lined=True))
        if frac >= 1 - UNEXPLAINED:
            lined.append((n, frac))
    supported = []
    for n, frac in lined:  # explaining either way (by crossing runs only where all its lines are inked)
        weakest = _weakest(rows, cols, pad, side, n)
        if weakest >= need:
            supported.append((n, frac, min(weakest, frame)))
    if supported:
        return Verdict(*max(supported))
    if not explaining:
        return None
    joined = joined_to_frame(mask[pad:pad + side, pad:pad + side])
    h, v = segments(joined)
    inner = np.vstack([s[(s[:, 0] > margin) & (s[:, 0] < side - margin)] for s in (h, v)])
    if inner.size == 0 or inner[:, 1].sum() < MIN_INNER * side:
        return None
    for n in SIZES:  # borders only: the smallest lattice that explains the lines joined to the frame
        frac = _explained(inner, n, side)
        if frac >= 1 - UNEXPLAINED:
            return Verdict(n, frac, frame)
    return None


def inked(mask: np.ndarray, pad: int) -> int | None:
    """The largest n whose every lattice line, the frame's four sides and the inner lines, is inked
    (supported, as judge weighs them) in the square of `mask` (its ink, with `pad` pixels round it), or
    None: a frame judge refused may still be that grid with long strokes written in its cells
    (grid.find_grids looks again without them)."""
    return _inked(mask, pad, _coverage(mask, pad))


def _inked(mask: np.ndarray, pad: int, coverage: tuple[np.ndarray, np.ndarray, float]) -> int | None:
    """inked, given the square's _coverage."""
    side = mask.shape[0] - 2 * pad
    rows, cols, need = coverage
    if min(_sides(rows, cols, pad, side)) < need:
        return None
    n = max((n for n in SIZES if _weakest(rows, cols, pad, side, n) >= need), default=None)
    # its lines stand out: the rows and columns halfway between them are not all inked as lines are
    # (in a picture of noise, or a page of dense print, every row is)
    return n if n is not None and _weakest(rows, cols, pad, side, n, 0.5) < need else None


def framed(mask: np.ndarray, pad: int) -> bool:
    """Do the square's four sides stand out as a frame in `mask` (its ink, with `pad` pixels round it):
    each inked (supported, as judge weighs lines), and the rows and columns half the smallest cell
    inside them not (in a picture of noise, or a page of dense print, every row is).  A frame judge
    refused with no lattice inked in it may be a grid drawn with cage borders only, under big answers."""
    return _framed(mask, pad, _coverage(mask, pad))


def _framed(mask: np.ndarray, pad: int, coverage: tuple[np.ndarray, np.ndarray, float]) -> bool:
    """framed, given the square's _coverage."""
    side = mask.shape[0] - 2 * pad
    rows, cols, need = coverage
    if min(_sides(rows, cols, pad, side)) < need:
        return False
    cell = side / max(SIZES)
    inside = [line_support(cov, pad + at - SEARCH * cell, pad + at + SEARCH * cell)
              for cov in (rows, cols) for at in (0.5 * cell, side - 0.5 * cell)]
    return max(inside) < need


def _sides(rows: np.ndarray, cols: np.ndarray, pad: int, side: int) -> list[float]:
    """The support of the frame's sides (top, bottom, left, right), each looked for from SEARCH of the
    smallest cell inside to the pad outside (a bowed frame line bulges out of the square)."""
    edge = SEARCH * side / min(SIZES)
    return [line_support(cov, pad + p - (pad if p == 0 else edge), pad + p + (edge if p == 0 else pad))
            for cov in (rows, cols) for p in (0, side)]


def _coverage(mask: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray, float]:
    """strip_coverage's rows and columns, and the support a line needs: LINE_OK, and NOISE_MARGIN above
    an ordinary row or column."""
    rows, cols = strip_coverage(mask, pad)
    base = min(median(rows), median(cols))
    return rows, cols, max(LINE_OK, base + NOISE_MARGIN * (1.0 - base))


def _weakest(rows: np.ndarray, cols: np.ndarray, pad: int, side: int, n: int, shift: float = 0.0) -> float:
    """The support of n's least inked inner lattice line (`shift`: of the lines `shift` of a cell on)."""
    cell = side / n
    return min(line_support(cov, pad + (k + shift - SEARCH) * cell, pad + (k + shift + SEARCH) * cell)
               for cov in (rows, cols) for k in range(1, n))


def joined_to_frame(mask: np.ndarray) -> np.ndarray:
    """The square's ink that is joined (across small gaps) to ink at its edge: the frame and the lines
    meeting it, and lines meeting those; not labels, digits, icons or marks floating inside."""
    side = mask.shape[0]
    k = max(3, int(JOIN * side) | 1)
    bridged = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    count, labels = cv2.connectedComponentsWithAlgorithm((bridged > 0).astype(np.uint8), 8, cv2.CV_32S, COMPONENTS)
    band = max(2, int(FRAME_BAND * side))
    edge = np.zeros_like(labels, bool)
    edge[:band], edge[-band:], edge[:, :band], edge[:, -band:] = True, True, True, True
    keep = np.zeros(count, bool)
    keep[np.unique(labels[edge & (labels > 0)])] = True
    return np.where(keep[labels] & (mask > 0), mask, 0).astype(mask.dtype)
