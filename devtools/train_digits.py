"""Train the cell-digit reader (models/digits.onnx): is a digit written in this cell, and which?

From the repository root (dev-only: not installed with the package):

    .venv/bin/pip install -e '.[train]'
    .venv/bin/python -m devtools.train_digits            # about 20 minutes on 2 cores

It reads the whole cell inside its lines (an answer may be as big as the
cell; the label sits at the top left) as a SIDE x SIDE darkness crop
(kkvision.vision.digits.digit_crop) and gives 11 classes: 0 = no answer,
the digits 1..9, or NOTES = only pencil marks.  Training crops:
  - synthetic cells: grid lines; a cage label or none (big ones, as web
    pages draw them, reaching into the answer's place); pencil marks or none
    (app layouts: a 3x3 under the label, a row, big candidates in rows of
    four; most of them with no answer over them: NOTES); an answer or none:
    typed in any font but the held-out designs, drawn as kkvision.render
    draws answers, written by a real writer (REAL_SHARE: a digit of
    devtools/hands.py's training split of the MNIST writers, 30..95% of the
    cell high, anywhere in it, over the label and the lines; their pencil
    candidates too), by stroke synthesis (devtools/strokes.py: many
    hands, never PEN_DYNAMICS['heldout']) or in a seen hand-like font; a
    grey placeholder in an empty cell (PLACEHOLDER_SHARE); uneven
    light and shaded blocks behind, a page's far side showing through, faint
    streaks; blur, noise, low contrast, JPEG;
  - handwriting: scikit-learn's bundled digits (8x8, 1..9 only), the images
    with an EVEN index, heavily augmented; the ODD ones are held out and are
    what the accuracy on handwriting is measured on.
HELDOUT_FAMILIES are never shown, so that bench/check.py's held-out themes and
hands and bench/handwriting.py's held-out fonts are unseen; nor is any digit
of the 'dev' and 'locked' writers (devtools/hands.py).
Validation: cells written by the 'dev' writers (--val of them, every other
part drawn as for training), read right and read surely; the network's
scores are then divided by the temperature that makes its probabilities
honest on them (fitted by the least negative log-likelihood; the expected
calibration error, ECE, is printed before and after) and the division is
part of the exported model.  Fixed seeds; exports ONNX and checks OpenCV's
dnn gives what torch gives.

The MNIST digits are Yann LeCun's and Corinna Cortes' (CC BY-SA 3.0), their
writers QMNIST's (C. Yadav and L. Bottou, NeurIPS 2019).
"""

from __future__ import annotations

import argparse
import random
import time
from functools import lru_cache
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from devtools import export, hands, strokes
from kkvision.vision.digits import SIDE, digit_crop, handwriting_crop

ROOT = Path(__file__).resolve().parents[1]  # the repository root: the model goes to its models/ folder
NOTES = 10  # the class of a cell holding only pencil marks (notes): never an answer
CLASSES = 11  # 0 nothing written, 1..9 the answer, NOTES
# Font designs never shown, so that bench/check.py's held-out themes and hands are unseen (file-name
# fragments of train_labels.HELDOUT's designs: synth.HELDOUT_FONTS' PostScript classics, the scenes'
# held-out app / web faces, and the held-out hands scenes.HAND_HELDOUT, Breip and DkgHandwriting)
HELDOUT_FAMILIES = ("Nimbus", "URW", "C059", "P052", "Z003", "Comfortaa", "FiraCode", "ClearSans",
                    "LeagueSpartan", "Dosis", "B612", "Karla", "dkg", "Breip", "breip")
