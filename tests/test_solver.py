import math
import time

import pytest

from devtools.generate import random_puzzle
from kkvision import formats, solver
from kkvision.errors import Ambiguous, InvalidPuzzle, SolverTimeout, Unsolvable
from kkvision.puzzle import Cage, Puzzle, check_grid
from kkvision.solver import solve


def test_nyt_2009_02_13(samples):
    p = formats.read((samples / "nyt-2009-02-13.shields.txt").read_text())
    s = solve(p)
    assert s.unique
    assert s.grid == ((2, 1, 4, 3), (1, 3, 2, 4), (4, 2, 3, 1), (3, 4, 1, 2))


def test_kk0(samples):
    s = solve(formats.read((samples / "kk0.j.txt").read_text()))
    assert s.unique and s.grid[0] == (1, 2, 4, 3)


@pytest.mark.parametrize("n", [3, 5, 7, 9])
def test_random_unique_puzzles_give_back_their_grid(n):
    puzzle, grid = random_puzzle(n, seed=n)
    s = solve(puzzle)
    assert s.unique and s.grid == grid and check_grid(puzzle, s.grid) == []


def test_hidden_operators_are_solved():
    puzzle, grid = random_puzzle(4, seed=11, hidden_ops=True)  # unique, as random_puzzle draws them
    s = solve(puzzle)
    assert check_grid(puzzle, s.grid) == []
    assert s.unique and s.grid == grid


def test_ambiguous_puzzle_is_reported():
    rows = tuple(Cage("+", 6, tuple((r, c) for c in range(3))) for r in range(3))
    s = solve(Puzzle(3, rows))
    assert not s.unique and s.other is not None and s.other != s.grid
    assert check_grid(Puzzle(3, rows), s.other) == []  # the second grid is a solution too
    with pytest.raises(Ambiguous):
        solve(Puzzle(3, rows), require_unique=True)


def test_unsolvable_puzzle_is_reported():
    cages = (Cage("=", 1, ((0, 0),)), Cage("=", 1, ((0, 1),)), Cage("+", 7, ((0, 2), (1, 2), (2, 2))),
             Cage("+", 6, ((1, 0), (1, 1), (2, 0), (2, 1))))
    with pytest.raises(Unsolvable):
        solve(Puzzle(3, cages))


def test_large_hidden_operator_cage_is_modelled_without_enumerating_sums():
    # a 9-cell hidden-operator cage would be 9**9 sums to enumerate; the model needs none
    # (this used to hang; speed itself is measured in bench/, not here)
    n = 9
    cages = [Cage("?", 45, tuple((0, c) for c in range(n)))]
    cages += [Cage("+", 45, tuple((r, c) for c in range(n))) for r in range(1, n)]
    s = solve(Puzzle(n, tuple(cages)))
    assert not s.unique and s.other is not None and s.other != s.grid
    assert check_grid(Puzzle(n, tuple(cages)), s.grid) == check_grid(Puzzle(n, tuple(cages)), s.other) == []


def test_most_probable_takes_the_cheapest_choice_that_has_a_grid():
    from kkvision.solver import most_probable

    puzzle, grid = random_puzzle(5, seed=3)
    k = next(i for i, c in enumerate(puzzle.cages) if c.op == "+")
    bad = Cage("+", puzzle.cages[k].target + 1, puzzle.cages[k].cells)
    options = [[(c, 0)] for c in puzzle.cages]
    options[k] = [(bad, 0), (puzzle.cages[k], 300)]  # the misread is cheaper, the truth an alternative
    found = most_probable(5, options)
    assert found is not None and found.proven
    assert found.picks[k] == 1 and found.grid == grid and found.cost == 300
    assert most_probable(5, [[(bad, 0)]] + [[(c, 0)] for i, c in enumerate(puzzle.cages) if i != k]) is None


def test_most_probable_can_forbid_a_grid_and_leave_a_label_out():
    from kkvision.solver import most_probable

    puzzle, grid = random_puzzle(5, seed=8)
    options = [[(c, 0)] for c in puzzle.cages]
    assert most_probable(5, options, forbid=grid) is None  # the puzzle is unique
    k = max(range(len(options)), key=lambda i: len(puzzle.cages[i].cells))
    options[k] = [(None, 50)]  # that label could not be read
    found = most_probable(5, options)
    assert found is not None and found.picks[k] == 0 and found.cost == 50


# ------------------------------------------------------- bounded work on hostile input

def _rows(n, op, target):
    return Puzzle(n, tuple(Cage(op, target, tuple((r, c) for c in range(n))) for r in range(n)))


@pytest.mark.parametrize("op", ["*", "?"])
def test_rows_of_nine_factorial_end_within_the_time_limit(op):
    # every row one 9-cell cage 362880* (= 9!): any Latin square; this used to list
    # 9! tuples per row in Python and hang for a minute
    t0 = time.monotonic()
    with pytest.raises(Ambiguous):  # found out, not timed out (it takes under 1 s)
        solve(_rows(9, op, math.factorial(9)), time_limit=5, require_unique=True)
    assert time.monotonic() - t0 < 5 + 3


