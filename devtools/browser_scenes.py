"""KenKen web pages laid out and drawn by a real browser: a renderer none of kkvision's models or scenes use.

    render(seeds, heldout=False) -> Iterator[Scene]     (one Chromium for all of them)

Every other picture the project makes (devtools/synth.py, devtools/scenes.py, the label
model's crops) is drawn by PIL and OpenCV.  Puzzle websites and many apps are drawn by a
browser: its layout (collapsed table borders, grid gaps, SVG strokes, a canvas scaled by the
device's pixel ratio), its text (hinting, subpixel placement, CSS's synthetic bold and
oblique) and its colours come from code this project never wrote.  So these pages are a
source held out by construction, the nearest this machine can make to a site nobody here
has seen: bench/browser.py scores them, and nothing trains on them.

A page draws one KenKen as one of four structures (STRUCTURES):
  table   an HTML table, collapsed borders: thin cell lines, thick cage sides
  gaps    a CSS grid whose gap shows the thin lines, cage sides drawn inside each cell
  svg     an SVG of cell squares, a line lattice and cage segments, labels as <text>
  canvas  a 2D canvas drawn by script (sharp at the device's pixel ratio, or not: blurred)
with a label font (CSS family, weight, italic), label size and padding, operator glyphs,
colours (light or dark, cage fills), a frame (width, rounded), furniture (a header, text,
buttons, a keypad of digit buttons, a timer), a viewport and device pixel ratio, PNG or
JPEG, and sometimes answers or pencil marks typed into cells.  `heldout=True` scenes use
only the font designs the label models never saw (train_labels.HELDOUT); the others use
faces the models saw, drawn by another renderer.

Needs Playwright (the `serve` extra) and Chromium from the system's packages (scripts/setup.sh).
"""

from __future__ import annotations

import html
import json
import random
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from devtools.generate import random_puzzle
from devtools.scene_board import Corners
from devtools.scenes import Scene, Truth
from kkvision.puzzle import Grid, Puzzle
from kkvision.vocab import Cell

FAMILY = "browser"
STRUCTURES = ("table", "gaps", "svg", "canvas")
# CSS families installed by scripts/setup.sh.  TRAIN faces were in the label models' training (drawn by
# PIL); HELDOUT ones are devtools/train_labels.HELDOUT's designs, which no model saw.
TRAIN_FACES = ("DejaVu Sans", "Liberation Sans", "Arimo", "Roboto", "Open Sans", "Lato", "Inter", "Cabin",
               "Manrope", "Quicksand", "Oxygen", "Go", "PT Sans", "Cantarell", "Carlito", "Liberation Serif",
               "DejaVu Serif", "Roboto Slab", "JetBrains Mono", "Hack", "Play", "Jura", "Andika", "Tuffy",
               "sans-serif", "serif", "monospace")
HELDOUT_FACES = ("Nimbus Sans", "Nimbus Roman", "URW Gothic", "C059", "P052", "URW Bookman", "Nimbus Mono PS",
                 "Comfortaa", "Fira Code", "Clear Sans", "League Spartan", "Dosis", "B612", "Karla")
MINUS = ("-", "−", "–", "—")
TIMES = ("×", "×", "x", "*", "X", "·")
DIVIDE = ("÷", "÷", "/")
LIGHT = {"bg": ("#ffffff", "#f5f5f5", "#fafaf7", "#eef2f7", "#fffbea", "#f0f4ec"),
         "ink": ("#000000", "#111111", "#222244", "#333333", "#1a237e", "#3e2723"),
         "thin": ("#bbbbbb", "#999999", "#cccccc", "#a0a8b8", "#d0d0d0", "#888888"),
         "fills": ("#ffe4e1", "#e1f5e1", "#e1ebff", "#fffad2", "#f0e1fa", "#dcf5f5", "#fde0c5")}