HANDS = ("Humor-Sans", "ComicNeue")  # the hand-like fonts it may see (the rest of its hands are stroke-drawn)
SHADE_SHARE = 0.3  # synthetic cells with uneven light or shaded blocks behind the digit
OWN_SHARE = 0.12  # synthetic answers drawn as kkvision's answer pictures draw them: checking its own output
REAL_SHARE = 0.5  # answers written by a real writer (devtools/hands.py, the training split), any size
REAL_SIZE = (0.3, 0.95)  # their height / cell: as small as typed, up to the whole cell over label and lines
HIGH_SIZE = (0.6, 0.95)  # ... those written big and high (cell_picture's `high`): as tall as most of the cell
REAL_PENCIL = 0.5  # pencil marks written by a real writer's hand (small digits), when real hands are here
# ... their height / cell: a hand's candidates vary more than an app's, up to about a quarter of the cell, and
# two of a 3x3 stacked then touch (a '2' over a '5' made one '3'-like shape read as an answer)
REAL_PENCIL_SIZE = (0.1, 0.23)
# --looks SHARE: that share of the real writers' answers and pencil marks drawn in a look of their own
# (devtools/hands.any_look: stretched towards a square, scanned coarse, grey and grainy, in any mix), so
# the reader learns digits, not MNIST's one look (0: none, as the shipped model was trained)
LOOKS = 0.0
OUTLINE_SHARE = 0.2  # cells whose cage is outlined inside them, as some apps draw cages (no answer's ink)
PLACEHOLDER_SHARE = 0.04  # empty cells showing a grey placeholder ("Write", "?") as some sites do: no answer
STROKE_SHARE = 0.35 # answers drawn by stroke synthesis (strokes.py): many hands, not a font's one
HAND_FONT_SHARE = 0.1  # answers in a hand-like font
NOTES_SHARE = 0.3  # cells with pencil marks (with or without an answer over them)
OWN_OVER_NOTES = 0.4  # answers over pencil marks drawn as kkvision draws them: its answer pictures of apps with notes
EMPTY_SHARE = 0.2  # cells with no answer
NOTES_ALONE = 0.6  # of the cells with pencil marks, those without an answer over them (apps clear them)
BIG_LABEL_SHARE = 0.35  # labels as big as web pages draw them (up to 45% of the cell), reaching into the answer
SHOW_THROUGH_SHARE = 0.12  # a print page's far side showing through, mirrored and faint: not ink of this cell
STREAK_SHARE = 0.1  # faint straight streaks across a cell (a photo's, a scanner's): not a 1
NOT_TEXT_FONTS = ("StandardSymbols", "D050000L", "DejaVuMathTeXGyre", "Hairline")


@lru_cache(maxsize=2)
def all_fonts() -> list[str]:
    found = sorted(str(p) for d in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")) if d.exists()
                   for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))
    return [f for f in found if not any(b in Path(f).name for b in NOT_TEXT_FONTS + HELDOUT_FAMILIES)]


def fonts() -> list[str]:
    """Fonts for labels, typed answers and pencil marks (never a held-out design)."""
    return all_fonts()


@lru_cache(maxsize=1)
def hand_fonts() -> list[str]:
    return [f for f in all_fonts() if any(Path(f).name.startswith(h) for h in HANDS)]


@lru_cache(maxsize=1)
def bold_fonts() -> list[str]:
    return [f for f in all_fonts() if any(w in Path(f).name for w in ("Bold", "Black", "Heavy", "SemiBold"))]


@lru_cache(maxsize=4096)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@lru_cache(maxsize=1)
def own_font() -> str:
    """The font kkvision.render draws answers with (its first installed FONT_NAMES)."""
    from kkvision.render import FONT_NAMES

    for name in FONT_NAMES:
        hits = [p for d in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")) if d.exists()
                for p in d.rglob(name)]
        if hits:
            return str(hits[0])
    return fonts()[0]


def _label(d: ImageDraw.ImageDraw, s: int, rng: random.Random, ink: int, kept: ImageDraw.ImageDraw | None = None
           ) -> float:
    """A cage label at the top left (drawn in `kept` too); returns where it ends (a fraction of the cell,
    from the top)."""
    big = rng.random() < BIG_LABEL_SHARE
    frac = rng.uniform(0.25, 0.45) if big else rng.uniform(0.12, 0.28)  # digit height / cell
    margin = rng.uniform(0.03, 0.1)
    f = _font(rng.choice(bold_fonts() if big and rng.random() < 0.7 else fonts()), max(6, int(s * frac * 1.35)))
    text = f"{rng.randint(1, 999 if rng.random() < 0.5 else 99)}{rng.choice(['+', '-', 'x', '/', '÷', '×', '−', '—', '*', ''])}"
    for draw, fill in ((d, ink), (kept, 255)):
        if draw is not None:
            draw.text((s * margin, s * margin), text, font=f, fill=fill, anchor="lt")
    return margin + frac * 1.1 + 0.04


