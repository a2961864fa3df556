"""Where a grid's frame might be: four-cornered outlines of ink, and rectangles
closed by long straight lines (a frame that touches a toolbar, a keypad or
the picture's edge is not an outline of its own)."""

from __future__ import annotations

import cv2
import numpy as np

from .lattice import COMPONENTS, ink_left_of

MIN_AREA = 0.02  # a grid covers at least this fraction of the picture
MAX_CONTOURS = 16  # largest outlines tried
RUN = 0.03  # a line piece is at least this fraction of the picture's shorter side
MIN_SIDE = 0.12  # a frame side spans at least this fraction of the shorter side
MAX_LINES = 24  # longest vertical lines paired into frames
FULL = 0.85  # a frame's top/bottom line covers this fraction of its width
MIN_SKEW = 0.3  # degrees: long lines leaning more are looked for turned upright too (a top line tilted 0.3 degrees
                # drifts 2.5 px over a 475 px frame in the shrunk picture: still in the rows it is looked for in)
SQUARE = 0.2  # a frame's height differs from its width by at most this fraction
MAX_ASPECT = 1.8  # longest / shortest side of a candidate quad (grids are square, seen in perspective)
FACE_ON = 4.0  # degrees: a quad whose every corner is this close to square is a rectangle seen face on...
FACE_ON_ASPECT = 1.25  # ...and then a grid of square cells only when its sides differ by at most this factor
                        # (a screen's keys, buttons and banners are face-on rectangles of any shape)
# a page of several puzzles (find_grids): each grid is a smaller part of the picture, and brings its own outlines and lines
PAGE_MIN_SIDE = 0.08  # a page's grid spans at least this fraction of the shorter side (a 9x9 of 300 px on an A4 scan)
PAGE_MAX_CONTOURS = 48  # a few grids' outlines, each with its largest cages' holes
PAGE_MAX_LINES = 64  # up to six 9x9 grids' ten vertical lines each


def order(pts: np.ndarray) -> np.ndarray:
    """tl, tr, br, bl."""
    s, d = pts.sum(1), np.diff(pts, axis=1).ravel()
    return np.asarray([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]], dtype=np.float32)


def plausible(quads: np.ndarray) -> np.ndarray:
    """For each quad of (N, 4, 2): could it be a square grid's frame: convex, not too long, and when
    seen face on (a screenshot, a flat scan: square corners) nearly square."""
    sides = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2)
    shortest, longest = sides.min(axis=1), sides.max(axis=1)
    aspect = longest / np.where(shortest > 0, shortest, 1)
    ok = (shortest > 0) & (aspect <= MAX_ASPECT)
    for i in np.flatnonzero(ok):
        quad = quads[i].astype(np.float32)
        ok[i] = cv2.contourArea(quad) > 0 and cv2.isContourConvex(quad)
    return ok & ((_corner_angles(quads).max(axis=1) > FACE_ON) | (aspect <= FACE_ON_ASPECT))


def _corner_angles(quads: np.ndarray) -> np.ndarray:
    """How far from 90 degrees each corner of each quad (N, 4, 2) is."""
    a = quads - np.roll(quads, 1, axis=1)
    b = np.roll(quads, -1, axis=1) - quads
    cos = (a * b).sum(2) / np.maximum(1e-9, np.linalg.norm(a, axis=2) * np.linalg.norm(b, axis=2))
    return np.abs(np.degrees(np.arcsin(np.clip(cos, -1, 1))))


def contour_quads(mask: np.ndarray, min_area: float = MIN_AREA, most: int = MAX_CONTOURS) -> list[np.ndarray]:
    least = min_area * mask.shape[0] * mask.shape[1]
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    contours = sorted((c for c in contours if cv2.contourArea(c) > least), key=cv2.contourArea,
                      reverse=True)[:most]
    out = []
    for c in contours:
        hull = cv2.convexHull(c)
        peri = cv2.arcLength(hull, True)
        for eps in (0.01, 0.02, 0.04):
            approx = cv2.approxPolyDP(hull, eps * peri, True)
            if len(approx) == 4:
                out.append(order(approx.reshape(4, 2).astype(np.float32)))
                break
    return out


