"""Stage 1: find the puzzle's outer frame, warp it to a square, find its size.

Candidates are the large four-cornered contours of an adaptive threshold;
each is warped to a SIDE x SIDE square and scored by how well n-1 evenly
spaced full-length lines explain it, for n in 3..9.  The best candidate wins;
its size is the largest n whose lines are all present (a 6x6 also has the
lines of a 3x3, a 3x3 has no lines at 1/6).  Line positions are then refined
one by one (float geometry, no integer cell size anywhere).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ..errors import GridNotFound

SIDE = 900  # warped square side, px
SIZES = range(3, 10)
LINE_OK = 0.55  # a line must cover this fraction of the grid's width


@dataclass(frozen=True)
class GridGeometry:
    size: int
    corners: tuple[tuple[float, float], ...]  # tl, tr, br, bl in the original image
    xs: tuple[float, ...]  # n+1 vertical line positions in the warped square
    ys: tuple[float, ...]  # n+1 horizontal line positions
    homography: np.ndarray = field(compare=False, repr=False)  # original -> warped

    def cell_box(self, r: int, c: int) -> tuple[float, float, float, float]:
        return self.xs[c], self.ys[r], self.xs[c + 1], self.ys[r + 1]


def to_gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def ink_mask(gray: np.ndarray) -> np.ndarray:
    """255 where ink: darker than its neighbourhood (robust to shadows)."""
    block = max(15, (min(gray.shape[:2]) // 40) | 1)
    return cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 12)


def _order(pts: np.ndarray) -> np.ndarray:
    s, d = pts.sum(1), np.diff(pts, axis=1).ravel()
    return np.asarray([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]], dtype=np.float32)


def _quads(mask: np.ndarray, min_area: float) -> list[np.ndarray]:
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    contours = sorted((c for c in contours if cv2.contourArea(c) > min_area), key=cv2.contourArea,
                      reverse=True)[:12]
    out = []
    for c in contours:
        hull = cv2.convexHull(c)
        peri = cv2.arcLength(hull, True)
        for eps in (0.01, 0.02, 0.04):
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                out.append(_order(approx.reshape(4, 2).astype(np.float32)))
                break
    return out


def _coverage(mask: np.ndarray, axis: int) -> np.ndarray:
    """Per row (axis=0) / column (axis=1): fraction of the span that is ink,
    after closing small gaps so dotted lines count."""
    t = max(3, SIDE // 150)
    if axis == 0:
        k = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * t + 1, 2 * t + 1))
        m = cv2.dilate(mask, k)[:, SIDE // 30: -SIDE // 30]
        return m.mean(axis=1) / 255.0
    return _coverage(mask.T.copy(), 0)


def _line_at(cov: np.ndarray, pos: float, tol: float) -> tuple[float, float]:
    lo, hi = max(0, int(pos - tol)), min(len(cov) - 1, int(pos + tol) + 1)
    seg = cov[lo: hi + 1]
    k = int(np.argmax(seg))
    a, b = k, k  # centre of the plateau around the peak (dilation widens lines)
    while a > 0 and seg[a - 1] >= seg[k] - 0.02:
        a -= 1
    while b < len(seg) - 1 and seg[b + 1] >= seg[k] - 0.02:
        b += 1
    return float(seg[k]), lo + (a + b) / 2


def _size_scores(cov_h: np.ndarray, cov_v: np.ndarray) -> dict[int, float]:
    scores = {}
    for n in SIZES:
        step = SIDE / n
        vals = [_line_at(cov, k * step, 0.1 * step)[0] for cov in (cov_h, cov_v) for k in range(1, n)]
        scores[n] = min(vals)
    return scores


def _pick_size(scores: dict[int, float], cov_h: np.ndarray, cov_v: np.ndarray) -> int | None:
    """Largest n whose lines all stand out: above LINE_OK, and well above what
    an ordinary row scores in this image (noise fills rows after dilation)."""
    base = float(min(np.median(cov_h), np.median(cov_v)))
    need = max(LINE_OK, base + 0.45 * (1.0 - base))
    ok = [n for n, s in scores.items() if s >= need]
    return max(ok) if ok else None


def _refine(cov: np.ndarray, n: int, ends: float = 0.12) -> tuple[float, ...]:
    """Line positions: the frame searched within `ends` cells of the border,
    inner lines near their even spacing between the frame lines."""
    step = SIDE / n
    _, first = _line_at(cov, 0.0, ends * step)
    _, last = _line_at(cov, float(SIDE), ends * step)
    inner = (last - first) / n
    pos = [first]
    for k in range(1, n):
        _, p = _line_at(cov, first + k * inner, 0.12 * inner)
        pos.append(p)
    return tuple(pos + [last])


def _frame_side(cov: np.ndarray, reach: float, far: bool) -> float:
    """Position of the frame line near one border: the innermost strong line
    within `reach` (a page edge or background may lie outside it); the border
    itself when that line runs into it."""
    seg = (cov[::-1] if far else cov)[: int(reach) + 1]
    strong = seg >= max(LINE_OK, 0.85 * float(seg.max()))
    idx = np.flatnonzero(strong)
    if idx.size == 0:
        return float(SIDE) if far else 0.0
    end = int(idx[-1])
    start = end
    while start > 0 and strong[start - 1]:
        start -= 1
    pos = 0.0 if start == 0 else (start + end) / 2
    return float(SIDE) - pos if far else pos


def _frame_fit(gray: np.ndarray, quad: np.ndarray, H: np.ndarray, n: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Re-warp so the frame lines sit on the square's border (a quad found
    around the page or a margin leaves them inside)."""
    dst = np.asarray([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], dtype=np.float32)
    for _ in range(2):
        square = warp(gray, H)
        m = ink_mask(square)
        cov_h, cov_v = _coverage(m, 0), _coverage(m, 1)
        step = SIDE / n
        # the strongest line near each border is the frame; where it already
        # reaches the border (its plateau is cut off there) the side stays put
        left, right = _frame_side(cov_v, 0.4 * step, False), _frame_side(cov_v, 0.4 * step, True)
        top, bottom = _frame_side(cov_h, 0.4 * step, False), _frame_side(cov_h, 0.4 * step, True)
        if (left, top, right, bottom) == (0.0, 0.0, float(SIDE), float(SIDE)):
            break
        inner = np.asarray([[[left, top], [right, top], [right, bottom], [left, bottom]]], dtype=np.float32)
        quad = cv2.perspectiveTransform(inner, np.linalg.inv(H)).reshape(4, 2).astype(np.float32)
        H = cv2.getPerspectiveTransform(quad, dst)
    square = warp(gray, H)
    m = ink_mask(square)
    return quad, H, square, _coverage(m, 0), _coverage(m, 1)


