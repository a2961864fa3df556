"""Command line: `kkvision solve|check|convert`.  Errors are mapped to exit
codes here and only here; a traceback is shown only with -v."""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import __version__, formats
from .answers import check_answers, read_answers
from .errors import (
    Ambiguous,
    ClueUnreadable,
    ExitCode,
    InputError,
    KkvisionError,
    OutputExists,
    UncertainReading,
    Unsolvable,
    UsageError,
)
from .pipeline import OCR_ALIASES, OCR_ENGINES, Options, Result, read_input, run
from .puzzle import cell_name
from .report import dump, grid_text, record

log = logging.getLogger("kkvision")
MAX_TIME_LIMIT = 3600.0  # seconds: --time-limit beyond an hour is surely a typo


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kkvision",
        description="Solve KenKen / Calcudoku puzzles from photos, scans, screenshots or text.",
        epilog="Exit codes: " + ", ".join(f"{c.value} {c.name.lower()}" for c in ExitCode),
    )
    p.add_argument("--version", action="version", version=versions())
    loudness(p)
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        loudness(sp, default=argparse.SUPPRESS)
        sp.add_argument("input", type=Path, help="image (png, jpg...) or puzzle text file; '-': standard input")
        sp.add_argument("--format", choices=formats.FORMATS, help="text format (default: detect)")
        sp.add_argument("--time-limit", type=float, default=20.0,
                        help=f"solver seconds, more than 0 and at most {MAX_TIME_LIMIT:g} (default 20)")
        sp.add_argument("--max-pixels", type=int, default=50_000_000,
                        help="refuse pictures declaring more pixels than this, before decoding (default 50 MP)")
        sp.add_argument("--debug-dir", type=Path, help="write each vision stage's picture here")
        sp.add_argument("--ocr", choices=OCR_ENGINES + tuple(OCR_ALIASES), default="model",
                        help="label reader: the shipped label model (model, the default), or the model with"
                             " tesseract as a second witness of the digits (tesseract: slower, measured no better)")
        sp.add_argument("--json", action="store_true", help="print JSON instead of text")
        sp.add_argument("--label", action="append", metavar="CELL=LABEL",
                        help="use this label for the cage starting at CELL instead of what was read"
                             " (e.g. --label B3=12+; repeatable)")
        sp.add_argument("-o", "--output", type=Path,
                        help="image to write (default INPUT.solved.png / INPUT.checked.png beside the input)")
        sp.add_argument("--no-image", action="store_true", help="do not write an output image")

    s = sub.add_parser("solve", help="solve puzzles and print (and draw) the solutions")
    common(s)
    s.add_argument("more", type=Path, nargs="*", metavar="INPUT",
                   help="more images, puzzle files, folders or PDFs ('-': standard input): each is solved"
                        " (a failed one does not stop the rest; the exit code is the first failure's)")
    s.add_argument("--output-dir", type=Path, help="write the output pictures here, named after their inputs")
    s.add_argument("--jobs", type=int, default=0, help="inputs solved at once (default: the number of cores)")
    s.add_argument("--dpi", type=int, default=300, help="PDF pages are rasterised at this resolution (300)")
    s.add_argument("--report", type=Path, help="a row per input to this new file: .csv, or JSON Lines otherwise")
    c = sub.add_parser("check", help="compare your answers with the solution, mark wrong cells")
    common(c)
    c.add_argument("answers", type=Path, nargs="?",
                   help="text file: one line of digits per row, '.' for blank (default: read the answers"
                        " written in the picture's cells)")
    h = sub.add_parser("hint", help="reveal a few cells that follow from the clues, each with its reason")
    common(h)
    h.add_argument("--cells", type=int, default=1, help="how many cells to reveal (default 1)")
    v = sub.add_parser("convert", help="print a puzzle (text or image) in another text format")
    loudness(v, default=argparse.SUPPRESS)
    v.add_argument("input", type=Path)
    v.add_argument("--format", choices=formats.FORMATS, help="input text format (default: detect)")
    v.add_argument("--to", choices=formats.FORMATS, required=True)
    v.add_argument("--ocr", choices=OCR_ENGINES + tuple(OCR_ALIASES), default="model")
    v.add_argument("--json", action="store_true", help="print a JSON record holding the converted text")
    v.add_argument("--label", action="append", metavar="CELL=LABEL",
                   help="use this label for the cage starting at CELL instead of what was read (repeatable)")
    return p


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is at the time (tests and callers may swap it)."""

    @property  # type: ignore[override]
    def stream(self):  # type: ignore[no-untyped-def]
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # type: ignore[no-untyped-def]
        pass


def _log_to_stderr(level: int) -> None:
    """kkvision's notes and progress to stderr at `level`, set anew on every run."""
    log.setLevel(level)
    if not any(isinstance(h, _Stderr) for h in log.handlers):
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("kkvision: %(message)s"))
        log.addHandler(handler)
        log.propagate = False


