"""The cell-content stage (vision/contents.py): written ink found per cell and taken out of the square."""

import cv2
import numpy as np
import pytest

from kkvision.vision import contents, digits
from kkvision.vision.stages import Contents, GridGeometry

N, CELL = 3, 120


def _geometry() -> GridGeometry:
    side = N * CELL
    corners = ((0.0, 0.0), (float(side), 0.0), (float(side), float(side)), (0.0, float(side)))
    lines = tuple(float(k * CELL) for k in range(N + 1))
    return GridGeometry(N, corners, lines, lines, homography=np.eye(3))


def _square() -> np.ndarray:
    """A blank 3x3 grid: white paper, thin black lines, a label in the top-left cell."""
    sq = np.full((N * CELL, N * CELL), 250, np.uint8)
    for k in range(N + 1):
        sq[:, max(0, k * CELL - 1):k * CELL + 2] = 0
        sq[max(0, k * CELL - 1):k * CELL + 2, :] = 0
    sq[8:26, 10:30] = 20  # a label's ink at the top left of A1
    return sq


def _fake_reader(monkeypatch, written: set, ink_box: tuple[int, int, int, int]):
    """The digit reader says `written` cells hold a digit, the others nothing; the content network
    says the ink in `ink_box` (x0, y0, x1, y1 of its SIDE x SIDE crop) is no label's."""
    calls: list[int] = []

    def read_digits(crops):
        probs = np.zeros((len(crops), digits.NOTES + 1), np.float32)
        probs[:, 0] = 1.0
        for i in range(len(crops)):
            if divmod(i, N) in written:
                probs[i] = 0.0
                probs[i, 5] = 1.0
        return probs

    def ink_probability(crops):
        calls.append(len(crops))
        out = np.zeros((len(crops), contents.SIDE, contents.SIDE), np.float32)
        x0, y0, x1, y1 = ink_box
        out[:, y0:y1, x0:x1] = 0.99
        return out

    monkeypatch.setattr(digits, "read_digits", read_digits)
    monkeypatch.setattr(contents, "ink_probability", ink_probability)
    return calls


def test_a_blank_grid_holds_nothing_and_is_read_as_it_is(monkeypatch):
    calls = _fake_reader(monkeypatch, set(), (0, 0, 48, 48))
    sq, geom = _square(), _geometry()
    found = contents.find_contents(sq, geom)
    assert found == Contents(())
    assert contents.clean(sq, geom, found) is sq
    assert calls == []  # the content network never ran


def test_only_the_written_cells_ink_is_taken_out_and_painted_from_round_it(monkeypatch):
    calls = _fake_reader(monkeypatch, {(1, 1)}, (12, 12, 36, 36))  # the middle half of the cell
    sq, geom = _square(), _geometry()
    sq[150:210, 160:200] = 30  # an answer's ink in B2
    found = contents.find_contents(sq, geom)
    assert found.written == ((1, 1),) and calls == [1]
    assert found.ink is not None and found.ink.shape == sq.shape
    ys, xs = np.nonzero(found.ink)
    assert CELL < xs.min() and xs.max() < 2 * CELL and CELL < ys.min() and ys.max() < 2 * CELL  # B2 alone
    cleaned = contents.clean(sq, geom, found)
    assert cleaned[165:195, 165:195].min() > 200  # the answer is gone
    assert (cleaned[8:26, 10:30] == 20).all()  # the label stays
    assert (cleaned[:, CELL - 1:CELL + 2] == 0).all()  # and every line
    assert sq[180, 180] == 30  # the square read by check is not changed


