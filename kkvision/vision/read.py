"""The vision, top to bottom: picture -> what was read from each puzzle grid in it.

  grid.find_grids        every puzzle grid, in reading order: GridGeometry and the straightened square
  contents.find_contents what is written in the cells besides labels (answers, pencil marks,
                         placeholders): Contents, taken out of the square (contents.clean)
  cages.find_cages       thick cage borders told from thin cell lines: CageLayout
  clues.read_cells       the top of every cell read by the label reader (readers.py): LabelReading
  agree.agree_with_labels  cage borders mended to agree with where the labels are
  clues.read_clues       each cage's label, the user's --label in its place: ClueReading
  reading.resolve        the most probable reading that has a solution, and its odds: Resolution
  borders.check_borders  would an unsure border, called the other way, give another answer?

Every object handed between these is in stages.py.  Each reading of a grid
gives an Attempt: what its stages reached (stages.Reached) and its answer or
the error it was refused with; a refused one is judged by what it reached
(a sudoku, a crossword, a keypad: left out).  A grid that gives no answer is
a Refusal holding the error and what had been read by then.  What the Attempt
a grid was answered or refused with reached goes to a caller that asks for it
(read_page's `traces`) once the page is read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from ..errors import (
    Ambiguous,
    ClueUnreadable,
    GridNotFound,
    KkvisionError,
    LabelNotACage,
    UncertainReading,
    Unsolvable,
    UsageError,
)
from ..solver import load_cp_model, time_budget
from ..vocab import DEBUG_LOOK_FOLDER, DEBUG_PUZZLE_FOLDER, Cell, cell_name
from .agree import agree_with_labels
from .borders import check_borders
from .cages import FILL_EVERY, darkness, find_cages
from .clues import clue_for, given_labels, read_cells, read_clues
from .contents import clean, find_contents, under_answers, unlabelled
from .grid import NO_GRID, searches
from .labels import mixture
from .readers import BOTH, MOVED, reader
from .reading import resolve, resolve_in_part, unclued, under_answers_read
from .stages import (
    AsRead,
    CageLayout,
    ClueReading,
    Contents,
    GivenLabel,
    GridGeometry,
    LabelReading,
    Reached,
    Reading,
    Refusal,
    Resolution,
    VisionOptions,
)

log = logging.getLogger("kkvision")
MIN_SUDOKU = 4  # the smallest sudoku (2x2 boxes); a 3x3 grid of three 3-cell cages may be a KenKen
SUDOKU_AGREE = 0.9  # share of a grid's inner edges called as a sudoku's box borders would be, at which it is
                    # one: 200 random KenKens of each size agreed with a box pattern on at most 0.52 (9x9) to 0.79 (4x4)
KENKEN_LABELLED = 0.25  # on a page of several grids, one whose cages' first cells hold a label less often
                        # than this (read as empty) is no KenKen: a sudoku's 3x3 boxes, a keypad's keys
FINER = 3  # a sudoku's 3x3 boxes found as a grid's cells (a thumbnail too small for its cell lines to be
           # judged): every cell is crossed by lines at its thirds, running the grid's whole length
FINER_INK = 0.3  # ... a line there darkens (cages.darkness) at least this much within FINER_BAND of its place
FINER_BAND = 0.04  # ... of a cell, either side
FINER_SHARE = 0.8  # ... along this share of the grid's length, at this share of the thirds (no KenKen has one)
CROSSWORD_FILLED = 0.6  # a cell whose middle is this far from the paper towards the ink is filled solid
CROSSWORD_BLOCKS = (2, 0.05)  # a grid with this many such cells and this share of its cells is a crossword
CROSSWORD_MIDDLE = 0.3  # a cell's middle: this far in from each side, of the cell (past labels and lines)
# More of the inner edges than this share (and more than MIN_AGREED) changed to agree with where the labels
# are: the borders were misread across the grid (a style whose kinds of line the split cannot tell apart),
# and a layout mended that much is no ground for an answer: refuse.  Right answers on 361 scenes and 52 real
# pictures changed at most 4 of a grid's 144 edges (3%); a browser-drawn page read wrong, 13 of 84 (15%).
MAX_AGREED = 0.1
MIN_AGREED = 3
# Before a grid refused upright is turned, its labels are read again: by the second label model, then by
# both models together (labels.mixture: where they disagree, the reading stage weighs both texts), then by
# both from the usual crop and from crops moved a little (labels.ensemble).
UPRIGHT_RETRIES: tuple[tuple[bool | str, str], ...] = (
    (True, "the labels were read by the second label model (the first could not read them as a puzzle)"),
    (BOTH, "the labels were read by both label models together (neither alone could read them as a puzzle)"),
    (MOVED, "the labels were read by both label models together, each also from crops moved a few pixels"
            " (neither alone could read them as a puzzle)"))
# A grid turned is read again by the second model alone: both models together, and from moved crops, after a
# turn answered none of bench/scenes.py's 1918 puzzles of seeds 0..59 in the three splits (upright: 3 and 3)
TURNED_RETRIES = UPRIGHT_RETRIES[:1]
BOTH_CLUED = 0.5  # ... both together only when one of them read at least this share of the cages' labels as
                  # clues for them (a grid on its side reads as nothing much: it is turned at once)
# cells found written (contents.py) where no label can be, from which on the writing is taken out before
# the grid is read: one such cell may be a misread border beside a big label, two are an answer written
WRITTEN_WHERE_NO_LABEL = 2
TURNS = (1, 2, 3)  # quarter turns of the square tried when the labels cannot be read upright
# refusals that a turned picture gives upright (its labels read as nothing, or as other numbers)
TURN_WHEN = (ClueUnreadable, Unsolvable, UncertainReading, Ambiguous, LabelNotACage)
# the labels' refusals after which check reads a grid in part (_in_part): its labels hidden under answers free
IN_PART_WHEN = (ClueUnreadable, Unsolvable, UncertainReading, Ambiguous)
# the note of a grid read so (_read_both_ways)
BOTH_WAYS = ("the labels under written answers were read both with the answers taken out and as they are"
             " (neither alone could read them as a puzzle)")
TURN_CLUED = 0.5  # a way round that no label model reads as a puzzle is read by the second one when its labels
                 # read as clues for this many more of its cages than upright (a side's labels read as nothing)


@dataclass(frozen=True)
class Attempt:
    """One reading of a grid: what its stages reached, and its answer or the error it was refused with."""

    reached: Reached
    outcome: Reading | KkvisionError
    # refused for its labels with some hidden under answers, and VisionOptions.in_part: how to read it in part
    # (_in_part), run only when every reading of the grid is refused (_taken_in_part)
    in_part: Callable[[], Reading | None] | None = None


def read_page(image: np.ndarray, name: str, opts: VisionOptions, only: int | None = None,
              traces: dict[int, Reached] | None = None) -> tuple[int, list[tuple[int, Reading | Refusal]]]:
    """How many puzzle grids the picture holds, and what was read from each
    (or why not), numbered from 1 in reading order; only puzzle `only` when
    given.  Each --label goes to the puzzle it names.  When every grid that
    one way of looking finds is no KenKen, the next way's are read (grid.searches);
    so too when every one was refused (a keypad, or an ad's sudoku thumbnail read
    as a 3x3 of its boxes, found before a dim or light-on-dark KenKen): a later
    look that solves a grid is taken, else the first refusals of a grid that looks
    like a KenKen (labels where its cages start), else the first refusals.  With a debug folder, each look
    after the first that found grids writes its pictures to its own subfolder (DEBUG_LOOK_FOLDER), so an
    ad's sudoku found later never hides the KenKen's.  `traces`, when given, gets
    what each puzzle's reading reached (by its number), a refused one's too: for the benchmarks'
    per-stage scores (through pipeline.read_source), filled once the page is read, changing nothing read."""
    first = 0  # how many grids the first search that found any found
    held: tuple[int, list[tuple[int, Reading | Refusal]]] | None = None
    held_bare, held_reached = True, {}
    looks = 0  # the looks that found grids: a later one's --debug-dir pictures go to its own folder
    for grids in searches(image):
        if not grids:
            continue
        first = first or len(grids)
        looks += 1
        look_opts = (opts if looks == 1 or opts.debug_dir is None
                     else replace(opts, debug_dir=opts.debug_dir / DEBUG_LOOK_FOLDER.format(looks)))
        out, bare, reached = _read_grids(image, grids, name, look_opts, only)
        if out and only is None and all(isinstance(r, Refusal) for _, r in out):
            if held is None or held_bare and not bare:  # the KenKen may be in a later look
                held, held_bare, held_reached = (len(grids), out), bare, reached
            continue
        if out:
            if traces is not None:
                traces.update(reached)
            return len(grids), out
    if held is not None:
        if traces is not None:
            traces.update(held_reached)
        return held
    if not first:
        if opts.debug_dir is not None:
            from .debug import write_search
            from .grid import tried_frames

            write_search(opts.debug_dir, image, tried_frames(image))
        raise GridNotFound(NO_GRID)
    found = f"none of the {first} grids found is one" if first > 1 else "the grid found is none"
    raise GridNotFound(f"no KenKen found: {found} (a sudoku's boxes, or no cage labels: a crossword"
                       " or a keypad?); crop closer to the KenKen")


def _read_grids(image: np.ndarray, grids: list[tuple[GridGeometry, np.ndarray]], name: str, opts: VisionOptions,
                only: int | None) -> tuple[list[tuple[int, Reading | Refusal]], bool, dict[int, Reached]]:
    """What was read from each of a page's grids, numbered from 1; a grid that
    is no KenKen (a sudoku, or on a page of several a keypad) is left out, as
    judged by what its refused reading reached.  And whether every grid kept
    was refused without labels in its cages' first cells (a keypad's keys, or
    a KenKen too blurred to read).  And what each grid's reading reached (a
    grid left out's too), by its number."""
    count = len(grids)
    _check_choice(count, only, opts.labels)
    out: list[tuple[int, Reading | Refusal]] = []
    reached: dict[int, Reached] = {}
    bare = 0  # grids refused that do not look like a KenKen
    for k, (geom, square) in enumerate(grids, 1):
        if only is not None and k != only:
            continue
        one = replace(opts, labels=tuple(lb for lb in opts.labels if lb.puzzle in (None, k)))
        if count > 1 and opts.debug_dir is not None:
            one = replace(one, debug_dir=opts.debug_dir / DEBUG_PUZZLE_FOLDER.format(k))
        attempt = _read_grid(image, geom, square, f"{name} #{k}" if count > 1 else name, one)
        seen = reached[k] = attempt.reached
        if not isinstance(attempt.outcome, KkvisionError):
            out.append((k, attempt.outcome))
            continue
        kenken = looks_like_kenken(seen)
        if only is None and (is_sudoku(seen) or is_crossword(seen) or count > 1 and not kenken):
            log.info("%s #%d: not a KenKen (a sudoku's boxes, a crossword's blocks, or no cage labels: a"
                     " keypad), left out", name, k)
            continue
        bare += not kenken
        out.append((k, Refusal(attempt.outcome, geom, as_read(seen))))
    return out, bool(out) and bare == len(out), reached