def test_big_cages_are_not_listed_but_still_exact():
    n = 9
    for cage in (Cage("*", math.factorial(9), tuple((0, c) for c in range(9))),
                 Cage("?", math.factorial(9), tuple((0, c) for c in range(9))),
                 Cage("+", 45, tuple((0, c) for c in range(9))),
                 Cage("*", 2 * 3 * 4 * 5 * 6 * 7 * 8, tuple((r, c) for r in range(3) for c in range(3))[:7])):
        assert solver._table(Cage("*" if cage.op == "?" else cage.op, cage.target, cage.cells), n) is None
    # ...and the whole puzzle still solves to a grid the independent checker accepts
    s = solve(_rows(9, "*", math.factorial(9)), time_limit=10)
    assert not s.unique and check_grid(_rows(9, "*", math.factorial(9)), s.grid) == []


def _big_cage_puzzle(n, seed, op):
    """Each row split into a 7-cell cage and 2-cell '-' cages, on a random Latin square."""
    import random

    from devtools.generate import latin_square

    grid = latin_square(n, random.Random(seed))
    cages = []
    for r in range(n):
        big = tuple((r, c) for c in range(7))
        vals = [grid[r][c] for _, c in big]
        cages.append(Cage(op, sum(vals) if op == "+" else math.prod(vals), big))
        cages.append(Cage("-", abs(grid[r][7] - grid[r][8]), ((r, 7), (r, 8))))
    return Puzzle(n, tuple(cages)), grid


@pytest.mark.parametrize("op", ["*", "+", "?"])
def test_big_product_and_sum_cages_on_nine_by_nine(op):
    puzzle, grid = _big_cage_puzzle(9, 4, op)
    assert check_grid(puzzle, grid) == []
    s = solve(puzzle, time_limit=10)
    # rows cut only into a big cage and a '-' pair leave many grids: two are found, and both meet every clue
    assert not s.unique and s.other is not None and s.other != s.grid
    assert check_grid(puzzle, s.grid) == check_grid(puzzle, s.other) == []


@pytest.fixture
def products_by_exponents(monkeypatch):
    """A switch: once called, every product (and the product side of every hidden
    operator) is modelled by prime exponents, as big cages are.  It returns the
    list of the product cages refused a table since, to show the switch took."""
    table = solver._table

    def switch() -> list[Cage]:
        refused: list[Cage] = []

        def no_products(cage: Cage, n: int):  # type: ignore[no-untyped-def]
            if cage.op == "*":
                refused.append(cage)
                return None
            return table(cage, n)

        monkeypatch.setattr(solver, "_table", no_products)
        return refused

    return switch


@pytest.mark.parametrize("n", range(3, 10))
def test_random_puzzles_give_back_their_grid(n):
    for seed in (100 + n, 200 + n):
        puzzle, grid = random_puzzle(n, seed=seed)
        s = solve(puzzle)
        assert s.unique and s.grid == grid


@pytest.mark.parametrize("n", range(3, 10))
def test_prime_exponents_model_products_exactly(n, products_by_exponents):
    # drawn (and found unique) with the tables, then solved with exponents: both must agree
    cases = [random_puzzle(n, seed=seed) for seed in (100 + n, 200 + n)]
    hidden, hidden_grid = random_puzzle(n, seed=n, hidden_ops=True)
    refused = products_by_exponents()
    for puzzle, grid in cases:
        s = solve(puzzle)
        assert s.unique and s.grid == grid
    assert refused  # the products above went by exponents, not tables
    s = solve(hidden)
    assert check_grid(hidden, s.grid) == []
    assert s.unique and s.grid == hidden_grid


def test_hidden_operator_with_a_target_beyond_any_sum():
    # 12! on every row of a 12x12: no sum reaches it (nor fits in the solver's
    # integers when it is bigger still); the product side alone must carry it
    n = 12
    with pytest.raises(Ambiguous):  # found out, not timed out (it takes about 2 s)
        solve(_rows(n, "?", math.factorial(n)), time_limit=10, require_unique=True)
    whole = Cage("?", math.factorial(n) ** n, tuple((r, c) for r in range(n) for c in range(n)))
    s = solve(Puzzle(n, (whole,)), time_limit=10)
    assert not s.unique


def test_time_limit_covers_building_the_model(monkeypatch):
    puzzle, _ = random_puzzle(5, seed=3)
    with pytest.raises(SolverTimeout):
        solve(puzzle, time_limit=0)
    # cages slow to model: building stops at the limit, not after the last cage (the solver
    # itself would time out too, so what shows the limit covers building is the cages left unbuilt)
    table, built = solver._table, []

    def slow(cage: Cage, n: int):  # type: ignore[no-untyped-def]
        built.append(cage)
        time.sleep(0.05)
        return table(cage, n)

    monkeypatch.setattr(solver, "_table", slow)
    with pytest.raises(SolverTimeout):
        solve(puzzle, time_limit=0.075)
    assert sum(c.op != "+" for c in puzzle.cages) == 8  # cages with a table: 0.4 s to build them all
    assert len(built) <= 2


