"""Accuracy and speed of the image pipeline, stage by stage.

    .venv/bin/python bench/accuracy.py [--count 210] [--ocr auto] [--seed 1000] [--fails]

Renders `count` unique random puzzles (sizes 3..9 in turn) with devtools.synth
in six styles (clean, screenshot, scan, photo, page, lowres) and two font sets: the fonts
the glyph model was trained on and HELDOUT fonts it never saw.  For each
image it runs the pipeline (reading what each stage reached: stages.Reached) and counts:
  size   grid found with the right n
  cages  every cage border right (given the size)
  clues  labels read right, over cages whose layout was right
  solved final grid equals the truth and was reported unique
  WRONG  an answer given (exit 0) that is not the truth
and the seconds per image (whole pipeline) and tesseract processes spawned.
Images are rendered to memory, PNG/JPEG-encoded as a user's file would be.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _read import read_largest  # noqa: E402  (bench/_read.py: a picture read as `kkvision solve` reads it)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)
from calibration import margin_table, widen  # noqa: E402

from devtools.generate import random_puzzle  # noqa: E402
from devtools.synth import HELDOUT_FONTS, STYLES, TRAIN_FONTS, available, render  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options  # noqa: E402
from kkvision.vocab import LABEL_READERS as OCR_ENGINES  # noqa: E402


def cases(count: int, seed: int):
    fontsets = {"train": available(TRAIN_FONTS), "heldout": available(HELDOUT_FONTS)}
    for i in range(count):
        n = 3 + i % 7
        style = STYLES[(i // 7) % len(STYLES)]
        fontset = "heldout" if (i // (7 * len(STYLES))) % 2 else "train"
        puzzle, grid = random_puzzle(n, seed + i)
        image, look = render(puzzle, style, random.Random(seed + i), fontsets[fontset])
        yield i, n, style, fontset, puzzle, grid, image, look


def run_one(data: bytes, puzzle, grid, engine: str) -> tuple[dict, str]:
    marks = {"size": False, "cages": False, "clues": 0, "clue_total": 0, "solved": False, "wrong": False}
    why = ""
    got, reached = read_largest(Path("bench.png"), data, Options(ocr=engine, time_limit=20.0))
    if isinstance(got, KkvisionError):
        result = None
        why += f" {type(got).__name__}"
    else:
        result = got
    marks["tesseract"] = reached.processes
    geom, layout, clues = reached.geometry, reached.layout, reached.clues
    marks["size"] = geom is not None and geom.size == puzzle.size
    if geom is not None and not marks["size"]:
        why += f" size {geom.size}"
    marks["cages"] = marks["size"] and layout is not None and layout.cages == tuple(c.cells for c in puzzle.cages)
    if marks["size"] and layout is not None and not marks["cages"]:
        why += " cages wrong"
    if marks["cages"] and clues is not None:
        truth = {c.anchor: c for c in puzzle.cages}
        for cl in clues:
            t = truth[cl.cells[0]]
            marks["clue_total"] += 1
            if (cl.op, cl.target) == (t.op, t.target):
                marks["clues"] += 1
            else:
                why += f" {t.where}:{t.label}->{cl.text or '_'}"
    if result is not None:
        marks["odds"] = result.odds
        marks["solved"] = result.solution == grid
        marks["wrong"] = not marks["solved"]
        if marks["wrong"]:
            why += " WRONG solution"
    return marks, why


@saved("accuracy")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=210)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--ocr", default="model", choices=OCR_ENGINES)
    ap.add_argument("--fails", action="store_true", help="list each failing image")
    ap.add_argument("--verbose", action="store_true", help="a line per image")
    ap.add_argument("--save", type=Path, help="write failing images here")
    ap.add_argument("--only", type=int, nargs="*", help="run only these case numbers")
    ap.add_argument("--calibrate", type=float, metavar="NATS",
                    help="answer at any odds and measure them up to NATS: a table for choosing MARGIN")
    add_model_options(ap, "PATH",
                      label="read labels with this model file (one just trained) in place of the shipped one")
    args = ap.parse_args()
    use_models(chosen(args))
    if args.calibrate:
        widen(args.calibrate)
    answers: list[tuple[float, bool]] = []

    groups: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    slow9 = []
    for i, n, style, fontset, puzzle, grid, image, look in cases(args.count, args.seed):
        if args.only and i not in args.only:
            continue
        arr = cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)
        ext = ".jpg" if style in ("scan", "photo", "page", "lowres") else ".png"
        data = cv2.imencode(ext, arr, [cv2.IMWRITE_JPEG_QUALITY, 90] if ext == ".jpg" else [])[1].tobytes()
        t0 = time.perf_counter()
        marks, why = run_one(data, puzzle, grid, args.ocr)
        seconds = time.perf_counter() - t0
        if n == 9:
            slow9.append(seconds)
        if "odds" in marks:
            answers.append((float(marks["odds"]), bool(marks["solved"])))
        if args.verbose:
            print(f"#{i} {n}x{n} {style} {fontset} {seconds:.2f}s {'ok' if marks['solved'] else 'FAIL'}", file=sys.stderr)
        for key in ("all", f"style={style}", f"fonts={fontset}", f"{'photo-like' if style in ('scan', 'photo', 'page', 'lowres') else 'clean-like'}"):
            g = groups[key]
            g["images"] += 1
            g["size"] += marks["size"]
            g["cages"] += marks["cages"]
            g["clues"] += marks["clues"]
            g["clue_total"] += marks["clue_total"]
            g["solved"] += marks["solved"]
            g["wrong"] += marks["wrong"]
            g["seconds"] += seconds
            g["tesseract"] += marks["tesseract"]
        if args.fails and not marks["solved"]:
            print(f"FAIL #{i} {n}x{n} {style} {Path(look.font).name} ops={look.ops}:{why}", file=sys.stderr)
        if args.save and not marks["solved"]:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"fail{i:03d}{ext}").write_bytes(data)

    print(f"{'group':<22}{'images':>7}{'size':>8}{'cages':>8}{'clues':>8}{'solved':>8}{'WRONG':>7}{'s/img':>8}"
          f"{'tess/img':>9}")
    for key in sorted(groups, key=lambda k: (k != "all", k)):
        g = groups[key]
        m = g["images"]
        print(f"{key:<22}{int(m):>7}{g['size'] / m:>8.1%}{g['cages'] / m:>8.1%}"
              f"{g['clues'] / max(1, g['clue_total']):>8.1%}{g['solved'] / m:>8.1%}{int(g['wrong']):>7}"
              f"{g['seconds'] / m:>8.2f}{g['tesseract'] / m:>9.2f}")
    if slow9:
        print(f"9x9 images: mean {np.mean(slow9):.2f} s, max {np.max(slow9):.2f} s")
    if args.calibrate:
        print(margin_table(answers))


if __name__ == "__main__":
    main()
