"""Real hands: the MNIST training digits with each digit's writer, split by writer (dev-only).

    available() -> bool
    writers(split) -> tuple of writer ids          split: 'train', 'dev' or 'locked'
    hand(writer) -> {digit: (28x28 darkness images, ...)}
    digits(split) -> (images, labels, writers)    every digit of the split's writers
    sample(split, digit, rng) -> one 28x28 image of `digit` by a writer of the split
    draw(image, height, rng, ...) -> ink coverage (0..255) of one digit, written `height` px high
    placed(image, height, centre, size, rng) -> that ink on a canvas of `size`, centred at `centre`

The digits are `../shared/handwriting/mnist-train/` (beside the checkout; KKVISION_HANDWRITING
names another folder): 60,000 digits by 539 NIST writers, MNIST by Yann LeCun and Corinna Cortes
(CC BY-SA 3.0), the writers from QMNIST (C. Yadav and L. Bottou, "Cold Case: The Lost MNIST
Digits", NeurIPS 2019; BSD-style licence).  They are read from there and never copied into the
repository.

The writers are split once, by a fixed seed, within each NIST series (adult employees, neater;
high-school students, messier), so every split has both:
  train   SPLIT_SHARES[0] of them: the only ones devtools/train_digits.py trains the answer reader on
  dev     the working split: the training script's validation and calibration, bench/check.py's
          real-hand kinds (train themes), tests
  locked  the locked test split: only devtools.scenes' locked scenes (scene(..., locked=True): its own
          themes; bench/check.py's 'locked' rows); no rule, constant or test is tuned on them, and no
          test names one of their pictures
"""

from __future__ import annotations

import gzip
import os
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FOLDER = Path(os.environ.get("KKVISION_HANDWRITING", ROOT.parent / "shared" / "handwriting" / "mnist-train"))
SPLITS = ("train", "dev", "locked")
SPLIT_SHARES = (0.7, 0.15, 0.15)  # of each series' writers
SPLIT_SEED = 20261127  # fixed once: changing it would move writers between the splits
SERIES_COLUMN, WRITER_COLUMN = 1, 2  # of qmnist-train-labels.tsv.gz
# one written digit's pen, as MNIST's strokes are seen at the written size: the 28 px image is
# enlarged smoothly and cut at a level of its darkness; a high cut thins the strokes (a fine pen),
# a low one thickens them (a marker), as pens differ.  MNIST's greys are a pen stroke's coverage of
# each pixel (the writers' binary scans, shrunk), so the cut at STROKE_CUT is the stroke as written;
# a finer pen thins a stroke but never cuts it: a cut above it is lowered (by CUT_STEP) until the
# digit keeps the strokes and loops it has at STROKE_CUT (_kept).  Cut so, 12% of the 'dev' writers'
# digits at 0.75 lost a stroke's thin part or opened a loop: an 8 written as a 5, a 4 as a 7, which
# no reader, nor a person, reads as the digit the scene says is written
PEN_CUT = (0.15, 0.75)
STROKE_CUT = 0.5
CUT_STEP = 0.05
SOFT_EDGE = 0.12  # of the darkness range: the width of a stroke's soft edge round the cut
# How the digits look, besides their shapes: MNIST's digits, written by one form's writers, scanned and
# framed one way, all look alike to a reader trained on them; real answers do not.  A Look says how a
# digit is drawn besides its shape; draw's `style` names one (HAND_STYLES):
#   'mnist'     as MNIST keeps them (its 20 px box, the aspect as written), enlarged
#   'envelope'  as a postal sorter's scans keep digits: the ink's box stretched to a square and shrunk
#               to 16 px, then enlarged (a 1 as wide as a 4, every stroke as coarse as a blot)
#   'pencil'    a pencil's grey, grainy line: 0.35..0.75 of the pen's darkness, broken by the paper's
#               grain (a pixel's share spread 0.45, smoothed over 0.8 px)
# bench/check.py --hand-style draws the real hands so; the answer readers' training scripts may draw a
# share of their real hands in looks of the family these are points of (any_look, --looks).


@dataclass(frozen=True)
class Look:
    """How a written digit is drawn besides its shape (the defaults: as MNIST keeps it)."""

    square: float = 0.0  # how far the ink's box is stretched towards a square: 0 as written, 1 a square
    coarse: int = 0  # px the digit is scanned at, then enlarged (0: MNIST's own 20 px)
    dark: tuple[float, float] = (1.0, 1.0)  # the line's darkness, of the pen's, drawn in this range
    grain: float = 0.0  # the paper's grain: the spread of each pixel's share of the line
    grain_size: float = 0.8  # px: the grain's smoothing


