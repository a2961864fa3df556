"""Stage 2: tell thick cage borders from thin cell lines; group cells into cages.

Each inner edge gets an ink measure: the median, along the middle of the
edge, of the darkness summed over the unbroken dark run through the line
(so a thick line scores about its width, a thin one little, a dotted or
faint one nothing, and a label or pencil mark near the line, not touching
it, not at all).  The split between thin and thick is found per image
(the split of log ink with the largest between-class variance).

Apps also draw cages as outlines inset in their cells (solid or dashed,
often in colour): there a border between two cages is a pair of lines, one
a little inside each cell, and the cell line between them is thin.  Such a
pair adds its lines' ink to the edge's (_inset_pair), so an outlined border
weighs as a thick one; a line on one side only (a label, a stroke of a
digit) adds nothing.

Some apps draw no cage borders at all: each cage is filled in its own colour,
neighbours different, and every line between cells is alike.  Given the grid
in colour, each cell's fill (the median colour of its middle's paper, ink left
out) is compared with its neighbours' (_fill_changes); where those
differences fall clearly into two kinds, the layout they draw is the answer
when the lines are all of one kind, and else the alternative the labels
choose from (CageLayout.other, agree.agree_with_labels).
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from ..puzzle import Cell, join_cells
from .stages import SIDE, CageLayout, GridGeometry
from .stats import median, percentile

ALONG = (0.45, 0.85)  # measured part of an edge, from its start (labels sit at a cell's top left)
BAND = 0.12  # the line is looked at this far either side, in cells
SNAP = 0.04  # the line's darkest pixel is looked for this close to its place, in cells
ALIKE = 1.6  # lines whose ink (+0.5) differs by less than this factor may all be one kind...
SEPARATE = 6.0  # ...unless they form two groups this many times their spread apart (a clean render)
KINDS_GAP = 1.6  # two kinds of line differ in ink (+0.5) by at least this factor across a clear gap
KIND_SHARE = 0.1  # ... a kind of line is at least this share of the edges (one stray edge measured as nothing is none;
                 # fewer, between two kinds, are of the nearer one: _stray)
SOLID = 0.9  # an unbroken line is there along at least this share of its edge
ALONG_SHARE = 50  # an edge's ink is this percentile along it (the median: dotted gaps, a stray mark do not count)
PAPER_SMOOTH = 1.5  # px of the 900 px square: noise of a few grey levels a pixel smoothed to well under one
PAPER_WINDOW = 0.3  # of a cell: the paper round a pixel is the brightest this far across (wider than any stroke)
RUN_LEVEL = 0.5  # a pixel belongs to the line's run when this dark relative to the line's darkest
RUN_FLOOR = 0.05  # darkness (0 paper .. 1 ink) below which there is no line at all
TEXTURE_AREA = (0.55, 0.9)  # a cell's bottom right, of its side: away from its label, lines and most of its digit
TEXTURE_MAX = 0.3  # darker than this in most cells' corners is no texture (a dark theme's cells, a fill): left as it is
TEXTURE_SHARE = 90  # the paper's texture: this percentile of the darkness there (the bands' dark, not their mean)
INSET = (0.03, 0.18)  # an inset cage outline runs this far inside its cell from the cell line, in cells
INSET_OFF = 0.1  # ... about a point this close (cells) to where the grid stage put the cell line
INSET_GAP = 0.35  # ... each outline apart from the cell line between by paper (a row of pencil marks
                  # over the line is no outline): darkness under this fraction of the outlines' there
INSET_INK = 0.35  # ... and each outline's ink (darkness summed across it) at least this: a 1 px line a third
                   # dark, a 2 px dashed one; a photographed screen's texture is less
INSET_LINE = 0.12  # ... a line there darkens, on the mean along the edge, at least this (a dashed one about half; a light grey one 0.3)
FILL_AREA = (0.25, 0.85)  # a cell's fill is measured in its middle, of its side: past its lines and label's corner
FILL_PAPER = 0.25  # ... on the pixels darker than this (cages.darkness) are none of it: ink of labels, answers, notes
FILL_EVERY = 3  # ... on every third pixel of the colour square each way (a fill is flat: a 9x9's cell keeps 33 px;
               # GridGeometry.colour_square's `every` straightens only those when the fills alone are asked for)
FILL_APART = 6.0  # fills of two cages differ by at least this (RGB distance, 0..255 a channel; the scenes' pastels
                  # 12..50, a cell's own from its neighbour's in one fill: under 2, a photo's uneven light a few)


def paper(gray: np.ndarray, cell: float) -> np.ndarray:
    """The paper round each pixel: the brightest (a closing: every stroke and line is narrower) within
    PAPER_WINDOW of a `cell` (px) across, of the grey smoothed a little: in a noisy picture (a dim photo's
    sensor noise) the brightest pixel is far brighter than the paper's middle.  A vignetted or shaded
    photo's paper is its own brightness there, not the whole square's (contents.fill paints with it)."""
    k = int(PAPER_WINDOW * cell) | 1
    smooth = cv2.GaussianBlur(gray, (0, 0), PAPER_SMOOTH)
    return cv2.morphologyEx(smooth, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))


def darkness(square: np.ndarray, n: int) -> np.ndarray:
    """0 (paper) .. 1 (ink), after dividing out uneven light (paper: else in a noisy picture all the
    paper read a little dark, and every edge's run of line spread across its band)."""
    bg = paper(square, square.shape[0] / n)
    norm = square.astype(np.float32) / np.maximum(bg.astype(np.float32), 1.0)
    ink = percentile(norm, 0.5)  # np.percentile's number, quicker
    return np.clip((1.0 - norm) / max(1e-3, 1.0 - ink), 0.0, 1.0)


def above_texture(dark: np.ndarray, geom: GridGeometry) -> np.ndarray:
    """The darkness less the paper's own texture (a photographed screen's moire bands, a photo's grain):
    TEXTURE_SHARE's percentile of the darkness in each cell's empty corner (TEXTURE_AREA), the median over
    the cells, taken off and the rest stretched back to 0..1.  Moire bands as dark as an app's faint cell
    lines, running nearly along a row of edges, made every such edge's run of line as wide as a border's."""
    n = geom.size
    a, b = TEXTURE_AREA
    levels = []
    for r in range(n):
        for c in range(n):
            x0, y0, x1, y1 = geom.cell_box(r, c)
            corner = dark[int(y0 + a * (y1 - y0)):int(y0 + b * (y1 - y0)), int(x0 + a * (x1 - x0)):int(x0 + b * (x1 - x0))]
            if corner.size:
                levels.append(percentile(corner, TEXTURE_SHARE))
    texture = median(np.asarray(levels)) if levels else 0.0
    if not 0.0 < texture <= TEXTURE_MAX:  # none; or more than a texture: the cells' own fill or shading
        return dark
    return np.clip((dark - np.float32(texture)) / np.float32(1.0 - texture), 0.0, 1.0)


def _width_of(runs: np.ndarray | None, solid: bool = False) -> float:
    """A line's width from its runs along it (_runs): their ALONG_SHARE percentile (a faint line scores
    little, a thick one its width); with `solid`, the share of the edge where the line is there at all."""
    if runs is None:
        return 0.0
    if solid:  # the share of the edge where the line is there at all
        return np.count_nonzero(runs > 0) / runs.size  # np.mean's number: the count over the size
    return percentile(runs, ALONG_SHARE)


def _runs(band: np.ndarray, cell: float) -> np.ndarray | None:
    """band: (along, across) darkness around a line.  At each point along it, the darkness summed over
    the run through the line of pixels darker than half the line's own darkest; None when the band is too
    small to hold a line."""
    length, width = band.shape
    if length == 0 or width < 3:
        return None
    centre = width // 2
    snap = max(2, int(SNAP * cell))
    lo, hi = max(0, centre - snap), min(width, centre + snap + 1)
    m = lo + band[:, lo:hi].argmax(axis=1)
    # vals[i, j]: band[i, m[i] + j - width], 0 beyond the band (a window of the band padded with width zeros each side)
    padded = np.zeros((length, 3 * width), np.result_type(band, 0.0))
    padded[:, width:2 * width] = band
    vals = padded[np.arange(length)[:, None], m[:, None] + np.arange(2 * width + 1)]
    peak = vals[:, width:width + 1]
    on = (vals >= RUN_LEVEL * peak) & (peak > RUN_FLOOR)
    right = np.cumprod(on[:, width:], axis=1)
    left = np.cumprod(on[:, width::-1], axis=1)
    return (vals[:, width:] * right).sum(axis=1) + (vals[:, width::-1] * left).sum(axis=1) - vals[:, width] * on[:, width]


def _inset_pair(band: np.ndarray, cell: float) -> float:
    """band: (along, across) darkness centred on a cell line.  The ink of a pair
    of lines running along it, one INSET inside each of the two cells (cages
    outlined inside their cells): the strongest two lines of the band that lie
    that far apart about a point near the band's centre (the grid's line may
    be a little off where it lies), with paper between each and that point;
    0 when there is no such pair."""
    length, width = band.shape
    if length == 0 or width < 5:
        return 0.0
    profile = band.mean(axis=0)  # darkness at each offset across, averaged along (dashes count by their share)
    profile = profile - profile.min()  # a cage's fill, shading: no line
    inner = np.concatenate(([False], (profile[1:-1] >= profile[:-2]) & (profile[1:-1] > profile[2:]), [False]))
    peaks = [int(i) for i in np.flatnonzero(inner & (profile >= INSET_LINE))]
    runs = {}
    for i in peaks:  # each line's ink: its run of offsets at least half its peak
        a, b = i, i
        while a > 0 and profile[a - 1] >= RUN_LEVEL * profile[i]:
            a -= 1
        while b + 1 < width and profile[b + 1] >= RUN_LEVEL * profile[i]:
            b += 1
        runs[i] = float(profile[a:b + 1].sum())
    lines = [i for i in peaks if runs[i] >= INSET_INK]
    centre = (width - 1) / 2
    best = 0.0
    for k, i in enumerate(lines):
        for j in lines[k + 1:]:
            mid, low = (i + j) // 2, INSET_GAP * min(profile[i], profile[j])
            if (i <= centre - INSET[0] * cell and j >= centre + INSET[0] * cell  # either side of the line
                    and j - i <= 2 * INSET[1] * cell
                    and abs((i + j) / 2 - centre) <= INSET_OFF * cell
                    and profile[i:mid + 1].min() < low and profile[mid:j + 1].min() < low):
                best = max(best, 2.0 * min(runs[i], runs[j]))
    return best


def _edge_ink(dark: np.ndarray, g: GridGeometry, r: int, c: int, vertical: bool) -> tuple[float, float]:
    """The edge's ink (its line's width, _width_of), with an inset outline pair's (_inset_pair),
    and the share of the edge that is unbroken line (both from one measure of its runs)."""
    if vertical:  # between (r,c) and (r,c+1): line x = xs[c+1]
        x, h, w = g.xs[c + 1], g.ys[r + 1] - g.ys[r], g.xs[c + 1] - g.xs[c]
        y0, y1 = int(g.ys[r] + ALONG[0] * h), int(g.ys[r + 1] - (1 - ALONG[1]) * h)
        half, wide = max(3, int(BAND * w)), max(3, int(np.ceil((INSET[1] + INSET_OFF) * w)) + 1)
        xi = int(round(x))
        band = dark[y0:y1, max(0, xi - wide): xi + wide + 1]
        cell = w
    else:
        y, w, h = g.ys[r + 1], g.xs[c + 1] - g.xs[c], g.ys[r + 1] - g.ys[r]
        x0, x1 = int(g.xs[c] + ALONG[0] * w), int(g.xs[c + 1] - (1 - ALONG[1]) * w)
        half, wide = max(3, int(BAND * h)), max(3, int(np.ceil((INSET[1] + INSET_OFF) * h)) + 1)
        yi = int(round(y))
        band = dark[max(0, yi - wide): yi + wide + 1, x0:x1].T
        cell = h
    if band.shape[1] != 2 * wide + 1:  # at the square's edge: the band cut round its middle
        runs = _runs(band[:, max(0, band.shape[1] // 2 - half):band.shape[1] // 2 + half + 1], cell)
        return _width_of(runs), _width_of(runs, solid=True)
    runs = _runs(band[:, wide - half:wide + half + 1], cell)
    return _width_of(runs) + _inset_pair(band, cell), _width_of(runs, solid=True)


def _otsu(v: np.ndarray) -> int:
    """Index i of sorted v: the split v[:i+1] | v[i+1:] with the largest between-class variance."""
    k = np.arange(1, len(v))
    csum = np.cumsum(v)
    m0 = csum[:-1] / k
    m1 = (csum[-1] - csum[:-1]) / (len(v) - k)
    return int(np.argmax(k * (len(v) - k) * (m1 - m0) ** 2))


def _split(values: np.ndarray, solid: np.ndarray | None = None) -> float:
    """Threshold between cell lines and cage borders, on log ink: the split with
    the largest between-class variance (Otsu); but when the lighter side itself
    falls into two kinds with a clear gap (faint dotted cell lines, thin solid
    borders, and a heavy highlight on top), the cell lines are the lightest kind
    -- when the middle kind is unbroken lines (`solid`: per value, the share of
    its edge that is line), not dashes of a dotted line caught between gaps."""
    return _splits(values, solid)[0]


def _splits(values: np.ndarray, solid: np.ndarray | None = None) -> tuple[float, float | None]:
    """_split's threshold, and when it took the lightest of three kinds as the cell lines, Otsu's
    threshold too (the middle kind may be cell lines as well: hairlines some of which the screen
    dropped, beside heavy cage borders); None otherwise."""
    order = np.argsort(values)
    v = np.log(values[order] + 0.5)
    whole = np.ones(len(v)) if solid is None else np.asarray(solid)[order]
    i = _otsu(v)
    lo, hi = v[: i + 1], v[i + 1:]
    spread = max(1e-3, float(np.sqrt((lo.var() * len(lo) + hi.var() * len(hi)) / len(v))))
    if v[-1] - v[0] < np.log(ALIKE) and hi.mean() - lo.mean() < SEPARATE * spread:
        return float(np.exp(v[-1]) + 1), None  # one kind of line only: call them all thin
    otsu = float(np.exp((v[i] + v[i + 1]) / 2) - 0.5)
    lower = v[: i + 1]
    if len(lower) >= 4:
        j = _otsu(lower)
        if (lower[j + 1] - lower[j] >= np.log(KINDS_GAP) and whole[j + 1: i + 1].min() >= SOLID
                and j + 1 >= KIND_SHARE * len(v) and not _stray(v, j + 1, KIND_SHARE * len(v))):
            return float(np.exp((v[j] + v[j + 1]) / 2) - 0.5), otsu
    return otsu, None


def _stray(v: np.ndarray, first: int, fewest: float) -> bool:
    """Whether the sorted log inks `v` from index `first` on, up to the next gap of KINDS_GAP (a kind may
    run past Otsu's split), are fewer than `fewest` and nearer the kind below than the one above: a
    stray edge or two (a cell line where a written stroke was taken out, a little darker), no kind of
    line of their own, but lines of the kind below."""
    last = first
    while last + 1 < len(v) and v[last + 1] - v[last] < np.log(KINDS_GAP):
        last += 1
    above = v[last + 1] - v[last] if last + 1 < len(v) else np.inf
    return last - first + 1 < fewest and v[first] - v[first - 1] < above


def group(n: int, right: np.ndarray, down: np.ndarray) -> list[list[Cell]]:
    """Cells joined across every thin edge."""
    pairs = [(r * n + c, r * n + c + 1) for r in range(n) for c in range(n - 1) if not right[r, c]]
    pairs += [(r * n + c, (r + 1) * n + c) for r in range(n - 1) for c in range(n) if not down[r, c]]
    return [[divmod(i, n) for i in g] for g in join_cells(n * n, pairs)]


def find_cages(square: np.ndarray, geom: GridGeometry, colour: np.ndarray | None = None
               ) -> tuple[CageLayout, np.ndarray]:
    """Cage layout, and the darkness image the later stages reuse.  `colour`: the square in its colours
    (GridGeometry.colour_square, or every FILL_EVERY-th pixel of it), where the cells' fills may draw the
    cages (_fill_changes)."""
    n = geom.size
    dark = darkness(square, n)
    lines = above_texture(dark, geom)
    edges_r = [[_edge_ink(lines, geom, r, c, True) if c + 1 < n else (0.0, 0.0) for c in range(n)] for r in range(n)]
    edges_d = [[_edge_ink(lines, geom, r, c, False) if r + 1 < n else (0.0, 0.0) for c in range(n)] for r in range(n)]
    ink_r = np.array([[e[0] for e in row] for row in edges_r])
    ink_d = np.array([[e[0] for e in row] for row in edges_d])
    values = np.concatenate([ink_r[:, :-1].ravel(), ink_d[:-1, :].ravel()])
    solid = np.array([edges_r[r][c][1] for r in range(n) for c in range(n - 1)]
                     + [edges_d[r][c][1] for r in range(n - 1) for c in range(n)])
    thr, other = _splits(values, solid)
    layout = _layout(n, ink_r, ink_d, thr)
    if other is not None:
        layout = replace(layout, other=_layout(n, ink_r, ink_d, other))
    fills = None if colour is None else _fill_changes(colour, geom)
    if fills is not None:
        by_fill = _layout(n, *fills)
        if thr > values.max():  # every line alike: the fills draw the cages
            return by_fill, dark
        layout = replace(layout, other=by_fill) if layout.other is None else replace(
            layout, other=replace(layout.other, other=by_fill))
    return layout, dark


def _fill_changes(colour: np.ndarray, geom: GridGeometry) -> tuple[np.ndarray, np.ndarray, float] | None:
    """How much each cell's fill differs from its right and lower neighbours' (RGB distance; the
    fill: the median colour of the cell's middle, FILL_AREA, on its paper, FILL_PAPER), and the split
    between one fill and two (_splits); None when the fills do not fall into two kinds FILL_APART apart
    (one colour, or shades a photo's light makes)."""
    n = geom.size
    every = FILL_EVERY if colour.shape[0] == SIDE else 1  # the full square, or its pixels so taken already
    small = np.ascontiguousarray(colour[every // 2::every, every // 2::every])
    f = small.shape[0] / SIDE  # the geometry's place in the small square
    rgb = small.astype(np.float32)  # RGB distance: CIELAB's tables cost a process 40 ms to build, for no better split
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    dark = darkness(255 - grey if geom.light_on_dark else grey, n)
    a, b = FILL_AREA
    fill = np.zeros((n, n, 3), np.float32)
    for r in range(n):
        for c in range(n):
            x0, x1, y0, y1 = (f * v for v in (geom.xs[c], geom.xs[c + 1], geom.ys[r], geom.ys[r + 1]))
            xa, xb = int(x0 + a * (x1 - x0)), int(x0 + b * (x1 - x0))
            ya, yb = int(y0 + a * (y1 - y0)), int(y0 + b * (y1 - y0))
            pixels, paper = rgb[ya:yb, xa:xb].reshape(-1, 3), dark[ya:yb, xa:xb].ravel() < FILL_PAPER
            if len(pixels) == 0:
                return None
            fill[r, c] = np.median(pixels[paper] if paper.any() else pixels, axis=0)
    right = np.zeros((n, n), np.float32)
    down = np.zeros((n, n), np.float32)
    right[:, :-1] = np.linalg.norm(fill[:, 1:] - fill[:, :-1], axis=2)
    down[:-1, :] = np.linalg.norm(fill[1:, :] - fill[:-1, :], axis=2)
    values = np.concatenate([right[:, :-1].ravel(), down[:-1, :].ravel()])
    thr, _ = _splits(values)
    if thr > values.max() or values[values > thr].min() < FILL_APART:
        return None
    return right, down, thr


def _layout(n: int, ink_r: np.ndarray, ink_d: np.ndarray, thr: float) -> CageLayout:
    """The cages when every edge of more ink than thr is a border."""
    right, down = ink_r > thr, ink_d > thr
    right[:, -1] = True
    down[-1, :] = True
    cages = tuple(tuple(g) for g in group(n, right, down))

    def margin(ink: np.ndarray) -> tuple[tuple[float, ...], ...]:
        return tuple(tuple(float(abs(np.log(v + 0.5) - np.log(thr + 0.5))) for v in row) for row in ink)

    return CageLayout(cages, rows(right), rows(down), float(thr), margin(ink_r), margin(ink_d))


def rows(a: np.ndarray) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(bool(v) for v in row) for row in a)
