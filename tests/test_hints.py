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


def _progress(grid, cells):
    """The solution with only `cells` written (a partly solved grid)."""
    return tuple(tuple(v if (r, c) in cells else 0 for c, v in enumerate(row)) for r, row in enumerate(grid))


def test_cells_written_wrong_come_first_with_why_and_filled_cells_are_never_revealed():
    puzzle, grid = random_puzzle(6, seed=31)
    written = {(r, c) for r in range(6) for c in range(6) if (r * 7 + c * 3) % 4 == 0}
    progress = [list(row) for row in _progress(grid, written)]
    r, c = next(cell for cell in sorted(written) if sum(rr == cell[0] for rr, _ in written) > 1)
    other = next(k for k in range(6) if k != c and (r, k) in written)
    progress[r][c] = grid[r][other]  # a repeat of a digit written in its row
    found = hints(puzzle, grid, 3, tuple(map(tuple, progress)))
    first = found[0]
    assert first.wrong and first.cell == (r, c) and first.holds == grid[r][other] and first.digit == grid[r][c]
    assert f"row {r + 1} has {grid[r][other]} at" in first.reason
    nxt = [h for h in found if not h.wrong]
    assert len(nxt) == 3 and all(h.cell not in written for h in nxt)
    assert all(grid[h.cell[0]][h.cell[1]] == h.digit for h in nxt)


def test_a_wrong_digit_that_breaks_its_cage_is_named_with_the_cage():
    puzzle = Puzzle(3, (Cage("+", 3, ((0, 0), (0, 1))), Cage("=", 3, ((0, 2),)), Cage("+", 5, ((1, 0), (2, 0))),
                        Cage("*", 6, ((1, 1), (1, 2), (2, 1), (2, 2)))))
    grid = ((1, 2, 3), (2, 3, 1), (3, 1, 2))
    progress = ((3, 0, 0), (0, 0, 0), (0, 0, 0))  # A1=3: 3+? can never be 3
    (first, *rest) = hints(puzzle, grid, 1, progress)
    assert first.wrong and first.cell == (0, 0) and "cage 3+ at A1" in first.reason
    assert rest and not rest[0].wrong and rest[0].cell != (0, 0)


def test_a_hint_on_a_picture_with_a_wrong_digit_names_that_cell_first(samples, tmp_path, capsys):
    import cv2

    from kkvision.pipeline import Options, read_source
    from kkvision.render import Drawing, draw
    from kkvision.sources import Source

    src = tmp_path / "p.jpg"
    src.write_bytes((samples / "photo-6x6.jpg").read_bytes())
    result = read_source(Source(str(src), src), Options()).outcomes[0].result
    solution = [list(r) for r in result.solution]
    shown = [[v if (r + c) % 3 == 0 else 0 for c, v in enumerate(row)] for r, row in enumerate(solution)]
    shown[3][0] = solution[3][0] % 6 + 1  # A4 written wrong
    picture = cv2.imread(str(src))
    filled = tmp_path / "mine.png"
    cv2.imwrite(str(filled), draw(picture, [Drawing(result.geometry, tuple(map(tuple, shown)), result.labels)]))
    assert main(["hint", "--json", str(filled), "--cells", "2"]) == 0
    rec = json.loads(capsys.readouterr().out)
    first, *rest = rec["hints"]
    assert first["cell"] == "A4" and first["wrong"] and first["holds"] == shown[3][0] and first["digit"] is None
    assert len(rest) == 2 and not any(h["wrong"] for h in rest)
    for h in rest:
        col, row = ord(h["cell"][0]) - ord("A"), int(h["cell"][1:]) - 1
        assert shown[row][col] == 0 and h["digit"] == solution[row][col]  # never a filled cell
    assert (tmp_path / "mine.hint.png").exists()


def test_a_typed_progress_file_gives_the_same_hints(samples, tmp_path, capsys):
    puzzle_file = samples / "kk0.j.txt"
    solution = [[int(v) for v in line.split()] for line in (samples / "kk0.solution.txt").read_text().split("\n")
                if line.strip()]
    n = len(solution)
    mine = [["." if (r + c) % 2 else str(solution[r][c]) for c in range(n)] for r in range(n)]
    mine[0][0] = str(solution[0][0] % n + 1)
    answers = tmp_path / "mine.txt"
    answers.write_text("\n".join(" ".join(row) for row in mine) + "\n")
    assert main(["hint", str(puzzle_file), str(answers)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A1 is wrong: A1 holds")
    assert len(out) == 2 and " = " in out[1]
