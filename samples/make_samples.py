"""Render the sample images in this folder, each with <name>.expected.json.

    .venv/bin/python samples/make_samples.py

The NYT 4x4 of 2009-02-13 is drawn from its Shields-format text; the others
are random unique puzzles from devtools.generate.  Fonts for these samples
are the benchmark's held-out fonts (never used to train the glyph model) and
DejaVu; styles cover a phone photo, a scan, an app screenshot, a clean print
and a puzzle with hidden operators.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from devtools.generate import random_puzzle  # noqa: E402
from devtools.synth import HELDOUT_FONTS, available, degrade, find_font, random_look, render_flat  # noqa: E402
from kkvision import formats  # noqa: E402
from kkvision.formats.jsonfmt import to_dict  # noqa: E402
from kkvision.solver import solve  # noqa: E402

# name, size, puzzle seed, style, render seed, hidden operators
SAMPLES = [
    ("photo-6x6.jpg", 6, 7, "photo", 3, False),
    ("scan-9x9.jpg", 9, 21, "scan", 5, False),
    ("screenshot-5x5.png", 5, 4, "screenshot", 2, False),
    ("clean-8x8.png", 8, 12, "clean", 8, False),
    ("hidden-ops-4x4.png", 4, 3, "clean", 1, True),
]


def save(name: str, image, puzzle, grid) -> None:
    arr = cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)
    params = [cv2.IMWRITE_JPEG_QUALITY, 85] if name.endswith(".jpg") else []
    cv2.imwrite(str(HERE / name), arr, params)
    expected = {"puzzle": to_dict(puzzle), "solution": [list(r) for r in grid]}
    (HERE / (name.rsplit(".", 1)[0] + ".expected.json")).write_text(json.dumps(expected) + "\n")


def main() -> None:
    fonts = available(HELDOUT_FONTS) + [p for p in [find_font("DejaVuSans.ttf")] if p]
    nyt = formats.read((HERE / "nyt-2009-02-13.shields.txt").read_text())
    look = random_look(random.Random(0), [find_font("DejaVuSans-Bold.ttf")], 4)
    save("nyt-2009-02-13.png", render_flat(nyt, look), nyt, solve(nyt).grid)
    for name, n, pseed, style, rseed, hidden in SAMPLES:
        puzzle, grid = random_puzzle(n, pseed, hidden_ops=hidden)
        rng = random.Random(rseed)
        img = degrade(render_flat(puzzle, random_look(rng, fonts, n)), style, rng)
        save(name, img, puzzle, grid)
        print("wrote", name, file=sys.stderr)


if __name__ == "__main__":
    main()
