"""How `check`'s rules for a wrong, a right and a blank cell fare on every cell of filled-in scenes:
the calibration behind kkvision.answers' ONE_READER, JOINT, WRONG_SURE, CONCENTRATED, TOGETHER and BLANK_SURE.

    .venv/bin/python bench/check_rules.py [--seed 100] [--count 160] [--jobs 2] [--digit-model PATH]
                                          [--answer-model PATH]

Renders bench/check.py's real-hand scenes (devtools/hands.py: its kinds and wrong counts in turn,
train themes, the 'dev' writers) from seeds apart from the ones bench/check.py reports (0..49,
and the locked split's), so that rules set here are scored there on pictures they were not set
on.  For every written or pencil cell of every puzzle solved right it keeps what check's readers
give (the cell reader of the cell and of its ink alone, contents.alone_in; the framed-answer
reader's two framings, vision/framed.py), then prints:
  wrong rule   of the cells written wrong, how many each rule calls wrong; of the cells written
               right or holding pencil marks, how many it calls wrong (must be 0): the shipped
               rule (answers.read_written: the cell reader surely another digit, also with the
               box nudged (answers._other_every_way), the framed
               reader agreeing, each reader's right digit at most ONE_READER and the two
               together at most JOINT, the ink alone read as an answer, ALONE_ANSWER, and as
               the same digit), its
               neighbours, and the rule before it (the cell
               reader's right digit at most NOT_RIGHT, the framed reader's under FRAMED_DOUBT,
               the likeliest digit steady with the box nudged, digits.NUDGES)
  nearest      the right and pencil cells nearest to being called wrong by the shipped rule
  right rule   of the cells written right, how many each rule calls right; of the cells written
               wrong, how many it calls right (must be 0), and of the pencil cells read as no
               blank: the shipped rule (answers.read_written: the cell reader SURE; its reading of
               the ink alone SURE; the framed reader SURE, a framing sure only given the grid's
               digits not ruled out by the other; the two readers together, answers.TOGETHER)
               and the rules before it
  blank rule   the most any written cell was read as nothing or notes, and how many blank
               cells each threshold finds (answers.BLANK_SURE, digits.SURE)
The framed reader reads every written cell of a puzzle together here (check reads those it looks
at again together: its pen colour is told from theirs), so a cell may read a little otherwise.
Cell by cell only: the page's rules (answers.in_one_hand: a misreading the page repeats in the
hand's own shape not judged, an answer left not judged that is written as the hand writes its right
digit judged right; the labels' rules in answers.judge) are not weighed here; bench/check.py's
verdicts have them.
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

from bench.check import HAND_KINDS, WRONG_COUNTS, answered  # noqa: E402
from devtools import hands  # noqa: E402
from devtools.scenes import scene  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options, read_source  # noqa: E402
from kkvision.sources import of_bytes  # noqa: E402


@dataclass(frozen=True)
class Cell:
    probs: np.ndarray  # the cell reader's: nothing, 1..9, notes
    alone: np.ndarray  # ... of the cell's ink alone (contents.alone_in)
    framed: np.ndarray  # the framed-answer reader's two framings (2, 9: the digits 1..9)
    nudged: np.ndarray  # the cell reader's with the cell's box nudged (digits.NUDGES)
    size: int
    right: int  # the solution's digit (the truth's: a grid read in part leaves some of its own open)
    written: int | None  # what the scene wrote there (None: nothing or pencil marks)
    pencil: bool  # only pencil marks
    no_ink: bool  # no ink where an answer goes: blank whatever the reader says
    faint: bool  # ink too faint to be an answer
    where: str  # the scene and cell, to name the nearest


def cells_of(args: tuple[int, int]) -> list[Cell]:
    from kkvision import answers
    from kkvision.vision.contents import alone_in, written_ink
    from kkvision.vision.digits import (
        EMPTY_INK_SHARE,
        FAINT_INK,
        digit_crops,
        ink_contrast,
        line_contrast,
        read_digits,
    )

    seed, i = args  # i: the scene's place from --seed, as bench/check.py turns kinds and wrong counts
    kind = HAND_KINDS[i % len(HAND_KINDS)]
    mode, photo = (kind[:-len("-photo")], True) if kind.endswith("-photo") else (kind, False)
    sc = scene("filled", seed, heldout=False, mode=mode, wrong=WRONG_COUNTS[i % len(WRONG_COUNTS)],  # type: ignore[arg-type]
               **({"photo": True} if photo else {}))
    truths = [t for t in sc.puzzles if t.fill is not None]
    try:
        page = read_source(of_bytes(sc.data, sc.name), Options(in_part=True))
    except KkvisionError:
        return []
    out = []
    for result, truth, same in answered(page, truths):
        n = result.puzzle.size
        if not same or n != len(truth.solution):
            continue
        geom = result.geometry
        square = geom.square(page.picture)
        where = [(r, c) for r in range(n) for c in range(n)
                 if (r, c) in truth.fill.answers or (r, c) in truth.fill.pencil]
        if not where:
            continue
        boxes = [geom.cell_box(r, c) for r, c in where]
        probs = read_digits(digit_crops(square, boxes))
        mask = written_ink(square, geom, where, geom.colour_square(page.picture))
        alone = alone_in(square, mask)
        again = read_digits(digit_crops(alone, boxes))
        framings = answers._framed_readings(square, mask, alone, boxes)
        moved = answers._nudged_readings(square, geom, where)
        for (r, c), box, p, a, f, m in zip(where, boxes, probs, again, framings, moved):
            ink = ink_contrast(square, box)
            written = truth.fill.answers.get((r, c))
            out.append(Cell(np.asarray(p), np.asarray(a), np.asarray(f), np.asarray(m), n, truth.solution[r][c],
                            None if written is None else written[0], written is None,
                            ink < EMPTY_INK_SHARE * line_contrast(square, box), ink < FAINT_INK,
                            f"{sc.name} {chr(ord('A') + c)}{r + 1}"))
    return out


def called_wrong(c: Cell, one_reader: float, joint: float) -> bool:
    """Is the cell called wrong by the shipped rule (answers.read_written) with these bounds?"""
    from kkvision import answers
    from kkvision.vision.digits import NOTES

    p, right = c.probs, c.right
    return (answers._surely_other(p[1:NOTES], right, c.size, one_reader)
            and answers._both_rule_out(right, int(p[1:NOTES].argmax()) + 1, float(p[right]), c.alone,
                                       c.framed, one_reader, joint)
            and answers._other_every_way(right, c.nudged))


def called_right(c: Cell, framings_agree: bool = True, together: bool = True) -> bool:
    """Is the cell called right by the shipped rule (answers.read_written: the cell reader SURE of the right
    digit, given the grid's digits and answers.ANSWERED, the framed reader not reading another digit
    in every framing where it is SURE only so; else, not called wrong nor ruled out by the cell
    reader alone, its reading of the ink alone SURE, the framed reader SURE (answers._framed_right), or
    the two readers together (answers._together_right))?  Without `framings_agree` one framing SURE given
    the grid's digits is enough (the rule before); without `together`, no joint reading."""
    from kkvision import answers
    from kkvision.vision.digits import NOTES, SURE

    p, right, n = c.probs, c.right, c.size
    held = answers._in_grid(p, n, NOTES)
    first = answers._right_given(held, n, right)
    if first >= SURE:  # ... unless sure only on the odds, every framing reading another digit (_framed_other)
        return not (held[right] < SURE and answers._framed_other(c.framed, n, right))
    if answers._surely_other(p[1:NOTES], right, n, answers.ONE_READER) and (
            called_wrong(c, answers.ONE_READER, answers.JOINT) or float(p[right]) <= answers.NOT_RIGHT):
        return False
    if framings_agree and together:
        return answers._second_look_right(first, c.alone, c.framed, n, right)
    alone = answers._right_given(answers._in_grid(c.alone, n, NOTES), n, right)
    framed = (answers._framed_right(c.framed, n, right) if framings_agree
              else any(answers._framed_share(f, n, right) >= SURE for f in c.framed))
    joint = together and answers._together_right(max(first, alone), c.framed, n, right)
    return alone >= SURE or framed or joint


