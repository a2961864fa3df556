"""Stage 3b: labels a written answer covers in part, read from what shows of them (vision/hidden.py)."""

import itertools

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from devtools.synth import TRAIN_FONTS, available
from kkvision.vision import hidden, labels
from kkvision.vision.clues import clue_for
from kkvision.vision.stages import BorderChange, CageLayout, ClueReading, Contents, GridGeometry
from kkvision.vocab import PART_SHOWN

N, CELL = 4, 150


def _brute_ctc(probs: np.ndarray, text: list[int]) -> float:
    """P(text) as the sum over every column path that collapses to it (repeats merged, blanks dropped)."""
    total = 0.0
    for path in itertools.product(range(probs.shape[1]), repeat=probs.shape[0]):
        out: list[int] = []
        last = 0
        for k in path:
            if k != 0 and k != last:
                out.append(k)
            last = k
        if out == text:
            total += float(np.prod([probs[t, k] for t, k in enumerate(path)]))
    return total


def test_ctc_likelihoods_are_the_sum_over_every_path_of_the_columns():
    rng = np.random.default_rng(3)
    probs = rng.dirichlet(np.ones(4), size=5)  # 5 columns, the blank and 3 characters
    targets = [[1], [1, 2], [2, 2], [3, 1, 3], [1, 1, 1]]
    got = np.exp(hidden._ctc_log_likelihoods(np.log(probs), targets))
    want = [_brute_ctc(probs, t) for t in targets]
    assert got == pytest.approx(want, rel=1e-9)


def test_candidates_are_every_clue_the_cage_can_take_and_nothing_else():
    pair = ((0, 0), (0, 1))
    texts = set(hidden.candidates(pair, 4))
    assert {"3-", "2/", "4/", "7+", "12*", "12", "1-"} <= texts
    assert not {"4-", "5/", "9+", "0"} & texts  # no two digits up to 4 make these
    assert all(clue_for(t, pair, 4) is not None for t in texts)
    single = hidden.candidates(((2, 2),), 4)
    assert single == ("1", "2", "3", "4")
    trio = set(hidden.candidates(((0, 0), (0, 1), (1, 0)), 6))
    assert {"6+", "15+", "120*", "30*"} <= trio and not {"2-", "3/"} & trio


def _geometry() -> GridGeometry:
    side = float(N * CELL)
    lines = tuple(float(k * CELL) for k in range(N + 1))
    return GridGeometry(N, ((0.0, 0.0), (side, 0.0), (side, side), (0.0, side)), lines, lines, homography=np.eye(3))


def _layout(changed: tuple[BorderChange, ...] = ()) -> CageLayout:
    """A 4x4 layout (read_hidden asks only which borders were changed to agree with the labels)."""
    cages = (((0, 0), (0, 1), (1, 0)),) + tuple(((r, c),) for r in range(N) for c in range(N)
                                               if (r, c) not in ((0, 0), (0, 1), (1, 0)))
    flat = tuple((False,) * (N - 1) for _ in range(N))
    return CageLayout(cages, flat, flat, 0.5, changed=changed)


