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
from .pipeline import Options, Result, is_image, run_data, solve_page
from .report import labels_json, record
from .vision.picture import decode


@dataclass(frozen=True)
class Task:
    source: Source
    opts: Options
    write_image: bool = True
    output: Path | None = None  # -o: this exact file (one input only)
    output_dir: Path | None = None  # --output-dir: outputs there, named after their inputs
    debug_root: Path | None = None  # --debug-dir with several inputs: a subfolder per input
    dpi: int = DEFAULT_DPI


def solve_source(task: Task) -> list[dict[str, Any]]:
    """One source read and solved: a record per puzzle in it (in reading order;
    one for a text, or for a failure before any puzzle was found), all the
    answers drawn into one output picture."""
    t0 = time.perf_counter()
    name = task.source.name
    try:
        outcomes, picture = _solve(task)
    except KkvisionError as exc:
        return [dict(record("solve", name, exit_code=exc.exit_code, error=exc.message),
                     seconds=round(time.perf_counter() - t0, 3))]
    solved = [r for r in outcomes if isinstance(r, Result)]
    image = None
    if picture is not None and task.write_image and solved:
        try:
            image = _write(task, solved, picture)
        except KkvisionError as exc:
            return [dict(record("solve", name, exit_code=exc.exit_code, error=exc.message),
                         seconds=round(time.perf_counter() - t0, 3))]
    recs = []
    for k, outcome in enumerate(outcomes, 1):
        where: dict[str, Any] = {}
        if picture is not None and len(outcomes) > 1:
            where["index"] = k
        if isinstance(outcome, KkvisionError):
            recs.append(record("solve", name, exit_code=outcome.exit_code, error=outcome.message, **where))
            continue
        if picture is not None:
            xs, ys = [x for x, _ in outcome.corners or ()], [y for _, y in outcome.corners or ()]
            where.update(labels=labels_json(outcome.labels), odds=odds_times(outcome.odds), image=str(image) if image
                         else None, box=[round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))])
        recs.append(record("solve", name, puzzle=outcome.puzzle, solution=outcome.solution, unique=True,
                           notes=list(outcome.notes), **where))
    seconds = round(time.perf_counter() - t0, 3)
    return [dict(rec, seconds=seconds) for rec in recs]


def run_batch(tasks: Iterable[Task], executor: Any = None) -> Iterator[dict[str, Any]]:
    """Every task's records, in order; in `executor` (anything whose submit(fn, arg)
    returns a future with .result()) when given, else one after another here."""
    if executor is None:
        for task in tasks:
            yield from solve_source(task)
        return
    futures = [executor.submit(solve_source, task) for task in tasks]
    for future in futures:
        yield from future.result()


def odds_times(nats: float | None) -> float | None:
    """Odds in nats as 'times more probable' (None: no rival found within the search)."""
    import math

    return None if nats is None or math.isinf(nats) else round(math.exp(nats), 1)


def _solve(task: Task) -> tuple[list[Result | KkvisionError], Any]:
    """The source's puzzles (a text: one; a picture: every one on it) and its picture."""
    opts = task.opts
    if task.debug_root is not None:
        opts = replace(opts, debug_dir=task.debug_root / re.sub(r"[^\w.-]+", "_", task.source.name).strip("_"))
    loaded = load(task.source, task.dpi)
    path = task.source.path or Path("stdin")
    if isinstance(loaded, bytes) and not is_image(path, loaded):
        return [_unique(run_data(path, loaded, opts)[0])], None
    picture = decode(path, loaded, opts.max_pixels) if isinstance(loaded, bytes) else loaded
    return [r if isinstance(r, KkvisionError) else _unique(r) for r in
            solve_page(picture, opts, task.source.name)], picture


def _unique(result: Result) -> Result:
    if not result.unique:
        assert result.other is not None
        differ = sum(a != b for ra, rb in zip(result.solution, result.other) for a, b in zip(ra, rb))
        raise Ambiguous(f"this puzzle has more than one solution (two of them differ in {differ} cells);"
                        " if it was read from an image, check the cages and clues with --debug-dir")
    return result


def _write(task: Task, results: list[Result], picture: Any) -> Path | None:
    from .render import draw_solution, save_image

    drawn = picture
    for result in results:
        drawn = draw_solution(drawn, result, result.solution)
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
