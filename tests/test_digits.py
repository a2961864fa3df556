"""The cell-digit reader (vision/digits.py): the crop's ink measures and the shipped model on hands."""

import random

import cv2
import numpy as np
import pytest

from kkvision.vision import digits


def _cell(side=120, line=0, paper=245):
    """A printed cell: paper and its four grid lines."""
    img = np.full((side, side), paper, np.uint8)
    for k in (0, side - 1):
        img[:, max(0, k - 1):k + 2] = line
        img[max(0, k - 1):k + 2, :] = line
    return img


def test_an_empty_cell_has_no_ink_where_an_answer_goes():
    img = _cell()
    box = (0.0, 0.0, 120.0, 120.0)
    assert digits.ink_contrast(img, box) < 5
    assert digits.line_contrast(img, box) > 200


def test_a_faint_streak_is_below_an_answer_and_a_written_digit_above():
    box = (0.0, 0.0, 120.0, 120.0)
    streak = _cell()
    streak[20:110, 58:61] = 245 - 18  # a photo's faint streak
    assert digits.ink_contrast(streak, box) < digits.FAINT_INK
    written = _cell()
    cv2.putText(written, "4", (42, 100), cv2.FONT_HERSHEY_SIMPLEX, 2.0, 120, 5)  # a grey pen
    assert digits.ink_contrast(written, box) > digits.FAINT_INK
    assert digits.ink_contrast(written, box) > 2 * digits.EMPTY_INK_SHARE * digits.line_contrast(written, box)


def test_stroke_drawn_digits_are_read_right_or_not_judged():
    """Digits drawn by stroke synthesis from seeds the training never used: most read right, none surely misread."""
    strokes = pytest.importorskip("devtools.strokes")
    crops, truth = [], []
    for i in range(90):
        rng = random.Random(7_000_000 + i)
        digit, side = 1 + i % 9, rng.randint(60, 140)
        ink = strokes.draw(digit, side, side * rng.uniform(0.4, 0.55), (side * 0.5, side * 0.6), rng)
        cell = _cell(side).astype(np.float32)
        cell = np.clip(cell - (cell - 30) * ink / 255.0, 0, 255).astype(np.uint8)
        crops.append(digits.digit_crop(cell, (0.0, 0.0, float(side), float(side))))
        truth.append(digit)
    probs = digits.read_digits(crops)
    sure = probs.max(axis=1) >= digits.SURE
    read = probs.argmax(axis=1)
    assert not (sure & (read != np.array(truth))).any()
    assert (sure & (read == np.array(truth))).mean() >= 0.85


def test_a_crossing_strikes_through_the_digit_it_is_drawn_over():
    """bench/handwriting.py's crossed-out answers: the hand's strike (a bar, a slash, an X, a scribble)
    runs across the digit's box, past its middle on both sides, and over its ink."""
    strokes = pytest.importorskip("devtools.strokes")
    kinds = set()
    for i in range(40):
        rng = random.Random(8_000_000 + i)
        side = rng.randint(60, 140)
        h, centre = side * rng.uniform(0.4, 0.55), (side * 0.5, side * 0.6)
        digit = strokes.draw(1 + i % 9, side, h, centre, rng)
        strike = strokes.crossing(side, h, centre, rng)
        ys, xs = np.nonzero(strike > 128)
        assert xs.min() < centre[0] - 0.2 * h and xs.max() > centre[0] + 0.2 * h
        assert ys.min() < centre[1] + 0.1 * h and ys.max() > centre[1] - 0.1 * h
        assert ((strike > 40) & (digit > 40)).any()  # (an open 4 may leave a strike only grazing its ink)
        kinds.add(len(ys))
    assert len(kinds) > 20  # not one fixed stroke


def test_the_network_sees_the_whole_cell_so_a_big_answer_keeps_its_top():
    """An answer as big as the cell: the bar of a 7 near the cell's top line is in the crop."""
    img = _cell(120)
    img[12:20, 20:100] = 20  # the bar, just under the top line
    crop = digits.digit_crop(img, (0.0, 0.0, 120.0, 120.0))
    rows = crop.shape[0]
    assert crop[: rows // 6].max() > 0.8
    assert digits.ink_contrast(_cell(120), (0.0, 0.0, 120.0, 120.0)) < 5  # the lines stay out of the ink test


def test_the_digit_model_is_calibrated_by_a_fitted_temperature():
    """The training script's temperature: logits made three times too sure are brought back."""
    train = pytest.importorskip("devtools.train_digits")
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 11, 4000)
    logits = rng.normal(0, 1, (4000, 11))
    logits[np.arange(4000), truth] += 2.0
    base = train.temperature(logits, truth)
    t = train.temperature(3.0 * logits, truth)
    assert abs(t / base - 3.0) < 0.1
    too_sure = train.calibration_error(train.softmax(3.0 * logits), truth)
    assert train.calibration_error(train.softmax(3.0 * logits / t), truth) < too_sure / 2