def _pencil(img: Image.Image, s: int, rng: random.Random, below: float, split: str,
            layer: Image.Image | None = None) -> None:
    """Pencil marks as apps and players leave them: a 3x3 of small digits under the label, a row
    along the bottom, a few anywhere, or an app's big candidates in rows of four filling the cell;
    some written by a real writer of `split` (REAL_PENCIL).  Where they are is drawn in `layer` too."""
    d = ImageDraw.Draw(img)
    marked = ImageDraw.Draw(layer) if layer is not None else None
    hand = split if rng.random() < REAL_PENCIL and hands.available() else None
    layout = rng.choice(["grid", "grid", "row", "loose", "rows"])
    top = min(0.5, below + rng.uniform(0.0, 0.1))
    if layout == "rows":  # big and dark (mnaoumov's app): as tall as a fifth to a quarter of the cell
        size = s * rng.uniform(0.17, 0.26)
        fill = rng.randint(0, 80)
    else:
        size = s * min(0.15, (0.92 - top) / 3.6) * rng.uniform(0.7, 1.1)
        fill = rng.randint(0, 170)
    f = _font(rng.choice(fonts() if rng.random() < 0.7 else hand_fonts() or fonts()), max(5, int(size * 1.35)))
    marks = sorted(rng.sample(range(1, 10), rng.choice([1, 2, 2, 3, 3, 4, 5, 6, 7, 9])))
    if hand is not None and layout != "rows":
        size = s * rng.uniform(*REAL_PENCIL_SIZE)
    for i, m in enumerate(marks):
        if layout == "grid":
            gx, gy = (m - 1) % 3, (m - 1) // 3
            at = (s * (0.25 + 0.25 * gx), s * (top + (0.92 - top) * (gy + 0.5) / 3))
        elif layout == "row":
            at = (s * (0.12 + 0.8 * (i + 0.5) / max(4, len(marks))), s * rng.uniform(0.78, 0.86))
        elif layout == "rows":
            at = (s * (0.14 + 0.24 * (i % 4)), s * (max(top, 0.35) + 0.27 * (i // 4)))
        else:
            at = (rng.uniform(0.12, 0.88) * s, rng.uniform(max(0.3, top), 0.88) * s)
        if hand is not None:
            ink = Image.fromarray(hands.placed(hands.sample(hand, m, rng), size, at, (s, s), rng,
                                               style=hands.look(rng, LOOKS)).astype(np.uint8))
            img.paste(Image.new("L", (s, s), fill), (0, 0), ink)
            if layer is not None:
                layer.paste(255, (0, 0), ink)
        else:
            d.text(at, str(m), font=f, fill=fill, anchor="mm")
            if marked is not None:
                marked.text(at, str(m), font=f, fill=255, anchor="mm")


def _outlines(d: ImageDraw.ImageDraw, s: int, rng: random.Random, kept: ImageDraw.ImageDraw | None = None) -> None:
    """A cage drawn as some apps draw it: an outline inset in its cells (solid or dashed, dark, grey or
    light) along some of the cell's sides, running on to the next cell or turning at a corner (drawn in
    `kept` too)."""
    gap = rng.uniform(0.03, 0.12) * s
    w = max(1, round(s * rng.uniform(0.01, 0.04)))
    colour = rng.randint(0, 200)
    dash = rng.uniform(0.04, 0.12) * s if rng.random() < 0.5 else 0.0
    for side in range(4):
        if rng.random() < 0.4:
            continue
        lo = gap if rng.random() < 0.6 else 0.0
        hi = s - gap if rng.random() < 0.6 else s
        a, b = {0: ((lo, gap), (hi, gap)), 1: ((gap, lo), (gap, hi)), 2: ((lo, s - gap), (hi, s - gap)),
                3: ((s - gap, lo), (s - gap, hi))}[side]
        steps = max(1, int(abs(hi - lo) / (2 * dash))) if dash else 1
        for t in range(steps):
            f0, f1 = (t / steps, (t + 0.5) / steps) if dash else (0.0, 1.0)
            for draw, fill in ((d, colour), (kept, 255)):
                if draw is not None:
                    draw.line([(a[0] + (b[0] - a[0]) * f0, a[1] + (b[1] - a[1]) * f0),
                               (a[0] + (b[0] - a[0]) * f1, a[1] + (b[1] - a[1]) * f1)], fill=fill, width=w)


def _written_look(a: np.ndarray, s: int, rng: random.Random) -> np.ndarray:
    """A printed digit made to look written: stroke weight, slant, wobble."""
    k = rng.choice([1, 2, 3])
    a = cv2.dilate(a, np.ones((k, k), np.uint8)) if rng.random() < 0.6 else cv2.erode(a, np.ones((2, 2), np.uint8))
    m = np.float32([[1, rng.uniform(-0.3, 0.3), 0], [0, 1, 0]])
    m[0, 2] = -m[0, 1] * s / 2
    a = cv2.warpAffine(a, m, (s, s))
    dx = cv2.GaussianBlur(np.random.default_rng(rng.randint(0, 10**6)).normal(0, 1, (s, s)).astype(np.float32), (0, 0), s / 10)
    dy = cv2.GaussianBlur(np.random.default_rng(rng.randint(0, 10**6)).normal(0, 1, (s, s)).astype(np.float32), (0, 0), s / 10)
    amp = rng.uniform(0, 0.06) * s / (np.abs(dx).max() + 1e-6)
    yy, xx = np.mgrid[0:s, 0:s].astype(np.float32)
    return cv2.remap(a, xx + dx * amp, yy + dy * amp, cv2.INTER_LINEAR)


def _answer(s: int, digit: int, below: float, rng: random.Random, own: float = OWN_SHARE,
            split: str = "train", real: float = REAL_SHARE, high: float = 0.0) -> tuple[np.ndarray, int]:
    """The answer's ink (0..255 coverage) and its grey: typed under the label, drawn as
    kkvision draws it, written by a real writer of `split`, in a hand-like font, or stroke-drawn.
    `high`: the share of real writers' answers written big and high (HIGH_SIZE), over the label's row."""
    layer = Image.new("L", (s, s), 0)
    ld = ImageDraw.Draw(layer)
    if rng.random() < own:  # kkvision.render: 0.5 cell font size, centred at 0.62 of the cell
        f = _font(own_font(), max(8, int(s * rng.uniform(0.46, 0.54))))
        ld.text((s * rng.uniform(0.47, 0.53), s * rng.uniform(0.58, 0.66)), str(digit), font=f, fill=255, anchor="mm")
        return np.asarray(layer).astype(np.float32), rng.randint(50, 130)  # render.SOLUTION's blue is a mid grey
    if rng.random() < real and hands.available():  # a real writer's digit: any size, anywhere
        big = high > 0 and rng.random() < high  # (no draw when none: the default stream as before)
        h = s * rng.uniform(*(HIGH_SIZE if big else REAL_SIZE))
        room = max(0.0, (s - h) / 2)  # how far from the middle it may stray and stay in the cell
        # anywhere but tucked into the label's corner (a small digit there is a label, not an answer); a
        # big one as high as the cell's top, its strokes beside and over the label
        centre = (s / 2 + rng.uniform(-0.7, 0.7) * max(room, 0.06 * s),
                  s / 2 + (rng.uniform(-1, 0.5) if big else rng.uniform(-0.25, 1)) * max(room, 0.04 * s))
        return hands.placed(hands.sample(split, digit, rng), h, centre, (s, s), rng, style=hands.look(rng, LOOKS)), rng.randint(0, 150)
    how = rng.uniform(OWN_SHARE, 1.0)  # the other kinds in their shares
    if how < OWN_SHARE + STROKE_SHARE:
        h = s * rng.uniform(0.32, 0.62)
        a = strokes.draw(digit, s, h, (s * rng.uniform(0.4, 0.6), s * rng.uniform(0.5, 0.68)), rng)
        return a, rng.randint(0, 150)
    if how < OWN_SHARE + STROKE_SHARE + HAND_FONT_SHARE and hand_fonts():
        f = _font(rng.choice(hand_fonts()), max(8, int(s * rng.uniform(0.45, 0.75))))
        ld.text((s * rng.uniform(0.42, 0.58), s * rng.uniform(0.5, 0.66)), str(digit), font=f, fill=255, anchor="mm")
        a = np.asarray(layer).astype(np.float32)
        return (_written_look(a, s, rng) if rng.random() < 0.5 else a), rng.randint(0, 150)
    size = min(rng.uniform(0.3, 0.55), 0.94 - below)  # an app fits its answer under the label
    f = _font(rng.choice(fonts()), max(8, int(s * size * 1.35)))
    mid = max(rng.uniform(0.5, 0.62), below + size / 2) if rng.random() < 0.7 else rng.uniform(0.5, 0.66)
    box = ld.textbbox((0, 0), str(digit), font=f)
    cx = s * rng.uniform(0.42, 0.58)
    ld.text((cx - (box[0] + box[2]) / 2, s * mid - (box[1] + box[3]) / 2), str(digit), font=f, fill=255)
    a = np.asarray(layer).astype(np.float32)
    return (_written_look(a, s, rng) if rng.random() < 0.3 else a), rng.randint(0, 130)


def cell(rng: random.Random, split: str = "train", real: float = REAL_SHARE) -> tuple[np.ndarray, int]:
    """One synthetic cell crop and its class (0: no answer, NOTES: only pencil marks); real hands
    from the writers of `split`, `real` of the answers."""
    picture, label, box, _ = cell_picture(rng, split, real)
    return digit_crop(picture, box), label


def cell_picture(rng: random.Random, split: str = "train", real: float = REAL_SHARE, layers: bool = False,
                 label_crossed: bool = False, high: float = 0.0
                 ) -> tuple[np.ndarray, int, tuple[float, float, float, float], np.ndarray | None]:
    """One synthetic cell: its picture (s x s grey levels, a little more than the cell), its class, the
    cell's box in it (off by a few percent, as the grid stage's may be), and with `layers` where ink that
    is no label's and no line's lies (an answer, pencil marks, a placeholder, where they do not cross a
    line or, unless `label_crossed`, the label: 0..255 coverage; else None).  The answer is drawn over
    the label: where it crosses it, the picture shows the answer's ink.  `high`: _answer's."""
    s = rng.randint(40, 160)
    paper = rng.randint(200, 255)
    img = Image.new("L", (s, s), paper)
    d = ImageDraw.Draw(img)
    ink = rng.randint(0, 90)
    if rng.random() < SHOW_THROUGH_SHARE:  # the far side of a printed page, mirrored and faint
        back = Image.new("L", (s, s), 0)
        bd = ImageDraw.Draw(back)
        for _ in range(rng.randint(1, 3)):
            f = _font(rng.choice(fonts()), max(8, int(s * rng.uniform(0.2, 0.7))))
            bd.text((s * rng.uniform(0.0, 1.0), s * rng.uniform(0.0, 1.0)), str(rng.randint(1, 99)), font=f,
                    fill=int(rng.uniform(15, 45)), anchor="mm")
        if rng.random() < 0.5:  # the far side's grid lines
            x = int(s * rng.uniform(0.1, 0.9))
            bd.line([(x, 0), (x, s)], fill=int(rng.uniform(15, 60)), width=rng.randint(1, max(1, s // 15)))
        img = Image.fromarray(np.clip(np.asarray(img).astype(np.int16) - np.asarray(back)[:, ::-1], 0, 255)
                              .astype(np.uint8))
        d = ImageDraw.Draw(img)
    if rng.random() < STREAK_SHARE:  # faint streaks: a photo's or scanner's, a paper's grain; not ink
        for _ in range(rng.randint(1, 4)):
            x = s * rng.uniform(0.1, 0.9)
            if rng.random() < 0.7:
                d.line([(x, 0), (x + rng.uniform(-0.1, 0.1) * s, s)], fill=paper - rng.randint(6, 30),
                       width=rng.randint(1, max(1, s // 12)))
            else:
                d.line([(0, x), (s, x + rng.uniform(-0.1, 0.1) * s)], fill=paper - rng.randint(6, 30),
                       width=rng.randint(1, max(1, s // 12)))
    kept = Image.new("L", (s, s), 0) if layers else None  # the lines' and (unless label_crossed) the label's ink
    keep = ImageDraw.Draw(kept) if kept is not None else None
    for k in (0, s - 1):  # cell borders, thin or thick, maybe dashed
        w = rng.choice([1, 1, 2, max(2, s // 18), max(3, s // 10)])
        for draw, fill in ((d, ink), (keep, 255)):
            if draw is not None:
                draw.line([(k, 0), (k, s)], fill=fill, width=w)
                draw.line([(0, k), (s, k)], fill=fill, width=w)
    if rng.random() < OUTLINE_SHARE:
        _outlines(d, s, rng, keep)
    below = 0.12
    if rng.random() < 0.55:
        below = _label(d, s, rng, ink, None if label_crossed else keep)  # label_crossed: not kept
    other = Image.new("L", (s, s), 0) if layers else None  # ink that is no label's
    notes = rng.random() < NOTES_SHARE
    if notes:
        _pencil(img, s, rng, below, split, other)
    label = 0 if rng.random() < EMPTY_SHARE or (notes and rng.random() < NOTES_ALONE) else rng.randint(1, 9)
    if not label and not notes and rng.random() < PLACEHOLDER_SHARE / EMPTY_SHARE:  # a site's grey placeholder
        f = _font(rng.choice(fonts()), max(6, int(s * rng.uniform(0.12, 0.25))))
        at, word = (s * rng.uniform(0.4, 0.6), s * rng.uniform(0.45, 0.65)), rng.choice(["Write", "write", "?", "_", "..."])
        d.text(at, word, font=f, fill=max(0, paper - rng.randint(25, 90)), anchor="mm")
        if other is not None:
            ImageDraw.Draw(other).text(at, word, font=f, fill=255, anchor="mm")
    if label:
        a, colour = _answer(s, label, below, rng, OWN_OVER_NOTES if notes else OWN_SHARE, split, real, high)
        if other is not None:
            other = Image.fromarray(np.maximum(np.asarray(other), np.clip(a, 0, 255).astype(np.uint8)))
        base = np.asarray(img).astype(np.float32)
        img = Image.fromarray(np.clip(base - (base - colour) * (a / 255.0), 0, 255).astype(np.uint8))
    elif notes:
        label = NOTES
    arr = np.asarray(img).astype(np.float32)
    if rng.random() < SHADE_SHARE:  # a photo's uneven light and a screen's shaded cells: soft, wide, not ink
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s
        arr -= rng.uniform(0, 70) * np.clip(rng.uniform(-1, 1) * (xx - 0.5) + rng.uniform(-1, 1) * (yy - 0.5) + 0.5,
                                          0, 1)
        for _ in range(rng.randint(0, 3)):  # blocks of a lighter grey (a highlighted row, a cage's fill)
            x0, y0 = rng.uniform(-0.5, 0.9) * s, rng.uniform(-0.5, 0.9) * s
            x1, y1 = x0 + rng.uniform(0.3, 1.5) * s, y0 + rng.uniform(0.3, 1.5) * s
            arr[max(0, int(y0)):max(0, int(y1)), max(0, int(x0)):max(0, int(x1))] -= rng.uniform(10, 45)
        arr = np.clip(arr, 0, 255)
    if rng.random() < 0.6:
        arr = cv2.GaussianBlur(arr, (0, 0), rng.uniform(0.3, 1.2))
    arr = np.clip(arr + np.random.default_rng(rng.randint(0, 10**6)).normal(0, rng.uniform(0, 10), arr.shape), 0, 255)
    if rng.random() < 0.5:
        arr = cv2.imdecode(cv2.imencode(".jpg", arr.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(30, 90)])[1], 0)
    jitter = [rng.uniform(-0.06, 0.06) * s for _ in range(4)]
    if other is None or kept is None:
        return arr.astype(np.uint8), label, (jitter[0], jitter[1], s + jitter[2], s + jitter[3]), None
    # only what is no line's and no label's: a line (or label) an answer crosses is kept where they meet
    removable = np.where(np.asarray(kept) >= 64, 0, np.asarray(other))
    return arr.astype(np.uint8), label, (jitter[0], jitter[1], s + jitter[2], s + jitter[3]), removable


def _make(args: tuple[int, int, str, float]) -> tuple[np.ndarray, int]:
    i, seed, split, real = args
    return cell(random.Random(seed * 1_000_003 + i), split, real)


def handwriting(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's digits 1..9 as crops: (train x, y) from even indices, (held-out x, y) from odd."""
    from sklearn.datasets import load_digits

    d = load_digits()
    keep = d.target > 0
    x = np.stack([handwriting_crop(img / 16.0) for img in d.images[keep]])
    y = d.target[keep]
    idx = np.arange(len(y))
    return x[idx % 2 == 0], y[idx % 2 == 0], x[idx % 2 == 1], y[idx % 2 == 1]


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = np.empty(x.shape, np.float32)
    for i, a in enumerate(x):
        ang, sc = rng.uniform(-12, 12), rng.uniform(0.8, 1.15)
        m = cv2.getRotationMatrix2D((SIDE / 2, SIDE / 2), ang, sc)
        m[:, 2] += rng.uniform(-2, 2, 2)
        out[i] = cv2.warpAffine(a, m, (SIDE, SIDE))
    return np.clip(out * rng.uniform(0.7, 1.2, (len(x), 1, 1)), 0, 1)


def network():  # type: ignore[no-untyped-def]
    """Three stages of 3x3 convolutions (24, 48, 96 channels; two a stage after the first) and a small
    classifier.  A narrower one (24/48/64, one convolution a stage) read the training writers' answers
    no better than held-out writers' (92.8% and 92.1%): it underfitted, so width and depth are where
    accuracy was to be had (22 ms for a 9x9's 81 crops on OpenCV's dnn, 9 before)."""
    import torch.nn as nn

    def conv(i: int, o: int) -> list:  # type: ignore[type-arg]
        return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(
        *conv(1, 24), nn.MaxPool2d(2),
        *conv(24, 48), *conv(48, 48), nn.MaxPool2d(2),
        *conv(48, 96), *conv(96, 96), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(96 * (SIDE // 8) ** 2, 128), nn.ReLU(), nn.Linear(128, CLASSES),
    )


def calibration_error(probs: np.ndarray, truth: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error: the gap between how sure the top class is and how often it is right,
    averaged over `bins` equal bins of sureness, weighted by their cells."""
    top, right = probs.max(1), probs.argmax(1) == truth
    edges = np.linspace(0, 1, bins + 1)
    return float(sum(abs(top[m].mean() - right[m].mean()) * m.mean()
                     for m in ((top > lo) & (top <= hi) for lo, hi in zip(edges[:-1], edges[1:])) if m.any()))


def temperature(logits: np.ndarray, truth: np.ndarray) -> float:
    """The temperature T whose softmax(logits / T) has the least negative log-likelihood (a grid in log T,
    then refined): one number, so the order of the classes, and the accuracy, stay."""
    def nll(t: float) -> float:
        z = logits / t
        z = z - z.max(1, keepdims=True)
        return float(-(z[np.arange(len(truth)), truth] - np.log(np.exp(z).sum(1))).mean())
    grid = np.exp(np.linspace(np.log(0.2), np.log(5.0), 81))
    best = float(grid[int(np.argmin([nll(t) for t in grid]))])
    fine = best * np.exp(np.linspace(-0.05, 0.05, 41))
    return float(fine[int(np.argmin([nll(t) for t in fine]))])


def _cells(pool, count: int, seed: int, split: str, real: float) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    made = pool.map(_make, [(i, seed, split, real) for i in range(count)], chunksize=256)
    return np.stack([m[0] for m in made]), np.array([m[1] for m in made])


def _use_looks(share: float) -> None:
    global LOOKS  # read by cell() here and in the pool's (forked) workers
    LOOKS = share


def main() -> None:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=120_000)
    ap.add_argument("--val", type=int, default=6000, help="validation cells written by the 'dev' writers")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--smoothing", type=float, default=0.05, help="label smoothing (the temperature is fitted after)")
    ap.add_argument("--looks", type=float, default=LOOKS,
                    help="share of the real writers' digits drawn in a look of their own (0: none, as shipped)")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "digits.onnx")
    args = ap.parse_args()
    _use_looks(args.looks)
    if not hands.available():
        raise SystemExit(f"train_digits: the real hands are not in {hands.FOLDER} (devtools/hands.py)")
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    with Pool(2) as pool:
        sx, sy = _cells(pool, args.samples, args.seed, "train", REAL_SHARE)
        cx, cy = _cells(pool, args.val, args.seed + 1, "dev", REAL_SHARE)  # to calibrate: as trained, other writers
        rx, ry = _cells(pool, args.val, args.seed + 2, "dev", 1.0)  # every answer in a held-out writer's hand
    hx, hy, vx, vy = handwriting(args.seed)
    reps = max(1, int(0.1 * len(sy) / len(hy)))  # scikit-learn's handwriting is a tenth of what is seen
    x, y = np.concatenate([sx] + [hx] * reps), np.concatenate([sy] + [hy] * reps)
    print(f"{len(sy)} synthetic cells ({REAL_SHARE:.0%} of answers by {len(hands.writers('train'))} real writers),"
          f" {len(hy)}x{reps} scikit-learn digits; validation: {len(cy)} cells and {len(ry)} with every answer"
          f" by {len(hands.writers('dev'))} held-out writers ({time.time() - t0:.0f} s)", flush=True)
    model = network()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = args.epochs * (len(y) // 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps)
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=args.smoothing)

    def logits_of(crops: np.ndarray) -> np.ndarray:
        model.eval()
        with torch.no_grad():
            return np.concatenate([model(torch.from_numpy(crops[i:i + 1024].astype(np.float32))[:, None]).numpy()
                                   for i in range(0, len(crops), 1024)])

    def report(t: float = 1.0) -> str:
        parts = []
        for name, (xs, ys) in (("held-out writers' cells", (rx, ry)), ("calibration cells", (cx, cy)),
                               ("scikit-learn odd", (vx, vy))):
            p = softmax(logits_of(xs) / t)
            sure = p.max(1) >= 0.9
            parts.append(f"{name} {(p.argmax(1) == ys).mean():.1%} (sure {sure.mean():.0%}, of those right"
                         f" {(p.argmax(1) == ys)[sure].mean():.2%}; ECE {calibration_error(p, ys):.3f})")
        return "; ".join(parts)

    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(len(y))
        for b in range(len(y) // 128):
            idx = order[b * 128:(b + 1) * 128]
            xb = torch.from_numpy(augment(x[idx], rng).astype(np.float32))[:, None]
            loss = loss_fn(model(xb), torch.from_numpy(y[idx]).long())
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        print(f"epoch {epoch + 1}: {report()} ({time.time() - t0:.0f} s)", flush=True)
    t = temperature(logits_of(cx), cy)
    print(f"temperature {t:.3f} (fitted on the calibration cells); after it: {report(t)}", flush=True)
    calibrated = torch.nn.Sequential(model, Scale(1.0 / t)).eval()
    export.onnx(calibrated, args.out, SIDE, SIDE, "digit model")
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB) in {time.time() - t0:.0f} s")


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def Scale(factor: float):  # type: ignore[no-untyped-def]
    """A layer multiplying the scores by `factor` (1 / the temperature), exported with the model."""
    import torch

    class _Scale(torch.nn.Module):
        def forward(self, z):  # type: ignore[no-untyped-def]
            return z * factor

    return _Scale()


if __name__ == "__main__":
    main()
