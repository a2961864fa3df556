"""The user's own answers: read them and mark the wrong cells (`kkvision check`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ExitCode, InputError
from .puzzle import Grid, Puzzle
from .vision.stages import GridGeometry
from .vocab import Cell, cell_name

BLANK = 0


@dataclass(frozen=True)
class CheckResult:
    answers: Grid  # 0 where the user left a cell blank
    wrong: tuple[tuple[int, int], ...]
    blank: tuple[tuple[int, int], ...]

    @property
    def ok(self) -> bool:
        return not self.wrong


def read_answers(text: str, size: int) -> Grid:
    """n lines of n digits; spaces, commas and '|' are ignored; '.', '_' or 0 = blank."""
    rows = []
    for raw in text.splitlines():
        line = "".join(ch for ch in raw if ch not in " \t,|")
        if not line:
            continue
        row = []
        for ch in line:
            if ch in "._0":
                row.append(BLANK)
            elif ch in "123456789" and int(ch) <= size:  # ASCII only: '¹' or '٣' is a digit to isdigit()
                row.append(int(ch))
            else:
                raise InputError(f"answers: {ch!r} in line {raw.strip()!r} is not a digit 1..{size} or '.'")
        if len(row) != size:
            raise InputError(f"answers: line {raw.strip()!r} has {len(row)} cells, expected {size}")
        rows.append(tuple(row))
    if len(rows) != size:
        raise InputError(f"answers: {len(rows)} lines, expected {size}")
    return tuple(rows)


def check_answers(puzzle: Puzzle, solution: Grid, answers: Grid) -> CheckResult:
    n = puzzle.size
    wrong, blank = [], []
    for r in range(n):
        for c in range(n):
            if answers[r][c] == BLANK:
                blank.append((r, c))
            elif answers[r][c] != solution[r][c]:
                wrong.append((r, c))
    return CheckResult(answers, tuple(wrong), tuple(blank))


def verdict_of(check: CheckResult, unsure: tuple[Cell, ...] = ()) -> ExitCode:
    """`check`'s exit code: 0 only when every written cell was read surely and is
    right; 11 when some cell is wrong; else 15 when some written cell could not
    be read surely (not judged: never called right)."""
    if check.wrong:
        return ExitCode.ANSWERS_WRONG
    return ExitCode.ANSWERS_UNSURE if unsure else ExitCode.OK


@dataclass(frozen=True)
class Judged:
    """One puzzle's answers judged: the check, and the written cells not read
    surely enough to judge (never called right or wrong)."""

    check: CheckResult
    unsure: tuple[Cell, ...] = ()

    @property
    def blank(self) -> tuple[Cell, ...]:
        """Cells left empty (a cell not read surely is written, not blank)."""
        return tuple(c for c in self.check.blank if c not in self.unsure)

    @property
    def verdict(self) -> ExitCode:
        return verdict_of(self.check, self.unsure)

    def record_fields(self, notes: tuple[str, ...]) -> dict[str, Any]:
        """This check's fields of the JSON record (report.outcome_record's extras), the puzzle's notes first."""
        unsure = [f"unsure cells: {', '.join(map(cell_name, self.unsure))}"] if self.unsure else []
        return dict(exit_code=self.verdict, notes=list(notes) + unsure, wrong=[list(c) for c in self.check.wrong],
                    blank=[list(c) for c in self.blank], unsure=[list(c) for c in self.unsure])


def judge(puzzle: Puzzle, solution: Grid, typed: str | None, picture: np.ndarray | None = None,
          geometry: GridGeometry | None = None) -> Judged:
    """The answers typed (an answers text), or else those written in the
    picture's cells, against the solution: `check`'s work for one puzzle."""
    if typed is not None:
        return Judged(check_answers(puzzle, solution, read_answers(typed, puzzle.size)))
    if picture is None or geometry is None:
        raise InputError("no answers to check: give them typed, or check a picture with the answers written in")
    answers, unsure = written_answers(picture, geometry)
    return Judged(check_answers(puzzle, solution, answers), unsure)


def written_answers(picture: np.ndarray, geometry: GridGeometry) -> tuple[Grid, tuple[Cell, ...]]:
    """The answers written in the picture's cells (0: nothing written), and the
    cells read with too little certainty to judge (left 0, listed)."""
    from .vision.digits import SURE, digit_crop, read_digits

    n = geometry.size
    square = geometry.square(picture)
    cells = [(r, c) for r in range(n) for c in range(n)]
    probs = read_digits([digit_crop(square, geometry.cell_box(r, c)) for r, c in cells])
    grid = [[0] * n for _ in range(n)]
    unsure = []
    for (r, c), p in zip(cells, probs):
        k = int(p.argmax())
        if p[k] < SURE or k > n:
            unsure.append((r, c))
        else:
            grid[r][c] = k
    return tuple(tuple(row) for row in grid), tuple(unsure)
