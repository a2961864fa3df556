"""Solve a Puzzle with OR-tools CP-SAT and say whether the solution is unique.

Rows and columns are AllDifferent; '+' cages are linear sums; every other cage
is a table of the digit tuples that meet it (see puzzle.cage_tuples); a
hidden operator on 3+ cells is "sum, or else the product".  Uniqueness: solve
again with the first grid forbidden.  Every grid returned passes the
independent puzzle.check_grid.

Bounded work, whatever the puzzle: a cage's tuples are listed only while that
takes at most TUPLE_BUDGET steps and gives at most MAX_TUPLES (a 9-cell product
cage can have 9! of them); a product cage too big for that is modelled by its
prime factors instead (for each prime p up to n, the exponents of p in the
cells' digits add up to its exponent in the target: exact, linear, small).  One time limit covers
building the model, the first solution and the uniqueness check, and the
solver's memory is capped (MAX_MEMORY_MB).

OR-Tools is imported when a puzzle is first solved (load_cp_model), not at
start-up: `--version`, `convert` of a text and a picture with no grid never pay for it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

from .defaults import TIME_LIMIT as DEFAULT_TIME_LIMIT  # (the name vision/stages.py imports)
from .errors import Ambiguous, InvalidPuzzle, KkvisionError, SolverTimeout, Unsolvable
from .puzzle import PRIMES, Cage, Cell, Grid, Puzzle, TooManyTuples, cage_tuples, check_grid, prime_exponents

# A cage's tuples are listed in at most TUPLE_BUDGET search steps (digits tried,
# ~0.1 s; real 8x8 pictures have a 9-cell 864* that takes 160000 for 784 tuples)
# and kept as a table only up to MAX_TUPLES: bigger tables are slower for CP-SAT
# than prime exponents (a 9x9 with 7-cell product rows of 5040 tuples each:
# 5-6 s with tables, 0.1-0.3 s with exponents; the largest real cage has 1872)
TUPLE_BUDGET = 200_000
MAX_TUPLES = 2_000
MAX_MEMORY_MB = 768  # CP-SAT stops (and we report a timeout) rather than grow past this
WORKERS = 2  # CP-SAT's threads for a puzzle's solve and its uniqueness check (a hard text puzzle gains from two)
# ... and for weighing a picture's readings (most_probable): one.  Two took the same wall time on real-dev's
# weighings, the slow ones too (3.7 s over the 8 longest either way), with the same answers, for twice the
# CPU: a batch of pictures runs a process per core, whose weighings then ran four threads on two cores.
WEIGH_WORKERS = 1
# ... and with a lighter presolve: one round of it, probing at level 1 (CP-SAT's defaults: as many rounds as
# help, level 2).  A weighing's model is a Latin square with a table per reading of each label, switched by a
# literal; the full presolve spent longer on the long ones than the search did.  On real-dev's 116 weighings
# (OR-Tools 9.15): the 13 over 50 ms took 2.5 s instead of 4.1 (one 0.8 s weighing took 1.1 s), the others
# the same 0.45 s; every choice and cost the same.
WEIGH_PRESOLVE = {"max_presolve_iterations": 1, "cp_model_probing_level": 1}


_DEADLINE: ContextVar[float | None] = ContextVar("kkvision_solver_deadline", default=None)


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Every solve and most_probable inside the block ends by one shared
    deadline, `seconds` from now (each keeps its own time_limit too): for a
    caller that runs the solver several times, e.g. once per reading of a picture."""
    deadline = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _deadline(time_limit: float) -> float:
    deadline, shared = time.monotonic() + time_limit, _DEADLINE.get()
    return deadline if shared is None else min(deadline, shared)


@dataclass(frozen=True)
class Solution:
    grid: Grid
    unique: bool
    other: Grid | None = None  # a second grid when not unique


@lru_cache(maxsize=512)  # tables of at most MAX_TUPLES: a bounded ~150 MB at worst
def _table(cage: Cage, n: int) -> tuple[tuple[int, ...], ...] | None:
    """The cage's tuples, or None when there are too many to list or to use."""
    try:
        return tuple(cage_tuples(cage, n, budget=TUPLE_BUDGET, max_tuples=MAX_TUPLES))
    except TooManyTuples:
        return None


