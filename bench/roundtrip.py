"""kkvision's own answer pictures fed back in: the same puzzle, and check says all right.

    .venv/bin/python bench/roundtrip.py [DIR ...] [--jobs 2] [--fails]

For every picture in the folders (default: samples/ and ../shared/real-dev/*)
that kkvision solves, the answer is drawn into it as `kkvision solve` does
(PNG), and that picture is read again:
  same     `solve` of the output gives the same puzzle (cages and clues) and solution
  no wrong `check` of the output calls no cell wrong (exit 0 or 15, never 11)
  all read `check` of the output reads every cell surely, filled and right (no blank, no
           unsure cell: check's exit 0): the drawn digits are read back as the answers
  convert  `kkvision convert PICTURE --to json` then `kkvision solve` of that text gives
           the same solution (the text holds the reading solve used, not first readings)
Pictures kkvision refuses in the first place are counted apart (they give no output).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _results import saved  # noqa: E402  (bench/_results.py: the report kept for docs/benchmarks.md)

from kkvision import formats  # noqa: E402
from kkvision.answers import check_answers, written_answers  # noqa: E402
from kkvision.errors import KkvisionError  # noqa: E402
from kkvision.pipeline import Options, Page, Result, read_source, solve_text  # noqa: E402
from kkvision.render import Drawing, draw  # noqa: E402
from kkvision.sources import PICTURES, Source, of_bytes  # noqa: E402


def one(path: Path) -> tuple[str, str, str, bool]:
    """(folder, outcome, why, converted): outcome 'refused', 'ok', 'changed' or 'unchecked';
    converted: convert's JSON text of every answered puzzle solves to the same solution."""
    folder = path.parent.name
    try:
        page = read_source(Source(str(path), path), Options())
    except KkvisionError as exc:
        return folder, "refused", f"exit {int(exc.exit_code)}", False
    first = [o.result for o in page.outcomes if o.result is not None]
    if not first or page.picture is None:
        return folder, "refused", "no answer", False
    converted = True
    for result in first:
        try:
            converted &= solve_text(formats.write(result.puzzle, "json"), Options()).solution == result.solution
        except KkvisionError:
            converted = False
    return (*_again(path, page, first), converted)


def _again(path: Path, page: Page, first: list[Result]) -> tuple[str, str, str]:
    """The answer drawn, and the output picture read and checked."""
    folder = path.parent.name
    assert page.picture is not None  # one() answers only pictures here
    drawn = draw(page.picture, [Drawing(r.geometry, r.solution, r.labels) for r in first if r.geometry is not None])
    data = cv2.imencode(".png", drawn)[1].tobytes()
    try:
        again = read_source(of_bytes(data, f"{path.name}.solved.png"), Options())
    except KkvisionError as exc:
        return folder, "changed", f"output: exit {int(exc.exit_code)}: {exc.message[:80]}"
    second = [o.result for o in again.outcomes if o.result is not None]
    if len(second) != len(first) or any(a.puzzle != b.puzzle or a.solution != b.solution
                                        for a, b in zip(first, second)):
        errors = [o.error.message[:80] for o in again.outcomes if o.error is not None]
        return folder, "changed", f"output read as {len(second)} puzzle(s) {errors[:1]}"
    assert again.picture is not None
    for result in second:
        assert result.geometry is not None
        answers, unsure = written_answers(again.picture, result.geometry)
        verdict = check_answers(result.puzzle, result.solution, answers)
        if verdict.wrong:
            return folder, "wrong", f"check: {len(verdict.wrong)} wrong"
        if verdict.blank or unsure:
            return folder, "unchecked", (f"check: {len(verdict.wrong)} wrong, {len(verdict.blank)} blank,"
                                         f" {len(unsure)} unsure")
    return folder, "ok", ""


def _share(k: int, total: int) -> str:
    return f"{k}/{total} ({100 * k / max(1, total):.0f}%)"


@saved("roundtrip")
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--fails", action="store_true", help="list the pictures that do not come back the same")
    args = ap.parse_args()
    dirs = args.dirs or [ROOT / "samples", *sorted(p for p in (ROOT.parent / "shared" / "real-dev").glob("*")
                                                    if p.is_dir())]
    paths = [p for d in dirs for p in sorted(d.iterdir()) if p.suffix.lower() in PICTURES
             and ".solved" not in p.name]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(zip(paths, pool.map(one, paths)))
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for _, (folder, outcome, _why, converted) in results:
        for key in (folder, "all"):
            table[key][outcome] += 1
            table[key]["converted"] += converted
    print("| folder | pictures | solved | output: same puzzle | output: check calls no cell wrong"
          " | output: check reads every cell surely | convert then solve: same | refused first |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(table, key=lambda k: (k == "all", k)):
        t = table[key]
        solved = t["ok"] + t["changed"] + t["unchecked"] + t["wrong"]
        same = t["ok"] + t["unchecked"] + t["wrong"]
        right = t["ok"] + t["unchecked"]

        print(f"| {key} | {solved + t['refused']} | {solved} | {_share(same, solved)} | {_share(right, solved)} |"
              f" {_share(t['ok'], solved)} | {_share(t['converted'], solved)} | {t['refused']} |")
    if args.fails:
        for path, (_, outcome, why, _converted) in results:
            if outcome != "ok":
                print(f"{outcome}: {path}: {why}", file=sys.stderr)


if __name__ == "__main__":
    main()
