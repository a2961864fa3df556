"""`kkvision check` on filled-in pictures: is the verdict honest?

    .venv/bin/python bench/check.py [--count 60] [--seed 0] [--jobs 2] [--fails]
                                    [--digit-model PATH] [--label-model PATH] [--second-label-model PATH]
                                    [--contents-model PATH] [--hand-style STYLE]

Renders 2 x count filled-in scenes (devtools/scenes.py family 'filled', train and
held-out themes; answers typed by an app, written by hand in fonts of hands,
drawn as kkvision draws them, or mixed, and pencil marks; on app screens, web
pages and print pages, some photographed), with exactly 0, 1 or 3 answers wrong
in turn and the fill modes in turn, and runs check's reading of each puzzle
(the grid, the written cells, the verdict: kkvision.answers) on the scene's file.
With --hands, real hands too (devtools/hands.py, writers no model trained on): the kinds
'hand' (answers as people write them, 35-65% of the cell high), 'hand-big' (62-95%: over the
label's corner, up to the lines), 'hand-pencil' (and the same hand's pencil candidates in most
empty cells) and 'hand-photo' (a 'hand' page photographed by a phone), each in split 'dev' (train
themes, the dev writers, seeds from --seed) and 'locked' (the locked split: devtools.scenes'
locked themes, the locked writers, seeds from LOCKED_SEED; tune nothing on it).  --only hands runs those alone.
--hand-style draws those hands looking otherwise than MNIST keeps them ('envelope': stretched to a square
and scanned coarse, as postal digits are; 'pencil': grey and grainy; devtools/hands.HAND_STYLES): the same
writers and scenes, a look no reader was trained on.
Per fill mode and theme split:
  puzzles       KenKens in the pictures; solved: check had a solution to check against (in
                part: read without labels hidden under answers, reading.resolve_in_part, the
                cells they decide not judged, or with cells the answers written make the labels
                say otherwise, answers._doubted; its other cells must be the truth's)
  another solution  puzzles whose grid differs from the truth's in a cell check did not leave
                open (a misread puzzle: its right answers would be called wrong; must be 0)
  all right     exit 0 where a wrong answer was written (must be 0)
  wrong caught  wrong answers called wrong, of those written in solved puzzles
  wrong taken right  wrong answers judged right (read as the right digit surely): must be 0; a puzzle
                with one is no "all right" only while another of its cells is not judged
  false wrong   cells called wrong that hold a right answer, pencil marks or nothing (must be 0)
  blanks found  cells with nothing or only pencil marks reported blank, of those
  notes named   cells with only pencil marks listed as such (JSON 'pencil'), of those; and
                cells listed so that hold an answer or nothing (in brackets)
  not judged    written cells read too unsurely to judge (exit 15 when nothing is wrong)
  verdicts      exit codes of the solved puzzles (0, 11, 15)
  right verdict the exit code the truth calls for: 11 with a wrong answer written, else 0 (a
                puzzle not solved or exit 15 is no right verdict)
  as blank      puzzles solved as the same picture with nothing written is, of those it solves
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from devtools import hands  # noqa: E402
from devtools.scenes import FILL_MODES, LOCKED_SEED, scene  # noqa: E402
from kkvision.answers import judge  # noqa: E402
from kkvision.commands import written_on_page  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options, read_source  # noqa: E402
from kkvision.sources import of_bytes  # noqa: E402

WRONG_COUNTS = (0, 1, 3)
HAND_KINDS = ("hand", "hand-big", "hand-pencil", "hand-photo")


@dataclass
class Score:
    mode: str
    split: str
    name: str = ""
    puzzles: int = 0
    solved: int = 0
    in_part: int = 0
    all_right_but_wrong: int = 0
    wrong_taken_right: int = 0
    another: int = 0
    wrong_written: int = 0
    wrong_caught: int = 0
    false_wrong: int = 0
    blanks: int = 0
    blanks_found: int = 0
    pencil: int = 0
    pencil_found: int = 0
    pencil_false: int = 0
    not_judged: int = 0
    verdicts: Counter[int] = field(default_factory=Counter)
    right_verdicts: int = 0
    blank_solved: int = 0
    as_blank: int = 0
    why: list[str] = field(default_factory=list)


def _match(box: tuple[int, int, int, int] | None, truths: list) -> object | None:  # type: ignore[type-arg]
    """The scene's puzzle whose box overlaps the found one most."""
    if box is None:
        return None
    def shared(t) -> float:  # type: ignore[no-untyped-def]
        x0, y0, x1, y1 = t.box
        w = max(0, min(x1, box[2]) - max(x0, box[0]))
        h = max(0, min(y1, box[3]) - max(y0, box[1]))
        return w * h / max(1, (x1 - x0) * (y1 - y0))
    best = max(truths, key=shared, default=None)
    return best if best is not None and shared(best) > 0.5 else None


