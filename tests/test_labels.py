"""Stage 3a: the label network, its crops and its decoding."""

import random

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from devtools.synth import HELDOUT_FONTS, TRAIN_FONTS, available
from kkvision.vision import labels
from kkvision.vision.labels import ALPHABET, CROP_H, CROP_W, decode, label_crop, read_labels
from kkvision.vision.stages import LabelReading


def _steps(*chars: str) -> np.ndarray:
    """One column per char ('_' = blank), each 0.9 sure of it."""
    probs = np.full((len(chars), len(ALPHABET) + 1), 0.1 / len(ALPHABET), np.float32)
    for t, ch in enumerate(chars):
        probs[t, 0 if ch == "_" else ALPHABET.index(ch) + 1] = 0.9
    return probs


def test_decode_merges_repeats_unless_a_blank_separates_them():
    assert decode(_steps("1", "1", "_", "+"))[0][0] == "1+"
    assert decode(_steps("1", "_", "1", "+"))[0][0] == "11+"
    assert decode(_steps("_", "_", "_"))[0][0] == ""


def test_decode_gives_the_few_best_texts_with_probabilities():
    probs = _steps("1", "2", "+")
    probs[1] = 0.0
    probs[1, ALPHABET.index("2") + 1], probs[1, ALPHABET.index("7") + 1] = 0.6, 0.4
    texts = decode(probs)
    assert [t for t, _ in texts[:2]] == ["12+", "17+"]
    assert texts[0][1] > texts[1][1] > 0 and sum(p for _, p in texts) <= 1.0 + 1e-6
    assert texts[0][1] == pytest.approx(0.9 * 0.6 * 0.9, rel=0.05)