DARK = {"bg": ("#121212", "#1e1e1e", "#0d1117", "#222831", "#101820"),
        "ink": ("#ffffff", "#e0e0e0", "#f5f5dc", "#cfd8dc", "#ffd54f"),
        "thin": ("#555555", "#444444", "#666666", "#3a4a5a"),
        "fills": ("#2a2438", "#1f3a2a", "#1a2a44", "#3a2a1a", "#2a3a3a")}
MIN_LABEL = 9  # CSS px: the smallest label font a site uses (browsers' own minimum font size is 6..10 px)
PHOTO = 0.25  # share of pages photographed off the screen rather than screenshot
ANSWER = 0.5  # a typed answer's font size, share of the cell: set low in the cell, clear of a label
WORDS = ("each cage shows a target and an operator fill the grid so that every row and column holds "
         "each digit once today's puzzle difficulty medium tap a cell then a number").split()


@dataclass(frozen=True)
class Look:
    """Every choice that draws one page."""

    structure: str
    face: str
    weight: int
    italic: bool
    label: float  # label font size, share of the cell
    pad: float  # label's padding inside its cell's lines, share of the cell
    cell: int  # CSS px
    thin: float  # CSS px
    thick: float
    frame: float
    radius: float
    dark: bool
    bg: str
    paper: str
    ink: str
    line: str
    thin_colour: str
    thin_style: str  # solid, dotted or dashed
    fills: tuple[str, ...]  # cage backgrounds ('' none)
    spaced: bool  # '12 +' rather than '12+'
    minus: str
    times: str
    divide: str
    dpr: float
    width: int  # viewport, CSS px
    keypad: bool
    chrome: bool  # header, text and buttons round the grid
    answers: float  # share of cells with their answer typed in
    pencil: float  # share of the empty cells with pencil marks
    jpeg: int  # 0: PNG, else JPEG quality
    sharp_canvas: bool


