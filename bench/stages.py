"""Each vision stage scored alone on the scenes (devtools/scenes.py), its input the scene's truth.

    .venv/bin/python bench/stages.py [--count 20] [--seed 0] [--jobs 2] [--family app,print]
                                     [--split both] [--fails] [--label-model PATH] [--contents-model PATH]

bench/scenes.py scores the whole pipeline, where a stage's failure hides every later stage's and a
later stage may mend an earlier one's.  Here each stage is handed perfect input from the stage
before, taken from the scene's truth, so that a change's effect is seen where it is.  For every
KenKen of every scene (the same scenes and splits as bench/scenes.py: --split locked or all for the
locked split):
  grid      the grid search finds it in one of its looks (vision.grid.searches: the picture as it is,
            its negative, stretched, face on, finer; vision.read.read_page goes on to the next look when
            one's grids are refused): the truth's size and every frame corner within GRID_NEAR of a
            cell of the truth's
  written   given the truth's grid: the cells the content stage finds written (contents.find_contents),
            of the cells the scene wrote an answer or pencil marks in ([in brackets] cells found
            written that hold neither: a label's ink taken for writing)
  cages     given the truth's grid, the writing taken out as the content stage takes it out: the cage
            layout found (cages.find_cages, before the labels mend it; or one of the alternatives it
            gives for the labels to choose, CageLayout.other) is the truth's, every border (grids
            right; edges right of the inner edges, of that layout or else of the first)
  labels    given the truth's grid and cages: each cage's label as the label model reads it first
            (clues.read_cells) is the truth's clue (vision.clues.clue_for); label ECE: the expected
            calibration error of that first reading's probability (ECE_BINS bins: 0 is honest)
  reading   given the truth's grid and cages and the labels as read (clues.read_clues, with the
            labels under written answers as contents.under_answers finds them): reading.resolve gives
            the truth's solution; WRONG is another solution given (must be 0), refused its exit codes
            (one pass: the pipeline's retries, the second label model among them, are bench/scenes.py's)
The truth's grid is the homography from its frame's outer corners, its lattice evenly spaced, in
the polarity vision.grid.light_on_dark tells: exact for screens, prints and scans, a plane's
approximation of a photographed page's curve (the photo family's later stages carry that).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from bench.scenes import SPLITS, add_scene_options, scene_jobs, seeds_told, split_knobs  # noqa: E402
from devtools.scenes import FAMILIES, Truth, scene  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.puzzle import Puzzle  # noqa: E402
from kkvision.vision.stages import SIDE, CageLayout, GridGeometry  # noqa: E402

GRID_NEAR = 0.25  # of a cell's side: a frame corner found this near the truth's is the truth's (further,
                  # a corner cell's box is more its neighbour's than its own; the frame's outer corner and
                  # its line's middle differ by a few hundredths of a cell)
TIME_LIMIT = 10.0  # s for reading.resolve, as a picture's --time-limit allows its solver runs
ECE_BINS = 15  # bins of the label model's first reading's probability for its calibration error (as
               # models/README.md reports the cell readers')


@dataclass
class Score:
    family: str
    split: str
    name: str = ""
    puzzles: int = 0
    grids: int = 0  # grids found right
    written: int = 0  # cells the scene wrote in
    written_found: int = 0
    written_false: int = 0  # cells found written that hold no answer and no pencil marks
    layouts: int = 0  # cage layouts found right
    edges: int = 0
    edges_right: int = 0
    labels: int = 0
    labels_right: int = 0
    sureness: list[tuple[float, bool]] = field(default_factory=list)  # each label's first reading: (p, right)
    solved: int = 0
    wrong: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    why: list[str] = field(default_factory=list)


def truth_geometry(image: np.ndarray, truth: Truth) -> GridGeometry:
    """The truth's grid: its frame's corners mapped onto the square, the lattice evenly spaced, in the
    polarity the grid stage tells from those corners."""
    import cv2

    from kkvision.vision.grid import light_on_dark, to_gray

    quad = np.asarray(truth.corners, np.float32)
    square = np.asarray([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], np.float32)
    lines = tuple(float(v) for v in np.linspace(0, SIDE, truth.puzzle.size + 1))
    return GridGeometry(truth.puzzle.size, tuple((float(x), float(y)) for x, y in quad), lines, lines,
                        homography=cv2.getPerspectiveTransform(quad, square),
                        light_on_dark=light_on_dark(to_gray(image), quad.astype(np.float64)))


def truth_layout(puzzle: Puzzle) -> CageLayout:
    """The puzzle's cages as the cage stage would give them: every border between two cages thick."""
    n = puzzle.size
    owner = {cell: k for k, cage in enumerate(puzzle.cages) for cell in cage.cells}
    right = tuple(tuple(owner[r, c] != owner[r, c + 1] for c in range(n - 1)) for r in range(n))
    down = tuple(tuple(owner[r, c] != owner[r + 1, c] for c in range(n)) for r in range(n - 1))
    return CageLayout(tuple(sorted(tuple(sorted(c.cells)) for c in puzzle.cages)), right, down, 0.0)


