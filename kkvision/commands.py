"""The commands, once a source is read: `solve`, `check`, `hint` and `convert` turn a
pipeline.Page into each puzzle's JSON record (report.py, schema kkvision/1) and the
drawings of the answer picture (render.Drawing), for every front end.  The command
line (cli.py) prints them and writes the picture; the web server (serve/work.py)
sends them back with the picture drawn.  Nothing here prints, writes a file or
knows HTTP.

    page = read_source(source, opts)
    work = check(page, typed, WORDING)     # a Work: each puzzle Done, and the drawings
    work.records(image)                    # a JSON record a puzzle, naming the picture written

Glossary:
  Done      one puzzle after a command: its outcome, and what the command made of it
  Work      a command's Done for every puzzle of a page, and the drawings of its picture
  Wording   how a front end names what its user gives (a file, an option, a form's field)
            in the refusals worded here
  REFUSED   the refusals of a reading (exit 5, 7, 8, 13): a label the user gives can
            settle them, and convert writes such a puzzle as it was read
  verdict   check's sentence: how many cells are wrong, blank and not judged
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from . import formats
from .answers import Judged, Written, judge, read_page
from .defaults import MAX_TIME_LIMIT
from .errors import Ambiguous, ClueUnreadable, KkvisionError, UncertainReading, Unsolvable, UsageError
from .hints import Hinted, hint_puzzle
from .pipeline import Outcome, Page, Result
from .puzzle import Grid, Puzzle
from .report import outcome_record, record
from .vision.stages import LABEL_SURE, AsRead, GivenLabel, GridGeometry, LabelDecision
from .vocab import Cell, cell_name

if TYPE_CHECKING:
    from .render import Drawing

REFUSED = (ClueUnreadable, Unsolvable, Ambiguous, UncertainReading)  # refusals of what was read
REFUSED_EXITS = frozenset(error.exit_code for error in REFUSED)  # the same, as the records' exit codes
PICTURE = {"solve": "solved", "check": "checked", "hint": "hint"}  # the answer picture: photo.<this>.jpg

T = TypeVar("T")
Typed = str | Callable[[], str] | None  # answers typed: the text, or what reads it (only once it is wanted)


@dataclass(frozen=True)
class Wording:
    """How a front end names what its user gives, in the refusals the commands word:
    the command line names files and options, the web page its form's fields."""

    several: str  # typed answers for a page of several puzzles; with {page}, {count} and {given}
    answers: str  # check's typed answers as {given}, with their verb: 'an answers file is'
    progress: str  # hint's typed progress as {given}, with their verb
    no_answers: str  # check of a puzzle text, no answers typed


@dataclass(frozen=True)
class Converted:
    """One puzzle in a text format: the text, its Puzzle (None: a label could not be read
    at all), the labels to check against the picture, the record's notes, and what to
    tell the user of it (None: nothing)."""

    text: str
    puzzle: Puzzle | None
    unsure: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    warning: str | None = None


@dataclass(frozen=True)
class Done(Generic[T]):
    """One puzzle of a page after a command: its outcome (solve, check and hint refuse a
    puzzle of several solutions: Outcome.unique) and what the command made of it: a
    Result, Judged, Hinted or Converted; None when the puzzle failed (outcome.error)."""

    outcome: Outcome
    made: T | None = None

    def record(self, command: str, name: str, image: Path | None = None) -> dict[str, Any]:
        """Its JSON record; `image`: the answer picture written, named by a puzzle answered."""
        outcome, made = self.outcome, self.made
        if made is None:
            return outcome_record(command, name, outcome)
        if isinstance(made, Converted):
            return record(command, name, puzzle=made.puzzle, notes=list(made.notes), text=made.text,
                          labels=list(made.unsure) or None, index=outcome.index)
        assert outcome.result is not None  # made of a result
        result = outcome.result
        if isinstance(made, Judged) and made.doubted:  # their digits are not known either: as a grid read in part
            outcome = replace(outcome, result=replace(result, undetermined=result.undetermined | set(made.doubted)))
        fields = made.record_fields(result.notes) if isinstance(made, (Judged, Hinted)) else {}
        return outcome_record(command, name, outcome, image=str(image) if image else None, **fields)


@dataclass(frozen=True)
class Work(Generic[T]):
    """A command's work on a page: each puzzle Done, in reading order, and the drawings
    of the answer picture (one for each puzzle of the picture that has marks to draw)."""

    command: str
    page: Page
    done: tuple[Done[T], ...]
    drawings: tuple[Drawing, ...] = ()

    @property
    def picture(self) -> str:
        """The answer picture's kind, in its name: photo.<kind>.jpg."""
        return PICTURE[self.command]

    def records(self, image: Path | None = None) -> list[dict[str, Any]]:
        """Each puzzle's JSON record; `image`: the answer picture written."""
        return [done.record(self.command, self.page.name, image) for done in self.done]


def solve(page: Page) -> Work[Result]:
    """Each puzzle's answer (a puzzle of several solutions refused), drawn."""
    def solved(result: Result) -> tuple[Result, Drawing | None]:
        return result, _drawing(result.geometry, result.solution, result.labels)

    return _answered("solve", page, solved)