def test_an_answer_over_a_line_is_painted_out_with_the_line_running_on_and_no_dark_smear():
    """A stroke across the line between A1 and B1 and along under the top line: where it crossed the
    lines they run on; the rest is paper again, none of the lines' ink drawn into the cells (inpainting
    from all round made dark blobs there, read as a label's digits)."""
    sq, geom = _square(), _geometry()
    mask = np.zeros(sq.shape, bool)
    mask[40:70, 90:150] = True  # across the line at x = CELL, in A1 and B1
    mask[0:14, 130:200] = True  # along the top line, in B1, the line itself under it
    sq[mask] = 40
    out = contents.fill(sq, mask, geom.xs, geom.ys, contents.LINE_BAND * CELL, 4.0)
    assert (out[40:70, CELL - 1:CELL + 2] == 0).all()  # the line between A1 and B1 runs on
    assert (out[0:2, 130:200] == 0).all()  # and the top line
    assert out[40:70, 90:CELL - 2].min() >= 245 and out[40:70, CELL + 3:150].min() >= 245  # paper either side
    assert out[3:14, 130:200].min() == 250  # under the top line: paper, no blob where a label would be
    assert (out[~mask] == sq[~mask]).all()  # nothing else changes


def test_an_answer_by_a_line_in_a_shaded_corner_is_painted_with_the_paper_there_not_the_squares():
    """A photo's vignetting: the paper 120 grey at the left, 240 at the right.  A stroke down to the
    line under A2, in the dark corner, is painted out with the paper round it; the whole square's
    paper (its bright middle) made a white blob by the line there, and a border read beside it."""
    sq, geom = _square(), _geometry()
    shade = np.linspace(0.48, 0.96, sq.shape[1])[None, :]
    sq = np.rint(sq.astype(np.float64) * shade).astype(np.uint8)
    mask = np.zeros(sq.shape, bool)
    mask[CELL + 20:2 * CELL - 3, 40:52] = True  # in A2, down to just above the line under it
    sq[mask] = 20
    out = contents.fill(sq, mask, geom.xs, geom.ys, contents.LINE_BAND * CELL, 4.0)
    paper_there = sq[CELL + 20:2 * CELL - 20, 30:38].mean()  # beside the stroke: about 130
    assert abs(out[mask].astype(float) - paper_there).max() < 12  # no blob brighter (or darker) than there
    assert (out[~mask] == sq[~mask]).all()


def test_where_an_answer_crossed_a_labels_stroke_the_crossing_is_painted_out_too_no_blob():
    """A big answer's stroke down through a label's '-' in A1, the crossing left out of the mask as the
    network calls it the label's: painted over with the rest, the '-' has a gap there (the label model
    saw such gaps); kept, inpainting spread its dark down the answer's stroke into a blob.  The
    mask's holes are closed only up to CLOSE of the cell: a cell's paper between two strokes stays."""
    sq, geom = _square(), _geometry()
    sq[8:26, 10:30] = 250
    sq[15:19, 10:50] = 20  # the label's '-', 4 px thick
    ink = np.zeros(sq.shape, np.uint8)
    ink[4:60, 26:34] = 255  # the answer's stroke, down across the '-'
    sq[ink > 0] = 30
    ink[15:19, 26:34] = 0  # the crossing: the network calls it the label's ink
    ink[70:100, 40:50] = ink[70:100, 80:90] = 255  # two strokes 30 px (a quarter cell) apart
    sq[70:100, 40:50] = sq[70:100, 80:90] = 30
    out = contents.clean(sq, geom, Contents(((0, 0),), ink))
    assert out[20:24, 26:34].min() >= 130  # no dark smeared down from the crossing (kept, it was: 29 there)
    assert out[15:19, 27:33].mean() > 60  # the crossing itself drawn on from the label's ends, not kept at 30
    assert (out[15:19, 10:22] == 20).all() and (out[15:19, 38:50] == 20).all()  # the '-' either side kept
    assert (out[70:100, 55:75] == sq[70:100, 55:75]).all()  # paper between strokes far apart: untouched
    assert contents.closed(ink, CELL)[15:19, 27:33].all() and not contents.closed(ink, CELL)[70:100, 55:75].any()


