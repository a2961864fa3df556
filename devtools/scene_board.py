"""The puzzle board of a scene, drawn as apps, web sites and print draw it, and other grids beside it.

`draw_board` draws a KenKen grid onto a picture at a place and size: cell
backgrounds (cage colours, a highlighted row and column, a selected cell),
thin cell lines (solid, dashed or none), cage borders (thick lines, inset
outlines, solid or dashed, in any colour, or none: cages told by their fill
colour alone, as some desktop apps draw them), a frame (any width, rounded or
square), labels (any font, 10..45% of the cell high, any spelling of the
operators), and what a user or an app wrote in: answers (typed, handwritten,
drawn as kkvision draws them) and pencil marks.  It returns the grid's
corners in the picture (the frame's outer edge).

`draw_sudoku` and `draw_crossword` draw the grids that share a page with
KenKens and are no KenKen.  Sizes are fractions of the cell side, so every
board scales alike.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from devtools.synth import find_font
from kkvision.puzzle import Grid, Puzzle
from kkvision.render import dashed

RGB = tuple[int, int, int]
Cell = tuple[int, int]
Corners = tuple[tuple[float, float], ...]  # tl, tr, br, bl

MINUS = ("−", "-", "—", "–")  # every minus seen: the minus sign, the hyphen, the long and the short dash
TIMES = ("×", "x", "*", "X")
DIVIDE = ("÷", "/")
KKVISION_DIGITS = ("DejaVuSans-Bold.ttf", (20, 70, 220))  # how kkvision draws a solution (render.py)


@lru_cache(maxsize=512)
def font(name: str, size: int) -> ImageFont.FreeTypeFont:
    """An installed font by file name (or path) at a pixel size; DejaVu Sans when it is missing."""
    path = name if name.startswith("/") else str(find_font(name) or find_font("DejaVuSans.ttf"))
    return ImageFont.truetype(path, max(6, int(size)))


@lru_cache(maxsize=256)
def digit_height(name: str) -> float:
    """A font's digit height as a fraction of its pixel size."""
    f = font(name, 200)
    box = f.getbbox("8", anchor="ls")
    return max(0.3, -box[1] / 200)


def sized(name: str, height: float) -> ImageFont.FreeTypeFont:
    """The font at the size whose digits are `height` px high."""
    return font(name, round(height / digit_height(name)))


def has_glyph(f: ImageFont.FreeTypeFont, ch: str) -> bool:
    """Whether the font draws `ch` (not its missing-glyph box)."""
    missing = f.getmask("\uffff").getbbox()
    return f.getmask(ch).getbbox() != missing if missing else f.getmask(ch).getbbox() is not None


def glyph(f: ImageFont.FreeTypeFont, ch: str) -> str:
    """`ch`, or its ASCII spelling when the font lacks it."""
    return ch if ch.isascii() or has_glyph(f, ch) else {"−": "-", "—": "-", "–": "-", "×": "x", "÷": "/"}.get(ch, ch)


@dataclass(frozen=True)
class Fill:
    """What was written into the cells: answers (digit, how) and pencil marks."""

    answers: dict[Cell, tuple[int, str]] = field(default_factory=dict)  # how: typed, written, drawn
    pencil: dict[Cell, tuple[int, ...]] = field(default_factory=dict)
    typed_font: str = "DejaVuSans.ttf"
    typed_colour: RGB = (40, 60, 160)
    typed_size: float = 0.42  # digit height / cell
    hand_fonts: tuple[str, ...] = ("DejaVuSans.ttf",)
    pen: RGB = (20, 30, 120)
    pencil_font: str = "DejaVuSans.ttf"
    pencil_colour: RGB = (90, 90, 90)
    pencil_layout: str = "grid"  # 'grid' (digit k at its place of a 3x3) or 'row' (along the bottom)
    seed: int = 0
    writer: int | None = None  # written answers in this real writer's hand (devtools/hands.py), not a font's
    hand_style: str = "mnist"  # ... looking so (devtools/hands.HAND_STYLES)
    hand_size: tuple[float, float] = (0.36, 0.56)  # a written digit's height / cell, drawn in this range
    # how a written digit's ink meets what is under it: 'over' (an app's or a page's drawing layer: the pen's
    # colour covers the label and lines it crosses) or 'paper' (a pen on printed paper: inks absorb, so the
    # print stays dark where the pen crosses it and a coloured pen over a cage's tint is darker than either)
    ink: str = "over"


