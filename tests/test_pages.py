"""Stage 1 on pages of several puzzles: find_grids finds every grid, in reading order."""

import io
import random

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from devtools import synth
from devtools.generate import random_puzzle
from kkvision.vision.cages import find_cages
from kkvision.vision.grid import find_grids, reading_order

FONTS = synth.available(synth.TRAIN_FONTS)
WORDS = synth.WORDS


def puzzle_image(n: int, seed: int, side: int, style: str = "clean"):
    """One rendered puzzle, scaled so its picture is `side` px wide, and the puzzle."""
    puzzle, _ = random_puzzle(n, seed=seed, unique=False)
    img, _ = synth.render(puzzle, style, random.Random(seed), FONTS)
    return img.resize((side, round(side * img.size[1] / img.size[0])), Image.Resampling.LANCZOS), puzzle


def text_lines(page: Image.Image, rng: random.Random, size: int, boxes=(), gap: int = 0) -> None:
    """Lines of newsprint words across the page, kept `gap` px off the boxes (x0, y0, x1, y1)."""
    d = ImageDraw.Draw(page)
    font = ImageFont.truetype(str(synth.find_font("DejaVuSerif.ttf") or FONTS[0]), size)
    w, h = page.size
    for y in range(size, h - 2 * size, int(size * 1.45)):
        x = size
        while x < w - 4 * size:
            word = rng.choice(WORDS)
            x1 = x + int(d.textlength(word, font=font))
            if x1 > w - size:
                break
            if not any(x1 > a - gap and x < c + gap and y + size > b - gap and y < e + gap for a, b, c, e in boxes):
                d.text((x, y), word, font=font, fill=(25, 25, 25))
            x = x1 + size // 2


def page(size: tuple[int, int], placed: list[tuple[int, int, int, int]], seed: int, text: int = 22,
         style: str = "clean"):
    """A white page with puzzles (n, seed, x, y: top-left corner, side from the n) and text around;
    scanned lightly (blur, JPEG).  Returns the BGR picture and the puzzles in the given order."""
    rng = random.Random(seed)
    pg = Image.new("RGB", size, (252, 251, 247))
    puzzles, boxes = [], []
    for n, side, x, y in placed:
        img, puzzle = puzzle_image(n, seed * 100 + n + x + y, side, style)
        pg.paste(img, (x, y))
        puzzles.append(puzzle)
        boxes.append((x, y, x + img.size[0], y + img.size[1]))
    if text:
        text_lines(pg, rng, text, boxes, gap=text)
    pg = pg.filter(ImageFilter.GaussianBlur(0.6))
    buf = io.BytesIO()
    pg.save(buf, "JPEG", quality=80)
    arr = np.frombuffer(buf.getvalue(), np.uint8)
    return cv2.imdecode(arr, cv2.IMREAD_COLOR), puzzles


def check(image, puzzles) -> None:
    """find_grids finds exactly these puzzles, in this order, with their sizes and cage layouts."""
    found = find_grids(image)
    assert [g.size for g, _ in found] == [p.size for p in puzzles]
    for (geom, square), puzzle in zip(found, puzzles):
        assert find_cages(square, geom)[0].cages == tuple(c.cells for c in puzzle.cages)


def test_two_puzzles_of_different_sizes_side_by_side():
    image, puzzles = page((1900, 1300), [(6, 700, 100, 250), (9, 850, 950, 200)], seed=1)
    check(image, puzzles)


def test_three_puzzles_in_two_rows():
    # the second row's grids are not level (reading order goes by the grids' heights, not pixels)
    image, puzzles = page((1700, 1900), [(5, 620, 120, 150), (7, 700, 850, 110),
                                         (8, 720, 500, 1050)], seed=2)
    check(image, puzzles)


def test_row_with_uneven_grids_reads_left_to_right():
    # the right grid starts higher than the left one but is in the same row
    image, puzzles = page((1800, 1300), [(4, 600, 100, 330), (6, 800, 900, 150)], seed=3)
    check(image, puzzles)


def test_two_small_puzzles_on_a_300_dpi_page():
    image, puzzles = page((2500, 3500), [(6, 520, 300, 600), (9, 560, 1500, 1900)], seed=4, text=34)
    check(image, puzzles)


def test_page_with_one_puzzle_finds_exactly_one():
    image, puzzles = page((1600, 1200), [(7, 750, 700, 200)], seed=5)
    check(image, puzzles)


def test_page_of_text_only_finds_none():
    image, _ = page((2000, 2800), [], seed=6, text=30)
    assert find_grids(image) == []
    blank = np.full((600, 800, 3), 250, np.uint8)
    assert find_grids(blank) == []