def test_crop_is_the_top_of_the_cell_in_the_network_shape():
    gray = np.full((300, 300), 230, np.uint8)
    cv2.rectangle(gray, (110, 105), (130, 125), 20, -1)  # ink near the cell's top-left corner
    crop = label_crop(gray, (100.0, 100.0, 200.0, 200.0))
    assert crop.shape == (CROP_H, CROP_W) and crop.dtype == np.float32
    assert crop.max() > 0.9 and crop[:, : CROP_W // 3].mean() > crop[:, CROP_W // 2:].mean()
    empty = label_crop(gray, (100.0, 150.0, 200.0, 250.0))  # the ink is above this cell
    assert empty.max() < 0.2
    edge = label_crop(gray, (250.0, -20.0, 350.0, 80.0))  # reaching past the picture: paper there
    assert edge.shape == (CROP_H, CROP_W) and edge.max() < 0.2


def _cell(text: str, font_path, side: int = 120, cap: float = 0.24) -> tuple[np.ndarray, tuple]:
    img = Image.new("L", (3 * side, 2 * side), 255)
    d = ImageDraw.Draw(img)
    for k in range(4):
        d.line([(k * side, 0), (k * side, 2 * side)], fill=0, width=2)
    for k in range(3):
        d.line([(0, k * side), (3 * side, k * side)], fill=0, width=2)
    font = ImageFont.truetype(str(font_path), int(cap * side / 0.72))
    box = d.textbbox((0, 0), text, font=font)
    d.text((side + 0.06 * side - box[0], side + 0.05 * side - box[1]), text, font=font, fill=0)
    return np.asarray(img), (float(side), float(side), 2.0 * side, 2.0 * side)


CASES_PER_TEXT = 10  # 90 labels a test: with 27, one label more or less read moved a model across the 90% bar


@pytest.mark.parametrize("fonts", [TRAIN_FONTS, HELDOUT_FONTS], ids=["train-fonts", "heldout-fonts"])
def test_the_shipped_model_reads_printed_labels(fonts):
    paths = available(fonts)
    if not paths:
        pytest.skip("fonts not installed (scripts/setup.sh installs them)")
    rng = random.Random(5)
    texts = ["12+", "3-", "240x", "2÷", "7", "1440×", "15+", "4/", ""]
    cases = [(t, rng.choice(paths)) for t in texts for _ in range(CASES_PER_TEXT)]
    crops = [_cell(t, f) for t, f in cases]
    read = []
    for (gray, box) in crops:
        read.append(read_labels(gray, [box])[0].best)
    want = [t.replace("x", "*").replace("×", "*").replace("÷", "/") for t, _ in cases]
    right = sum(a == b for a, b in zip(read, want))
    assert right >= 0.9 * len(cases), list(zip(want, read))


def test_reading_gives_probabilities_best_first():
    paths = available(TRAIN_FONTS)
    if not paths:
        pytest.skip("fonts not installed")
    gray, box = _cell("36*", paths[0])
    reading = read_labels(gray, [box])[0]
    assert reading.best == "36*" and reading.probability > 0.5
    probs = [p for _, p in reading.texts]
    assert probs == sorted(probs, reverse=True)


def test_a_missing_model_is_a_missing_dependency(monkeypatch):
    from kkvision.errors import MissingDependency

    monkeypatch.setattr(labels, "MODEL", "no-such-model.onnx")
    with pytest.raises(MissingDependency):
        labels.probabilities([np.zeros((CROP_H, CROP_W), np.float32)])


def test_use_model_makes_later_loads_read_another_file(tmp_path):
    """For benchmarks: nets.use_model puts another file in the shipped model's place, and None puts it back."""
    from importlib import resources

    from kkvision.vision import nets
    from kkvision.vision.digits import NOTES, SIDE

    crops = [np.zeros((CROP_H, CROP_W), np.float32)]
    shipped = labels.probabilities(crops)
    other = tmp_path / "other.onnx"
    other.write_bytes(resources.files("kkvision.models").joinpath("digits.onnx").read_bytes())
    try:
        nets.use_model(labels.MODEL, other)
        assert nets.scores(labels.MODEL, [np.zeros((SIDE, SIDE), np.float32)]).shape == (1, NOTES + 1)  # the digit model
        copy = tmp_path / "labels-copy.onnx"
        copy.write_bytes(resources.files("kkvision.models").joinpath(labels.MODEL).read_bytes())
        nets.use_model(labels.MODEL, copy)
        np.testing.assert_allclose(labels.probabilities(crops), shipped, atol=1e-6)
        with pytest.raises(FileNotFoundError):
            nets.use_model(labels.MODEL, tmp_path / "missing.onnx")
    finally:
        nets.use_model(labels.MODEL, None)
    np.testing.assert_allclose(labels.probabilities(crops), shipped, atol=1e-6)


def test_a_square_read_again_by_a_model_that_read_it_is_not_run_through_the_network_again(tmp_path, monkeypatch):
    """A grid's retries (both models together, moved crops) read its square again with each model: the
    readings are kept by square, boxes and model, and the network runs once for each; another array (an
    equal copy), other boxes, another model, or another file put in a model's place (use_model) read anew."""
    from importlib import resources

    from kkvision.vision import nets

    runs: list[str] = []
    scores = nets.scores
    monkeypatch.setattr(nets, "scores", lambda model, crops: runs.append(model) or scores(model, crops))
    square = np.full((900, 900), 255, np.uint8)
    cv2.putText(square, "12+", (110, 135), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 0, 3)
    boxes = [(100.0, 100.0, 200.0, 200.0), (200.0, 100.0, 300.0, 200.0)]
    first = read_labels(square, boxes)
    assert read_labels(square, boxes) == first and read_labels(square, list(boxes), labels.MODEL) == first
    once = len(runs)
    assert once >= 1 and set(runs) == {labels.MODEL}
    read_labels(square.copy(), boxes)
    read_labels(square, boxes[:1])
    read_labels(square, boxes, labels.SECOND_MODEL)
    assert len(runs) >= once + 3 and labels.SECOND_MODEL in runs
    copy = tmp_path / "labels-copy.onnx"
    copy.write_bytes(resources.files("kkvision.models").joinpath(labels.MODEL).read_bytes())
    before = len(runs)
    try:
        nets.use_model(labels.MODEL, copy)
        assert read_labels(square, boxes) == first and len(runs) > before
    finally:
        nets.use_model(labels.MODEL, None)


@pytest.mark.parametrize("seed,heldout", [(16, False), (14, True)], ids=["train-0.43", "heldout-0.41"])
def test_a_web_pages_big_labels_are_read_whole(seed, heldout):
    """Labels two fifths of the cell high reach below the usual crop (their feet cut off, '1' read '4',
    '9+' read '0+'): the grid is read again with the TALL crop and solves (exit 5 with the usual one)."""
    from devtools.scenes import scene
    from kkvision.pipeline import Options, read_source
    from kkvision.sources import of_bytes

    sc = scene("web", seed, heldout=heldout)
    assert any(note.startswith("labels=0.4") for note in sc.notes)
    outcomes = read_source(of_bytes(sc.data, sc.name), Options()).outcomes
    assert len(outcomes) == 1 and outcomes[0].result is not None, outcomes[0].error
    assert tuple(map(tuple, outcomes[0].result.solution)) == tuple(map(tuple, sc.puzzles[0].solution))


def test_the_tall_crop_keeps_the_top_left_corner_and_grows_down_more_than_right():
    box = (100.0, 200.0, 200.0, 300.0)
    x0, y0, x1, y1 = labels.crop_box(box)
    tx0, ty0, tx1, ty1 = labels.crop_box(box, labels.TALL)
    assert (tx0, ty0) == (x0, y0)
    assert (ty1 - ty0) / (y1 - y0) == pytest.approx(labels.TALL[1])
    assert 1 < (tx1 - tx0) / (x1 - x0) < labels.TALL[1]
    assert tx1 < 200 + 0.2 * 100  # the right neighbour's label (from ~0.02 of a side past the border) stays mostly out


def _blind_first_model(monkeypatch, calls):
    """The first label model reads every cell as empty (a face it cannot read); the second reads
    as shipped.  `calls` records which model each grid reading asked."""
    from kkvision.vision.stages import LabelReading

    real = labels.read_labels

    def fake(gray, boxes, model=None):
        calls.append(model or labels.MODEL)
        if model in (None, labels.MODEL):
            return [LabelReading((("", 1.0),)) for _ in boxes]
        return real(gray, boxes, model)

    monkeypatch.setattr(labels, "read_labels", fake)


def test_the_second_label_model_reads_a_grid_the_first_cannot(samples, monkeypatch):
    """When the first model's reading is refused, the second model reads the grid upright (before
    any quarter turn), and the answer says so."""
    from kkvision.pipeline import Options, read_source
    from kkvision.sources import of_bytes

    calls: list[str] = []
    _blind_first_model(monkeypatch, calls)
    page = read_source(of_bytes((samples / "photo-6x6.jpg").read_bytes(), "photo-6x6.jpg"), Options())
    result = page.outcomes[0].result
    assert result is not None, page.outcomes[0].error
    assert calls[:2] == [labels.MODEL, labels.SECOND_MODEL]
    assert any("second label model" in note for note in result.notes)
    expected = __import__("json").loads((samples / "photo-6x6.expected.json").read_text())["solution"]
    assert [list(r) for r in result.solution] == expected


def test_the_second_label_model_is_not_asked_when_the_first_reads_the_grid(samples, monkeypatch):
    from kkvision.pipeline import Options, read_source
    from kkvision.sources import of_bytes

    calls: list[str] = []
    real = labels.read_labels
    monkeypatch.setattr(labels, "read_labels", lambda g, b, model=None: calls.append(model or labels.MODEL) or real(g, b, model))
    result = read_source(of_bytes((samples / "photo-6x6.jpg").read_bytes(), "photo-6x6.jpg"), Options()).outcomes[0].result
    assert result is not None and calls == [labels.MODEL]
    assert not any("second label model" in note for note in result.notes)


def test_a_mixture_of_readings_averages_each_text_over_the_models():
    from kkvision.vision.stages import LabelReading

    first = [LabelReading((("5+", 0.9), ("6+", 0.1))), LabelReading((("", 1.0),))]
    second = [LabelReading((("6+", 0.7), ("5+", 0.2))), LabelReading((("3", 0.6), ("", 0.4)))]
    mixed = labels.mixture(first, second)
    assert mixed[0].texts == (("5+", pytest.approx(0.55)), ("6+", pytest.approx(0.4)))
    assert mixed[1].texts == (("", pytest.approx(0.7)), ("3", pytest.approx(0.3)))
    assert mixed[1].has_label == pytest.approx(0.3)


def test_the_ensemble_reads_every_model_from_every_moved_crop_and_averages_them(monkeypatch):
    """A label read one way from the usual crop and another from crops moved a few pixels (a face
    no model saw): the ensemble asks each model at each of labels.JITTERS, boxes moved and grown by
    fractions of the cell's side, and each text's probability is the mean over all of them."""
    from kkvision.vision.stages import LabelReading

    seen: list[tuple[str, tuple]] = []

    def fake(gray, boxes, model=None):
        seen.append((model, tuple(boxes)))
        moved = boxes[0] != (100.0, 200.0, 200.0, 300.0)
        return [LabelReading((("5", 1.0),) if moved else (("6", 0.9), ("5", 0.1))) for _ in boxes]

    monkeypatch.setattr(labels, "read_labels", fake)
    out = labels.ensemble(np.zeros((900, 900), np.uint8), [(100.0, 200.0, 200.0, 300.0)])
    assert len(seen) == 2 * len(labels.JITTERS) and {m for m, _ in seen} == {labels.MODEL, labels.SECOND_MODEL}
    expected = sorted((100 + 100 * (dx - grow), 200 + 100 * (dy - grow), 200 + 100 * (dx + grow), 300 + 100 * (dy + grow))
                      for dx, dy, grow in labels.JITTERS)
    for model in (labels.MODEL, labels.SECOND_MODEL):
        asked = sorted(boxes[0] for m, boxes in seen if m == model)
        assert np.allclose(asked, expected)
    usual = 1 / len(labels.JITTERS)  # the one unmoved crop's share
    assert out[0].texts == (("5", pytest.approx(1 - usual * 0.9)), ("6", pytest.approx(usual * 0.9)))


def test_both_label_models_together_read_a_grid_neither_reads_alone(samples, misreading):
    """Each model misreads half of the labels (a digit off, surely), a different half, and is unsure of
    them: neither alone gives an answer, and the grid would be turned.  Their readings as one
    (labels.mixture) do, upright, and the answer says so."""
    from kkvision.pipeline import Options, read_source
    from kkvision.sources import of_bytes

    calls = misreading({labels.MODEL: 0, labels.SECOND_MODEL: 1})
    page = read_source(of_bytes((samples / "photo-6x6.jpg").read_bytes(), "photo-6x6.jpg"), Options())
    result = page.outcomes[0].result
    assert result is not None, page.outcomes[0].error
    assert calls[:4] == [labels.MODEL, labels.SECOND_MODEL, labels.MODEL, labels.SECOND_MODEL]
    assert any("both label models together" in note for note in result.notes)
    assert not any("on its side" in note for note in result.notes)
    expected = __import__("json").loads((samples / "photo-6x6.expected.json").read_text())["solution"]
    assert [list(r) for r in result.solution] == expected


def test_the_second_label_model_ships_with_the_package():
    from importlib.resources import files

    assert files("kkvision.models").joinpath(labels.SECOND_MODEL).is_file()


def _plain_decode(probs: np.ndarray, keep: int = 5) -> tuple[tuple[str, float], ...]:
    """The CTC prefix beam search written plainly, every step expanded: decode's reference."""
    beams: dict[tuple[int, ...], tuple[float, float]] = {(): (1.0, 0.0)}
    for step in probs:
        nxt: dict[tuple[int, ...], list[float]] = {}
        live = [int(k) for k in np.flatnonzero(step >= labels.KEEP_PROB) if k != 0]
        blank = float(step[0])
        for prefix, (pb, pc) in beams.items():
            total = pb + pc
            entry = nxt.setdefault(prefix, [0.0, 0.0])
            entry[0] += total * blank
            for k in live:
                p = float(step[k])
                if prefix and prefix[-1] == k:
                    entry[1] += pc * p
                    nxt.setdefault(prefix + (k,), [0.0, 0.0])[1] += pb * p
                else:
                    nxt.setdefault(prefix + (k,), [0.0, 0.0])[1] += total * p
        ranked = sorted(nxt.items(), key=lambda kv: kv[1][0] + kv[1][1], reverse=True)[:labels.BEAM]
        beams = {k: (v[0], v[1]) for k, v in ranked}
    out = sorted(beams.items(), key=lambda kv: kv[1][0] + kv[1][1], reverse=True)[:keep]
    return tuple(("".join(ALPHABET[k - 1] for k in prefix), pb + pc) for prefix, (pb, pc) in out)


@pytest.mark.parametrize("seed", range(40))
def test_decode_gives_the_plain_beam_searchs_texts_and_numbers_exactly(seed):
    rng = np.random.default_rng(seed)
    steps = CROP_W // 4
    logits = rng.normal(0, 3, (steps, len(ALPHABET) + 1)).astype(np.float32)
    logits[rng.random(steps) < 0.6, 0] += 12  # most steps sure of the blank, as an empty cell's
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    assert decode(probs) == _plain_decode(probs)


def test_crops_of_a_grid_are_each_cells_crop_exactly():
    rng = np.random.default_rng(3)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (400, 500), np.uint8), (5, 5), 0)
    boxes = [(100.0, 100.0, 200.0, 200.0), (250.0, -20.0, 350.0, 80.0), (0.5, 10.25, 400.0, 390.0),
             (30.0, 40.0, 60.0, 70.0), (480.0, 380.0, 560.0, 460.0)]
    for scale in ((1.0, 1.0), labels.TALL):
        one_by_one = np.stack([label_crop(gray, box, scale) for box in boxes])
        together = labels.label_crops(gray, boxes, scale)
        assert together.dtype == one_by_one.dtype and np.array_equal(together, one_by_one)


