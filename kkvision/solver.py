"""Solve a Puzzle with OR-tools CP-SAT and say whether the solution is unique.

Rows and columns are AllDifferent; '+' cages are linear sums; every other cage
is a table of the digit tuples that meet it (see puzzle.cage_tuples); a
hidden operator on 3+ cells is "sum, or else the product table".  Uniqueness: solve again with the first grid
forbidden.  Every grid returned passes the independent puzzle.check_grid.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Ambiguous, KkvisionError, SolverTimeout, Unsolvable
from .puzzle import Cage, Grid, Puzzle, cage_tuples, check_grid

DEFAULT_TIME_LIMIT = 20.0


@dataclass(frozen=True)
class Solution:
    grid: Grid
    unique: bool
    other: Grid | None = None  # a second grid when not unique


def _latin(model, n: int):  # type: ignore[no-untyped-def]
    x = [[model.new_int_var(1, n, f"x{r}{c}") for c in range(n)] for r in range(n)]
    for i in range(n):
        model.add_all_different(x[i])
        model.add_all_different([x[r][i] for r in range(n)])
    return x


def _forbid(model, x, grid: Grid) -> None:  # type: ignore[no-untyped-def]
    """No solution may equal `grid` (to ask whether another grid exists)."""
    n = len(grid)
    same = []
    for r in range(n):
        for c in range(n):
            b = model.new_bool_var(f"same{r}{c}")
            model.add(x[r][c] == grid[r][c]).only_enforce_if(b)
            model.add(x[r][c] != grid[r][c]).only_enforce_if(~b)
            same.append(b)
    model.add(sum(same) <= n * n - 1)


def _add_cage(model, x, cage: Cage, n: int, when) -> bool:  # type: ignore[no-untyped-def]
    """Constrain the cage's cells (only if literal `when` holds, when given).
    False when no digits can meet the cage at all."""
    cvars = [x[r][c] for r, c in cage.cells]

    def enforce(ct):  # type: ignore[no-untyped-def]
        return ct.only_enforce_if(when) if when is not None else ct

    if cage.op == "+":
        enforce(model.add(sum(cvars) == cage.target))
        return True
    if cage.op == "?" and len(cage.cells) > 2:  # hidden operator: a sum, or else a product
        is_sum = model.new_bool_var(f"sum{cage.anchor}")
        enforce(model.add(sum(cvars) == cage.target)).only_enforce_if(is_sum)
        products = cage_tuples(Cage("*", cage.target, cage.cells), n)
        if products:
            ct = model.add_allowed_assignments(cvars, products).only_enforce_if(~is_sum)
            if when is not None:
                ct.only_enforce_if(when)
        else:
            model.add(is_sum == 1)
        return True
    tuples = cage_tuples(cage, n)
    if not tuples:
        return False
    enforce(model.add_allowed_assignments(cvars, tuples))
    return True


@dataclass(frozen=True)
class Choice:
    """One reading per label (an index into its options), the grid it gives,
    and its cost (the sum of the chosen options' costs)."""

    picks: tuple[int, ...]
    grid: Grid
    cost: int
    proven: bool  # the solver proved no cheaper choice exists


def most_probable(n: int, options: list[list[tuple[Cage | None, int]]], time_limit: float = 10.0,
                  forbid: Grid | None = None, max_cost: int | None = None) -> Choice | None:
    """The cheapest choice of one option per label such that some grid meets
    every chosen clue (a None option constrains nothing), optionally with the
    grid `forbid` excluded and the total cost at most `max_cost`.  Costs are
    integers (scaled -log probabilities).  None when no choice gives a grid;
    SolverTimeout when the solver could not tell within the time limit."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = _latin(model, n)
    picks, cost = [], []
    for i, opts in enumerate(options):
        lits = []
        for j, (cage, c) in enumerate(opts):
            lit = model.new_bool_var(f"c{i}_{j}")
            if cage is None or _add_cage(model, x, cage, n, lit):
                lits.append((lit, j))
                if c:
                    cost.append(c * lit)
            else:
                model.add(lit == 0)
        if not lits:
            return None
        model.add_exactly_one(lit for lit, _ in lits)
        picks.append(lits)
    if forbid is not None:
        _forbid(model, x, forbid)
    if cost:
        if max_cost is not None:
            model.add(sum(cost) <= max_cost)
        model.minimize(sum(cost))
    elif max_cost is not None and max_cost < 0:
        return None
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 2
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise SolverTimeout(f"the solver could not weigh the readings within {time_limit:g} s;"
                            " try a larger --time-limit")
    chosen = tuple(next(j for lit, j in lits if solver.value(lit)) for lits in picks)
    grid = tuple(tuple(int(solver.value(x[r][c])) for c in range(n)) for r in range(n))
    total = sum(options[i][j][1] for i, j in enumerate(chosen))
    return Choice(chosen, grid, total, status == cp_model.OPTIMAL)


def solve(puzzle: Puzzle, time_limit: float = DEFAULT_TIME_LIMIT, require_unique: bool = False) -> Solution:
    """First grid plus uniqueness.  Raises Unsolvable, or Ambiguous when
    `require_unique` and a second grid exists."""
    from ortools.sat.python import cp_model

    n = puzzle.size
    model = cp_model.CpModel()
    x = _latin(model, n)
    for cage in puzzle.cages:
        if not _add_cage(model, x, cage, n, None):
            raise Unsolvable(f"no digits can meet cage {cage.label} at {cage.where}")

    def run() -> Grid | None:
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = time_limit
        solver.parameters.num_workers = 2
        status = solver.solve(model)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return tuple(tuple(int(solver.value(x[r][c])) for c in range(n)) for r in range(n))
        if status == cp_model.INFEASIBLE:
            return None
        raise SolverTimeout(f"the solver found no answer within {time_limit:g} s; try a larger --time-limit")

    first = run()
    if first is None:
        raise Unsolvable("no grid satisfies every cage of this puzzle")
    problems = check_grid(puzzle, first)
    if problems:  # never trust the model blindly
        raise KkvisionError("internal error: solver grid fails the checker: " + "; ".join(problems))
    _forbid(model, x, first)
    second = run()
    if second is not None and require_unique:
        raise Ambiguous("the puzzle has more than one solution")
    return Solution(first, second is None, second)