def is_crossword(reached: Reached) -> bool:
    """Are some of the grid's cells filled solid with ink: a crossword's blocks?  No KenKen
    has one (a selected or highlighted cell is a light tint; an answer or a label leaves
    most of a cell's middle paper).  Its clue numbers read like hidden-operator labels."""
    geom, gray = reached.geometry, reached.square  # dark ink on light paper (a dark theme's square: its negative)
    if geom is None or gray is None:
        return False
    n = geom.size
    middles = []
    for r in range(n):
        for c in range(n):
            x0, y0, x1, y1 = geom.cell_box(r, c)
            dx, dy = CROSSWORD_MIDDLE * (x1 - x0), CROSSWORD_MIDDLE * (y1 - y0)
            middles.append(float(np.median(gray[int(y0 + dy):int(y1 - dy), int(x0 + dx):int(x1 - dx)])))
    paper, ink = float(np.median(middles)), float(np.percentile(gray, 1))
    filled = sum(paper - m >= CROSSWORD_FILLED * (paper - ink) for m in middles)
    return paper - ink > 0 and filled >= max(CROSSWORD_BLOCKS[0], CROSSWORD_BLOCKS[1] * n * n)


def is_sudoku(reached: Reached) -> bool:
    """Are the grid's cages as drawn n regions of n cells each: a sudoku's boxes
    (or a jigsaw sudoku's regions)?  No KenKen is drawn so: every cage would be
    a whole row's worth of digits, its label the same sum for all.  Or do its
    borders as drawn follow a sudoku's boxes on nearly every edge (a thumbnail's
    box lines partly missed, or a cell line taken for one)?  Judged on the
    cages alone, so a sudoku with its givens read as labels is known too.  Or
    are the grid's cells a sudoku's boxes, crossed by its cell lines at their
    thirds (_finer_lattice)?"""
    layout, geom = reached.drawn, reached.geometry
    if geom is None:
        return False
    if layout is not None and geom.size >= MIN_SUDOKU and _boxes_drawn(layout, geom.size):
        return True
    # last, as it measures the square again (the cage tests above reuse what was found)
    return reached.square is not None and _finer_lattice(reached.square, geom.size)


