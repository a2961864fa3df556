"""The puzzle model: cages, puzzles, and cage arithmetic (names: vocab.py's glossary)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce
from itertools import permutations

from .errors import InvalidPuzzle
from .vocab import MAX_SIZE, MIN_SIZE, OPS, Cell, cell_name, column_name, label_text

Grid = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Cage:
    op: str
    target: int
    cells: tuple[Cell, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", tuple(sorted(self.cells)))
        if self.op not in OPS:
            raise InvalidPuzzle(f"cage at {self.where}: unknown operator {self.op!r}")
        if not self.cells:
            raise InvalidPuzzle("a cage has no cells")
        if len(set(self.cells)) != len(self.cells):
            raise InvalidPuzzle(f"cage at {self.where} lists a cell twice")
        if self.target < 0:
            raise InvalidPuzzle(f"cage at {self.where}: negative target {self.target}")
        if self.op == "=" and len(self.cells) != 1:
            raise InvalidPuzzle(
                f"cage {self.label} at {self.where} has {len(self.cells)} cells;"
                " a bare number needs a single cell"
            )
        if self.op in "-/" and len(self.cells) < 2:
            raise InvalidPuzzle(
                f"cage {self.label} at {self.where} has 1 cell; '{self.op}' cages have at least 2"
            )

    @property
    def book_rule(self) -> bool:
        """A difference or quotient over more than two cells, as puzzle books print them: the largest
        digit minus the others ('-'), or divided by the others' product ('/')."""
        return self.op in "-/" and len(self.cells) > 2

    @property
    def anchor(self) -> Cell:
        return self.cells[0]

    @property
    def where(self) -> str:
        return cell_name(self.cells[0])

    @property
    def label(self) -> str:
        return label_text(self.op, self.target)


@dataclass(frozen=True)
class Puzzle:
    size: int
    cages: tuple[Cage, ...]

    def __post_init__(self) -> None:
        n = self.size
        if not MIN_SIZE <= n <= MAX_SIZE:
            raise InvalidPuzzle(f"size {n} is outside {MIN_SIZE}..{MAX_SIZE}")
        object.__setattr__(self, "cages", tuple(sorted(self.cages, key=lambda c: c.anchor)))
        owner: dict[Cell, Cage] = {}
        for cage in self.cages:
            for cell in cage.cells:
                r, c = cell
                if not (0 <= r < n and 0 <= c < n):
                    raise InvalidPuzzle(
                        f"cage {cage.label} at {cage.where}: cell {cell} is outside the {n}x{n} grid"
                    )
                if cell in owner:
                    raise InvalidPuzzle(
                        f"cell {cell_name(cell)} is in two cages:"
                        f" {owner[cell].label} at {owner[cell].where} and {cage.label} at {cage.where}"
                    )
                owner[cell] = cage
        missing = [cell_name((r, c)) for r in range(n) for c in range(n) if (r, c) not in owner]
        if missing:
            raise InvalidPuzzle(f"cells in no cage: {', '.join(missing[:12])}")
        for cage in self.cages:
            if not _connected(cage.cells):
                raise InvalidPuzzle(f"cage {cage.label} at {cage.where} is not connected")
            if not target_possible(cage, n):
                raise InvalidPuzzle(
                    f"cage {cage.label} at {cage.where}: no digits 1..{n} in"
                    f" {len(cage.cells)} cells give {cage.target}{'' if cage.op == '=' else ' with ' + cage.op}"
                )

    def cage_of(self, cell: Cell) -> Cage:
        for cage in self.cages:
            if cell in cage.cells:
                return cage
        raise KeyError(cell)


