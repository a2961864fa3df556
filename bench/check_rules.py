"""How `check`'s rules for a wrong and a blank cell fare on every cell of filled-in scenes:
the calibration behind kkvision.answers' NOT_RIGHT, WRONG_SURE, CONCENTRATED and BLANK_SURE.

    .venv/bin/python bench/check_rules.py [--seed 100] [--count 60] [--jobs 2] [--digit-model PATH]

Renders the scenes bench/check.py renders (the same fill modes and wrong counts in turn, train
and held-out themes), but from seeds apart from the ones bench/check.py reports (0..49 by
default), so that rules set here are scored there on pictures they were not set on.  For
every cell of every puzzle solved right it keeps the digit reader's probabilities, then prints:
  wrong rule   of the cells written wrong, how many each rule calls wrong; of the cells
               written right, how many it calls wrong (must be 0): the shipped rule
               (answers._surely_other) and its neighbours; the
               shipped one also with answers._unsteady's nudges
  blank rule   the most any written cell was read as nothing or notes, and how many
               blank cells each threshold finds (answers.BLANK_SURE, digits.SURE)
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from bench.check import WRONG_COUNTS, answered  # noqa: E402
from devtools.scenes import FILL_MODES, scene  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options, read_source  # noqa: E402
from kkvision.sources import of_bytes  # noqa: E402


@dataclass(frozen=True)
class Cell:
    probs: np.ndarray  # the digit reader's: nothing, 1..9, notes
    size: int
    right: int  # the solution's digit
    written: int | None  # what the scene wrote there (None: nothing, or only pencil marks)
    no_ink: bool  # no ink where an answer goes: blank whatever the reader says
    faint: bool  # ink too faint to be an answer
    nudged: np.ndarray  # the reader's probabilities with the cell's box nudged (digits.NUDGES; written cells)


def cells_of(args: tuple[int, bool]) -> list[Cell]:
    from kkvision.vision.digits import (
        EMPTY_INK_SHARE,
        FAINT_INK,
        digit_crop,
        ink_contrast,
        line_contrast,
        nudged,
        read_digits,
    )

    seed, heldout = args
    sc = scene("filled", seed, heldout=heldout, mode=FILL_MODES[seed % len(FILL_MODES)],
               wrong=WRONG_COUNTS[seed % len(WRONG_COUNTS)])
    truths = [t for t in sc.puzzles if t.fill is not None]
    try:
        page = read_source(of_bytes(sc.data, sc.name), Options())
    except KkvisionError:
        return []
    out = []
    for result, truth, same in answered(page, truths):
        if not same:
            continue
        geom = result.geometry
        square = geom.square(page.picture)
        n = geom.size
        where = [(r, c) for r in range(n) for c in range(n)]
        probs = read_digits([digit_crop(square, geom.cell_box(r, c)) for r, c in where])
        for (r, c), p in zip(where, probs):
            box = geom.cell_box(r, c)
            ink = ink_contrast(square, box)
            written = truth.fill.answers.get((r, c))
            moved = read_digits([digit_crop(square, b) for b in nudged(box)]) if written is not None else []
            out.append(Cell(np.asarray(p), n, result.solution[r][c], None if written is None else written[0],
                            ink < EMPTY_INK_SHARE * line_contrast(square, box), ink < FAINT_INK,
                            np.asarray(moved)))
    return out


def _steady(c: Cell) -> bool:
    """The likeliest digit (any of 1..9) stays the likeliest with the cell's box nudged every way
    (answers._unsteady)."""
    from kkvision.vision.digits import NOTES

    likeliest = int(c.probs[1:NOTES].argmax()) + 1
    return all(int(q[1:NOTES].argmax()) + 1 == likeliest for q in c.nudged)


@saved("check_rules")
def main() -> None:
    from kkvision import answers
    from kkvision.answers import _surely_other
    from kkvision.vision.digits import NOTES, SURE

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--count", type=int, default=60, help="scenes per theme split")
    ap.add_argument("--jobs", type=int, default=2)
    add_model_options(ap, digit=None)
    args = ap.parse_args()
    cases = [(args.seed + i, heldout) for i in range(args.count) for heldout in (False, True)]
    with ProcessPoolExecutor(args.jobs, initializer=use_models, initargs=(chosen(args), True)) as pool:
        cells = [c for found in pool.map(cells_of, cases) for c in found]
    judged = [c for c in cells if c.written is not None and not c.no_ink and not c.faint]
    wrong = [c for c in judged if c.written != c.right]
    right = [c for c in judged if c.written == c.right]
    print(f"{len(cases)} scenes, seeds {args.seed}..{args.seed + args.count - 1}: {len(cells)} cells,"
          f" {len(wrong)} written wrong, {len(right)} written right (ink enough to judge)\n")
    shipped = (answers.NOT_RIGHT, answers.WRONG_SURE, answers.CONCENTRATED)
    print("| wrong rule: right digit at most, others at least, two likeliest at least | wrong cells called |"
          " right cells called wrong (must be 0) |")
    print("|---|---|---|")
    rules = sorted({shipped, (0.05, 0.85, 0.85), (0.05, 0.85, 0.5), (0.03, 0.85, 0.5), (0.02, 0.85, 0.0),
                    (0.02, 0.95, 0.5)})
    for rule in rules:
        called = sum(_surely_other(c.probs[1:NOTES], c.right, c.size, *rule) for c in wrong)
        false = sum(_surely_other(c.probs[1:NOTES], c.right, c.size, *rule) for c in right)
        mark = " (shipped, the box as found)" if rule == shipped else ""
        print(f"| {rule[0]:g}, {rule[1]:g}, {rule[2]:g}{mark} | {called}/{len(wrong)} | {false} |")
        if rule == shipped:  # and still so with the box nudged (answers._unsteady)
            called = sum(_surely_other(c.probs[1:NOTES], c.right, c.size, *rule) and _steady(c) for c in wrong)
            false = sum(_surely_other(c.probs[1:NOTES], c.right, c.size, *rule) and _steady(c) for c in right)
            print(f"| {rule[0]:g}, {rule[1]:g}, {rule[2]:g}, also nudged (shipped) | {called}/{len(wrong)}"
                  f" | {false} |")
    nothing = [float(c.probs[0] + c.probs[NOTES]) for c in judged]
    blank = [c for c in cells if c.written is None]
    print(f"\nwritten cells read as nothing or notes: at most {max(nothing, default=0.0):.2f}")
    print("| blank when nothing or notes at least | blank cells found | written cells called blank (must be 0) |")
    print("|---|---|---|")
    for t in sorted({answers.BLANK_SURE, SURE, 0.7}):
        found = sum(c.no_ink or c.probs[0] + c.probs[NOTES] >= t for c in blank)
        false = sum(x >= t for x in nothing)
        mark = " (shipped)" if t == answers.BLANK_SURE else ""
        print(f"| {t:g}{mark} | {found}/{len(blank)} | {false} |")


if __name__ == "__main__":
    main()
