"""kkvision on domain-randomised scenes (devtools/scenes.py): apps, web pages, print, filled-in grids,
photos, turned and dim pictures, in train themes and in held-out themes.

    .venv/bin/python bench/scenes.py [--count 20] [--seed 0] [--jobs 2] [--family app,print]
                                     [--split both] [--fails] [--save DIR] [--label-model PATH]
                                     [--second-label-model PATH] [--contents-model PATH]

For each family and theme split it renders `count` scenes (seeds seed..seed+count-1;
the same seeds give the same pictures; the locked split's from devtools.scenes.LOCKED_SEED + seed,
in its own themes: --split locked, or all for the three), hands each one's file bytes to
kkvision.pipeline.read_source as a user's file (PNG or JPEG), and scores:
  scenes     scenes rendered
  puzzles    KenKens in the pictures (keypads, sudokus, crosswords are none)
  count      scenes where the number of puzzles found equals the truth's
  solved     KenKens whose true solution was given (exit 0)
  WRONG      solutions given that are no KenKen's of the picture: a wrong
             answer or an answer for a keypad or a neighbour grid (must be 0)
  refused    the exit code of each KenKen not solved (4: no grid in the
             picture; 5 label unreadable; 7 unsolvable; 8 ambiguous; 13
             uncertain; '-': no refused puzzle left to account for it, e.g.
             fewer grids found than there are)
  s/scene    kkvision's seconds per scene (reading and solving, not rendering)
Then, per theme split, how each solved KenKen was answered (the notes its answer carries): by the
first reading, or by a retry of vision/read.py's ladder (read.UPRIGHT_RETRIES: the second label
model, both models together, both from moved crops; read.TURNS: the square turned, itself maybe
retried so; read.BOTH_WAYS: every reading refused, the labels under written answers read both with
the writing taken out and as it is): what each retry wins, and the WRONG answers each gave.
Scenes run in a process pool of --jobs workers, each with OpenCV on one thread.
--label-model PATH reads the labels with another model file (one just trained)
in place of the shipped models/labels.onnx; --second-label-model PATH likewise
for models/labels-second.onnx (asked when the first's reading is refused), and
--contents-model PATH for models/contents.onnx (what is written in the cells).
--fails lists each failing scene and why; --save DIR writes their pictures
(with the truth beside each as DIR/NAME.truth.txt).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _models import add_model_options, chosen, use_models  # noqa: E402  (bench/_models.py: model files swapped in)
from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from devtools.scenes import FAMILIES, LOCKED_SEED, Scene, scene  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options, Outcome, read_source  # noqa: E402
from kkvision.sources import of_bytes  # noqa: E402
from kkvision.vision.read import BOTH_WAYS, UPRIGHT_RETRIES  # noqa: E402


@dataclass
class Score:
    family: str
    split: str
    seed: int
    theme: str = ""
    name: str = ""
    notes: tuple[str, ...] = ()
    puzzles: int = 0
    found: int = 0
    solved: int = 0
    wrong: int = 0
    codes: list[str] = field(default_factory=list)  # one per KenKen not solved
    ways: Counter[str] = field(default_factory=Counter)  # how each solved KenKen was answered (answered_by)
    wrong_ways: Counter[str] = field(default_factory=Counter)  # ... each WRONG one
    why: list[str] = field(default_factory=list)
    seconds: float = 0.0
    data: bytes | None = None
    truth: str = ""

    @property
    def count_right(self) -> bool:
        return self.found == self.puzzles

    @property
    def ok(self) -> bool:
        return self.count_right and self.solved == self.puzzles and not self.wrong


SPLITS = ("train", "heldout", "locked")  # the theme splits, as the tables order them (devtools.scenes)
CHOICES = {"train": ("train",), "heldout": ("heldout",), "locked": ("locked",), "both": ("train", "heldout"),
           "all": SPLITS}  # --split: 'both' is the working splits, 'all' the locked one too


def split_knobs(split: str) -> dict[str, bool]:
    """scene()'s and browser_scenes.render()'s arguments that draw a split's scenes."""
    return {"heldout": split != "train", "locked": split == "locked"}


def run_one(family: str, seed: int, split: str, keep: bool) -> Score:
    """One scene of a split rendered, read by kkvision as a user's file, and scored against its truth."""
    return score_scene(scene(family, seed, **split_knobs(split)), keep)


def seeds(split: str, first: int, count: int) -> range:
    """The seeds of a split's scenes: the locked split's from LOCKED_SEED on."""
    start = first + (LOCKED_SEED if split == "locked" else 0)
    return range(start, start + count)