def _look(rng: random.Random, n: int, heldout: bool) -> Look:
    dark = rng.random() < 0.25
    pal = DARK if dark else LIGHT
    thick = rng.choice([2, 2.5, 3, 3, 4, 5])
    structure = rng.choice(STRUCTURES)
    width = rng.choice([360, 390, 412, 768, 1024, 1280])
    # a page lays the board out to fit its width, as sites do on a phone (margins and frame aside)
    cell = min(rng.randint(30, 88) if n <= 6 else rng.randint(28, 70), (width - 100) // n)
    fills = tuple(rng.sample(pal["fills"], k=len(pal["fills"]))) if rng.random() < 0.25 else ()
    bg = rng.choice(pal["bg"])
    answers = rng.choice([0, 0, 0, 0, 0.3, 0.7, 1.0])
    return Look(
        structure=structure,
        face=rng.choice(HELDOUT_FACES if heldout else TRAIN_FACES),
        weight=rng.choice([400, 400, 500, 600, 700, 700, 800]),
        italic=rng.random() < 0.08,
        # answers sit below the label; no site prints its labels smaller than MIN_LABEL
        label=max(rng.uniform(0.14, 0.36) if answers == 0 else rng.uniform(0.14, 0.26), MIN_LABEL / cell),
        pad=rng.uniform(0.03, 0.1),
        cell=cell,
        thin=rng.choice([1, 1, 1, 0.5, 1.5, 2]) if thick >= 3 else 1,
        thick=thick,
        frame=max(thick, rng.choice([thick, thick, thick + 1, thick + 2, 6])),
        radius=rng.choice([0, 0, 0, 4, 8]),
        dark=dark,
        bg=bg,
        paper=bg if rng.random() < 0.5 else ("#1b1b1b" if dark else "#ffffff"),
        ink=rng.choice(pal["ink"]),
        line=rng.choice(pal["ink"]),
        thin_colour=rng.choice(pal["thin"]),
        thin_style=rng.choices(["solid", "dotted", "dashed"], weights=[8, 1, 1])[0],
        fills=fills,
        spaced=rng.random() < 0.15,
        minus=rng.choice(MINUS),
        times=rng.choice(TIMES),
        divide=rng.choice(DIVIDE),
        dpr=rng.choice([1, 1, 1.5, 2, 2, 3]),
        width=width,
        keypad=rng.random() < 0.4,
        chrome=rng.random() < 0.7,
        answers=answers,
        pencil=rng.choice([0, 0, 0, 0, 0.3]),
        jpeg=rng.choice([0, 0, 0, 85, 92]),
        sharp_canvas=rng.random() < 0.7,
    )


def _label(look: Look, op: str, target: int) -> str:
    glyph = {"+": "+", "-": look.minus, "*": look.times, "/": look.divide, "=": "", "?": ""}[op]
    return f"{target}{' ' if look.spaced and glyph else ''}{glyph}"


def _sides(owner: dict[Cell, int], n: int, r: int, c: int) -> tuple[bool, bool, bool, bool]:
    """Which of the cell's top, right, bottom, left sides are cage borders (the grid's edge is the frame's)."""
    k = owner[(r, c)]
    return (r > 0 and owner[(r - 1, c)] != k, c < n - 1 and owner[(r, c + 1)] != k,
            r < n - 1 and owner[(r + 1, c)] != k, c > 0 and owner[(r, c - 1)] != k)


def _marks(rng: random.Random, n: int, solution: Grid, look: Look) -> tuple[dict[Cell, int], dict[Cell, list[int]]]:
    cells = [(r, c) for r in range(n) for c in range(n)]
    answers = {cell: solution[cell[0]][cell[1]] for cell in cells if rng.random() < look.answers}
    pencil = {cell: sorted(rng.sample(range(1, n + 1), k=rng.randint(2, min(4, n))))
              for cell in cells if cell not in answers and rng.random() < look.pencil}
    return answers, pencil


def _font(look: Look, size: float) -> str:
    face = look.face if look.face in ("sans-serif", "serif", "monospace") else f"'{look.face}'"
    return (f"{'italic ' if look.italic else ''}{look.weight} {size:.1f}px {face}, sans-serif")


def _segments(owner: dict[Cell, int], n: int, s: float) -> list[tuple[float, float, float, float]]:
    """The cage borders inside the grid as line segments (x1, y1, x2, y2), CSS px from its top-left:
    each cell's right and bottom sides that are borders."""
    segs = []
    for r in range(n):
        for c in range(n):
            _, right, bottom, _ = _sides(owner, n, r, c)
            if right:
                segs.append(((c + 1) * s, r * s, (c + 1) * s, (r + 1) * s))
            if bottom:
                segs.append((c * s, (r + 1) * s, (c + 1) * s, (r + 1) * s))
    return segs


def _answer_colour(look: Look) -> str:
    return "#64b5f6" if look.dark else "#1565c0"


def _board_html(look: Look, puzzle: Puzzle, labels: dict[Cell, str], fill: dict[Cell, str],
                answers: dict[Cell, int], pencil: dict[Cell, list[int]]) -> str:
    """The board's element, id 'board': its box is the grid's frame."""
    owner = {cell: k for k, cage in enumerate(puzzle.cages) for cell in cage.cells}
    if look.structure in ("table", "gaps"):
        return _boxes(look, puzzle.size, owner, labels, fill, answers, pencil)
    if look.structure == "svg":
        return _svg(look, puzzle.size, owner, labels, fill, answers)
    return _canvas(look, puzzle.size, owner, labels, fill, answers)


def _boxes(look: Look, n: int, owner: dict[Cell, int], labels: dict[Cell, str], fill: dict[Cell, str],
           answers: dict[Cell, int], pencil: dict[Cell, list[int]]) -> str:
    """The board as HTML boxes: a table with collapsed borders, or a CSS grid whose gaps are the cell lines
    and whose cage sides are drawn inside each cell."""
    s = look.cell
    answer_css = f"font: 400 {s * ANSWER:.1f}px sans-serif; color: {_answer_colour(look)}"
    pencil_css = f"font: 400 {s * 0.2:.1f}px sans-serif; color: {look.thin_colour}"

    def side(thick: bool) -> str:
        return f"{look.thick}px solid {look.line}" if thick else f"{look.thin}px {look.thin_style} {look.thin_colour}"

    rows = []
    for r in range(n):
        tds = []
        for c in range(n):
            t, ri, b, le = _sides(owner, n, r, c)
            inner = ""
            if (r, c) in labels:
                inner += f'<span class="lb">{html.escape(labels[(r, c)])}</span>'
            if (r, c) in answers:
                inner += f'<span class="an">{answers[(r, c)]}</span>'
            elif (r, c) in pencil:
                inner += f'<span class="pm">{" ".join(map(str, pencil[(r, c)]))}</span>'
            if look.structure == "table":
                style = (f"border-top:{side(t)};border-right:{side(ri)};border-bottom:{side(b)};"
                         f"border-left:{side(le)};background:{fill.get((r, c), look.paper)}")
                tds.append(f'<td style="{style}">{inner}</td>')
            else:
                half = look.thick / 2
                shadow = ",".join(f"inset {dx}px {dy}px 0 0 {look.line}" for on, dx, dy in
                                  ((t, 0, half), (ri, -half, 0), (b, 0, -half), (le, half, 0)) if on)
                style = f"background:{fill.get((r, c), look.paper)};" + (f"box-shadow:{shadow}" if shadow else "")
                tds.append(f'<div class="cl" style="{style}">{inner}</div>')
        rows.append("<tr>" + "".join(tds) + "</tr>" if look.structure == "table" else "".join(tds))
    cell_css = (f"position:relative;width:{s}px;height:{s}px;padding:0;box-sizing:border-box;"
                f"text-align:center;vertical-align:middle")
    inset = _inset(look, s)
    common = (f".lb{{position:absolute;left:{inset:.1f}px;top:{inset:.1f}px;line-height:1;"
              f"font:{_font(look, look.label * s)};color:{look.ink};white-space:nowrap}}"
              f".an{{{answer_css};position:absolute;left:0;right:0;top:{s * (1 - ANSWER) * 0.8:.1f}px;line-height:1}}"
              f".pm{{{pencil_css};position:absolute;bottom:2px;left:0;right:0;letter-spacing:1px}}")
    if look.structure == "table":
        return (f"<style>#board{{border-collapse:collapse;border:{look.frame}px solid {look.line}}}"
                f"#board td{{{cell_css}}}{common}</style><table id=board>{''.join(rows)}</table>")
    return (f"<style>#board{{display:grid;grid-template-columns:repeat({n},{s}px);gap:{look.thin}px;"
            f"background:{look.thin_colour};border:{look.frame}px solid {look.line};width:max-content;"
            f"border-radius:{look.radius}px;overflow:hidden}}.cl{{{cell_css};display:flex;"
            f"align-items:center;justify-content:center}}{common}</style><div id=board>{''.join(rows)}</div>")


def _inset(look: Look, s: float) -> float:
    """How far a label sits from its cell's corner, the page's padding clear of the cell's lines: a
    table's borders lie outside the box the label is placed in; the gaps' cage sides are inset shadows
    drawn inside the cell; an SVG's or a canvas's lines are centred on the cell's edges (the frame's,
    the widest, on the board's edge)."""
    clear = {"table": 0.0, "gaps": look.thick / 2}.get(look.structure, look.frame / 2)
    return look.pad * s + clear


def _svg(look: Look, n: int, owner: dict[Cell, int], labels: dict[Cell, str], fill: dict[Cell, str],
         answers: dict[Cell, int]) -> str:
    """The board as an SVG: cell squares, a lattice of thin lines, cage segments, labels as <text>."""
    s, f = look.cell, look.frame
    side = n * s
    parts = [f'<svg id=board xmlns="http://www.w3.org/2000/svg" width="{side + f}" height="{side + f}" '
             f'viewBox="{-f / 2} {-f / 2} {side + f} {side + f}">',
             f'<rect x="0" y="0" width="{side}" height="{side}" fill="{look.paper}"/>']
    for (r, c), colour in fill.items():
        parts.append(f'<rect x="{c * s}" y="{r * s}" width="{s}" height="{s}" fill="{colour}"/>')
    dash = {"solid": "", "dotted": ' stroke-dasharray="1 3"', "dashed": ' stroke-dasharray="4 4"'}[look.thin_style]
    for k in range(1, n):
        parts.append(f'<line x1="{k * s}" y1="0" x2="{k * s}" y2="{side}" stroke="{look.thin_colour}" '
                     f'stroke-width="{look.thin}"{dash}/>')
        parts.append(f'<line x1="0" y1="{k * s}" x2="{side}" y2="{k * s}" stroke="{look.thin_colour}" '
                     f'stroke-width="{look.thin}"{dash}/>')
    for x1, y1, x2, y2 in _segments(owner, n, s):
        parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" '
                     f'stroke="{look.line}" stroke-width="{look.thick}" stroke-linecap="square"/>')
    parts.append(f'<rect x="0" y="0" width="{side}" height="{side}" fill="none" stroke="{look.line}" '
                 f'stroke-width="{f}" rx="{look.radius}"/>')
    style = f'style="font:{_font(look, look.label * s)}" fill="{look.ink}"'
    for (r, c), text in labels.items():
        parts.append(f'<text x="{c * s + _inset(look, s):.1f}" y="{r * s + _inset(look, s):.1f}" '
                     f'dominant-baseline="hanging" {style}>{html.escape(text)}</text>')
    answer_css = f"font: 400 {s * ANSWER:.1f}px sans-serif; color: {_answer_colour(look)}"
    for (r, c), d in answers.items():
        parts.append(f'<text x="{c * s + s / 2}" y="{r * s + s * 0.9}" text-anchor="middle" '
                     f'dominant-baseline="alphabetic" style="{answer_css}" fill="currentColor">{d}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _canvas(look: Look, n: int, owner: dict[Cell, int], labels: dict[Cell, str], fill: dict[Cell, str],
            answers: dict[Cell, int]) -> str:
    """The board as a 2D canvas drawn by the page's script from a JSON description (no CSS box model)."""
    s, f = look.cell, look.frame
    side = n * s
    spec = {"n": n, "s": s, "f": f, "look": {k: getattr(look, k) for k in (
        "paper", "thin_colour", "thin", "thick", "line", "ink", "pad", "thin_style")},
        "font": _font(look, look.label * s), "afont": f"400 {s * ANSWER:.1f}px sans-serif",
        "acolour": _answer_colour(look),
        "fill": [[r, c, v] for (r, c), v in fill.items()], "segs": _segments(owner, n, s),
        "labels": [[r, c, t] for (r, c), t in labels.items()], "answers": [[r, c, d] for (r, c), d in answers.items()],
        "sharp": look.sharp_canvas, "inset": _inset(look, s)}
    return (f'<canvas id=board width="{side + f}" height="{side + f}" style="width:{side + f}px;height:{side + f}px">'
            f'</canvas><script>const K={json.dumps(spec)};{CANVAS_JS}</script>')


