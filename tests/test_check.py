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


def _smudge(monkeypatch, cell, between, n=6, called=False):
    """The digit reader made unsure of one cell (0.5 / 0.5 between two digits): the verdict is the
    subject.  Read again alone (from its ink that is no label's: the cells read again come before those
    called wrong, so it is the first read so), it reads the same, and so does the framed-answer reader
    (the first cell it is asked about; any others it reads as it does), and its shape is like none of
    the hand's sure answers (framed.shapes: the cells not judged come first).  `called`: the cell is
    called wrong, and read so alone (every cell read alone reads the same)."""
    from kkvision.vision import digits, framed

    real, real_framed, real_shapes = digits.read_digits, framed.read_framed, framed.shapes

    def shapeless(crops):
        seen = real_shapes(crops).copy()
        seen[0] = 0.0
        return seen

    def framed_unsure(crops):
        probs = real_framed(crops).copy()
        probs[0] = 0.0
        probs[0, between[0] - 1] = probs[0, between[1] - 1] = 0.5
        return probs

    def unsure(crops):
        probs = real(crops).copy()
        for k in [cell[0] * n + cell[1]] if len(crops) == n * n else range(len(crops)) if called else [0]:
            probs[k] = 0.0
            probs[k, between[0]] = probs[k, between[1]] = 0.5
        return probs

    monkeypatch.setattr(digits, "read_digits", unsure)
    monkeypatch.setattr(framed, "read_framed", framed_unsure)
    monkeypatch.setattr(framed, "shapes", shapeless)


def test_a_cell_not_read_surely_is_never_called_right(filled, capsys, monkeypatch):
    """No wrong cell among those read, one not judged: exit 15 (never 0), listed, shown '?', marked on the picture."""
    make, solution = filled
    path = make(solution)
    right = solution[1][2]
    _smudge(monkeypatch, (1, 2), (right, right % 6 + 1))  # the right digit or another
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
    _smudge(monkeypatch, (1, 2), (solution[1][2], solution[1][2] % 6 + 1))
    assert main(["check", "--json", "--no-image", str(path)]) == ExitCode.ANSWERS_WRONG
    rec = json.loads(capsys.readouterr().out)
    assert rec["wrong"] == [[4, 4]] and rec["unsure"] == [[1, 2]]


def test_one_of_two_digits_neither_right_is_wrong(filled, capsys, monkeypatch):
    """Unsure which of two digits is written, but sure it is not the right one: wrong (the likelier one shown)."""
    make, solution = filled
    path = make(solution)
    right = solution[1][2]
    a, b = right % 6 + 1, (right + 1) % 6 + 1
    _smudge(monkeypatch, (1, 2), (a, b), called=True)
    assert main(["check", "--json", "--no-image", str(path)]) == ExitCode.ANSWERS_WRONG
    rec = json.loads(capsys.readouterr().out)
    assert rec["wrong"] == [[1, 2]] and rec["unsure"] == []


def _pencil(picture, geometry, cell, marks):
    """Small candidate digits written into one cell as apps lay notes out: mark k at its place of a 3x3 under the label."""
    from PIL import Image, ImageDraw, ImageFont

    from kkvision.render import FONT_NAMES  # an installed font of the renderer's

    x0, y0, x1, y1 = geometry.cell_box(*cell)
    img = Image.fromarray(cv2.cvtColor(picture, cv2.COLOR_BGR2RGB))
    d = ImageDraw.Draw(img)
    corner = geometry.to_image(np.array([[x0, y0], [x1, y1]], float))
    side = float(corner[1, 0] - corner[0, 0])
    path = next(p for p in __import__("pathlib").Path("/usr/share/fonts").rglob("*.ttf") if p.name in FONT_NAMES)
    f = ImageFont.truetype(str(path), max(6, int(0.17 * side)))
    for m in marks:
        gx, gy = (m - 1) % 3, (m - 1) // 3
        at = geometry.to_image(np.array([[x0 + (0.25 + 0.25 * gx) * (x1 - x0), y0 + (0.4 + 0.18 * gy) * (y1 - y0)]]))
        d.text((float(at[0, 0]), float(at[0, 1])), str(m), font=f, fill=(90, 90, 90), anchor="mm")
    return cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2BGR)