def test_the_mask_is_grown_downhill_into_a_blurred_strokes_rim_and_stops_at_a_label_past_the_valley():
    """A photo's blurred answer: its grey rim past the network's pixels joins the mask (inpainting drew it
    back in as a ghost of the answer, read as a label's digits); a label beside it, darker again past the
    paper between them, and the paper round it do not."""
    import cv2

    sq = np.full((120, 120), 250, np.uint8)
    sq[20:100, 56:64] = 20  # the answer's stroke
    sq[10:30, 30:40] = 20  # a label's stroke 16 px to its left
    sq = cv2.GaussianBlur(sq, (0, 0), 3.0)
    core = np.zeros(sq.shape, np.uint8)
    core[24:96, 57:63] = 255  # the network's pixels: the stroke's dark middle
    grown = contents.haloed(core, sq, 120.0) > 0
    assert grown[60, 52:68].all() and sq[60, 52] < 240  # the rim either side of the stroke, grey, is taken
    assert not grown[20, 30:40].any()  # the label past the valley is not
    assert not grown[60, :40].any() and not grown[60, 80:].any()  # nor the paper
    assert (grown[core > 0]).all()  # and the mask given stays
    assert not contents.haloed(np.zeros_like(core), sq, 120.0).any()  # nothing grows from nothing
    sharp = np.full((120, 120), 250, np.uint8)
    sharp[20:100, 56:64] = 20  # a sharp picture: the stroke ends in the mask...
    sharp[40:60, 64:80] = 20  # ... but for a label it touched, with a soft edge (grey, downhill from the stroke)
    sharp[39, 64:80] = sharp[60, 64:80] = sharp[40:60, 80] = 150
    mask = np.zeros(sharp.shape, np.uint8)
    mask[18:102, 54:66] = 255
    assert (contents.haloed(mask, sharp, 120.0) == mask).all()  # left as it is: the label's edge not eaten


def test_alone_in_keeps_only_the_cells_ink_that_is_no_labels(monkeypatch):
    """check's second look at a cell: its answer alone, the label, the lines and other cells paper."""
    _fake_reader(monkeypatch, set(), (12, 12, 36, 36))  # the network: the middle half of a cell is an answer
    sq, geom = _square(), _geometry()
    sq[30:100, 40:80] = 30  # A1's answer, under its label
    sq[150:210, 160:200] = 30  # B2's
    alone = contents.alone_in(sq, contents.written_ink(sq, geom, [(0, 0)]))
    assert (alone[40:85, 40:80] == 30).all()  # A1's answer stays
    assert alone[8:26, 10:30].min() == 250 and alone[:, CELL - 1:CELL + 2].min() == 250  # its label, the lines: paper
    assert alone[150:210, 160:200].min() == 250  # and B2, not asked for


def test_the_mask_follows_the_cell_box_at_the_networks_scale(monkeypatch):
    """A network pixel (x, y) of a cell's SIDE x SIDE crop lies at x / SIDE of the cell in the square."""
    _fake_reader(monkeypatch, {(0, 2)}, (24, 0, 48, 24))  # the top-right quarter of C1
    sq, geom = _square(), _geometry()
    ink = contents.find_contents(sq, geom).ink
    assert ink is not None
    grow = int(round(contents.GROW * CELL)) + 1
    ys, xs = np.nonzero(ink)
    assert abs(xs.min() - (2 * CELL + CELL / 2)) <= grow + 1 and xs.max() <= 3 * CELL
    assert ys.min() == 0 and abs(ys.max() - CELL / 2) <= grow + 1


@pytest.mark.needs_handwriting
def test_a_grid_written_in_a_real_hand_is_read_as_its_blank_picture():
    """A working-split scene (train theme, a 'dev' writer): answers as big as the cell, over the labels."""
    from devtools.scenes import scene
    from kkvision.pipeline import Options, read_source
    from kkvision.sources import of_bytes

    solved = []
    for blank in (True, False):
        sc = scene("filled", 9, mode="hand-big", wrong=0, blank=blank)
        page = read_source(of_bytes(sc.data, sc.name), Options())
        solved.append([o.unique().result.solution if o.unique().result else None for o in page.outcomes])
    assert solved[0] == solved[1] and None not in solved[0]