CANVAS_JS = """
const cv=document.getElementById('board'),L=K.look,W=K.n*K.s+K.f,d=K.sharp?devicePixelRatio:1;
cv.width=W*d;cv.height=W*d;const g=cv.getContext('2d');g.scale(d,d);g.translate(K.f/2,K.f/2);
const S=K.s,side=K.n*S;g.fillStyle=L.paper;g.fillRect(0,0,side,side);
for(const [r,c,v] of K.fill){g.fillStyle=v;g.fillRect(c*S,r*S,S,S);}
g.strokeStyle=L.thin_colour;g.lineWidth=L.thin;
if(L.thin_style=='dotted')g.setLineDash([1,3]);if(L.thin_style=='dashed')g.setLineDash([4,4]);
for(let k=1;k<K.n;k++){g.beginPath();g.moveTo(k*S,0);g.lineTo(k*S,side);g.moveTo(0,k*S);g.lineTo(side,k*S);g.stroke();}
g.setLineDash([]);g.strokeStyle=L.line;g.lineWidth=L.thick;g.lineCap='square';
for(const [a,b,c,e] of K.segs){g.beginPath();g.moveTo(a,b);g.lineTo(c,e);g.stroke();}
g.lineWidth=K.f;g.strokeRect(0,0,side,side);
g.fillStyle=L.ink;g.font=K.font;g.textBaseline='top';
for(const [r,c,t] of K.labels){g.fillText(t,c*S+K.inset,r*S+K.inset);}
g.fillStyle=K.acolour;g.font=K.afont;g.textAlign='center';g.textBaseline='alphabetic';
for(const [r,c,t] of K.answers){g.fillText(String(t),c*S+S/2,r*S+S*0.9);}
"""