def test_the_one_grid_of_find_grids_is_the_grid_read_page_reads(samples):
    """The stage tests take a picture's grid from find_grids: for one puzzle, it is the grid the
    command reads (vision.read.read_page, whose first look is find_grids')."""
    from kkvision.vision.read import read_page
    from kkvision.vision.stages import VisionOptions

    image = cv2.imread(str(samples / "photo-6x6.jpg"))
    [(geom, _)] = find_grids(image)
    _, [(_, read)] = read_page(image, "photo-6x6.jpg", VisionOptions())
    assert read.geometry.size == geom.size == 6
    assert np.array_equal(np.asarray(read.geometry.corners), np.asarray(geom.corners))


@pytest.mark.parametrize("boxes, order", [
    ([(0, 0, 10, 10), (20, 2, 30, 12), (5, 20, 15, 30)], [0, 1, 2]),
    ([(20, 0, 30, 10), (0, 3, 10, 13)], [1, 0]),  # same row: left first though lower
    ([(0, 0, 10, 10), (12, 8, 40, 36)], [0, 1]),  # a big grid overlapping a small one's lower part: its own row
    ([(0, 40, 10, 50), (0, 0, 10, 10)], [1, 0]),
])
def test_reading_order(boxes, order):
    assert reading_order(boxes) == order


@pytest.mark.parametrize("cut", [0.12, 0.35])
def test_neighbour_cut_by_the_edge_is_no_second_puzzle(cut):
    image, puzzles = page((1900, 1100), [(7, 700, 100, 200), (9, 800, 1000, 150)], seed=7)
    image = image[:, :int(1000 + 800 * (1 - cut))]  # the right puzzle loses its right part
    check(image, puzzles[:1])


def test_a_grid_cut_by_the_edge_alone_is_still_found():
    # a single puzzle whose frame side is cropped off: no whole grid, so the largest found is taken
    image, puzzles = page((1000, 1000), [(6, 800, 100, 100)], seed=8, text=0)
    image = image[:, :860]
    found = find_grids(image)
    assert [g.size for g, _ in found] == [puzzles[0].size]


def test_scanned_page_of_four_tilted_puzzles():
    # "scan" renders are turned a little: an upright box around a tilted frame is the same grid, fitted worse
    image, puzzles = page((2500, 3500), [(5, 583, 568, 212), (3, 960, 1324, 58), (7, 616, 1498, 1896),
                                         (3, 593, 112, 2639)], seed=107, style="scan")
    check(image, puzzles)


def _drawn(n: int, right: np.ndarray, down: np.ndarray):
    """What a reading reached, only a grid's size and its borders as drawn (read.is_sudoku's inputs)."""
    from kkvision.vision.cages import group, rows
    from kkvision.vision.stages import CageLayout, GridGeometry, Reached

    right, down = right.copy(), down.copy()
    right[:, -1] = True
    down[-1, :] = True
    cages = tuple(tuple(sorted(g)) for g in group(n, right, down))
    layout = CageLayout(cages, rows(right), rows(down), 1.0)
    geom = GridGeometry(n, ((0, 0), (900, 0), (900, 900), (0, 900)), tuple(np.linspace(0, 900, n + 1)),
                        tuple(np.linspace(0, 900, n + 1)), homography=np.eye(3))
    return Reached(geometry=geom, drawn=layout)


@pytest.mark.parametrize("n,tall", [(9, 3), (6, 2), (6, 3), (4, 2)])
def test_a_sudoku_is_known_by_its_boxes_even_with_a_few_borders_missed(n, tall):
    from kkvision.vision.read import is_sudoku

    wide = n // tall
    right = np.tile(((np.arange(n) + 1) % wide == 0), (n, 1))
    down = np.tile(((np.arange(n) + 1) % tall == 0)[:, None], (1, n))
    assert is_sudoku(_drawn(n, right, down))
    if n == 9:  # a box line half missed, a cell line taken for one: 6 of 144 edges
        right[0:4, 5] = False
        down[1, 3:5] = True
        assert is_sudoku(_drawn(n, right, down))


def _kenken_drawn(n: int, seed: int):
    """A random KenKen's puzzle, and what a reading reached: its size and its cages as drawn."""
    puzzle, _ = random_puzzle(n, seed=seed, unique=False)
    where = {cell: k for k, cage in enumerate(puzzle.cages) for cell in cage.cells}
    right = np.array([[c == n - 1 or where[(r, c)] != where[(r, c + 1)] for c in range(n)] for r in range(n)])
    down = np.array([[r == n - 1 or where[(r, c)] != where[(r + 1, c)] for c in range(n)] for r in range(n)])
    return puzzle, _drawn(n, right, down)