def _labelled(text: str) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A 4x4 grid's square with `text` as the label of A1, and the pixel box of its characters but the first
    and the last (the middle of the label, where an answer's stroke is to cover it)."""
    paths = available(TRAIN_FONTS)
    if not paths:
        pytest.skip("fonts not installed (scripts/setup.sh installs them)")
    img = Image.new("L", (N * CELL, N * CELL), 255)
    d = ImageDraw.Draw(img)
    for k in range(N + 1):
        d.line([(k * CELL, 0), (k * CELL, N * CELL)], fill=0, width=3)
        d.line([(0, k * CELL), (N * CELL, k * CELL)], fill=0, width=3)
    font = ImageFont.truetype(str(paths[0]), int(0.24 * CELL / 0.72))
    x, y = 0.07 * CELL, 0.06 * CELL
    box = d.textbbox((0, 0), text, font=font)
    d.text((x - box[0], y - box[1]), text, font=font, fill=0)
    first = d.textbbox((x - box[0], y - box[1]), text[0], font=font)
    upto = d.textbbox((x - box[0], y - box[1]), text[:-1], font=font)
    return np.asarray(img).copy(), (int(first[2]) + 1, int(first[1]) - 2, int(upto[2]), int(upto[3]) + 2)


def _covered(text: str) -> tuple[np.ndarray, Contents]:
    """The square with A1's label's middle taken out as the content stage takes an answer's ink out
    (painted paper), and the contents saying so."""
    square, (x0, y0, x1, y1) = _labelled(text)
    ink = np.zeros_like(square)
    ink[y0:y1, x0:x1] = 255
    ink[y1:int(0.9 * CELL), int(0.3 * CELL):int(0.5 * CELL)] = 255  # the rest of the answer's stroke, below
    square[ink > 0] = 255
    return square, Contents(((0, 0),), ink)


def test_a_label_an_answer_covers_in_part_is_read_as_the_clues_its_strokes_fit():
    square, contents = _covered("10+")
    cage = ((0, 0), (0, 1), (1, 0))
    clues = (ClueReading(cage, (("1+", 0.9),)), ClueReading(((3, 3),), (("2", 0.99),)))
    read = hidden.read_hidden(square, _geometry(), contents, _layout(), clues, (labels.MODEL,))
    again = read[0]
    assert again.source == PART_SHOWN and read[1] == clues[1]  # a label the answer does not touch is kept
    texts = dict(again.texts)
    assert all(clue_for(t, cage, N) is not None for t in texts)  # only clues: a cage has one
    assert sum(texts.values()) <= 1.0 + 1e-9
    assert "10+" in texts and texts["10+"] > 0.01
    # what shows rules out clues it does not fit: no product, nothing without the '1' in front
    assert not any(t.endswith("*") for t in list(texts)[:5])
    assert texts["10+"] > texts.get("9+", 0.0) and texts["10+"] > texts.get("6+", 0.0)


def test_a_given_label_a_reader_without_columns_and_a_mended_cage_are_left_as_they_are():
    square, contents = _covered("10+")
    cage = ((0, 0), (0, 1), (1, 0))
    given = (ClueReading(cage, (("10+", 1.0),), "given"),)
    assert hidden.read_hidden(square, _geometry(), contents, _layout(), given, (labels.MODEL,)) == given
    plain = (ClueReading(cage, (("1+", 0.9),)),)
    assert hidden.read_hidden(square, _geometry(), contents, _layout(), plain, ()) == plain
    assert hidden.read_hidden(square, _geometry(), Contents(()), _layout(), plain, (labels.MODEL,)) == plain
    # a cage whose borders were changed to agree with where labels are: an answer's strokes may have split it
    mended = _layout((BorderChange((0, 1), (0, 2), True),))
    assert hidden.read_hidden(square, _geometry(), contents, mended, plain, (labels.MODEL,)) == plain
    assert hidden.read_hidden(square, _geometry(), contents, _layout(), plain, (labels.MODEL,)) != plain


def test_the_columns_an_answer_covers_and_those_beside_them_are_freed():
    cover = np.zeros((labels.CROP_H, labels.CROP_W), np.float32)
    top = round((hidden.LABEL_BAND[0] - labels.CROP_TOP) / (labels.CROP_BOTTOM - labels.CROP_TOP) * labels.CROP_H)
    cover[top + 2:top + 12, 40:48] = 1.0  # columns 10 and 11
    freed = hidden._occluded(cover)
    assert list(np.flatnonzero(freed)) == list(range(10 - hidden.NEXT_TO, 12 + hidden.NEXT_TO))
    below = np.zeros_like(cover)
    below[-6:, :] = 1.0  # an answer below the label's band hides nothing of it
    assert not hidden._occluded(below).any()
