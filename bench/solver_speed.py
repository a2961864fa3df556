"""Solver speed: seconds for solve + uniqueness check, per puzzle size.

    .venv/bin/python bench/solver_speed.py [--per-size 10] [--sizes 3 4 5 6 7 8 9]

Puzzles are random unique ones from devtools.generate (seeded), plus the
same puzzles with hidden operators (every multi-cell cage '?').  Not a test:
timings depend on the machine; run it to compare changes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from devtools.generate import random_puzzle  # noqa: E402
from kkvision.puzzle import Cage, Puzzle  # noqa: E402
from kkvision.solver import solve  # noqa: E402


@saved("solver_speed")
def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-size", type=int, default=10)
    ap.add_argument("--sizes", type=int, nargs="*", default=list(range(3, 10)))
    args = ap.parse_args()
    solve(random_puzzle(4, 0)[0])  # load OR-tools before timing
    print(f"{'size':>4} {'kind':>8} {'mean s':>8} {'max s':>8} {'unique':>7}")
    for n in args.sizes:
        for kind in ("ops", "hidden"):
            times, unique = [], 0
            for k in range(args.per_size):
                puzzle, _ = random_puzzle(n, 5000 + 100 * n + k)
                if kind == "hidden":
                    puzzle = Puzzle(n, tuple(Cage("?" if len(c.cells) > 1 else "=", c.target, c.cells)
                                             for c in puzzle.cages))
                t0 = time.perf_counter()
                sol = solve(puzzle, time_limit=60)
                times.append(time.perf_counter() - t0)
                unique += sol.unique
            print(f"{n:>4} {kind:>8} {statistics.mean(times):>8.3f} {max(times):>8.3f} {unique:>4}/{args.per_size}")


if __name__ == "__main__":
    main()
