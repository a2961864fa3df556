"""kkvision's whole job for one source, top to bottom.

source -> sources.load: a puzzle text or a decoded picture (said once, there)
text    -> formats.read -> Puzzle -> solver.solve -> one Outcome
picture -> vision.read_page: every puzzle grid in reading order, each
           grid -> cages -> labels -> reading (+ borders) -> an Outcome
           (a Result, or the error that stopped that puzzle and what was read)
-> a Page: the outcomes, and the picture for drawing the answers onto.

Every command (solve, check, hint, convert), the library (kkvision.api) and
the web server go through read_source; they differ only in what they do
with each Outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from . import formats
from .defaults import DPI, MAX_PIXELS
from .errors import Ambiguous, KkvisionError
from .puzzle import Grid, Puzzle
from .solver import solve
from .sources import Loaded, Source, load
from .vision.stages import AsRead, ClueReading, GridGeometry, LabelDecision, Reached, Reading, VisionOptions
from .vocab import HIDDEN, Cell


@dataclass(frozen=True)
class Options(VisionOptions):
    """Everything a caller may ask; the vision's own part is VisionOptions."""

    fmt: str | None = None  # the text format (None: detect)
    max_pixels: int = MAX_PIXELS  # pictures declaring more pixels are refused before decoding
    puzzle: int | None = None  # only this puzzle of a page (1-based); None: every one


@dataclass(frozen=True)
class Result:
    """What kkvision made of one puzzle: the library API's result, and the CLI's."""

    puzzle: Puzzle
    solution: Grid
    unique: bool
    other: Grid | None = None  # a second grid when the puzzle has several (text puzzles)
    labels: tuple[LabelDecision, ...] = ()  # pictures: each cage label's decision
    corners: tuple[tuple[float, float], ...] | None = None  # pictures: grid corners tl, tr, br, bl, in pixels
    odds: float | None = None  # pictures: nats by which the answer beats any reading with another solution
    notes: tuple[str, ...] = ()
    geometry: GridGeometry | None = field(default=None, compare=False, repr=False)  # pictures: where the grid is
    # check only (Options.in_part): cells whose digit labels hidden under written answers leave open;
    # `solution` there is one possibility, never an answer (the records write 0 there)
    undetermined: frozenset[Cell] = frozenset()
    # pictures: what each label may say, as the reading weighed it (check weighs the answers written with it)
    clues: tuple[ClueReading, ...] = field(default=(), compare=False, repr=False)

    @property
    def freed(self) -> frozenset[Cell]:
        """The anchors of the labels read in part without (check: hidden under answers, not read)."""
        return frozenset(lb.cells[0] for lb in self.labels if lb.how == HIDDEN)

    def unique_or_raise(self) -> Result:
        """This result, or Ambiguous when the puzzle has several solutions."""
        if not self.unique:
            assert self.other is not None
            differ = sum(a != b for ra, rb in zip(self.solution, self.other) for a, b in zip(ra, rb))
            raise Ambiguous(f"this puzzle has more than one solution (two of them differ in {differ} cells);"
                            " if it was read from an image, check the cages and clues with --debug-dir")
        return self


@dataclass(frozen=True)
class Outcome:
    """One puzzle of a source: its Result, or the error that stopped it."""

    result: Result | None = None
    error: KkvisionError | None = None
    index: int | None = None  # 1-based place among the page's puzzles; None when the source holds one
    seen: AsRead | None = None  # a refused picture's puzzle as its labels were read (convert writes it)
    # a picture's puzzle: where its grid is, a refused one's too (kept when unique() refuses a result)
    geometry: GridGeometry | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if (self.result is None) == (self.error is None):
            raise ValueError("an Outcome holds a result or an error, one of them")

    def unique(self) -> Outcome:
        """This outcome, or its refusal (exit 8) when the puzzle has several solutions: solve,
        check and hint answer only a puzzle with one."""
        if self.result is None:
            return self
        try:
            self.result.unique_or_raise()
        except KkvisionError as exc:
            return replace(self, result=None, error=exc)
        return self

    @property
    def box(self) -> tuple[int, int, int, int] | None:
        """The puzzle's bounding box in the picture: x0, y0, x1, y1."""
        corners = self.result.corners if self.result else None
        if not corners:
            return None
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        return round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))


@dataclass(frozen=True)
class Page:
    """A source read: its puzzles' outcomes, and its picture (None for a text)."""

    name: str
    outcomes: tuple[Outcome, ...]
    picture: np.ndarray | None = field(default=None, repr=False)


def read_source(source: Source, opts: Options, dpi: int = DPI,
                traces: dict[int, Reached] | None = None) -> Page:
    """The source loaded and every puzzle in it read and solved (or refused).
    Raises a KkvisionError only when nothing of it could be read (no such
    file, not a picture, no grid at all, a --puzzle it does not hold).
    `traces`, when given, gets what each picture puzzle's reading reached, by
    its number (from 1), a refused one's too: for the benchmarks' per-stage
    scores, changing nothing read."""
    return read_loaded(load(source, opts.max_pixels, dpi), opts, traces)


def read_loaded(loaded: Loaded, opts: Options, traces: dict[int, Reached] | None = None) -> Page:
    """The same for a source already loaded."""
    if loaded.picture is None:
        assert loaded.text is not None
        try:
            return Page(loaded.name, (Outcome(solve_text(loaded.text, opts)),))
        except KkvisionError as exc:
            return Page(loaded.name, (Outcome(error=exc),))
    from .vision.read import read_page

    count, read = read_page(loaded.picture, loaded.name, opts, opts.puzzle, traces)
    outcomes = tuple(
        Outcome(_result(r), index=k if count > 1 else None, geometry=r.geometry) if isinstance(r, Reading)
        else Outcome(error=r.error, index=k if count > 1 else None, seen=r.seen, geometry=r.geometry)
        for k, r in read)
    return Page(loaded.name, outcomes, loaded.picture)


def solve_text(text: str, opts: Options) -> Result:
    """A puzzle text in any format (opts.fmt, or detected), solved."""
    puzzle = formats.read(text, opts.fmt)
    solution = solve(puzzle, opts.time_limit)
    return Result(puzzle, solution.grid, solution.unique, solution.other, notes=rules_used(puzzle))


def rules_used(puzzle: Puzzle) -> tuple[str, ...]:
    """The note naming the cages taken by a puzzle book's rule ('-' or '/' over more than two cells)."""
    books = [cage for cage in puzzle.cages if cage.book_rule]
    return (("taken by the puzzle books' rule (the largest digit less the others, or divided by their product): "
             + ", ".join(f"{cage.label} at {cage.where}" for cage in books),) if books else ())


def _result(reading: Reading) -> Result:
    return Result(reading.puzzle, reading.grid, True, None, reading.labels, reading.geometry.corners,
                  reading.odds, reading.notes + rules_used(reading.puzzle), reading.geometry, reading.undetermined, reading.clues)