@dataclass(frozen=True)
class BoardStyle:
    cell: float  # px
    paper: RGB = (255, 255, 255)
    thin: int = 1
    thin_colour: RGB = (120, 120, 120)
    thin_style: str = "solid"  # solid, dashed, none
    border: str = "thick"  # thick, outline, dashed (inset outlines of each cage), colour (no line: fills alone)
    thick: int = 5
    line: RGB = (0, 0, 0)  # cage borders
    cage_colours: tuple[RGB, ...] = ()  # outline colours per cage (cycled); () = `line`
    fills: tuple[RGB, ...] = ()  # cage backgrounds, neighbours differ; () = plain paper
    frame: int = 6
    frame_colour: RGB = (0, 0, 0)
    radius: float = 0.0  # rounded frame corners, fraction of a cell
    label_font: str = "DejaVuSans-Bold.ttf"
    label_frac: float = 0.2  # digit height / cell
    label_colour: RGB = (0, 0, 0)
    margin: float = 0.07  # label's distance from the cell's corner / cell
    minus: str = "−"
    times: str = "×"
    divide: str = "÷"
    given: str = ""  # printed after a single cell's digit ('+': some apps print a given 7 as '7+')
    highlight: tuple[int, int] | None = None  # row, column shaded (an app's selected cell's lines)
    highlight_colour: RGB = (225, 235, 250)
    selected: Cell | None = None
    selected_colour: RGB = (255, 250, 150)


def label_of(op: str, target: int, st: BoardStyle, f: ImageFont.FreeTypeFont) -> str:
    ch = {"+": "+", "-": st.minus, "*": st.times, "/": st.divide, "=": st.given}.get(op, "")
    return f"{target}{glyph(f, ch)}"


def _owner(puzzle: Puzzle) -> dict[Cell, int]:
    return {cell: k for k, cage in enumerate(puzzle.cages) for cell in cage.cells}


COLOURING_STEPS = 100_000  # a proper colouring not found in this many placements is given up on (none is near it)


def cage_colouring(puzzle: Puzzle, colours: int, rng: random.Random, proper: bool = False) -> list[int]:
    """A colour index per cage, neighbouring cages different (greedy, random order; where the colours run
    out a neighbour's is reused).  `proper`: never reused (a board whose cages are told by colour alone),
    by backtracking over the cages in a random order."""
    owner = _owner(puzzle)
    near: dict[int, set[int]] = {k: set() for k in range(len(puzzle.cages))}
    for (r, c), k in owner.items():
        for nb in ((r + 1, c), (r, c + 1)):
            if nb in owner and owner[nb] != k:
                near[k].add(owner[nb])
                near[owner[nb]].add(k)
    out = [-1] * len(puzzle.cages)
    order = list(range(len(puzzle.cages)))
    rng.shuffle(order)
    if proper:
        order.sort(key=lambda k: -len(near[k]))  # the most constrained first: backtracking stays short
        tries = [rng.sample(range(colours), colours) for _ in order]
        steps = [0]

        def place(i: int) -> bool:
            if i == len(order):
                return True
            steps[0] += 1
            if steps[0] > COLOURING_STEPS:
                return False
            k = order[i]
            for colour in tries[i]:
                if all(out[j] != colour for j in near[k]):
                    out[k] = colour
                    if place(i + 1):
                        return True
            out[k] = -1
            return False

        if not place(0):
            raise ValueError(f"the cages cannot be told apart by {colours} colours")
        return out
    for k in order:
        used = {out[j] for j in near[k]}
        free = [i for i in range(colours) if i not in used] or list(range(colours))
        out[k] = rng.choice(free)
    return out