def loudness(parser: argparse.ArgumentParser, default: object = False) -> None:
    """-v / -q, accepted before and after the subcommand (a subcommand's copy
    only overrides the main one when given)."""
    parser.add_argument("-v", "--verbose", action="store_true", default=default,
                        help="log progress; show tracebacks")
    parser.add_argument("-q", "--quiet", action="store_true", default=default,
                        help="errors only: no notes or progress on stderr")


def versions() -> str:
    """kkvision's version and those of the engines it runs."""
    from importlib.metadata import PackageNotFoundError, version

    import cv2

    try:
        ortools_version = version("ortools")
    except PackageNotFoundError:
        ortools_version = "missing"
    from .vision import ocr

    return (f"kkvision {__version__} (OpenCV {cv2.__version__}, OR-Tools {ortools_version},"
            f" tesseract {ocr.version() or 'not installed'})")


def _output_path(args: argparse.Namespace, kind: str) -> Path:
    if args.output is None:
        from .batch import free_name

        return free_name(args.input.parent, args.input.stem, kind)
    if args.output.exists() or args.output.resolve() == args.input.resolve():
        raise OutputExists(f"{args.output} exists; kkvision never overwrites files: choose another -o")
    return args.output


def _write_image(args: argparse.Namespace, outcome: Result, picture: Any, kind: str,
                 wrong: set[tuple[int, int]] | None = None, blank: set[tuple[int, int]] | None = None,
                 grid: Any = None) -> Path | None:
    """The picture with `grid` (default: the solution) or the marks drawn in,
    written as INPUT.<kind>.png or -o; None for a text input or --no-image."""
    if picture is None or args.no_image:
        return None
    from .render import draw_solution, save_image

    out = _output_path(args, kind)
    picture = draw_solution(picture, outcome, outcome.solution if grid is None else grid, wrong, blank)
    save_image(picture, out)
    return out


def _options(args: argparse.Namespace) -> Options:
    return Options(fmt=args.format, time_limit=getattr(args, "time_limit", 20.0),
                   debug_dir=getattr(args, "debug_dir", None), ocr=OCR_ALIASES.get(args.ocr, args.ocr),
                   max_pixels=getattr(args, "max_pixels", 50_000_000),
                   labels=tuple(parse_label(text) for text in getattr(args, "label", None) or ()))


LABEL_ARG = re.compile(r"^([A-Za-z])(\d{1,2})=(\d{1,12})([-+*/x×÷−]?)$")


def parse_label(text: str) -> tuple[tuple[int, int], str]:
    """'B3=12+' -> ((2, 1), '12+'): the first cell of a cage (column letter, row
    number) and its label; x × ÷ − are read as * * / -."""
    m = LABEL_ARG.match(text.strip())
    if not m:
        raise UsageError(f"--label {text!r}: write it as CELL=LABEL, e.g. B3=12+ or A1=3 (column letter, row number)")
    op = {"x": "*", "×": "*", "÷": "/", "−": "-"}.get(m[4], m[4])
    return (int(m[2]) - 1, ord(m[1].upper()) - ord("A")), m[3] + op


