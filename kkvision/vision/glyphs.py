"""Cut a cage label into glyphs and recognise each with the shipped model.

A label is the ink in the top part of the cage's first cell, after the cell's
own border lines are stripped.  Connected components on the text line are
grouped into glyphs by horizontal overlap (so ÷'s three parts, or a broken
stroke, make one glyph).  Each glyph becomes a feature vector: its darkness
resized to 12x12, plus its shape on the text line (aspect, relative height,
vertical position, number of parts), and is classified by nearest neighbours
against models/glyphs.npz (made by models/train_glyphs.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from ..errors import MissingDependency
from .grid import GridGeometry

CLASSES = tuple("0123456789") + ("+", "-", "*", "/", "÷")
PATCH = 12
INK = 0.45  # darkness (after per-label stretch) that surely is ink
INK_WEAK = 0.25  # ... and that is ink when it touches sure ink
MODEL_PATH = Path(os.environ.get("KKVISION_MODEL_DIR", Path(__file__).resolve().parents[2] / "models")) / "glyphs.npz"


@dataclass(frozen=True)
class Glyph:
    x0: int
    y0: int
    x1: int
    y1: int
    parts: int
    features: np.ndarray


def label_crop(dark: np.ndarray, geom: GridGeometry, cell: tuple[int, int]) -> np.ndarray:
    """Darkness of the label area of a cell (its top half, full width) with
    the grid lines removed: long straight strokes found by opening."""
    r, c = cell
    x0, y0, x1, y1 = geom.cell_box(r, c)
    w = x1 - x0
    ext = int(0.06 * w)  # include the borders so they are seen whole and removed
    top, left = max(0, int(y0) - ext), max(0, int(x0) - ext)
    crop = dark[top: int(y0 + 0.55 * (y1 - y0)), left: int(x1) + ext].copy()
    if crop.size == 0:
        return crop
    h, cw = crop.shape
    ink = (crop > 0.35).astype(np.uint8)
    def opened(size: tuple[int, int]) -> np.ndarray:  # outside the crop is paper, not ink
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, size)
        return cv2.morphologyEx(ink, cv2.MORPH_OPEN, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)

    vert, horiz = opened((1, max(3, int(0.7 * h)))), opened((max(3, int(0.5 * cw)), 1))
    lines = cv2.dilate(vert | horiz, np.ones((5, 5), np.uint8))
    crop[lines > 0] = 0
    band = max(2, int(0.03 * w))  # dashed or dotted cell lines: clear a band along each border
    bx0, bx1, by0 = int(x0) - left, int(x1) - left, int(y0) - top
    crop[:, max(0, bx0 - band): bx0 + band + 1] = 0
    crop[:, max(0, bx1 - band): bx1 + band + 1] = 0
    crop[max(0, by0 - band): by0 + band + 1, :] = 0
    peak = float(np.percentile(crop, 99.7))
    if peak > 0.12:  # faint or blurred print: stretch to full contrast
        crop = np.clip(crop / peak, 0.0, 1.0)
    return crop


def segment(crop: np.ndarray) -> list[Glyph]:
    """Glyphs of the label's text line, left to right."""
    if crop.size == 0:
        return []
    # hysteresis: faint pixels count when connected to clearly dark ones
    weak = (crop > INK_WEAK).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(weak, connectivity=8)
    strong = np.unique(labels[crop > INK])
    keep = np.zeros(count, bool)
    keep[strong[strong > 0]] = True
    binary = keep[labels].astype(np.uint8)
    h, w = crop.shape
    comps = []
    for i in range(1, count):
        if not keep[i]:
            continue
        x, y, cw, ch, area = stats[i]
        if area < max(3, 0.0004 * h * w):
            continue
        if cw > 0.6 * w or ch > 0.6 * h or (cw > 6 * ch and cw > 0.3 * w):  # a border remnant
            continue
        comps.append((x, y, x + cw, y + ch))
    if not comps:
        return []
    tallest = max(b[3] - b[1] for b in comps)
    # the text line: starts with the topmost tall component
    anchors = [b for b in comps if b[3] - b[1] >= 0.6 * tallest]
    top = min(b[1] for b in anchors)
    bottom = max(b[3] for b in anchors if b[1] <= top + 0.5 * tallest)
    line = [b for b in comps if b[1] < bottom and b[3] > top - 0.2 * tallest]
    line.sort()
    groups: list[list[tuple[int, int, int, int]]] = []
    for b in line:
        if groups:
            g = groups[-1]
            gx0, gx1 = min(p[0] for p in g), max(p[2] for p in g)
            overlap = min(gx1, b[2]) - max(gx0, b[0])
            if overlap > 0.5 * min(b[2] - b[0], gx1 - gx0):
                g.append(b)
                continue
        groups.append([b])
    line_h = max(1, bottom - top)
    groups = [piece for g in groups for piece in _split_wide(binary, crop, g, line_h, top)]
    glyphs = []
    for g in groups:
        box = (min(p[0] for p in g), min(p[1] for p in g), max(p[2] for p in g), max(p[3] for p in g))
        glyphs.append(_glyph(crop, box, top, line_h, len(g)))
    return glyphs


