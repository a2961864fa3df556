"""Render: the answer drawn into the original picture, with the labels it was unsure of."""

import dataclasses
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from devtools.generate import random_puzzle
from devtools.synth import TRAIN_FONTS, available, render
from kkvision.pipeline import Options
from kkvision.render import Drawing, draw
from kkvision.vision.read import read_page
from kkvision.vision.stages import Reading


def _solved(n: int, seed: int):
    puzzle, grid = random_puzzle(n, seed=seed)
    image, _ = render(puzzle, "clean", random.Random(seed), available(TRAIN_FONTS))
    picture = cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)
    _, [(_, reading)] = read_page(picture, "x.png", Options(ocr="model"))  # as `kkvision solve` reads it
    assert isinstance(reading, Reading)
    return picture, reading


def _orange(picture: np.ndarray) -> np.ndarray:
    b, g, r = (picture[..., i].astype(int) for i in range(3))
    return (r > 200) & (g > 60) & (g < 150) & (b < 60)


def test_a_changed_label_is_drawn_in_its_cell_and_nothing_else_is_orange():
    picture, reading = _solved(5, 31)
    assert all(not lb.unsure for lb in reading.labels)
    plain = draw(picture, [Drawing(reading.geometry, reading.grid, reading.labels)])
    assert not _orange(plain).any()
    k = max(range(len(reading.labels)), key=lambda i: reading.labels[i].used.target)
    changed = dataclasses.replace(reading.labels[k], how="changed", used_probability=0.3)
    labels = reading.labels[:k] + (changed,) + reading.labels[k + 1:]
    marked = draw(picture, [Drawing(reading.geometry, reading.grid, labels)])
    ys, xs = np.nonzero(_orange(marked))
    assert len(xs) > 20
    # all of it in the top half of that label's cell, in the picture
    r, c = changed.used.anchor
    corners = reading.geometry.to_image(np.array([reading.geometry.cell_box(r, c)[:2],
                                                  reading.geometry.cell_box(r, c)[2:]], np.float64))
    (x0, y0), (x1, y1) = corners
    h = y1 - y0
    assert x0 - 2 <= xs.min() and xs.max() <= x1 + 2 and y0 - 2 <= ys.min() and ys.max() <= y0 + 0.5 * h


def test_answers_stand_out_from_dim_paper_and_stay_blue():
    """On a dim photo's paper the answer blue (grey 72) is drawn darker, keeping its hue, so that
    it stays ANSWER_CONTRAST grey levels below the paper (readable by the user and by `check` of the
    answer picture); on white paper it is drawn as it is."""
    from kkvision.render import ANSWER_CONTRAST, SOLUTION

    picture, reading = _solved(4, 5)
    grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    for paper, darker in ((100, True), (245, False)):
        dim = np.where(grey[..., None] > 160, np.uint8(paper), picture).astype(np.uint8)
        out = draw(dim, [Drawing(reading.geometry, reading.grid)])
        b, g, r = (out[..., i].astype(int) for i in range(3))
        digits = (b > r + 40) & (b > g + 20)  # blue
        assert digits.sum() > 200
        core = cv2.cvtColor(out, cv2.COLOR_BGR2GRAY)[digits]
        if darker:
            assert np.percentile(core, 50) <= paper - ANSWER_CONTRAST + 3
        else:
            assert abs(np.percentile(core, 10) - (0.299 * SOLUTION[0] + 0.587 * SOLUTION[1] + 0.114 * SOLUTION[2])) < 4