def _check_args(args: argparse.Namespace) -> None:
    """Refuse an impossible command line before any work (exit 2), or an output
    that cannot be written (exit 3)."""
    limit = getattr(args, "time_limit", 20.0)
    if not (0 < limit <= MAX_TIME_LIMIT):  # also refuses nan
        raise UsageError(f"--time-limit must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds, not {limit:g}")
    if getattr(args, "max_pixels", 1) <= 0:
        raise UsageError("--max-pixels must be a positive number of pixels")
    if getattr(args, "cells", 1) < 1:
        raise UsageError("--cells must be 1 or more")
    if getattr(args, "jobs", 0) < 0 or not 20 <= getattr(args, "dpi", 300) <= 1200:
        raise UsageError("--jobs must be 0 (the number of cores) or more, and --dpi within 20..1200")
    output_dir = getattr(args, "output_dir", None)
    if output_dir is not None and not output_dir.is_dir():
        raise InputError(f"--output-dir {output_dir}: no such folder")
    output = getattr(args, "output", None)
    if output is None:
        return
    if getattr(args, "more", None):
        raise UsageError("-o names one output file; with several inputs use --output-dir")
    from .render import OUTPUT_FORMATS

    if output.suffix.lower() not in OUTPUT_FORMATS:
        raise UsageError(f"-o {output}: the picture is written as PNG, JPEG or WebP: name it "
                         + ", ".join(f"*{ext}" for ext in OUTPUT_FORMATS))
    folder = output.parent if str(output.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"-o {output}: the folder {folder} does not exist")


def cmd_solve(args: argparse.Namespace) -> int:
    """Every input (files, folders, PDF and TIFF pages, standard input) solved;
    several in a process pool with a summary; the first failure's exit code."""
    from .batch import Task, run_batch
    from .inputs import expand

    sources = expand([args.input, *args.more], args.dpi)
    several = len(sources) > 1 or args.input.is_dir() or args.input.suffix.lower() == ".pdf"
    if several and args.output is not None:
        raise UsageError("-o names one output file; with several inputs use --output-dir")
    opts = _options(args)
    tasks = [Task(src, replace(opts, debug_dir=None) if several else opts, not args.no_image, args.output,
                  args.output_dir, args.debug_dir if several else None, args.dpi) for src in sources]
    report = _open_report(args.report)
    jobs = min(args.jobs or os.cpu_count() or 1, len(tasks))
    executor = ProcessPoolExecutor(jobs) if several and jobs > 1 else None
    counts: Counter[str] = Counter()
    first_failure = 0
    t0 = time.perf_counter()
    try:
        records = run_batch(tasks, executor)
        if several and sys.stderr.isatty() and not args.quiet:
            from tqdm import tqdm

            records = tqdm(records, total=len(tasks), unit="input", file=sys.stderr, leave=False)
        for rec in records:
            first_failure = first_failure or rec["exit_code"]
            counts["solved" if rec["ok"] else f"exit {rec['exit_code']}"] += 1
            several = several or rec["index"] is not None
            _show(args, rec, several)
            if report is not None:
                report(rec)
    finally:
        if executor is not None:
            executor.shutdown(cancel_futures=True)
    if several:
        refused = ", ".join(f"{n} with {k}" for k, n in sorted(counts.items()) if k != "solved") or "none"
        log.warning("%d inputs, %d puzzles: %d solved; refused: %s; %.1f s", len(tasks), sum(counts.values()),
                    counts["solved"], refused, time.perf_counter() - t0)
    return first_failure


def _show(args: argparse.Namespace, rec: dict[str, Any], several: bool) -> None:
    """One puzzle's outcome: the grid or its JSON record on stdout, notes and errors on stderr."""
    label = rec["input"] + (f" #{rec['index']}" if rec["index"] is not None else "")
    many = several or rec["index"] is not None
    where = f"{label}: " if many else ""
    if many and not args.json:
        print(f"== {label}")
    if not rec["ok"]:
        print(f"kkvision: error: {where}{rec['error']}", file=sys.stderr)
    for note in rec["notes"] or ():
        log.warning("%s%s", where, note)
    if args.json:
        print(dump(rec, many))
    elif rec["ok"]:
        print(grid_text(tuple(tuple(row) for row in rec["solution"])))
    if rec["image"] and rec["index"] in (None, 1):
        log.warning("%ssolution drawn into %s", f"{rec['input']}: " if several else "", rec["image"])