def _split_wide(binary: np.ndarray, crop: np.ndarray, group: list[tuple[int, int, int, int]], line_h: int,
                top: int) -> list[list[tuple[int, int, int, int]]]:
    """Blurred or tightly set print runs glyphs together: cut a too-wide glyph
    at its thinnest columns into the number of pieces the model reads best."""
    x0, y0 = min(p[0] for p in group), min(p[1] for p in group)
    x1, y1 = max(p[2] for p in group), max(p[3] for p in group)
    width, height = x1 - x0, y1 - y0
    if len(group) > 1 or height < 0.7 * line_h or width < 1.0 * line_h:
        return [group]
    profile = binary[y0:y1, x0:x1].sum(axis=0).astype(np.float32)
    best: tuple[float, list[list[tuple[int, int, int, int]]]] = (-1.0, [group])
    expect = max(2, round(width / (0.62 * line_h)))  # digits and signs are about 0.6 line heights wide
    for pieces in range(max(2, expect - 1), min(5, expect + 1) + 1):
        cuts = []
        for k in range(1, pieces):
            centre = int(k * width / pieces)
            lo, hi = max(1, centre - int(0.2 * line_h)), min(width - 1, centre + int(0.2 * line_h))
            if hi <= lo:
                break
            cuts.append(lo + int(np.argmin(profile[lo:hi])))
        edges = [x0] + [x0 + c for c in cuts] + [x1]
        boxes = []
        for a, b in zip(edges, edges[1:]):
            rows = np.flatnonzero(binary[y0:y1, a:b].any(axis=1))
            if b > a and rows.size:  # each piece gets its own height: a '+' is shorter than a digit
                boxes.append((a, y0 + int(rows[0]), b, y0 + int(rows[-1]) + 1))
        if len(boxes) != pieces or min(b[2] - b[0] for b in boxes) < 0.3 * line_h:
            continue
        glyphs = [_glyph(crop, bx, top, line_h, 1) for bx in boxes]
        score = float(np.mean([conf for _, conf, _ in classify(glyphs)])) - 0.1 * abs(pieces - expect)
        if score > best[0]:
            best = (score, [[bx] for bx in boxes])
    return best[1]


def _glyph(crop: np.ndarray, box: tuple[int, int, int, int], top: int, line_h: int, parts: int) -> Glyph:
    x0, y0, x1, y1 = box
    return Glyph(x0, y0, x1, y1, parts, _features(crop[y0:y1, x0:x1], x1 - x0, y1 - y0,
                                                    (y0 + y1) / 2 - top, line_h, parts))


def _features(patch: np.ndarray, w: int, h: int, cy: float, line_h: int, parts: int) -> np.ndarray:
    side = max(w, h)
    sq = np.zeros((side, side), np.float32)
    sq[(side - h) // 2:(side - h) // 2 + h, (side - w) // 2:(side - w) // 2 + w] = patch
    small = cv2.resize(sq, (PATCH, PATCH), interpolation=cv2.INTER_AREA).ravel()
    small /= np.linalg.norm(small) + 1e-6
    shape = np.array([np.log(w / max(h, 1)), h / line_h, cy / line_h, min(parts, 3) / 3], np.float32)
    return np.concatenate([small, 0.6 * shape]).astype(np.float32)


@lru_cache(maxsize=2)
def load_model(path: Path = MODEL_PATH) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Examples sorted by class, their labels, squared norms, and where each class starts."""
    if not path.exists():
        raise MissingDependency(f"glyph model {path} is missing; run models/train_glyphs.py to make it")
    data = np.load(path)
    order = np.argsort(data["y"], kind="stable")
    xs, ys = data["x"][order].astype(np.float32), data["y"][order].astype(int)
    starts = np.searchsorted(ys, np.arange(len(CLASSES)))
    return xs, ys, (xs * xs).sum(1), starts


def classify(glyphs: list[Glyph], k: int = 3) -> list[tuple[str, float, tuple[str, ...]]]:
    """Per glyph: best class, confidence 0..1, the other classes nearest first."""
    if not glyphs:
        return []
    xs, ys, norms, starts = load_model()
    q = np.stack([g.features for g in glyphs])
    d = (q * q).sum(1)[:, None] - 2 * q @ xs.T + norms[None, :]
    present = [c for c in range(len(CLASSES)) if c == len(CLASSES) - 1 or starts[c] < starts[c + 1]]
    best_all = np.full((len(glyphs), len(CLASSES)), np.inf)
    best_all[:, present] = np.minimum.reduceat(d, starts[present], axis=1)  # nearest example per class
    nearest = np.argpartition(d, k, axis=1)[:, :k]
    out = []
    for best, idx in zip(best_all, nearest):
        votes = [CLASSES[int(ys[i])] for i in idx]
        top = max(set(votes), key=lambda c: (votes.count(c), -best[CLASSES.index(c)]))
        others = tuple(CLASSES[i] for i in np.argsort(best) if CLASSES[i] != top)
        d1 = max(float(best[CLASSES.index(top)]), 1e-6)
        d2 = float(best[CLASSES.index(others[0])])
        out.append((top, float(min(1.0, max(0.0, 1 - d1 / max(d2, 1e-6)))), others))
    return out
