"""Hints for people still solving: cells that follow from the clues by the
simplest reasoning, each with the reason in one line.

With the user's progress (the digits written so far, read from the picture or
typed), the cells written wrong come first, each with why it cannot be so (a
repeat in its row or column, a cage that cannot be filled with it, or else
that the puzzle's one solution has another digit there); the reasoning then
starts from the digits written right, and never reveals a filled cell.

The reasoning starts from the empty grid or those digits (never from the
solution) and uses, simplest first:
  single    a one-cell cage shows its digit
  cage      every way to fill a cage (its clue, no repeats in a row or column,
            the digits still possible) puts the same digit in this cell
  row/col   a digit has only one place left in a row or column
  only      every other digit is ruled out in this cell (row, column, cage)
After each cell found the possibilities are narrowed again, so later hints
may build on earlier ones.  A cell found is checked against the solution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .puzzle import Cage, Cell, Grid, Puzzle, TooManyTuples, cage_tuples, cell_name

if TYPE_CHECKING:
    import numpy as np

    from .answers import Written
    from .vision.stages import ClueReading, GridGeometry

TUPLE_BUDGET = 200_000  # steps listing one cage's fillings; a bigger cage gives no 'cage' hints


@dataclass(frozen=True)
class Hint:
    cell: Cell
    digit: int  # the digit that belongs in the cell
    reason: str
    holds: int = 0  # a cell written wrong: the digit written there (0: a cell to fill next)

    @property
    def wrong(self) -> bool:
        return self.holds != 0


@dataclass(frozen=True)
class Hinted:
    """One puzzle's hints, the written cells not read surely (taken as empty), and the cells whose
    digit the answers written make the labels say otherwise (answers.Judged.doubted: never revealed,
    an answer there never called wrong)."""

    size: int
    hints: tuple[Hint, ...]
    unsure: tuple[Cell, ...] = ()
    doubted: tuple[Cell, ...] = ()

    def notes(self, notes: tuple[str, ...]) -> list[str]:
        """The puzzle's notes, which written cells were taken as empty, and which cells were not hinted."""
        unread = [c for c in self.unsure if c not in self.doubted]
        return (list(notes) + (["cells written but not read surely, taken as empty: "
                                + ", ".join(map(cell_name, unread))] if unread else [])
                + (["cells whose digit rests on labels not read surely, not hinted nor judged: "
                    + ", ".join(map(cell_name, self.doubted))] if self.doubted else []))

    def shown(self) -> Grid:
        """The digits to draw: each cell revealed (0 elsewhere)."""
        grid = [[0] * self.size for _ in range(self.size)]
        for h in self.hints:
            if not h.wrong:
                grid[h.cell[0]][h.cell[1]] = h.digit
        return tuple(map(tuple, grid))

    @property
    def wrong(self) -> frozenset[Cell]:
        return frozenset(h.cell for h in self.hints if h.wrong)

    def record_fields(self, notes: tuple[str, ...]) -> dict[str, Any]:
        """These hints' fields of the JSON record (report.outcome_record's extras)."""
        return dict(solution=None, notes=self.notes(notes), unsure=[list(c) for c in self.unsure],
                    hints=[{"cell": cell_name(h.cell), "digit": None if h.wrong else h.digit, "wrong": h.wrong,
                            "holds": h.holds or None, "reason": h.reason} for h in self.hints])


def hint_puzzle(puzzle: Puzzle, solution: Grid, count: int, typed: str | None, picture: np.ndarray | None = None,
                geometry: GridGeometry | None = None, clues: tuple[ClueReading, ...] = (),
                written: Written | None = None) -> Hinted:
    """`hint`'s work for one puzzle: the progress typed (an answers text), or
    else written in the picture's cells (none for a text), judged as `check`
    judges it (answers.judge: a cell is called wrong only where check would call
    it so; with the labels' readings, `clues`, the cells whose digit the answers
    make the labels say otherwise are neither judged nor revealed), then the hints.
    `written`: the picture's cells as answers.read_page read them with the page's
    other grids (one hand's), as check reads them."""
    from .answers import judge

    if typed is None and (picture is None or geometry is None):
        return Hinted(puzzle.size, tuple(hints(puzzle, solution, count)))
    judged = judge(puzzle, solution, typed, picture, geometry, clues=clues, written=written)
    found = hints(puzzle, solution, count, judged.check.answers, frozenset(judged.doubted))
    return Hinted(puzzle.size, tuple(found), judged.unsure, judged.doubted)