def _page(rng: random.Random, look: Look, board: str, n: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 40)))
    fg = "#e0e0e0" if look.dark else "#222"
    accent = rng.choice(["#1976d2", "#d32f2f", "#388e3c", "#7b1fa2", "#f57c00"])
    parts = [f"<!doctype html><html><head><meta charset=utf-8><style>body{{margin:0;background:{look.bg};"
             f"color:{fg};font-family:{rng.choice(['sans-serif', 'serif', 'Roboto', 'Lato', 'Open Sans'])}}}"
             f"header{{background:{accent};color:#fff;padding:12px 16px;font-size:20px}}"
             f"main{{padding:{rng.randint(8, 40)}px;display:flex;flex-direction:column;align-items:"
             f"{rng.choice(['center', 'flex-start'])}}}"
             f"button{{font-size:18px;margin:4px;padding:8px 14px;border-radius:6px;border:1px solid #888;"
             f"background:{'#333' if look.dark else '#eee'};color:{fg}}}p{{max-width:600px}}</style></head><body>"]
    if look.chrome:
        parts.append(f"<header>Calcudoku &middot; {rng.choice(['Daily', 'Easy', 'Hard', 'Expert'])} "
                     f"{n}&times;{n} #{rng.randint(1, 9999)}</header>")
    parts.append("<main>")
    if look.chrome:
        parts.append(f"<h2>Puzzle {rng.randint(1, 500)}</h2><p>{html.escape(text)}</p>"
                     f"<div>Time {rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}</div>")
    parts.append(f'<div style="margin:{rng.randint(6, 30)}px 0">{board}</div>')
    if look.keypad:
        keys = "".join(f"<button>{d}</button>" for d in range(1, n + 1))
        parts.append(f"<div>{keys}</div><div><button>Undo</button><button>Erase</button><button>Notes</button></div>")
    if look.chrome:
        parts.append(f"<p>{html.escape(' '.join(rng.choice(WORDS) for _ in range(20)))}</p>")
    parts.append("</main></body></html>")
    return "".join(parts)


