"""Follow each grid line through the picture and straighten the grid.

The frame quad gives a first, flat warp.  In it every line of the n x n
lattice is looked for strip by strip (the darkest row across a short strip
near where the line should be).  Two models are fitted to the finds, robustly:
  field  a smooth low-degree shift over the whole square (the frame quad a
         little off, a gentle bend), from all lines together;
  lines  each well-found line's own smooth curve on top of the field, kept
         only where it fits that line clearly better (a bowed page near the
         spine); lines found in too few strips (cage borders only) take the
         curve interpolated from their neighbours.
Between lines the shift is linear.  A flat picture's lines stay straight.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..stages import MESH, SHRINK_TO, SIDE
from ..stats import grey_percentile, median

STRIPS_PER_CELL = 2  # strips along each line, per cell
PIECES = 8  # a strip's darkness per row is the median over this many pieces of it
WINDOWS = (0.3, 0.12)  # search half-width around the expected line, in cells: first pass, second pass
WEAK = 0.3  # a find weaker than this fraction of the typical frame find is no line
DEG_FIELD = 2  # degree of the smooth field, along and across the lines
DEG_LINE = 3  # degree of a line's own curve
RIDGE = 1e-3  # keeps a line's higher terms small where few finds support them
RIDGE_FIELD = 0.03  # ... and the field's: it bends only where many finds agree (labels pull a few)
OUTLIER = 3.0  # finds further than this many robust deviations from a fit are dropped
MIN_OUTLIER = 0.02  # ... but never closer than this fraction of a cell
FOUND_SHARE = 0.6  # a line gets its own curve when found in this share of its strips,
SPAN = 0.6  # ... over this much of its length (no wild ends),
BETTER = 0.04  # ... and the curve brings its finds this many cells closer (median) than the field
FINDS_PER_TERM = 3  # a line's curve has a term per this many finds
PAIR = (0.06, 0.36)  # two like lines this far apart (cells), either side of where a line should be, are
                     # cage outlines inset either side of it (cages.INSET: 0.03..0.18 of a cell inside each
                     # cell); closer, a line drawn along another (an app's selected cage)
LIKE = 0.6  # ... lines of like strength: the weaker at least this fraction of the stronger,
LINED = 0.3  # ... or this fraction when the cell line shows between them: a run in the middle (MIDDLE of their
MIDDLE = 0.2  # distance from it) standing FAINT of the stronger (outlines of two colours, dashed out of step)
FAINT = 0.15
BANDS = 2  # dark bands (a toolbar, a ruled box's tint) a window may hold beside its line, passed over
BAND_WIDTH = 0.2  # cells: a run of darkness wider than this at its CORE is such a band, never a line (a heavy frame
                  # is under 0.1; an app's toolbar, a tinted box, a highlighted row is a fifth of a cell and more)
CORE = 0.75  # ... its core: where it is this far from the window's median up to its darkest (a line's core is the
             # line; a caption's letters beside a frame line are lighter in the strip's median, a band is flat)
FRAME_LIKE = 0.3  # a frame line's window: a narrow run at least this fraction of the darkest one may be the frame
MAX_SHIFT = 0.45  # a fit moving a line more than this many cells is wrong: stay with the frame


def _vander(u: np.ndarray, deg: int) -> np.ndarray:
    return np.polynomial.legendre.legvander(2 * np.asarray(u, float) / SIDE - 1, deg)


def _basis(along: np.ndarray, across: np.ndarray) -> np.ndarray:
    pa, pc = _vander(along, DEG_FIELD), _vander(across, DEG_FIELD)
    return (pa[:, :, None] * pc[:, None, :]).reshape(len(pa), -1)


def _robust(A: np.ndarray, d: np.ndarray, w: np.ndarray, cell: float, ridge: float = RIDGE
            ) -> tuple[np.ndarray, np.ndarray]:
    """Weighted ridge least squares, dropping outliers; (coefficients, kept mask)."""
    weight = w.copy()
    coef = np.zeros(A.shape[1])
    for _ in range(5):
        sw = np.sqrt(weight)[:, None]
        reg = ridge * np.eye(A.shape[1]) * float(weight.sum())
        reg[0, 0] = 1e-9 * float(weight.sum())
        coef = np.linalg.solve((A * sw).T @ (A * sw) + reg, (A * sw).T @ (d * sw[:, 0]))
        res = np.abs(A @ coef - d)
        good = weight > 0
        limit = max(OUTLIER * 1.48 * median(res[good]), MIN_OUTLIER * cell)
        new = np.where(res <= limit, w, 0.0)
        if np.array_equal(new > 0, good) or np.count_nonzero(new) < A.shape[1] + 1:
            break
        weight = new
    return coef, weight > 0


def _enough(u: np.ndarray, strips: int) -> bool:
    return len(u) >= max(DEG_LINE + 2, FOUND_SHARE * strips) and float(np.ptp(u)) >= SPAN * SIDE


def _line(u: np.ndarray, res: np.ndarray, w: np.ndarray, cell: float, strips: int) -> np.ndarray | None:
    """A line's own curve over the field's residuals `res`: zeros when the field
    fits it well enough, None when too little of the line was found."""
    if not _enough(u, strips):
        return None
    deg = min(DEG_LINE, len(u) // FINDS_PER_TERM - 1)
    coef, kept = _robust(_vander(u, deg), res, w, cell)
    if not _enough(u[kept], strips):
        return None
    out = np.zeros(DEG_LINE + 1)
    gain = median(np.abs(res[kept])) - median(np.abs(res[kept] - _vander(u[kept], deg) @ coef))
    if gain > BETTER * cell:
        out[: deg + 1] = coef
    return out


def _bridge(coefs: list[np.ndarray | None]) -> np.ndarray:
    """Lines not found take the curve interpolated from their nearest found neighbours."""
    found = [k for k, c in enumerate(coefs) if c is not None]
    out = np.zeros((len(coefs), DEG_LINE + 1))
    for k, c in enumerate(coefs):
        if c is not None:
            out[k] = c
            continue
        below = [j for j in found if j < k]
        above = [j for j in found if j > k]
        if below and above:
            a, b = below[-1], above[0]
            out[k] = coefs[a] * (b - k) / (b - a) + coefs[b] * (k - a) / (b - a)  # type: ignore[operator]
    return out


class Shift:
    """Displacement across the lines of one family (horizontal lines: dy), at (along, across)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.field = np.zeros((DEG_FIELD + 1) ** 2)
        self.lines = np.zeros((n + 1, DEG_LINE + 1))

    def __call__(self, along: np.ndarray, across: np.ndarray) -> np.ndarray:
        along, across = np.asarray(along, float).ravel(), np.asarray(across, float).ravel()
        cell = SIDE / self.n
        curves = self.lines @ _vander(along, DEG_LINE).T  # (n+1, points)
        t = np.clip(across / cell, 0, self.n)
        k = np.minimum(t.astype(int), self.n - 1)
        f = t - k
        idx = np.arange(len(along))
        return _basis(along, across) @ self.field + curves[k, idx] * (1 - f) + curves[k + 1, idx] * f