@pytest.mark.parametrize("n", [4, 6, 8, 9])
def test_a_kenkens_cages_are_no_sudoku(n):
    from kkvision.vision.read import is_sudoku

    for seed in range(30):
        assert not is_sudoku(_kenken_drawn(n, seed)[1]), seed


def test_a_refused_grid_is_judged_by_what_its_reading_reached_and_traces_are_only_written(monkeypatch):
    """read.py judges a refused grid by the frozen record its reading returns (stages.Reached), with
    no traces asked for: on a page of a sudoku and a KenKen, both refused, the sudoku (its cages as drawn
    are its boxes) is left out and the KenKen kept, its labels as read in the Refusal.  Traces, when
    asked for, are those records and change nothing read."""
    from dataclasses import replace

    from kkvision.errors import ClueUnreadable
    from kkvision.vision import read
    from kkvision.vision.stages import ClueReading, Reached, Refusal, VisionOptions

    n = 9
    boxes = np.tile((np.arange(n) + 1) % 3 == 0, (n, 1))
    sudoku = _drawn(n, boxes, boxes.T.copy())
    puzzle, kenken = _kenken_drawn(n, 0)
    kenken = replace(kenken, clues=tuple(ClueReading(cage.cells, ((cage.label, 1.0),)) for cage in puzzle.cages))
    errors = {1: ClueUnreadable("the sudoku's"), 2: ClueUnreadable("the KenKen's")}
    records = {1: sudoku, 2: kenken}
    monkeypatch.setattr(read, "searches", lambda image: iter([[(sudoku.geometry, None), (kenken.geometry, None)]]))
    monkeypatch.setattr(read, "_read_grid", lambda image, geom, square, name, opts: read.Attempt(
        records[int(name[-1])], errors[int(name[-1])]))
    traces: dict[int, Reached] = {}
    for asked in (None, traces):
        count, [(k, refusal)] = read.read_page(np.zeros((9, 9), np.uint8), "x", VisionOptions(), traces=asked)
        assert (count, k) == (2, 2) and isinstance(refusal, Refusal) and refusal.error is errors[2]
        assert refusal.seen is not None and [cage for _, cage, _ in refusal.seen.cages] == list(puzzle.cages)
    assert traces.keys() == records.keys() and all(traces[k] is reached for k, reached in records.items())


def test_each_later_look_writes_its_debug_pictures_to_its_own_folder(monkeypatch, tmp_path):
    """--debug-dir: the first look at a picture that finds grids writes to the folder itself, each later
    one to look-J (an ad's sudoku found by the second look must not hide what the first made of the
    KenKen); a page of several grids in one look still writes puzzle-K in that look's folder."""
    from kkvision.errors import ClueUnreadable
    from kkvision.vision import read
    from kkvision.vision.stages import VisionOptions

    _, kenken = _kenken_drawn(6, 0)
    looks = [[(kenken.geometry, None)], [], [(kenken.geometry, None), (kenken.geometry, None)]]
    monkeypatch.setattr(read, "searches", lambda image: iter(looks))
    folders: list[object] = []

    def read_grid(image, geom, square, name, opts):
        folders.append(opts.debug_dir)
        return read.Attempt(kenken, ClueUnreadable("refused"))

    monkeypatch.setattr(read, "_read_grid", read_grid)
    read.read_page(np.zeros((9, 9), np.uint8), "x", VisionOptions(debug_dir=tmp_path))
    assert folders == [tmp_path, tmp_path / "look-2" / "puzzle-1", tmp_path / "look-2" / "puzzle-2"]
    folders.clear()
    read.read_page(np.zeros((9, 9), np.uint8), "x", VisionOptions())
    assert folders == [None, None, None]