def add_scene_options(ap: argparse.ArgumentParser) -> None:
    """The options of a bench over the scenes: how many of each family and split, from which seed, in
    how many workers, which families and splits (bench/scenes.py's, bench/stages.py's)."""
    ap.add_argument("--count", type=int, default=20, help="scenes per family and split")
    ap.add_argument("--seed", type=int, default=0, help="the first scene's seed")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes")
    ap.add_argument("--family", default=",".join(FAMILIES), help="comma-separated families (default: all)")
    ap.add_argument("--split", default="both", choices=tuple(CHOICES),
                    help="theme splits: both (default) = train and heldout, the working ones; locked: the locked"
                         " split (its own themes, seeds from LOCKED_SEED); all: the three")


def scene_jobs(args: argparse.Namespace, ap: argparse.ArgumentParser) -> list[tuple[str, int, str]]:
    """(family, seed, split) of every scene the options ask for; an unknown family is a usage error."""
    families = [f.strip() for f in args.family.split(",") if f.strip()]
    bad = [f for f in families if f not in FAMILIES]
    if bad:
        ap.error(f"unknown family {', '.join(bad)}: choose from {', '.join(FAMILIES)}")
    return [(f, seed, split) for f in families for split in CHOICES[args.split]
            for seed in seeds(split, args.seed, args.count)]


def seeds_told(args: argparse.Namespace) -> str:
    """The seeds each split's scenes had, for the report's last line."""
    return "; ".join(f"{split} {seeds(split, args.seed, args.count)[0]}..{seeds(split, args.seed, args.count)[-1]}"
                     for split in CHOICES[args.split])


def score_scene(sc: Scene, keep: bool, group: str | None = None) -> Score:
    """A scene read by kkvision as a user's file and scored against its truth (group: its table row, the
    scene's family unless given)."""
    score = Score(group or sc.family, sc.split, sc.seed, sc.theme, sc.name, sc.notes,
                  len(sc.puzzles))
    truth = [t.solution for t in sc.puzzles]
    t0 = time.perf_counter()
    outcomes: tuple[Outcome, ...] = ()
    page_code = None
    try:
        outcomes = read_source(of_bytes(sc.data, sc.name), Options()).outcomes
    except KkvisionError as exc:
        page_code = str(int(exc.exit_code))
        score.why.append(f"page: exit {page_code} {type(exc).__name__}")
    except Exception as exc:  # a crash of the runtime is scored, not fatal to the benchmark
        page_code = "crash"
        score.why.append(f"page: CRASH {type(exc).__name__}: {exc}")
    score.seconds = time.perf_counter() - t0
    score.found = len(outcomes)
    claimed: set[int] = set()
    refused: list[str] = []
    for k, out in enumerate(outcomes, 1):
        if out.result is not None:
            hit = next((i for i, s in enumerate(truth) if s == out.result.solution and i not in claimed), None)
            (score.wrong_ways if hit is None else score.ways)[answered_by(out.result.notes)] += 1
            if hit is None:
                score.wrong += 1
                n = out.result.puzzle.size
                score.why.append(f"#{k}: WRONG {n}x{n} solution" + (" (no KenKen there)" if n not in
                                                                      {len(s) for s in truth} else ""))
            else:
                claimed.add(hit)
        else:
            assert out.error is not None
            code = str(int(out.error.exit_code))
            refused.append(code)
            seen = f" as {out.seen.size}x{out.seen.size}" if out.seen is not None else ""
            score.why.append(f"#{k}: exit {code} {type(out.error).__name__}{seen}: {out.error.message[:90]}")
    score.solved = len(claimed)
    unsolved = score.puzzles - score.solved
    score.codes = [page_code] * unsolved if page_code else (refused + ["-"] * unsolved)[:unsolved]
    if not score.count_right:
        score.why.insert(0, f"found {score.found} puzzle(s), truth {score.puzzles}")
    if keep and not score.ok:
        score.data = sc.data
        score.truth = "\n".join(f"{t.puzzle.size}x{t.puzzle.size} box {t.box}: " + " ".join(
            f"{c.op}{c.target}@{c.anchor}" for c in t.puzzle.cages) for t in sc.puzzles) + "\n"
    return score


# each retry's note on an answer it gave (vision/read.py), and its name in the report
RETRY_NOTES = tuple(zip(("second label model", "both models", "both, moved crops"), (n for _, n in UPRIGHT_RETRIES)))
TURNED_NOTE = "the puzzle is on its side in the picture"
BOTH_WAYS_NAME = "labels under answers read both ways"
WAYS = ("first reading",) + tuple(name for name, _ in RETRY_NOTES) + ("turned",) + tuple(
    f"turned, {name}" for name, _ in RETRY_NOTES) + (BOTH_WAYS_NAME,)


