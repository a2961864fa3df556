"""Stage 2b: make the cage borders agree with where the labels are.

Every cage has exactly one label, in its first cell (top row first, then
leftmost).  The label reader has read the top of every cell (clues.read_cells),
so a border call that breaks this rule can be mended:
  - a cell surely holding a label starts its cage: the edges above it and to
    its left are borders (a highlighted cell's glow can hide them); when they
    are and its cage still starts elsewhere, a border inside the cage was
    missed (a faint line): the line whose border parts the cage in two, each
    part led by its label and that label a clue its cells can meet, when
    exactly one line does.  Not a cell whose label's place a written answer
    covers (`hidden`: contents.under_answers): what is read there is the
    answer's ink or what cleaning left of it as often as a label (on
    bench/check.py's real-hand scenes, seeds 100..179: 18 borders drawn so,
    all false, against none right; the labels there are read less surely
    in reading.py too);
  - a cage whose first cell is surely empty joins a neighbouring cage across
    one of its borders (pencil marks on a line can make it look thick): the
    least sure border across which the merged cage's label is still a
    possible clue for its cells, and first of all one to a neighbour whose
    label is no clue for it as drawn (a '3-' alone in one cell: an answer
    written across the line between the two drew the false border).
Each change is listed in the layout's `changed` and reported to the user.
"""

from __future__ import annotations

import numpy as np

from ..puzzle import TooManyTuples, cage_tuples
from ..vocab import Cell
from .cages import group, rows
from .clues import clue_for
from .stages import BorderChange, CageLayout, LabelReading

LABEL_SURE = 0.9  # a cell the label reader finds a label in this surely starts a cage
EMPTY_SURE = 0.9  # a cage's first cell the reader finds empty this surely starts no cage
MEET_STEPS = 20_000  # digits tried to tell whether a part's label can be met (a 9x9's 5-cell cage: ~10k)


def agree_with_labels(layout: CageLayout, cells: dict[Cell, LabelReading],
                      hidden: frozenset[Cell] = frozenset()) -> CageLayout:
    """The layout with borders changed, where needed, so that each cage's
    label is in its first cell and no other cell of it holds one (a label
    read in a cell of `hidden`, under a written answer, starts no cage).
    When the lines' ink allowed another split, or the cells' fills draw
    cages too (layout.other, and its other), the one of them that needs the
    fewest changes (the first on a tie)."""
    agreed = _agree(layout, cells, hidden)
    starts = sum(rd.has_label >= LABEL_SURE for cell, rd in cells.items() if cell not in hidden)
    other = layout.other
    while other is not None and agreed.changed:  # none needs fewer than none
        # each change adds one cage at most: a layout short of cages for the sure labels by as many
        # changes as the best needs would need more to give each its cage (and mending its big
        # cages is long work: a 3-colour app's fills, neighbours sharing one, join half the grid)
        if starts - len(other.cages) < len(agreed.changed):
            candidate = _agree(other, cells, hidden)
            if len(candidate.changed) < len(agreed.changed):
                agreed = candidate
        other = other.other
    return agreed


def _agree(layout: CageLayout, cells: dict[Cell, LabelReading], hidden: frozenset[Cell]) -> CageLayout:
    n = len(layout.right_thick)
    right, down = np.array(layout.right_thick), np.array(layout.down_thick)
    starts = {cell for cell, rd in cells.items() if rd.has_label >= LABEL_SURE}
    new = starts - hidden  # the labels that may start a cage the borders do not show
    changed = list(layout.changed)
    for _ in range(2 * n * n):  # each round changes one edge, never back: bounded
        groups = group(n, right, down)
        fix = _label_not_first(groups, new, right, down, cells) or _merge_empty(n, groups, cells, starts, layout)
        if fix is None:
            break
        kind, r, c, thick = fix
        (down if kind == "down" else right)[r, c] = thick
        changed.append(BorderChange((r, c), (r + 1, c) if kind == "down" else (r, c + 1), bool(thick)))
    if len(changed) == len(layout.changed):
        return layout
    cages = tuple(tuple(g) for g in group(n, right, down))
    return CageLayout(cages, rows(right), rows(down), layout.threshold, layout.right_margin,
                      layout.down_margin, tuple(changed))


