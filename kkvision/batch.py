"""Many puzzles: each source solved as `kkvision solve` solves one, in any
concurrent.futures-style executor (a process pool, or Dask's distributed
Client), with records in input order.

    from kkvision.batch import Task, run_batch
    from kkvision.sources import expand
    tasks = [Task(source, Options()) for source in expand([Path("scans/")])]
    for rec in run_batch(tasks, executor):   # executor: anything with .submit(fn, arg) -> future
        print(rec["input"], rec["exit_code"], rec["solution"])

A record is the JSON record of README's "JSON output", plus `seconds`.
This module also holds the one writer of output pictures (write_picture), the
one place that says where an input's debug pictures go (reading, debug_folder),
and in_order, which runs check's and hint's inputs (cli.py) as run_batch runs solve's.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from . import commands
from .commands import Work
from .defaults import DPI
from .errors import KkvisionError, OutputError, OutputExists
from .pipeline import Options, Page, read_source
from .sources import PICTURES, Source
from .vocab import DEBUG_PICTURES, DEBUG_PUZZLE, output_name

A = TypeVar("A")  # in_order's items
R = TypeVar("R")  # and what its work makes of each
W = TypeVar("W")  # what a command makes of each puzzle (worked)


@dataclass(frozen=True)
class Task:
    source: Source
    opts: Options
    write_image: bool = True
    output: Path | None = None  # -o: this exact file (one input only)
    output_dir: Path | None = None  # --output-dir: outputs there, named after their inputs
    debug_root: Path | None = None  # --debug-dir with several inputs: a new subfolder per input (debug_folder)
    dpi: int = DPI


def solve_source(task: Task) -> list[dict[str, Any]]:
    """One source read and solved: a record per puzzle in it (in reading order;
    one for a text, or for a failure before any puzzle was found), all the
    answers drawn into one output picture."""
    t0 = time.perf_counter()
    name = task.source.name
    try:
        work, image = worked(task, commands.solve)
    except KkvisionError as exc:
        return [dict(commands.failure("solve", name, exc), seconds=round(time.perf_counter() - t0, 3))]
    seconds = round(time.perf_counter() - t0, 3)
    return [dict(rec, seconds=seconds) for rec in work.records(image)]


def worked(task: Task, command: Callable[[Page], Work[W]]) -> tuple[Work[W], Path | None]:
    """A task's source read and the `command`'s work done on it (commands.solve, check or hint of its
    Page), its output picture written: refused before any work when it could not be written beside the
    input (writable_beside), read with its debug pictures where `reading` says.  Raises what the
    reading or the writing raised.  Run where the work is done (solve's and check's and hint's workers)."""
    if task.write_image and task.output is None:
        writable_beside(task.source, task.output_dir)
    with reading(task) as opts:
        work = command(read_source(task.source, opts, task.dpi))
    return work, write_picture(work, task.source, task.output, task.output_dir) if task.write_image else None


@contextmanager
def reading(task: Task) -> Iterator[Options]:
    """The options to read a task's source with (solve's here, check's and hint's in cli._answer):
    its own, the folder of its debug pictures chosen by debug_folder when --debug-dir is given
    (task.debug_root with several inputs, opts.debug_dir for one alone).  A folder made for them
    that the reading left empty (a puzzle text, an input that could not be read) is taken away."""
    opts = task.opts
    root = task.debug_root if task.debug_root is not None else opts.debug_dir
    if root is None:
        yield opts
        return
    folder = debug_folder(root, task.source.name, alone=task.debug_root is None)
    try:
        yield replace(opts, debug_dir=folder)
    finally:
        if folder != root:
            with suppress(OSError):  # not empty: the pictures are in it
                folder.rmdir()


def debug_folder(root: Path, name: str, alone: bool = False) -> Path:
    """Where the debug pictures of input `name` go (--debug-dir `root`), never over a file: an input
    `alone` straight into `root`, unless it holds debug pictures already (holds_debug: an earlier
    run's, or files of the user's of those names); else, as each of several inputs, into a new
    folder root/NAME (NAME: the input's name made a file name; NAME-2, NAME-3 ... when that is
    there), made here, so that no other input of the run, in any worker, takes it too."""
    if alone and not holds_debug(root):
        return root
    stem = re.sub(r"[^\w.-]+", "_", name).strip("_")
    if stem in ("", ".", ".."):
        stem = "input"
    for k in range(1, 10_001):
        folder = root / (stem if k == 1 else f"{stem}-{k}")
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"--debug-dir: cannot make the folder {folder}: {exc.strerror or exc}") from None
        return folder
    raise OutputExists(f"--debug-dir {root}: too many {stem}-N folders already")


