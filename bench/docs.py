"""docs/benchmarks.md made from the benchmarks' latest reports, so the page cannot drift from them.

    .venv/bin/python bench/docs.py           # writes docs/benchmarks.md from bench/results/*.md
    .venv/bin/python bench/docs.py --check   # exit 1 when docs/benchmarks.md is not what it would write

Each bench script keeps the report it printed in bench/results/NAME.md at the end of a run
(bench/_results.py).  The page is those reports in the order of BENCHMARKS, each under a short
introduction: what the benchmark measures and how to run it.  tests/test_bench_docs.py fails
when the page and the reports disagree.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"


@dataclass(frozen=True)
class Benchmark:
    name: str  # the script bench/NAME.py and its report bench/results/NAME.md
    title: str
    intro: str  # what it measures and how to run it (Markdown)


BENCHMARKS = (
    Benchmark("real", "Real pictures", """\
The 53 real pictures of the development set, `../shared/real-dev` (30 iPhone-3G photos of a
printed puzzle book: blur, curved pages, small grey labels; 20 blog images in several drawing
styles; 3 phone-app screenshots with toolbars, keypad, pencil marks and a highlighted cell), each
read as `kkvision solve` reads it and scored on what its truth knows: the grid's size, the cages,
the labels read right (before any correction), the puzzles solved right.  **WRONG** is an answer
printed (exit 0) that is not the truth: it must stay 0, and CI fails on one (`.ci/run`).
"Refused" counts the exit codes of the pictures not answered (5:1: one picture, exit 5); the
seconds are the pipeline's own (decoding to solution, no drawing).  A larger set of real pictures
is kept apart for judging and is not measured here.

To run it: `.venv/bin/python bench/real.py ../shared/real-dev --jobs 2`.  `--change NAME` reads every
picture changed as another camera, screen or light would show it (`--help` lists the changes);
`--split heldout` scores only the pictures the label model did not train on; `--label-model PATH`
and `--second-label-model PATH` score other label model files in place of the shipped ones;
`--calibrate NATS` measures the odds of the answers; `--fails` names each picture not solved right."""),
    Benchmark("accuracy", "Synthetic pictures", """\
Unique random puzzles, sizes 3..9, rendered by the project's own renderer (`devtools/synth.py`,
not the label model's training scenes, the same font families) in six styles: clean print; app
screenshot; scan (tint, rotation, noise, blur, JPEG); phone photo (perspective, background,
uneven light, blur, noise, JPEG); newspaper page (the puzzle among text columns, scanned); lowres
(labels 6-10 px high, blurred, JPEG quality 30-60); 36 fonts, varied line weights, dotted thin
lines and the operator spellings `× ÷ − / x *`.

To run it: `.venv/bin/python bench/accuracy.py --count 756 --seed 7000` (`--ocr tesseract`: with
tesseract as a second witness).  `--calibrate 12` answers at any odds and measures them: the
table that set the margin an answer needs (50 times more probable than any reading with
another solution, `reading.MARGIN`)."""),
    Benchmark("scenes", "Apps, sites and prints it has never seen", """\