def _label_not_first(groups: list[list[Cell]], starts: set[Cell], right: np.ndarray, down: np.ndarray,
                     cells: dict[Cell, LabelReading]) -> tuple[str, int, int, bool] | None:
    """A missing border above or left of a labelled cell that is not its cage's first; when both are
    there, the border inside its cage that parts it from the cage's first cell (_parting)."""
    first = {min(g) for g in groups}
    for r, c in sorted(starts - first):
        if r > 0 and not down[r - 1, c]:
            return ("down", r - 1, c, True)
        if c > 0 and not right[r, c - 1]:
            return ("right", r, c - 1, True)
        cage = next(g for g in groups if (r, c) in g)
        parting = _parting(cage, (r, c), right, down, cells)
        if parting is not None:
            return parting
    return None


def _parting(cage: list[Cell], labelled: Cell, right: np.ndarray, down: np.ndarray,
             cells: dict[Cell, LabelReading]) -> tuple[str, int, int, bool] | None:
    """The one line inside `cage` that, called a border, parts it in two: one led by the cage's first
    cell, the other by `labelled` (a second label, its edges above and left already borders: a faint
    border elsewhere was missed), each label a clue its part's cells can meet; None when no line or
    more than one does (a guess between two could print a puzzle read wrong)."""
    n = len(right)
    inside = set(cage)
    found = []
    for r, c in cage:
        for kind, other in (("right", (r, c + 1)), ("down", (r + 1, c))):
            if other not in inside or (right if kind == "right" else down)[r, c]:
                continue
            cut_right, cut_down = right.copy(), down.copy()
            (cut_right if kind == "right" else cut_down)[r, c] = True
            parts = [g for g in group(n, cut_right, cut_down) if g[0] in inside]
            if len(parts) != 2 or labelled not in (min(parts[0]), min(parts[1])):
                continue
            if all(_meetable(cells[min(g)].best, tuple(sorted(g)), n) for g in parts):
                found.append((kind, r, c, True))
    return found[0] if len(found) == 1 else None


def _meetable(text: str, cells: tuple[Cell, ...], n: int) -> bool:
    """Whether some digits, none repeated in a row or column, meet the label's clue for these cells (a
    search of at most MEET_STEPS digits; a longer one counts as meetable)."""
    cage = clue_for(text, cells, n)
    if cage is None:
        return False
    try:
        return bool(cage_tuples(cage, n, budget=MEET_STEPS, max_tuples=1))
    except TooManyTuples:
        return True


def _merge_empty(n: int, groups: list[list[Cell]], cells: dict[Cell, LabelReading], starts: set[Cell],
                 layout: CageLayout) -> tuple[str, int, int, bool] | None:
    """The border to open for a cage whose first cell is surely empty; None when none fits."""
    where = {cell: i for i, g in enumerate(groups) for cell in g}
    for g in groups:
        head = min(g)
        if 1.0 - cells[head].has_label < EMPTY_SURE:
            continue
        best: tuple[tuple[bool, float], tuple[str, int, int, bool]] | None = None
        for r, c in g:
            for kind, rr, cc, other in (("right", r, c, (r, c + 1)), ("right", r, c - 1, (r, c - 1)),
                                        ("down", r, c, (r + 1, c)), ("down", r - 1, c, (r - 1, c))):
                if not (0 <= other[0] < n and 0 <= other[1] < n) or where[other] == where[(r, c)]:
                    continue
                if max((r, c), other) in starts:  # never open the top or left edge of a labelled cell
                    continue
                beside = groups[where[other]]
                merged = tuple(sorted(g + beside))
                if clue_for(cells[merged[0]].best, merged, n) is None:  # its label must fit the merged cage
                    continue
                # a neighbour whose label cannot be a clue for it as drawn is broken
                # too: the border between the two is the likelier false one
                fits = clue_for(cells[min(beside)].best, tuple(sorted(beside)), n) is not None
                sure = (layout.right_margin if kind == "right" else layout.down_margin)[rr][cc]
                if best is None or (fits, sure) < best[0]:
                    best = ((fits, sure), (kind, rr, cc, False))
        if best is not None:
            return best[1]
    return None