def _draw(rng: random.Random, seed: int, heldout: bool) -> tuple[Look, Puzzle, Grid, str]:
    n = rng.choice([3, 4, 4, 5, 5, 6, 6, 7, 8, 9])
    puzzle, solution = random_puzzle(n, seed=rng.randrange(1 << 30), hidden_ops=rng.random() < 0.05)
    look = _look(rng, n, heldout)
    labels = {cage.anchor: _label(look, cage.op, cage.target) for cage in puzzle.cages}
    fill: dict[Cell, str] = {}
    if look.fills:
        for k, cage in enumerate(puzzle.cages):
            for cell in cage.cells:
                fill[cell] = look.fills[k % len(look.fills)]
    answers, pencil = _marks(rng, n, solution, look)
    board = _board_html(look, puzzle, labels, fill, answers, pencil)
    return look, puzzle, solution, _page(rng, look, board, n)


def _photographed(shot: bytes, corners: Corners, rng: random.Random) -> tuple[bytes, Corners]:
    """A phone's photo of the screen showing the page, framed round the board (devtools.scene_parts.camera:
    the screen's pixel grid, perspective, light, blur, noise), as a JPEG."""
    import cv2
    import numpy as np

    from devtools import scene_parts as parts

    picture = cv2.cvtColor(cv2.imdecode(np.frombuffer(shot, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    h, w = picture.shape[:2]
    (x0, y0), (x1, y1) = corners[0], corners[2]
    m = (x1 - x0) * rng.uniform(0.1, 0.5)
    cx0, cy0, cx1, cy1 = int(max(0, x0 - m)), int(max(0, y0 - m)), int(min(w, x1 + m)), int(min(h, y1 + m))
    part = np.ascontiguousarray(picture[cy0:cy1, cx0:cx1])
    moved = tuple((x - cx0, y - cy0) for x, y in corners)
    size = rng.choice([(1200, 1600), (1536, 2048), (1080, 1440), (1600, 1200)])
    photo, (seen,) = parts.camera(part, rng, [moved], True, size, whole=False)
    return parts.encode(photo, ".jpg", rng.randint(50, 92)), tuple(seen)


def chromium() -> str | None:
    return next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


def render(seeds: Iterable[int], heldout: bool = False, locked: bool = False) -> Iterator[Scene]:
    """Each seed's page drawn by Chromium, as a Scene (family 'browser', one KenKen) with its truth.
    `locked`: pages of the locked split (draws of their own, in the held-out faces), which no rule,
    constant or test is tuned on (tests/test_locked_split.py)."""
    stream = "locked" if locked else str(int(heldout))
    heldout = heldout or locked
    from playwright.sync_api import sync_playwright

    exe = chromium()
    if exe is None:
        raise RuntimeError("no chromium: apt install chromium (scripts/setup.sh installs it)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe)
        try:
            for seed in seeds:
                rng = random.Random(f"kkvision-browser:{seed}:{stream}")
                look, puzzle, solution, page_html = _draw(rng, seed, heldout)
                context = browser.new_context(viewport={"width": look.width, "height": 900},
                                              device_scale_factor=look.dpr)
                try:
                    page = context.new_page()
                    page.set_content(page_html, wait_until="load")
                    page.evaluate("document.fonts.ready")
                    box = page.locator("#board").bounding_box()
                    shot = page.screenshot(full_page=True, type="jpeg" if look.jpeg else "png",
                                           quality=look.jpeg or None)
                finally:
                    context.close()
                assert box is not None, "the board is drawn"
                d = look.dpr
                x0, y0, x1, y1 = box["x"] * d, box["y"] * d, (box["x"] + box["width"]) * d, (box["y"] + box["height"]) * d
                corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
                notes = (look.structure, look.face, f"w{look.weight}", f"label{look.label:.2f}", f"cell{look.cell}",
                         f"dpr{look.dpr}", "dark" if look.dark else "light", f"answers{look.answers}")
                ext = ".jpg" if look.jpeg else ".png"
                # photographed off the screen: from a stream of its own, so the pages' other draws stay
                camera = random.Random(f"kkvision-browser-photo:{seed}:{stream}")
                if camera.random() < PHOTO:
                    shot, corners = _photographed(shot, corners, camera)
                    ext, notes = ".jpg", notes + ("screen-photo",)
                yield Scene(FAMILY, look.structure, seed, heldout, shot, ext, (Truth(puzzle, solution, corners),),
                            notes, locked)
        finally:
            browser.close()