def _layout_of(cages):
    from kkvision.vision.stages import CageLayout

    n = N
    flat = tuple(tuple(False for _ in range(n)) for _ in range(n))
    return CageLayout(tuple(tuple(sorted(c)) for c in cages), flat, flat, 1.0)


def test_written_cells_where_no_label_can_be_are_those_not_first_in_their_cage():
    layout = _layout_of([[(0, 0), (0, 1)], [(0, 2), (1, 2)], [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]])
    found = Contents(((0, 0), (0, 1), (1, 1), (1, 0)), np.zeros((4, 4), np.uint8))
    assert contents.unlabelled(found, layout) == ((0, 1), (1, 1))


def test_a_label_may_be_hidden_where_written_ink_covers_its_place_not_where_an_answer_sits_below_it():
    """contents.under_answers: A1's answer reaches up over the label's place (a big answer written over
    the label), B2's sits in the lower half as answers usually do, C3 holds nothing."""
    ink = np.zeros((N * CELL, N * CELL), np.uint8)
    ink[10:100, 20:90] = 255  # A1: from the label's row down
    ink[CELL + 50:CELL + 110, CELL + 30:CELL + 90] = 255  # B2: below the label's row
    found = Contents(((0, 0), (1, 1)), ink)
    assert contents.under_answers(_geometry(), found) == {(0, 0)}
    assert contents.under_answers(_geometry(), Contents(())) == frozenset()


def _written_in(monkeypatch, read, where_no_label: int) -> None:
    """read_grid's content stage faked: three written cells, `where_no_label` of them where no label can be."""
    written = Contents(((0, 1), (1, 1), (2, 2)), np.zeros((N * CELL, N * CELL), np.uint8))
    monkeypatch.setattr(read, "find_contents", lambda square, geom, colour=None: written)
    monkeypatch.setattr(read, "find_cages", lambda square, geom: (_layout_of([[(0, 0)]]), None))
    monkeypatch.setattr(read, "unlabelled", lambda found, layout: found.written[:where_no_label])


@pytest.mark.parametrize("where_no_label, refuse, lost, grids, expect_order, expect", [
    (2, set(), False, {}, ["cleaned"], "cleaned"),  # surely written: read with the writing taken out
    (2, {"cleaned"}, False, {}, ["cleaned", "plain"], "plain"),  # ... and as it is when that is refused
    (1, set(), False, {}, ["plain"], "plain"),  # one such cell: as it is first
    (1, {"plain"}, False, {}, ["plain", "cleaned"], "cleaned"),
    (2, {"plain", "cleaned"}, False, {}, ["cleaned", "plain"], "refused plain"),  # the grid's own refusal
    (2, set(), True, {}, ["cleaned", "plain"], "plain"),  # a label lost with the writing: the labels as printed
    (2, {"plain"}, True, {}, ["cleaned", "plain"], "cleaned"),  # ... unless they give no answer
    (1, {"plain"}, True, {}, ["plain", "cleaned"], "cleaned"),
    (2, set(), True, {"plain": "another"}, ["cleaned", "plain"], "two answers"),  # two answers: refused
])
def test_a_grid_is_read_with_the_writing_taken_out_first_only_when_it_is_surely_written(
        monkeypatch, where_no_label, refuse, lost, grids, expect_order, expect):
    from types import SimpleNamespace

    from kkvision.errors import ClueUnreadable, UncertainReading
    from kkvision.vision import read
    from kkvision.vision.stages import Reached, VisionOptions

    order: list[str] = []
    _written_in(monkeypatch, read, where_no_label)

    def read_turns(way, name, opts):
        kind = "cleaned" if way.cleaned else "plain"
        order.append(kind)
        if kind in refuse:
            return read.Attempt(Reached(), ClueUnreadable(f"refused {kind}"))
        how = "not read" if kind == "cleaned" and lost else "read"
        return read.Attempt(Reached(), SimpleNamespace(name=kind, grid=grids.get(kind, "the answer"),
                                                       labels=(SimpleNamespace(how=how),)))

    monkeypatch.setattr(read, "_read_turns", read_turns)
    sq, geom = _square(), _geometry()
    if expect.startswith("refused"):
        with pytest.raises(ClueUnreadable, match=expect):
            read.read_grid(sq, geom, sq, "x", VisionOptions())
    elif expect == "two answers":
        with pytest.raises(UncertainReading, match="two answers"):
            read.read_grid(sq, geom, sq, "x", VisionOptions())
    else:
        assert read.read_grid(sq, geom, sq, "x", VisionOptions()).name == expect
    assert order == expect_order


