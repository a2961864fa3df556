"""Real hands (devtools/hands.py): the writers' split, a digit written at a size, the scenes written in them."""

import random
from dataclasses import replace

import numpy as np
import pytest

from devtools import hands


def _ring(side=28):
    """A 0 drawn as MNIST draws digits: a ring of ink in a 28x28 box."""
    yy, xx = np.mgrid[0:side, 0:side]
    r = np.hypot(yy - 14, (xx - 14) * 1.4)
    return (np.clip(1 - abs(r - 8) / 2.5, 0, 1) * 255).astype(np.uint8)


def test_a_digit_is_written_as_high_as_asked():
    for height in (12, 40, 150):
        ink = hands.draw(_ring(), height, random.Random(0), pen=0.4)
        ys = np.nonzero(ink.max(axis=1) > 127)[0]
        assert abs((ys.max() - ys.min() + 1) - height) <= max(2, 0.15 * height)  # less its soft edge


def test_a_finer_pen_leaves_less_ink():
    fine = hands.draw(_ring(), 80, random.Random(0), pen=0.7).sum()
    marker = hands.draw(_ring(), 80, random.Random(0), pen=0.2).sum()
    assert marker > 1.3 * fine


def test_a_fine_pen_thins_a_stroke_but_never_cuts_it():
    ring = _ring().astype(np.float32)
    ring[:, 20:] *= 0.6  # the ring's right side written thinly: 60% of a pixel covered at most
    digit = ring.astype(np.uint8)
    for pen in (0.5, 0.65, 0.75):
        ink = hands.draw(digit, 80, random.Random(0), pen=pen) > 127
        assert hands._shape(ink) == (1, 1)  # one stroke, one loop: still a 0, not a C
    assert hands.draw(digit, 80, random.Random(0), pen=0.75).sum() < hands.draw(digit, 80, random.Random(0), pen=0.5).sum()


def _bar():
    """A 1 drawn as MNIST draws digits: a thin upright stroke."""
    digit = np.zeros((28, 28), np.uint8)
    digit[4:24, 13:16] = 255
    return digit


def test_an_envelope_hand_is_stretched_to_a_square_and_coarse():
    """'envelope': the ink's box stretched to a square, as postal scans keep digits: a 1 as wide as high."""
    mnist = hands.draw(_bar(), 80, random.Random(0), pen=0.4) > 127
    envelope = hands.draw(_bar(), 80, random.Random(0), pen=0.4, style="envelope") > 127
    width = [int(np.ptp(np.nonzero(ink.max(axis=0))[0])) + 1 for ink in (mnist, envelope)]
    assert width[0] < 25 and width[1] > 60


def test_a_pencil_hand_is_grey_and_grainy_with_the_same_strokes():
    mnist = hands.draw(_ring(), 80, random.Random(0), pen=0.4)
    pencil = hands.draw(_ring(), 80, random.Random(0), pen=0.4, style="pencil")
    stroke = mnist > 250
    assert pencil[stroke].mean() < 0.8 * 255 and pencil[stroke].std() > 20  # grey, uneven along the stroke
    assert not pencil[mnist == 0].any()  # no ink off the stroke
    with pytest.raises(ValueError):
        hands.draw(_ring(), 80, random.Random(0), style="chalk")


def test_placed_ink_is_cut_off_at_the_canvas():
    disc = (np.hypot(*np.mgrid[-14:14, -14:14]) < 9).astype(np.uint8) * 255
    ink = hands.placed(disc, 20, (5.0, 5.0), (40, 30), random.Random(1))
    assert ink.shape == (30, 40)
    assert ink[:10, :10].max() > 0 and ink[20:, 20:].max() == 0


@pytest.mark.needs_handwriting
def test_the_writers_are_split_once_apart_with_both_series_in_each():
    split = {name: set(hands.writers(name)) for name in hands.SPLITS}
    assert sum(map(len, split.values())) == 539
    assert not (split["train"] & split["dev"]) and not (split["train"] & split["locked"])
    assert not (split["dev"] & split["locked"])
    for ids in split.values():  # series 0 (ids 0..288) and series 4 (2100..2349) in every split
        assert any(w < 1000 for w in ids) and any(w >= 2100 for w in ids)
    images, labels, who = hands.digits("dev")
    assert len(images) == len(labels) == len(who) and set(who) <= split["dev"]


@pytest.mark.needs_handwriting
def test_a_blank_scene_is_the_filled_one_with_nothing_written():
    from devtools.scenes import scene

    filled = scene("filled", 3, mode="hand-big", wrong=1)
    blank = scene("filled", 3, mode="hand-big", wrong=1, blank=True)
    assert [t.solution for t in filled.puzzles] == [t.solution for t in blank.puzzles]
    assert [t.corners for t in filled.puzzles] == [t.corners for t in blank.puzzles]
    assert all(t.fill is not None and not t.fill.answers and not t.fill.pencil for t in blank.puzzles)
    assert any(t.fill is not None and t.fill.answers for t in filled.puzzles)
    a, b = filled.image.astype(int), blank.image.astype(int)
    assert a.shape == b.shape
    x0, y0, x1, y1 = (int(v) for v in filled.puzzles[0].box)
    outside = np.ones(a.shape[:2], bool)
    outside[max(0, y0 - 2):y1 + 2, max(0, x0 - 2):x1 + 2] = False
    assert np.abs(a - b)[outside].max() == 0  # only the grid differs
    assert np.abs(a - b)[~outside].max() > 100  # where the answers are written


@pytest.mark.needs_handwriting
def test_a_scene_in_a_real_hand_of_the_working_themes_takes_a_dev_writer():
    """Train and held-out themes alike (the locked writers write only in the locked split's scenes:
    tests/test_locked_split.py)."""
    from devtools.scenes import scene

    for heldout in (False, True):
        sc = scene("filled", 5, heldout=heldout, mode="hand")
        writer = int(next(n for n in sc.notes if "writer=" in n).split("writer=")[1].split()[0])
        assert writer in hands.writers("dev")


@pytest.mark.needs_handwriting
def test_a_scene_whose_hand_looks_otherwise_is_the_same_scene_otherwise():
    """scene(..., hand_style=...): the same puzzles, answers and places; only the written ink differs."""
    from devtools.scenes import scene

    mnist = scene("filled", 3, mode="hand", wrong=1)
    pencil = scene("filled", 3, mode="hand", wrong=1, hand_style="pencil")
    assert [t.fill for t in mnist.puzzles] == [replace(t.fill, hand_style="mnist") for t in pencil.puzzles]
    assert any("hand_style=pencil" in n for n in pencil.notes) and not any("hand_style" in n for n in mnist.notes)
    a, b = mnist.image.astype(int), pencil.image.astype(int)
    assert a.shape == b.shape and np.abs(a - b).max() > 100
    assert (np.abs(a - b).max(axis=2) > 0).mean() < 0.1  # the written ink, not the page
