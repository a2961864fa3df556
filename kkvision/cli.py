"""Command line: `kkvision solve|check|convert`.  Errors are mapped to exit
codes here and only here; a traceback is shown only with -v."""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import traceback
from pathlib import Path

from . import __version__, formats
from .answers import check_answers, read_answers
from .errors import ExitCode, KkvisionError, OutputExists
from .pipeline import OCR_ALIASES, OCR_ENGINES, Options, Outcome, run
from .report import grid_text, labels_json, result_json

log = logging.getLogger("kkvision")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kkvision",
        description="Solve KenKen / Calcudoku puzzles from photos, scans, screenshots or text.",
        epilog="Exit codes: " + ", ".join(f"{c.value} {c.name.lower()}" for c in ExitCode),
    )
    p.add_argument("--version", action="version", version=f"kkvision {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress; show tracebacks")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("input", type=Path, help="image (png, jpg...) or puzzle text file")
        sp.add_argument("--format", choices=formats.FORMATS, help="text format (default: detect)")
        sp.add_argument("--time-limit", type=float, default=20.0, help="solver seconds (default 20)")
        sp.add_argument("--debug-dir", type=Path, help="write each vision stage's picture here")
        sp.add_argument("--ocr", choices=OCR_ENGINES + tuple(OCR_ALIASES), default="model",
                        help="label reader: the shipped label model (model, the default), or the model with"
                             " tesseract as a second witness of the digits (tesseract: slower, measured no better)")
        sp.add_argument("--json", action="store_true", help="print JSON instead of text")
        sp.add_argument("-o", "--output", type=Path,
                        help="image to write (default INPUT.solved.png / INPUT.checked.png beside the input)")
        sp.add_argument("--no-image", action="store_true", help="do not write an output image")

    s = sub.add_parser("solve", help="solve puzzles and print (and draw) the solutions")
    common(s)
    s.add_argument("more", type=Path, nargs="*", metavar="INPUT",
                   help="more images or puzzle files: each is solved in turn (a failed one does not stop"
                        " the rest; the exit code is the first failure's)")
    c = sub.add_parser("check", help="compare your answers with the solution, mark wrong cells")
    common(c)
    c.add_argument("answers", type=Path, help="text file: one line of digits per row, '.' for blank")
    v = sub.add_parser("convert", help="print a puzzle (text or image) in another text format")
    v.add_argument("input", type=Path)
    v.add_argument("--format", choices=formats.FORMATS, help="input text format (default: detect)")
    v.add_argument("--to", choices=formats.FORMATS, required=True)
    v.add_argument("--ocr", choices=OCR_ENGINES + tuple(OCR_ALIASES), default="model")
    return p


def _free_name(base: Path, kind: str) -> Path:
    """INPUT.<kind>.png, or INPUT.<kind>-2.png ... if that exists: never overwrite."""
    stem = base.with_suffix("")
    candidate = stem.parent / f"{stem.name}.{kind}.png"
    k = 2
    while candidate.exists():
        candidate = stem.parent / f"{stem.name}.{kind}-{k}.png"
        k += 1
    return candidate


def _output_path(args: argparse.Namespace, kind: str) -> Path:
    if args.output is None:
        return _free_name(args.input, kind)
    if args.output.exists() or args.output.resolve() == args.input.resolve():
        raise OutputExists(f"{args.output} exists; kkvision never overwrites files: choose another -o")
    return args.output


def _write_image(args: argparse.Namespace, outcome: Outcome, kind: str,
                 wrong: set[tuple[int, int]] | None = None) -> Path | None:
    if outcome.image is None or args.no_image:
        return None
    from .render import draw_solution, save_image

    out = _output_path(args, kind)
    picture = draw_solution(outcome.image, outcome.vision, outcome.solution.grid, wrong)
    save_image(picture, out)
    return out


def _options(args: argparse.Namespace) -> Options:
    return Options(fmt=args.format, time_limit=getattr(args, "time_limit", 20.0),
                   debug_dir=getattr(args, "debug_dir", None), ocr=OCR_ALIASES.get(args.ocr, args.ocr))