def _floors(profiles: np.ndarray, rows: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """np.median of each window profiles[rows[i], lo[i]:hi[i]], the same numbers, taken
    for all windows of a length at once (the tracer takes some 800 window medians a
    grid, and np.median's own overhead had been most of their time)."""
    out = np.empty(len(rows), np.float64)
    for length in np.unique(hi - lo):
        at = np.flatnonzero(hi - lo == length)
        out[at] = np.median(profiles[rows[at, None], lo[at, None] + np.arange(length)], axis=1)
    return out


# numpy sums up to this many float64 terms as _numpy_sum does (more: in halves, pairwise), so a run's
# centre summed in Python is numpy's number to the last bit, in a fraction of four numpy calls' time
NUMPY_BLOCK = 128


def _numpy_sum(xs: list[float]) -> float:
    """sum(xs) in numpy's order for up to NUMPY_BLOCK terms: fewer than 8 one after another, else eight
    partial sums over blocks of 8, added pairwise, then the rest one after another."""
    if len(xs) < 8:
        total = -0.0
        for x in xs:
            total += x
        return total
    r = xs[:8]
    i = 8
    while i + 8 <= len(xs):
        for j in range(8):
            r[j] += xs[i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for x in xs[i:]:
        total += x
    return total


def _run(seg: list[float], p: int, level: float) -> tuple[int, int]:
    """The run of seg at or above `level` around index p: its first and last index.  (A list: the
    tracer asks this some 1500 times a grid, a step or a few each, where numpy's per-element access
    had been most of the time.)"""
    a, b, last = p, p, len(seg) - 1
    while a > 0 and seg[a - 1] >= level:
        a -= 1
    while b < last and seg[b + 1] >= level:
        b += 1
    return a, b


def _centre(seg: list[float], a: int, b: int, level: float) -> float:
    """The centre of seg's run a..b, weighted by how far each point stands above `level`."""
    level = float(level)
    if b - a + 1 <= NUMPY_BLOCK:
        wts = [v - level for v in seg[a:b + 1]]
        return a + _numpy_sum([i * w for i, w in enumerate(wts)]) / max(_numpy_sum(wts), 1e-6)
    heights = np.asarray(seg[a:b + 1]) - level
    return a + float((np.arange(b - a + 1) * heights).sum() / max(heights.sum(), 1e-6))


def _lined(seg: np.ndarray, p: int, q: int, faint: float) -> bool:
    """Does a run stand above `faint` in the middle between peaks p and q (a cell line between two outlines)?"""
    a, b = min(p, q), max(p, q)
    m0, m1 = int(np.ceil((a + b) / 2 - MIDDLE * (b - a))), int((a + b) / 2 + MIDDLE * (b - a))
    if not a < m0 <= m1 < b:
        return False
    r = m0 + int(np.argmax(seg[m0:m1 + 1]))
    return bool(seg[r] >= faint and seg[a:r].min() < seg[r] > seg[r:b + 1].min())


def _nearest_like(look: np.ndarray, wide: list[float], off: int, p: int, at: float, floor: float, top: float,
                  cell: float) -> int:
    """Of the narrow runs in a frame line's window standing at least FRAME_LIKE of the darkest one (p), the
    one nearest where the frame's quad puts the line (`at`): a cage outline inset just inside a thin
    frame, or labels along it, can stand as dark as the frame in a strip (a dashed outline next to a
    label), and the quad was found on the frame's whole outline."""
    best, dist = p, abs(p - at)
    level = floor + FRAME_LIKE * (top - floor)
    for i in np.flatnonzero(look >= level):
        if abs(i - at) >= dist or (0 < i and look[i - 1] > look[i]) or (i + 1 < len(look) and look[i + 1] > look[i]):
            continue  # farther, or not a peak
        ca, cb = _run(wide, int(i) + off, floor + CORE * (float(look[i]) - floor))
        if cb - ca + 1 <= BAND_WIDTH * cell:
            best, dist = int(i), abs(i - at)
    return best


def _finds(profiles: np.ndarray, lines: np.ndarray, half: float, cell: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each line k and strip s: where the profile peaks within `half` px of
    lines[k, s].  profiles: (strips, length) darkness along the across-axis.
    A run of darkness wider than a line (BAND_WIDTH) is a band (a toolbar
    over the frame), not a line: the darkest narrow run is taken instead.
    Two like peaks either side of where the line is expected, PAIR cells
    apart, are two cages' outlines inset in the cells either side of a
    (fainter) cell line: the line is between them; but a frame line taken
    over a darker one (_nearest_like) with such a partner is no find."""
    ks, ss, pos, strength = [], [], [], []
    length = profiles.shape[1]
    kk, sk = np.meshgrid(np.arange(lines.shape[0]), np.arange(profiles.shape[0]), indexing="ij")
    los = np.maximum(0, (lines - half).astype(int))  # int(): toward zero, as for each window alone
    his = np.minimum(length, (lines + half).astype(int) + 2)
    whole = his - los >= 3
    floors = np.zeros(lines.shape)
    floors[whole] = _floors(profiles, sk[whole], los[whole], his[whole])
    for k, s in zip(kk[whole], sk[whole]):
        c = lines[k, s]
        lo, hi, floor = int(los[k, s]), int(his[k, s]), float(floors[k, s])
        seg = profiles[s, lo:hi]
        look = seg.copy()
        # a run's width is measured BAND_WIDTH past the window's ends, where a line the window cuts is whole
        elo, ehi = max(0, lo - int(BAND_WIDTH * cell) - 1), min(length, hi + int(BAND_WIDTH * cell) + 1)
        wide = profiles[s, elo:ehi].tolist()
        for _ in range(BANDS + 1):  # the darkest run in the window that is narrow enough to be a line
            p = int(np.argmax(look))
            top = float(look[p])
            ca, cb = _run(wide, p + lo - elo, floor + CORE * (top - floor))
            line = cb - ca + 1 <= BAND_WIDTH * cell
            if line or top <= floor:
                break
            look[max(0, ca - (lo - elo)):max(0, cb + 1 - (lo - elo))] = floor
        if not line or top <= floor:
            continue
        darkest = p
        if k == 0 or k == lines.shape[0] - 1:  # the frame: of like lines, the one nearest the frame's quad
            p = _nearest_like(look, wide, lo - elo, p, c - lo, floor, top, cell)
            top = float(look[p])
        level = (top + floor) / 2
        listed = wide[lo - elo:hi - elo]  # seg, as a list
        a, b = _run(listed, p, level)
        centre = _centre(listed, a, b, level)
        rest = look  # without the bands
        rest[max(0, a - 1):b + 2] = floor  # the peak found and its shoulders
        at = c - lo  # the partner of an inset outline is across the expected line (not the fainter cell
        if p < at:   # line itself, which may stand higher in the strip than a dashed partner)
            rest[:int(np.floor(at)) + 1] = floor
        else:
            rest[max(0, int(np.ceil(at))):] = floor
        q = int(np.argmax(rest))
        if (rest[q] - floor >= LINED * (top - floor)
                and PAIR[0] * cell <= abs(q - p) <= PAIR[1] * cell
                and min(p, q) < at < max(p, q) and seg[min(p, q):max(p, q) + 1].min() < level
                and (rest[q] - floor >= LIKE * (top - floor) or _lined(seg, p, q, floor + FAINT * (top - floor)))):
            qa, qb = _run(wide, q + lo - elo, floor + CORE * (rest[q] - floor))
            if qb - qa + 1 <= BAND_WIDTH * cell:
                if p != darkest:  # a frame taken over a darker line beside it: which is the frame, this
                    continue      # strip cannot tell (an outline inset inside a thin frame, a rule outside)
                half_q = (rest[q] + floor) / 2
                centre = (centre + _centre(listed, *_run(listed, q, half_q), half_q)) / 2
        centre += lo
        ks.append(k)
        ss.append(s)
        pos.append(centre)
        strength.append(top - floor)
    return np.asarray(ks), np.asarray(ss), np.asarray(pos, float), np.asarray(strength, float)


def _profiles(summed: np.ndarray, margin: int, strips: int, across: bool = False) -> np.ndarray:
    """(strips, rows): per row, the median darkness over the pieces of each
    strip of the square (a line darkens the whole strip, a label only part);
    `across`: per column, over the pieces of each strip of rows.  summed: the
    darkness's integral image (cv2.integral of whole grey levels: exact sums)."""
    blocks = strips * PIECES
    edges = np.linspace(margin, margin + SIDE, blocks + 1).astype(int)
    if across:
        summed = summed.T
    cols = summed[:, edges]  # (rows + 1, blocks + 1): each row's sums up to each edge
    sums = np.diff(np.diff(cols, axis=0), axis=1)  # (rows, blocks): each row's sum over each piece
    means = sums / np.diff(edges)
    pieces = np.sort(means.reshape(sums.shape[0], strips, PIECES), axis=2)
    middle = PIECES // 2  # np.median's number: the middle one, or the mean of the middle two
    middles = pieces[..., middle] if PIECES % 2 else (pieces[..., middle - 1] + pieces[..., middle]) / 2
    return middles.T


def _shifts(inv: np.ndarray, margin: int, n: int) -> tuple[Shift, Shift]:
    """Shifts of the horizontal lines (dy, along x) and of the vertical lines (dx, along y)."""
    cell = SIDE / n
    strips = STRIPS_PER_CELL * n
    centres = (np.arange(strips) + 0.5) * SIDE / strips
    nominal = np.arange(n + 1) * cell
    shifts = [Shift(n), Shift(n)]
    summed = cv2.integral(inv, sdepth=cv2.CV_32S)
    profs = [_profiles(summed, margin, strips), _profiles(summed, margin, strips, across=True)]
    uu, vv = np.meshgrid(centres, nominal)
    for half in WINDOWS:
        for axis in (0, 1):  # 0: horizontal lines, displacement in y
            shift = shifts[axis]
            expect = vv + shift(uu, vv).reshape(vv.shape)
            ks, ss, pos, strength = _finds(profs[axis], expect + margin, half * cell, cell)
            if len(pos) == 0:
                continue
            frame = strength[(ks == 0) | (ks == n)]
            typical = median(frame) if frame.size else median(strength)
            ok = (strength >= WEAK * typical) & (strength > 0)
            if np.count_nonzero(ok) < 2 * (DEG_FIELD + 1) ** 2:
                continue
            u, v, d, w = centres[ss[ok]], nominal[ks[ok]], pos[ok] - margin - nominal[ks[ok]], strength[ok]
            new = Shift(n)
            new.field, _ = _robust(_basis(u, v), d, w, cell, RIDGE_FIELD)
            res = d - _basis(u, v) @ new.field
            new.lines = _bridge([_line(u[ks[ok] == k], res[ks[ok] == k], w[ks[ok] == k], cell, strips)
                                 for k in range(n + 1)])
            g = np.linspace(0, SIDE, 13)
            ga, gc = np.meshgrid(g, g)
            if np.abs(new(ga, gc)).max() <= MAX_SHIFT * cell:
                shifts[axis] = new
    return shifts[0], shifts[1]


def trace(gray: np.ndarray, quad: np.ndarray, n: int) -> np.ndarray:
    """Mesh (MESH+1, MESH+1, 2): picture points of the straightened square's lattice."""
    cell = SIDE / n
    margin = int(np.ceil((max(WINDOWS) + BAND_WIDTH) * cell)) + 2  # room to see a run past a window whole
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - int(cell)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + int(cell)
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(gray.shape[1], x1), min(gray.shape[0], y1)
    crop = gray[y0:y1, x0:x1]
    f = min(1.0, SHRINK_TO * SIDE / max(1, max(x1 - x0, y1 - y0)))
    if f < 1.0:
        crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    local = ((quad - [x0, y0]) + 0.5) * f - 0.5
    dst = np.asarray([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], np.float32) + margin
    H = cv2.getPerspectiveTransform(local.astype(np.float32), dst)
    # beyond the picture's edge is paper: a dark band along the edge must not grow into a wide "line"
    paper = grey_percentile(crop, 90)
    canvas = cv2.warpPerspective(crop, H, (SIDE + 2 * margin, SIDE + 2 * margin), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=paper)
    inv = 255 - cv2.GaussianBlur(canvas, (0, 0), max(1.0, SIDE / 900))  # darkness, whole grey levels
    dy, dx = _shifts(inv, margin, n)
    g = np.linspace(0, SIDE, MESH + 1)
    uu, vv = np.meshgrid(g, g)  # straightened square points, rows = v
    u, v = uu.ravel(), vv.ravel()
    x, y = u.copy(), v.copy()
    for _ in range(2):  # each field was fitted at the other's displaced positions
        y = v + dy(x, v)
        x = u + dx(y, u)
    pts = np.column_stack([x, y]).reshape(-1, 1, 2) + margin
    back = cv2.perspectiveTransform(pts, np.linalg.inv(H)).reshape(MESH + 1, MESH + 1, 2)
    return (back + 0.5) / f - 0.5 + [x0, y0]