# the commands whose pictures' grids may be read in part (VisionOptions.in_part): check judges the cells the
# labels it can read decide, where written answers hide the others; solve, hint and convert need every cell
READ_IN_PART = frozenset({"check"})


def check(page: Page, answers: Typed, wording: Wording) -> Work[Judged]:
    """The answers typed (for a page of one puzzle), or else those written in the picture's
    cells, judged against each puzzle's solution: the wrong, blank and unjudged cells marked."""
    if answers is None and page.picture is None:
        raise UsageError(wording.no_answers)
    typed = _typed(page, answers, wording.several, wording.answers)
    written = written_on_page(page, typed)

    def judged(result: Result) -> tuple[Judged, Drawing | None]:
        one = judge(result.puzzle, result.solution, typed, page.picture, result.geometry, result.undetermined,
                    result.clues, result.freed, written.get(id(result)))
        return one, _drawing(result.geometry, result.solution, result.labels, check=True,
                             wrong=frozenset(one.check.wrong), blank=frozenset(one.blank),
                             unsure=frozenset(one.unsure))

    return _answered("check", page, judged)


def hint(page: Page, cells: int, progress: Typed, wording: Wording) -> Work[Hinted]:
    """For each puzzle, the cells written wrong named, then `cells` empty cells that follow
    from the clues by the simplest reasoning, each with its reason; the progress typed (for
    a page of one puzzle), or else the digits written in the picture's cells."""
    typed = _typed(page, progress, wording.several, wording.progress)
    written = written_on_page(page, typed)

    def hinted(result: Result) -> tuple[Hinted, Drawing | None]:
        one = hint_puzzle(result.puzzle, result.solution, cells, typed, page.picture, result.geometry, result.clues,
                          written.get(id(result)))
        return one, _drawing(result.geometry, one.shown(), result.labels, wrong=one.wrong) if one.hints else None

    return _answered("hint", page, hinted)


def written_on_page(page: Page, typed: str | None = None) -> dict[int, Written]:
    """With nothing typed, the written cells of every grid of the page's picture read together, by its
    Result's id: one hand wrote them all (answers.read_page, answers.in_one_hand); else none.  What
    check and hint judge each puzzle by (bench/check.py too)."""
    if typed is not None or page.picture is None:
        return {}
    results = [r for r in (o.unique().result for o in page.outcomes) if r is not None and r.geometry is not None]
    return dict(zip(map(id, results), read_page(page.picture, [(r.geometry, r.solution) for r in results])))


def _answered(command: str, page: Page, make: Callable[[Result], tuple[T, Drawing | None]]) -> Work[T]:
    """The command's work on each puzzle of the page that has one answer (a puzzle of several
    solutions refused, Outcome.unique): what `make` makes of its Result, and its drawing
    (None: nothing to draw); a failed puzzle is Done as it failed."""
    done: list[Done[T]] = []
    drawings: list[Drawing] = []
    for outcome in (o.unique() for o in page.outcomes):
        if outcome.result is None:
            done.append(Done(outcome))
            continue
        made, drawing = make(outcome.result)
        done.append(Done(outcome, made))
        if drawing is not None:
            drawings.append(drawing)
    return Work(command, page, tuple(done), tuple(drawings))


def convert(page: Page, outcome: Outcome, to: str) -> Done[Converted]:
    """One puzzle of the page in the `to` text format: as solved (labels changed so that
    it solves included, the unsure ones named), or, when its reading was refused
    (REFUSED), as its labels were read.  One at a time: a puzzle that cannot be written
    (a label not read at all, not --to json) raises UsageError after those before it."""
    where = f"{page.name} #{outcome.index}: " if outcome.index is not None else f"{page.name}: "
    if outcome.result is not None:
        puzzle = outcome.result.puzzle
        text = formats.write(puzzle, to)
        unsure = tuple({"cell": cell_name(lb.cells[0]), "used": lb.used.label,
                        "used_probability": round(lb.used_probability, 4),
                        "how": lb.how if lb.how != "read" else "unsure"}
                       for lb in outcome.result.labels if lb.unsure and lb.how != "given")
        warning = (f"{where}labels to check against the picture: "
                   + ", ".join(f"{u['cell']} {u['used']} ({u['how']})" for u in unsure)) if unsure else None
        return Done(outcome, Converted(text, puzzle, unsure, outcome.result.notes, warning))
    if outcome.seen is not None and isinstance(outcome.error, REFUSED):
        text, read, unsure = _as_read(outcome.seen, to, where)
        message = outcome.error.message
        return Done(outcome, Converted(text, read, unsure, (f"written as read: {message}",),
                                       f"{where}written as read ({message.split(';')[0]}); edit it and run"
                                       " kkvision solve on the text"))
    return Done(outcome)


