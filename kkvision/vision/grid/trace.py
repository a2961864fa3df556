"""Follow each grid line through the picture and straighten the grid.

The frame quad gives a first, flat warp.  In it every line of the n x n
lattice is looked for strip by strip (the darkest row across a short strip
near where the line should be); a smooth displacement field (low-degree
polynomials over the square) is fitted to what was found, robustly, so lines
that are missing (cage borders only), broken or hidden by a label are
bridged by their neighbours.  A curved page's bowed lines and uneven cells
are thereby followed; a flat page's field is about zero.
"""

from __future__ import annotations

import cv2
import numpy as np

from .geometry import MESH, SHRINK_TO, SIDE

STRIPS_PER_CELL = 2  # strips along each line, per cell
WINDOWS = (0.3, 0.12)  # search half-width around the expected line, in cells: first pass, second pass
DEG_ALONG, DEG_ACROSS = 4, 2  # polynomial degrees of the field along and across the lines
RIDGE = 1e-3  # keeps unsupported terms of the field near zero
WEAK = 0.3  # a find weaker than this fraction of the typical frame find is no line
OUTLIER = 3.0  # finds further than this many robust deviations from the field are dropped
MIN_OUTLIER = 0.02  # ... but never closer than this fraction of a cell
MAX_SHIFT = 0.45  # a field moving a line more than this many cells is wrong: stay flat


def _basis(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Legendre products P_a(u) P_b(v) over [-1, 1]^2; u along the line, v across."""
    pu = np.polynomial.legendre.legvander(2 * u / SIDE - 1, DEG_ALONG)
    pv = np.polynomial.legendre.legvander(2 * v / SIDE - 1, DEG_ACROSS)
    return (pu[:, :, None] * pv[:, None, :]).reshape(len(u), -1)


def _fit(u: np.ndarray, v: np.ndarray, d: np.ndarray, w: np.ndarray, cell: float) -> np.ndarray | None:
    """Robust weighted least squares of displacement d at (u along, v across)."""
    if len(d) < 4:
        return None
    A = _basis(u, v)
    weight = w.copy()
    coef = None
    for _ in range(4):
        sw = np.sqrt(weight)[:, None]
        reg = RIDGE * np.eye(A.shape[1]) * float(weight.sum())
        reg[0, 0] = 0.0
        coef = np.linalg.solve((A * sw).T @ (A * sw) + reg, (A * sw).T @ (d * sw[:, 0]))
        res = np.abs(A @ coef - d)
        good = weight > 0
        mad = float(np.median(res[good])) if good.any() else 0.0
        limit = max(OUTLIER * 1.48 * mad, MIN_OUTLIER * cell)
        new = np.where(res <= limit, w, 0.0)
        if np.array_equal(new > 0, good):
            break
        weight = new
    return coef


def _finds(profiles: np.ndarray, centres: np.ndarray, lines: np.ndarray, half: float, cell: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each line k and strip s: where the profile peaks within `half` px of
    lines[k, s].  profiles: (strips, length) darkness along the across-axis."""
    ks, ss, pos, strength = [], [], [], []
    length = profiles.shape[1]
    for k in range(lines.shape[0]):
        for s in range(profiles.shape[0]):
            c = lines[k, s]
            lo, hi = max(0, int(c - half)), min(length, int(c + half) + 2)
            if hi - lo < 3:
                continue
            seg = profiles[s, lo:hi]
            p = int(np.argmax(seg))
            floor = float(np.median(seg))
            top = float(seg[p])
            level = (top + floor) / 2
            a, b = p, p
            while a > 0 and seg[a - 1] >= level:
                a -= 1
            while b < len(seg) - 1 and seg[b + 1] >= level:
                b += 1
            wts = seg[a:b + 1] - level
            centre = lo + a + float((np.arange(b - a + 1) * wts).sum() / max(wts.sum(), 1e-6))
            ks.append(k)
            ss.append(s)
            pos.append(centre)
            strength.append(top - floor)
    return np.asarray(ks), np.asarray(ss), np.asarray(pos, float), np.asarray(strength, float)


def _profiles(inv: np.ndarray, margin: int, strips: int) -> np.ndarray:
    """(strips, rows) mean darkness of each row within each vertical strip of the square."""
    edges = np.linspace(margin, margin + SIDE, strips + 1)
    cs = np.zeros((inv.shape[0], inv.shape[1] + 1), np.float64)
    np.cumsum(inv, axis=1, out=cs[:, 1:])
    a, b = edges[:-1].astype(int), edges[1:].astype(int)
    return ((cs[:, b] - cs[:, a]) / (b - a)).T


def _field(inv: np.ndarray, margin: int, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Displacement fields (coefficients) for horizontal lines (dy) and vertical lines (dx)."""
    cell = SIDE / n
    strips = STRIPS_PER_CELL * n
    centres = (np.arange(strips) + 0.5) * SIDE / strips
    nominal = np.arange(n + 1) * cell
    coefs: list[np.ndarray | None] = [None, None]
    profs = [_profiles(inv, margin, strips), _profiles(inv.T, margin, strips)]
    for half in WINDOWS:
        for axis in (0, 1):  # 0: horizontal lines, displacement in y
            coef = coefs[axis]
            uu, vv = np.meshgrid(centres, nominal)
            expect = vv + (_basis(uu.ravel(), vv.ravel()) @ coef).reshape(vv.shape) if coef is not None else vv
            ks, ss, pos, strength = _finds(profs[axis], centres, expect + margin, half * cell, cell)
            if len(pos) == 0:
                continue
            frame = strength[(ks == 0) | (ks == n)]
            typical = float(np.median(frame)) if frame.size else float(np.median(strength))
            ok = strength >= WEAK * typical
            v = nominal[ks[ok]]
            u = centres[ss[ok]]
            coefs[axis] = _fit(u, v, pos[ok] - margin - v, strength[ok], cell)
    for axis in (0, 1):
        coef = coefs[axis]
        if coef is None:
            continue
        g = np.linspace(0, SIDE, 13)
        uu, vv = np.meshgrid(g, g)
        if np.abs(_basis(uu.ravel(), vv.ravel()) @ coef).max() > MAX_SHIFT * cell:
            coefs[axis] = None
    return coefs[0], coefs[1]


def trace(gray: np.ndarray, quad: np.ndarray, n: int) -> np.ndarray:
    """Mesh (MESH+1, MESH+1, 2): picture points of the straightened square's lattice."""
    cell = SIDE / n
    margin = int(np.ceil(max(WINDOWS) * cell)) + 2
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
    canvas = cv2.warpPerspective(crop, H, (SIDE + 2 * margin, SIDE + 2 * margin), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    inv = 255.0 - cv2.GaussianBlur(canvas, (0, 0), max(1.0, SIDE / 900)).astype(np.float64)
    dy, dx = _field(inv, margin, n)
    g = np.linspace(0, SIDE, MESH + 1)
    uu, vv = np.meshgrid(g, g)  # straightened square points, rows = v
    u, v = uu.ravel(), vv.ravel()
    x, y = u.copy(), v.copy()
    for _ in range(2):  # each field was fitted at the other's displaced positions
        y = v + (_basis(x, v) @ dy if dy is not None else 0.0)
        x = u + (_basis(y, u) @ dx if dx is not None else 0.0)
    pts = np.column_stack([x, y]).reshape(-1, 1, 2) + margin
    back = cv2.perspectiveTransform(pts, np.linalg.inv(H)).reshape(MESH + 1, MESH + 1, 2)
    return (back + 0.5) / f - 0.5 + [x0, y0]