def _grid_found(found: list[GridGeometry], truth: Truth) -> bool:
    """Is the truth's grid among those found: its size, each corner near the truth's (in any of the four
    orders a turned picture gives: the grid stage names the corners as the picture shows them)."""
    want = np.asarray(truth.corners, np.float64)
    cell = float(np.mean(np.linalg.norm(want - np.roll(want, -1, axis=0), axis=1))) / truth.puzzle.size
    return any(g.size == truth.puzzle.size
               and min(float(np.linalg.norm(np.roll(np.asarray(g.corners), k, axis=0) - want, axis=1).max())
                       for k in range(4)) <= GRID_NEAR * cell
               for g in found)


def _layouts(layout: CageLayout | None) -> list[CageLayout]:
    """The layout the cage stage gives and the alternatives behind it (CageLayout.other: the labels choose)."""
    out = []
    while layout is not None:
        out.append(layout)
        layout = layout.other
    return out


def score_puzzle(image: np.ndarray, truth: Truth, found: list[GridGeometry], score: Score) -> None:
    """One KenKen's stages, each from the truth, added to the score."""
    from kkvision.vision.cages import find_cages
    from kkvision.vision.clues import clue_for, read_cells, read_clues
    from kkvision.vision.contents import clean, find_contents, under_answers
    from kkvision.vision.readers import reader
    from kkvision.vision.reading import resolve

    n, puzzle = truth.puzzle.size, truth.puzzle
    where = f"{n}x{n} at {truth.box}"
    score.puzzles += 1
    if _grid_found(found, truth):
        score.grids += 1
    else:
        score.why.append(f"{where}: grid not found")
    geom = truth_geometry(image, truth)
    square, colour = geom.square(image), geom.colour_square(image)  # the cage stage reads the colours anyway
    contents = find_contents(square, geom, lambda: colour)
    if truth.fill is not None:
        wrote = set(truth.fill.answers) | set(truth.fill.pencil)
        score.written += len(wrote)
        score.written_found += len(wrote & set(contents.written))
        score.written_false += len(set(contents.written) - wrote)
    cleaned = clean(square, geom, contents)
    found_layouts = _layouts(find_cages(cleaned, geom, colour)[0])
    truth_cages = truth_layout(puzzle)
    layout = next((lay for lay in found_layouts if lay.cages == truth_cages.cages), found_layouts[0])
    # row by row: the truth's inner edges (the cage stage's rows may run on to the frame)
    rows = [*zip(layout.right_thick, truth_cages.right_thick), *zip(layout.down_thick, truth_cages.down_thick)]
    score.edges += sum(len(truth_row) for _, truth_row in rows)
    score.edges_right += sum(a == b for found_row, truth_row in rows for a, b in zip(found_row, truth_row))
    if layout.cages == truth_cages.cages:
        score.layouts += 1
    else:
        score.why.append(f"{where}: {len(layout.cages)} cages found, truth {len(puzzle.cages)}")
    labels = reader("model")
    cells = read_cells(cleaned, geom, labels)
    right = [clue_for(cells[cage.anchor].best, cage.cells, n) == cage for cage in puzzle.cages]
    misread = [f"{cage.where} '{cells[cage.anchor].best}' for {cage.label}"
               for cage, ok in zip(puzzle.cages, right) if not ok]
    score.sureness += [(cells[cage.anchor].texts[0][1] if cells[cage.anchor].texts else 0.0, ok)
                       for cage, ok in zip(puzzle.cages, right)]
    score.labels += len(puzzle.cages)
    score.labels_right += len(puzzle.cages) - len(misread)
    if misread:
        score.why.append(f"{where}: labels misread: {', '.join(misread[:6])}")
    clues = read_clues(cleaned, geom, truth_cages, cells, labels)
    try:
        res = resolve(n, clues, TIME_LIMIT, under_answers(geom, contents))
    except KkvisionError as exc:
        score.refused[str(int(exc.exit_code))] += 1
        score.why.append(f"{where}: reading refused, exit {int(exc.exit_code)} {type(exc).__name__}")
        return
    if res.grid == truth.solution:
        score.solved += 1
    else:
        score.wrong += 1
        score.why.append(f"{where}: WRONG solution from the labels read")


