import pytest

from kkvision import formats
from kkvision.errors import Ambiguous, Unsolvable
from kkvision.generate import random_puzzle
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
    puzzle, grid = random_puzzle(4, seed=11, hidden_ops=True)
    s = solve(puzzle)
    assert check_grid(puzzle, s.grid) == []
    if s.unique:
        assert s.grid == grid


def test_ambiguous_puzzle_is_reported():
    rows = tuple(Cage("+", 6, tuple((r, c) for c in range(3))) for r in range(3))
    s = solve(Puzzle(3, rows))
    assert not s.unique and s.other is not None and s.other != s.grid
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
    assert not s.unique and s.other is not None


def test_choose_readings_changes_the_fewest_labels():
    from kkvision.solver import choose_readings

    puzzle, grid = random_puzzle(5, seed=3)
    wrong = list(puzzle.cages)
    k = next(i for i, c in enumerate(wrong) if c.op == "+")
    bad = Cage("+", wrong[k].target + 1, wrong[k].cells)
    candidates = [[c] for c in wrong]
    candidates[k] = [bad, wrong[k]]  # the misread first, the truth as an alternative
    found = choose_readings(5, candidates)
    assert found is not None
    chosen, solved, unique = found
    assert chosen[k] == wrong[k] and solved == grid and unique
    assert choose_readings(5, [[bad]] + [[c] for i, c in enumerate(wrong) if i != k]) is None


def test_an_unreadable_label_can_be_left_out():
    from kkvision.solver import choose_readings

    puzzle, grid = random_puzzle(5, seed=8)
    candidates = [[c] for c in puzzle.cages]
    k = max(range(len(candidates)), key=lambda i: len(puzzle.cages[i].cells))
    candidates[k] = [None]  # that label could not be read
    found = choose_readings(5, candidates)
    assert found is not None
    chosen, solved, unique = found
    assert chosen[k] is None
    if unique:  # the other labels pin the grid down: it must be the true one
        assert solved == grid
