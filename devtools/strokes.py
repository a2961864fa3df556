"""Digits drawn by stroke synthesis: a hand's strokes, not a font's outlines (dev-only).

    draw(digit, side, height, centre, rng) -> side x side float32 ink coverage (0..255)

Each digit has a few ways of being written (STYLES: a 1 with or without its
flag and foot, a 7 with or without its bar, an open or closed 4, a flat-topped
3, ...), each as pen strokes through control points in a unit box (x right, y
down).  A hand is drawn at random: the points wander, the box is narrowed,
slanted and turned, the pen's width and pressure vary along each stroke, and
its speed leaves the ends thin.  devtools/train_digits.py trains on them and
bench/handwriting.py measures the reader on others (other seeds, and the
held-out PEN_DYNAMICS it never trained on).
"""

from __future__ import annotations

import random

import cv2
import numpy as np

Stroke = tuple[tuple[float, float], ...]

STYLES: dict[int, tuple[tuple[Stroke, ...], ...]] = {
    0: (((0.5, 0.0), (0.15, 0.18), (0.03, 0.5), (0.18, 0.88), (0.5, 1.0), (0.84, 0.85), (0.96, 0.5), (0.84, 0.14),
         (0.5, 0.0), (0.38, 0.06)),),
    1: (((0.55, 0.0), (0.52, 1.0)),
        ((0.2, 0.28), (0.58, 0.0), (0.58, 1.0)),
        ((0.2, 0.28), (0.58, 0.0), (0.58, 1.0)), ((0.25, 1.0), (0.9, 1.0))),
    2: (((0.08, 0.25), (0.3, 0.03), (0.66, 0.02), (0.88, 0.25), (0.74, 0.55), (0.05, 1.0), (0.95, 0.98)),
        ((0.1, 0.22), (0.4, 0.0), (0.8, 0.08), (0.82, 0.35), (0.45, 0.72), (0.12, 0.96), (0.3, 0.84),
         (0.5, 0.95), (0.95, 0.96)),
        ((0.12, 0.2), (0.45, 0.0), (0.8, 0.15), (0.7, 0.45), (0.25, 0.9), (0.15, 1.0), (0.5, 0.94), (0.9, 0.9))),
    3: (((0.1, 0.12), (0.45, 0.0), (0.85, 0.14), (0.78, 0.38), (0.4, 0.48), (0.82, 0.58), (0.92, 0.82),
         (0.55, 1.0), (0.08, 0.88)),
        ((0.08, 0.02), (0.92, 0.02), (0.38, 0.42), (0.8, 0.52), (0.92, 0.78), (0.55, 1.0), (0.08, 0.9))),
    4: (((0.62, 0.0), (0.04, 0.66), (0.96, 0.66)), ((0.72, 0.3), (0.72, 1.0)),
        ((0.16, 0.0), (0.1, 0.6), (0.95, 0.6)), ((0.74, 0.04), (0.74, 1.0))),
    5: (((0.85, 0.02), (0.2, 0.02)),
        ((0.2, 0.02), (0.14, 0.46), (0.5, 0.36), (0.86, 0.54), (0.88, 0.8), (0.5, 1.0), (0.08, 0.9))),
    6: (((0.82, 0.04), (0.42, 0.14), (0.14, 0.5), (0.14, 0.86), (0.5, 1.0), (0.86, 0.8), (0.76, 0.54),
         (0.4, 0.5), (0.14, 0.7)),),
    7: (((0.05, 0.04), (0.95, 0.04), (0.38, 1.0)),
        ((0.05, 0.18), (0.05, 0.03), (0.95, 0.05), (0.52, 0.5), (0.44, 1.0)),
        ((0.05, 0.04), (0.95, 0.04), (0.38, 1.0)), ((0.28, 0.52), (0.86, 0.5))),
    8: (((0.82, 0.12), (0.5, 0.0), (0.16, 0.14), (0.24, 0.38), (0.5, 0.5), (0.86, 0.7), (0.76, 0.96), (0.46, 1.0),
         (0.14, 0.86), (0.24, 0.62), (0.5, 0.5), (0.8, 0.3), (0.76, 0.1), (0.52, 0.0)),),
    9: (((0.86, 0.24), (0.56, 0.02), (0.14, 0.14), (0.18, 0.44), (0.54, 0.5), (0.86, 0.3)),
        ((0.86, 0.06), (0.86, 0.5), (0.76, 1.0)),
        ((0.86, 0.24), (0.56, 0.02), (0.14, 0.14), (0.18, 0.44), (0.54, 0.5), (0.86, 0.3)),
        ((0.86, 0.1), (0.84, 0.62), (0.6, 0.96), (0.22, 0.92))),
}
# ways of writing grouped per digit: which strokes belong to one way (indices into STYLES[d])
WAYS: dict[int, tuple[tuple[int, ...], ...]] = {
    0: ((0,),), 1: ((0,), (1,), (2, 3)), 2: ((0,), (1,), (2,)), 3: ((0,), (1,)), 4: ((0, 1), (2, 3)), 5: ((0, 1),),
    6: ((0,),), 7: ((0,), (1,), (2, 3)), 8: ((0,),), 9: ((0, 1), (2, 3)),
}
# how a pen moves, as ranges: (width / height, pressure swing, wander of a point / height)
PEN_DYNAMICS = {
    "train": ((0.04, 0.13), (0.0, 0.5), (0.0, 0.06)),
    "heldout": ((0.13, 0.18), (0.5, 0.8), (0.05, 0.08)),  # heavy pens, strong pressure, wild hands: never trained on
}