def _odds(nats: float) -> float | None:
    """How many times the answer is more probable than any reading with another
    solution (None: no such reading was found within the search)."""
    return None if math.isinf(nats) else round(math.exp(nats), 1)


def cmd_solve(args: argparse.Namespace) -> int:
    inputs = [args.input, *args.more]
    if len(inputs) == 1:
        return solve_one(args)
    if args.output is not None:
        raise KkvisionError("-o names one output file; with several inputs each is written beside its input")
    first_failure = 0
    for path in inputs:
        one = argparse.Namespace(**{**vars(args), "input": path, "more": [], "batch": True})
        if not args.json:
            print(f"== {path}")
        try:
            code = solve_one(one)
        except KkvisionError as exc:
            print(f"kkvision: error: {path}: {exc.message}", file=sys.stderr)
            if args.json:
                print(json.dumps({"input": str(path), "error": exc.message, "exit_code": int(exc.exit_code)}))
            code = int(exc.exit_code)
        first_failure = first_failure or code
    return first_failure


def solve_one(args: argparse.Namespace) -> int:
    outcome = run(args.input, _options(args))
    for note in outcome.notes:
        log.warning("%s", note)
    sol = outcome.solution
    if not sol.unique:
        from .errors import Ambiguous

        assert sol.other is not None
        differ = sum(a != b for ra, rb in zip(sol.grid, sol.other) for a, b in zip(ra, rb))
        raise Ambiguous(
            f"this puzzle has more than one solution (two of them differ in {differ} cells);"
            " if it was read from an image, check the cages and clues with --debug-dir"
        )
    image = _write_image(args, outcome, "solved")
    if args.json:
        extra = {}
        if outcome.vision is not None:
            extra = {"labels": labels_json(outcome.vision.labels), "odds": _odds(outcome.vision.odds)}
        print(result_json(outcome.puzzle, sol.grid, sol.unique, notes=list(outcome.notes),
                          image=str(image) if image else None, input=str(args.input), **extra,
                          indent=None if args.more or getattr(args, "batch", False) else 1))
    else:
        print(grid_text(sol.grid))
    if image:
        log.warning("solution drawn into %s", image)
    return ExitCode.OK


def cmd_check(args: argparse.Namespace) -> int:
    outcome = run(args.input, _options(args))
    for note in outcome.notes:
        log.warning("%s", note)
    try:
        text = args.answers.read_text()
    except OSError as exc:
        from .errors import InputError

        raise InputError(f"{args.answers}: cannot read answers ({exc.strerror})") from None
    result = check_answers(outcome.puzzle, outcome.solution.grid, read_answers(text, outcome.puzzle.size))
    image = _write_image(args, outcome, "checked", set(result.wrong))
    if args.json:
        print(result_json(outcome.puzzle, outcome.solution.grid, outcome.solution.unique,
                          wrong=[list(c) for c in result.wrong], blank=[list(c) for c in result.blank]))
    else:
        print(grid_text(result.answers, set(result.wrong)))
        print(f"{len(result.wrong)} wrong, {len(result.blank)} blank"
              + (" (wrong cells are marked with !)" if result.wrong else ""))
    if image:
        log.warning("wrong cells marked in %s", image)
    return ExitCode.OK if result.ok else ExitCode.ANSWERS_WRONG


def cmd_convert(args: argparse.Namespace) -> int:
    outcome = run(args.input, Options(fmt=args.format, ocr=OCR_ALIASES.get(args.ocr, args.ocr)))
    print(formats.write(outcome.puzzle, args.to), end="")
    return ExitCode.OK


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="kkvision: %(message)s", stream=sys.stderr)
    try:
        return int({"solve": cmd_solve, "check": cmd_check, "convert": cmd_convert}[args.command](args))
    except KkvisionError as exc:
        if args.verbose:
            traceback.print_exc()
        print(f"kkvision: error: {exc.message}", file=sys.stderr)
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