def draw_board(img: Image.Image, x0: float, y0: float, puzzle: Puzzle, st: BoardStyle, rng: random.Random,
               fill: Fill | None = None) -> Corners:
    """The puzzle drawn with its top-left cell corner at (x0, y0); its frame's outer corners."""
    n, s = puzzle.size, st.cell
    d = ImageDraw.Draw(img)
    owner = _owner(puzzle)
    x1, y1 = x0 + n * s, y0 + n * s
    half = st.frame / 2
    outer = (x0 - half, y0 - half, x1 + half, y1 + half)
    rad = int(st.radius * s)
    d.rounded_rectangle(outer, radius=rad, fill=st.paper) if rad else d.rectangle(outer, fill=st.paper)

    def box(r: int, c: int) -> tuple[float, float, float, float]:
        return x0 + c * s, y0 + r * s, x0 + (c + 1) * s, y0 + (r + 1) * s

    if st.fills:
        colour_of = cage_colouring(puzzle, len(st.fills), rng, proper=st.border == "colour")
        for (r, c), k in owner.items():
            d.rectangle(box(r, c), fill=st.fills[colour_of[k]])
    by_colour = st.border == "colour"  # the fills are the cages: no highlight paints over them
    if st.highlight is not None and not by_colour:
        hr, hc = st.highlight
        for i in range(n):
            for cell in ((hr, i), (i, hc)):
                d.rectangle(box(*cell), fill=st.highlight_colour)
    if st.selected is not None and not by_colour:
        d.rectangle(box(*st.selected), fill=st.selected_colour)

    if st.thin_style != "none":
        for i in range(1, n):
            p = (x0 + i * s, y0 + i * s)
            for seg in ([(p[0], y0), (p[0], y1)], [(x0, p[1]), (x1, p[1])]):
                if st.thin_style == "dashed":
                    dashed(d, seg, st.thin_colour, st.thin, max(3.0, s / 10))
                else:
                    d.line(seg, fill=st.thin_colour, width=st.thin)

    if st.border == "thick":
        t = st.thick
        for (r, c), k in owner.items():
            bx0, by0, bx1, by1 = box(r, c)
            if c + 1 < n and owner[(r, c + 1)] != k:  # the line runs on over the crossing, not past the frame
                d.line([(bx1, max(y0, by0 - t / 2 + 1)), (bx1, min(y1, by1 + t / 2))], fill=st.line, width=t)
            if r + 1 < n and owner[(r + 1, c)] != k:
                d.line([(max(x0, bx0 - t / 2 + 1), by1), (min(x1, bx1 + t / 2), by1)], fill=st.line, width=t)
    elif st.border != "colour":
        _outlines(d, puzzle, st, x0, y0)

    if st.selected is not None and by_colour:  # the selected cell outlined inside, its fill kept
        bx0, by0, bx1, by1 = box(*st.selected)
        w = max(2, int(0.04 * s))
        d.rectangle((bx0 + w, by0 + w, bx1 - w, by1 - w), outline=st.selected_colour, width=w)

    if st.frame > 0:
        fw = int(st.frame)
        if rad:
            d.rounded_rectangle(outer, radius=rad, outline=st.frame_colour, width=fw)
        else:
            d.rectangle(outer, outline=st.frame_colour, width=fw)

    lf = sized(st.label_font, st.label_frac * s)
    for cage in puzzle.cages:
        r, c = cage.anchor
        bx0, by0, _, _ = box(r, c)
        text = label_of(cage.op, cage.target, st, lf)
        room = s * (1 - 2 * st.margin) - st.thick / 2
        f = lf
        while f.getlength(text) > room and f.size > 7:
            f = font(str(f.path), f.size - 1)
        inset = st.margin * s + (st.thick / 2 if st.border == "thick" else 0)
        top = by0 + inset + (st.margin * s * 0.5 if st.border != "thick" else 0)
        height = -f.getbbox("8", anchor="ls")[1]
        if st.border not in ("thick", "colour"):  # the cage outline breaks round the label, as killer-sudoku apps draw it
            tb = d.textbbox((bx0 + inset, top + height), text, font=f, anchor="ls")
            under = st.fills[colour_of[owner[(r, c)]]] if st.fills else st.paper
            d.rectangle([tb[0] - 2, tb[1] - 2, tb[2] + 2, tb[3] + 2], fill=under)
        d.text((bx0 + inset, top + height), text, font=f, fill=st.label_colour, anchor="ls")

    if fill is not None:
        _fill(img, puzzle.size, x0, y0, s, st, fill)
    return ((outer[0], outer[1]), (outer[2], outer[1]), (outer[2], outer[3]), (outer[0], outer[3]))


