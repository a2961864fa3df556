"""Image -> Puzzle: decode, find the grid, the cages, the clues; check with the solver."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import GridNotFound, KkvisionError
from ..puzzle import Cage, Puzzle
from ..solver import Solution, time_budget
from . import ocr
from .agree import agree_with_labels
from .borders import check_borders
from .cages import CageLayout, find_cages
from .clues import ClueReading, clue_for, given_labels, read_cells, read_clues
from .grid import GridGeometry, find_grid, find_grids
from .picture import decode
from .reading import LabelDecision, resolve

if TYPE_CHECKING:
    from ..pipeline import Options

log = logging.getLogger("kkvision")


@dataclass(frozen=True)
class Reading:
    geometry: GridGeometry
    layout: CageLayout
    clues: tuple[ClueReading, ...]
    puzzle: Puzzle
    solution: Solution
    notes: tuple[str, ...]
    labels: tuple[LabelDecision, ...]  # per cage: what was read and what the answer uses
    odds: float  # nats by which the answer beats the likeliest reading with another solution


def read_image(path: Path, data: bytes, opts: Options, trace: dict | None = None
               ) -> tuple[np.ndarray, Reading]:
    """The picture in the file's bytes and what was read from it.  `trace`,
    when given, gets each stage's result as soon as it exists (benchmarks
    score stages even when a later stage fails)."""
    image = decode(path, data, opts.max_pixels)
    return image, read_picture(image, str(path), opts, trace)


def read_picture(image: np.ndarray, name: str, opts: Options, trace: dict | None = None) -> Reading:
    """What was read from a decoded BGR (or grey) picture of one puzzle (the
    largest grid in it); `name` is for messages."""
    geom, square = find_grid(image)
    return read_grid(image, geom, square, name, opts, trace)


def read_page(image: np.ndarray, name: str, opts: Options) -> list[Reading | KkvisionError]:
    """Every puzzle in the picture, in reading order: what was read from each,
    or why it could not be (GridNotFound when there is no puzzle at all)."""
    grids = find_grids(image)
    if not grids:
        raise GridNotFound("no puzzle grid found: no square frame with evenly spaced lines for 3..9 cells"
                           " (crop closer, or photograph the grid straight on)")
    out: list[Reading | KkvisionError] = []
    for k, (geom, square) in enumerate(grids, 1):
        one = opts
        if len(grids) > 1 and opts.debug_dir is not None:
            one = replace(opts, debug_dir=opts.debug_dir / f"puzzle-{k}")
        try:
            out.append(read_grid(image, geom, square, f"{name} #{k}" if len(grids) > 1 else name, one))
        except KkvisionError as exc:
            out.append(exc)
    return out


def _cages_and_labels(square: np.ndarray, geom: GridGeometry, opts: Options, trace: dict
                      ) -> tuple[CageLayout, dict, tuple[ClueReading, ...]]:
    """The cage layout (agreed with where labels are), every cell's label
    reading, and each cage's label (the user's --label where given)."""
    layout, _ = find_cages(square, geom)
    cells = read_cells(square, geom)
    layout = agree_with_labels(layout, cells)
    trace["layout"] = layout
    clues = given_labels(read_clues(square, geom, layout, cells, opts.ocr), opts.labels)
    trace["clues"] = clues
    return layout, cells, clues


def read_grid(image: np.ndarray, geom: GridGeometry, square: np.ndarray, name: str, opts: Options,
              trace: dict | None = None) -> Reading:
    """What was read from one grid found in the picture."""
    path = name
    trace = {} if trace is None else trace
    trace["geometry"] = geom
    log.info("%s: %dx%d grid found", path, geom.size, geom.size)
    try:
        before = ocr.PROCESSES
        layout, cells, clues = _cages_and_labels(square, geom, opts, trace)
        log.info("%s: %d cages", path, len(layout.cages))
        log.info("%s: labels read (%s) with %d tesseract process(es): %s", path, opts.ocr,
                 ocr.PROCESSES - before, " ".join(c.text or "?" for c in clues))
        with time_budget(opts.time_limit):  # one --time-limit for all the solver runs of this picture
            res = resolve(geom.size, clues, opts.time_limit)
            check_borders(layout, cells, res.solution.grid, opts.time_limit)
        notes = res.notes
        if layout.changed:
            notes = ("cage borders changed to agree with where the labels are: " + ", ".join(layout.changed),) + notes
    finally:
        if opts.debug_dir is not None:
            from .debug import write_stages

            write_stages(opts.debug_dir, image, geom, square, trace.get("layout"), trace.get("clues"))
    return Reading(geom, layout, clues, res.puzzle, res.solution, notes, res.labels, res.odds)


@dataclass(frozen=True)
class AsRead:
    """A picture's puzzle as its labels were read, solvable or not (for convert)."""

    size: int
    cages: tuple[tuple[tuple[tuple[int, int], ...], Cage | None, float], ...]  # cells, clue read (None: none), p


def read_as_read(image: np.ndarray, name: str, opts: Options) -> AsRead:
    """Every cage with the most probable clue its label can be (None where no
    reading can be one), without asking for a solution."""
    geom, square = find_grid(image)
    _, _, clues = _cages_and_labels(square, geom, opts, {})
    out = []
    for rd in clues:
        best = next(((cage, p) for text, p in rd.texts if (cage := clue_for(text, rd.cells, geom.size))), None)
        out.append((rd.cells, best[0] if best else None, best[1] if best else 0.0))
    return AsRead(geom.size, tuple(out))