def verdict(wrong: Sequence[Cell], blank: Sequence[Cell], unsure: Sequence[Cell] = (),
            pencil: Sequence[Cell] = (), named: bool = False, left_open: Collection[Cell] = ()) -> str:
    """check's verdict: how many cells are wrong (`named`: which, where no mark shows them),
    blank (those holding only `pencil` marks named) and not judged (why: not read surely,
    or, those in `left_open`, their digit decided by labels not read surely: hidden under
    answers, or read otherwise with the answers weighed), and whether the grid is complete."""
    def names(cells: Sequence[Cell]) -> str:
        return ", ".join(map(cell_name, cells))

    unread = [c for c in unsure if c not in left_open]
    decided = [c for c in unsure if c in left_open]
    why = "; ".join(([f"{names(unread)}: written but not read surely"] if unread else [])
                    + ([f"{names(decided)}: their digit rests on labels not read surely"] if decided else []))
    return (f"{len(wrong)} wrong" + (f" ({names(wrong)})" if named and wrong else "") + f", {len(blank)} blank"
            + (f" ({len(pencil)} holding only pencil marks: {names(pencil)}; notes, never an answer)"
               if pencil else "")
            + (f", {len(unsure)} not judged ({why}, marked ?)" if unsure else "")
            + ("; the grid is complete" if not blank and not unsure else ""))


def failure(command: str, name: str, error: KkvisionError) -> dict[str, Any]:
    """The one record of a source of which nothing could be read (no such file, not a
    picture, no grid): its error."""
    return record(command, name, exit_code=error.exit_code, error=error.message)


def parse_label(text: str, what: str = "--label") -> GivenLabel:
    """A label the user gives, 'B3=12+' or '2:B3=12x' (GivenLabel.parse: every operator
    spelling); `what` names it in the error: the command line's --label, the server's label."""
    return GivenLabel.parse(text, what)


def check_choice(puzzle: int | None, labels: Iterable[GivenLabel], dashes: str = "--") -> None:
    """Refuse (UsageError) a puzzle number below 1, or a label given for another puzzle
    than the one asked for; `dashes` begins the options' names (the command line's
    --puzzle, the server's puzzle field)."""
    if puzzle is not None and puzzle < 1:
        raise UsageError(f"{dashes}puzzle counts from 1 (the first puzzle of the page in reading order)")
    for label in labels:
        if puzzle is not None and label.puzzle not in (None, puzzle):
            raise UsageError(f"{dashes}label {label}: {dashes}puzzle {puzzle} reads only puzzle {puzzle}")


def check_time_limit(seconds: float) -> None:
    """Refuse (UsageError) a time limit that is not more than 0 and at most MAX_TIME_LIMIT."""
    if not 0 < seconds <= MAX_TIME_LIMIT:  # also refuses nan
        raise UsageError(f"--time-limit must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds, not {seconds:g}")


def check_max_pixels(pixels: int) -> None:
    """Refuse (UsageError) a pixel limit that is not positive."""
    if pixels <= 0:
        raise UsageError("--max-pixels must be a positive number of pixels")


def _typed(page: Page, typed: Typed, several: str, given: str) -> str | None:
    """Answers or progress typed, which are for a page of one puzzle: read only then
    (else refused in the words of `several`, naming them as `given`)."""
    if typed is None:
        return None
    if len(page.outcomes) > 1:
        raise UsageError(several.format(page=page.name, count=len(page.outcomes), given=given))
    return typed() if callable(typed) else typed


def _drawing(geometry: GridGeometry | None, digits: Grid, labels: tuple[LabelDecision, ...],
             **marks: Any) -> Drawing | None:
    """One puzzle's marks for the answer picture; None for a text's puzzle (no picture to draw
    on: render, OpenCV and Pillow, is imported only when there is)."""
    if geometry is None:
        return None
    from .render import Drawing

    return Drawing(geometry, digits, labels, **marks)


def _as_read(seen: AsRead, to: str, where: str) -> tuple[str, Puzzle | None, tuple[dict[str, Any], ...]]:
    """A picture's puzzle as its labels were read: the text in `to` format (JSON when a
    label could not be read at all: its op and target are null), the Puzzle when one can
    be made, and the labels to check."""
    unsure = tuple({"cell": cell_name(cells[0]), "used": cage.label if cage else None,
                    "used_probability": round(p, 4), "how": "unsure" if cage else "not read"}
                   for cells, cage, p in seen.cages if cage is None or p < LABEL_SURE)
    try:
        puzzle = Puzzle(seen.size, tuple(cage for _, cage, _ in seen.cages if cage is not None))
        if len(puzzle.cages) == len(seen.cages):
            return formats.write(puzzle, to), puzzle, unsure
    except KkvisionError:
        pass
    if to != "json":
        raise UsageError(f"{where}some labels could not be read as a puzzle ("
                         + ", ".join(u["cell"] for u in unsure if u["used"] is None)
                         + "): convert it --to json, fill them in, and run kkvision solve on that file")
    cages = [{"op": cage.op if cage else None, "target": cage.target if cage else None,
              "cells": [list(c) for c in cells]} for cells, cage, _ in seen.cages]
    return json.dumps({"size": seen.size, "cages": cages}, indent=1) + "\n", None, unsure