def _open_report(path: Path | None) -> Any:
    """A function writing one record as a row of the --report file (CSV or JSON Lines), or None."""
    if path is None:
        return None
    import csv

    from .report import REPORT_COLUMNS, report_row

    try:
        fh = open(path, "x", newline="", encoding="utf-8")  # noqa: SIM115 - kept open for the run
    except FileExistsError:
        raise OutputExists(f"--report {path} exists; kkvision never overwrites files") from None
    except OSError as exc:
        raise InputError(f"--report {path}: cannot write it ({exc.strerror})") from None
    if path.suffix.lower() == ".csv":
        writer = csv.DictWriter(fh, REPORT_COLUMNS)
        writer.writeheader()

        def write(rec: dict[str, Any]) -> None:
            writer.writerow(report_row(rec))
            fh.flush()
    else:
        def write(rec: dict[str, Any]) -> None:
            fh.write(json.dumps(report_row(rec)) + "\n")
            fh.flush()
    return write


def cmd_check(args: argparse.Namespace) -> int:
    """The user's answers (a text file, or read from the picture's cells) against the solution."""
    outcome, picture = run(args.input, _options(args))
    for note in outcome.notes:
        log.warning("%s", note)
    unsure: tuple[tuple[int, int], ...] = ()
    if args.answers is not None:
        try:
            text = read_input(args.answers).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(f"{args.answers}: the answers are not a text file") from None
        answers = read_answers(text, outcome.puzzle.size)
    elif picture is None:
        raise UsageError("check a puzzle text against an answers file: kkvision check PUZZLE ANSWERS")
    else:
        from .answers import written_answers

        answers, unsure = written_answers(picture, outcome.geometry)
    result = check_answers(outcome.puzzle, outcome.solution, answers)
    blank = tuple(c for c in result.blank if c not in unsure)
    image = _write_image(args, outcome, picture, "checked", set(result.wrong), set(blank))
    if args.json:
        print(dump(record("check", str(args.input), exit_code=0 if result.ok else ExitCode.ANSWERS_WRONG,
                          puzzle=outcome.puzzle, solution=outcome.solution, unique=outcome.unique,
                          notes=list(outcome.notes) + ([f"unsure cells: {', '.join(map(cell_name, unsure))}"]
                                                       if unsure else []),
                          image=str(image) if image else None,
                          wrong=[list(c) for c in result.wrong], blank=[list(c) for c in blank]), False))
    else:
        print(grid_text(result.answers, set(result.wrong)))
        print(f"{len(result.wrong)} wrong, {len(blank)} blank"
              + (f", {len(unsure)} unsure ({', '.join(map(cell_name, unsure))}: not read surely, not judged)"
                 if unsure else "")
              + ("; the grid is complete" if not blank and not unsure else "")
              + (" (wrong cells are marked with !)" if result.wrong else ""))
    if image:
        log.warning("wrong cells marked in %s", image)
    return ExitCode.OK if result.ok else ExitCode.ANSWERS_WRONG


def cmd_hint(args: argparse.Namespace) -> int:
    """A few cells that follow from the clues by the simplest reasoning, with the reason for each."""
    from .hints import hints

    outcome, picture = run(args.input, _options(args))
    for note in outcome.notes:
        log.warning("%s", note)
    if not outcome.unique:
        raise Ambiguous("this puzzle has more than one solution: no hint can be sure")
    found = hints(outcome.puzzle, outcome.solution, args.cells)
    shown = [[0] * outcome.puzzle.size for _ in range(outcome.puzzle.size)]
    for hint in found:
        shown[hint.cell[0]][hint.cell[1]] = hint.digit
    partial = tuple(tuple(row) for row in shown)
    image = _write_image(args, outcome, picture if found else None, "hint", grid=partial)
    if args.json:
        print(dump(record("hint", str(args.input), puzzle=outcome.puzzle, unique=True, notes=list(outcome.notes),
                          image=str(image) if image else None,
                          hints=[{"cell": cell_name(h.cell), "digit": h.digit, "reason": h.reason} for h in found]),
                   False))
    else:
        for hint in found:
            print(f"{cell_name(hint.cell)} = {hint.digit}: {hint.reason}")
        if not found:
            print("no cell follows from the clues by the simplest reasoning")
    if image:
        log.warning("hint drawn into %s", image)
    return ExitCode.OK


