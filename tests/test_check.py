"""check a filled-in grid from its picture: the cell-digit reader and the marks."""

import json

import cv2
import numpy as np
import pytest

from kkvision.cli import main
from kkvision.errors import ExitCode
from kkvision.pipeline import Options, read_source
from kkvision.render import Drawing, draw
from kkvision.sources import Source


@pytest.fixture
def filled(samples, tmp_path):
    """The photo sample with answers written in: make(grid) -> path of the picture."""
    src = tmp_path / "p.jpg"
    src.write_bytes((samples / "photo-6x6.jpg").read_bytes())
    page = read_source(Source(str(src), src), Options())
    result, picture = page.outcomes[0].result, page.picture

    def make(grid, name="filled.png"):
        path = tmp_path / name
        cv2.imwrite(str(path), draw(picture, [Drawing(result.geometry, tuple(tuple(r) for r in grid), result.labels)]))
        return path

    return make, [list(r) for r in result.solution]


def test_a_correctly_filled_grid_checks_with_nothing_wrong(filled, capsys):
    make, solution = filled
    assert main(["check", "--no-image", str(make(solution))]) == 0
    assert "0 wrong, 0 blank; the grid is complete" in capsys.readouterr().out


def test_one_digit_changed_is_named(filled, capsys):
    make, solution = filled
    wrong = [row[:] for row in solution]
    wrong[2][3] = solution[2][3] % 6 + 1  # D3
    assert main(["check", "--json", "--no-image", str(make(wrong))]) == ExitCode.ANSWERS_WRONG
    rec = json.loads(capsys.readouterr().out)
    assert rec["wrong"] == [[2, 3]] and rec["blank"] == []


def test_empty_cells_are_reported_and_marked(filled, capsys, tmp_path):
    make, solution = filled
    partial = [row[:] for row in solution]
    partial[0][0] = partial[5][5] = 0
    path = make(partial)
    assert main(["check", "--json", str(path)]) == 0  # nothing wrong, only incomplete
    rec = json.loads(capsys.readouterr().out)
    assert rec["blank"] == [[0, 0], [5, 5]] and rec["wrong"] == []
    out = cv2.imread(rec["image"])
    orange = (out[..., 2] > 200) & (out[..., 1] > 100) & (out[..., 1] < 170) & (out[..., 0] < 60)
    assert orange.any()


def test_handwritten_digits_are_read_as_the_training_script_measures():
    """scikit-learn's handwritten digits 1..9 held out from training (odd indices): at least 95%."""
    datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn is a dev extra")
    from kkvision.vision.digits import handwriting_crop, read_digits

    d = datasets.load_digits()
    keep = np.flatnonzero(d.target > 0)[1::2]
    probs = read_digits([handwriting_crop(img / 16.0) for img in d.images[keep]])
    accuracy = float((probs.argmax(axis=1) == d.target[keep]).mean())
    print(f"handwritten digits (scikit-learn, held out): {accuracy:.1%} of {len(keep)}")
    assert accuracy >= 0.95


def _smudge(monkeypatch, cell, n=6):
    """The digit reader made unsure of one cell (0.5 / 0.5 between two digits): the verdict is the subject."""
    from kkvision.vision import digits

    real = digits.read_digits

    def unsure(crops):
        probs = real(crops).copy()
        k = cell[0] * n + cell[1]
        probs[k] = 0.0
        probs[k, 3] = probs[k, 5] = 0.5
        return probs

    monkeypatch.setattr(digits, "read_digits", unsure)


def test_a_cell_not_read_surely_is_never_called_right(filled, capsys, monkeypatch):
    """No wrong cell among those read, one not judged: exit 15 (never 0), listed, shown '?', marked on the picture."""
    make, solution = filled
    path = make(solution)
    _smudge(monkeypatch, (1, 2))
    assert main(["check", "--json", str(path)]) == ExitCode.ANSWERS_UNSURE
    rec = json.loads(capsys.readouterr().out)
    assert rec["unsure"] == [[1, 2]] and rec["wrong"] == [] and rec["blank"] == [] and not rec["ok"]
    out, before = cv2.imread(rec["image"]).astype(int), cv2.imread(str(path)).astype(int)
    purple = (out[..., 2] > 120) & (out[..., 0] > 120) & (out[..., 1] < 60) & (np.abs(out - before).sum(axis=2) > 60)
    ys, xs = np.nonzero(purple)
    assert len(ys) > 50, "the not-judged cell is marked"
    from kkvision.pipeline import read_source as again

    geom = again(Source(str(path), path), Options()).outcomes[0].result.geometry
    x0, y0, x1, y1 = geom.cell_box(1, 2)
    inside = geom.to_image(np.array([[x0, y0], [x1, y1]]))
    assert inside[0, 0] - 5 <= np.median(xs) <= inside[1, 0] + 5 and inside[0, 1] - 5 <= np.median(ys) <= inside[1, 1] + 5
    assert main(["check", "--no-image", str(path)]) == ExitCode.ANSWERS_UNSURE
    text = capsys.readouterr().out
    assert "1 not judged (C2" in text and "?" in text.splitlines()[1]


def test_a_wrong_cell_outranks_a_cell_not_judged(filled, capsys, monkeypatch):
    make, solution = filled
    wrong = [row[:] for row in solution]
    wrong[4][4] = solution[4][4] % 6 + 1
    path = make(wrong)
    _smudge(monkeypatch, (1, 2))
    assert main(["check", "--json", "--no-image", str(path)]) == ExitCode.ANSWERS_WRONG
    rec = json.loads(capsys.readouterr().out)
    assert rec["wrong"] == [[4, 4]] and rec["unsure"] == [[1, 2]]
