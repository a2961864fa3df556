"""Stage 1: find the puzzle's grid, its size, and straighten it to a square.

  candidates  where a frame might be (outlines of ink; rectangles of long lines),
              on a copy of the picture shrunk to FIND_SIDE;
  lattice     each candidate warped to a small square and judged: does an n x n
              lattice explain its straight ink, and which n; the largest
              grid that is one wins;
  trace       every line of the winner followed through the full picture, a
              smooth field fitted, and a mesh made that maps the straightened
              square back into the picture (curved pages included).
"""

from __future__ import annotations

import cv2
import numpy as np

from ...errors import GridNotFound
from .candidates import frame_candidates
from .geometry import SIDE, GridGeometry
from .lattice import ink, judge
from .trace import trace

__all__ = ["SIDE", "GridGeometry", "find_grid", "ink_mask", "to_gray"]

FIND_SIDE = 1000  # candidates are looked for with the picture's longer side at most this
JUDGE_SIDE = 450  # candidates are judged warped to a square this big
JUDGE_PAD = 0.08  # ... with this fraction of the picture around it (a bowed frame bulges out of its quad)
CUT = 0.01  # a frame side this close to the picture's edge may have been cropped off


def to_gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


ink_mask = ink


def _judge(small: np.ndarray, quad: np.ndarray):  # type: ignore[no-untyped-def]
    pad = int(JUDGE_PAD * JUDGE_SIDE)
    dst = np.asarray([[0, 0], [JUDGE_SIDE, 0], [JUDGE_SIDE, JUDGE_SIDE], [0, JUDGE_SIDE]], np.float32) + pad
    H = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    square = cv2.warpPerspective(small, H, (JUDGE_SIDE + 2 * pad,) * 2, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    h, w = small.shape
    edge = CUT * min(h, w)
    xs, ys = quad[:, 0], quad[:, 1]
    cut = (bool(ys[:2].max() < edge), bool(ys[2:].min() > h - 1 - edge),
           bool(xs[[0, 3]].max() < edge), bool(xs[1:3].min() > w - 1 - edge))
    return judge(ink(square), pad, cut)


def find_grid(image: np.ndarray) -> tuple[GridGeometry, np.ndarray]:
    """The grid's geometry and the straightened grey square."""
    gray = to_gray(image)
    scale = min(1.0, FIND_SIDE / max(gray.shape[:2]))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    mask = cv2.morphologyEx(ink(small), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    best = None
    for quad in sorted(frame_candidates(mask), key=cv2.contourArea, reverse=True):
        verdict = _judge(small, quad)
        if verdict is not None:  # the largest grid wins (its cages and cells are grids too)
            best = (verdict, quad)
            break
    if best is None:
        raise GridNotFound("no puzzle grid found: no square frame with evenly spaced lines for 3..9 cells"
                           " (crop closer, or photograph the grid straight on)")
    verdict, quad = best
    n = verdict.size
    quad = (quad + 0.5) / scale - 0.5
    mesh = trace(gray, quad, n)
    lines = tuple(k * SIDE / n for k in range(n + 1))
    corners = tuple((float(x), float(y)) for x, y in (mesh[0, 0], mesh[0, -1], mesh[-1, -1], mesh[-1, 0]))
    geom = GridGeometry(n, corners, lines, lines, mesh=mesh)
    return geom, geom.straighten(gray)
