"""Stage 4b: would an unsure cage border, called the other way, give another answer?

A border's thick/thin call (cages.py) is sure when its ink lies well inside
its class: the call's log-likelihood ratio under two Gaussians fitted to this
picture's thick and thin edges (log ink, pooled spread) is what calling it the
other way costs, in nats.  For the least sure borders, the layout with that
border flipped (then agreed with the labels, agree.py) is read with the same
label readings, and weighed with the answer on one scale: the flip's cost,
the most probable reading of its labels, and for every cell that is not a
cage's first, the cost of it holding no label.  An alternative layout within
MARGIN of the answer whose solution differs makes the answer uncertain.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import UncertainReading
from ..puzzle import Grid
from ..vocab import Cell, cell_name
from .agree import agree_with_labels
from .cages import group, rows
from .reading import MARGIN, MIN_PROBABILITY, best_reading
from .stages import CageLayout, ClueReading, LabelReading

SPREAD_FLOOR = 0.1  # log-ink spread of a class is never taken as less (a few edges give a poor estimate)
FLIP_SEEN = 8.0  # nats: a border whose other call costs more is not reconsidered
MAX_FLIPS = 8  # the least sure borders reconsidered, at most (each costs one solver run)


def check_borders(layout: CageLayout, cells: dict[Cell, LabelReading], grid: Grid, time_limit: float,
                  hidden: frozenset[Cell] = frozenset()) -> None:
    """Raise UncertainReading when flipping an unsure border gives a layout
    whose reading is nearly as probable as the answer's and solves otherwise."""
    n = len(layout.right_thick)
    flips = _unsure(layout)
    if not flips:
        return
    base = _weigh(layout, cells, n, time_limit)
    if base is None:
        return
    for cost, kind, r, c in flips:
        right, down = np.array(layout.right_thick), np.array(layout.down_thick)
        edges = right if kind == "right" else down
        edges[r, c] = not edges[r, c]
        cages = tuple(tuple(g) for g in group(n, right, down))
        flipped = agree_with_labels(CageLayout(cages, rows(right), rows(down), layout.threshold,
                                               layout.right_margin, layout.down_margin), cells, hidden)
        if flipped.cages == layout.cages:
            continue
        weighed = _weigh(flipped, cells, n, time_limit, within=base[0] + MARGIN - cost)
        if weighed is None or weighed[1] == grid:
            continue
        odds = cost + weighed[0] - base[0]
        if odds < MARGIN:
            other = (r, c + 1) if kind == "right" else (r + 1, c)
            differ = sum(a != b for ra, rb in zip(grid, weighed[1]) for a, b in zip(ra, rb))
            raise UncertainReading(
                f"unsure of the cage border between {cell_name((r, c))} and {cell_name(other)}: called the"
                f" other way, the labels give a solution that differs in {differ} cells, and the answer is only"
                f" {math.exp(max(odds, 0.0)):.1f} times as likely; check that border with --debug-dir")


def _weigh(layout: CageLayout, cells: dict[Cell, LabelReading], n: int, time_limit: float,
           within: float | None = None) -> tuple[float, Grid] | None:
    """Cost (nats) and grid of a layout's most probable reading, counting the
    labels of its cages' first cells and the emptiness of every other cell;
    None when none costs less than `within` (when given)."""
    readings = tuple(ClueReading(cage, cells[cage[0]].texts) for cage in layout.cages)
    firsts = {cage[0] for cage in layout.cages}
    empty = sum(-math.log(max(1.0 - rd.has_label, MIN_PROBABILITY)) for cell, rd in cells.items()
                if cell not in firsts)
    found = best_reading(n, readings, time_limit, None if within is None else within - empty)
    if found is None:
        return None
    return found[0] + empty, found[1]


def _unsure(layout: CageLayout) -> list[tuple[float, str, int, int]]:
    """(cost of the other call in nats, kind, r, c) of the least sure inner borders."""
    n = len(layout.right_thick)
    edges = [("right", r, c) for r in range(n) for c in range(n - 1)]
    edges += [("down", r, c) for r in range(n - 1) for c in range(n)]
    decided = {(ch.kind, *ch.a) for ch in layout.changed}  # decided by where the labels are

    def signed(kind: str, r: int, c: int) -> float:
        thick = (layout.right_thick if kind == "right" else layout.down_thick)[r][c]
        m = (layout.right_margin if kind == "right" else layout.down_margin)[r][c]
        return m if thick else -m

    if not layout.right_margin:
        return []
    x = np.array([signed(*e) for e in edges])
    thick, thin = x[x > 0], x[x <= 0]
    if len(thick) < 2 or len(thin) < 2:
        return []
    mu1, mu0 = float(thick.mean()), float(thin.mean())
    var = max(SPREAD_FLOOR ** 2, float((((thick - mu1) ** 2).sum() + ((thin - mu0) ** 2).sum()) / len(x)))
    out = []
    for (kind, r, c), v in zip(edges, x):
        if (kind, r, c) in decided:
            continue
        cost = abs((v - mu0) ** 2 - (v - mu1) ** 2) / (2 * var)
        if cost <= FLIP_SEEN:
            out.append((float(cost), kind, r, c))
    return sorted(out)[:MAX_FLIPS]