def _spline(points: np.ndarray, per: int = 24) -> np.ndarray:
    """A Catmull-Rom curve through the points, `per` samples a segment."""
    if len(points) == 2:
        return np.linspace(points[0], points[1], per)
    p = np.vstack([points[:1], points, points[-1:]])
    t = np.linspace(0, 1, per, endpoint=False)[:, None]
    out = []
    for i in range(1, len(p) - 2):
        a, b, c, d = p[i - 1], p[i], p[i + 1], p[i + 2]
        out.append(0.5 * (2 * b + (-a + c) * t + (2 * a - 5 * b + 4 * c - d) * t ** 2 + (-a + 3 * b - 3 * c + d) * t ** 3))
    out.append(p[-2:-1])
    return np.vstack(out)


def draw(digit: int, side: int, height: float, centre: tuple[float, float], rng: random.Random,
         dynamics: str = "train") -> np.ndarray:
    """The digit as one hand writes it, `height` px tall at `centre` of a side x side tile."""
    (w0, w1), (p0, p1), (j0, j1) = PEN_DYNAMICS[dynamics]
    way = rng.choice(WAYS[digit])
    scale = 4  # drawn 4x larger, then shrunk: smooth edges
    big = np.zeros((side * scale, side * scale), np.float32)
    width = height * rng.uniform(0.45, 0.85)
    shear, turn = rng.uniform(-0.35, 0.15), np.radians(rng.uniform(-10, 10))
    wander = rng.uniform(j0, j1)
    pen = height * rng.uniform(w0, w1)
    swing = rng.uniform(p0, p1)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    for k in way:
        pts = np.array(STYLES[digit][k], np.float64)
        pts = pts + np.array([[rng.gauss(0, wander), rng.gauss(0, wander)] for _ in pts])
        pts = _spline(pts)
        xy = np.stack([(pts[:, 0] - 0.5) * width + (pts[:, 1] - 0.5) * height * -shear, (pts[:, 1] - 0.5) * height], 1)
        _stroke(big, xy @ rot.T + np.array(centre), pen, swing, scale, rng)
    return cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)


# ways of crossing a digit out, in a unit box over the digit: a bar, a slash, an X, a scribble
STRIKES: tuple[tuple[Stroke, ...], ...] = (
    (((-0.15, 0.5), (1.15, 0.45)),),
    (((-0.05, 1.0), (1.05, 0.0)),),
    (((-0.05, 0.0), (1.05, 1.0)), ((1.05, 0.0), (-0.05, 1.0))),
    (((-0.1, 0.35), (1.1, 0.2), (-0.1, 0.6), (1.1, 0.45), (-0.1, 0.85), (1.1, 0.7)),),
)
STRIKE_WANDER = 0.05  # of the digit's box: a strike is one quick gesture, its points wander little


def crossing(side: int, height: float, centre: tuple[float, float], rng: random.Random,
             dynamics: str = "train") -> np.ndarray:
    """The strokes of a hand crossing out a digit `height` px tall at `centre` (one of STRIKES,
    wandering and turned a little), as draw() gives a digit's: its ink over the digit's is a
    crossed-out answer."""
    (w0, w1), (p0, p1), _ = PEN_DYNAMICS[dynamics]  # a strike's wander is its own (STRIKE_WANDER)
    scale = 4
    big = np.zeros((side * scale, side * scale), np.float32)
    width, pen, swing = height * rng.uniform(0.6, 1.0), height * rng.uniform(w0, w1), rng.uniform(p0, p1)
    turn = np.radians(rng.uniform(-12, 12))
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    for points in rng.choice(STRIKES):
        pts = np.array(points, np.float64) + np.array([[rng.gauss(0, STRIKE_WANDER), rng.gauss(0, STRIKE_WANDER)]
                                                       for _ in points])
        pts = _spline(pts) if len(pts) > 2 else np.linspace(pts[0], pts[1], 24)
        xy = np.stack([(pts[:, 0] - 0.5) * width, (pts[:, 1] - 0.5) * height], 1)
        _stroke(big, xy @ rot.T + np.array(centre), pen, swing, scale, rng)
    return cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)


def _stroke(big: np.ndarray, xy: np.ndarray, pen: float, swing: float, scale: int, rng: random.Random) -> None:
    """One pen stroke through the points xy (tile pixels) onto the `scale`-times larger tile."""
    phase, freq = rng.uniform(0, 6.3), rng.uniform(0.5, 2.0)
    u = np.linspace(0, 1, len(xy))
    press = 1 - swing * 0.5 * (1 + np.sin(phase + freq * 6.3 * u))  # pressure along the stroke
    press *= np.clip(np.minimum(u, 1 - u) * rng.uniform(6, 20), 0.35, 1)  # quick ends are thin
    for (x, y), q in zip(xy * scale, press):
        cv2.circle(big, (int(round(x)), int(round(y))), max(1, int(round(pen * scale * q / 2))), 255.0, -1,
                   cv2.LINE_AA)