def _groups(flags: np.ndarray) -> list[tuple[int, int]]:
    idx = np.flatnonzero(flags)
    if idx.size == 0:
        return []
    cuts = np.flatnonzero(np.diff(idx) > 1)
    starts = np.r_[idx[0], idx[cuts + 1]]
    ends = np.r_[idx[cuts], idx[-1]]
    return list(zip(starts.tolist(), ends.tolist()))


def line_rects(mask: np.ndarray, min_side: float = MIN_SIDE, most: int = MAX_LINES, loose: bool = False
               ) -> list[np.ndarray]:
    """Rectangles whose four sides are long lines of ink: pairs of long vertical
    lines, closed by the top and bottom lines that span them fully (those that
    make the squarest rectangle; `loose`: every pair that makes one near enough
    square).  Upright, and when the long lines lean (a page scanned askew), also
    in the picture turned upright: a frame whose outline runs into a rule beside
    it is found only so."""
    out, skew = _upright_rects(mask, min_side, most, loose)
    if abs(skew) < MIN_SKEW:
        return out
    h, w = mask.shape
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), -skew, 1.0)
    upright = cv2.warpAffine(mask, turn, (w, h), flags=cv2.INTER_NEAREST)
    back = cv2.invertAffineTransform(turn)
    for q in _upright_rects(upright, min_side, most, loose)[0]:
        out.append(order(cv2.transform(q.reshape(-1, 1, 2), back).reshape(4, 2).astype(np.float32)))
    return out


def _skew(labels: np.ndarray, stats: np.ndarray, keep: list[int]) -> float:
    """Degrees the long vertical lines `keep` (components of `labels`) lean, the
    median weighted by length: positive when they lean right going down."""
    angles, weights = [], []
    for k in keep:
        x, y, bw, bh, _ = stats[k]
        m = cv2.moments((labels[y:y + bh, x:x + bw] == k).astype(np.uint8), binaryImage=True)
        if m["m00"] < 10 or m["mu02"] <= 0:
            continue
        # x = a y + b fitted by least squares over the line's pixels: a = cov(x, y) / var(y)
        angles.append(float(np.degrees(np.arctan(m["mu11"] / m["mu02"]))))
        weights.append(float(bh))
    if not angles:
        return 0.0
    order_ = np.argsort(angles)
    cum = np.cumsum(np.asarray(weights)[order_])
    return float(np.asarray(angles)[order_][np.searchsorted(cum, cum[-1] / 2)])