HAND_STYLES = {"mnist": Look(), "envelope": Look(square=1.0, coarse=16),
               "pencil": Look(dark=(0.35, 0.75), grain=0.45)}


def any_look(rng: random.Random) -> Look:
    """A look of the family HAND_STYLES' are points of, drawn at random: stretched, coarse, grey and grainy
    in any mix and strength."""
    dark = rng.uniform(0.3, 1.0)
    return Look(square=rng.choice([0.0, rng.uniform(0.0, 1.0)]), coarse=rng.choice([0, rng.randint(10, 22)]),
                dark=(dark, min(1.0, dark + rng.uniform(0.0, 0.4))), grain=rng.choice([0.0, rng.uniform(0.1, 0.7)]),
                grain_size=rng.uniform(0.5, 1.5))


def look(rng: random.Random, share: float) -> Look | str:
    """How a digit a training script draws looks: `share` of them in a look of their own (any_look), the
    rest as MNIST keeps them ('mnist'); no draw from `rng` when `share` is 0, so a script's stream of
    digits is as it was without looks."""
    return any_look(rng) if share and rng.random() < share else "mnist"


def available() -> bool:
    """Whether the real hands are here (tests and benchmarks skip without them)."""
    return (FOLDER / "train-images-idx3-ubyte.gz").is_file() and (FOLDER / "qmnist-train-labels.tsv.gz").is_file()


def _read_idx(path: Path) -> np.ndarray:
    """An idx file (gzipped): big-endian header, then the data row-major."""
    data = gzip.open(path).read()
    ndim = data[3]
    shape = tuple(int(v) for v in np.frombuffer(data, ">u4", ndim, 4))
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape)


@lru_cache(maxsize=1)
def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(images, labels, writers, series) of all 60,000 digits."""
    if not available():
        raise FileNotFoundError(f"the real hands are not in {FOLDER} (see devtools/hands.py)")
    images = _read_idx(FOLDER / "train-images-idx3-ubyte.gz")
    meta = np.loadtxt(FOLDER / "qmnist-train-labels.tsv.gz", dtype=np.int64)
    labels = meta[:, 0].astype(np.uint8)
    return images, labels, meta[:, WRITER_COLUMN], meta[:, SERIES_COLUMN]


@lru_cache(maxsize=1)
def _splits() -> dict[str, tuple[int, ...]]:
    _, _, writers, series = _data()
    out: dict[str, list[int]] = {s: [] for s in SPLITS}
    rng = np.random.default_rng(SPLIT_SEED)
    for one in np.unique(series):
        ids = rng.permutation(np.unique(writers[series == one]))
        cut = np.cumsum([round(share * len(ids)) for share in SPLIT_SHARES[:-1]])
        for name, part in zip(SPLITS, np.split(ids, cut)):
            out[name] += [int(w) for w in part]
    return {name: tuple(sorted(ids)) for name, ids in out.items()}


def writers(split: str) -> tuple[int, ...]:
    """The writers of one split, sorted."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {SPLITS}")
    return _splits()[split]


