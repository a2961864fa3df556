"""kkvision on KenKen web pages drawn by Chromium (devtools/browser_scenes.py): a renderer that no
model and no other scene of this project uses, so a source held out by construction.

    .venv/bin/python bench/browser.py [--count 50] [--seed 0] [--jobs 2] [--split both]
                                      [--fails] [--save DIR] [--label-model PATH]

Renders `count` pages per split (seeds seed..seed+count-1; 'train' pages label their cages in
faces the label models saw, drawn by another renderer, 'heldout' pages only in faces they never
saw; 'locked' pages, --split locked or all, are draws of their own from LOCKED_SEED + seed in the
held-out faces, which no rule, constant or test is tuned on), one Chromium for all, then reads
each page's screenshot as a user's file (PNG or JPEG) in a pool of --jobs workers, and scores it as bench/scenes.py does (count right, solved,
WRONG, refused by exit code, seconds of reading and solving a page).  Rows are the
page's structure: an HTML table, a CSS grid with gaps, an SVG, a canvas.
Needs the serve extra (Playwright) and Chromium from the system's packages (scripts/setup.sh).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from bench.scenes import CHOICES, Score, score_scene, seeds, seeds_told, split_knobs, table, tell  # noqa: E402
from devtools.browser_scenes import STRUCTURES, render  # noqa: E402


def _score(args: tuple) -> Score:
    sc, keep = args
    return score_scene(sc, keep, group=sc.theme)


@saved("browser")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=50, help="pages per split")
    ap.add_argument("--seed", type=int, default=0, help="the first page's seed")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    ap.add_argument("--split", default="both", choices=tuple(CHOICES),
                    help="both (default): train and heldout, the working splits; locked: the locked split (draws"
                         " of its own, seeds from LOCKED_SEED); all: the three")
    ap.add_argument("--fails", action="store_true", help="list each failing page and why")
    ap.add_argument("--save", type=Path, help="write failing pages' pictures (and truths) here")
    add_model_options(ap, "PATH", label="score this label model file in place of the shipped one")
    args = ap.parse_args()
    models = chosen(args, ap)
    t0 = time.perf_counter()
    scenes = [sc for split in CHOICES[args.split] for sc in render(seeds(split, args.seed, args.count), **split_knobs(split))]
    drawn = time.perf_counter() - t0
    scores: list[Score] = []
    # spawned, not forked: this process ran Chromium's driver threads and OpenCV's (a photographed page),
    # and a fork of a process with threads can deadlock in a lock one of them held
    with ProcessPoolExecutor(max_workers=max(1, args.jobs), initializer=use_models, initargs=(models, True),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for s in pool.map(_score, [(sc, args.save is not None) for sc in scenes]):
            scores.append(s)
            tell(s, args.fails, args.save)
    print(table(scores, STRUCTURES))
    print(f"\n{len(scores)} pages drawn in {drawn:.0f} s, read in {time.perf_counter() - t0 - drawn:.0f} s with "
          f"{args.jobs} job(s); seeds {seeds_told(args)}")


if __name__ == "__main__":
    main()