def run(args: tuple[str, int, str]) -> Score:
    family, seed, split = args
    from kkvision.vision.grid import searches

    sc = scene(family, seed, **split_knobs(split))
    score = Score(family, split, sc.name)
    t0 = time.perf_counter()
    image = sc.image  # decoded as kkvision decodes the file
    found = [geom for look in searches(image) for geom, _ in look]  # every look's: read_page goes on past one
    for truth in sc.puzzles:
        score_puzzle(image, truth, found, score)
    score.seconds = time.perf_counter() - t0
    return score


def calibration_error(sureness: list[tuple[float, bool]], bins: int = ECE_BINS) -> float:
    """The expected calibration error of readings (their probability, whether right): over bins of
    equal width in probability, the gap between how sure and how often right, weighed by the bin's share."""
    if not sureness:
        return 0.0
    p = np.asarray([q for q, _ in sureness], np.float64)
    right = np.asarray([r for _, r in sureness], np.float64)
    which = np.minimum((p * bins).astype(int), bins - 1)
    return float(sum(abs(p[which == b].mean() - right[which == b].mean()) * (which == b).sum()
                     for b in range(bins) if (which == b).any()) / len(p))


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "-"


def table(scores: list[Score], families: tuple[str, ...] = FAMILIES) -> str:
    """A markdown table: a row per family and split, then each split's total."""
    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for s in scores:
        groups[(s.family, s.split)].append(s)
        groups[("**all**", s.split)].append(s)
    lines = ["| family | split | scenes | puzzles | grid found | written cells found [not written] | cages right"
             " (edges) | labels right | label ECE | solved from them | WRONG (must be 0) | refused (exit:n) | s/scene |",
             "|" + "---|" * 13]
    for key in [(f, sp) for f in families + ("**all**",) for sp in SPLITS]:
        if key not in groups:
            continue
        g = groups[key]
        p = sum(s.puzzles for s in g)
        codes: Counter[str] = sum((s.refused for s in g), Counter())
        refused = " ".join(f"{c}:{codes[c]}" for c in sorted(codes, key=lambda c: c.zfill(3))) or "-"
        wrote = sum(s.written for s in g)
        written = f"{_share(sum(s.written_found for s in g), wrote)} [{sum(s.written_false for s in g)}]"
        lines.append(f"| {key[0]} | {key[1]} | {len(g)} | {p} | {_share(sum(s.grids for s in g), p)} | {written} |"
                     f" {_share(sum(s.layouts for s in g), p)} ({sum(s.edges_right for s in g) / max(1, sum(s.edges for s in g)):.1%}) |"
                     f" {_share(sum(s.labels_right for s in g), sum(s.labels for s in g))} |"
                     f" {calibration_error([x for s in g for x in s.sureness]):.3f} |"
                     f" {_share(sum(s.solved for s in g), p)} | {sum(s.wrong for s in g)} | {refused} |"
                     f" {sum(s.seconds for s in g) / len(g):.2f} |")
    return "\n".join(lines)


@saved("stages")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_options(ap)
    ap.add_argument("--fails", action="store_true", help="list each scene's failing stages, on stderr")
    add_model_options(ap, "PATH", label="score this label model file in place of the shipped one",
                      contents="and this cell-content network in place of models/contents.onnx")
    args = ap.parse_args()
    models = chosen(args, ap)
    jobs = scene_jobs(args, ap)
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs), initializer=use_models, initargs=(models, True)) as pool:
        scores = list(pool.map(run, jobs))
    if args.fails:
        for s in scores:
            for why in s.why:
                print(f"{s.name}: {why}", file=sys.stderr)
    print(table(scores))
    print(f"\n{len(scores)} scenes in {time.perf_counter() - t0:.0f} s with {args.jobs} job(s); seeds {seeds_told(args)}")


if __name__ == "__main__":
    main()