Domain-randomised scenes (`devtools/scenes.py`) in eight families: **app** screens (phone,
tablet, desktop: status bar, toolbar, keypads, ads, highlighted and selected cells, coloured
cages, light and dark themes), **web** pages (bold labels 10-45% of the cell, sudoku and
crossword thumbnails, banners), **print** pages (one to four puzzles, ruled boxes, neighbouring
sudokus, halftone), **colour** app screens whose cages are told by their fills alone (no cage
line; one train theme, pastel-cages, and one held out, candy, whose tints are fainter), **filled** grids (typed, handwritten or kkvision-drawn answers, pencil marks),
**photo**s of paper and screens, **turned** (90/180/270 degrees, no orientation tag) and **dim**.
`heldout` scenes use only the 9 held-out themes (colour schemes, layouts), label fonts and
handwriting that no train scene uses; they were looked at while mending the reader (tests name some
of them), so they are a working split too.  **`locked`** scenes are the locked split: 6 themes of
their own (`devtools.scenes.LOCKED_THEMES`: two apps, one told by its fills alone; two sites, one
dark; two prints, one with a book's rules), drawn in weights of the held-out designs that no other
theme prints with and no model saw, from seeds 50000 on.  No rule, constant or test is tuned on
them (`tests/test_locked_split.py` fails on a test that makes one), and their rows stand apart:
the `both` total is the working splits'.  A scene's count is right when the puzzles found are
exactly its KenKens (a keypad or a sudoku is none).  The second table puts each answer down to the
reading of `vision/read.py`'s ladder that gave it (from the notes it carries): the first reading,
a retry of the labels (the second label model, both models together, both from moved crops), or
the square turned (itself maybe retried so): what each retry wins, and any WRONG answer it gave.

To run it: `.venv/bin/python bench/scenes.py --count 60 --seed 0 --jobs 2` (the working splits;
`--split locked` the locked one, `--split all` the three; s/scene: reading and solving in a pool of
two workers)."""),
    Benchmark("stages", "Each stage alone, from the truth", """\
The scenes above score the whole pipeline, where one stage's failure hides the later ones' and a
later stage may mend an earlier one's.  Here each vision stage is handed perfect input from the
stage before, taken from the scene's truth (the same scenes, splits and seeds as `bench/scenes.py`,
the locked split apart): **grid**, one of the grid search's looks finds the truth's grid (its size, every
corner within a quarter of a cell); **written**, given the truth's grid, the cells the content stage finds
written, of those the scene wrote an answer or pencil marks in (in brackets, cells found written that
hold neither); **cages**, given the truth's grid with the writing taken out, the cage layout found (or
an alternative it offers the labels) is the truth's (in brackets, the inner edges called right);
**labels**, given the truth's grid and cages, each label's first reading by the label model is the
truth's clue (**label ECE**: the expected calibration error of that reading's probability, 15 bins;
0 is honest); **solved**, given those and the labels as read, one pass of the reading (no retries:
those are the pipeline's) gives the truth's solution, never another (WRONG).  The truth's grid is the
homography of its frame's corners: a photographed page's curve is only approximated by it.

To run it: `.venv/bin/python bench/stages.py --count 30 --split all --jobs 2` (`--fails` names each
stage's failures)."""),
    Benchmark("browser", "Pages a browser drew: a renderer nothing trains on", """\
Every picture above, and every crop the label models learned from, was drawn by PIL and OpenCV.
Here Chromium (the one installed for the web page's test, through Playwright) draws KenKen pages
(`devtools/browser_scenes.py`): the board as an HTML table with collapsed borders, a CSS grid
whose gaps are the cell lines, an SVG, or a canvas; CSS fonts and weights; labels 9 px and up,
`12+` or `12 +`, every spelling of the operators, now and then hidden operators; light or dark
colours, cage fills, dotted or dashed cell lines, rounded frames; a header, text, a keypad and
buttons; device pixel ratio 1-3; PNG or JPEG; typed answers and pencil marks; a quarter of them
photographed off the screen.  Nothing trains on these pages, so every row is a source held out;
`heldout` pages also label in faces no label model saw.  **`locked`** pages are the locked split:
draws of their own (seeds 50000 on, in the held-out faces) that no rule, constant or test is tuned
on (`tests/test_locked_split.py`), reported apart.  Rows are the board's structure.

To run it: `.venv/bin/python bench/browser.py --count 140 --seed 0` (the working splits; `--split
locked` the locked one, `--split all` the three)."""),
    Benchmark("roundtrip", "Its own answers, read back", """\
Each answer drawn as `solve` draws it (the samples and real-dev), and the answer picture read
again: it must give the same puzzle, `check` must call no cell wrong and read every cell surely
(the cell-digit reader sure, at 90%, of kkvision's own digits), and `kkvision convert PICTURE
--to json` then `solve` of that text must give the same answer.

To run it: `.venv/bin/python bench/roundtrip.py`."""),
    Benchmark("check", "Checking answers: an honest verdict", """\
Filled-in scenes (answers typed by an app, handwritten in hand fonts, drawn as kkvision draws
them, mixed, or pencil marks; app, web and print pages, some photographed; train and held-out
themes) with exactly 0, 1 or 3 answers wrong in turn, and `check`'s verdict scored on each puzzle
it solved (the shipped models; "in part": solved without labels hidden under answers, as `check`
reads such a grid, the cells those decide not judged, the others the truth's or the puzzle is not
counted solved).  **another solution** counts the puzzles whose grid differs from the truth's in a
cell `check` judges (a puzzle misread: its right answers would be called wrong; cells where the
answers written make the labels say otherwise are left open, `answers._doubted`),
**all right** is exit 0 where a wrong answer was written, **wrong taken right** a wrong answer judged
right (its puzzle no "all right" only while another cell is not judged) and
**false wrong** a right cell called wrong: all four must be 0.  "notes named": cells holding only
pencil marks listed in `pencil` (in brackets, cells listed so that hold nothing or an answer);
"right verdict": exit 11 where a wrong answer was written, else 0; "as blank": puzzles solved as
the same picture with nothing written is, of those it solves.

`--hands` adds answers written by real people: MNIST writers no model trained on
(`devtools/hands.py`; MNIST by Yann LeCun and Corinna Cortes, CC BY-SA 3.0, its writers from
QMNIST, C. Yadav and L. Bottou, 2019; read from `../shared/handwriting`, never shipped), one
writer a picture.  `hand`: answers 35-65% of the cell high; `hand-big`: 62-95%, over the label's
corner and up to the lines; `hand-pencil`: with the same hand's pencil candidates in most empty
cells; `hand-photo`: a `hand` page photographed by a phone.  `dev` is the working split (train
themes, the 'dev' writers, seeds 0..49); `locked` the locked split (the scenes' locked themes,
`bench/scenes.py`'s, the 'locked' writers, seeds 50000..50049): no rule, constant or test is tuned
on it.  The bar set for real
hands (no right cell called wrong, 95% right verdicts, 99% read as blank) is not met yet.

To run it: `.venv/bin/python bench/check.py --count 50 --jobs 2 --hands` (`--fails` names the puzzles
not answered right).  `--hand-style envelope` or `pencil` draws the same real hands in a look no reader
was trained on (stretched to a square and scanned coarse, as postal digits are; a pencil's grey, grainy
line): MNIST's one look flatters the readers."""),
    Benchmark("check_rules", "check's rules, where they were set", """\
How each candidate rule for calling a written cell wrong or right, or a cell blank, fares on every written
and pencil cell of `bench/check.py`'s real-hand scenes of seeds 100..259 (train themes, the 'dev'
writers): the rules `check` ships (`answers.py`) were chosen there, not on the seeds `bench/check.py`
reports nor on its locked split.

To run it: `.venv/bin/python bench/check_rules.py`."""),
    Benchmark("hidden_labels", "Labels under written answers, how surely they are read", """\
The labels a big written answer covers (`contents.under_answers`) in `bench/check.py`'s real-hand
scenes of seeds 180..339 (apart from the seeds it reports and those its hand kinds are worked on):
how often the label reader's first text is right for the probability it gives, and the fit behind
`reading.HIDDEN_TEMPER`, the tempering `check` applies to such labels when it reads a grid in part
(`reading.under_answers_read`).

To run it: `.venv/bin/python bench/hidden_labels.py`."""),
    Benchmark("handwriting", "Handwriting by kind", """\
Digits 1..9 written into printed cells (grid lines, a cage label in half, touching it at times),
half of them photographed (slight perspective, blur, uneven light, noise, JPEG), and read as
`check` reads a cell.  "Wrong" is read surely as another digit or as empty: the failure that
would misjudge a cell.  The hands: scikit-learn's digits held out; stroke-drawn hands
(`devtools/strokes.py`: the generator the model trained on, other seeds; "held out": pen dynamics
it never saw); hand fonts (DkgHandwriting and Breip held out; Humor Sans and Comic Neue seen);
MNIST writers of the `dev` and `locked` splits, small (35-60% of the cell high) and big (65-95%,
over the label's corner), and rendered otherwise than the scenes render them: as a scanned envelope
keeps digits (brought down to 16 px, half stretched to a square, then up again: blocky or soft) and
in graphite (light, grainy strokes); and crossed-out digits (a stroke-drawn digit struck out with a bar, a
slash, an X or a scribble), where "right" is read surely as no answer: `check` still judges a
struck-out digit as the user's answer.

To run it: `.venv/bin/python bench/handwriting.py`."""),
    Benchmark("speed", "Speed and cost", """\
`kkvision solve PICTURE` run as a user runs it (one whole process: interpreter start, imports,
reading, solving, the answer picture written in the input's format), the median of 5 runs,
beside `kkvision --version` timed the same way, and real-dev solved as one batch.  A picture
costs one process (a batch: one per core, `--jobs`) and about 170-250 MB at its peak; a 50 MP
photo, the most `--max-pixels` allows by default, about 0.5 GB.  The machine's speed drifts
through the day: compare old and new code back to back.

To run it: `.venv/bin/python bench/speed.py` on an idle machine."""),
    Benchmark("serve_load", "The web server under load", """\
`kkvision serve` started on a loopback port (a worker per core, a queue of 4 requests each),
warmed with 5 requests, then 300 `POST /api/solve` of the 9x9 book photo
(`real-dev/dlowe/IMG_0658.JPG`, 1200x1600, 1.0 MB: decoded, read, solved, drawn, encoded, the
picture sent back) from 1 and from 8 concurrent keep-alive clients; the server's memory at the
start and the end of each run.

To run it: `.venv/bin/python bench/serve_load.py` (`--profile`: a profile of one warm request's work
instead, not kept)."""),
    Benchmark("solver_speed", "The solver alone", """\
Solve and the uniqueness check of random puzzles of each size, with their operators shown and
hidden.

To run it: `.venv/bin/python bench/solver_speed.py`."""),
    Benchmark("fuzz", "Hostile and malformed input", """\
Random bytes; every format's puzzle texts truncated, spliced and mutated (huge numbers, odd
unicode, NULs); pictures with flipped bytes, truncated, shrunk to odd sizes or declaring huge
sizes: each through `kkvision solve --time-limit 5`, which must end clean (a documented exit
code, one line on stderr, no hang).  `tests/test_cli_fuzz.py` fuzzes the command line itself in
the test suite.

To run it: `.venv/bin/python bench/fuzz.py --cases 5000`."""),
)

HEADER = """\
# Benchmarks

<!-- Made by `python bench/docs.py` from bench/results/*.md; edit those reports (or the
introductions in bench/docs.py), not this page. -->

What kkvision reads right, how often, and how fast, measured by the scripts in `bench/`.  Each
section says what a benchmark measures and how to run it, then gives its latest report as the
script printed it, with the command line, commit and date of that run.  A bench script keeps its
report in `bench/results/NAME.md` when its run ends (`bench/_results.py`), and
`.venv/bin/python bench/docs.py` writes this page from them; a test fails when the two disagree.
Throughout, **WRONG** is an answer printed as right that is not: it must stay 0.
"""


def render(results: Path = RESULTS) -> str:
    """The page: the header, then each benchmark's introduction and its report."""
    known = {b.name for b in BENCHMARKS}
    stray = sorted(p.stem for p in results.glob("*.md") if p.stem not in known)
    if stray:
        raise SystemExit(f"bench/docs.py: reports without an introduction in BENCHMARKS: {', '.join(stray)}")
    parts = [HEADER]
    for bench in BENCHMARKS:
        path = results / f"{bench.name}.md"
        report = _report(path) if path.is_file() else "No report kept yet: run the command above."
        parts.append(f"## {bench.title} (`bench/{bench.name}.py`)\n\n{bench.intro}\n\n{report}")
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def _report(path: Path) -> str:
    """A results file without its first line (the comment saying what made it)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("<!--"):
        lines = lines[1:]
    return "\n".join(lines).strip("\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/benchmarks.md is not up to date")
    args = ap.parse_args()
    page = render()
    if args.check:
        if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != page:
            print("docs/benchmarks.md is not what bench/results/ makes: run .venv/bin/python bench/docs.py",
                  file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