def warp(image: np.ndarray, homography: np.ndarray) -> np.ndarray:
    return cv2.warpPerspective(image, homography, (SIDE, SIDE), flags=cv2.INTER_AREA)


def find_grid(image: np.ndarray) -> tuple[GridGeometry, np.ndarray]:
    """The grid's geometry and the warped grey square."""
    gray = to_gray(image)
    scale = min(1.0, 1600 / max(gray.shape[:2]))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    mask = ink_mask(small)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    best = None
    for quad in _quads(mask, 0.04 * small.shape[0] * small.shape[1]):
        quad = quad / scale
        dst = np.asarray([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], dtype=np.float32)
        H = cv2.getPerspectiveTransform(quad, dst)
        square = warp(gray, H)
        sq_mask = ink_mask(square)
        cov_h, cov_v = _coverage(sq_mask, 0), _coverage(sq_mask, 1)
        scores = _size_scores(cov_h, cov_v)
        n = _pick_size(scores, cov_h, cov_v)
        if n is None:
            continue
        # A page or margin around the grid shifts the lines so only a coarser
        # size fits; the real frame explains the most lines.
        key = (n, scores[n])
        if best is None or key > best[0]:
            best = (key, n, quad, H, square, cov_h, cov_v)
    if best is None:
        raise GridNotFound("no puzzle grid found: no square frame with evenly spaced lines for 3..9 cells"
                           " (crop closer, or photograph the grid straight on)")
    _, n, quad, H, square, cov_h, cov_v = best
    quad, H, square, cov_h, cov_v = _frame_fit(gray, quad, H, n)
    geom = GridGeometry(n, tuple((float(x), float(y)) for x, y in quad), _refine(cov_v, n), _refine(cov_h, n), H)
    return geom, square