def holds_debug(folder: Path) -> bool:
    """Whether `folder` holds debug pictures (DEBUG_PICTURES, or a page's puzzle-K folders), which the
    next ones would go over; one that cannot be listed is taken to."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return any(name in DEBUG_PICTURES or DEBUG_PUZZLE.match(name) for name in names)


def run_batch(tasks: Iterable[Task], executor: Any = None) -> Iterator[dict[str, Any]]:
    """Every task's records, in order; in `executor` (anything whose submit(fn, arg)
    returns a future with .result()) when given, else one after another here."""
    for records in in_order(solve_source, tasks, executor):
        yield from records


def in_order(work: Callable[[A], R], items: Iterable[A], executor: Any = None) -> Iterator[R]:
    """work(item) for every item, in the items' order (solve's tasks, and check's and hint's
    inputs in cli.py): in `executor` when given, every item submitted at once so that no worker
    waits for this process to take a result; else one after another here, each when asked for."""
    if executor is None:
        yield from map(work, items)
        return
    futures = [executor.submit(work, item) for item in items]
    for future in futures:
        yield future.result()


def write_picture(work: Work[Any], source: Source, output: Path | None = None,
                  output_dir: Path | None = None) -> Path | None:
    """A command's picture: the page's picture with its drawings (solve's answers, check's
    marks, hint's cells), written as -o, or into --output-dir, or beside the input as
    INPUT.<kind>.EXT in the input's format (output_suffix), never over a file; None for a
    text, when nothing was drawn, or standard input with nowhere named."""
    picture, drawings, kind = work.page.picture, list(work.drawings), work.picture
    if picture is None or not drawings:
        return None
    from .render import draw, save_image

    if output is not None:
        save_image(draw(picture, drawings), output)
        return output
    if source.path is None and output_dir is None:
        return None  # standard input, bytes: only with -o or --output-dir
    folder = output_dir or (source.path.parent if source.path else Path("."))
    stem = (source.path.stem if source.path else "stdin") + (f"-p{source.page}" if source.page is not None else "")
    drawn = draw(picture, drawings)
    for _ in range(100):  # another worker may take the same free name first: take the next
        out = free_name(folder, stem, kind, output_suffix(source))
        try:
            save_image(drawn, out)
            return out
        except OutputExists:
            if not out.exists():
                raise
    raise OutputExists(f"{folder}: could not find a free name for {output_name(stem, kind, 1, output_suffix(source))}")


def free_name(folder: Path, stem: str, kind: str, suffix: str = ".png") -> Path:
    """folder/stem.<kind>.png, or stem.<kind>-2.png ... if that exists: never overwrite."""
    for k in range(1, 10_001):
        candidate = folder / output_name(stem, kind, k, suffix)
        if not candidate.exists():
            return candidate
    raise OutputExists(f"{folder}: too many {output_name(stem, kind, 2, suffix).replace('-2', '-N')} files already")


# the first bytes of the picture formats an answer picture is written in, by file name ending
MAGIC = {".jpg": (b"\xff\xd8\xff",), ".webp": (b"RIFF",), ".png": (b"\x89PNG",)}


def output_suffix(source: Source) -> str:
    """The answer picture's format when no -o names one: the input's own (a JPEG
    photo gives a JPEG at high quality, quick to write and a tenth of a PNG's
    size; a PNG screenshot a PNG, its sharp edges kept), PNG for PDF and TIFF
    pages and anything else."""
    if source.kind in ("pdf", "tiff"):
        return ".png"
    if source.path is not None:
        ext = source.path.suffix.lower()
        return ".jpg" if ext in (".jpg", ".jpeg") else ".webp" if ext == ".webp" else ".png"
    head = (source.data or b"")[:4]
    return next((ext for ext, magics in MAGIC.items() if head.startswith(magics)), ".png")


def writable_beside(source: Source, output_dir: Path | None) -> None:
    """Refuse (exit 14) before any work a picture input whose answer picture would be
    written beside it in a folder that cannot be written."""
    if output_dir is not None or source.path is None:
        return
    if source.kind not in ("pdf", "tiff") and source.path.suffix.lower() not in PICTURES:
        return  # a puzzle text: no picture is drawn
    folder = source.path.parent
    if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{folder} cannot be written: the answer picture goes beside the input; name another"
                          " folder with --output-dir (or -o FILE), or give --no-image")
