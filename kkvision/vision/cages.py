"""Stage 2: tell thick cage borders from thin cell lines; group cells into cages.

Each inner edge gets an ink measure: the median, along the middle of the
edge, of the darkness summed across the line (so a thick line scores about
its width, a thin or dotted one little).  The split between thin and thick is
found per image (two-means on log ink).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..puzzle import Cell, join_cells
from .grid import GridGeometry


@dataclass(frozen=True)
class CageLayout:
    cages: tuple[tuple[Cell, ...], ...]  # each sorted; cages sorted by anchor
    right_thick: tuple[tuple[bool, ...], ...]  # [r][c]: border between (r,c) and (r,c+1)
    down_thick: tuple[tuple[bool, ...], ...]  # [r][c]: border between (r,c) and (r+1,c)
    threshold: float  # ink above which an edge is thick


def darkness(square: np.ndarray, n: int) -> np.ndarray:
    """0 (paper) .. 1 (ink), after dividing out uneven light."""
    k = int(0.3 * square.shape[0] / n) | 1
    bg = cv2.morphologyEx(square, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    norm = square.astype(np.float32) / np.maximum(bg.astype(np.float32), 1.0)
    ink = float(np.percentile(norm, 0.5))
    return np.clip((1.0 - norm) / max(1e-3, 1.0 - ink), 0.0, 1.0)


def _edge_ink(dark: np.ndarray, g: GridGeometry, r: int, c: int, vertical: bool) -> float:
    if vertical:  # between (r,c) and (r,c+1): line x = xs[c+1]
        x, h, w = g.xs[c + 1], g.ys[r + 1] - g.ys[r], g.xs[c + 1] - g.xs[c]
        y0, y1 = int(g.ys[r] + 0.45 * h), int(g.ys[r + 1] - 0.15 * h)
        half = max(3, int(0.12 * w))
        band = dark[y0:y1, max(0, int(x) - half): int(x) + half + 1]
        return float(np.median(band.sum(axis=1))) if band.size else 0.0
    y, w, h = g.ys[r + 1], g.xs[c + 1] - g.xs[c], g.ys[r + 1] - g.ys[r]
    x0, x1 = int(g.xs[c] + 0.45 * w), int(g.xs[c + 1] - 0.15 * w)
    half = max(3, int(0.12 * h))
    band = dark[max(0, int(y) - half): int(y) + half + 1, x0:x1]
    return float(np.median(band.sum(axis=0))) if band.size else 0.0


def _split(values: np.ndarray) -> float:
    """Threshold between thin and thick: two-means on log ink."""
    v = np.log(values + 0.5)
    lo, hi = v.min(), v.max()
    if hi - lo < np.log(1.6):  # all alike: compare with the frame later; call them thin
        return float(np.exp(hi) + 1)
    t = (lo + hi) / 2
    for _ in range(30):
        a, b = v[v <= t], v[v > t]
        if len(a) == 0 or len(b) == 0:
            break
        t_new = (a.mean() + b.mean()) / 2
        if abs(t_new - t) < 1e-4:
            break
        t = t_new
    return float(np.exp(t) - 0.5)


def _group(n: int, right: np.ndarray, down: np.ndarray) -> list[list[Cell]]:
    """Cells joined across every thin edge."""
    pairs = [(r * n + c, r * n + c + 1) for r in range(n) for c in range(n - 1) if not right[r, c]]
    pairs += [(r * n + c, (r + 1) * n + c) for r in range(n - 1) for c in range(n) if not down[r, c]]
    return [[divmod(i, n) for i in g] for g in join_cells(n * n, pairs)]


def find_cages(square: np.ndarray, geom: GridGeometry) -> tuple[CageLayout, np.ndarray]:
    """Cage layout, and the darkness image the later stages reuse."""
    n = geom.size
    dark = darkness(square, n)
    ink_r = np.array([[_edge_ink(dark, geom, r, c, True) if c + 1 < n else 0.0 for c in range(n)]
                      for r in range(n)])
    ink_d = np.array([[_edge_ink(dark, geom, r, c, False) if r + 1 < n else 0.0 for c in range(n)]
                      for r in range(n)])
    values = np.concatenate([ink_r[:, :-1].ravel(), ink_d[:-1, :].ravel()])
    thr = _split(values)
    right, down = ink_r > thr, ink_d > thr
    right[:, -1] = True
    down[-1, :] = True
    cages = tuple(tuple(g) for g in _group(n, right, down))
    layout = CageLayout(cages, tuple(tuple(bool(v) for v in row) for row in right),
                        tuple(tuple(bool(v) for v in row) for row in down), float(thr))
    return layout, dark