def called_before(c: Cell) -> bool:
    """Was the cell called wrong by the rule before (the cell reader at most NOT_RIGHT, steady nudged, the
    framed reader under FRAMED_DOUBT and agreeing)?"""
    from kkvision import answers
    from kkvision.vision.digits import NOTES

    p, right = c.probs, c.right
    if not answers._surely_other(p[1:NOTES], right, c.size, answers.NOT_RIGHT):
        return False
    likeliest = int(p[1:NOTES].argmax()) + 1
    if any(int(q[1:NOTES].argmax()) + 1 != likeliest for q in c.nudged):
        return False
    seen = [int(f.argmax()) + 1 for f in c.framed if f.max() > 0]
    return likeliest in seen and float(c.framed[:, right - 1].max()) < answers.FRAMED_DOUBT


@saved("check_rules")
def main() -> None:
    from kkvision import answers
    from kkvision.vision.digits import NOTES, SURE

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--count", type=int, default=160, help="scenes")
    ap.add_argument("--jobs", type=int, default=2)
    add_model_options(ap, digit="the cell reader: this model file", answer="the framed-answer reader: this file")
    args = ap.parse_args()
    if not hands.available():
        raise SystemExit(f"bench/check_rules.py: the real hands are not in {hands.FOLDER}")
    seeds = range(args.seed, args.seed + args.count)
    with ProcessPoolExecutor(args.jobs, initializer=use_models, initargs=(chosen(args), True)) as pool:
        cells = [c for found in pool.map(cells_of, [(s, s - args.seed) for s in seeds]) for c in found]
    judged = [c for c in cells if not c.no_ink and not c.faint and c.probs[0] + c.probs[NOTES] < answers.BLANK_SURE]
    wrong = [c for c in judged if c.written is not None and c.written != c.right]
    others = [c for c in judged if c.written is None or c.written == c.right]
    print(f"{len(seeds)} scenes, seeds {seeds[0]}..{seeds[-1]} (real hands, dev writers, train themes): {len(cells)}"
          f" written or pencil cells of puzzles solved right; {len(wrong)} written wrong, {len(others)} written"
          f" right or pencil only (ink enough to judge, not read blank)\n")
    shipped = (answers.ONE_READER, answers.JOINT)
    print("| wrong rule | wrong cells called | right or pencil cells called wrong (must be 0) |")
    print("|---|---|---|")
    for rule in sorted({shipped, (0.05, 2e-5), (0.05, 3e-6), (0.05, 1e-4), (0.02, 1e-5), (0.1, 1e-5)}):
        mark = " (shipped)" if rule == shipped else ""
        print(f"| each at most {rule[0]:g}, together at most {rule[1]:g}{mark} |"
              f" {sum(called_wrong(c, *rule) for c in wrong)}/{len(wrong)} | {sum(called_wrong(c, *rule) for c in others)} |")
    print(f"| the rule before (cell reader at most {answers.NOT_RIGHT:g}, steady nudged; framed reader under"
          f" {answers.FRAMED_DOUBT:g}) | {sum(map(called_before, wrong))}/{len(wrong)} | {sum(map(called_before, others))} |")
    near = sorted(((float(c.probs[c.right]) * float(c.framed[:, c.right - 1].max()), c) for c in others
                   if answers._surely_other(c.probs[1:NOTES], c.right, c.size, answers.ONE_READER)
                   and int(c.probs[1:NOTES].argmax()) + 1 in [int(f.argmax()) + 1 for f in c.framed if f.max() > 0]),
                  key=lambda pc: pc[0])[:5]
    print("\nright or pencil cells nearest to being called wrong (the cell reader surely another digit, the framed"
          " reader agreeing):")
    print("| cell | written | read | the right digit: cell reader x framed reader |")
    print("|---|---|---|---|")
    for product, c in near:
        print(f"| {c.where} | {'pencil' if c.pencil else c.written} | {int(c.probs[1:NOTES].argmax()) + 1} |"
              f" {float(c.probs[c.right]):.4f} x {float(c.framed[:, c.right - 1].max()):.4f} = {product:.1e} |")
    written_right = [c for c in judged if c.written == c.right]
    pencils = [c for c in judged if c.written is None]
    print(f"\n| right rule | right answers called right | wrong answers called right (must be 0) | pencil cells"
          f" called right (of {len(pencils)}) |")
    print("|---|---|---|---|")
    for name, agree, together in (("shipped: the framed reader SURE (sure only given the grid's digits: not ruled"
                                   " out by its other framing), or the two readers together", True, True),
                                  ("the framed reader so, no joint reading", True, False),
                                  ("one framing SURE enough, no joint reading (the rule before)", False, False)):
        print(f"| {name} | {sum(called_right(c, agree, together) for c in written_right)}/{len(written_right)} |"
              f" {sum(called_right(c, agree, together) for c in wrong)} |"
              f" {sum(called_right(c, agree, together) for c in pencils)} |")
    nothing = [float(c.probs[0] + c.probs[NOTES]) for c in cells if c.written is not None and not c.no_ink]
    blank = [c for c in cells if c.written is None]
    print(f"\nwritten cells read as nothing or notes: at most {max(nothing, default=0.0):.2f}")
    print("| blank when nothing or notes at least | pencil cells found blank | written cells called blank (must be 0) |")
    print("|---|---|---|")
    for t in sorted({answers.BLANK_SURE, SURE, 0.7}):
        found = sum(c.no_ink or c.probs[0] + c.probs[NOTES] >= t for c in blank)
        false = sum(x >= t for x in nothing)
        mark = " (shipped)" if t == answers.BLANK_SURE else ""
        print(f"| {t:g}{mark} | {found}/{len(blank)} | {false} |")


if __name__ == "__main__":
    main()
