"""Command line: `kkvision solve|check|hint|convert|serve`.  It parses the
arguments, prints what the commands (commands.py, shared with the server) make
of each puzzle and writes the pictures.  Errors are mapped to exit codes here
and only here; a traceback is shown only with -v."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from . import __version__, commands, formats
from .answers import Judged
from .batch import Task, in_order, reading, run_batch, worked
from .commands import Done, Wording, Work, parse_label
from .defaults import (
    DPI,
    HINT_CELLS,
    HOST,
    MAX_PIXELS,
    MAX_TIME_LIMIT,
    MAX_UPLOAD,
    PORT,
    QUEUE_PER_WORKER,
    TIME_LIMIT,
)
from .errors import ExitCode, InputError, KkvisionError, OutputError, OutputExists, UsageError
from .pipeline import Options, Page, read_source
from .report import dump, grid_text
from .sources import Source, expand, load, read_text
from .vocab import LABEL_READERS, READER_ALIASES, cell_name

log = logging.getLogger("kkvision")
T = TypeVar("T")
BROKEN_PIPE = 141  # exit code when our reader closed the pipe (as a shell reports a SIGPIPE death: 128 + 13)
WORDING = Wording(  # how the command line names the answers and the puzzle a user gives, in refusals
    several="{page} holds {count} puzzles and {given} for one: name it with --puzzle N",
    answers="an answers file is", progress="a progress file is",
    no_answers="check a puzzle text against an answers file: kkvision check PUZZLE ANSWERS")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kkvision",
        description="Solve KenKen / Calcudoku puzzles from photos, scans, screenshots or text.",
        epilog=EXAMPLES["kkvision"] + "\n\nExit codes: " + ", ".join(f"{c.value} {c.name.lower()}" for c in ExitCode),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-V", "--version", action=_Version, nargs=0,
                   help="show the versions of kkvision and its engines, and exit")
    loudness(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title="commands")

    def command(name: str, summary: str) -> argparse.ArgumentParser:
        """A command's parser, its help ending with its EXAMPLES."""
        return sub.add_parser(name, help=summary, epilog=EXAMPLES[name],
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    s = command("solve", "solve puzzles and print (and draw) the solutions")
    common_options(s)
    several_options(s, "solved", "solved")
    s.add_argument("--report", type=Path, help="a row per input to this new file: .csv, or JSON Lines otherwise")
    c = command("check", "compare your answers with the solution, mark wrong cells")
    common_options(c)
    several_options(c, "checked, its answers read from its cells", "checked", ANSWERS_LAST.format(
        what="your answers", default="the answers written in each picture's cells"))
    h = command("hint", "reveal a few cells that follow from the clues, each with its reason")
    common_options(h)
    several_options(h, "given hints", "hinted", ANSWERS_LAST.format(
        what="your progress", default="the digits written in each picture's cells; cells written wrong are named first"))
    hint_options(h)
    v = command("convert", "print a puzzle (text or image) in another text format")
    reading_options(v)
    v.add_argument("--to", choices=formats.FORMATS, required=True,
                   help="the text format to print: " + ", ".join(formats.FORMATS))
    # The shared code (_check_args, _options, _over_sources, main's error record) reads args.NAME for
    # every command that reaches it: a command without one of the options it reads holds that option's
    # default (serve's: _serve_parser).
    for sp in (s, c):
        unset(sp, hint_options)
    unset(v, common_options, several_options, hint_options)
    _serve_parser(sub)
    return p


def reading_options(sp: argparse.ArgumentParser) -> None:
    """The options every command shares: how the input is read."""
    loudness(sp, default=argparse.SUPPRESS)
    sp.add_argument("input", type=Path, help="image (png, jpg...), PDF page or puzzle text file; '-': standard input")
    sp.add_argument("--format", choices=formats.FORMATS, help="text format (default: detect)")
    sp.add_argument("--ocr", choices=LABEL_READERS + tuple(READER_ALIASES), default=LABEL_READERS[0],
                    help="label reader: the shipped label model (model, the default), or the model with"
                         " tesseract as a second witness of the digits (tesseract: slower, measured no better)")
    sp.add_argument("--puzzle", type=int, metavar="N",
                    help="only the N-th puzzle of a picture holding several (numbered in reading order)")
    sp.add_argument("--label", action="append", metavar="[N:]CELL=LABEL",
                    help="use this label for the cage starting at CELL instead of what was read"
                         " (e.g. --label B3=12+, or 2:B3=12x for the second puzzle of a page; repeatable)")
    sp.add_argument("--json", action="store_true", help="print JSON records instead of text")
    sp.add_argument("--max-pixels", type=int, default=MAX_PIXELS,
                    help=f"refuse pictures declaring more pixels than this, before decoding (default {MAX_PIXELS / 1e6:g} MP)")
    sp.add_argument("--dpi", type=int, default=DPI, help=f"PDF pages are rasterised at this resolution ({DPI})")


def common_options(sp: argparse.ArgumentParser) -> None:
    reading_options(sp)
    sp.add_argument("--time-limit", type=float, default=TIME_LIMIT,
                    help=f"solver seconds, more than 0 and at most {MAX_TIME_LIMIT:g} (default {TIME_LIMIT:g})")
    sp.add_argument("--debug-dir", type=Path, help="write each vision stage's picture here")
    sp.add_argument("-o", "--output", type=Path,
                    help="image to write (default beside the input: INPUT.solved.EXT, INPUT.checked.EXT or"
                         " INPUT.hint.EXT, EXT the input's format: jpg, png or webp; png for PDF pages)")
    sp.add_argument("--no-image", action="store_true", help="do not write an output image")


def several_options(sp: argparse.ArgumentParser, verb: str = "read", done: str = "read", more: str = "") -> None:
    """The options of a command that takes any number of inputs (solve, check, hint), each input
    `verb` ('solved'), several `done` at once ('solved')."""
    sp.add_argument("more", type=Path, nargs="*", default=[], metavar="INPUT",
                    help=f"more images, puzzle files, folders or PDFs ('-': standard input): each is {verb}"
                         " (a failed one does not stop the rest; the exit code is the first failure's)" + more)
    sp.add_argument("-r", "--recursive", action="store_true",
                    help="a folder's folders too: every picture and puzzle text below it (default: its top level)")
    sp.add_argument("--output-dir", type=Path,
                    help="write the output pictures here, named after their inputs (made if missing)")
    sp.add_argument("--jobs", type=int, default=0, help=f"inputs {done} at once (default: the number of cores)")


def hint_options(sp: argparse.ArgumentParser) -> None:
    """hint's own option."""
    sp.add_argument("--cells", type=int, default=HINT_CELLS,
                    help=f"how many empty cells to reveal (default {HINT_CELLS})")


def unset(sp: argparse.ArgumentParser, *groups: Callable[[argparse.ArgumentParser], None]) -> None:
    """Give `sp` the defaults of the options of `groups` that it lacks, as though they were not given."""
    held = {action.dest for action in sp._actions}
    for group in groups:
        alone = argparse.ArgumentParser(add_help=False)
        group(alone)
        sp.set_defaults(**{a.dest: a.default for a in alone._actions
                           if a.dest not in held and a.default is not argparse.SUPPRESS})


ANSWERS_LAST = ("; after one puzzle, a text file is {what} instead: one line of digits per row, '.' for blank"
                " (default: {default})")
EXAMPLES = {  # each command's help ends with these (and `kkvision` alone prints the first)
    "kkvision": "examples:\n"
                "  kkvision solve photo.jpg              solve it, draw the answer into photo.solved.jpg\n"
                "  kkvision check photo.jpg              are the answers written in the picture right?\n"
                "  kkvision hint photo.jpg --cells 2     reveal two cells, each with its reason\n"
                "  kkvision convert photo.jpg --to keen  the puzzle as text\n"
                "  kkvision serve --host 0.0.0.0         a web page for phones on this network\n"
                "  kkvision COMMAND -h                   a command's options",
    "solve": "examples:\n"
             "  kkvision solve photo.jpg                  answer printed, drawn into photo.solved.jpg\n"
             "  kkvision solve scans/ --output-dir out/   every picture of a folder, answers in out/\n"
             "  kkvision solve book.pdf --json            every page's puzzles as JSON Lines\n"
             "  kkvision solve photo.jpg --label B3=12+   a label read wrong, given",
    "check": "examples:\n"
             "  kkvision check photo.jpg            the answers written in the picture, checked\n"
             "  kkvision check photo.jpg mine.txt   your answers typed: a line of digits a row, '.' blank\n"
             "  kkvision check -r scans/ --json     every picture below scans/, a JSON record a puzzle",
    "hint": "examples:\n"
            "  kkvision hint photo.jpg              one cell revealed, with its reason\n"
            "  kkvision hint photo.jpg --cells 3    three\n"
            "  kkvision hint a.jpg b.jpg            a hint for each picture",
    "convert": "examples:\n"
               "  kkvision convert photo.jpg --to keen    the puzzle in Simon Tatham's Keen format\n"
               "  kkvision convert puzzle.txt --to json   a text puzzle in another format",
}


def _serve_parser(sub: Any) -> None:
    """`kkvision serve`: its options (the server itself is kkvision.serve, loaded only when run)."""
    w = sub.add_parser(
        "serve", help="a web page for phones (and its JSON API): photo in; answer, hint or check out",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Serve a web page (and POST /api/solve, /api/hint, /api/check) that reads a photo of a\n"
                    "KenKen, solves it, gives hints or checks your answers, drawn onto the picture.\n\n"
                    "From a phone on the same network: run it with --host 0.0.0.0 and open\n"
                    "http://THIS-MACHINE'S-ADDRESS:PORT/ on the phone (the address is printed at start).\n"
                    "It has no accounts: anyone who can reach the port can use it, so run it on a\n"
                    "trusted network, or behind a proxy that adds them.  Needs: pip install 'kkvision[serve]'.")
    loudness(w, default=argparse.SUPPRESS)
    w.add_argument("--host", default=HOST,
                   help=f"address to listen on (default {HOST}: this machine only; 0.0.0.0: every network)")
    w.add_argument("--port", type=int, default=PORT, help=f"port (default {PORT}; 0: any free one, printed)")
    w.add_argument("--workers", type=int, default=0, help="processes reading and solving (default: the number of cores)")
    w.add_argument("--queue", type=int, default=-1,
                   help=f"requests waiting for a worker before 503 + Retry-After (default {QUEUE_PER_WORKER} per worker)")
    upload = f"{MAX_UPLOAD / 1e6:g}MB"
    w.add_argument("--max-upload", default=upload, help=f"largest request body, refused with 413 (default {upload})")
    w.add_argument("--max-pixels", type=int, default=MAX_PIXELS,
                   help=f"refuse pictures declaring more pixels than this, from the header (413; default {MAX_PIXELS / 1e6:g} MP)")
    w.add_argument("--time-limit", type=float, default=TIME_LIMIT,
                   help=f"seconds one request may take in its worker (default {TIME_LIMIT:g}); past it: the exit-12 record")
    unset(w, common_options, several_options, hint_options)  # what _check_args and main's error record read


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the page and the API until Ctrl-C."""
    from .serve.config import ServeConfig, parse_size
    from .serve.server import run

    config = ServeConfig(args.host, args.port, args.workers, args.queue, parse_size(args.max_upload),
                         args.max_pixels, args.time_limit)
    return run(config, verbose=args.verbose)


class _Version(argparse.Action):
    """--version: the engines' versions are looked up only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(versions())
        parser.exit()


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

    def of(package: str) -> str:
        try:
            return version(package)
        except PackageNotFoundError:
            return "missing"

    from .vision import ocr

    return (f"kkvision {__version__} (OpenCV {cv2.__version__}, onnxruntime {of('onnxruntime')},"
            f" OR-Tools {of('ortools')}, tesseract {ocr.version() or 'not installed'})")


def _options(args: argparse.Namespace) -> Options:
    return Options(fmt=args.format, time_limit=args.time_limit,
                   debug_dir=args.debug_dir, ocr=READER_ALIASES.get(args.ocr, args.ocr),
                   max_pixels=args.max_pixels, puzzle=args.puzzle,
                   labels=tuple(parse_label(text) for text in args.label or ()),
                   in_part=args.command in commands.READ_IN_PART)


def _check_args(args: argparse.Namespace) -> None:
    """Refuse an impossible command line before any work (exit 2), or an output
    that cannot be written (exit 3)."""
    commands.check_time_limit(args.time_limit)
    commands.check_max_pixels(args.max_pixels)
    if args.cells < 1:
        raise UsageError("--cells must be 1 or more")
    if args.jobs < 0 or not 20 <= args.dpi <= 1200:
        raise UsageError("--jobs must be 0 (the number of cores) or more, and --dpi within 20..1200")
    commands.check_choice(args.puzzle, map(parse_label, args.label or ()))
    for option, folder in (("--output-dir", args.output_dir), ("--debug-dir", args.debug_dir)):
        if folder is not None:
            _writable_folder(option, folder)
    output = args.output
    if output is None:
        return
    if args.more:
        raise UsageError("-o names one output file; with several inputs use --output-dir")
    from .render import OUTPUT_FORMATS

    if output.suffix.lower() not in OUTPUT_FORMATS:
        raise UsageError(f"-o {output}: the picture is written as PNG, JPEG or WebP: name it "
                         + ", ".join(f"*{ext}" for ext in OUTPUT_FORMATS))
    folder = output.parent if str(output.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"-o {output}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OutputError(f"-o {output}: the folder {folder} cannot be written")
    if output.is_dir():
        raise OutputError(f"-o {output}: is a folder; name the picture file to write")


def _writable_folder(option: str, folder: Path) -> None:
    """The folder an option names, made when missing: refused (exit 14) before any work
    when it is a file, cannot be made, or cannot be written."""
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{option} {folder}: is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{option} {folder}: cannot make the folder: {exc.strerror or exc}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {folder}: the folder cannot be written")


def cmd_solve(args: argparse.Namespace) -> int:
    """Every input (files, folders, PDF and TIFF pages, standard input) solved;
    several in a process pool with a summary; the first failure's exit code."""
    sources, several = _sources(args)
    tasks = _tasks(args, sources, several)
    report = _open_report(args.report)
    batch = several  # several inputs: a summary at the end (one picture only when it held several puzzles)
    counts: Counter[str] = Counter()
    first_failure = 0
    done: set[str] = set()  # inputs with a record: a page's records share its input
    t0 = time.perf_counter()
    try:
        with _pool(args.jobs, len(tasks), several) as executor, \
                _progress(run_batch(tasks, executor), len(tasks), several and _bar_wanted(args)) as records:
            for rec in records:
                first_failure = first_failure or rec["exit_code"]
                counts["solved" if rec["ok"] else f"exit {rec['exit_code']}"] += 1
                several = several or rec["index"] is not None
                _show(args, rec, several)
                if report is not None:
                    report(rec)
                done.add(rec["input"])
    except KeyboardInterrupt:  # a solve cut short is no time-out
        log.warning("interrupted: %d of %d inputs done, %d puzzles solved", len(done), len(tasks), counts["solved"])
        return 130
    if batch or sum(counts.values()) > 1:
        _summary(len(tasks), counts, "solved", t0)
    return first_failure


def _tasks(args: argparse.Namespace, sources: list[Source], several: bool) -> list[Task]:
    """Each source's Task (solve's, check's and hint's): its reading options, where its picture goes,
    and where its debug pictures go (batch.reading): with several inputs, --debug-dir is the root of
    a folder per input (Task.debug_root); one alone writes into it."""
    opts = _options(args)
    debug_root = args.debug_dir if several else None
    if several:
        opts = replace(opts, debug_dir=None)
    return [Task(source, opts, not args.no_image, args.output, args.output_dir, debug_root, args.dpi)
            for source in sources]


@contextmanager
def _pool(jobs: int, inputs: int, several: bool) -> Iterator[ProcessPoolExecutor | None]:
    """The process pool of a run over several inputs (solve's, check's and hint's): `jobs` workers (0: one
    per core), no more than there are `inputs`, each started by _worker_start and its OpenCV on its share
    of the cores (_share_cores: this process's own count given back at the end); None, the inputs run
    here one after another, for one input or one job.  The workers leave Ctrl-C to this process: on it
    they are stopped at once (_stop) and the KeyboardInterrupt goes on to the caller, which says so."""
    cores = os.cpu_count() or 1
    jobs = min(jobs or cores, inputs)
    if not several or jobs <= 1:
        if several:
            _run_many()
        yield None
        return
    opencv_threads = _share_cores(max(1, cores // jobs))
    executor = ProcessPoolExecutor(jobs, initializer=_worker_start)
    try:
        yield executor
    except KeyboardInterrupt:
        _stop(executor)
        raise
    finally:
        executor.shutdown(cancel_futures=True)  # nothing left to do after _stop
        import cv2

        cv2.setNumThreads(opencv_threads)


def _sources(args: argparse.Namespace) -> tuple[list[Source], bool]:
    """The sources named (a folder's pictures and texts, with -r those below it too; each PDF or
    TIFF page; kkvision's own outputs among several skipped), and whether they are several (more
    than one, or a folder or PDF named): an empty folder alone is its one error line (exit 3)."""
    sources = expand([args.input, *args.more], args.dpi, args.recursive)
    if all(src.kind == "empty" for src in sources):  # nothing to read at all: one line, exit 3, no summary
        load(sources[0], args.max_pixels)  # raises its InputError
    several = len(sources) > 1 or (str(args.input) != "-" and args.input.is_dir()) or args.input.suffix.lower() == ".pdf"
    if several and args.output is not None:
        raise UsageError("-o names one output file; with several inputs use --output-dir")
    return sources, several


def _summary(inputs: int, counts: Counter[str], answered: str, t0: float) -> None:
    """The last line on stderr of a run over several inputs or puzzles: how many, how many
    `answered` (counts' other keys: 'exit N', the refusals), how long."""
    refused = ", ".join(f"{n} with {k}" for k, n in sorted(counts.items()) if k != answered) or "none"
    log.warning("%d inputs, %d puzzles: %d %s; refused: %s; %.1f s", inputs, sum(counts.values()),
                counts[answered], answered, refused, time.perf_counter() - t0)


_BAR: list[Any] = []  # the progress bar showing now, if any: _say writes every line through it


def _bar_wanted(args: argparse.Namespace) -> bool:
    """A progress bar only on a terminal (never in a pipe or a log), and not with -q."""
    return sys.stderr.isatty() and not args.quiet


@contextmanager
def _progress(items: Iterable[T], total: int, shown: bool) -> Iterator[Iterable[T]]:
    """`items`, counted by a progress bar on stderr when `shown`.  While it shows, every line
    (results on stdout, messages and kkvision's log on stderr) is written through it: the bar is
    cleared, the line written whole, the bar drawn again, so no result shares a line with it."""
    if not shown:
        yield items
        return
    from tqdm import tqdm
    from tqdm.contrib.logging import logging_redirect_tqdm

    with tqdm(items, total=total, unit="input", file=sys.stderr, leave=False) as bar, \
            logging_redirect_tqdm([log], tqdm_class=tqdm):
        _BAR.append(bar)
        try:
            yield bar
        finally:
            _BAR.remove(bar)


def _say(text: str, err: bool = False) -> None:
    """One line (or lines) of output: on stdout a result, on stderr (`err`) a message; through the
    progress bar while one shows (_progress)."""
    stream = sys.stderr if err else sys.stdout
    if _BAR:
        _BAR[0].write(text, file=stream)
    else:
        print(text, file=stream)


def _share_cores(threads: int) -> int:
    """OpenCV's threads set to a worker's share of the cores in this process, before the pool forks its
    workers, which keep the setting: each worker's OpenCV work, and its onnxruntime sessions (nets.py), on
    its own share rather than on every core (2 workers of 2 threads each on 2 cores spent ~5% more CPU on the same pictures, in a batch that is
    CPU-bound).  Set here, not in the worker: cv2.setNumThreads in a child forked from a process whose
    OpenCV threads had run waits for threads the child does not have (a batch run from a process that read
    pictures before, as the tests do, hung).  Returns the count it replaced."""
    import cv2

    old = cv2.getNumThreads()
    cv2.setNumThreads(threads)
    return old


def _worker_start() -> None:
    """A batch worker: Ctrl-C is the batch's to handle; the networks run many times (_run_many)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _run_many()


def _run_many() -> None:
    """This process reads many pictures: the networks run with onnxruntime, whose passes are quicker
    once its start (~50 ms) is paid (vision/nets.py), on as many threads as OpenCV is set to use (a
    batch's worker: its share of the cores, _share_cores)."""
    from .vision import nets

    nets.use_runtime()


def _stop(executor: ProcessPoolExecutor) -> None:
    """The pool's queued work dropped and its workers ended now (an interrupted batch)."""
    processes = list(getattr(executor, "_processes", {}).values())  # the stdlib keeps them there
    # shutdown(wait=False) forgets the pool's manager thread, so it is taken first
    manager = getattr(executor, "_executor_manager_thread", None)  # the stdlib keeps it there
    executor.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        proc.terminate()
    for proc in processes:
        proc.join(5)
    # the pool's manager thread closes its wake-up pipe as it ends; at exit the stdlib writes to that
    # pipe unless closed, so exit must not race the closing (a traceback, "Bad file descriptor")
    if manager is not None:
        manager.join(5)


def _show(args: argparse.Namespace, rec: dict[str, Any], several: bool) -> None:
    """One puzzle's outcome: the grid or its JSON record on stdout, notes and errors on stderr."""
    label = rec["input"] + (f" #{rec['index']}" if rec["index"] is not None else "")
    many = several or rec["index"] is not None
    where = f"{label}: " if many else ""
    if many and not args.json:
        _say(f"== {label}")
    if not rec["ok"]:
        _say(f"kkvision: error: {_named(where, rec['input'], rec['error'])}", err=True)
    for note in rec["notes"] or ():
        log.warning("%s%s", where, note)
    if args.json:
        _say(dump(rec, many))
    elif rec["ok"]:
        _say(grid_text(tuple(tuple(row) for row in rec["solution"])))
    if rec["image"] and rec["index"] in (None, 1):
        log.warning("%ssolution drawn into %s", f"{rec['input']}: " if several else "", rec["image"])


def _named(where: str, name: str, message: str) -> str:
    """An error's message after `where` ('NAME: ', 'NAME #2: ' or ''), unless it names its input
    itself ('x.png: no such file')."""
    return message if message.startswith(f"{name}: ") else where + message


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


def _source(args: argparse.Namespace) -> Source:
    """The one picture or text that convert takes."""
    sources = expand([args.input], args.dpi)
    if len(sources) != 1:
        raise UsageError(f"{args.input}: {len(sources)} pictures or pages; {args.command} takes one"
                         " (solve, check and hint take any number)")
    return sources[0]


def _each(args: argparse.Namespace, name: str, index: int | None, several: bool = False) -> str:
    """Before the output of one puzzle (input `name`, `index` its number on a page of several):
    its header when there are several inputs or puzzles; '' or 'NAME: ' / 'NAME #K: ' for messages."""
    if index is None and not several:
        return ""
    label = name + (f" #{index}" if index is not None else "")
    if not args.json:
        _say(f"== {label}")
    return f"{label}: "


def _lines(puzzles: int, several: bool = False) -> bool:
    """--json prints JSON Lines (a record a line) when there is more than one record (several
    inputs, or a page of several `puzzles`), else one indented record."""
    return several or puzzles > 1


def _failed(args: argparse.Namespace, rec: dict[str, Any], where: str, lines: bool) -> int:
    """A puzzle that could not be read or solved: its error on stderr (and its record `rec` with
    --json, on a line of its own when `lines`, _lines).  Its exit code."""
    _say(f"kkvision: error: {where}{rec['error']}", err=True)
    if args.json:
        _say(dump(rec, lines))
    return int(rec["exit_code"])


def _answers_apart(args: argparse.Namespace) -> None:
    """check's and hint's names: the second of two is the user's answers (or progress) when it is
    a text file (`kkvision check puzzle.txt mine.txt`), as `args.answers`; the rest are inputs."""
    args.answers = None
    if len(args.more) == 1 and _is_text_file(args.more[0]):
        args.answers = args.more.pop()


def _is_text_file(path: Path) -> bool:
    """Not a picture, a PDF or a folder (nor '-'), by its name and, for a regular file, its first bytes."""
    from .sources import IMAGE_MAGIC, PICTURES

    if str(path) == "-" or path.is_dir() or path.suffix.lower() in PICTURES | {".pdf"}:
        return False
    if not path.is_file():
        return True  # missing, or a device: refused as the answers file it is named as
    try:
        with open(path, "rb") as fh:
            return not fh.read(8).startswith((*IMAGE_MAGIC, b"%PDF"))
    except OSError:
        return True


def cmd_check(args: argparse.Namespace) -> int:
    """The user's answers (a text file, or read from the picture's cells) against each puzzle's solution."""
    return _over_sources(args)


def cmd_hint(args: argparse.Namespace) -> int:
    """For each puzzle, a few cells that follow from the clues by the simplest reasoning, with the reason for each."""
    return _over_sources(args)


ANSWERED = {"check": (0, 11, 15), "hint": (0,)}  # a puzzle's exit codes that are the command's answer
DRAWN = {  # where check's and hint's picture went, said on stderr
    "check": "checked picture (wrong cells circled, blanks boxed, cells not judged marked ?) written to %s",
    "hint": "hint drawn into %s",
}


@dataclass(frozen=True)
class _Asked:
    """check or hint of one input, as a batch's worker (or this process) runs it (_answer): unlike
    the command line's Namespace, it can be sent to a worker.  `task`: the source, its reading
    options and where its picture and debug pictures go (solve's Task, _tasks); `several`: one of
    several inputs, whose failure to be read at all is its record rather than the run's error."""

    command: str  # "check" or "hint"
    task: Task
    several: bool
    cells: int = HINT_CELLS  # hint's --cells
    typed: Path | None = None  # the answers (check) or progress (hint) file: one input only


@dataclass(frozen=True)
class _Said:
    """One puzzle of check or hint as this process prints it (_show_answered): its record, the notes
    said of it on stderr, and the text shown for it without --json (None: it failed, its record's error)."""

    record: dict[str, Any]
    notes: tuple[str, ...] = ()
    text: str | None = None


@dataclass(frozen=True)
class _Answered:
    """check or hint of one input, done (_answer): each puzzle _Said and the picture written; or,
    when nothing of the input could be read, `failed`, its one record (commands.failure)."""

    said: tuple[_Said, ...] = ()
    image: Path | None = None
    failed: dict[str, Any] | None = None


def _answer(asked: _Asked) -> _Answered:
    """One input read, checked or hinted (commands.check|hint) and its picture written, in a batch's
    worker or in this process: what this process prints of it, worked out where the work was done
    (the picture never travels).  An input of several that cannot be read is its failure record;
    one alone raises its error, as any command does."""
    task = asked.task
    typed = partial(read_text, asked.typed) if asked.typed is not None else None  # read when wanted
    def command(page: Page) -> Work[Any]:
        return (commands.check(page, typed, WORDING) if asked.command == "check"
                else commands.hint(page, asked.cells, typed, WORDING))

    try:
        work, image = worked(task, command)
    except KkvisionError as exc:
        if not asked.several:
            raise
        return _Answered(failed=commands.failure(asked.command, task.source.name, exc))
    return _Answered(tuple(map(_said, work.done, work.records(image))), image)


def _said(done: Done[Any], rec: dict[str, Any]) -> _Said:
    """One puzzle of check or hint, made ready to print: check's verdict under the grid, its wrong
    cells marked; hint's cells, each with its reason."""
    made, result = done.made, done.outcome.result
    if made is None or result is None:
        return _Said(rec)
    if isinstance(made, Judged):
        wrong, unsure = made.check.wrong, made.unsure
        return _Said(rec, tuple(result.notes), (
            grid_text(made.check.answers, set(wrong), set(unsure)) + "\n"
            + commands.verdict(wrong, made.blank, unsure, made.pencil, left_open=made.left_open)
            + (" (wrong cells are marked with !)" if wrong else "")
            + ("\nno wrong cell found among those read, but not every cell could be judged: check the cells"
               " marked ? yourself, or type your answers in a file: kkvision check PICTURE ANSWERS"
               if made.verdict == ExitCode.ANSWERS_UNSURE else "")))
    lines = [f"{cell_name(h.cell)} is wrong: {h.reason}" if h.wrong else f"{cell_name(h.cell)} = {h.digit}: {h.reason}"
             for h in made.hints]
    if not any(not h.wrong for h in made.hints):
        lines.append("no empty cell follows from the clues by the simplest reasoning")
    return _Said(rec, tuple(made.notes(result.notes)), "\n".join(lines))


def _over_sources(args: argparse.Namespace) -> int:
    """check's or hint's work on every input named (_answer), several at once in a process pool
    (--jobs, as solve's) or one after another, each printed in the inputs' order (_show_answered);
    with several, a failed input does not stop the rest, and a summary ends the run.  The exit
    code: the first that is not 0."""
    sources, several = _sources(args)
    if args.answers is not None and several:
        raise UsageError(f"{args.answers}: typed answers are for one puzzle; for several pictures the answers"
                         " written in each are read")
    asked = [_Asked(args.command, task, several, args.cells, args.answers)
             for task in _tasks(args, sources, several)]
    counts: Counter[str] = Counter()
    code, done, t0 = 0, 0, time.perf_counter()
    try:
        with _pool(args.jobs, len(asked), several) as executor, \
                _progress(in_order(_answer, asked, executor), len(asked), several and _bar_wanted(args)) as answers:
            for answered in answers:
                failure = _show_answered(args, answered, several, counts)  # shown whatever came before
                code = code or failure
                done += 1
    except KeyboardInterrupt:
        log.warning("interrupted: %d of %d inputs done", done, len(sources))
        return 130
    if several or sum(counts.values()) > 1:
        _summary(len(sources), counts, f"{args.command}ed", t0)
    return code


def _show_answered(args: argparse.Namespace, answered: _Answered, several: bool, counts: Counter[str]) -> int:
    """check's or hint's work on one input printed: for each puzzle its header (several inputs, or a
    page of several), its notes on stderr, and its record (--json) or its text, or its error, each
    counted in `counts`; then where the picture went.  An input that could not be read: its header,
    its error and its record.  The exit code: the first puzzle's that is not 0."""
    if answered.failed is not None:
        rec, name = answered.failed, answered.failed["input"]
        if not args.json:
            _say(f"== {name}")
        _say(f"kkvision: error: {_named(f'{name}: ', name, rec['error'])}", err=True)
        if args.json:
            _say(dump(rec, True))
        counts[f"exit {rec['exit_code']}"] += 1
        return int(rec["exit_code"])
    code, lines = 0, _lines(len(answered.said), several)
    for said in answered.said:
        rec = said.record
        where = _each(args, rec["input"], rec["index"], several)
        counts[f"{args.command}ed" if rec["exit_code"] in ANSWERED[args.command] else f"exit {rec['exit_code']}"] += 1
        if said.text is None:
            code = code or _failed(args, rec, where, lines)
            continue
        for note in said.notes:
            log.warning("%s%s", where, note)
        _say(dump(rec, lines) if args.json else said.text)
        code = code or rec["exit_code"]
    if answered.image:
        log.warning(DRAWN[args.command], answered.image)
    return code


def cmd_convert(args: argparse.Namespace) -> int:
    """Each puzzle in another text format; a refused picture's puzzle as its labels were read."""
    source = _source(args)
    with reading(Task(source, _options(args), dpi=args.dpi)) as opts:  # its debug pictures as solve's of one
        page = read_source(source, opts, args.dpi)
    code = 0
    for outcome in page.outcomes:
        where = _each(args, page.name, outcome.index)
        done = commands.convert(page, outcome, args.to)
        converted = done.made
        if converted is None:
            code = code or _failed(args, done.record("convert", page.name), where, _lines(len(page.outcomes)))
            continue
        if converted.warning:
            log.warning("%s", converted.warning)
        if args.json:
            print(dump(done.record("convert", page.name), _lines(len(page.outcomes))))
        else:
            print(converted.text, end="")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # `kkvision` alone: what it does and how to start
        parser.print_help()
        return int(ExitCode.OK)
    _log_to_stderr(logging.INFO if args.verbose else logging.ERROR if args.quiet else logging.WARNING)
    try:
        if args.command in ("check", "hint"):
            _answers_apart(args)
        _check_args(args)
        return int({"solve": cmd_solve, "check": cmd_check, "convert": cmd_convert, "hint": cmd_hint,
                    "serve": cmd_serve}[args.command](args))
    except KkvisionError as exc:
        if args.verbose:
            traceback.print_exc()
        print(f"kkvision: error: {exc.message}", file=sys.stderr)
        if args.json:  # the same record, for the failure, on stdout (serve's json is False: it has no input)
            print(dump(commands.failure(args.command, str(args.input), exc), False))
        return int(exc.exit_code)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of our output went away (`| head -1`): end quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        except OSError:
            pass
        return BROKEN_PIPE
    except Exception as exc:  # a bug: say so plainly
        if args.verbose:
            traceback.print_exc()
        print(f"kkvision: internal error: {type(exc).__name__}: {exc} (run with -v for details)",
              file=sys.stderr)
        return int(ExitCode.SOFTWARE)


if __name__ == "__main__":
    sys.exit(main())