def test_pencil_marks_are_notes_never_an_answer(filled, capsys, tmp_path):
    """A cell holding only small candidate digits is listed as pencil marks and counted blank: never wrong, never unsure."""
    make, solution = filled
    partial = [row[:] for row in solution]
    partial[3][1] = 0  # B4 holds only notes
    path = make(partial)
    geom = read_source(Source(str(path), path), Options()).outcomes[0].result.geometry
    noted = tmp_path / "noted.png"
    cv2.imwrite(str(noted), _pencil(cv2.imread(str(path)), geom, (3, 1), (1, 3, 4, 6)))
    assert main(["check", "--json", "--no-image", str(noted)]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["pencil"] == [[3, 1]] and rec["blank"] == [[3, 1]] and rec["wrong"] == [] and rec["unsure"] == []
    assert main(["check", "--no-image", str(noted)]) == 0
    assert "1 holding only pencil marks: B4" in capsys.readouterr().out


def _fake_reading(monkeypatch, cell, probs, n=6):
    """The digit reader made to say `probs` of one cell: the decision made of them is the subject."""
    from kkvision.vision import digits

    real = digits.read_digits

    def said(crops):
        out = real(crops).copy()
        out[cell[0] * n + cell[1]] = probs
        return out

    monkeypatch.setattr(digits, "read_digits", said)


def _blanked(filled, cell):
    """The filled photo sample with `cell` left blank, read: its page."""
    make, solution = filled
    partial = [row[:] for row in solution]
    partial[cell[0]][cell[1]] = 0
    path = make(partial)
    return read_source(Source(str(path), path), Options())


def test_nothing_and_notes_together_make_a_sure_blank(filled, monkeypatch):
    """0.5 nothing + 0.45 notes: no answer either way, so blank (listed as notes when notes weigh more)."""
    from kkvision.answers import read_written
    from kkvision.vision.digits import NOTES

    page = _blanked(filled, (2, 2))
    probs = np.zeros(NOTES + 1, np.float32)
    probs[0], probs[NOTES], probs[4] = 0.45, 0.5, 0.05
    _fake_reading(monkeypatch, (2, 2), probs)
    written = read_written(page.picture, page.outcomes[0].result.geometry)
    assert written.answers[2][2] == 0 and (2, 2) not in written.unsure and written.pencil == ((2, 2),)


@pytest.mark.parametrize("nothing,blank", [(0.82, True), (0.7, False)])
def test_a_cell_read_as_nothing_surely_enough_is_blank_else_not_judged(filled, monkeypatch, nothing, blank):
    """Nothing written is sure at answers.BLANK_SURE (no written cell is read near it: 0.31 at most on
    bench/check.py's scenes), below digits.SURE; less sure, the cell is not judged, never blank."""
    from kkvision.answers import BLANK_SURE, read_written
    from kkvision.vision.digits import NOTES, SURE

    assert 0.7 < BLANK_SURE <= 0.82 < SURE
    page = _blanked(filled, (2, 2))
    probs = np.zeros(NOTES + 1, np.float32)
    probs[0], probs[4] = nothing, 1 - nothing
    _fake_reading(monkeypatch, (2, 2), probs)
    from kkvision.vision import digits

    monkeypatch.setattr(digits, "ink_contrast", lambda square, box: 255.0)  # ink there: the network decides
    written = read_written(page.picture, page.outcomes[0].result.geometry)
    assert written.answers[2][2] == 0 and ((2, 2) in written.unsure) != blank


def test_a_digit_read_where_there_is_no_ink_is_blank(filled, monkeypatch):
    """The network sure of a 1 in a cell with no ink where an answer goes (a photo's faint streak looks
    like one to it): the cell is blank, never an answer."""
    from kkvision.answers import read_written
    from kkvision.vision.digits import NOTES

    page = _blanked(filled, (2, 3))  # D3: no label reaches into it
    probs = np.zeros(NOTES + 1, np.float32)
    probs[1] = 0.97
    _fake_reading(monkeypatch, (2, 3), probs)
    written = read_written(page.picture, page.outcomes[0].result.geometry)
    assert written.answers[2][3] == 0 and (2, 3) not in written.unsure


@pytest.mark.parametrize("probs,size,wrong", [
    ({3: 0.6, 5: 0.3}, 9, True),  # surely another digit, mostly two
    ({3: 0.6, 5: 0.14, 7: 0.06, 9: 0.05, 1: 0.04}, 9, True),  # not right, though spread a little
    ({3: 0.2, 5: 0.18, 7: 0.18, 9: 0.17, 1: 0.16}, 9, False),  # spread thin over many digits: confused
    ({3: 0.5, 5: 0.2}, 9, False),  # much left to blank or notes: not surely written
    # a 4 written in a 6x6 read 4 0.73, 9 0.16, 7 0.03 (seeds 0..49 of bench/check.py): the 9 and 7 the
    # grid cannot hold are still not the right digit
    ({4: 0.73, 9: 0.16, 7: 0.06}, 6, True),
    # a right 2 of a held-out hand in a 6x6 read 9/1/6/7: mostly digits the grid cannot hold, confused
    ({9: 0.33, 1: 0.22, 6: 0.17, 7: 0.13, 8: 0.08}, 6, False),
])
def test_a_cell_is_wrong_only_when_its_right_digit_is_surely_not_what_was_written(probs, size, wrong):
    """The cell reader's half of the wrong rule (answers._surely_other): the others' share and spread, at
    the right digit's bound NOT_RIGHT (read_written asks it at ONE_READER, with the framed reader: the
    test of the two readers together is below)."""
    from kkvision.answers import NOT_RIGHT, _surely_other

    right = 2
    # a right answer in a held-out hand read 0.028, a real writer's flat-topped 3 read 7 with the 3 at 0.008
    for p_right, verdict in ((0.004, wrong), (0.008, False), (0.028, False)):
        digits = np.zeros(9)
        for d, p in probs.items():
            digits[d - 1] = p
        digits[right - 1] = p_right
        assert _surely_other(digits, right, size, NOT_RIGHT) == verdict


def _read_cell_as(monkeypatch, filled, centred, nudged, framed_as=None, moved=None):
    """read_written of a filled 6x6 whose cell C3 the digit reader reads as `centred(right)`, when read
    again (its ink alone) as each of `nudged(right)`, and with its box nudged (digits.NUDGES: asked only
    for the cells called wrong, answers._other_every_way) as `moved(right)` (None: as `centred`); the
    framed-answer reader as `framed_as(right)` (the digits 1..9), or (None) as the cell
    reader where that reads another digit likeliest (its likeliest, surely), else not at all (as if it found
    no ink); `framed_as` may give its two framings apart (a (2, 9) reading: the ink alone framed, its whole
    strokes): (the Written, how many crops each nudged reading had)."""
    from kkvision.answers import read_written
    from kkvision.vision import digits, framed

    make, solution = filled
    n, right = 6, solution[2][3]
    path = make(solution)
    page = read_source(Source(str(path), path), Options())
    real = digits.read_digits
    seen = []

    def said(crops):
        out = real(crops).copy()
        if len(crops) == n * n:  # the centred reading of every cell
            out[2 * n + 3] = centred(right)
        elif len(crops) == len(digits.NUDGES):  # C3's box nudged every way
            seen.append(len(crops))
            out[:] = (moved or centred)(right)
        else:
            seen.append(len(crops))
            out[:] = nudged(right)
        return out

    framings = []

    def framed_said(crops):  # called for the ink alone framed, then for its whole strokes
        out = np.zeros((len(crops), 9), np.float32)
        framings.append(len(crops))
        if framed_as is not None:
            as_read = np.asarray(framed_as(right), np.float32)
            out[:] = as_read if as_read.ndim == 1 else as_read[len(framings) - 1]
        elif (likeliest := int(np.argmax(centred(right)[1:10])) + 1) != right:
            out[:, likeliest - 1] = 1.0
        return out

    monkeypatch.setattr(digits, "read_digits", said)
    monkeypatch.setattr(framed, "read_framed", framed_said)
    return read_written(page.picture, page.outcomes[0].result.geometry, tuple(map(tuple, solution))), seen


def _others(right):
    """Two digits a 6x6 holds that are not the right one."""
    return [d for d in (5, 1, 4, 3) if d != right][:2]


def _probs(right, **p):
    """A reading: the right digit 0.004 (below answers.NOT_RIGHT), the digits given (d7=0.48: 7 at 0.48),
    the rest 0.01."""
    from kkvision.vision.digits import NOTES

    out = np.full(NOTES + 1, 0.01, np.float32)
    out[right] = 0.004
    for name, v in p.items():
        out[int(name[1:])] = v
    return out


@pytest.mark.parametrize("first_right,framed_right,alone_right,judged", [
    (0.004, 0.001, None, "wrong"),  # both readers surely not the right digit
    (0.03, 0.0002, None, "wrong"),  # the cell reader less sure, the framed reader surer: 6e-6 together
    (0.03, 0.002, None, "unsure"),  # 6e-5 together, above answers.JOINT: not judged
    (0.0018, 0.018, None, "unsure"),  # a right 8 of a real hand read 5 by both so (bench/check_rules.py): 3e-5
    (0.004, 0.06, None, "unsure"),  # the framed reader alone gives the right digit more than answers.ONE_READER
    (0.06, 0.0, None, "unsure"),  # ... the cell reader: not surely another digit to it
    (0.004, 0.001, 0.2, "unsure"),  # ... the cell reader reading the cell's ink alone (label painted out)
])
def test_an_answer_is_wrong_when_the_two_readers_together_rule_the_right_digit_out(
        filled, monkeypatch, first_right, framed_right, alone_right, judged):
    """A cell the cell reader reads as another digit (0.6, another 0.3) and the framed-answer reader too is
    wrong when the two readers' probabilities of the right digit, taken as independent evidence, multiply
    to at most answers.JOINT and neither gives it more than answers.ONE_READER (nor the cell reader reading
    the ink alone); else not judged, never right.  The box is nudged only for a cell so called, to see that
    it still reads as other digits (answers._other_every_way)."""
    def reading(right, p_right=first_right):
        out = _probs(right, **{f"d{d}": p for d, p in zip(_others(right), (0.6, 0.3))})
        out[right] = p_right
        return out

    alone = (lambda right: [reading(right, alone_right)]) if alone_right is not None else (lambda right: [reading(right)])
    written, seen = _read_cell_as(monkeypatch, filled, reading, alone,
                                  lambda right: _framed_seeing(right, framed_right, _others(right)[0],
                                                               0.95 - framed_right))
    right = filled[1][2][3]
    from kkvision.vision.digits import NUDGES

    assert set(seen) <= {1, len(NUDGES)}  # its ink alone read again; nudged boxes only for a cell called wrong
    assert (len(NUDGES) in seen) is (first_right <= 0.05)  # ... by the cell reader (answers.ONE_READER)
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (_others(right)[0] if judged == "wrong" else 0)


@pytest.mark.parametrize("alone_blank,judged", [(0.98, "unsure"), (0.4, "wrong")])
def test_a_cell_whose_ink_alone_reads_as_no_answer_is_never_called_wrong(filled, monkeypatch, alone_blank, judged):
    """A big label's '3' in an empty cell read as a written 5 by the cell reader, and by the framed-answer
    reader (its mask holding the label's strokes): with the label painted out, the cell reader reads its
    ink alone as notes or nothing likelier than not (answers.ALONE_ANSWER): not judged, never wrong.
    Read as an answer there (nothing and notes under it), the readers ruling the right digit out call
    it wrong as before."""
    from kkvision.vision.digits import NOTES

    def reading(right):
        return _probs(right, **{f"d{d}": p for d, p in zip(_others(right), (0.6, 0.3))})

    def alone(right):  # the digits' share left after nothing and notes, most of it the cell reader's digit
        out = _probs(right, **{"d0": 0.3 * alone_blank, f"d{NOTES}": 0.7 * alone_blank,
                               f"d{_others(right)[0]}": 0.9 * (1 - alone_blank)})
        out[right] = 0.002
        return [out]

    written, _ = _read_cell_as(monkeypatch, filled, reading, alone,
                               lambda right: _framed_seeing(right, 0.001, _others(right)[0]))
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (_others(right)[0] if judged == "wrong" else 0)


@pytest.mark.parametrize("alone_reads, judged", [("same", "wrong"), ("another", "unsure")])
def test_a_cell_whose_ink_alone_reads_as_another_digit_than_the_cell_is_never_called_wrong(
        filled, monkeypatch, alone_reads, judged):
    """A right 8 whose loop was under its label '336x': the cell reader read the cell 7 (the label's '6'
    and the stroke below it), its ink alone 1, the framed reader 1 and 7.  All rule the 8 out, but which
    ink is the answer's is in doubt: a cell called wrong must read as the same digit alone as it is read
    with its label (answers._both_rule_out); else not judged, never wrong."""
    from kkvision.vision.digits import NOTES

    def reading(right):
        return _probs(right, **{f"d{_others(right)[0]}": 0.94})

    def alone(right):
        digit = _others(right)[0 if alone_reads == "same" else 1]
        out = _probs(right, **{f"d{digit}": 0.94})
        out[NOTES] = 0.0
        return [out]

    written, _ = _read_cell_as(monkeypatch, filled, reading, alone,
                               lambda right: np.stack([_framed_seeing(right, 0.001, d) for d in _others(right)]))
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (_others(right)[0] if judged == "wrong" else 0)


def test_a_digit_the_grid_cannot_hold_is_still_wrong(filled, monkeypatch):
    """A 9 read where a 6x6's right digit is written, by both readers: surely not the right digit, so
    wrong (shown as the likeliest digit the grid holds); the likeliest digit the framed-answer reader must
    see too is the 9 itself, not the one shown."""
    def reading(right):
        a, b = _others(right)
        return _probs(right, d9=0.5, **{f"d{a}": 0.3, f"d{b}": 0.2})

    written, _ = _read_cell_as(monkeypatch, filled, reading, lambda right: [reading(right)],
                               lambda right: _framed_seeing(right, 0.0, 9))
    right = filled[1][2][3]
    assert written.answers[2][3] == _others(right)[0] and (2, 3) not in written.unsure


def _leaning(digit, p_digit):
    """A reading: `digit` at p_digit, the rest shared evenly."""
    from kkvision.vision.digits import NOTES

    out = np.full(NOTES + 1, (1.0 - p_digit) / NOTES, np.float32)
    out[digit] = p_digit
    return out


def _another(right):
    """A reading: another digit at 0.6, the right one at 0.1 (not surely another: answers.ONE_READER)."""
    out = _leaning(_others(right)[0], 0.6)
    out[right] = 0.1
    return out / out.sum()


@pytest.mark.parametrize("first,again,judged", [
    (0.6, 0.95, "right"),  # likeliest, and sure with the label and lines painted out: right
    (0.6, 0.7, "unsure"),  # likeliest, not sure either way: not judged
    (None, 0.99, "right"),  # another digit likeliest, the right one not ruled out: sure alone, right
    (None, 0.7, "unsure"),  # ... not sure alone: not judged
])
def test_a_right_answer_read_unsurely_is_read_again_from_its_ink_alone(filled, monkeypatch, first, again, judged):
    """A right answer written over its label's corner read 0.6 with the label beside it, or read as
    another digit at 0.6 (a 1 touching the label's '+' read 7) but not surely so, is read again from the
    cell's ink that is no label's alone (contents.alone_in); only SURE there makes it right.  Never wrong
    from the second look."""
    centred = (lambda right: _leaning(right, first)) if first else _another
    written, seen = _read_cell_as(monkeypatch, filled, centred, lambda right: _leaning(right, again))
    right = filled[1][2][3]
    assert seen == [1]  # read again: that cell alone
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (right if judged == "right" else 0)


def _framed(digit, p_digit):
    """A framed-answer reading (the digits 1..9): `digit` at p_digit, the rest shared evenly."""
    out = np.full(9, (1.0 - p_digit) / 8, np.float32)
    out[digit - 1] = p_digit
    return out


@pytest.mark.parametrize("framed_right,framed_other,judged", [
    (0.97, None, "right"),  # the framed-answer reader is sure of the right digit: right
    (0.8, None, "right"),  # not sure (0.86 of the grid's digits), but with the cell reader's 0.83 together
    (0.4, None, "unsure"),  # together not sure (0.83 and 0.52: odds 5 x 1.1, under answers.SURE's 9)
    (0.3, None, "unsure"),  # the framed reader not favouring it (0.41 of the grid's digits): not judged
    (None, 0.99, "unsure"),  # sure of another digit: not judged, never wrong from the second look
])
def test_an_answer_unsure_to_the_cell_reader_is_right_when_the_framed_reader_is_sure_of_it(
        filled, monkeypatch, framed_right, framed_other, judged):
    """A right answer read 0.6 as it is (0.83 given the grid's digits and answers.ANSWERED) and 0.7 alone (not
    judged by the cell reader) is read by the framed-answer reader too (vision/framed.py: its ink alone
    framed as MNIST frames a digit): SURE there of the right digit, given the grid's digits, makes it right,
    as does the two readers' evidence together (answers._together_right: each above answers.TOGETHER, their
    odds multiplied SURE's); anything else leaves it not judged."""
    framed_as = ((lambda right: _framed(right, framed_right)) if framed_right is not None
                 else (lambda right: _framed(_others(right)[0], framed_other)))
    written, _ = _read_cell_as(monkeypatch, filled, lambda right: _leaning(right, 0.6),
                               lambda right: _leaning(right, 0.7), framed_as)
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (right if judged == "right" else 0)


@pytest.mark.parametrize("alone_sure,strokes_right,judged", [
    ("in grid", 0.001, "unsure"),  # sure only with 7, 8, 9 set aside, the other framing ruling it out
    ("in grid", 0.2, "right"),  # ... the other framing giving it a fair chance
    ("of all", 0.001, "right"),  # the likeliest of all nine digits: the other framing's 5 is a shape between
])
def test_a_framing_sure_only_given_the_grid_is_not_enough_when_the_other_rules_it_out(
        filled, monkeypatch, alone_sure, strokes_right, judged):
    """A wrong 3 of a real hand whose ink alone, framed, read 7 0.61 and the right 2 0.30 (0.91 of a 6x6's
    digits) and whose whole strokes read 3: the cell reader not favouring the right digit, the cell's or
    its ink alone (another at 0.6, it 0.1), a framing sure of it only once the digits the grid cannot
    hold are set aside, while the other gives it at most answers.ONE_READER, leaves the cell not judged,
    never right; the other giving it a fair chance, or the framing reading it likeliest of all nine
    digits, it is right."""
    def framed_as(right):
        if alone_sure == "of all":
            alone = _framed(right, 0.97)
        else:  # a 7 (no digit of a 6x6) at 0.64, the right digit 0.33: 0.94 of the grid's digits
            alone = np.full(9, 0.03 / 7, np.float32)
            alone[6], alone[right - 1] = 0.64, 0.33
        strokes = _framed_seeing(right, strokes_right, _others(right)[0], 0.9 - strokes_right)
        return np.stack([alone, strokes])

    written, _ = _read_cell_as(monkeypatch, filled, _another, _another, framed_as)
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (right if judged == "right" else 0)


@pytest.mark.parametrize("alone,judged", [(0.6, "right"), (0.2, "unsure")])
def test_the_cell_readers_reading_of_the_ink_alone_counts_with_the_framed_reader(filled, monkeypatch, alone, judged):
    """A right answer the cell reader reads as another digit (0.6; the right one 0.1, not surely another) and,
    its ink alone, as the right digit 0.6 (0.83 given the grid's digits: not SURE), which the framed reader
    reads 0.8 (0.86 of the grid's digits: not SURE): the two readers together make it right
    (answers._together_right, the cell reader's likelier reading); its ink alone read 0.2 (0.46), not judged."""
    written, _ = _read_cell_as(monkeypatch, filled, _another, lambda right: _leaning(right, alone),
                               lambda right: _framed(right, 0.8))
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (right if judged == "right" else 0)


@pytest.mark.parametrize("first,framings,together", [
    (0.83, [0.86, 0.0], True),  # odds 4.9 x 6.1: above SURE's 9
    (0.83, [0.52, 0.3], False),  # 4.9 x 1.1
    (0.5, [0.99, 0.99], False),  # the cell reader does not favour the right digit (answers.TOGETHER)
    (0.95, [0.45, 0.45], False),  # ... the framed reader
])
def test_the_two_readers_together_make_a_right_digit_sure_only_when_each_favours_it(first, framings, together):
    """answers._together_right: the cell reader's probability of the right digit and the framed reader's
    likelier framing's (given a 6x6's digits), each above TOGETHER, their odds multiplied as independent
    evidence's at least SURE's."""
    from kkvision.answers import _together_right

    right = 2
    reading = np.zeros((2, 9), np.float32)
    for row, share in zip(reading, framings):  # the right digit `share` of the grid's digits, another the rest
        row[right - 1], row[3] = share, 1.0 - share
    assert _together_right(first, reading, 6, right) == together


def _framed_seeing(right, p_right, seen, p_seen=0.9):
    """A framed-answer reading giving the right digit p_right and the digit `seen` p_seen, the rest shared."""
    out = np.full(9, (1.0 - p_right - p_seen) / 7, np.float32)
    out[right - 1], out[seen - 1] = p_right, p_seen
    return out


@pytest.mark.parametrize("framed_right,framed_sees,judged", [
    (0.001, 0, "wrong"),  # the framed-answer reader agrees: not the right digit, the cell reader's likeliest: wrong
    (0.3, 0, "unsure"),  # it sees the right digit as a fair chance (ONE_READER): two readers disagree, not judged
    (0.001, 1, "unsure"),  # not the right digit, but another than the cell reader's: a shape between, not judged
])
def test_an_answer_read_surely_as_another_digit_is_wrong_only_if_the_framed_reader_agrees(
        filled, monkeypatch, framed_right, framed_sees, judged):
    """A cell the cell reader reads surely as another digit is called wrong only when the framed-answer
    reader gives the right digit at most answers.ONE_READER (and the two together at most answers.JOINT)
    and the cell reader's likeliest digit as its own likeliest; else a shape between two digits: not
    judged."""
    def reading(right):
        a, b = _others(right)
        return _probs(right, **{f"d{a}": 0.6, f"d{b}": 0.3})

    written, _ = _read_cell_as(monkeypatch, filled, reading, lambda right: [reading(right)],
                               lambda right: _framed_seeing(right, framed_right - 0.0, _others(right)[framed_sees],
                                                            0.95 - framed_right))
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (_others(right)[0] if judged == "wrong" else 0)


@pytest.mark.parametrize("p9,p_right,judged", [
    (0.62, 0.36, "right"),  # 9 can be no 6x6's answer: given a digit the grid holds, the right one at 0.95
    (0.8, 0.18, "unsure"),  # nearly all a digit the grid cannot hold: a confused reading, judged as read
])
def test_a_right_answer_is_judged_given_that_the_cell_holds_what_its_grid_can(filled, monkeypatch, p9, p_right,
                                                                              judged):
    """A 4 written with an open top, read 9 0.62 and 4 0.36 in a 6x6: no 6x6 cell holds a 9, so it is the
    right 4 (answers._in_grid); read 9 at 0.8, less than IN_GRID is left for what a 6x6 holds: not judged,
    and never wrong (the right digit is well above NOT_RIGHT)."""
    from kkvision.vision.digits import NOTES

    def reading(right):
        out = np.full(NOTES + 1, (1.0 - p9 - p_right) / (NOTES - 1), np.float32)
        out[9], out[right] = p9, p_right
        return out

    written, _ = _read_cell_as(monkeypatch, filled, reading, lambda right: [reading(right)])
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (right if judged == "right" else 0)


@pytest.mark.parametrize("p_right,p_other,p_nothing,judged", [
    (0.75, 0.25, 0.0, "right"),  # odds of one to one before reading, the other half shared by 5 digits: 0.94
    (0.6, 0.4, 0.0, "unsure"),  # 0.88: likelier than not, read again alone (the same): not judged
    (0.75, 0.0, 0.25, "unsure"),  # nothing as likely as the right digit before reading: 0.75
])
def test_a_right_answer_is_judged_on_the_odds_that_a_written_answer_is_right(filled, monkeypatch, p_right,
                                                                             p_other, p_nothing, judged):
    """The reader's probabilities hold every digit as likely written; before reading, a written answer
    is as likely wrong as right (answers.ANSWERED), the other half shared by the grid's other digits, and
    nothing as likely as the right digit: a right answer read 0.75 against one other digit at 0.25 is
    right in a 6x6, against 0.4 it is not, and against nothing at 0.25 it is not.  Never wrong."""
    def reading(right):
        out = np.zeros(11, np.float32)
        out[right], out[_others(right)[0]], out[0] = p_right, p_other, p_nothing
        return out

    written, _ = _read_cell_as(monkeypatch, filled, reading, lambda right: [reading(right)])
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (right if judged == "right" else 0)


def test_check_judges_the_cells_the_labels_it_can_read_decide(filled, capsys, monkeypatch):
    """A grid whose written answers hide labels it cannot be read without (the reading refused as a
    whole, here made so, and five labels taken as hidden under answers and read as nothing legible):
    check reads it in part and judges the cells those labels do not decide (a wrong one there named),
    leaves the others not judged (their answers unsure, their digits 0 in the solution, the labels
    'hidden', op and target null); solve still refuses the picture."""
    from dataclasses import replace

    from kkvision.vision import read
    from kkvision.vocab import parse_cell

    path, hidden = _refused_with_hidden_labels(filled, monkeypatch)
    monkeypatch.setattr(read, "under_answers_read", lambda clues, under: tuple(
        replace(rd, texts=(("", 0.9),)) if rd.cells[0] in under else rd for rd in clues))
    assert main(["check", "--json", "--no-image", str(path)]) == ExitCode.ANSWERS_WRONG
    rec = json.loads(capsys.readouterr().out)
    open_cells = {parse_cell(name) for name in rec["undetermined"]}
    assert (0, 1) in open_cells and (4, 4) not in open_cells and len(open_cells) < 36
    assert rec["wrong"] == [[4, 4]]
    assert {tuple(c) for c in rec["unsure"]} == open_cells  # every cell is written: each left open is not judged
    assert all((rec["solution"][r][c] == 0) == ((r, c) in open_cells) for r in range(6) for c in range(6))
    assert {lb["cell"] for lb in rec["labels"] if lb["how"] == "hidden"} == {"A1", "B1", "C1", "E1", "C2"}
    assert all(cage["op"] is None for cage in rec["puzzle"]["cages"] if tuple(cage["cells"][0]) in hidden)
    assert any("not read" in note for note in rec["notes"])
    assert not any(note.startswith("unsure cells") for note in rec["notes"])  # read surely: open, not unsure
    assert main(["check", "--no-image", str(path)]) == ExitCode.ANSWERS_WRONG
    assert ": their digit rests on labels not read surely, marked ?" in capsys.readouterr().out
    assert main(["solve", "--json", "--no-image", str(path)]) == ExitCode.CLUE_UNREADABLE


def _refused_with_hidden_labels(filled, monkeypatch) -> tuple:
    """The filled 6x6 written with two wrong answers, E5 (decided by the labels read) and B1 (left open
    by the hidden ones), its reading refused as a whole (made so), and the first five cages' labels
    taken as hidden under written answers: the picture's path, and those anchors."""
    from kkvision.errors import ClueUnreadable
    from kkvision.vision import read

    make, solution = filled
    wrong = [row[:] for row in solution]
    wrong[4][4] = solution[4][4] % 6 + 1
    wrong[0][1] = solution[0][1] % 6 + 1
    path = make(wrong)
    hidden = frozenset({(0, 0), (0, 1), (0, 2), (0, 4), (1, 2)})

    def refused(n, clues, time_limit, under):
        raise ClueUnreadable("cannot read the labels (made so)", cells=tuple(sorted(under)))

    monkeypatch.setattr(read, "resolve", refused)
    monkeypatch.setattr(read, "under_answers", lambda geom, contents: hidden if contents.written else frozenset())
    return path, hidden


def test_check_reads_in_part_with_the_labels_under_answers_read_surely_and_judges_every_cell(filled, capsys,
                                                                                          monkeypatch):
    """The same grid, its labels under answers read right and surely through the answers (typed
    answers hide nothing): read in part, they decide the cells the other labels leave open, so every
    cell is judged and both wrong answers are named, none left open; no label is 'hidden'."""
    from kkvision.vocab import cell_name

    _, solution = filled
    path, hidden = _refused_with_hidden_labels(filled, monkeypatch)
    assert main(["check", "--json", "--no-image", str(path)]) == ExitCode.ANSWERS_WRONG
    rec = json.loads(capsys.readouterr().out)
    assert not rec.get("undetermined") and rec["unsure"] == []
    assert sorted(rec["wrong"]) == [[0, 1], [4, 4]]
    assert rec["solution"] == solution
    assert not any(lb["how"] == "hidden" for lb in rec["labels"])
    assert {lb["cell"] for lb in rec["labels"]} >= {cell_name(c) for c in hidden}


def test_typed_answers_in_cells_a_hidden_label_decides_are_not_judged():
    """answers.judge of a grid read in part: a typed answer in an undetermined cell is neither right
    nor wrong (not judged, whatever it holds), a blank one there stays blank, the others are judged."""
    from kkvision.answers import judge
    from kkvision.puzzle import Cage, Puzzle

    puzzle = Puzzle(3, tuple(Cage("+", 6, tuple((r, c) for c in range(3))) for r in range(3)))
    solution = ((1, 2, 3), (2, 3, 1), (3, 1, 2))
    one = judge(puzzle, solution, "223\n2.1\n312\n", undetermined=frozenset({(0, 1), (1, 1)}))
    assert one.unsure == ((0, 1),) and one.check.wrong == ((0, 0),) and one.blank == ((1, 1),)
    assert one.verdict == ExitCode.ANSWERS_WRONG
    one = judge(puzzle, solution, "123\n231\n312\n", undetermined=frozenset({(0, 1)}))
    assert one.unsure == ((0, 1),) and one.verdict == ExitCode.ANSWERS_UNSURE  # never "all right"


def _glyph(text: str) -> np.ndarray:
    """`text` written in OpenCV's script face, framed as an answer is (framed.framed: 28 x 28, darkness 0..1)."""
    from kkvision.vision.framed import framed

    out = np.zeros((64, 64), np.uint8)
    cv2.putText(out, text, (12, 52), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.8, 255, 4)
    return framed(out.astype(np.float32) / 255)


@pytest.mark.parametrize("hand_5, repeated, judged", [
    ("3", True, False),  # the hand's own 5 reads 3, and a right 5 of it looks so: its misreadings not judged
    ("9", True, True),  # two 3s written where 5s go, the hand's right 5 shaped unlike them: both wrong
    ("3", False, True),  # one misreading, not repeated on the page: wrong
])
def test_a_misreading_the_page_repeats_in_the_hands_own_shape_is_not_judged(monkeypatch, hand_5, repeated, judged):
    """answers.in_one_hand: a cell called wrong whose right digit R reads K is not judged when another
    cell of the page's grids whose R reads K too, and its framed answer looks like one of the page's
    right answers holding R (a hand that writes some 5s like 3s writes them so in several cells)."""
    from kkvision import answers
    from kkvision.answers import Written, in_one_hand

    first = ((5, 1), (1, 5))  # grid 1: A1 right 5 read 3 (called wrong, taken as 3), B1 a right 5 read 5
    second = ((2, 5), (5, 2))  # grid 2: A1 right 2, B1 right 5: read 3 too (repeated), or read 5
    read_1 = Written(((3, 5), (1, 5)), (), (), (((0, 0), 3), ((0, 1), 5), ((1, 0), 1), ((1, 1), 5)))
    read_2 = Written(((2, 3 if repeated else 5), (5, 2)), (), (),
                     (((0, 0), 2), ((0, 1), 3 if repeated else 5), ((1, 0), 5), ((1, 1), 2)))
    misread = {("one", (0, 0)), ("two", (0, 1))}  # what reads 3 is written like a 3; the right 5s as the hand writes 5
    monkeypatch.setattr(answers, "_framed_answers", lambda picture, geometry, cells: {
        cell: _glyph("3" if (geometry, cell) in misread else hand_5) for cell in cells})
    out = in_one_hand(np.zeros((8, 8), np.uint8), [("one", first, read_1), ("two", second, read_2)])
    assert out[0].answers[0][0] == (3 if judged else 0) and ((0, 0) in out[0].unsure) is not judged
    assert out[0].answers[1] == (1, 5) and out[1].answers[1] == (5, 2)  # the right cells as they were
    if repeated:
        assert (out[1].answers[0][1] == 3) is judged and ((0, 1) in out[1].unsure) is not judged


@pytest.mark.parametrize("shape, threes, framed_as, judged", [
    ("5", True, None, True),  # written as the hand writes its sure 5s, read 3, framed read 5: the hand's 5, right
    ("3", True, None, False),  # written as the hand writes its 3s: perhaps a wrong 3, not judged
    ("5", False, None, False),  # like its 5s, but how the hand writes the 3 it is read as is not on the page
    ("5", True, 3, False),  # like its 5s, but read 3 framed too: no reader reads a 5, not judged
])
def test_an_answer_not_judged_written_as_the_hand_writes_its_right_digit_is_right(monkeypatch, shape, threes,
                                                                                    framed_as, judged):
    """answers.in_one_hand: a cell left not judged (read 3 where a 5 goes) is right when its framed
    answer is like the page's sure right 5s (framed.shapes: HAND_SAME) and HAND_APART likelier to them
    than to the hand's sure answers of any other digit, the 3 it is read as among them, and the
    framed-answer reader reads it 5 (the cell reader reads it 3)."""
    from kkvision import answers
    from kkvision.answers import Written, in_one_hand
    from kkvision.vision import framed

    if framed_as is not None:
        real = framed.read_framed

        def misread(crops):  # the first crop is the cell not judged (the hand's sure answers after it)
            probs = real(crops).copy()
            probs[0] = 0.0
            probs[0, framed_as - 1] = 1.0
            return probs

        monkeypatch.setattr(framed, "read_framed", misread)

    solution = ((5, 3), (3, 5))
    read = Written(((0, 3 if threes else 0), (3 if threes else 0, 5)), ((0, 0),) + (() if threes else ((0, 1), (1, 0))),
                   (), (((0, 0), 3), ((0, 1), 3), ((1, 0), 3), ((1, 1), 5)))
    monkeypatch.setattr(answers, "_framed_answers", lambda picture, geometry, cells: {
        cell: _glyph(shape if cell == (0, 0) else str(solution[cell[0]][cell[1]])) for cell in cells})
    out = in_one_hand(np.zeros((8, 8), np.uint8), [("one", solution, read)])[0]
    assert (out.answers[0][0] == 5) is judged and ((0, 0) in out.unsure) is not judged
    assert out.answers[1][1] == 5 and out.pencil == read.pencil and out.likeliest == read.likeliest


@pytest.mark.parametrize("label, judged", [
    ("11", False),  # the label read with a digit more than its clue: the answer's ink went to it, not judged
    ("1", True),  # read as its clue: the answer is wrong
    ("", True),  # read as nothing (hidden under the answer): it took none of the answer's ink, wrong
    ("25+", True),  # read as another clue (its cage's border missed), not as 1 with a digit added: wrong
])
def test_an_answer_beside_a_label_read_with_more_digits_than_its_clue_is_not_judged(label, judged):
    """answers.judge: a cell read as another digit than the solution's, in the place of a label whose
    reader read more digits than the clue taken (a 9 written beside a single cell's '9', read '99':
    the 9's loop went to the label and its tail was read 1), is not judged; typed answers are."""
    from kkvision.answers import Written, judge
    from kkvision.puzzle import Cage, Puzzle
    from kkvision.vision.stages import ClueReading

    solution = ((1, 2, 3), (2, 3, 1), (3, 1, 2))
    puzzle = Puzzle(3, tuple(Cage("=", d, ((r, c),)) for r, row in enumerate(solution) for c, d in enumerate(row)))
    clues = tuple(ClueReading(((r, c),), ((label if (r, c) == (0, 0) else str(d), 0.99),))
                  for r, row in enumerate(solution) for c, d in enumerate(row))
    written = Written(((2, 2, 3), (2, 3, 1), (3, 1, 2)), (), ())  # A1's 1 read as a 2
    one = judge(puzzle, solution, None, np.zeros((8, 8), np.uint8), object(), clues=clues,  # type: ignore[arg-type]
                written=written)
    assert (one.check.wrong == ((0, 0),)) is judged and ((0, 0) in one.unsure) is not judged
    assert one.verdict == (ExitCode.ANSWERS_WRONG if judged else ExitCode.ANSWERS_UNSURE)
    typed = judge(puzzle, solution, "223\n231\n312\n", clues=clues)
    assert typed.check.wrong == ((0, 0),) and not typed.unsure


@pytest.mark.parametrize("p_right,framed_as,judged", [
    (0.75, "other", "unsure"),  # right only on the odds an answer is right (0.94), framed as another digit
    (0.75, "right", "right"),  # ... framed as the right digit: right
    (0.75, "two others", "right"),  # ... framed as two different other digits: the ink in doubt, not a digit
    (0.95, "other", "right"),  # sure as read: the framed reader is not asked
])
def test_a_right_answer_sure_only_on_the_odds_is_not_judged_when_the_framed_reader_sees_another_digit(
        filled, monkeypatch, p_right, framed_as, judged):
    """A cell read 0.75 as its right digit and 0.25 as another (a wrong 5 with a closed foot read 6 at 0.69,
    5 at 0.28) is SURE of the right digit only on the odds that a written answer is right
    (answers.ANSWERED); the framed-answer reader is asked too, and where every framing reads the other digit
    likeliest the cell is not judged; where its framings read two different other digits (a right 9
    whose loop was lost under its label, read 7 alone and 4 with its strokes), the answer's ink is in
    doubt, not the digit, and it is right.  Never wrong."""
    def reading(right):
        out = np.zeros(11, np.float32)
        out[right], out[_others(right)[0]] = p_right, 1.0 - p_right
        return out

    def framing(right):
        if framed_as == "two others":
            return np.stack([_framed(d, 0.83) for d in _others(right)])
        return _framed(right if framed_as == "right" else _others(right)[0], 0.83)

    written, _ = _read_cell_as(monkeypatch, filled, reading, lambda right: [reading(right)], framing)
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (right if judged == "right" else 0)


@pytest.mark.parametrize("moved_notes, moved_nothing, judged", [
    (0.29, 0.0, "unsure"),  # read notes 0.29 with its box nudged: not surely another digit every way
    (0.05, 0.0, "wrong"),  # another digit however it is looked at: wrong
    (0.01, 0.15, "wrong"),  # nothing 0.15 with a box nudged off part of it: no digit, not the right one
])
def test_a_cell_called_wrong_must_read_as_another_digit_with_its_box_nudged_too(filled, monkeypatch,
                                                                                moved_notes, moved_nothing, judged):
    """answers._other_every_way: pencil candidates stacked touching ('2' over '5' beside a '4', in a right 4's
    cell) were read 3 at 0.94 as read and by the framed-answer reader, and notes 0.29 with the box nudged
    (digits.NUDGES): a cell called wrong must read neither its right digit nor notes WRONG_SURE together
    every way; else not judged, never wrong.  Nothing read where a nudged box leaves part of the answer out
    speaks for no digit: a wrong 2 read nothing 0.15 so is still wrong."""
    from kkvision.vision.digits import NOTES

    def reading(right):
        return _probs(right, **{f"d{_others(right)[0]}": 0.94})

    def moved(right):
        return _probs(right, **{f"d{_others(right)[0]}": 0.9 - moved_notes - moved_nothing,
                                f"d{NOTES}": moved_notes, "d0": moved_nothing})

    written, _ = _read_cell_as(monkeypatch, filled, reading, lambda right: [reading(right)],
                               lambda right: _framed_seeing(right, 0.001, _others(right)[0]), moved)
    right = filled[1][2][3]
    assert ((2, 3) in written.unsure) == (judged == "unsure")
    assert written.answers[2][3] == (_others(right)[0] if judged == "wrong" else 0)