def _outlines(d: ImageDraw.ImageDraw, puzzle: Puzzle, st: BoardStyle, x0: float, y0: float) -> None:
    """Each cage as an outline inset in its cells (solid or dashed), as killer-sudoku-like apps draw them."""
    s = st.cell
    scale = 4 if s < 40 else 2  # the mask's pixels per picture pixel, for smooth contours
    step = s * scale
    inset = max(2.0, 0.08 * s)
    width = max(1, int(st.thick * 0.5))
    for k, cage in enumerate(puzzle.cages):
        r0, c0 = min(r for r, _ in cage.cells), min(c for _, c in cage.cells)  # the mask covers the cage's box
        rows, cols = max(r for r, _ in cage.cells) - r0 + 1, max(c for _, c in cage.cells) - c0 + 1
        mask: np.ndarray = np.zeros((int(np.ceil(rows * step)) + 4, int(np.ceil(cols * step)) + 4), np.uint8)
        for r, c in cage.cells:
            r, c = r - r0, c - c0
            mask[int(r * step) + 2:int((r + 1) * step) + 2, int(c * step) + 2:int((c + 1) * step) + 2] = 255
        e = max(1, int(round(inset * scale)))
        mask = cv2.erode(mask, np.ones((2 * e + 1, 2 * e + 1), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        colour = st.cage_colours[k % len(st.cage_colours)] if st.cage_colours else st.line
        bx, by = x0 + c0 * s, y0 + r0 * s
        for cnt in contours:  # a contour runs through the mask's edge pixels: their middles, half a pixel in
            pts = [(bx + (float(px) - 1.5) / scale, by + (float(py) - 1.5) / scale) for px, py in cnt[:, 0, :]]
            if st.border == "dashed":
                dashed(d, pts, colour, width, max(3.0, s / 12), closed=True)
            else:
                d.line(pts + pts[:1], fill=colour, width=width, joint="curve")


def _fill(img: Image.Image, n: int, x0: float, y0: float, s: float, st: BoardStyle, fill: Fill) -> None:
    """Answers and pencil marks written into the cells."""
    rng = random.Random(fill.seed)
    d = ImageDraw.Draw(img)
    below = st.margin + st.label_frac * 1.1 + 0.04  # where the tallest label ends, a fraction of the cell
    size = min(fill.typed_size, 0.94 - below)  # an app fits its answer under the label
    for (r, c), (digit, how) in sorted(fill.answers.items()):
        cx, cy = x0 + (c + 0.5) * s, y0 + r * s
        if how == "typed":
            f = sized(fill.typed_font, size * s)
            mid = max(0.58, below + size / 2)
            d.text((cx, cy + mid * s + size * s / 2), str(digit), font=f, fill=fill.typed_colour, anchor="ms")
        elif how == "drawn":
            f = font(KKVISION_DIGITS[0], int(0.5 * s))
            d.text((cx, cy + 0.62 * s), str(digit), font=f, fill=KKVISION_DIGITS[1], anchor="mm")
        else:
            _handwritten(img, digit, (cx, cy + 0.58 * s), s, fill, rng)
    top = min(0.5, st.margin + st.label_frac * 1.15 + 0.12)  # pencil marks start under the tallest label
    for (r, c), marks in sorted(fill.pencil.items()):
        f = sized(fill.pencil_font, s * min(0.15, (0.92 - top) / 3.6) * rng.uniform(0.75, 1))
        bx, by = x0 + c * s, y0 + r * s
        for i, m in enumerate(marks):
            if fill.pencil_layout == "grid":
                gx, gy = (m - 1) % 3, (m - 1) // 3
                at = (bx + s * (0.25 + 0.25 * gx), by + s * (top + (0.92 - top) * (gy + 0.5) / 3))
            else:
                at = (bx + s * (0.12 + 0.8 * (i + 0.5) / max(4, len(marks))), by + s * 0.82)
            if fill.writer is not None:  # the same hand's candidates, small
                _real_hand(img, m, (at[0], at[1] + 0.08 * s), s, replace(fill, pen=fill.pencil_colour,
                           hand_size=PENCIL_HAND), rng, stray=0.0)
            else:
                d.text(at, str(m), font=f, fill=fill.pencil_colour, anchor="mm")


def _handwritten(img: Image.Image, digit: int, centre: tuple[float, float], s: float, fill: Fill,
                 rng: random.Random) -> None:
    """A digit as a hand writes it: a handwriting font, a size, slant and place of its own, pen colour."""
    if fill.writer is not None:
        _real_hand(img, digit, centre, s, fill, rng)
        return
    name = rng.choice(fill.hand_fonts)
    f = sized(name, s * rng.uniform(*fill.hand_size))
    tile = Image.new("L", (int(s * 1.2), int(s * 1.2)), 0)
    ImageDraw.Draw(tile).text((tile.width / 2, tile.height / 2), str(digit), font=f, fill=255, anchor="mm")
    shear = rng.uniform(-0.25, 0.1)
    tile = tile.transform(tile.size, Image.Transform.AFFINE, (1, shear, -shear * tile.height / 2, 0, 1, 0),
                          resample=Image.Resampling.BILINEAR)
    tile = tile.rotate(rng.uniform(-12, 12), resample=Image.Resampling.BICUBIC)
    x = int(centre[0] - tile.width / 2 + rng.uniform(-0.08, 0.08) * s)
    y = int(centre[1] - tile.height / 2 + rng.uniform(-0.06, 0.08) * s)
    _put(img, tile, (x, y), fill)


def _put(img: Image.Image, tile: Image.Image, at: tuple[int, int], fill: Fill) -> None:
    """The pen's ink `tile` (coverage 0..255) put on `img` with its top left at `at`, as `fill.ink` says."""
    if fill.ink == "over":
        img.paste(Image.new("RGB", tile.size, fill.pen), at, tile)
        return
    box = (at[0], at[1], at[0] + tile.width, at[1] + tile.height)
    under = np.asarray(img.crop(box), np.float32)  # (padded with black outside the picture: paste clips it off)
    cover = np.asarray(tile, np.float32)[..., None] / 255.0
    passed = 1.0 - cover * (1.0 - np.asarray(fill.pen, np.float32) / 255.0)  # the light the pen's ink lets through
    img.paste(Image.fromarray(np.clip(under * passed + 0.5, 0, 255).astype(np.uint8)), at)  # no ink: as it was


PENCIL_HAND = (0.13, 0.2)  # a real hand's pencil candidates: digit height / cell


def _real_hand(img: Image.Image, digit: int, centre: tuple[float, float], s: float, fill: Fill,
               rng: random.Random, stray: float = 1.0) -> None:
    """A digit in the real writer's hand (one of the times they wrote it), at a size, lean and place of
    its own (`stray`: how far from `centre` it may be, 1 as answers are written): a big one fills the
    cell, over the label's corner and up to the cell's lines."""
    from devtools import hands

    height = s * rng.uniform(*fill.hand_size)
    ink = hands.draw(rng.choice(hands.hand(fill.writer)[digit]), height, rng, slant=rng.uniform(-0.3, 0.2),
                     turn=rng.uniform(-8, 8), style=fill.hand_style)
    room = max(0.0, (s - height) / 2)  # how far the digit may stray from the cell's middle and stay in it
    x = centre[0] + stray * rng.uniform(-0.12, 0.12) * s
    y = centre[1] - 0.08 * s + stray * rng.uniform(-0.5, 0.7) * room  # `centre` is the written answer's, below the middle
    tile = Image.fromarray(np.clip(ink, 0, 255).astype(np.uint8))
    _put(img, tile, (int(x - tile.width / 2), int(y - tile.height / 2)), fill)


def draw_sudoku(img: Image.Image, x0: float, y0: float, side: float, rng: random.Random, ink: RGB,
                paper: RGB, font_name: str) -> Corners:
    """A sudoku: 9x9, thick 3x3 boxes, a third of the cells given as big centred digits."""
    d = ImageDraw.Draw(img)
    s = side / 9
    d.rectangle([x0, y0, x0 + side, y0 + side], fill=paper)
    thin, thick = max(1, int(s * 0.03)), max(2, int(s * 0.08))
    for i in range(1, 9):
        w = thick if i % 3 == 0 else thin
        d.line([(x0 + i * s, y0), (x0 + i * s, y0 + side)], fill=ink, width=w)
        d.line([(x0, y0 + i * s), (x0 + side, y0 + i * s)], fill=ink, width=w)
    d.rectangle([x0, y0, x0 + side, y0 + side], outline=ink, width=thick)
    f = sized(font_name, s * 0.5)
    for r in range(9):
        for c in range(9):
            if rng.random() < 0.35:
                d.text((x0 + (c + 0.5) * s, y0 + (r + 0.5) * s), str(rng.randint(1, 9)), font=f, fill=ink,
                       anchor="mm")
    return ((x0, y0), (x0 + side, y0), (x0 + side, y0 + side), (x0, y0 + side))


def draw_crossword(img: Image.Image, x0: float, y0: float, side: float, rng: random.Random, ink: RGB,
                   paper: RGB, font_name: str) -> Corners:
    """A crossword: 11..15 square, black squares in rotational symmetry, small numbers at word starts."""
    n = rng.choice([11, 13, 15])
    s = side / n
    black = np.zeros((n, n), bool)
    for _ in range(n * n // 7):
        r, c = rng.randrange(n), rng.randrange(n)
        black[r, c] = black[n - 1 - r, n - 1 - c] = True
    d = ImageDraw.Draw(img)
    d.rectangle([x0, y0, x0 + side, y0 + side], fill=paper)
    f = sized(font_name, s * 0.22)
    number = 1
    for r in range(n):
        for c in range(n):
            bx, by = x0 + c * s, y0 + r * s
            if black[r, c]:
                d.rectangle([bx, by, bx + s, by + s], fill=ink)
                continue
            across = (c == 0 or black[r, c - 1]) and c + 1 < n and not black[r, c + 1]
            down = (r == 0 or black[r - 1, c]) and r + 1 < n and not black[r + 1, c]
            if across or down:
                d.text((bx + s * 0.08, by + s * 0.08 + f.size * digit_height(str(f.path))), str(number),
                       font=f, fill=ink, anchor="ls")
                number += 1
    for i in range(1, n):
        d.line([(x0 + i * s, y0), (x0 + i * s, y0 + side)], fill=ink, width=max(1, int(s * 0.04)))
        d.line([(x0, y0 + i * s), (x0 + side, y0 + i * s)], fill=ink, width=max(1, int(s * 0.04)))
    d.rectangle([x0, y0, x0 + side, y0 + side], outline=ink, width=max(2, int(s * 0.08)))
    return ((x0, y0), (x0 + side, y0), (x0 + side, y0 + side), (x0, y0 + side))


def solution_fill(grid: Grid, rng: random.Random, share: float, kinds: tuple[str, ...], wrong: float = 0.0
                  ) -> dict[Cell, tuple[int, str]]:
    """Answers in about `share` of the cells, each written one of `kinds` of way; a few wrong when asked."""
    n = len(grid)
    out = {}
    for r in range(n):
        for c in range(n):
            if rng.random() < share:
                v = grid[r][c]
                if rng.random() < wrong:
                    v = rng.choice([k for k in range(1, n + 1) if k != v])
                out[(r, c)] = (v, rng.choice(kinds))
    return out