def hints(puzzle: Puzzle, solution: Grid, count: int = 1, progress: Grid | None = None,
          withheld: frozenset[Cell] = frozenset()) -> list[Hint]:
    """Every cell of `progress` (0: empty) written wrong, then up to `count` empty
    cells that follow from the clues and the digits written right, simplest
    reasoning first; a cell of `withheld` (its digit in doubt) is reasoned with
    but never revealed."""
    n = puzzle.size
    fillings: dict[Cage, list[tuple[int, ...]] | None] = {}
    for cage in puzzle.cages:
        try:
            fillings[cage] = cage_tuples(cage, n, budget=TUPLE_BUDGET)
        except TooManyTuples:
            fillings[cage] = None
    written = {(r, c): progress[r][c] for r in range(n) for c in range(n) if progress and progress[r][c]}
    wrong = [_wrong(puzzle, cell, d, solution, written, fillings) for cell, d in sorted(written.items())
             if d != solution[cell[0]][cell[1]]]
    right = {cell: d for cell, d in written.items() if d == solution[cell[0]][cell[1]]}
    cand = {(r, c): set(range(1, n + 1)) for r in range(n) for c in range(n)}
    for cell, d in right.items():
        cand[cell] = {d}
    found: list[Hint] = []
    known: dict[Cell, int] = dict(right)
    while len(found) < count:
        _narrow(puzzle, cand, fillings, known)
        hint = _next(puzzle, cand, fillings, known)
        if hint is None:
            break
        if hint.digit != solution[hint.cell[0]][hint.cell[1]]:  # the reasoning is sound; never show a wrong digit
            raise AssertionError(f"hint {cell_name(hint.cell)}={hint.digit} disagrees with the solution")
        if hint.cell not in withheld:
            found.append(hint)
        known[hint.cell] = hint.digit
        cand[hint.cell] = {hint.digit}
    return wrong + found


def _wrong(puzzle: Puzzle, cell: Cell, d: int, solution: Grid, written: dict[Cell, int],
           fillings: dict[Cage, list[tuple[int, ...]] | None]) -> Hint:
    """A cell written wrong, with the simplest reason it cannot hold its digit
    (`fillings`: every cage's fillings as listed, None where too many)."""
    n, (r, c) = puzzle.size, cell
    right = solution[r][c]
    for kind, k, line in (("row", r, [(r, j) for j in range(n)]), ("column", c, [(j, c) for j in range(n)])):
        twin = next((other for other in line if other != cell and written.get(other) == d), None)
        if twin is not None:
            return Hint(cell, right, f"{cell_name(cell)} holds {d}, but {_line(kind, k)} has {d} at"
                                     f" {cell_name(twin)} too", d)
    cage = next(cg for cg in puzzle.cages if cell in cg.cells)
    tuples = fillings[cage]
    if tuples is not None:
        fits = [t for t in tuples if all(written.get(x, v) == v for v, x in zip(t, cage.cells))]
        if not fits:
            others = [x for x in cage.cells if x != cell and x in written]
            with_ = f" with {', '.join(f'{cell_name(x)}={written[x]}' for x in others)}" if others else ""
            return Hint(cell, right, f"{cell_name(cell)} holds {d}, but no way to fill the cage {cage.label} at"
                                     f" {cage.where}{with_} puts {d} there", d)
    return Hint(cell, right, f"{cell_name(cell)} holds {d}, but the puzzle's one solution has another digit there"
                             f" ({d} leads to a contradiction further on)", d)


def _narrow(puzzle: Puzzle, cand: dict[Cell, set[int]], fillings: dict[Cage, list[tuple[int, ...]] | None],
            known: dict[Cell, int]) -> None:
    """Remove what the known cells and the cages' fillings rule out, until nothing changes."""
    n = puzzle.size
    changed = True
    while changed:
        changed = False
        for (r, c), d in known.items():
            for k in range(n):
                for cell in ((r, k), (k, c)):
                    if cell != (r, c) and d in cand[cell]:
                        cand[cell].discard(d)
                        changed = True
        for cage, tuples in fillings.items():
            if tuples is None:
                continue
            fits = [t for t in tuples if all(v in cand[cell] for v, cell in zip(t, cage.cells))]
            if len(fits) != len(tuples):
                fillings[cage] = fits
                changed = True
            for i, cell in enumerate(cage.cells):
                allowed = {t[i] for t in fits}
                if not cand[cell] <= allowed:
                    cand[cell] &= allowed
                    changed = True


def _next(puzzle: Puzzle, cand: dict[Cell, set[int]], fillings: dict[Cage, list[tuple[int, ...]] | None],
          known: dict[Cell, int]) -> Hint | None:
    """The simplest-reasoned cell not yet known, or None."""
    n = puzzle.size
    for cage in puzzle.cages:
        if len(cage.cells) == 1 and cage.cells[0] not in known:
            return Hint(cage.cells[0], cage.target, f"a one-cell cage shows its digit: {cage.target}")
    for cage in puzzle.cages:
        tuples = fillings[cage]
        if not tuples:
            continue
        for i, cell in enumerate(cage.cells):
            values = {t[i] for t in tuples}
            if cell not in known and len(values) == 1:
                d = values.pop()
                return Hint(cell, d, f"every way to fill the cage {cage.label} at {cage.where} puts {d} here")
    for d in range(1, n + 1):
        for k in range(n):
            for kind, line in (("row", [(k, c) for c in range(n)]), ("column", [(r, k) for r in range(n)])):
                places = [cell for cell in line if d in cand[cell]]
                if len(places) == 1 and places[0] not in known:
                    return Hint(places[0], d, f"the only place left for {d} in {_line(kind, k)}")
    for cell, left in sorted(cand.items()):
        if cell not in known and len(left) == 1:
            d = next(iter(left))
            return Hint(cell, d, f"every other digit is ruled out here by its row, column and cage: {d}")
    return None


def _line(kind: str, k: int) -> str:
    """Row k or column k as the grid's names say it: 'row 4', 'column C'."""
    return f"row {k + 1}" if kind == "row" else f"column {chr(ord('A') + k)}"
