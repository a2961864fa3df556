import itertools
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kkvision.errors import InvalidPuzzle
from kkvision.puzzle import Cage, Puzzle, cage_tuples, check_grid, prime_exponents, satisfies, target_possible
from kkvision.vision.clues import clue_for


def row_cages(n):
    return tuple(Cage("+", n * (n + 1) // 2, tuple((r, c) for c in range(n))) for r in range(n))


def test_valid_puzzle_sorts_cages_by_anchor():
    p = Puzzle(3, tuple(reversed(row_cages(3))))
    assert [c.anchor for c in p.cages] == [(0, 0), (1, 0), (2, 0)]


@pytest.mark.parametrize(
    "cages, message",
    [
        (row_cages(3)[:2], "cells in no cage: A3, B3, C3"),
        (row_cages(3) + (Cage("=", 1, ((0, 0),)),), "cell A1 is in two cages"),
        # a cage listing its cells out of order is no error of its own: only the missing rows are named
        ((Cage("+", 6, ((0, 0), (0, 2), (0, 1))),), "cells in no cage: A2, B2, C2, A3, B3, C3$"),
    ],
)
def test_partition_errors_name_the_cells(cages, message):
    with pytest.raises(InvalidPuzzle, match=message):
        Puzzle(3, cages)


def test_disconnected_cage_is_named():
    cages = (Cage("+", 4, ((0, 0), (0, 2))), Cage("=", 2, ((0, 1),))) + row_cages(3)[1:]
    with pytest.raises(InvalidPuzzle, match=r"cage 4\+ at A1 is not connected"):
        Puzzle(3, cages)


def test_minus_and_divide_need_two_cells_or_more():
    with pytest.raises(InvalidPuzzle, match="'-' cages have at least 2"):
        Cage("-", 1, ((0, 0),))
    with pytest.raises(InvalidPuzzle, match="needs a single cell"):
        Cage("=", 1, ((0, 0), (0, 1)))
    assert Cage("/", 2, ((0, 0), (0, 1), (1, 0))).book_rule and not Cage("/", 2, ((0, 0), (0, 1))).book_rule


def test_a_books_minus_and_divide_over_three_cells_take_the_largest_less_or_over_the_others():
    assert satisfies("-", 1, (6, 3, 2)) and satisfies("-", 1, (2, 6, 3)) and not satisfies("-", 1, (6, 3, 1))
    assert satisfies("/", 2, (6, 3, 1)) and satisfies("/", 3, (1, 6, 2)) and not satisfies("/", 2, (6, 2, 2))
    assert satisfies("-", 2, (5, 3)) and satisfies("/", 2, (3, 6))  # two cells as ever
    ell = ((0, 0), (0, 1), (1, 0))  # (0, 1) and (1, 0) share neither row nor column: they may be equal
    brute = sorted(t for t in itertools.product(range(1, 7), repeat=3)
                   if t[0] not in (t[1], t[2]) and satisfies("/", 2, t))
    assert cage_tuples(Cage("/", 2, ell), 6) == brute and (2, 1, 1) in brute
    brute = sorted(t for t in itertools.product(range(1, 7), repeat=3)
                   if t[0] not in (t[1], t[2]) and satisfies("-", 0, t))
    assert cage_tuples(Cage("-", 0, ell), 6) == brute and (2, 1, 1) in brute
    assert not target_possible(Cage("-", 5, ell), 6) and target_possible(Cage("-", 4, ell), 6)


def test_impossible_target_is_named():
    cages = (Cage("*", 7, ((0, 0), (0, 1), (0, 2))),) + row_cages(3)[1:]
    with pytest.raises(InvalidPuzzle, match=r"7\* at A1: no digits 1..3"):
        Puzzle(3, cages)


def test_size_limits():
    with pytest.raises(InvalidPuzzle, match="size 2"):
        Puzzle(2, ())


def test_satisfies_each_operator():
    assert satisfies("+", 6, [1, 2, 3])
    assert satisfies("*", 6, [1, 2, 3])
    assert satisfies("-", 2, [1, 3]) and satisfies("-", 2, [3, 1])
    assert satisfies("/", 3, [1, 3]) and not satisfies("/", 3, [2, 3])
    assert satisfies("?", 2, [1, 3])  # 3-1
    assert satisfies("=", 4, [4])


def test_check_grid_reports_rows_and_cages():
    p = Puzzle(3, row_cages(3))
    good = ((1, 2, 3), (2, 3, 1), (3, 1, 2))
    assert check_grid(p, good) == []
    bad = ((1, 2, 3), (1, 3, 2), (3, 1, 2))
    assert any("column A" in m for m in check_grid(p, bad))


@st.composite
def size_and_digits(draw: st.DrawFn) -> tuple[int, list[int]]:
    """A size n and 1..4 different digits up to n (a row's cage: digits must differ)."""
    n = draw(st.integers(3, 7))
    return n, draw(st.lists(st.integers(1, n), min_size=1, max_size=4, unique=True))


@given(size_and_digits(), st.sampled_from("+*"))
def test_cage_tuples_agree_with_satisfies(n_values, op):
    n, values = n_values
    cells = tuple((0, c) for c in range(len(values)))  # a row: digits must differ
    target = sum(values) if op == "+" else __import__("math").prod(values)
    cage = Cage(op, target, cells)
    tuples = cage_tuples(cage, n)
    assert cage_tuples(cage, n, budget=10**6, max_tuples=10**4) == tuples  # small cages: the same
    assert tuple(values) in tuples
    assert all(satisfies(op, target, t) and len(set(t)) == len(t) for t in tuples)
    assert target_possible(cage, n)


def test_cage_tuples_stop_at_their_budget():
    from kkvision.puzzle import TooManyTuples

    row = tuple((0, c) for c in range(9))
    for cage in (Cage("*", 362880, row), Cage("+", 45, row), Cage("?", 362880, row)):
        with pytest.raises(TooManyTuples, match="at A1"):
            cage_tuples(cage, 9, budget=200_000, max_tuples=2_000)
        with pytest.raises(TooManyTuples):
            cage_tuples(cage, 9, budget=1_000)
    small = Cage("*", 24, ((0, 0), (0, 1), (1, 0)))
    assert cage_tuples(small, 6, budget=1_000, max_tuples=100) == cage_tuples(small, 6)


def test_huge_and_prime_targets_are_judged_without_trial_division():
    cells = tuple((0, c) for c in range(9))
    assert not target_possible(Cage("*", 2**61 - 1, cells), 9)  # a prime: used to loop to it
    assert not target_possible(Cage("*", 11 * 2**20, cells), 9)
    assert not target_possible(Cage("?", 10**1000, cells), 9)
    assert target_possible(Cage("*", 2**10 * 3**5 * 5 * 7, cells), 9)
    assert not target_possible(Cage("*", 2**10 * 3**5 * 5 * 7, cells), 9, latin=True)  # over 9!: a row's all differ
    assert prime_exponents(2**3 * 3 * 7, 9) == {2: 3, 3: 1, 5: 0, 7: 1}
    assert prime_exponents(11, 9) is None and prime_exponents(11, 12) == {2: 0, 3: 0, 5: 0, 7: 0, 11: 1}
    assert prime_exponents(0, 9) is None


def test_latin_bounds_count_a_digit_once_per_row_and_column_a_cage_spans():
    def latin(op, target, cells, n):
        return target_possible(Cage(op, target, cells), n, latin=True)

    square = ((0, 0), (0, 1), (1, 0), (1, 1))  # two rows, two columns: 1 1 2 2 at least, 5 5 6 6 at most
    assert not latin("+", 5, square, 6) and latin("+", 6, square, 6)
    assert latin("+", 22, square, 6) and not latin("+", 23, square, 6)
    assert not latin("*", 3, square, 6) and latin("*", 4, square, 6)
    assert target_possible(Cage("+", 5, square), 6)  # without: four 1s and a 1... as a puzzle is checked
    ell = ((0, 0), (0, 1), (1, 0))  # the corner shares a row and a column with the others: 1 + 1 + 2
    assert not latin("+", 3, ell, 6) and latin("+", 4, ell, 6)
    block = tuple((r, c) for r in range(6) for c in range(6))  # a 6x6 block of a 9x9: six of each of 1..6
    assert not latin("?", 7, block, 9)  # a sudoku's digit read as a label of it: no clue
    assert latin("+", 6 * 21, block, 9) and not latin("+", 6 * 21 - 1, block, 9)
    assert clue_for("7", block, 9) is None and clue_for("126+", block, 9) is not None


def test_a_sum_or_product_printed_on_a_single_cell_is_its_given_digit():
    one = ((2, 3),)
    for text in ("7+", "7*", "7×", "7"):
        assert clue_for(text, one, 9) == Cage("=", 7, one)
    assert clue_for("7-", one, 9) is None and clue_for("3/", one, 9) is None  # no difference of one digit
    assert clue_for("12+", one, 9) is None  # no digit of a 9x9
    assert clue_for("7+", ((0, 0), (0, 1)), 9) == Cage("+", 7, ((0, 0), (0, 1)))


def test_puzzle_of_nine_factorial_rows_is_built_at_once():
    # validation never lists tuples (9! per row here: that took a minute)
    t0 = time.perf_counter()
    p = Puzzle(9, tuple(Cage("*", 362880, tuple((r, c) for c in range(9))) for r in range(9)))
    assert len(p.cages) == 9
    assert time.perf_counter() - t0 < 1.0


def test_cells_far_outside_the_grid_are_named_in_messages_not_a_crash():
    from kkvision.errors import InvalidPuzzle
    from kkvision.puzzle import Cage, Puzzle, cell_name

    assert cell_name((0, 0)) == "A1" and cell_name((8, 8)) == "I9"
    assert "9999999999" in cell_name((0, 9999999999))
    with pytest.raises(InvalidPuzzle):
        Puzzle(3, (Cage("=", 1, ((0, 999999999991),)),))