def test_a_label_far_fainter_than_the_grids_printed_labels_is_taken_for_no_label_unless_needed():
    """Each crop is normalised on its own, so a book page's show-through (the back's print, mirrored,
    pale grey) reads as surely as print.  The grid's labels are printed alike: a cell whose ink where
    a label would be spans under FAINT of the sure labels' keeps its texts at FAINT_WEIGHT of their
    odds, the rest going to no label; the printed labels are untouched."""
    n, side = 4, 400
    gray = np.full((side, side), 235, np.uint8)
    cell = side // n
    boxes = [(c * cell, r * cell, (c + 1) * cell, (r + 1) * cell) for r in range(n) for c in range(n)]
    for k in (0, 1, 2, 5):  # printed labels: black strokes where a label sits
        x0, y0 = boxes[k][:2]
        gray[y0 + 12:y0 + 35, x0 + 12:x0 + 16] = 20
    x0, y0 = boxes[7][:2]
    gray[y0 + 12:y0 + 35, x0 + 12:x0 + 16] = 205  # show-through: 30 grey levels, where print has 215
    printed, ghost, blank = LabelReading((("8", 0.99),)), LabelReading((("0", 0.93), ("", 0.05))), \
        LabelReading((("", 0.99),))
    readings = [printed if k in (0, 1, 2, 5) else ghost if k == 7 else blank for k in range(n * n)]
    out = labels._faint(gray, boxes, readings)
    assert out[7].best == "" and dict(out[7].texts)["0"] == pytest.approx(0.93 * labels.FAINT_WEIGHT)
    assert dict(out[7].texts)[""] == pytest.approx(0.05 + (1 - labels.FAINT_WEIGHT) * 0.95)
    assert [out[k] for k in range(n * n) if k != 7] == [readings[k] for k in range(n * n) if k != 7]
    # too few labels read surely (the show-through's among them) to say how the grid's labels are
    # printed: nothing is judged
    few = [rd if k not in (0, 1, 2) else blank for k, rd in enumerate(readings)]
    assert labels._faint(gray, boxes, few) == few
