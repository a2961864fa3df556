"""How surely labels under written answers are read: the calibration behind kkvision.vision.reading's
HIDDEN_TEMPER (check's reading in part, reading.under_answers_read).

    .venv/bin/python bench/hidden_labels.py [--seed 180] [--count 80] [--jobs 2] [--label-model PATH]

Renders bench/check.py's real-hand scenes (the kinds 'hand', 'hand-big', 'hand-pencil' and
'hand-photo' in turn, 0, 1 or 3 answers wrong in turn; the dev writers and train themes) from seeds
apart from those bench/check.py reports (0..49) and those its hand kinds are worked on (100..179),
reads each as `kkvision check` does, and keeps, for every label of a grid read whose cage is one
of the truth's, the reader's texts with their probabilities and which of them is the truth's clue.
A label is 'under an answer' where contents.under_answers says a written answer may hide it; its
grid is 'read in part' where reading.resolve refuses it with those labels (check then reads it in
part, read._in_part: the only place the tempering applies, so the fit is on those labels).  Then:
  fit          the mean negative log-likelihood of the truth's clue (nats) for each temperature T:
               each text's probability raised to 1/T, with what the reader left unlisted, and
               renormalised; the truth not listed gets the share left to texts that are no clue,
               spread as reading.options spreads it (UNREADABLE_SPREAD)
  reliability  for bins of the first text's probability: how many labels, the mean probability
               and how many are right; labels under answers in grids read in part, as read and
               as tempered by the shipped values; those in grids read whole, and labels not under
               answers, as read, for comparison
The shipped temperature is the warmer end of the fit's flat best; a label model that changes needs a new fit.
Needs ../shared/handwriting (devtools/hands.py).
"""

from __future__ import annotations

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from bench.check import HAND_KINDS, WRONG_COUNTS, _match  # noqa: E402
from devtools import hands  # noqa: E402
from devtools.scenes import scene  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options, read_source  # noqa: E402
from kkvision.sources import of_bytes  # noqa: E402
from kkvision.vision.stages import ClueReading, Reached  # noqa: E402

TEMPERS = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0)
BINS = (0.0, 0.5, 0.9, 0.98, 0.995, 1.0 + 1e-9)


@dataclass(frozen=True)
class Label:
    under: bool  # a written answer may hide it (contents.under_answers)
    in_part: bool  # its grid's labels refused by reading.resolve: check reads it in part
    reading: ClueReading  # the reader's texts, as read
    right: tuple[bool, ...]  # per text: whether it reads as the truth's clue
    clue: tuple[bool, ...]  # per text: whether it reads as a clue for the cage at all (reading.options)


def labels_of(args: tuple[int, str, int]) -> list[Label]:
    from kkvision.vision.clues import clue_for
    from kkvision.vision.contents import under_answers
    from kkvision.vision.read import IN_PART_WHEN
    from kkvision.vision.reading import resolve

    seed, kind, wrong = args
    mode, photo = (kind[:-len("-photo")], True) if kind.endswith("-photo") else (kind, False)
    sc = scene("filled", seed, heldout=False, mode=mode, wrong=wrong, **({"photo": True} if photo else {}))
    truths = [t for t in sc.puzzles if t.fill is not None]
    traces: dict[int, Reached] = {}
    try:
        page = read_source(of_bytes(sc.data, sc.name), Options(in_part=True), traces=traces)
    except KkvisionError:
        return []
    out = []
    for outcome in page.outcomes:
        truth = _match(outcome.box, truths)
        reached = traces.get(outcome.index or 1)
        if truth is None or reached is None or reached.clues is None or reached.contents is None:
            continue
        assert reached.geometry is not None
        n = reached.geometry.size
        under = under_answers(reached.geometry, reached.contents)
        try:
            resolve(n, reached.clues, 10.0, under)
            in_part = False
        except IN_PART_WHEN:
            in_part = bool(under)
        cages = {cage.cells: cage for cage in truth.puzzle.cages}
        for rd in reached.clues:
            cage = cages.get(rd.cells)
            if cage is None:
                continue
            said = [clue_for(text, rd.cells, n) for text, _ in rd.texts]
            out.append(Label(rd.cells[0] in under, in_part, rd,
                             tuple(c is not None and c.target == cage.target and c.op in (cage.op, "?")
                                   for c in said), tuple(c is not None for c in said)))
    return out


