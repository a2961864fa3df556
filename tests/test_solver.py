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