def _upright_rects(mask: np.ndarray, min_side: float, most: int, loose: bool = False
                   ) -> tuple[list[np.ndarray], float]:
    """line_rects' upright rectangles, and how far the long vertical lines lean (degrees)."""
    h, w = mask.shape
    short = min(h, w)
    run = max(8, int(RUN * short))
    ver = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, run)))
    hor = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (run, 1)))
    slack = max(1, short // 250)  # a line a little off horizontal still fills its rows
    hor = cv2.dilate(hor, np.ones((2 * slack + 1, 1), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(ver, 8, cv2.CV_32S, COMPONENTS)
    long_ = sorted((k for k in range(1, count) if stats[k, 3] >= min_side * short and stats[k, 2] < stats[k, 3] / 4),
                   key=lambda k: stats[k, 3], reverse=True)[:most]
    skew = _skew(labels, stats, long_)
    # (x, top, bottom, component) of each long vertical line
    lines = [(float(stats[k, 0] + stats[k, 2] / 2), int(stats[k, 1]), int(stats[k, 1] + stats[k, 3]), k) for k in long_]
    cs = ink_left_of(hor, sorted({int(x) for x, *_ in lines}))
    out = []
    for i, a in enumerate(lines):
        for b in lines[i + 1:]:
            left, right = sorted((a, b))
            x0, x1 = int(left[0]), int(right[0]) + 1
            width = x1 - x0
            y0, y1 = max(left[1], right[1]), min(left[2], right[2])
            if width < min_side * short or y1 - y0 < (1 - SQUARE) * width:
                continue
            tol = int(SQUARE * width / 2)
            rows = np.arange(max(0, y0 - tol), min(h, y1 + tol))
            cover = (cs[x1 - 1][rows] - cs[x0][rows]) / max(1, width - 1)
            full = [(rows[s] + rows[e]) / 2 for s, e in _groups(cover >= FULL)]
            fits = sorted((abs((bottom - top) - width) / width, top, bottom)
                          for ti, top in enumerate(full) for bottom in full[ti + 1:])
            fits = [f for f in fits if f[0] <= SQUARE][:None if loose else 1]
            for _, top, bottom in fits:
                out.append(np.asarray([[x0, top], [x1 - 1, top], [x1 - 1, bottom], [x0, bottom]], np.float32))
            if not fits and abs((left[2] - left[1]) - width) <= SQUARE * width:  # a frame seen in perspective: its top and
                # bottom lines slope (converge) and fill no row, but run between the two lines' ends
                (ltop, lbottom), (rtop, rbottom) = _ends(labels, stats, left[3]), _ends(labels, stats, right[3])
                quad = np.asarray([ltop, rtop, rbottom, lbottom], np.float32)
                if all(_covered(hor, quad[i], quad[j]) >= FULL for i, j in ((0, 1), (3, 2))):
                    out.append(quad)
    return out, skew


def _ends(labels: np.ndarray, stats: np.ndarray, k: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The top and bottom ends (x, y) of the vertical line `k` of `labels`: the middle of its
    first and last rows (a line that leans, seen in perspective, ends left or right of its box's middle)."""
    x, y, w, h, _ = stats[k]
    rows = labels[y:y + h, x:x + w] == k
    top, bottom = np.flatnonzero(rows[0]), np.flatnonzero(rows[-1])
    return (x + float(top.mean()), float(y)), (x + float(bottom.mean()), float(y + h - 1))


def _covered(mask: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The share of the straight path from a to b (x, y) that is ink in mask."""
    steps = max(2, int(np.hypot(*(b - a))))
    t = np.linspace(0.0, 1.0, steps)
    xs = np.clip(np.round(a[0] + (b[0] - a[0]) * t).astype(int), 0, mask.shape[1] - 1)
    ys = np.clip(np.round(a[1] + (b[1] - a[1]) * t).astype(int), 0, mask.shape[0] - 1)
    return float(np.mean(mask[ys, xs] > 0))


def frame_candidates(mask: np.ndarray, page: bool = False, loose: bool = False) -> list[np.ndarray]:
    """Candidate frames (tl, tr, br, bl) in `mask`'s pixels, near-duplicates dropped.
    `page`: look for several, smaller grids too (a page of puzzles).  `loose`: a picture
    turned face on (rectify), whose squares may come out a little oblong: every
    rectangle of long lines near enough square, not only the squarest."""
    found: list[np.ndarray] = []
    tol = 0.01 * min(mask.shape)
    if page:
        h, w = mask.shape
        quads = (contour_quads(mask, min(MIN_AREA, PAGE_MIN_SIDE ** 2 * min(h, w) / max(h, w)), PAGE_MAX_CONTOURS)
                 + line_rects(mask, min(MIN_SIDE, PAGE_MIN_SIDE), PAGE_MAX_LINES, loose))
    else:
        quads = contour_quads(mask) + line_rects(mask, loose=loose)
    if not quads:
        return found
    ok = plausible(np.stack(quads))
    kept = np.empty((len(quads), 4, 2), np.float32)  # found, as one array: each quad is held against all at once
    for q, fits in zip(quads, ok):
        if fits and not (found and (np.abs(kept[:len(found)] - q).max(axis=(1, 2)) < tol).any()):
            kept[len(found)] = q
            found.append(q)
    return found