def answered_by(notes: tuple[str, ...]) -> str:
    """Which reading of vision/read.py's ladder gave an answer, from the notes it carries (WAYS)."""
    if BOTH_WAYS in notes:
        return BOTH_WAYS_NAME
    retry = next((name for name, note in RETRY_NOTES if note in notes), None)
    if any(n.startswith(TURNED_NOTE) for n in notes):
        return f"turned, {retry}" if retry else "turned"
    return retry or "first reading"


def ways_table(scores: list[Score]) -> str:
    """A markdown table: per theme split, the solved KenKens each reading of the ladder answered (WRONG ones
    in brackets where there are any)."""
    splits = [sp for sp in SPLITS if any(s.split == sp for s in scores)]
    lines = ["| answered by | " + " | ".join(splits) + " |", "|---|" + "---|" * len(splits)]
    for way in WAYS:
        cells = []
        for sp in splits:
            got = sum(s.ways[way] for s in scores if s.split == sp)
            bad = sum(s.wrong_ways[way] for s in scores if s.split == sp)
            cells.append(f"{got}" + (f" (WRONG {bad})" if bad else ""))
        lines.append(f"| {way} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table(scores: list[Score], families: tuple[str, ...] = FAMILIES) -> str:
    """A markdown table: a row per family (or other group) and split, then each split's and the whole total."""
    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for s in scores:
        groups[(s.family, s.split)].append(s)
        groups[("all", s.split)].append(s)
    if len({s.split for s in scores}) > 1:  # the working splits together; the locked one stays apart
        groups[("all", "both")] = [s for s in scores if s.split != "locked"]
    head = "| family | split | scenes | puzzles | count right | solved | WRONG | refused (exit:n) | s/scene |"
    lines = [head, "|" + "---|" * 9]
    order = [(f, sp) for f in families for sp in SPLITS] + [("all", sp) for sp in SPLITS] + [("all", "both")]
    for key in order:
        if key not in groups:
            continue
        g = groups[key]
        m, p = len(g), sum(s.puzzles for s in g)
        count = sum(s.count_right for s in g)
        solved = sum(s.solved for s in g)
        codes = Counter(c for s in g for c in s.codes)
        refused = " ".join(f"{c}:{codes[c]}" for c in sorted(codes, key=lambda c: (not c.isdigit(), c.zfill(3))))
        fam = f"**{key[0]}**" if key[0] == "all" else key[0]
        lines.append(f"| {fam} | {key[1]} | {m} | {p} | {count} ({count / m:.0%}) | {solved} ({solved / max(1, p):.0%})"
                     f" | {sum(s.wrong for s in g)} | {refused or '-'} | {sum(s.seconds for s in g) / m:.2f} |")
    return "\n".join(lines)


def tell(s: Score, fails: bool, save: Path | None) -> None:
    """--fails: a failing scene and why, on stderr; --save DIR: its picture and truth written there."""
    if fails and not s.ok:
        print(f"FAIL {s.name} {' '.join(s.notes)}: " + "; ".join(s.why), file=sys.stderr)
    if save and s.data is not None:
        save.mkdir(parents=True, exist_ok=True)
        (save / s.name).write_bytes(s.data)
        (save / (s.name + ".truth.txt")).write_text(s.truth + "\n".join(s.why) + "\n")


@saved("scenes")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_scene_options(ap)
    ap.add_argument("--fails", action="store_true", help="list each failing scene and why")
    ap.add_argument("--save", type=Path, help="write failing scenes' pictures (and truths) here")
    add_model_options(ap, "PATH",
                      label="score this label model file (e.g. one just trained) in place of the shipped one",
                      second_label="and this one in place of the shipped second label model"
                                   " (models/labels-second.onnx)",
                      contents="and this cell-content network in place of models/contents.onnx")
    args = ap.parse_args()
    jobs = [(f, seed, split, args.save is not None) for f, seed, split in scene_jobs(args, ap)]
    models = chosen(args, ap)
    t0 = time.perf_counter()
    scores: list[Score] = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs), initializer=use_models, initargs=(models, True)) as pool:
        for s in pool.map(run_one, *zip(*jobs)):
            scores.append(s)
            tell(s, args.fails, args.save)
    print(table(scores))
    print("\n" + ways_table(scores))
    print(f"\n{len(scores)} scenes in {time.perf_counter() - t0:.0f} s with {args.jobs} job(s); seeds {seeds_told(args)}")


if __name__ == "__main__":
    main()