def tempered(label: Label, temper: float) -> list[float]:
    """The label's texts' probabilities tempered as check tempers them (reading._tempered), and last the
    share left to texts that are no clue (reading.options' leftover)."""
    from kkvision.vision.reading import _tempered

    probs = [p for _, p in _tempered(label.reading, temper).texts]
    return probs + [max(0.0, 1.0 - sum(p for p, clue in zip(probs, label.clue) if clue))]


def surprise(labels: list[Label], temper: float) -> float:
    """The mean negative log-likelihood (nats) of the truth's clue."""
    from kkvision.vision.reading import MIN_PROBABILITY, UNREADABLE_SPREAD

    total = 0.0
    for label in labels:
        probs = tempered(label, temper)
        p = sum(q for q, ok in zip(probs, label.right) if ok) or probs[-1] / UNREADABLE_SPREAD
        total -= math.log(max(p, MIN_PROBABILITY))
    return total / max(1, len(labels))


def reliability(labels: list[Label], temper: float) -> list[str]:
    firsts = [(tempered(label, temper)[0], label.right[0]) for label in labels if label.reading.texts]
    rows = []
    for lo, hi in zip(BINS, BINS[1:]):
        got = [(p, ok) for p, ok in firsts if lo <= p < hi]
        if got:
            rows.append(f"| {lo:g}..{min(hi, 1.0):g} | {len(got)} | {sum(p for p, _ in got) / len(got):.3f}"
                        f" | {sum(ok for _, ok in got)} ({sum(ok for _, ok in got) / len(got):.0%}) |")
    return rows


@saved("hidden_labels")
def main() -> None:
    from kkvision.vision.reading import HIDDEN_TEMPER

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=180)
    ap.add_argument("--count", type=int, default=160, help="scenes")
    ap.add_argument("--jobs", type=int, default=2)
    add_model_options(ap, label="read labels with this model file (then fit anew)")
    args = ap.parse_args()
    if not hands.available():
        raise SystemExit(f"bench/hidden_labels.py: the real hands are not in {hands.FOLDER}")
    cases = [(args.seed + i, HAND_KINDS[i % len(HAND_KINDS)], WRONG_COUNTS[i % len(WRONG_COUNTS)])
             for i in range(args.count)]
    with ProcessPoolExecutor(args.jobs, initializer=use_models, initargs=(chosen(args), True)) as pool:
        labels = [label for found in pool.map(labels_of, cases) for label in found]
    under = [label for label in labels if label.under and label.in_part]
    whole = [label for label in labels if label.under and not label.in_part]
    print(f"{len(cases)} scenes, seeds {args.seed}..{args.seed + args.count - 1} (real hands, dev writers, train"
          f" themes): {len(labels)} labels of grids read, {len(under) + len(whole)} under written answers,"
          f" {len(under)} of them in grids read in part\n")
    print("fit on the labels under answers in grids read in part: mean surprise of the truth's clue (nats),"
          " by temperature T\n")
    fits = {t: surprise(under, t) for t in TEMPERS}
    print("| T | " + " | ".join(f"{t:g}" for t in TEMPERS) + " |")
    print("|---|" + "---|" * len(TEMPERS))
    print("| surprise | " + " | ".join(f"{fits[t]:.3f}" for t in TEMPERS) + " |")
    best = min(fits, key=fits.__getitem__)
    print(f"\nbest: T {best:g} ({fits[best]:.3f} nats); shipped: T {HIDDEN_TEMPER:g}"
          f" ({surprise(under, HIDDEN_TEMPER):.3f})\n")
    head = ["| first text's probability | labels | mean probability | first text right |", "|---|---|---|---|"]
    for title, group, t in (("under answers in grids read in part, as read", under, 1.0),
                            ("under answers in grids read in part, tempered as shipped", under, HIDDEN_TEMPER),
                            ("under answers in grids read whole, as read", whole, 1.0),
                            ("not under answers, as read", [lb for lb in labels if not lb.under], 1.0)):
        print(f"reliability: {title}\n")
        print("\n".join(head + reliability(group, t)) + "\n")


if __name__ == "__main__":
    main()