def _boxes_drawn(layout: CageLayout, n: int) -> bool:
    """Are the cages as drawn n regions of n cells, or do their borders follow a sudoku's boxes
    on SUDOKU_AGREE of the edges?"""
    if all(len(cage) == n for cage in layout.cages):
        return True
    right, down = np.asarray(layout.right_thick)[:, :-1], np.asarray(layout.down_thick)[:-1, :]
    cols, rows = np.arange(1, n), np.arange(1, n)[:, None]
    for tall, wide in ((h, n // h) for h in range(2, n) if n % h == 0):  # boxes tall x wide cells
        agree = (np.count_nonzero(right == (cols % wide == 0)[None, :])
                 + np.count_nonzero(down == (rows % tall == 0)))
        if agree >= SUDOKU_AGREE * (right.size + down.size):
            return True
    return False


def _finer_lattice(square: np.ndarray, n: int) -> bool:
    """Do lines cross every cell at its thirds, running the grid's whole length
    (FINER_SHARE of them, along FINER_SHARE of it): a sudoku whose 3x3 boxes
    were found as the cells of a 3x3 grid?  A KenKen's cells hold labels and
    answers, never a line through all of them."""
    dark = darkness(square, n)
    side = dark.shape[0]
    cell, band = side / n, max(1, int(FINER_BAND * side / n))
    lines = 0
    for k in range(n):
        for third in range(1, FINER):
            at = int(round((k + third / FINER) * cell))
            for strip in (dark[:, max(0, at - band):at + band + 1].max(axis=1),
                          dark[max(0, at - band):at + band + 1, :].max(axis=0)):
                lines += float(np.mean(strip >= FINER_INK)) >= FINER_SHARE
    return lines >= FINER_SHARE * 2 * n * (FINER - 1)


def looks_like_kenken(reached: Reached) -> bool:
    """Did the reading get far enough to say, and do the grid's cages have labels
    in their first cells?  A sudoku's boxes and a keypad's keys read as empty there."""
    if reached.clues is None or not reached.clues:
        return True  # not known: a refusal before the labels stays a refusal
    labelled = sum(1.0 - sum(p for t, p in rd.texts if t == "") >= 0.5 for rd in reached.clues)
    return labelled >= KENKEN_LABELLED * len(reached.clues)


def _check_choice(count: int, only: int | None, labels: tuple[GivenLabel, ...]) -> None:
    """--puzzle and every --label's puzzle name one of the `count` puzzles."""
    puzzles = f"{count} puzzle{'s' if count > 1 else ''}"
    if only is not None and not 1 <= only <= count:
        raise UsageError(f"--puzzle {only}: the picture holds {puzzles}")
    for label in labels:
        if label.puzzle is not None and not 1 <= label.puzzle <= count:
            raise UsageError(f"--label {label}: the picture holds {puzzles}")
        if label.puzzle is None and count > 1 and only is None:
            raise UsageError(f"--label {label}: the picture holds {puzzles}; say which one it is for, as"
                             f" --label K:{cell_name(label.cell)}={label.text} or with --puzzle K")


def _turned(square: np.ndarray, k: int) -> np.ndarray:
    """A square turned k quarters counterclockwise (its own copy), or itself unturned."""
    return np.rot90(square, k).copy() if k else square


class _Ways:
    """A grid's square each way round (k quarter turns counterclockwise), as it is or (`cleaned`) with
    what is written in its cells found as seen that way round (the networks know a label by its place
    at the top left) and taken out: made when first asked for."""

    def __init__(self, geom: GridGeometry, square: np.ndarray, cleaned: bool, image: np.ndarray | None = None
                 ) -> None:
        self.geom, self.square, self.cleaned, self.image = geom, square, cleaned, image
        self._found: dict[int, tuple[GridGeometry, np.ndarray, Contents]] = {}
        self._made: dict[int, tuple[GridGeometry, np.ndarray, Contents]] = {}
        self._colour: np.ndarray | None = None
        self._fills: np.ndarray | None = None

    def found(self, k: int) -> tuple[GridGeometry, np.ndarray, Contents]:
        """The grid k quarters round as it is, and what is written in its cells (nothing when not `cleaned`):
        the writing found, not yet taken out (read_grid decides by it which reading comes first)."""
        if k not in self._found:
            geom = self.geom.turned(k) if k else self.geom
            square = _turned(self.square, k)
            self._found[k] = (geom, square, find_contents(square, geom, partial(self.colour, k)) if self.cleaned
                              else Contents(()))
        return self._found[k]

    def colour(self, k: int) -> np.ndarray | None:
        """The square in colour k quarters round (turned as the grey one is), None for a grey picture:
        straightened when first asked for (find_contents asks only when some cell is written)."""
        if self._colour is None and self.image is not None:
            self._colour = self.geom.colour_square(self.image)
        return None if self._colour is None else _turned(self._colour, k)

    def fills(self, k: int) -> np.ndarray | None:
        """The square in colour for its cells' fills (cages.find_cages), k quarters round: the colour
        square when made already, else a small one (cages.FILL_EVERY); None for a grey picture."""
        if self._colour is not None:
            return self.colour(k)
        if self._fills is None and self.image is not None:
            self._fills = self.geom.colour_square(self.image, FILL_EVERY)
        return None if self._fills is None else _turned(self._fills, k)

    def __call__(self, k: int) -> tuple[GridGeometry, np.ndarray, Contents]:
        if k not in self._made:
            geom, square, contents = self.found(k)
            self._made[k] = (geom, clean(square, geom, contents), contents)  # the square itself when none
        return self._made[k]


def read_grid(image: np.ndarray, geom: GridGeometry, square: np.ndarray, name: str, opts: VisionOptions
              ) -> Reading:
    """What was read from one grid found in the picture, and its answer (_read_grid's): the error it
    was refused with raised."""
    attempt = _read_grid(image, geom, square, name, opts)
    if isinstance(attempt.outcome, KkvisionError):
        raise attempt.outcome
    return attempt.outcome


def _read_grid(image: np.ndarray, geom: GridGeometry, square: np.ndarray, name: str, opts: VisionOptions
               ) -> Attempt:
    """What was read from one grid found in the picture, and its answer, or why it gave none.

    What is written in the cells besides labels (contents.py) is taken out
    first when it is surely written: in at least WRITTEN_WHERE_NO_LABEL cells
    that no label can be in (not the first cell of a cage as the borders are
    drawn); then the grid as it is is read only when that reading is refused.
    Else the grid is read as it is, and with the writing taken out only when
    that is refused (a blank page's big labels may look written: they are
    read as they are).  A reading with the writing taken out that had to
    change a label or go without one is read as it is too: the same answer
    is taken from the labels as printed, another is refused (exit 13); when
    the grid as it is gives none, the reading with the writing out stands
    (its changed labels weighed as always: reading.py's margin).
    Each reading is _read_turns', with --time-limit for
    its solver runs (a grid read both ways may take twice that).  A grid that
    neither reading answers is refused as it is read as it is (its error and
    what it reached: what is a sudoku, a crossword or a keypad is judged on
    that), or, when its writing was sure, as read cleaned if that looks like
    a KenKen (_refusing_way).  The debug pictures show what the attempt taken
    reached (nothing when the two readings' answers differ)."""
    log.info("%s: %dx%d grid found", name, geom.size, geom.size)
    try:
        cleaned = _Ways(geom, square, cleaned=True, image=image)
        written = cleaned.found(0)[2]  # taken out (inpainted) only if that reading is made
        ways = [_Ways(geom, square, cleaned=False, image=image)] + ([cleaned] if written.written else [])
        if written.written and len(unlabelled(written, find_cages(square, geom)[0])) >= WRITTEN_WHERE_NO_LABEL:
            ways.reverse()
    except KkvisionError as exc:
        return Attempt(Reached(), exc)
    refused: dict[bool, Attempt] = {}  # each reading's refusal, by whether cleaned
    answered: list[tuple[_Ways, Reading, Reached]] = []
    for way in ways:
        with time_budget(opts.time_limit):  # one --time-limit for all the solver runs of one reading
            attempt = _read_turns(way, name, opts)
        if isinstance(attempt.outcome, KkvisionError):
            refused[way.cleaned] = attempt
            continue
        answered.append((way, attempt.outcome, attempt.reached))
        if not way.cleaned or not _lost_label(attempt.outcome):
            break  # read as it is, or with the writing out and every label as read: no need of the other
    attempt = _taken(ways, refused, answered, name)
    if isinstance(attempt.outcome, KkvisionError) and True in refused:
        attempt = _read_both_ways(cleaned, name, opts) or _taken_in_part(refused, name, opts.time_limit) or attempt
    if opts.debug_dir is not None:
        from .debug import write_stages

        write_stages(opts.debug_dir, image, attempt.reached)
    return attempt


def _taken(ways: list[_Ways], refused: dict[bool, Attempt], answered: list[tuple[_Ways, Reading, Reached]],
           name: str) -> Attempt:
    """The attempt a grid is answered or refused with, of its readings (_read_grid's ways, in the order
    read): their refusals by whether cleaned, and the ones answered (with what each reached)."""
    if not answered:
        return refused[_refusing_way(ways, refused)]
    way, reading, reached = answered[-1]
    if len(answered) == 2:  # the writing taken out lost a label that the grid as it is reads
        if answered[0][1].grid != reading.grid:
            return Attempt(Reached(), UncertainReading(
                "the grid read with what is written in its cells taken out and as it is gives two answers;"
                " check the labels with --debug-dir, or give them with --label"))
        log.info("%s: read as it is, as with the writing taken out, where a label was lost", name)
    if way is not ways[0]:
        log.info("%s: read %s", name, "with the writing taken out" if way.cleaned else "as it is")
    return Attempt(reached, reading)


def _read_both_ways(cleaned: _Ways, name: str, opts: VisionOptions) -> Attempt | None:
    """A grid that neither reading answers, read once more upright with the writing taken out and the
    labels under written answers read both with it out and as it is (_read_both); None when that is
    refused too, or no label is under an answer."""
    geom, _, contents = cleaned(0)
    if not under_answers(geom, contents):
        return None
    with time_budget(opts.time_limit):
        attempt = _read_once(cleaned, 0, name, opts, both=True)
    if isinstance(attempt.outcome, KkvisionError):
        return None
    log.info("%s: read with the labels under written answers read both with the writing out and as it is", name)
    return Attempt(attempt.reached, replace(attempt.outcome, notes=(BOTH_WAYS,) + attempt.outcome.notes))


def _taken_in_part(refused: dict[bool, Attempt], name: str, time_limit: float) -> Attempt | None:
    """For check, a grid that neither reading answers: its reading in part (Attempt.in_part, with a
    --time-limit of its own), of the one with the writing taken out (the other has no labels hidden
    under answers); None when there is none or it is refused too."""
    attempt = refused.get(True)
    if attempt is None or attempt.in_part is None:
        return None
    with time_budget(time_limit):
        reading = attempt.in_part()
    if reading is None:
        return None
    log.info("%s: read in part, without the labels hidden under written answers", name)
    return Attempt(attempt.reached, reading)


def _refusing_way(ways: list[_Ways], refused: dict[bool, Attempt]) -> bool:
    """Which reading's refusal a grid that neither answers is refused with: as it is, unless the
    writing was sure (read cleaned first) and with it taken out the grid looks like a KenKen (labels
    in its cages' first cells): then that one, so that a page's KenKen filled in with big answers is
    refused as one, not left out as a keypad for the labels the answers hid.  What is a sudoku or a
    crossword stays judged as it is (their givens taken out leave no labels)."""
    return bool(ways[0].cleaned and True in refused and refused[True].reached.clues
                and looks_like_kenken(refused[True].reached))


def _lost_label(reading: Reading) -> bool:
    """Whether the answer takes a label otherwise than it was read, or goes without one."""
    return any(d.how in ("changed", "not read") for d in reading.labels)


def _read_turns(way: _Ways, name: str, opts: VisionOptions) -> Attempt:
    """The grid read upright; when its labels cannot be read as a puzzle so, the square is turned a
    quarter, a half and three quarters (a picture taken on its side with no orientation tag): the one
    way round whose labels give an answer is taken.  Before turning, the second label model reads it
    upright (labels.SECOND_MODEL).  Refused as upright when no way round answers, or more than one."""
    upright = _read_once(way, 0, name, opts)
    if not isinstance(upright.outcome, TURN_WHEN):
        return upright
    tries = [upright.reached]
    retried = _retried(way, 0, name, opts, tries, UPRIGHT_RETRIES, upright.reached.drawn)
    if retried is not None:
        reading, second = retried
        log.info("%s: %s", name, reading.notes[0])
        return Attempt(second, reading)
    found: list[tuple[int, Reading, Reached]] = []
    tried: list[tuple[int, Reached]] = []
    for k in TURNS:
        turned = _read_once(way, k, name, opts)
        if isinstance(turned.outcome, KkvisionError):
            tried.append((k, turned.reached))
        else:
            found.append((k, turned.outcome, turned.reached))
    if not found and tried:  # the way round whose labels read best, read again as upright is
        found = _turned_again(way, name, opts, upright.reached, tries, tried)
    if len(found) != 1:
        return upright
    k, reading, reached = found[0]
    log.info("%s: read turned %d degrees", name, 90 * k)
    return Attempt(reached, replace(reading, notes=(f"the puzzle is on its side in the picture: read it turned"
                                                    f" {90 * k} degrees counterclockwise",) + reading.notes))


def _retried(way: _Ways, k: int, name: str, opts: VisionOptions, tries: list[Reached],
             retries: tuple[tuple[bool | str, str], ...], drawn: CageLayout | None
             ) -> tuple[Reading, Reached] | None:
    """The grid k quarters round read again by each of `retries` (a label model and the note an answer it
    gives carries) in turn, the first that reads it as a puzzle, with its note and what it reached; None
    when none does.  What each try reached is added to `tries`; both models together (BOTH, MOVED) only
    when one try so far read at least BOTH_CLUED of the cages' labels as clues (neither did: a grid on its
    side, for the turns)."""
    for model, note in retries:
        if model in (BOTH, MOVED) and max(map(_clued, tries)) < BOTH_CLUED:
            continue
        second = _read_once(way, k, name, opts, second_model=model, drawn=drawn)
        tries.append(second.reached)
        if not isinstance(second.outcome, KkvisionError):
            return replace(second.outcome, notes=(note,) + second.outcome.notes), second.reached
    return None


def _turned_again(way: _Ways, name: str, opts: VisionOptions, upright: Reached, upright_tries: list[Reached],
                  tried: list[tuple[int, Reached]]) -> list[tuple[int, Reading, Reached]]:
    """No way round read as a puzzle by the first label model: the way round whose labels it read as
    clues for the most cages, when TURN_CLUED more than upright, is read again by the second model
    (TURNED_RETRIES); else the way round whose labels the second model reads as clues for the most
    cages, when TURN_CLUED more than it did upright (a theme's labels the first model hardly reads either
    way round), is taken when it reads as a puzzle.  [] when none."""
    k, turned = max(tried, key=lambda kt: _clued(kt[1]))
    if _clued(turned) >= _clued(upright) + TURN_CLUED:
        retried = _retried(way, k, name, opts, [turned], TURNED_RETRIES, turned.drawn)
        return [] if retried is None else [(k, *retried)]
    if len(upright_tries) < 2:  # the second model did not read it upright
        return []
    if _clued(upright_tries[1]) + TURN_CLUED > 1.0:  # no way round can read as clues for that many more
        return []
    seconds = [(k, turned, _read_once(way, k, name, opts, second_model=True, drawn=turned.drawn))
               for k, turned in tried]
    k, turned, second = max(seconds, key=lambda kt: _clued(kt[2].reached))
    if _clued(second.reached) < _clued(upright_tries[1]) + TURN_CLUED:
        return []
    if isinstance(second.outcome, KkvisionError):
        return []
    return [(k, replace(second.outcome, notes=(UPRIGHT_RETRIES[0][1],) + second.outcome.notes), second.reached)]


def _clued(reached: Reached) -> float:
    """The share of the cages whose label's first reading is a clue for them (0 when none were read)."""
    if not reached.clues or reached.geometry is None:
        return 0.0
    return (len(reached.clues) - len(unclued(reached.geometry.size, reached.clues))) / len(reached.clues)


def _read_once(way: _Ways, k: int, name: str, opts: VisionOptions, second_model: bool | str = False,
               drawn: CageLayout | None = None, both: bool = False) -> Attempt:
    """The grid read k quarters round (its geometry, its square with what is written in its cells taken
    out, and that: way(k)): cages (`drawn`: as found already, the same
    way round), labels (by the second label model when `second_model`, by both
    together when it is readers.BOTH, from moved crops too when readers.MOVED), the reading and its answer;
    or the error it was refused with, and what its stages reached by then."""
    reached = Reached()
    try:
        geom, square, contents = way(k)
        reached = Reached(geom, square, contents)
        if contents.written:
            log.info("%s: something is written in %d cells besides labels; taken out", name, len(contents.written))
        labels = reader(opts.ocr, second_model)
        if drawn is None:  # the labels read (the network's pass frees the interpreter) while the cages are found
            with ThreadPoolExecutor(1, thread_name_prefix="kkvision-labels") as beside:  # its end waits for
                reading = beside.submit(read_cells, square, geom, labels)  # the read, also when the cages failed
                layout = find_cages(square, geom, way.fills(k))[0]  # in colour: fills may draw the cages
                load_cp_model()  # and the solver imported while the network finishes (a process's first picture)
            cells = reading.result()
        else:
            layout, cells = drawn, read_cells(square, geom, labels)
        reached = replace(reached, drawn=layout)
        hidden = under_answers(geom, contents)  # labels a written answer may hide: read less surely, moving no border
        if both and hidden:  # ... and read from the square as it is too (_read_both)
            cells = _read_both(cells, read_cells(way.found(k)[1], geom, labels), hidden)
        layout = agree_with_labels(layout, cells, hidden)
        reached = replace(reached, layout=layout)
        log.info("%s: %d cages", name, len(layout.cages))
        clues = given_labels(read_clues(square, geom, layout, cells, labels), opts.labels)
        reached = replace(reached, clues=clues, processes=labels.processes)
        log.info("%s: labels read (%s) with %d tesseract process(es): %s", name, labels.name, labels.processes,
                 " ".join(c.text or "?" for c in clues))
        _mended_too_much(layout)
        try:
            res = resolve(geom.size, clues, opts.time_limit, hidden)
        except IN_PART_WHEN as exc:
            in_part = partial(_in_part, geom, layout, clues, cells, hidden, opts) if opts.in_part and hidden else None
            return Attempt(reached, exc, in_part)
        check_borders(layout, cells, res.grid, opts.time_limit, hidden)
    except KkvisionError as exc:
        return Attempt(reached, exc)
    return Attempt(reached, _reading(geom, layout, clues, res))


def _read_both(cleaned: dict[Cell, LabelReading], as_is: dict[Cell, LabelReading], hidden: frozenset[Cell]
               ) -> dict[Cell, LabelReading]:
    """The labels as read with the writing taken out, those under written answers (`hidden`) as read both
    so and from the square as it is (labels.mixture): taking a big answer out takes with it the label's
    strokes it crossed, or the whole label where it is the answer's digit and touches it (a '3' beside a
    written 3), and leaves the answer's strokes beside the label ('30x' read '36x'), while as it is the
    answer's strokes are read as the label's; where the two readings disagree they share the probability,
    and the reading stage weighs them by which gives a puzzle."""
    return {cell: mixture([rd], [as_is[cell]])[0] if cell in hidden else rd for cell, rd in cleaned.items()}


def _in_part(geom: GridGeometry, layout: CageLayout, clues: tuple[ClueReading, ...], cells: dict[Cell, LabelReading],
             hidden: frozenset[Cell], opts: VisionOptions) -> Reading | None:
    """For check (opts.in_part), a grid whose reading was refused with labels hidden under written
    answers: read with those labels less sure (reading.under_answers_read), every label read two ways
    left free (reading.resolve_in_part), its borders weighed as always; None when that is refused too."""
    clues = under_answers_read(clues, hidden)
    try:
        res = resolve_in_part(geom.size, clues, opts.time_limit, hidden)
        check_borders(layout, cells, res.grid, opts.time_limit, hidden)
    except KkvisionError:
        return None
    return _reading(geom, layout, clues, res)


def _reading(geom: GridGeometry, layout: CageLayout, clues: tuple[ClueReading, ...], res: Resolution) -> Reading:
    """The grid's Reading from its resolved labels (the borders' changes noted first)."""
    notes = res.notes
    if layout.changed:
        notes = ("cage borders changed to agree with where the labels are: "
                 + ", ".join(map(str, layout.changed)),) + notes
    return Reading(geom, layout, clues, res.puzzle, res.grid, notes, res.labels, res.odds, res.undetermined)


def _mended_too_much(layout: CageLayout) -> None:
    """Raise UncertainReading when more borders were changed to agree with the labels than MAX_AGREED allows."""
    n = len(layout.right_thick)
    if len(layout.changed) > max(MIN_AGREED, MAX_AGREED * 2 * n * (n - 1)):
        raise UncertainReading(
            f"unsure of the cage borders: {len(layout.changed)} of the {2 * n * (n - 1)} lines between cells were"
            " called otherwise than where the labels are (" + ", ".join(map(str, layout.changed[:6]))
            + (", ..." if len(layout.changed) > 6 else "") + "); check the cages with --debug-dir",
            cells=tuple(dict.fromkeys(ch.a for ch in layout.changed)))


def as_read(reached: Reached) -> AsRead | None:
    """The grid's puzzle as its labels were read (each cage's most probable
    clue, None where no reading can be one), when the reading got that far."""
    if reached.geometry is None or reached.clues is None:
        return None
    n = reached.geometry.size
    out = []
    for rd in reached.clues:
        best = next(((cage, p) for text, p in rd.texts
                     if (cage := clue_for(text, rd.cells, n, latin=rd.source != "given"))), None)
        out.append((rd.cells, best[0] if best else None, best[1] if best else 0.0))
    return AsRead(n, tuple(out))
