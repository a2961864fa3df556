"""The cell reader on handwritten answers, by kind of hand, in real conditions.

    .venv/bin/python bench/handwriting.py [--count 300] [--seed 0] [--digit-model PATH]

Every digit 1..9 is written in ink into a printed cell (grid lines, often a
cage label at the top left, sometimes touching it), then maybe photographed
(a slight perspective, blur, uneven light, noise, JPEG), and read as `check`
reads a cell (kkvision.vision.digits).  Kinds of hands:
  sklearn held out     scikit-learn's bundled handwritten digits with an ODD
                       index (the training script sees only the even ones)
  strokes              digits drawn by stroke synthesis (devtools/strokes.py)
                       with the pen dynamics trained on, from seeds never trained on
  strokes held out     the same with PEN_DYNAMICS['heldout']: heavier pens,
                       stronger pressure, wilder hands than any it trained on
  font <name>          a hand-like font; the held-out ones (scenes.HAND_HELDOUT's
                       designs) were never shown to the reader, the seen ones were
  MNIST <split> <size> digits of real writers no model trained on (devtools/hands.py:
                       'dev', the working split, and 'locked', the locked one: tune
                       nothing on it), 'small' 35-60% of the cell high, 'big' 65-95%
                       (over the label's corner, up to the lines); only when
                       ../shared/handwriting is there
  MNIST <split> scanned  the same writers' digits as a scanned envelope keeps them: the digit's box
                       brought down to 16 px (half of them stretched to a square), then up to the cell
                       again (blocky or soft, grey), 45-80% of the cell high
  MNIST <split> pencil   ... written in graphite: light, grainy strokes, 45-80% of the cell high
  crossed out          a stroke-drawn digit (seeds never trained on) crossed out by
                       the same hand: a bar, a slash, an X or a scribble
                       (strokes.crossing); no answer any more
Per kind: right (read as the digit written, surely), unsure (not judged:
check says so, exit 15), wrong (read surely as another digit or as empty:
the failure that would misjudge a cell).  For crossed-out digits, right is
read surely as no answer (nothing or notes: blank), wrong is read surely as
any digit (an answer the user struck out, judged as theirs).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from devtools import hands, strokes  # noqa: E402
from kkvision.vision import digits  # noqa: E402

HELD_OUT_HANDS = ("dkg.ttf", "dkgBd.ttf", "dkgIt.ttf", "Breip.ttf")  # never shown to the reader
SEEN_HANDS = ("Humor-Sans.ttf", "ComicNeue-Regular.otf", "ComicNeue-Bold.otf")  # trained on
PHOTO_SHARE = 0.5  # cells photographed after writing
LABEL_SHARE = 0.5  # cells with a cage label
CROSSED = 0  # the digit of a crossed-out cell: no answer


def _find(name: str) -> str | None:
    for d in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")):
        hits = list(d.rglob(name)) if d.exists() else []
        if hits:
            return str(hits[0])
    return None


def _ink_font(name: str, digit: int, s: int, rng: random.Random) -> np.ndarray:
    path = _find(name)
    assert path is not None
    layer = Image.new("L", (s, s), 0)
    f = ImageFont.truetype(path, max(8, int(s * rng.uniform(0.5, 0.75))))
    ImageDraw.Draw(layer).text((s * rng.uniform(0.42, 0.58), s * rng.uniform(0.52, 0.66)), str(digit), font=f,
                               fill=255, anchor="mm")
    a = np.asarray(layer).astype(np.float32)
    m = np.float32([[1, rng.uniform(-0.25, 0.1), 0], [0, 1, 0]])  # a hand's slant
    m[0, 2] = -m[0, 1] * s / 2
    return cv2.warpAffine(a, m, (s, s))


def _ink_sklearn(img8: np.ndarray, s: int, rng: random.Random) -> np.ndarray:
    side = int(s * rng.uniform(0.45, 0.6))
    digit = cv2.resize((img8 / 16.0 * 255).astype(np.float32), (side, side), interpolation=cv2.INTER_CUBIC)
    out = np.zeros((s, s), np.float32)
    cx, cy = s * rng.uniform(0.44, 0.56), s * rng.uniform(0.54, 0.64)
    x0, y0 = int(cx - side / 2), int(cy - side / 2)
    out[y0:y0 + side, x0:x0 + side] = np.clip(digit, 0, 255)
    return out


SCAN_SIDE = 16  # px: the side an envelope scanner's digits are kept at (USPS-like)


def _ink_scanned(image: np.ndarray, s: int, rng: random.Random) -> np.ndarray:
    """A real writer's digit as a scanned envelope keeps it: its box down to SCAN_SIDE (stretched to a
    square or its shape kept), then up to 45-80% of the cell, blocky or soft; ink 0..255."""
    ys, xs = np.nonzero(image > 30)
    glyph = image[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32)
    k = SCAN_SIDE / max(glyph.shape)
    size = (SCAN_SIDE, SCAN_SIDE) if rng.random() < 0.5 else (max(1, round(glyph.shape[1] * k)),
                                                              max(1, round(glyph.shape[0] * k)))
    small = cv2.resize(glyph, size, interpolation=cv2.INTER_AREA)
    up = s * rng.uniform(0.45, 0.8) / small.shape[0]
    big = cv2.resize(small, (max(2, round(small.shape[1] * up)), max(2, round(small.shape[0] * up))),
                     interpolation=rng.choice([cv2.INTER_NEAREST, cv2.INTER_LINEAR]))[:s, :s]
    out = np.zeros((s, s), np.float32)
    y0, x0 = (s - big.shape[0]) // 2, (s - big.shape[1]) // 2
    out[y0:y0 + big.shape[0], x0:x0 + big.shape[1]] = big
    return np.clip(out * rng.uniform(0.7, 1.0), 0, 255)


def _ink_pencil(image: np.ndarray, s: int, rng: random.Random) -> np.ndarray:
    """A real writer's digit in graphite: hands.placed's strokes, light and grainy; ink 0..255."""
    ink = hands.placed(image, s * rng.uniform(0.45, 0.8), (s / 2, s / 2 + rng.uniform(-2, 2)), (s, s), rng)
    grain = np.random.default_rng(rng.randint(0, 10**6)).uniform(0.5, 1.0, ink.shape)
    return ink * grain * rng.uniform(0.35, 0.6)


def cell(ink: np.ndarray, s: int, rng: random.Random) -> np.ndarray:
    """The ink written into a printed cell, maybe photographed: the grey cell picture."""
    img = Image.new("L", (s, s), rng.randint(215, 255))
    d = ImageDraw.Draw(img)
    line = rng.randint(0, 60)
    for k in (0, s - 1):
        w = rng.choice([1, 2, max(2, s // 20)])
        d.line([(k, 0), (k, s)], fill=line, width=w)
        d.line([(0, k), (s, k)], fill=line, width=w)
    if rng.random() < LABEL_SHARE:
        f = ImageFont.truetype(_find("DejaVuSans-Bold.ttf") or "", max(7, int(s * rng.uniform(0.16, 0.3))))
        d.text((s * 0.06, s * 0.05), f"{rng.randint(1, 99)}{rng.choice('+-x/')}", font=f, fill=line)
    base = np.asarray(img).astype(np.float32)
    pen = rng.randint(0, 120)
    arr = base - (base - pen) * (ink / 255.0)
    if rng.random() < PHOTO_SHARE:
        q = s * 0.04
        src = np.float32([[0, 0], [s, 0], [s, s], [0, s]])
        dst = src + np.float32([[rng.uniform(-q, q), rng.uniform(-q, q)] for _ in range(4)])
        arr = cv2.warpPerspective(arr, cv2.getPerspectiveTransform(src, dst), (s, s), borderMode=cv2.BORDER_REPLICATE)
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) / s
        arr -= rng.uniform(0, 60) * np.clip(rng.uniform(-1, 1) * (xx - 0.5) + rng.uniform(-1, 1) * (yy - 0.5) + 0.5, 0, 1)
        arr = cv2.GaussianBlur(arr, (0, 0), rng.uniform(0.4, 1.5))
        arr += np.random.default_rng(rng.randint(0, 10**6)).normal(0, rng.uniform(2, 8), arr.shape)
        arr = np.clip(arr, 0, 255).astype(np.uint8)
        arr = cv2.imdecode(cv2.imencode(".jpg", arr, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 85)])[1], 0)
    return np.clip(arr, 0, 255).astype(np.uint8)


def kinds(count: int, seed: int) -> dict[str, list[tuple[np.ndarray, int]]]:
    """Cells of each kind of hand and the digit written in each."""
    rng = random.Random(seed)
    out: dict[str, list[tuple[np.ndarray, int]]] = {}
    from sklearn.datasets import load_digits

    d = load_digits()
    held = [i for i in np.flatnonzero(d.target > 0)[1::2]]
    rng.shuffle(held)
    out["sklearn held out"] = [(cell(_ink_sklearn(d.images[i], s, rng), s, rng), int(d.target[i]))
                               for i in held[:count] for s in [rng.randint(48, 140)]]
    for name, dyn in (("strokes", "train"), ("strokes held out", "heldout")):
        rows = []
        for i in range(count):
            s, digit = rng.randint(48, 140), 1 + i % 9
            ink = strokes.draw(digit, s, s * rng.uniform(0.36, 0.6), (s * rng.uniform(0.42, 0.58),
                               s * rng.uniform(0.52, 0.66)), random.Random(10**7 + seed * 10**5 + i), dyn)
            rows.append((cell(ink, s, rng), digit))
        out[name] = rows
    for group, names in (("held out", HELD_OUT_HANDS), ("seen", SEEN_HANDS)):
        for name in names:
            if _find(name) is None:
                continue
            rows = []
            for i in range(count // 3):
                s, digit = rng.randint(48, 140), 1 + i % 9
                rows.append((cell(_ink_font(name, digit, s, rng), s, rng), digit))
            out[f"font {Path(name).stem} ({group})"] = rows
    for split in ("dev", "locked") if hands.available() else ():
        for size, (lo, hi) in (("small", (0.35, 0.6)), ("big", (0.65, 0.95))):
            rows = []
            for i in range(count):
                s, digit = rng.randint(48, 140), 1 + i % 9
                h = s * rng.uniform(lo, hi)
                room = (s - h) / 2
                centre = (s / 2 + rng.uniform(-1, 1) * max(room, 0.05 * s), s / 2 + rng.uniform(-0.5, 1) * max(room, 0.03 * s))
                rows.append((cell(hands.placed(hands.sample(split, digit, rng), h, centre, (s, s), rng), s, rng), digit))
            out[f"MNIST {split} {size}"] = rows
        for look, ink in (("scanned", _ink_scanned), ("pencil", _ink_pencil)):
            rows = []
            for i in range(count):
                s, digit = rng.randint(48, 140), 1 + i % 9
                rows.append((cell(ink(hands.sample(split, digit, rng), s, rng), s, rng), digit))
            out[f"MNIST {split} {look}"] = rows
    rows = []
    for i in range(count):
        s, digit = rng.randint(48, 140), 1 + i % 9
        h, centre = s * rng.uniform(0.36, 0.6), (s * rng.uniform(0.42, 0.58), s * rng.uniform(0.52, 0.66))
        hand = random.Random(2 * 10**7 + seed * 10**5 + i)
        ink = np.maximum(strokes.draw(digit, s, h, centre, hand), strokes.crossing(s, h, centre, hand))
        rows.append((cell(ink, s, rng), CROSSED))
    out["crossed out"] = rows
    return out


@saved("handwriting")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=300, help="cells per kind (a third per font)")
    ap.add_argument("--seed", type=int, default=0)
    add_model_options(ap, digit="read with this model file (one just trained)")
    args = ap.parse_args()
    use_models(chosen(args), one_thread=True)
    print("| hand | cells | right | unsure (not judged) | wrong (must be rare) |\n|---|---|---|---|---|")
    total: Counter[str] = Counter()
    for kind, rows in kinds(args.count, args.seed).items():
        probs = digits.read_digits([digits.digit_crop(img, (0, 0, img.shape[1], img.shape[0])) for img, _ in rows])
        tally: Counter[str] = Counter()
        for p, (_, digit) in zip(probs, rows):
            notes = float(p[digits.NOTES]) if len(p) > digits.NOTES else 0.0
            k = int(p[1:10].argmax()) + 1
            if p[0] + notes >= digits.SURE:
                tally["right" if digit == CROSSED else "wrong"] += 1  # read surely as no answer
            elif p[k] >= digits.SURE:
                tally["right" if k == digit else "wrong"] += 1
            else:
                tally["unsure"] += 1
        total.update(tally)
        n = len(rows)
        print(f"| {kind} | {n} | {tally['right']} ({tally['right'] / n:.0%}) | {tally['unsure']} | {tally['wrong']} |")


if __name__ == "__main__":
    main()