def _exponent(v: int, p: int) -> int:
    e = 0
    while v % p == 0:
        v //= p
        e += 1
    return e


@lru_cache(maxsize=1)
def load_cp_model():  # type: ignore[no-untyped-def]
    """OR-Tools' CP-SAT module.  Its module imports pandas only to accept pandas
    indexes and series in helpers kkvision never calls, and pandas is most of its
    import time (about 0.3 s of a 0.9 s solve of a photo): unless pandas is
    already loaded, the import sees a stand-in with the two class names it
    refers to, taken away again after (so a later `import pandas` is the real
    one).  Should a new OR-Tools need more of pandas, it is imported plainly."""
    import sys
    import types

    if "pandas" in sys.modules:
        from ortools.sat.python import cp_model

        return cp_model
    stand_in = types.ModuleType("pandas")
    stand_in.Index = type("Index", (), {})  # type: ignore[attr-defined]
    stand_in.Series = type("Series", (), {})  # type: ignore[attr-defined]
    sys.modules["pandas"] = stand_in
    try:
        from ortools.sat.python import cp_model
    except Exception:  # noqa: BLE001 - it needs the real pandas: forget the half-made import, load it plainly
        for name in [m for m in sys.modules if m.startswith("ortools.sat.python.cp_model")]:
            del sys.modules[name]
        del sys.modules["pandas"]
        from ortools.sat.python import cp_model
    finally:
        if sys.modules.get("pandas") is stand_in:
            del sys.modules["pandas"]
    return cp_model