def _with_notes(picture: np.ndarray, geometry, cells) -> tuple[np.ndarray, np.ndarray]:
    """The picture with an app's pencil marks (dark red 1 2 3 / 4 5 6, a fifth of the cell high, under
    where a label ends and down to the cell's foot) in `cells`, and the mask of their ink."""
    out = picture.copy()
    for r, c in cells:
        x0, y0, x1, y1 = geometry.cell_box(r, c)
        (px0, py0), (px1, py1) = geometry.to_image(np.array([[x0, y0], [x1, y1]], np.float64))
        w, h = px1 - px0, py1 - py0
        for i, mark in enumerate("123456"):
            at = (int(px0 + (0.15 + 0.27 * (i % 3)) * w), int(py0 + (0.58 + 0.36 * (i // 3)) * h))
            cv2.putText(out, mark, at, cv2.FONT_HERSHEY_SIMPLEX, h / 130, (0, 0, 128), max(1, int(h / 40)))
    return out, np.any(out != picture, axis=2)


def test_an_answer_drawn_over_pencil_marks_clears_them_and_nothing_else():
    """An answer drawn into a cell with a player's notes lays the cell's paper over the notes that reach
    into the answer's place first (as an app clears them when an answer is entered): the answer is read
    back surely; the labels, the lines and every other cell are drawn as before."""
    from kkvision.answers import read_written

    picture, reading = _solved(4, 7)
    geom = reading.geometry
    starts = {lb.used.anchor for lb in reading.labels}
    cells = [next(rc for rc in ((r, c) for r in range(4) for c in range(4)) if rc in starts),
             next(rc for rc in ((r, c) for r in range(4) for c in range(4)) if rc not in starts)]
    noted, ink = _with_notes(picture, geom, cells)
    out = draw(noted, [Drawing(geom, reading.grid, reading.labels)])
    plain = draw(picture, [Drawing(geom, reading.grid, reading.labels)])
    b, g, r = (out[..., i].astype(int) for i in range(3))
    red = (r > b + 40) & (r > g + 40)
    assert ink.sum() > 300 and (red & ink).sum() < 0.05 * ink.sum()  # the notes are gone
    assert np.array_equal(out[~cv2.dilate(ink.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)],
                          plain[~cv2.dilate(ink.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)])
    written = read_written(out, geom, reading.grid)
    assert [written.answers[rr][cc] for rr, cc in cells] == [reading.grid[rr][cc] for rr, cc in cells]
    assert not set(cells) & set(written.unsure)


def _no_paper(monkeypatch, picture, drawings):
    import kkvision.render as rendering

    with monkeypatch.context() as m:
        m.setattr(rendering, "_paper_under", lambda *args: None)
        return draw(picture, drawings)


def test_no_paper_is_laid_where_a_photo_has_no_notes(monkeypatch, samples):
    """A photo's noise, shadows and thick lines are no pencil marks: nothing is laid over them."""
    from kkvision.api import solve_image

    result = solve_image(samples / "photo-6x6.jpg")
    picture = cv2.imread(str(samples / "photo-6x6.jpg"))
    drawings = [Drawing(result.geometry, result.solution, result.labels)]
    assert np.array_equal(draw(picture, drawings), _no_paper(monkeypatch, picture, drawings))


@pytest.mark.needs_shared
@pytest.mark.parametrize("name", ["IMG_0660.JPG", "IMG_0708.JPG"])
def test_no_paper_is_laid_on_dark_noisy_book_photos(monkeypatch, name):
    """Two book photos where a first rule took noise along thick lines, and a shadow's edge, for notes."""
    from kkvision.api import solve_image

    path = Path(__file__).resolve().parents[2] / "shared" / "real-dev" / "dlowe" / name
    result = solve_image(path)
    picture = cv2.imread(str(path))
    drawings = [Drawing(result.geometry, result.solution, result.labels)]
    assert np.array_equal(draw(picture, drawings), _no_paper(monkeypatch, picture, drawings))


@pytest.mark.parametrize("seed", range(6))
def test_the_warp_of_a_cells_inked_box_is_the_warp_of_the_whole_cell_where_it_inks(seed):
    """_draw_one warps only a cell's inked box (render._warped_part): every pixel the whole cell's warp
    inks is in the part, with the same value (to the warp's fixed-point rounding), shrunk, enlarged
    (a 20 MP photo's cells are bigger than the layer's) and seen at a slant."""
    from kkvision.render import _inked, _warped_part

    rng = np.random.default_rng(seed)
    piece = np.zeros((100, 100, 4), np.uint8)
    x, y = rng.integers(5, 60, 2)
    cv2.putText(piece, str(rng.integers(1, 10)), (int(x), int(y) + 30), cv2.FONT_HERSHEY_SIMPLEX, 1.2,
                (20, 70, 220, 255), 3, cv2.LINE_AA)
    scale = [0.6, 1.0, 3.3][seed % 3]
    size = (int(100 * scale) + 6, int(100 * scale) + 6)
    src = np.float32([[0, 0], [100, 0], [100, 100], [0, 100]])
    dst = (src * scale + 3 + rng.uniform(-0.08, 0.08, (4, 2)) * 100 * scale).astype(np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    whole = cv2.warpPerspective(piece, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=(0, 0, 0, 0))
    (px, py), part = _warped_part(piece, H, _inked(np.ascontiguousarray(piece[..., 3])), size)
    pasted = np.zeros_like(whole)
    pasted[py:py + part.shape[0], px:px + part.shape[1]] = part
    assert whole[..., 3].any()
    assert np.abs(whole.astype(int) - pasted.astype(int)).max() <= 1
    assert not (whole[..., 3] > 1)[pasted[..., 3] == 0].any()


def test_a_blank_cell_has_no_inked_box():
    from kkvision.render import _inked

    assert _inked(np.zeros((30, 40), np.uint8)) is None
    alpha = np.zeros((30, 40), np.uint8)
    alpha[10:12, 0:3] = 9
    assert _inked(alpha) == (0, 9, 4, 4)  # widened by a pixel, within the cell
