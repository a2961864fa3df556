"""Many puzzles: each source solved as `kkvision solve` solves one, in any
concurrent.futures-style executor (a process pool, or Dask's distributed
Client), with records in input order.

    from kkvision.batch import Task, run_batch
    from kkvision.inputs import expand
    tasks = [Task(source, Options()) for source in expand([Path("scans/")])]
    for rec in run_batch(tasks, executor):   # executor: anything with .submit(fn, arg) -> future
        print(rec["input"], rec["exit_code"], rec["solution"])

A record is the JSON record of README's "JSON output", plus `seconds`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .errors import Ambiguous, KkvisionError, OutputExists
from .inputs import DEFAULT_DPI, Source, load
from .pipeline import Options, Result, run_data, solve_picture
from .report import labels_json, record


@dataclass(frozen=True)
class Task:
    source: Source
    opts: Options
    write_image: bool = True
    output: Path | None = None  # -o: this exact file (one input only)
    output_dir: Path | None = None  # --output-dir: outputs there, named after their inputs
    debug_root: Path | None = None  # --debug-dir with several inputs: a subfolder per input
    dpi: int = DEFAULT_DPI


def solve_source(task: Task) -> dict[str, Any]:
    """One source read, solved, and drawn into its output picture: its record."""
    t0 = time.perf_counter()
    name = task.source.name
    try:
        result, picture = _solve(task)
        image = _write(task, result, picture) if picture is not None and task.write_image else None
        extra: dict[str, Any] = {}
        if picture is not None:
            extra = {"labels": labels_json(result.labels), "odds": odds_times(result.odds)}
        rec = record("solve", name, puzzle=result.puzzle, solution=result.solution, unique=True,
                     notes=list(result.notes), image=str(image) if image else None, **extra)
    except KkvisionError as exc:
        rec = record("solve", name, exit_code=exc.exit_code, error=exc.message)
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    return rec


def run_batch(tasks: Iterable[Task], executor: Any = None) -> Iterator[dict[str, Any]]:
    """Every task's record, in order; in `executor` (anything whose submit(fn, arg)
    returns a future with .result()) when given, else one after another here."""
    if executor is None:
        yield from map(solve_source, tasks)
        return
    futures = [executor.submit(solve_source, task) for task in tasks]
    for future in futures:
        yield future.result()


def odds_times(nats: float | None) -> float | None:
    """Odds in nats as 'times more probable' (None: no rival found within the search)."""
    import math

    return None if nats is None or math.isinf(nats) else round(math.exp(nats), 1)


def _solve(task: Task) -> tuple[Result, Any]:
    opts = task.opts
    if task.debug_root is not None:
        opts = replace(opts, debug_dir=task.debug_root / re.sub(r"[^\w.-]+", "_", task.source.name).strip("_"))
    loaded = load(task.source, task.dpi)
    if isinstance(loaded, bytes):
        result, picture = run_data(task.source.path or Path("stdin"), loaded, opts)
    else:
        result, picture = solve_picture(loaded, opts, task.source.name), loaded
    if not result.unique:
        assert result.other is not None
        differ = sum(a != b for ra, rb in zip(result.solution, result.other) for a, b in zip(ra, rb))
        raise Ambiguous(f"this puzzle has more than one solution (two of them differ in {differ} cells);"
                        " if it was read from an image, check the cages and clues with --debug-dir")
    return result, picture


def _write(task: Task, result: Result, picture: Any) -> Path | None:
    from .render import draw_solution, save_image

    drawn = draw_solution(picture, result, result.solution)
    if task.output is not None:
        save_image(drawn, task.output)
        return task.output
    src = task.source
    if src.path is None and task.output_dir is None:
        return None  # standard input: only with -o or --output-dir
    folder = task.output_dir or (src.path.parent if src.path else Path("."))
    stem = src.path.stem if src.path else "stdin"
    if src.page is not None:
        stem += f"-p{src.page}"
    for _ in range(100):  # another worker may take the same free name first: take the next
        out = free_name(folder, stem, "solved")
        try:
            save_image(drawn, out)
            return out
        except OutputExists:
            if not out.exists():
                raise
    raise OutputExists(f"{folder}: could not find a free name for {stem}.solved.png")


def free_name(folder: Path, stem: str, kind: str) -> Path:
    """folder/stem.<kind>.png, or stem.<kind>-2.png ... if that exists: never overwrite."""
    candidate = folder / f"{stem}.{kind}.png"
    k = 2
    while candidate.exists():
        candidate = folder / f"{stem}.{kind}-{k}.png"
        k += 1
        if k > 10_000:
            raise OutputExists(f"{folder}: too many {stem}.{kind}-N.png files already")
    return candidate
