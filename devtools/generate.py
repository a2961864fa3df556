"""Random puzzles with a known solution, for tests, samples and the benchmark.

A random Latin square, cut into random connected cages (mostly 2-3 cells,
some singles, a few up to `max_cage`), each given an operator that fits its
digits.  `unique=True` keeps drawing until the solver says the puzzle has
exactly one solution.
"""

from __future__ import annotations

import random

from kkvision.puzzle import Cage, Grid, Puzzle


def latin_square(n: int, rng: random.Random) -> Grid:
    base = [[(r + c) % n + 1 for c in range(n)] for r in range(n)]
    rng.shuffle(base)
    cols = list(range(n))
    rng.shuffle(cols)
    symbols = list(range(1, n + 1))
    rng.shuffle(symbols)
    # A few random intercalate-free shuffles give varied, still Latin, squares.
    return tuple(tuple(symbols[base[r][cols[c]] - 1] for c in range(n)) for r in range(n))


def _partition(n: int, rng: random.Random, max_cage: int) -> list[list[tuple[int, int]]]:
    free = {(r, c) for r in range(n) for c in range(n)}
    cages = []
    order = sorted(free)
    rng.shuffle(order)
    for start in order:
        if start not in free:
            continue
        want = rng.choices([1, 2, 3, 4, max_cage], weights=[8, 45, 30, 12, 5])[0]
        cage = [start]
        free.discard(start)
        while len(cage) < want:
            frontier = [(r + dr, c + dc) for r, c in cage for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
                        if (r + dr, c + dc) in free]
            if not frontier:
                break
            nxt = rng.choice(frontier)
            free.discard(nxt)
            cage.append(nxt)
        cages.append(cage)
    return cages


def _clue(cells: list[tuple[int, int]], grid: Grid, rng: random.Random, n: int) -> Cage:
    vals = [grid[r][c] for r, c in cells]
    if len(vals) == 1:
        return Cage("=", vals[0], tuple(cells))
    options = []
    if len(vals) == 2:
        hi, lo = max(vals), min(vals)
        options.append(("-", hi - lo))
        if hi % lo == 0:
            options += [("/", hi // lo)] * 3
    options.append(("+", sum(vals)))
    prod = 1
    for v in vals:
        prod *= v
    if prod <= 99999:
        options.append(("*", prod))
    op, target = rng.choice(options)
    return Cage(op, target, tuple(cells))


def random_puzzle(n: int, seed: int, max_cage: int = 5, unique: bool = True,
                  hidden_ops: bool = False) -> tuple[Puzzle, Grid]:
    rng = random.Random(seed)
    from kkvision.solver import solve

    for _ in range(200):
        grid = latin_square(n, rng)
        cages = [_clue(cells, grid, rng, n) for cells in _partition(n, rng, max_cage)]
        if hidden_ops:
            cages = [Cage("?" if len(c.cells) > 1 else "=", c.target, c.cells) for c in cages]
        puzzle = Puzzle(n, tuple(cages))
        if not unique:
            return puzzle, grid
        if solve(puzzle, time_limit=10).unique:
            return puzzle, grid
    raise RuntimeError(f"no unique {n}x{n} puzzle found for seed {seed}")