class _Model:
    """A CP-SAT model of an n x n Latin square, with cages added to it."""

    def __init__(self, n: int, deadline: float, time_limit: float) -> None:
        cp_model = load_cp_model()

        self.n, self.deadline, self.time_limit = n, deadline, time_limit
        self.model = m = cp_model.CpModel()
        self.x = [[m.new_int_var(1, n, f"x{r}{c}") for c in range(n)] for r in range(n)]
        for i in range(n):
            m.add_all_different(self.x[i])
            m.add_all_different([self.x[r][i] for r in range(n)])
        self.primes = tuple(p for p in PRIMES if p <= n)
        self._exps: dict[Cell, list] = {}  # type: ignore[type-arg]

    def _exponents(self, cell: Cell) -> list:  # type: ignore[type-arg]
        """Per prime up to n, a variable: that prime's exponent in the cell's digit."""
        if cell not in self._exps:
            n, m = self.n, self.model
            digits = range(1, n + 1)
            es = [m.new_int_var(0, max(_exponent(v, p) for v in digits), f"e{p}_{cell[0]}_{cell[1]}")
                  for p in self.primes]
            m.add_allowed_assignments([self.x[cell[0]][cell[1]], *es],
                                      [(v, *(_exponent(v, p) for p in self.primes)) for v in digits])
            self._exps[cell] = es
        return self._exps[cell]

    def _product(self, cells: tuple[Cell, ...], exps: dict[int, int], lits: list) -> None:  # type: ignore[type-arg]
        """The cells' digits multiply to the number with these prime exponents
        (if every literal in `lits` holds): exact, by unique factorisation."""
        cell_exps = [self._exponents(cell) for cell in cells]
        for i, p in enumerate(self.primes):
            ct = self.model.add(sum(es[i] for es in cell_exps) == exps[p])
            if lits:
                ct.only_enforce_if(*lits)

    def add_cage(self, cage: Cage, when=None) -> bool:  # type: ignore[no-untyped-def]
        """Constrain the cage's cells (only if literal `when` holds, when given).
        False when no digits can meet the cage at all."""
        if time.monotonic() > self.deadline:
            raise SolverTimeout(f"building the model took the whole time limit ({self.time_limit:g} s);"
                                " try a larger --time-limit")
        m, n, k, t = self.model, self.n, len(cage.cells), cage.target
        cvars = [self.x[r][c] for r, c in cage.cells]
        cond = [] if when is None else [when]
        if cage.op == "+" or (cage.op == "?" and k > 2):
            sum_ok = k <= t <= k * n
            if cage.op == "+":
                if sum_ok:
                    m.add(sum(cvars) == t).only_enforce_if(*cond)
                return sum_ok
            # hidden operator on 3+ cells: a sum, or else a product
            exps = prime_exponents(t, n) if t <= n**k else None
            table = None if exps is None else _table(Cage("*", t, cage.cells), n)
            prod_ok = exps is not None and table != ()
            if not (sum_ok or prod_ok):
                return False
            if not prod_ok:
                m.add(sum(cvars) == t).only_enforce_if(*cond)
                return True
            is_sum = m.new_bool_var(f"sum{cage.anchor[0]}_{cage.anchor[1]}")
            if sum_ok:
                m.add(sum(cvars) == t).only_enforce_if(is_sum, *cond)
            else:
                m.add(is_sum == 0)
            if table is not None:
                m.add_allowed_assignments(cvars, table).only_enforce_if(~is_sum, *cond)
            else:
                assert exps is not None
                self._product(cage.cells, exps, [~is_sum, *cond])
            return True
        if cage.op == "*":
            exps = prime_exponents(t, n) if t <= n**k else None
            if exps is None:
                return False
            table = _table(cage, n)
            if table is None:  # too many tuples to list: by prime factors
                self._product(cage.cells, exps, cond)
                return True
        else:  # '=', '-', '/', two-cell '?': at most n * n tuples; a book's '-' or '/' over more cells
            table = _table(cage, n)
            if table is None and cage.op == "-":  # too many to list: the largest twice, less the whole sum
                hi = m.new_int_var(1, n, f"max{cage.anchor[0]}_{cage.anchor[1]}")
                m.add_max_equality(hi, cvars)
                m.add(2 * hi - sum(cvars) == t).only_enforce_if(*cond)
                return True
            if table is None:
                raise InvalidPuzzle(f"cage {cage.label} at {cage.where}: too many digit tuples to weigh its"
                                    f" {k} cells by the book's rule")
        if not table:
            return False
        m.add_allowed_assignments(cvars, table).only_enforce_if(*cond)
        return True

    def forbid(self, grid: Grid, besides: frozenset[Cell] = frozenset()) -> None:
        """No solution may equal `grid` (to ask whether another grid exists) in
        its cells other than `besides` (to ask which cells another may change)."""
        n, m = self.n, self.model
        differ = []
        for r in range(n):
            for c in range(n):
                if (r, c) in besides:
                    continue
                b = m.new_bool_var(f"differ{r}_{c}")
                m.add(self.x[r][c] != grid[r][c]).only_enforce_if(b)
                differ.append(b)
        m.add_bool_or(differ)

    def solve(self, what: str, workers: int = WORKERS, params: dict[str, int] | None = None
              ):  # type: ignore[no-untyped-def]
        """Run CP-SAT for the time left on `workers` threads (with these parameters set too):
        (solver, status); SolverTimeout when no time is left or the solver could not tell."""
        cp_model = load_cp_model()

        left = self.deadline - time.monotonic()
        if left <= 0:
            raise SolverTimeout(f"the solver {what} within {self.time_limit:g} s; try a larger --time-limit")
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = left
        solver.parameters.num_workers = workers
        solver.parameters.max_memory_in_mb = MAX_MEMORY_MB
        for name, value in (params or {}).items():
            setattr(solver.parameters, name, value)
        status = solver.solve(self.model)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE):
            raise SolverTimeout(f"the solver {what} within {self.time_limit:g} s; try a larger --time-limit")
        return solver, status

    def grid(self, solver) -> Grid:  # type: ignore[no-untyped-def]
        n = self.n
        return tuple(tuple(int(solver.value(self.x[r][c])) for c in range(n)) for r in range(n))