@pytest.mark.parametrize("angle", [-1.5, 1.2])
def test_a_frame_touching_a_rule_on_a_page_scanned_askew_is_a_candidate(angle):
    """A rule along the frame's left side, longer than it and touching it, makes the frame's outline
    no four-cornered one; on a page scanned askew the frame's top and bottom lines also lean out of
    the rows an upright rectangle is closed in.  The long lines' lean is measured and the rectangles
    are looked for in the mask turned upright: the frame is a candidate."""
    from kkvision.vision.grid.candidates import frame_candidates

    mask = np.zeros((1000, 760), np.uint8)
    x0, y0, side, n = 150, 250, 480, 6
    for k in range(n + 1):  # the grid: a heavy frame, thin cell lines
        t = 5 if k in (0, n) else 1
        cv2.line(mask, (x0 + k * side // n, y0), (x0 + k * side // n, y0 + side), 255, t)
        cv2.line(mask, (x0, y0 + k * side // n), (x0 + side, y0 + k * side // n), 255, t)
    cv2.line(mask, (x0 - 4, y0 - 200), (x0 - 4, y0 + side + 220), 255, 3)  # the rule, touching the frame
    turn = cv2.getRotationMatrix2D((380, 500), angle, 1.0)
    askew = cv2.warpAffine(mask, turn, (760, 1000), flags=cv2.INTER_NEAREST)
    frame = cv2.transform(np.float32([[[x0, y0]], [[x0 + side, y0]], [[x0 + side, y0 + side]], [[x0, y0 + side]]]),
                          turn).reshape(4, 2)
    quads = frame_candidates(askew, page=True)
    assert any(np.abs(q - frame).max() < 8 for q in quads)


def _square(n_lines: int, heavy_every: int, text: bool) -> np.ndarray:
    """A straightened 900 px grid square: n_lines x n_lines cells, every heavy_every-th line heavy,
    with a label and a big answer digit in each cell when `text`."""
    import cv2

    sq = np.full((900, 900), 235, np.uint8)
    step = 900 / n_lines
    for k in range(n_lines + 1):
        at, w = int(round(k * step)), 8 if k % heavy_every == 0 else 2
        sq[:, max(0, at - w // 2):at + w // 2 + 1] = 20
        sq[max(0, at - w // 2):at + w // 2 + 1, :] = 20
    if text:
        for r in range(n_lines):
            for c in range(n_lines):
                x, y = int(c * step), int(r * step)
                cv2.putText(sq, "12+", (x + 12, y + 50), cv2.FONT_HERSHEY_SIMPLEX, 1.3, 20, 3)
                cv2.putText(sq, str(1 + (r + c) % 3), (x + 110, y + 220), cv2.FONT_HERSHEY_SIMPLEX, 4, 40, 8)
    return sq


def test_a_sudoku_thumbnail_found_as_a_3x3_of_its_boxes_is_a_sudoku_and_a_3x3_kenken_is_not():
    """An ad's sudoku thumbnail is too small for its cell lines to be judged: its 3x3 boxes come
    out as a 3x3 grid, its givens read as labels.  Traced in full, each of its cells is crossed by
    lines at its thirds; a KenKen's cells never are (labels, answers, no lines through them)."""
    from kkvision.vision.read import is_sudoku
    from kkvision.vision.stages import GridGeometry, Reached

    geom = GridGeometry(3, ((0, 0), (900, 0), (900, 900), (0, 900)), (0, 300, 600, 900), (0, 300, 600, 900),
                        homography=np.eye(3))
    assert is_sudoku(Reached(geometry=geom, square=_square(9, 3, text=False)))
    assert not is_sudoku(Reached(geometry=geom, square=_square(3, 1, text=True)))
    assert not is_sudoku(Reached(geometry=geom, square=_square(3, 1, text=False)))


@pytest.mark.parametrize("light_on_dark", [False, True])
def test_cage_fills_of_a_few_shades_are_no_crossword_blocks_and_solid_cells_are(light_on_dark):
    """A dark theme's cages filled in shades a little apart (a page Chromium drew: 8x8 on a dark
    canvas) was left out as a crossword: the test looked at its square turned back to dark paper,
    where the shades spread as far as its ink.  The square is dark ink on light paper either way
    (GridGeometry.square turns a dark theme's negative); cells filled solid are blocks either way."""
    from kkvision.vision.read import is_crossword
    from kkvision.vision.stages import GridGeometry, Reached

    n, step = 8, 900 / 8
    lines = tuple(k * step for k in range(n + 1))
    geom = GridGeometry(n, ((0, 0), (900, 0), (900, 900), (0, 900)), lines, lines, homography=np.eye(3),
                        light_on_dark=light_on_dark)
    square = np.full((900, 900), 215, np.uint8)
    for r in range(n):
        for c in range(n):
            square[int(r * step):int((r + 1) * step), int(c * step):int((c + 1) * step)] = 202 + 13 * ((r * 3 + c) % 2)
    for k in range(n + 1):
        at = int(round(k * step))
        square[:, max(0, at - 3):at + 4] = 20
        square[max(0, at - 3):at + 4, :] = 20
    assert not is_crossword(Reached(geometry=geom, square=square))
    for r, c in ((1, 2), (4, 5), (6, 0), (2, 7), (7, 3)):
        square[int(r * step) + 4:int((r + 1) * step) - 3, int(c * step) + 4:int((c + 1) * step) - 3] = 25
    assert is_crossword(Reached(geometry=geom, square=square))