def cmd_convert(args: argparse.Namespace) -> int:
    opts = Options(fmt=args.format, ocr=OCR_ALIASES.get(args.ocr, args.ocr),
                   labels=tuple(parse_label(t) for t in args.label or ()))
    try:
        outcome, _ = run(args.input, opts)
        puzzle, notes = outcome.puzzle, list(outcome.notes)
        unsure: list[dict[str, Any]] = []
        text = formats.write(puzzle, args.to)
    except (Unsolvable, Ambiguous, UncertainReading, ClueUnreadable) as exc:
        text, puzzle, unsure = _as_read(args, opts, exc)  # a picture's puzzle, as read, for the user to edit
        notes = [f"written as read: {exc.message}"]
        log.warning("%s: written as read (%s); edit it and run kkvision solve on the text", args.input,
                    exc.message.split(";")[0])
    if args.json:
        print(dump(record("convert", str(args.input), puzzle=puzzle, notes=notes, text=text,
                          labels=unsure or None), False))
    else:
        print(text, end="")
    return ExitCode.OK


def _as_read(args: argparse.Namespace, opts: Options, why: KkvisionError) -> tuple[str, Any, list[dict[str, Any]]]:
    """The puzzle in a picture as its labels were read: the text in --to format
    (JSON when a label could not be read at all: its op and target are null),
    the Puzzle when one can be made, and the unsure labels."""
    from .pipeline import is_image
    from .puzzle import Puzzle
    from .vision import decode, read_as_read

    data = read_input(args.input)
    if not is_image(args.input, data):
        raise why  # a text puzzle: it says what it says
    seen = read_as_read(decode(args.input, data, opts.max_pixels), str(args.input), opts)
    unsure = [{"cell": cell_name(cells[0]), "used": cage.label if cage else None, "used_probability": round(p, 4),
               "how": "unsure" if cage else "not read"} for cells, cage, p in seen.cages if cage is None or p < 0.9]
    try:
        puzzle = Puzzle(seen.size, tuple(cage for _, cage, _ in seen.cages if cage is not None))
        if len(puzzle.cages) == len(seen.cages):
            return formats.write(puzzle, args.to), puzzle, unsure
    except KkvisionError:
        pass
    if args.to != "json":
        raise UsageError(f"some labels of {args.input} could not be read as a puzzle ("
                         + ", ".join(u["cell"] for u in unsure if u["used"] is None)
                         + "): convert it --to json, fill them in, and run kkvision solve on that file")
    cages = [{"op": cage.op if cage else None, "target": cage.target if cage else None,
              "cells": [list(c) for c in cells]} for cells, cage, _ in seen.cages]
    return json.dumps({"size": seen.size, "cages": cages}, indent=1) + "\n", None, unsure


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    _log_to_stderr(logging.INFO if args.verbose else logging.ERROR if args.quiet else logging.WARNING)
    try:
        _check_args(args)
        return int({"solve": cmd_solve, "check": cmd_check, "convert": cmd_convert, "hint": cmd_hint}[args.command](args))
    except KkvisionError as exc:
        if args.verbose:
            traceback.print_exc()
        print(f"kkvision: error: {exc.message}", file=sys.stderr)
        if getattr(args, "json", False):  # the same record, for the failure, on stdout
            print(dump(record(args.command, str(getattr(args, "input", "")), exit_code=exc.exit_code,
                              error=exc.message), False))
        return int(exc.exit_code)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: say so plainly
        if args.verbose:
            traceback.print_exc()
        print(f"kkvision: internal error: {type(exc).__name__}: {exc} (run with -v for details)",
              file=sys.stderr)
        return int(ExitCode.SOFTWARE)


if __name__ == "__main__":
    sys.exit(main())