def answered(page, truths: list) -> Iterator[tuple]:  # type: ignore[type-arg]
    """(result, truth, whether the result's solution is the truth's) for each puzzle of the page
    that was answered and is one of the scene's filled-in puzzles (read in part, check's: in the
    cells it decides)."""
    for outcome in page.outcomes:
        result = outcome.unique().result
        truth = _match(outcome.box, truths)
        if result is None or truth is None or result.geometry is None:
            continue
        yield result, truth, all(d == truth.solution[r][c] for r, row in enumerate(result.solution)
                                 for c, d in enumerate(row) if (r, c) not in result.undetermined)


def _solved(data: bytes, name: str, truths: list) -> tuple[set[int], str]:  # type: ignore[type-arg]
    """Which of the truths (by index) the picture's reading solves right, and why none when it failed."""
    try:
        page = read_source(of_bytes(data, name), Options())
    except KkvisionError as exc:
        return set(), f"exit {int(exc.exit_code)}"
    return {truths.index(truth) for _, truth, same in answered(page, truths) if same}, ""


def run(args: tuple[int, bool, str, int, str, str]) -> Score:
    seed, heldout, kind, wrong, split, style = args
    mode, photo = (kind[:-len("-photo")], True) if kind.endswith("-photo") else (kind, False)
    knobs = dict(mode=mode, wrong=wrong, **({"photo": True} if photo else {}),
                 **({"hand_style": style} if kind in HAND_KINDS and style != "mnist" else {}))
    locked = split == "locked"  # the locked split's own themes (devtools.scenes.LOCKED_THEMES)
    sc = scene("filled", seed, heldout=heldout, locked=locked, **knobs)  # type: ignore[arg-type]
    score = Score(kind, split, sc.name)
    truths = [t for t in sc.puzzles if t.fill is not None]
    score.puzzles = len(truths)
    blank = scene("filled", seed, heldout=heldout, locked=locked, blank=True, **knobs)  # type: ignore[arg-type]
    blank_solved, _ = _solved(blank.data, blank.name, [t for t in blank.puzzles if t.fill is not None])
    score.blank_solved = len(blank_solved)
    try:
        page = read_source(of_bytes(sc.data, sc.name), Options(in_part=True))  # as `kkvision check` reads it
    except KkvisionError as exc:
        score.why.append(f"exit {int(exc.exit_code)}")
        return score
    read = written_on_page(page)  # the page's cells read together, as `kkvision check` reads them (one hand's)
    for result, truth, _ in answered(page, truths):
        judged = judge(result.puzzle, result.solution, None, page.picture, result.geometry, result.undetermined,
                       result.clues, result.freed, read[id(result)])  # as `kkvision check` judges it (one hand's)
        left_open = result.undetermined | set(judged.doubted)
        same = all(d == truth.solution[r][c] for r, row in enumerate(result.solution)
                   for c, d in enumerate(row) if (r, c) not in left_open)
        if same and not left_open and truths.index(truth) in blank_solved:
            score.as_blank += 1
        if not same:
            score.another += 1
            score.why.append("another solution")
            continue
        score.solved += 1
        score.in_part += bool(left_open or result.freed)
        n = result.puzzle.size
        unsure, verdict = judged.unsure, judged.check
        code = int(judged.verdict)
        score.verdicts[code] += 1
        written = {cell: d for cell, (d, _) in truth.fill.answers.items()}
        wrong = {cell for cell, d in written.items() if d != truth.solution[cell[0]][cell[1]]}
        score.wrong_written += len(wrong)
        score.wrong_caught += len(wrong & set(verdict.wrong))
        false = set(verdict.wrong) - wrong
        score.false_wrong += len(false)
        taken = sorted((r, c) for r, c in wrong if verdict.answers[r][c] == result.solution[r][c] and (r, c) not in unsure)
        score.wrong_taken_right += len(taken)
        empty = {(r, c) for r in range(n) for c in range(n) if (r, c) not in written}
        score.blanks += len(empty)
        score.blanks_found += len(empty & set(verdict.blank) - set(unsure))
        marked = set(truth.fill.pencil) & empty
        score.pencil += len(marked)
        score.pencil_found += len(marked & set(judged.pencil))
        score.pencil_false += len(set(judged.pencil) - marked)
        score.not_judged += len(unsure)
        if wrong and code == 0:
            score.all_right_but_wrong += 1
        score.right_verdicts += code == (11 if wrong else 0)
        if false or (wrong - set(verdict.wrong)) or (not wrong and code != 0):  # a right page not said right too
            score.why.append(f"wrong {sorted(wrong)} called wrong {sorted(verdict.wrong)} unsure {sorted(unsure)}"
                             + (f" taken right {taken}" if taken else ""))
    if score.as_blank < score.blank_solved:
        score.why.append(f"{score.blank_solved - score.as_blank} puzzles solved blank, not with answers written")
    if score.solved < score.puzzles:
        score.why.append(f"{score.puzzles - score.solved} of {score.puzzles} puzzles not solved")
    return score


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({k / max(1, n):.0%})"


