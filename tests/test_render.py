"""Render: the answer drawn into the original picture, with the labels it was unsure of."""

import dataclasses
import random
from pathlib import Path

import cv2
import numpy as np

from devtools.generate import random_puzzle
from devtools.synth import TRAIN_FONTS, available, render
from kkvision.pipeline import Options, read_image
from kkvision.render import Drawing, draw


def _solved(n: int, seed: int):
    puzzle, grid = random_puzzle(n, seed=seed)
    image, _ = render(puzzle, "clean", random.Random(seed), available(TRAIN_FONTS))
    data = cv2.imencode(".png", cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR))[1].tobytes()
    picture, reading = read_image(Path("x.png"), data, Options(ocr="model"))
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