def test_most_probable_with_hostile_readings():
    from kkvision.solver import most_probable

    puzzle = _rows(9, "*", math.factorial(9))
    options = [[(c, 0), (None, 100)] for c in puzzle.cages]
    found = most_probable(9, options, time_limit=5)
    # proven: a choice the solver only ran out of time on is no answer
    assert found is not None and found.cost == 0 and found.proven and check_grid(puzzle, found.grid) == []
    other = most_probable(9, options, time_limit=5, forbid=found.grid)
    assert other is not None and other.grid != found.grid and other.cost == 0 and other.proven
    assert check_grid(puzzle, other.grid) == []


def test_time_budget_is_shared_by_every_solver_call_inside_it():
    from kkvision.solver import most_probable, time_budget

    puzzle, grid = random_puzzle(5, seed=3)
    assert solve(puzzle, time_limit=5).grid == grid
    with time_budget(0):
        with pytest.raises(SolverTimeout):
            solve(puzzle, time_limit=5)
        with pytest.raises(SolverTimeout):
            most_probable(5, [[(c, 0)] for c in puzzle.cages], time_limit=5)
    with time_budget(30):
        assert solve(puzzle, time_limit=5).grid == grid


def _fresh(code: str) -> str:
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          timeout=120).stdout.split()[-1]


SOLVE_ONE = ("from kkvision import formats, solver; import sys; p = formats.read(open('samples/kk0.j.txt').read());"
             " assert solver.solve(p).unique; ")


def test_or_tools_is_loaded_without_pandas_and_a_later_import_of_pandas_is_the_real_one():
    assert _fresh(SOLVE_ONE + "print('pandas' in sys.modules)") == "False"
    assert _fresh(SOLVE_ONE + "import pandas; print(hasattr(pandas, 'DataFrame'))") == "True"


def test_or_tools_is_loaded_plainly_when_pandas_is_already_there_or_its_stand_in_falls_short():
    assert _fresh("import pandas; " + SOLVE_ONE + "print(sys.modules['pandas'] is pandas)") == "True"
    # an OR-Tools that needs more of pandas at import: the stand-in is dropped and pandas imported
    needy = ("import importlib.abc, sys\n"
             "class Needy(importlib.abc.MetaPathFinder):\n"
             "    def find_spec(self, name, path, target=None):\n"
             "        pd = sys.modules.get('pandas')\n"
             "        if name == 'ortools.sat.python.cp_model' and pd is not None and not hasattr(pd, 'DataFrame'):\n"
             "            raise ImportError('needs pandas.DataFrame')\n"
             "sys.meta_path.insert(0, Needy())\n")
    assert _fresh(needy + SOLVE_ONE + "print(hasattr(sys.modules['pandas'], 'DataFrame'))") == "True"



BOOK_5X5 = (Cage("+", 6, ((0, 0), (1, 0))), Cage("=", 4, ((0, 1),)), Cage("*", 15, ((0, 2), (1, 2))),
            Cage("=", 2, ((0, 3),)), Cage("/", 2, ((0, 4), (1, 3), (1, 4))), Cage("=", 3, ((1, 1),)),
            Cage("+", 11, ((2, 0), (2, 1), (3, 0))), Cage("-", 2, ((2, 2), (3, 2), (3, 3))),
            Cage("=", 3, ((2, 3),)), Cage("*", 60, ((2, 4), (3, 4), (4, 3), (4, 4))), Cage("=", 1, ((3, 1),)),
            Cage("+", 5, ((4, 0), (4, 1))), Cage("=", 4, ((4, 2),)))  # its L-shaped '2/' and '2-': a book's rule
BOOK_SOLUTION = ((5, 4, 3, 2, 1), (1, 3, 5, 4, 2), (2, 5, 1, 3, 4), (4, 1, 2, 5, 3), (3, 2, 4, 1, 5))


def test_a_puzzle_with_a_books_three_cell_minus_and_divide_is_solved_by_that_rule():
    s = solve(Puzzle(5, BOOK_5X5), require_unique=True)
    assert s.grid == BOOK_SOLUTION  # E1 D2 E2: 4 / (2 x 1); C3 C4 D4: 5 - (1 + 2)
    assert check_grid(Puzzle(5, BOOK_5X5), s.grid) == []


def test_a_books_minus_too_big_to_list_is_constrained_by_its_largest_digit(monkeypatch):
    listed = solver._table
    monkeypatch.setattr(solver, "_table", lambda cage, n: None if cage.book_rule else listed(cage, n))
    puzzle = Puzzle(5, tuple(c for c in BOOK_5X5 if c.op != "/") + (Cage("+", 7, ((0, 4), (1, 3), (1, 4))),))
    s = solve(puzzle)  # (the '/' cage made a sum: too many tuples raise for a book's quotient)
    assert check_grid(puzzle, s.grid) == []
    cells = [s.grid[r][c] for r, c in ((2, 2), (3, 2), (3, 3))]
    assert 2 * max(cells) - sum(cells) == 2
    with pytest.raises(InvalidPuzzle, match="book's rule"):
        solve(Puzzle(5, BOOK_5X5))
