"""Hints: cells that follow from the clues by the simplest reasoning, with the reason."""

import json

import pytest

from devtools.generate import random_puzzle
from kkvision.cli import main
from kkvision.hints import hints
from kkvision.puzzle import Cage, Puzzle


@pytest.mark.parametrize("seed", range(12))
def test_hints_are_right_and_never_read_off_the_solution(seed):
    n = 4 + seed % 5
    puzzle, grid = random_puzzle(n, seed=200 + seed)
    found = hints(puzzle, grid, count=n)
    assert found and len({h.cell for h in found}) == len(found)
    assert all(grid[h.cell[0]][h.cell[1]] == h.digit and h.reason for h in found)


def test_a_hint_does_not_depend_on_the_solution_given():
    # the reasoning starts from the clues: a wrong 'solution' makes it stop, loudly
    puzzle = Puzzle(3, (Cage("=", 1, ((0, 0),)), Cage("+", 5, ((0, 1), (0, 2))),
                        Cage("+", 12, ((1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2)))))
    right = ((1, 2, 3), (2, 3, 1), (3, 1, 2))
    assert hints(puzzle, right, 1)[0].cell == (0, 0)
    with pytest.raises(AssertionError, match="A1=1 disagrees with the solution"):  # not any stray assert
        hints(puzzle, ((2, 1, 3), (1, 3, 2), (3, 2, 1)), 1)


def test_hint_on_a_6x6_picture_gives_a_right_cell_and_a_reason(samples, tmp_path, capsys):
    src = tmp_path / "p.jpg"
    src.write_bytes((samples / "photo-6x6.jpg").read_bytes())
    expected = json.loads((samples / "photo-6x6.expected.json").read_text())["solution"]
    assert main(["hint", "--json", str(src), "--cells", "2"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["command"] == "hint" and len(rec["hints"]) == 2 and rec["solution"] is None
    for h in rec["hints"]:
        col, row = ord(h["cell"][0]) - ord("A"), int(h["cell"][1:]) - 1
        assert expected[row][col] == h["digit"] and h["reason"]
    assert (tmp_path / "p.hint.jpg").exists()  # in the input's format
    assert main(["hint", str(src), "--cells", "0"]) == 2