def join_cells(count: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    """Groups of cell indices 0..count-1 joined by `pairs` (union-find), each
    sorted, ordered by their first index."""
    parent = list(range(count))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in pairs:
        parent[find(a)] = find(b)
    groups: dict[int, list[int]] = {}
    for i in range(count):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _connected(cells: tuple[Cell, ...]) -> bool:
    todo, seen = [cells[0]], {cells[0]}
    members = set(cells)
    while todo:
        r, c = todo.pop()
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nb in members and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return len(seen) == len(cells)


# ---------------------------------------------------------------- arithmetic


def satisfies(op: str, target: int, values: tuple[int, ...] | list[int]) -> bool:
    """Do these cage digits meet the clue?  '?' accepts any operator."""
    if op == "?":
        ops = "+*" if len(values) != 2 else "+-*/"
        if len(values) == 1:
            ops = "="
        return any(satisfies(o, target, values) for o in ops)
    if op == "=":
        return len(values) == 1 and values[0] == target
    if op == "+":
        return sum(values) == target
    if op == "*":
        return reduce(lambda a, b: a * b, values, 1) == target
    return len(values) >= 2 and by_largest(op, values) == target


def by_largest(op: str, values: tuple[int, ...] | list[int]) -> int | None:
    """What '-' or '/' makes of these digits (two or more): the largest less the others' sum, or over
    their product (two cells' difference and quotient, or a puzzle book's); None where '/' leaves a
    remainder."""
    hi = max(values)
    if op == "-":
        return hi - (sum(values) - hi)
    others = math.prod(values) // hi
    return hi // others if hi % others == 0 else None


class TooManyTuples(ValueError):
    """cage_tuples gave up: listing the cage's tuples would take more than its budget."""


def cage_tuples(cage: Cage, n: int, budget: int | None = None, max_tuples: int | None = None
                ) -> list[tuple[int, ...]]:
    """All digit tuples (in cage.cells order) that meet the clue, with no digit
    repeated inside the cage within one row or column.

    A big cage can have millions of tuples (a 9-cell product 362880 in a row has
    9! of them): TooManyTuples is raised as soon as the search has tried more
    than `budget` digits or found more than `max_tuples` tuples, so time and
    memory are bounded whatever the cage.  Without them the listing is
    complete, however long it takes."""
    cells = cage.cells
    k = len(cells)
    op, target = cage.op, cage.target
    out: list[tuple[int, ...]] = []
    if op == "=":
        return [(target,)] if 1 <= target <= n else []
    if k == 2 and op in "-/?":
        for a, b in permutations(range(1, n + 1), 2):
            if satisfies(op, target, (a, b)):
                out.append((a, b))
        return out
    conflicts = [
        [j for j in range(i) if cells[j][0] == cells[i][0] or cells[j][1] == cells[i][1]]
        for i in range(k)
    ]
    ops = "+*" if op == "?" else op
    found: set[tuple[int, ...]] = set()
    steps = [budget if budget is not None else -1, max_tuples if max_tuples is not None else -1]
    try:
        if op in "-/":  # a book's rule over k > 2 cells: the tuples whose largest digit h gives the target
            for h in range(1, n + 1):  # ... have the sum 2h - target, or the product h * h / target
                o, whole = ("+", 2 * h - target) if op == "-" else (
                    "*", h * h // target if target > 0 and h * h % target == 0 else 0)
                if whole > 0 and target_possible(Cage(o, whole, cells), n):
                    _extend(o, whole, n, conflicts, [], found, steps)
            return sorted(t for t in found if satisfies(op, target, t))
        for o in ops:
            if target_possible(Cage(o, target, cells), n):
                _extend(o, target, n, conflicts, [], found, steps)
    except TooManyTuples:
        raise TooManyTuples(f"cage {cage.label} at {cage.where}: more than {budget} steps or"
                            f" {max_tuples} digit tuples") from None
    return sorted(found)


def _extend(
    op: str, rest: int, n: int, conflicts: list[list[int]], vals: list[int], found: set[tuple[int, ...]],
    steps: list[int],
) -> None:
    i = len(vals)
    k = len(conflicts)
    if i == k:
        if (op == "+" and rest == 0) or (op == "*" and rest == 1):
            found.add(tuple(vals))
            if 0 <= steps[1] < len(found):
                raise TooManyTuples("more digit tuples than allowed")
        return
    left = k - i - 1  # cells after this one
    for v in range(1, n + 1):
        if steps[0] >= 0:  # a budget: count the digits tried
            if steps[0] == 0:
                raise TooManyTuples("more digit tuples than the budget allows")
            steps[0] -= 1
        if any(vals[j] == v for j in conflicts[i]):
            continue
        if op == "+":
            r = rest - v
            if r < left or r > left * n:
                continue
        else:
            if rest % v:
                continue
            r = rest // v
            if r > n**left:
                continue
        vals.append(v)
        _extend(op, r, n, conflicts, vals, found, steps)
        vals.pop()


PRIMES = (2, 3, 5, 7, 11)  # every prime that divides a digit 1..MAX_SIZE


def prime_exponents(t: int, n: int) -> dict[int, int] | None:
    """t as a product of the primes up to n: {prime: exponent}, or None when t
    is not a product of digits 1..n (zero, negative, or a larger prime factor).
    Bounded work for any t: only the primes up to n are tried."""
    if t < 1:
        return None
    out = {}
    for p in PRIMES:
        if p > n:
            break
        e = 0
        while t % p == 0:
            t //= p
            e += 1
        out[p] = e
    return out if t == 1 else None


def target_possible(cage: Cage, n: int, latin: bool = False) -> bool:
    """Cheap bound check: can any digits 1..n in these cells reach the target?  With `latin`,
    a digit is counted at most once per row and column the cage spans, as a solution holds
    it: a big cage's smallest sum and product are then far above the least digits' (a 6x6
    block of a 9x9 sums to at least 6 x 21).  A puzzle is checked without (a cage that no
    solution can meet is the solver's to report: unsolvable); a label's readings with it."""
    k, t = len(cage.cells), cage.target
    if cage.op == "=":
        return 1 <= t <= n
    if cage.op == "-":  # the others are at least 1 each; over two cells the digits differ
        return (1 if k == 2 else 0) <= t <= n - (k - 1)
    if cage.op == "/":
        return (2 if k == 2 else 1) <= t <= n
    # times a digit can be in the cage
    repeats = min(len({r for r, _ in cage.cells}), len({c for _, c in cage.cells})) if latin else k
    if k > repeats * n:
        return False
    least = [d for d in range(1, n + 1) for _ in range(repeats)][:k]
    most = [d for d in range(n, 0, -1) for _ in range(repeats)][:k]
    if cage.op == "+":
        return sum(least) <= t <= sum(most)
    if cage.op == "*":
        if t < math.prod(least) or t > math.prod(most):
            return False
        return prime_exponents(t, n) is not None  # every prime factor must be a digit's
    return any(
        target_possible(Cage(o, t, cage.cells), n, latin)
        for o in ("+*" if k != 2 else "+-*/")
    ) if k > 1 else 1 <= t <= n


def check_grid(puzzle: Puzzle, grid: Grid) -> list[str]:
    """Independent checker: every problem with `grid` as a solution, or []."""
    n = puzzle.size
    problems: list[str] = []
    if len(grid) != n or any(len(row) != n for row in grid):
        return [f"grid is not {n}x{n}"]
    digits = set(range(1, n + 1))
    for i in range(n):
        if set(grid[i]) != digits:
            problems.append(f"row {i + 1} does not hold each of 1..{n} once")
        if {grid[r][i] for r in range(n)} != digits:
            problems.append(f"column {column_name(i)} does not hold each of 1..{n} once")
    for cage in puzzle.cages:
        values = [grid[r][c] for r, c in cage.cells]
        if not satisfies(cage.op, cage.target, values):
            problems.append(f"cage {cage.label} at {cage.where} is not met by {values}")
    return problems