def digits(split: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(images, labels, writers) of every digit written by the split's writers."""
    images, labels, who, _ = _data()
    keep = np.isin(who, writers(split))
    return images[keep], labels[keep], who[keep]


@lru_cache(maxsize=1024)
def hand(writer: int) -> dict[int, tuple[np.ndarray, ...]]:
    """One writer's digits, by digit (a writer wrote 19..131 digits: every digit a few times, most)."""
    images, labels, who, _ = _data()
    mine = np.flatnonzero(who == writer)
    return {d: tuple(images[i] for i in mine if labels[i] == d) for d in range(10) if (labels[mine] == d).any()}


def complete_writers(split: str, needed: range = range(1, 10)) -> tuple[int, ...]:
    """The split's writers who wrote every digit of `needed` at least once (a scene's hand is one writer)."""
    return tuple(w for w in writers(split) if all(d in hand(w) for d in needed))


def draw(image: np.ndarray, height: float, rng: random.Random, slant: float = 0.0, turn: float = 0.0,
         pen: float | None = None, style: str | Look = "mnist") -> np.ndarray:
    """One MNIST digit written `height` px high (its ink's box), slanted by `slant` (x per y) and
    turned `turn` degrees: a square of ink coverage (0..255) with the digit in its middle.  The pen
    (a cut of the enlarged darkness in PEN_CUT; drawn when None) sets how thick its strokes are; a
    fine one thins them, keeping every stroke and loop the digit was written with.  `style`: how
    the digit looks besides its shape (a Look, or one of HAND_STYLES by name)."""
    if isinstance(style, str):
        if style not in HAND_STYLES:
            raise ValueError(f"unknown hand style {style!r}: one of {', '.join(HAND_STYLES)}")
        style = HAND_STYLES[style]
    ys, xs = np.nonzero(image > 30)
    if len(ys) == 0:
        return np.zeros((1, 1), np.float32)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    glyph = image[y0:y1, x0:x1].astype(np.float32) / 255.0
    if style.square or style.coarse:  # stretched towards a square, scanned coarse
        gh, gw = glyph.shape
        wide = gw + style.square * (max(gh, gw) - gw)
        tall = gh + style.square * (max(gh, gw) - gh)
        k = (style.coarse or 20) / max(wide, tall)
        small = (max(2, int(round(wide * k))), max(2, int(round(tall * k))))
        glyph = np.clip(cv2.resize(glyph, small, interpolation=cv2.INTER_AREA) * 1.5, 0.0, 1.0)
    scale = max(height, 4.0) / glyph.shape[0]
    w, h = max(2, int(round(glyph.shape[1] * scale))), max(2, int(round(glyph.shape[0] * scale)))
    big = cv2.resize(glyph, (w, h), interpolation=cv2.INTER_CUBIC)
    cut = rng.uniform(*PEN_CUT) if pen is None else pen
    if cut > STROKE_CUT:
        written = _shape(big >= STROKE_CUT)
        while cut > STROKE_CUT and _shape(big >= cut) != written:
            cut = max(STROKE_CUT, cut - CUT_STEP)
    ink = np.clip((big - cut) / SOFT_EDGE + 0.5, 0.0, 1.0)
    if style.dark != (1.0, 1.0) or style.grain:  # grey, and broken by the paper's grain (drawn from the digit,
        grain = np.random.default_rng(int(glyph.sum() * 1000) + w * 7919 + h)  # not `rng`: a scene is the same
        noise = cv2.GaussianBlur(grain.normal(0.0, 1.0, ink.shape).astype(np.float32), (0, 0), style.grain_size)
        noise /= max(float(noise.std()), 1e-6)  # otherwise)
        ink *= np.clip(grain.uniform(*style.dark) * (1.0 + style.grain * noise), 0.0, 1.0)
    side = int(np.ceil(np.hypot(w, h) * (1 + abs(slant)))) + 4
    out = np.zeros((side, side), np.float32)
    oy, ox = (side - h) // 2, (side - w) // 2
    out[oy:oy + h, ox:ox + w] = ink
    m = cv2.getRotationMatrix2D((side / 2, side / 2), turn, 1.0)
    m[0, 1] += slant  # x moves with y: a hand's lean
    m[0, 2] -= slant * side / 2
    return cv2.warpAffine(out, m, (side, side), flags=cv2.INTER_LINEAR) * 255.0


def _shape(ink: np.ndarray) -> tuple[int, int]:
    """A digit's strokes and loops: the pieces of its ink, and the pieces of paper it closes in."""
    strokes = cv2.connectedComponents(ink.astype(np.uint8), connectivity=8)[0] - 1
    paper = np.pad(~ink, 1, constant_values=True).astype(np.uint8)  # the paper round it is one piece
    return strokes, cv2.connectedComponents(paper, connectivity=4)[0] - 2


@lru_cache(maxsize=4)
def _by_digit(split: str) -> dict[int, np.ndarray]:
    images, labels, _ = digits(split)
    return {d: images[labels == d] for d in range(10)}


def sample(split: str, digit: int, rng: random.Random) -> np.ndarray:
    """One 28x28 image of `digit` written by a writer of the split."""
    pool = _by_digit(split)[digit]
    return pool[rng.randrange(len(pool))]


def placed(image: np.ndarray, height: float, centre: tuple[float, float], size: tuple[int, int],
           rng: random.Random, style: str | Look = "mnist") -> np.ndarray:
    """draw()'s digit with a hand's lean and turn, centred at `centre` on a canvas of `size` (w, h):
    ink coverage 0..255, cut off where it leaves the canvas."""
    ink = draw(image, height, rng, slant=rng.uniform(-0.3, 0.2), turn=rng.uniform(-8, 8), style=style)
    out = np.zeros((size[1], size[0]), np.float32)
    x, y = int(centre[0] - ink.shape[1] / 2), int(centre[1] - ink.shape[0] / 2)
    sx0, sy0, dx0, dy0 = max(0, -x), max(0, -y), max(0, x), max(0, y)
    w, h = min(ink.shape[1] - sx0, size[0] - dx0), min(ink.shape[0] - sy0, size[1] - dy0)
    if w > 0 and h > 0:
        out[dy0:dy0 + h, dx0:dx0 + w] = ink[sy0:sy0 + h, sx0:sx0 + w]
    return out