def table(scores: list[Score]) -> str:
    rows = ["| fill | split | pictures | puzzles | solved (in part) | another solution (must be 0) | all right (must be 0)"
            " | wrong caught | wrong taken right (must be 0) | false wrong (must be 0) | blanks found | notes named"
            " | not judged | verdicts 0/11/15 | right verdict | as blank |",
            "|" + "---|" * 16]
    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for s in scores:
        groups[(s.mode, s.split)].append(s)
        groups[("**all**", s.split)].append(s)
        groups[("**all**", "both")].append(s)
    rank = {m: i for i, m in enumerate(FILL_MODES + HAND_KINDS + ("**all**",))}
    for (mode, split), g in sorted(groups.items(), key=lambda kv: (rank[kv[0][0]], kv[0][1])):
        sol = sum(s.solved for s in g)
        ww, wc = sum(s.wrong_written for s in g), sum(s.wrong_caught for s in g)
        bl, bf = sum(s.blanks for s in g), sum(s.blanks_found for s in g)
        pn, pf = sum(s.pencil for s in g), sum(s.pencil_found for s in g)
        v: Counter[int] = sum((s.verdicts for s in g), Counter())
        rows.append(f"| {mode} | {split} | {len(g)} | {sum(s.puzzles for s in g)} | {sol} ({sum(s.in_part for s in g)}) |"
                    f" {sum(s.another for s in g)} | {sum(s.all_right_but_wrong for s in g)} | {wc}/{ww} ({wc / max(1, ww):.0%}) |"
                    f" {sum(s.wrong_taken_right for s in g)} | {sum(s.false_wrong for s in g)} | {bf}/{bl} ({bf / max(1, bl):.0%}) |"
                    f" {pf}/{pn} ({pf / max(1, pn):.0%}) [{sum(s.pencil_false for s in g)}] |"
                    f" {sum(s.not_judged for s in g)} | {v[0]}/{v[11]}/{v[15]} |"
                    f" {_share(sum(s.right_verdicts for s in g), sum(s.puzzles for s in g))} |"
                    f" {_share(sum(s.as_blank for s in g), sum(s.blank_solved for s in g))} |")
    return "\n".join(rows)


@saved("check")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=60, help="scenes per theme split")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--fails", action="store_true")
    add_model_options(ap, digit="read written cells with this model file (one just trained)",
                      label="read labels with this model file",
                      second_label="the second label model (labels.SECOND_MODEL): this file",
                      contents="the cell-content network (contents.MODEL): this file",
                      answer="the framed-answer reader (framed.MODEL): this file")
    ap.add_argument("--hands", action="store_true", help="also the real-hand kinds (needs ../shared/handwriting)")
    ap.add_argument("--only", choices=("fonts", "hands"), help="only the fonts' kinds, or only the real hands'")
    ap.add_argument("--split", choices=("dev", "locked"), help="the real hands of this split only (default both)")
    ap.add_argument("--hand-style", default="mnist", choices=hands.HAND_STYLES,
                    help="the real hands drawn looking so (devtools/hands.HAND_STYLES; default: as MNIST keeps them)")
    args = ap.parse_args()
    kinds = {"fonts": () if args.only == "hands" else FILL_MODES,
             "hands": HAND_KINDS if args.hands or args.only == "hands" else ()}
    if kinds["hands"] and not hands.available():
        raise SystemExit(f"bench/check.py: the real hands are not in {hands.FOLDER}")
    cases = [(args.seed + i, heldout, kinds["fonts"][i % len(FILL_MODES)], WRONG_COUNTS[i % len(WRONG_COUNTS)],
              "heldout" if heldout else "train", args.hand_style) for heldout in (False, True) for i in range(args.count)
             if kinds["fonts"]]
    cases += [(base + i, locked, HAND_KINDS[i % len(HAND_KINDS)], WRONG_COUNTS[i % len(WRONG_COUNTS)],
               "locked" if locked else "dev", args.hand_style)
              for locked, base in ((False, args.seed), (True, LOCKED_SEED + args.seed))
              for i in range(args.count) if kinds["hands"] and args.split in (None, "locked" if locked else "dev")]
    with ProcessPoolExecutor(args.jobs, initializer=use_models, initargs=(chosen(args), True)) as pool:
        scores = list(pool.map(run, cases))
    print(table(scores))
    if args.fails:
        for s in scores:
            for why in s.why:
                print(f"{s.name}: {why}")


if __name__ == "__main__":
    main()