@dataclass(frozen=True)
class Choice:
    """One reading per label (an index into its options), the grid it gives,
    and its cost (the sum of the chosen options' costs, and of most_probable's `prefer` where the grid
    differs)."""

    picks: tuple[int, ...]
    grid: Grid
    cost: int
    proven: bool  # the solver proved no cheaper choice exists


def most_probable(n: int, options: list[list[tuple[Cage | None, int]]], time_limit: float = 10.0,
                  forbid: Grid | None = None, max_cost: int | None = None,
                  besides: frozenset[Cell] = frozenset(), prefer: dict[Cell, tuple[int, int]] | None = None
                  ) -> Choice | None:
    """The cheapest choice of one option per label such that some grid meets
    every chosen clue (a None option constrains nothing), optionally with the
    grid `forbid` excluded (any grid the same as it outside the cells
    `besides`) and the total cost at most `max_cost`; with `prefer` (a cell's
    digit and a cost), that cost is added where the grid's digit is another.
    Costs are integers (scaled -log probabilities).  None when no choice gives a grid;
    SolverTimeout when the solver could not tell within the time limit (which
    covers building the model too)."""
    cp_model = load_cp_model()

    mod = _Model(n, _deadline(time_limit), time_limit)
    model = mod.model
    picks, cost = [], []
    for i, opts in enumerate(options):
        lits = []
        for j, (cage, c) in enumerate(opts):
            lit = model.new_bool_var(f"c{i}_{j}")
            if cage is None or mod.add_cage(cage, lit):
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
        mod.forbid(forbid, besides)
    for (r, c), (digit, price) in (prefer or {}).items():
        other = model.new_bool_var(f"other{r}_{c}")
        model.add(mod.x[r][c] == digit).only_enforce_if(other.Not())
        cost.append(price * other)
    if cost:
        if max_cost is not None:
            model.add(sum(cost) <= max_cost)
        model.minimize(sum(cost))
    elif max_cost is not None and max_cost < 0:
        return None
    solver, status = mod.solve("could not weigh the readings", WEIGH_WORKERS, WEIGH_PRESOLVE)
    if status == cp_model.INFEASIBLE:
        return None
    chosen = tuple(next(j for lit, j in lits if solver.value(lit)) for lits in picks)
    grid = mod.grid(solver)
    total = sum(options[i][j][1] for i, j in enumerate(chosen))
    total += sum(price for (r, c), (digit, price) in (prefer or {}).items() if grid[r][c] != digit)
    return Choice(chosen, grid, total, status == cp_model.OPTIMAL)


def _checked(puzzle: Puzzle, grid: Grid) -> Grid:
    """The grid, once the independent checker agrees it solves the puzzle: never trust the model blindly."""
    problems = check_grid(puzzle, grid)
    if problems:
        raise KkvisionError("internal error: solver grid fails the checker: " + "; ".join(problems))
    return grid


def solve(puzzle: Puzzle, time_limit: float = DEFAULT_TIME_LIMIT, require_unique: bool = False) -> Solution:
    """First grid plus uniqueness, both within `time_limit` seconds in all
    (building the model included).  Raises Unsolvable, SolverTimeout, or
    Ambiguous when `require_unique` and a second grid exists."""
    cp_model = load_cp_model()

    mod = _Model(puzzle.size, _deadline(time_limit), time_limit)
    for cage in puzzle.cages:
        if not mod.add_cage(cage):
            raise Unsolvable(f"no digits can meet cage {cage.label} at {cage.where}")

    solver, status = mod.solve("found no answer")
    if status == cp_model.INFEASIBLE:
        raise Unsolvable("no grid satisfies every cage of this puzzle")
    first = _checked(puzzle, mod.grid(solver))
    mod.forbid(first)
    solver, status = mod.solve("could not tell whether the answer is the only one")
    if status == cp_model.INFEASIBLE:
        return Solution(first, True)
    second = _checked(puzzle, mod.grid(solver))  # the proof of "several solutions" is checked too
    if require_unique:
        raise Ambiguous("the puzzle has more than one solution")
    return Solution(first, False, second)
