"""Make models/glyphs.npz, the glyph model kkvision ships.

How it was made: random puzzles (sizes 3..9) are drawn by kkvision.synth in
the TRAIN_FONTS only (DejaVu, Liberation, FreeFont, Roboto, Open Sans, Lato,
Carlito, Caladea, Cantarell, Noto Mono; the benchmark's HELDOUT_FONTS, the
URW families, are never used here), in random line weights, label sizes and
operator spellings (× ÷ −, x / -, *), lightly blurred, noised and
JPEG-compressed.  Each cage label is cut into glyphs by the same code the
pipeline uses (vision.glyphs.label_crop + segment); labels whose glyph count
matches their text give one training example per glyph.  At most PER_CLASS
examples per class are kept, as float16.

    .venv/bin/python models/train_glyphs.py [--puzzles 1400] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from PIL import ImageFilter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kkvision.generate import random_puzzle  # noqa: E402
from kkvision.synth import TRAIN_FONTS, _jpeg, _noise, available, label_text, random_look, render_flat  # noqa: E402
from kkvision.vision.cages import darkness  # noqa: E402
from kkvision.vision.glyphs import CLASSES, label_crop, segment  # noqa: E402
from kkvision.vision.grid import SIDE, GridGeometry  # noqa: E402

PER_CLASS = 1200
CHAR_CLASS = {"−": "-", "×": "*", "x": "*", "÷": "÷", "/": "/", "*": "*", "+": "+", "-": "-"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--puzzles", type=int, default=1400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path(__file__).with_name("glyphs.npz"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    fonts = available(TRAIN_FONTS)
    from PIL import ImageFont

    feats: dict[int, list[np.ndarray]] = {i: [] for i in range(len(CLASSES))}
    skipped = 0
    for k in range(args.puzzles):
        n = rng.randint(3, 9)
        puzzle, _ = random_puzzle(n, rng.randint(0, 10**9), unique=False)
        look = random_look(rng, fonts, n)
        img = render_flat(puzzle, look)
        if rng.random() < 0.75:
            img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 1.4)))
            img = _jpeg(_noise(img, rng, rng.uniform(0, 8)), rng.randint(45, 95))
        pad = look.thick * 2 + 6
        span = n * look.cell
        src = np.asarray([[pad, pad], [pad + span, pad], [pad + span, pad + span], [pad, pad + span]], dtype=np.float32)
        dst = np.asarray([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], dtype=np.float32)
        H = cv2.getPerspectiveTransform(src, dst)
        gray = cv2.cvtColor(np.asarray(img), cv2.COLOR_RGB2GRAY)
        square = cv2.warpPerspective(gray, H, (SIDE, SIDE), flags=cv2.INTER_AREA)
        lines = tuple(i * SIDE / n for i in range(n + 1))
        geom = GridGeometry(n, ((0, 0),) * 4, lines, lines, H)
        dark = darkness(square, n)
        font = ImageFont.truetype(look.font, max(9, int(look.cell * look.font_frac)))
        for cage in puzzle.cages:
            text = label_text(cage.op, cage.target, look.ops, font)
            glyphs = segment(label_crop(dark, geom, cage.anchor))
            if len(glyphs) != len(text):
                skipped += 1
                continue
            for ch, g in zip(text, glyphs):
                cls = CLASSES.index(CHAR_CLASS.get(ch, ch))
                feats[cls].append(g.features)
        if k % 100 == 0:
            print(f"{k} puzzles, per class {Counter({CLASSES[c]: len(v) for c, v in feats.items()})}", file=sys.stderr)
    xs, ys = [], []
    for cls, rows in feats.items():
        rng.shuffle(rows)
        rows = rows[:PER_CLASS]
        xs += rows
        ys += [cls] * len(rows)
    np.savez_compressed(args.out, x=np.stack(xs).astype(np.float16), y=np.array(ys, np.uint8))
    print(f"wrote {args.out}: {len(ys)} examples, {skipped} labels skipped (glyph count mismatch)", file=sys.stderr)


if __name__ == "__main__":
    main()