@pytest.mark.parametrize("where_no_label, cleaned_labelled, expect", [
    (2, True, "refused cleaned"),  # surely written, and a KenKen with the writing out: refused as one
    (2, False, "refused plain"),  # no labels with the writing out (a sudoku's givens taken out): as it is
    (1, True, "refused plain"),  # the writing not sure: the grid's own refusal
])
def test_a_grid_neither_reading_answers_is_refused_as_a_kenken_when_its_writing_hid_the_labels(
        monkeypatch, where_no_label, cleaned_labelled, expect):
    """So that a page's KenKen filled in with big answers is refused as a KenKen (its labels with the
    writing taken out), not left out as a keypad for the labels the answers hide.  Judged by what each
    refused reading reached; the grid's attempt carries what the refusal taken reached (what read_page
    gives a caller that asks and the debug pictures draw)."""
    from types import SimpleNamespace

    from kkvision.errors import ClueUnreadable
    from kkvision.vision import read
    from kkvision.vision.stages import Reached, VisionOptions

    _written_in(monkeypatch, read, where_no_label)
    reached: dict[str, Reached] = {}

    def read_turns(way, name, opts):
        kind = "cleaned" if way.cleaned else "plain"
        labelled = cleaned_labelled if way.cleaned else False
        reached[kind] = Reached(clues=tuple(SimpleNamespace(texts=(("12+" if labelled else "", 1.0),))
                                            for _ in range(4)))
        return read.Attempt(reached[kind], ClueUnreadable(f"refused {kind}"))

    monkeypatch.setattr(read, "_read_turns", read_turns)
    sq, geom = _square(), _geometry()
    with pytest.raises(ClueUnreadable, match=expect):
        read.read_grid(sq, geom, sq, "x", VisionOptions())
    attempt = read._read_grid(sq, geom, sq, "x", VisionOptions())
    assert isinstance(attempt.outcome, ClueUnreadable) and attempt.reached is reached[expect.split()[1]]


