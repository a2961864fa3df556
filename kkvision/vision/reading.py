"""Stage 4: turn clue readings into a Puzzle the solver accepts.

A reading that cannot be a clue (no digits, a target no digits can reach)
is replaced by its next alternative.  If the puzzle is then unsolvable, the
solver chooses among the unsure labels' alternative readings the fewest
changes that make it solvable (solver.choose_readings).  If it has several
solutions, single-label corrections are tried, least sure label first, and
the first that gives exactly one solution is kept.  Every change
is reported in `notes`: kkvision never prints the solution of a puzzle other
than the one it read without saying so.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..errors import ClueUnreadable, InvalidPuzzle, SolverTimeout, Unsolvable
from ..puzzle import Cage, Puzzle, cell_name, target_possible
from ..solver import Solution, choose_readings, solve
from .clues import ClueReading, parse

MAX_TRIES = 40
MAX_UNREADABLE = 0.15  # more unreadable labels than this share: give up (exit code 5)
SURE = 0.9  # a label both readers agree on is not second-guessed
ALTERNATIVES = 5
CORRECTION_BUDGET = 6.0  # seconds of solver time spent trying corrections


def _cage(text: str, cells: tuple[tuple[int, int], ...], n: int) -> Cage | None:
    op, target = parse(text, len(cells))
    if target is None:
        return None
    try:
        cage = Cage(op, target, cells)
    except InvalidPuzzle:
        return None
    return cage if target_possible(cage, n) else None


def _first_valid(reading: ClueReading, n: int) -> tuple[Cage | None, str]:
    """The first reading that can be a clue; (None, '') when none can."""
    for text in (reading.text,) + reading.alternatives:
        cage = _cage(text, reading.cells, n)
        if cage is not None:
            return cage, text
    return None, ""


def _unreadable(readings: list[ClueReading]) -> ClueUnreadable:
    where = ", ".join(f"{cell_name(rd.cells[0])} (read {rd.text or 'nothing'!r})" for rd in readings[:6])
    return ClueUnreadable(f"cannot read the label of the cage at {where}; try a sharper or closer"
                          " picture, or --debug-dir to see what was read")


def _inferred(rd: ClueReading, grid: tuple[tuple[int, ...], ...]) -> Cage:
    """A clue for an unreadable label that the solved grid meets: the operator
    read (if any) with the value the grid gives, else the sum as a hidden operator."""
    values = [grid[r][c] for r, c in rd.cells]
    if len(values) == 1:
        return Cage("=", values[0], rd.cells)
    hi, lo = max(values), min(values)
    if rd.op == "*":
        prod = 1
        for v in values:
            prod *= v
        return Cage("*", prod, rd.cells)
    if rd.op == "-" and len(values) == 2:
        return Cage("-", hi - lo, rd.cells)
    if rd.op == "/" and len(values) == 2 and hi % lo == 0:
        return Cage("/", hi // lo, rd.cells)
    return Cage("+" if rd.op == "+" else "?", sum(values), rd.cells)


def resolve(n: int, readings: tuple[ClueReading, ...], time_limit: float) -> tuple[Puzzle, Solution, list[str]]:
    notes: list[str] = []
    firsts = [_first_valid(rd, n) for rd in readings]
    lost = [rd for rd, (cage, _) in zip(readings, firsts) if cage is None]
    if lost:
        if len(lost) > MAX_UNREADABLE * len(readings):
            raise _unreadable(lost)
        return _choose(n, readings, [c for c, _ in firsts], time_limit, notes)
    cages: list[Cage] = []
    for rd, (cage, text) in zip(readings, firsts):
        assert cage is not None
        if text != rd.text:
            notes.append(f"label at {cell_name(rd.cells[0])} read as {rd.text!r} cannot be right"
                         f" for {len(rd.cells)} cells; using {cage.label}")
        cages.append(cage)
    puzzle = Puzzle(n, tuple(cages))
    try:
        solution: Solution | None = solve(puzzle, time_limit)
    except Unsolvable:
        solution = None
    if solution is not None and solution.unique:
        return puzzle, solution, notes
    if solution is None:
        return _choose(n, readings, cages, time_limit, notes)
    problem = "has several solutions"
    order = sorted(range(len(readings)), key=lambda i: readings[i].confidence)
    tries = 0
    deadline = time.monotonic() + CORRECTION_BUDGET
    for i in order:
        for alt in readings[i].alternatives[:4]:
            swapped = _cage(alt, readings[i].cells, n)
            if swapped is None or swapped == cages[i]:
                continue
            cage = swapped
            tries += 1
            left = deadline - time.monotonic()
            if tries > MAX_TRIES or left <= 0.05:
                break
            candidate = Puzzle(n, tuple(cages[:i] + [cage] + cages[i + 1:]))
            try:
                sol = solve(candidate, min(time_limit, 1.5, left))
            except (Unsolvable, SolverTimeout):
                continue
            if sol.unique:
                notes.append(f"the puzzle as read {problem}; reading the label at"
                             f" {cell_name(readings[i].cells[0])} as {cage.label} instead of"
                             f" {cages[i].label} makes it solvable with one solution")
                return candidate, sol, notes
    return puzzle, solution, notes


def _choose(n: int, readings: tuple[ClueReading, ...], cages: Sequence[Cage | None], time_limit: float,
            notes: list[str]) -> tuple[Puzzle, Solution, list[str]]:
    """The puzzle as read has no solution (or has unreadable labels): let the
    solver pick, among each unsure label's readings, the fewest changes that
    make it solvable; an unreadable label constrains nothing."""
    candidates: list[list[Cage | None]] = []
    for rd, cage in zip(readings, cages):
        options: list[Cage | None] = [cage]
        for alt in rd.alternatives if cage is not None else ():
            # a sure label (both readers agree on its digits) may still change its operator
            if rd.confidence >= SURE and alt.rstrip("+-*/÷") != rd.text.rstrip("+-*/÷"):
                continue
            other = _cage(alt, rd.cells, n)
            if other is not None and other not in options:
                options.append(other)
            if len(options) > ALTERNATIVES:
                break
        candidates.append(options)
    found = choose_readings(n, candidates, min(time_limit, 8.0))
    if found is None:
        lost = [rd for rd, c in zip(readings, cages) if c is None]
        if lost:
            raise _unreadable(lost)
        raise Unsolvable("the puzzle as read has no solution, and no other reading of its labels fixes it;"
                         " check the picture with --debug-dir (labels read: "
                         + ", ".join(f"{c.where} {c.label}" for c in cages if c is not None) + ")")
    chosen, grid, unique = found
    final = [c if c is not None else _inferred(rd, grid) for rd, c in zip(readings, chosen)]
    puzzle = Puzzle(n, tuple(final))
    solution = Solution(grid, unique, None if unique else solve(puzzle, time_limit).other)
    changed = [f"{old.where} {old.label} -> {new.label}" for old, new in zip(cages, chosen)
               if old is not None and new is not None and old != new]
    guessed = [f"{c.where} (taken as {c.label})" for c, was in zip(final, chosen) if was is None]
    if changed:
        notes.append("the puzzle as read has no solution; with these labels read differently it has "
                     + ("exactly one" if unique else "several") + ": " + ", ".join(changed))
    if guessed:
        notes.append("unreadable labels, solved without them: " + ", ".join(guessed)
                     + (" (the other labels allow only this grid)" if unique else ""))
    return puzzle, solution, notes