def _coloured(label: tuple[int, int, int], pen: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A1 of the 3x3 grid in colour (BGR) and grey: its label in `label`'s colour at the top left, a pen's
    stroke in `pen`'s from the cell's top (beside the label) down to near its bottom."""
    col = np.repeat(_square()[..., None], 3, axis=2)
    col[8:26, 10:30] = label
    col[6:110, 60:70] = pen
    gray = np.rint(col.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32)).astype(np.uint8)
    return col, gray


def test_the_top_of_a_pens_stroke_beside_a_label_is_taken_out_by_its_colour_not_the_label(monkeypatch):
    """The network takes only the middle of A1 as written (it gives a big answer's stroke top beside a
    label to the label); a green pen over navy print: the whole stroke is the pen's, the label stays."""
    _fake_reader(monkeypatch, {(0, 0)}, (12, 12, 36, 36))
    col, gray = _coloured(label=(120, 30, 30), pen=(40, 110, 20))
    geom = _geometry()
    alone = contents.written_ink(gray, geom, [(0, 0)])
    assert not alone[6:20, 60:70].any()  # without the colours: the stroke's top is left in
    ink = contents.written_ink(gray, geom, [(0, 0)], col)
    assert ink[6:110, 60:70].all()  # with them: all of it taken out
    assert not ink[8:26, 10:30].any()  # and none of the label
    assert (ink >= alone).all()  # the network's own mask kept


def test_a_pen_of_the_prints_own_hue_is_left_to_the_network(monkeypatch):
    """A grey pen over black print: one line from the paper, no colour tells them apart (by_colour adds
    nothing, whatever the pixels' darkness)."""
    _fake_reader(monkeypatch, {(0, 0)}, (12, 12, 36, 36))
    col, gray = _coloured(label=(20, 20, 20), pen=(110, 110, 115))
    geom = _geometry()
    assert (contents.written_ink(gray, geom, [(0, 0)], col) == contents.written_ink(gray, geom, [(0, 0)])).all()
    middle = np.zeros_like(gray)
    middle[30:90, 55:75] = 255  # the network's mask: the stroke's middle, the pen's samples
    assert not contents.by_colour(col, gray, geom, [(0, 0)], middle)[0].any()
    col, gray = _coloured(label=(120, 30, 30), pen=(40, 110, 20))
    assert contents.by_colour(col, gray, geom, [(0, 0)], middle)[0][6:110, 60:70].all()  # a green one is told


def test_where_colour_tells_the_print_a_crossed_label_keeps_its_ink_and_a_gap_not_a_blob():
    """A green answer's stroke run down through A1's navy label: painted over with the print alone (the
    unmixed colours), the label's ink beside the stroke is kept as it was and the crossing is paper, a
    gap as in the label model's crossed labels, not the dark blob inpainting from round it makes."""
    col, gray = _coloured(label=(120, 30, 30), pen=(40, 110, 20))
    col[6:110, 16:24], gray[6:110, 16:24] = (40, 110, 20), 81  # the stroke through the label (x 10..30)
    geom = _geometry()
    stroke = np.zeros_like(gray)
    stroke[6:110, 16:24] = 255
    stroke[6:110, 60:70] = 255
    pen, printed = contents.by_colour(col, gray, geom, [(0, 0)], stroke)
    told = contents.clean(gray, geom, Contents(((0, 0),), stroke, printed))
    inpainted = contents.clean(gray, geom, Contents(((0, 0),), stroke))
    assert (told[8:26, 10:14] == gray[8:26, 10:14]).all()  # the label beside the stroke as it was
    assert told[8:26, 16:24].min() >= 240  # the crossing: paper
    assert told[30:110, 16:24].min() >= 240 and told[6:110, 60:70].min() >= 240  # the stroke: paper
    assert inpainted[8:26, 16:24].mean() < told[8:26, 16:24].mean() - 40  # inpainting: a dark blob there


def test_ink_of_a_third_colour_is_neither_the_pens_nor_the_prints():
    """A cage drawn as a yellow-green outline beside a green answer: its colour lies far from every mix
    of paper, navy print and green pen (UNEXPLAINED), so it is not taken out as the pen's, nor painted
    with the print alone; the answer's stroke is."""
    col, gray = _coloured(label=(120, 30, 30), pen=(40, 110, 20))
    col[100:104, 10:110] = (110, 210, 190)  # BGR: an outline, as the ios-light scenes draw cages
    gray[100:104, 10:110] = 192
    geom = _geometry()
    middle = np.zeros_like(gray)
    middle[30:90, 55:75] = 255
    pen, printed = contents.by_colour(col, gray, geom, [(0, 0)], middle)
    assert pen[6:100, 60:70].all() and not pen[100:104, 10:55].any() and not pen[100:104, 75:110].any()
    assert np.isnan(printed[100:104, 10:55]).all()


def test_written_in_a_lattice_is_the_answers_ink_not_its_lines():
    """contents.written_in_lattice (the grid stage's second look): in a 6x6 of drawn lines with a bold
    digit most of each cell high, the mask covers the digits' ink and leaves the lines."""
    from kkvision.vision.contents import written_in_lattice

    n, cell = 6, 75
    side = n * cell
    square = np.full((side, side), 255, np.uint8)
    for k in range(n + 1):
        at = min(k * cell, side - 1)
        cv2.line(square, (at, 0), (at, side - 1), 0, 2)
        cv2.line(square, (0, at), (side - 1, at), 0, 2)
    digits_ink = np.zeros_like(square)
    for r in range(n):
        for c in range(n):
            org = (c * cell + cell // 5, r * cell + 9 * cell // 10)
            cv2.putText(digits_ink, "1472"[(r + c) % 4], org, cv2.FONT_HERSHEY_SIMPLEX, cell / 30, 255, 5)
    square[digits_ink > 0] = 0
    mask = written_in_lattice(square, n) > 0
    lines = np.zeros_like(mask)
    for k in range(1, n):
        lines[:, k * cell - 1:k * cell + 2] = lines[k * cell - 1:k * cell + 2, :] = True
    lines &= digits_ink == 0  # a line's pixels no digit touches
    assert mask[digits_ink > 0].mean() > 0.9
    assert mask[lines].mean() < 0.1


@pytest.mark.parametrize("hidden, both_answers, expect", [
    ({(0, 1)}, True, "both"),  # neither reading answers, a label under an answer: read both ways at once
    ({(0, 1)}, False, "in part"),  # ... that refused too: check's reading in part, as before
    (set(), True, "in part"),  # no label under an answer: nothing to read both ways
])
def test_a_grid_neither_reading_answers_is_read_with_the_labels_under_answers_read_both_ways(
        monkeypatch, hidden, both_answers, expect):
    """read._read_grid: when the grid with the writing taken out and as it is are both refused, it is read
    once more upright with the labels under written answers read both ways (read._read_both), and that
    answer is taken with a note saying so; else check's reading in part of the refused one."""
    from dataclasses import dataclass

    from kkvision.errors import ClueUnreadable
    from kkvision.vision import read
    from kkvision.vision.stages import Reached, VisionOptions

    @dataclass(frozen=True)
    class Answer:
        name: str
        notes: tuple[str, ...] = ()

    _written_in(monkeypatch, read, 2)
    monkeypatch.setattr(read, "under_answers", lambda geom, found: frozenset(hidden))

    def read_turns(way, name, opts):
        in_part = (lambda: Answer("in part")) if way.cleaned else None
        return read.Attempt(Reached(), ClueUnreadable("refused"), in_part)

    def read_once(way, k, name, opts, second_model=False, drawn=None, both=False):
        assert both and k == 0 and way.cleaned
        return read.Attempt(Reached(), Answer("both") if both_answers else ClueUnreadable("refused both"))

    monkeypatch.setattr(read, "_read_turns", read_turns)
    monkeypatch.setattr(read, "_read_once", read_once)
    sq, geom = _square(), _geometry()
    got = read._read_grid(sq, geom, sq, "x", VisionOptions(in_part=True)).outcome
    assert got.name == expect
    assert (got.notes[:1] == (read.BOTH_WAYS,)) is (expect == "both")


def test_labels_under_answers_are_read_both_with_the_writing_out_and_as_it_is():
    """read._read_both: a hidden cell's texts are the mean of its two readings; the other cells' as read
    with the writing taken out."""
    from kkvision.vision.read import _read_both
    from kkvision.vision.stages import LabelReading

    cleaned = {(0, 0): LabelReading((("36x", 0.9), ("30x", 0.1))), (0, 1): LabelReading((("7", 1.0),))}
    as_is = {(0, 0): LabelReading((("30x", 0.7), ("3x", 0.3))), (0, 1): LabelReading((("1", 1.0),))}
    both = _read_both(cleaned, as_is, frozenset({(0, 0)}))
    assert dict(both[(0, 0)].texts) == pytest.approx({"36x": 0.45, "30x": 0.4, "3x": 0.15})
    assert both[(0, 1)] == cleaned[(0, 1)]
