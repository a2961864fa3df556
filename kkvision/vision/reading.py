"""Stage 4: decide what the labels say, all together, with the solver.

Every label comes with candidate texts and their probabilities (clues.py).
Each text that can be a clue for its cage is an option, and so is
'unreadable' (the label constrains nothing), priced at the probability the
reader left to texts it did not offer.  The solver finds the most probable
choice of one option per label under which the puzzle has a solution, then
the most probable choice whose solution differs.  kkvision answers only when
the first is at least e^MARGIN times more probable than the second; otherwise
it says which labels decide and what they might say (exit 13), or that the
puzzle as read has several solutions (exit 8).  An unreadable label that was
solved without gets a clue the solution meets.  Every label read otherwise
than the reader's first choice is reported in `notes`: kkvision never prints
the solution of a puzzle other than the one it read without saying so.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

from ..errors import (
    Ambiguous,
    ClueUnreadable,
    KkvisionError,
    SolverTimeout,
    UncertainReading,
    Unsolvable,
    UsageError,
)
from ..puzzle import Cage, Puzzle, by_largest, satisfies
from ..solver import Choice, most_probable
from ..vocab import HIDDEN, Cell, cell_name
from .clues import clue_for
from .stages import ClueReading, LabelDecision, Resolution

SCALE = 100  # solver cost units per nat of log-probability (integer costs)
MIN_PROBABILITY = 1e-5  # no option is deemed less likely than this
UNREADABLE_SPREAD = 20.0  # the leftover probability is shared among about this many other texts
FIX_HINT = "; a label read wrong can be given with --label CELL=LABEL (e.g. --label B3=12+)"
MARGIN = math.log(50)  # the answer must be this many nats (50x) more probable than any other solution's
ODDS_SEEN = MARGIN  # how far (nats) a rival is sought; bench/ widens it to calibrate MARGIN
MAX_UNREADABLE = 0.15  # more labels than this share solved without: refuse (exit 5)
# More labels than this share taken otherwise than the reader's first choice, or solved without (and
# more than one): the reader is out of its depth (a print style it never saw) and its probabilities,
# on which MARGIN rests, cannot be trusted: refuse (exit 5).  1.5 times the most seen on a real
# picture that was read right (3 of 31 labels, bench/real.py); a web theme's ÷ read as * and - as
# nothing (7 of 37 labels overruled) was answered wrong at odds it could not see (bench/scenes.py).
MAX_OVERRULED = 0.15
# The best choice is searched among options at most this many nats less
# probable than each label's first, widening only when none gives a grid: a
# choice whose total cost exceeds the labels' first choices by B uses no option
# worse than B, so the narrow search is exact and much faster.  Each budget is 1.5 times the last, up to 30
# nats, then all: a failed search costs less than the wider one after it, and a choice just past a budget is
# found by the next rather than by one three times as wide.  The same choices are found whatever the steps;
# real-dev's 116 weighings took 2.3 s of CPU rather than 2.9 with (4, 12, 30, all) (IMG_0662's both models
# together, its best choice 4.3 nats over: 1.4 -> 1.0 s).
BUDGETS = (4.0, 6.0, 9.0, 13.5, 20.0, 30.0, None)
# A label under a written answer (contents.under_answers), in a grid whose labels resolve refuses, is
# read through, or beside, the answer's strokes: its reader is surer than it is right there (of such
# labels read at 0.5..0.9, half are right).  Its texts' probabilities, with what the reader left
# unlisted, are raised to 1/HIDDEN_TEMPER and renormalised: where the truth's clue is likeliest on such
# labels of scenes with real hands (bench/hidden_labels.py: 1.238 nats at 1.25, 1.241 at 1.5, 1.274 at
# 2), the warmer end of that flat best, the less sure.
HIDDEN_TEMPER = 1.5


def _cost(p: float) -> int:
    return round(-SCALE * math.log(max(p, MIN_PROBABILITY)))


def options(rd: ClueReading, n: int) -> list[tuple[Cage | None, int]]:
    """The label's possible clues with their costs, most probable first;
    the last is None (unreadable).  A label the user gave (--label) is its one
    clue: never read otherwise, never solved without."""
    if rd.source == "given":
        given = clue_for(rd.text, rd.cells, n, latin=False)  # one no solution meets: exit 7, named
        if given is None:
            raise UsageError(f"--label {cell_name(rd.cells[0])}={rd.text}: not a possible clue for its cage of"
                             f" {len(rd.cells)} cell{'s' if len(rd.cells) > 1 else ''} in a {n}x{n} puzzle")
        return [(given, 0)]
    prob: dict[Cage, float] = {}
    for text, p in rd.texts:
        cage = clue_for(text, rd.cells, n)
        if cage is not None:
            prob[cage] = prob.get(cage, 0.0) + p
    leftover = max(0.0, 1.0 - sum(prob.values()))
    ranked = sorted(prob.items(), key=lambda cp: -cp[1])
    return [(c, _cost(p)) for c, p in ranked] + [(None, _cost(leftover / UNREADABLE_SPREAD))]


def under_answers_read(readings: tuple[ClueReading, ...], hidden: frozenset[Cell]) -> tuple[ClueReading, ...]:
    """The labels' readings, those under written answers (anchor in `hidden`; a label the user gave
    never is) tempered by HIDDEN_TEMPER: less sure, as their reader is less often right there."""
    return tuple(_tempered(rd) if rd.cells[0] in hidden and rd.source != "given" else rd for rd in readings)


def _numbers_only(readings: tuple[ClueReading, ...], hidden: frozenset[Cell]) -> tuple[ClueReading, ...]:
    """The readings, those under written answers (anchor in `hidden`; never a label the user gave) by
    their numbers alone: an answer's stroke through a label reads as an operator ('12+' read '12x', a
    single cell's '5' read '5-', which is no clue), so the operator read there is weak evidence; the
    texts with one number are one text, its operator unknown (as a hidden-operator puzzle prints it)."""
    def loose(rd: ClueReading) -> ClueReading:
        merged: dict[str, float] = {}
        for text, p in rd.texts:
            number = "".join(ch for ch in text if ch.isdigit())
            merged[number] = merged.get(number, 0.0) + p
        return replace(rd, texts=tuple(sorted(merged.items(), key=lambda tp: -tp[1])))
    return tuple(loose(rd) if rd.cells[0] in hidden and rd.source != "given" else rd for rd in readings)


def _operators_back(res: Resolution, readings: tuple[ClueReading, ...], loose: tuple[ClueReading, ...]
                    ) -> Resolution:
    """`res`, read with some labels by their numbers alone (`loose`: _numbers_only of `readings`), with
    each of those labels used taken as the likeliest of its texts as read with that number whose
    operator its cage's digits meet (none: the number alone, a hidden operator)."""
    n = res.puzzle.size
    labels = tuple(lb if rd is lo or lb.how in (HIDDEN, "not read") else replace(
        lb, read=rd.text, read_probability=rd.probability, used=(used := _with_operator(rd, lb.used, res.grid, n)),
        how="read" if used == clue_for(rd.text, rd.cells, n) else "changed")
        for lb, rd, lo in zip(res.labels, readings, loose))
    chosen = [None if lb.how in (HIDDEN, "not read") else lb.used for lb in labels]
    notes = [note for note in res.notes if not note.startswith(CHANGED)] + _changed(readings, chosen, n)
    return replace(res, puzzle=Puzzle(n, tuple(lb.used for lb in labels)), labels=labels, notes=tuple(notes))


def _with_operator(rd: ClueReading, cage: Cage, grid: tuple[tuple[int, ...], ...], n: int) -> Cage:
    """The clue a label read by its number alone (`cage`) is taken as: the likeliest of its texts as read
    with that number whose operator its cells' digits in `grid` meet (none: the number alone)."""
    values = [grid[r][c] for r, c in cage.cells]
    for text, _ in rd.texts:
        clue = clue_for(text, rd.cells, n)
        if clue is not None and clue.target == cage.target and satisfies(clue.op, clue.target, values):
            return clue
    return cage


def _tempered(rd: ClueReading, temper: float = HIDDEN_TEMPER) -> ClueReading:
    """The reading with its texts' probabilities, and what the reader left unlisted, raised to
    1/temper and renormalised (bench/hidden_labels.py fits `temper` with it)."""
    power = 1 / temper
    weights = [max(p, 0.0) ** power for _, p in rd.texts]
    total = sum(weights) + max(0.0, 1.0 - sum(p for _, p in rd.texts)) ** power
    if total <= 0:
        return rd
    return replace(rd, texts=tuple((text, w / total) for (text, _), w in zip(rd.texts, weights)))


def _inferred(rd: ClueReading, grid: tuple[tuple[int, ...], ...]) -> Cage:
    """A clue for an unreadable label that the solved grid meets: the operator
    read (if any) with the value the grid gives, else the sum as a hidden operator."""
    values = [grid[r][c] for r, c in rd.cells]
    if len(values) == 1:
        return Cage("=", values[0], rd.cells)
    if rd.op == "*":
        return Cage("*", math.prod(values), rd.cells)
    made = by_largest(rd.op, values) if rd.op in "-/" else None  # two cells', or a puzzle book's
    if made is not None and made >= 0:
        return Cage(rd.op, made, rd.cells)
    return Cage("+" if rd.op == "+" else "?", sum(values), rd.cells)


def _said(cage: Cage | None) -> str:
    return "nothing legible" if cage is None else cage.label


def _read_as(rd: ClueReading) -> str:
    return repr(rd.text) if rd.text else "nothing"


def _within(opts: list[list[tuple[Cage | None, int]]], budget: float | None) -> list[list[tuple[Cage | None, int]]]:
    """Each label's options no more than `budget` nats worse than its best."""
    if budget is None:
        return opts
    return [[(c, k) for c, k in o if k - min(k for _, k in o) <= budget * SCALE] for o in opts]


def _widen(choice: Choice, opts: list[list[tuple[Cage | None, int]]],
           narrow: list[list[tuple[Cage | None, int]]]) -> Choice:
    """The choice with its picks as indices into the full option lists."""
    picks = tuple(opts[i].index(narrow[i][j]) for i, j in enumerate(choice.picks))
    return Choice(picks, choice.grid, choice.cost, choice.proven)


def _best(n: int, opts: list[list[tuple[Cage | None, int]]], time_limit: float, max_cost: int | None = None
          ) -> Choice | None:
    """The most probable choice that has a solution (costing at most max_cost when given), or None."""
    floor = sum(min(k for _, k in o) for o in opts)
    if max_cost is not None and max_cost < floor:
        return None
    for budget in BUDGETS:
        cap = None if budget is None else floor + int(budget * SCALE)
        if max_cost is not None:
            cap = max_cost if cap is None else min(cap, max_cost)
        found = most_probable(n, _within(opts, budget), time_limit, max_cost=cap)
        if found is not None:
            return _widen(found, opts, _within(opts, budget))
        if max_cost is not None and cap == max_cost:
            return None  # the narrow search was exact up to max_cost: a wider one finds nothing cheaper
    return None


def best_reading(n: int, readings: tuple[ClueReading, ...], time_limit: float, max_cost: float | None = None
                 ) -> tuple[float, tuple[tuple[int, ...], ...]] | None:
    """The cost (nats) and grid of the most probable reading that has a solution;
    None when no reading has one (costing at most max_cost nats, when given: a
    layout weighed against an answer matters only within MARGIN of it, and the
    search is quick when bounded so, long when asked to prove no reading at all
    solves).  (Other cage layouts are weighed with it.)"""
    cap = None if max_cost is None else math.floor(max_cost * SCALE)
    best = _best(n, [options(rd, n) for rd in readings], time_limit, cap)
    return None if best is None else (best.cost / SCALE, best.grid)


def resolve(n: int, readings: tuple[ClueReading, ...], time_limit: float,
            hidden: frozenset[Cell] = frozenset()) -> Resolution:
    """The puzzle the labels most probably say, with its one solution; raises
    when that is not clearly more probable than a reading with another
    solution (UncertainReading, Ambiguous, ClueUnreadable), or none has one.
    `hidden`: the cells whose label a player's answer may hide (written over
    it: contents.under_answers); a label there solved without is not counted
    against MAX_UNREADABLE (nor, read as no clue, against _hopeless's bound)."""
    hopeless = _hopeless(n, readings, hidden)
    if hopeless is not None:
        raise hopeless
    opts = [options(rd, n) for rd in readings]
    best = _best(n, opts, time_limit)
    trouble = _trouble(n, readings, opts, best, hidden)
    if trouble is not None:
        raise _given_at_fault(n, readings, opts, best, time_limit, hidden) or trouble
    assert best is not None
    unread = [readings[i] for i, j in enumerate(best.picks) if opts[i][j][0] is None]
    # a rival need only be sought within the margin: options further off cannot be part of one
    seen = max(MARGIN, ODDS_SEEN)
    floor = sum(min(k for _, k in o) for o in opts)
    narrow = _within(opts, (best.cost - floor) / SCALE + seen)
    rival = most_probable(n, narrow, time_limit, forbid=best.grid, max_cost=best.cost + int(seen * SCALE) - 1)
    if rival is not None:
        rival = _widen(rival, opts, narrow)
    if rival is not None and not rival.proven:
        raise SolverTimeout(f"the solver could not rule out other readings within {time_limit:g} s;"
                            " try a larger --time-limit")
    odds = math.inf if rival is None else (rival.cost - best.cost) / SCALE
    if rival is not None and odds < MARGIN:
        raise _given_at_fault(n, readings, opts, best, time_limit, hidden) or _doubt(readings, opts, best, rival)
    chosen = [opts[i][j][0] for i, j in enumerate(best.picks)]
    final = [c if c is not None else _inferred(rd, best.grid) for rd, c in zip(readings, chosen)]
    notes = _changed(readings, chosen, n)
    if unread:
        notes.append("labels not read, solved without them: "
                     + ", ".join(f"{cell_name(c.anchor)} (taken as {c.label})"
                                 for c, was in zip(final, chosen) if was is None))
    labels = tuple(_decision(rd, opts[i][j], final[i], n) for i, (rd, j) in enumerate(zip(readings, best.picks)))
    return Resolution(Puzzle(n, tuple(final)), best.grid, labels, odds, tuple(notes))


def resolve_in_part(n: int, readings: tuple[ClueReading, ...], time_limit: float, hidden: frozenset[Cell]
                    ) -> Resolution:
    """For `check`, when resolve refuses a grid whose written answers hide some labels (`hidden`:
    contents.under_answers; their readings tempered, under_answers_read): the puzzle with the labels
    under answers not read at all, each free to say anything, the others weighed as resolve weighs
    them; and the cells whose digit those free labels leave open (`undetermined`): every cell where
    some reading within MARGIN of the best, with its grid, differs from the best's grid.  The other
    cells are the same in every such grid, whatever the hidden labels say, so an answer written there
    is judged as surely as in a grid read whole.  Then the labels under answers are weighed too, as
    read (less surely): those read surely enough to allow one grid decide the cells they do, those read
    two ways are freed again; that reading is taken when it decides more cells and agrees with the
    first in every cell the first decides (a label under an answer never changes a cell the others
    decide).  A label not hidden read two ways within the margin, each with its own grid (an answer's
    stroke beside it read as an operator, a digit half covered), is left free too, and the cells it
    decides open, rather than the grid refused: those cells are not judged, the others as surely as
    before.  Raises resolve's errors when the labels not hidden do not read as a puzzle (too many
    overruled or not read), or when every cell is left open (nothing to judge: the refusal says more)."""
    without = _resolve_freeing(n, readings, time_limit, hidden, hidden)
    if not without.undetermined:
        return without
    try:
        loose = _numbers_only(readings, hidden)
        weighed = _operators_back(_resolve_freeing(n, loose, time_limit, hidden, frozenset()), readings, loose)
    except KkvisionError:
        return without
    if weighed.undetermined < without.undetermined and all(
            weighed.grid[r][c] == without.grid[r][c] for r in range(n) for c in range(n)
            if (r, c) not in without.undetermined):
        return weighed
    return without


def _resolve_freeing(n: int, readings: tuple[ClueReading, ...], time_limit: float, hidden: frozenset[Cell],
             free: frozenset[Cell]) -> Resolution:
    """resolve_in_part's reading with the labels in `free` not read, and every label read two ways freed."""
    doubtful: frozenset[Cell] = frozenset()  # labels read two ways, each with its grid
    while True:
        freed, opts = _freeing(n, readings, free | doubtful)
        best = _best(n, opts, time_limit)
        trouble = _trouble(n, readings, opts, best, hidden | doubtful, in_part=True)
        if trouble is not None:
            raise trouble
        assert best is not None
        undetermined, two_ways = _left_open(n, readings, opts, best, time_limit)
        if not two_ways:
            break
        doubtful |= two_ways
    chosen = [opts[i][j][0] for i, j in enumerate(best.picks)]
    # not used: the labels freed, and those under answers whose every reading leaves no solution
    unused = [f or (rd.cells[0] in hidden and rd.source != "given" and c is None)
              for rd, f, c in zip(readings, freed, chosen)]
    if len(undetermined) == n * n:
        raise _unreadable([rd for rd, u in zip(readings, unused) if u])
    final = [c if c is not None else _inferred(rd, best.grid) for rd, c in zip(readings, chosen)]
    labels = tuple(LabelDecision(rd.cells, rd.text, rd.probability, final[i], 0.0, HIDDEN)
                   if unused[i] else _decision(rd, opts[i][j], final[i], n)
                   for i, (rd, j) in enumerate(zip(readings, best.picks)))
    under = sorted(rd.cells[0] for rd, u in zip(readings, unused) if u and rd.cells[0] in hidden)
    beside = sorted(cell for cell in doubtful if cell not in hidden)
    why = ([f"labels under written answers not read: {', '.join(map(cell_name, under))}"] if under else []) + (
        [f"labels read two ways, each with another solution, not used: {', '.join(map(cell_name, beside))}"]
        if beside else [])
    left = ", ".join(map(cell_name, sorted(undetermined)))
    if why:
        why.append(f"the cells whose digit they decide are not judged: {left}" if undetermined
                   else "the other labels decide every cell")
    elif undetermined:
        why.append(f"the labels leave these cells open, not judged: {left}")
    notes = ["; ".join(why)] * bool(why) + _changed(readings, chosen, n)
    return Resolution(Puzzle(n, tuple(final)), best.grid, labels, math.inf, tuple(notes), undetermined)


def _left_open(n: int, readings: tuple[ClueReading, ...], free: list[list[tuple[Cage | None, int]]], best: Choice,
               time_limit: float) -> tuple[frozenset[Cell], frozenset[Cell]]:
    """For resolve_in_part, the labels' options `free` (some freed) and their likeliest reading `best`:
    the cells where some reading within the margin (MARGIN, ODDS_SEEN) has another grid, found rival by
    rival (CP-SAT asked for a grid that differs outside the cells found so far); and, when a rival
    reads a label otherwise (a label not freed read two ways, each with its grid), that label's anchor
    instead, the search stopped (a freed label and one the user gave have one reading: it is another)."""
    seen = max(MARGIN, ODDS_SEEN)
    floor = sum(min(k for _, k in o) for o in free)
    narrow = _within(free, (best.cost - floor) / SCALE + seen)
    undetermined: set[Cell] = set()
    while len(undetermined) < n * n:
        rival = most_probable(n, narrow, time_limit, forbid=best.grid, max_cost=best.cost + int(seen * SCALE) - 1,
                              besides=frozenset(undetermined))
        if rival is None:
            break
        rival = _widen(rival, free, narrow)
        if rival.picks != best.picks:
            return frozenset(undetermined), frozenset(readings[i].cells[0] for i, (a, b)
                                                      in enumerate(zip(rival.picks, best.picks)) if a != b)
        undetermined |= {(r, c) for r in range(n) for c in range(n) if rival.grid[r][c] != best.grid[r][c]}
    return frozenset(undetermined), frozenset()


def _freeing(n: int, readings: tuple[ClueReading, ...], hidden: frozenset[Cell]
             ) -> tuple[list[bool], list[list[tuple[Cage | None, int]]]]:
    """Which labels are read in part without (their anchor in `hidden`; a given label never is), and
    every label's options, a freed one's only that it constrains nothing."""
    freed = [rd.cells[0] in hidden and rd.source != "given" for rd in readings]
    anything: list[tuple[Cage | None, int]] = [(None, 0)]
    return freed, [anything if f else options(rd, n) for rd, f in zip(readings, freed)]


def against_answers(n: int, readings: tuple[ClueReading, ...], grid: tuple[tuple[int, ...], ...],
                    answers: dict[Cell, int], price: float, time_limit: float,
                    freed: frozenset[Cell] = frozenset()) -> frozenset[Cell]:
    """For check: the cells where the answers written make another grid more probable than `grid` (the
    labels' answer).  Each answer is evidence of its cell's digit: the most probable choice of the labels'
    readings and a grid, each answer costing `price` nats where the grid's digit is another, differs from
    `grid` in these cells (none: the answers change nothing).  A label misread surely (an answer's stroke
    over its '5' read '16+' for '15+') can make a grid other than the printed puzzle's that the reading
    cannot tell from it, and the user's right answers there then read as wrong; weighed with them, the
    labels say otherwise.  Labels whose anchor is in `freed` (resolve_in_part's: hidden, not read)
    constrain nothing, as there."""
    _, opts = _freeing(n, readings, freed)
    prefer = {cell: (digit, round(price * SCALE)) for cell, digit in answers.items()}
    # `grid` priced so bounds the search: a cheaper choice uses no option dearer than that over each label's best
    cap = (sum(min(k for cage, k in o if cage is None or satisfies(cage.op, cage.target, [grid[r][c] for r, c in cage.cells]))
               for o in opts)
           + sum(k for (r, c), (digit, k) in prefer.items() if grid[r][c] != digit))
    floor = sum(min(k for _, k in o) for o in opts)
    found = most_probable(n, _within(opts, (cap - floor) / SCALE), time_limit, max_cost=cap, prefer=prefer)
    if found is None:
        return frozenset()
    return frozenset((r, c) for r in range(n) for c in range(n) if found.grid[r][c] != grid[r][c])


def ruled_out(n: int, readings: tuple[ClueReading, ...], digits: dict[Cell, frozenset[int]], time_limit: float,
              freed: frozenset[Cell] = frozenset(), answers: dict[Cell, int] | None = None, price: float = 0.0
              ) -> frozenset[Cell]:
    """For check, a grid read in part (resolve_in_part, the labels in `freed` not read): of the cells
    given, each with the digits its answer may be (`digits`), those where no reading of the labels
    within MARGIN of the likeliest, with its grid, puts any of them: the answer there is wrong whatever
    the hidden labels say.  Nor may one do so once the answers written in the OTHER cells (`answers`,
    each costing `price` nats where a grid's digit is another, as in against_answers) weigh the
    readings too: a label misread surely elsewhere, which the other answers contradict, must not rule a
    right answer out.  The answers never rule a cell out by themselves: a chain of wrong answers
    agreeing with every label read would, and the labels alone keep the right digit allowed there.
    Cells not weighed within `time_limit` are not ruled out."""
    deadline = time.monotonic() + time_limit
    _, opts = _freeing(n, readings, freed)
    seen = int(max(MARGIN, ODDS_SEEN) * SCALE)
    cost = round(price * SCALE)
    weighed = {cell: (digit, cost) for cell, digit in (answers or {}).items()} if cost else {}

    def likeliest(prefer: dict[Cell, tuple[int, int]]) -> Choice | None:
        """The likeliest reading priced with `prefer` (None: out of time)."""
        left = deadline - time.monotonic()
        return most_probable(n, opts, left, prefer=prefer) if left > 0 else None

    def allows(cell: Cell, maybe: frozenset[int], prefer: dict[Cell, tuple[int, int]], best: Choice | None
               ) -> bool | None:
        """Whether a reading within the margin of `best`, priced with `prefer`, puts one of `maybe` in
        the cell (None: out of time)."""
        if best is None:
            return None
        for digit in sorted(maybe):
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            # a grid within the margin with the digit there (any other digit costs more than the margin)
            if most_probable(n, opts, left, max_cost=best.cost + seen - 1,
                             prefer={**prefer, cell: (digit, seen)}) is not None:
                return True
        return False

    out: set[Cell] = set()
    try:
        by_labels = likeliest({})  # the labels alone: the same likeliest reading for every cell
        for cell, maybe in sorted(digits.items()):
            allowed = allows(cell, maybe, {}, by_labels)
            if allowed is None:
                break
            if allowed:
                continue
            others = {k: v for k, v in weighed.items() if k != cell}  # the cell's own answer left out
            with_answers = allows(cell, maybe, others, likeliest(others)) if others else False
            if with_answers is None:
                break
            if not with_answers:
                out.add(cell)
    except SolverTimeout:
        pass
    return frozenset(out)


# the note that begins with this names the labels taken otherwise than read (_changed)
CHANGED = "labels read otherwise than the reader's first choice, so that the puzzle has a solution: "


def _changed(readings: tuple[ClueReading, ...], chosen: list[Cage | None], n: int) -> list[str]:
    """The note naming the labels taken otherwise than the reader's first choice (none: [])."""
    changed = [f"{cell_name(rd.cells[0])} read as {_read_as(rd)}, taken as {c.label}"
               for rd, c in zip(readings, chosen) if c is not None and c != clue_for(rd.text, rd.cells, n)]
    return [CHANGED + "; ".join(changed)] if changed else []


def _trouble(n: int, readings: tuple[ClueReading, ...], opts: list[list[tuple[Cage | None, int]]],
             best: Choice | None, hidden: frozenset[Cell] = frozenset(), in_part: bool = False
             ) -> KkvisionError | None:
    """Why the best reading cannot be answered: none has a solution (exit 7), or
    it solves only without, or by overruling, too many labels (exit 5; a label
    an answer may hide, in `hidden`, solved without is not counted; `in_part`
    (resolve_in_part: those labels not read at all), nor overruled)."""
    if best is None:
        return Unsolvable("no reading of the labels gives a puzzle with a solution; check the picture with"
                          " --debug-dir (labels read: "
                          + ", ".join(f"{cell_name(rd.cells[0])} {_read_as(rd)}" for rd in readings) + ")" + FIX_HINT)
    unread = [rd for i, (rd, j) in enumerate(zip(readings, best.picks))
              if rd.source != "given" and opts[i][j][0] is None  # (a given label is left free by _given_at_fault)
              and rd.cells[0] not in hidden]
    if len(unread) > MAX_UNREADABLE * len(readings):
        return _unreadable(unread)
    overruled = [rd for i, (rd, j) in enumerate(zip(readings, best.picks))
                 if rd.source != "given" and opts[i][j][0] != clue_for(rd.text, rd.cells, n)
                 and not (in_part and rd.cells[0] in hidden)]
    if len(overruled) > max(1, MAX_OVERRULED * len(readings)):
        return _unreadable(overruled)
    return None


def _hopeless(n: int, readings: tuple[ClueReading, ...], hidden: frozenset[Cell] = frozenset()
              ) -> ClueUnreadable | None:
    """Refused before any search when too many labels' first readings are no clue for their cages:
    every answer would solve without, or overrule, each of them, and _trouble refuses more than
    MAX_UNREADABLE of the one and MAX_OVERRULED of the other.  (A picture read the wrong way round
    reads mostly nothing; searching every reading of such labels runs to the time limit.)"""
    if any(rd.source == "given" for rd in readings):
        return None  # _given_at_fault may name the given labels instead
    bad = [rd for rd in unclued(n, readings) if rd.cells[0] not in hidden]
    allowed = MAX_UNREADABLE * len(readings) + max(1, MAX_OVERRULED * len(readings))
    return _unreadable(bad) if len(bad) > allowed else None


def unclued(n: int, readings: tuple[ClueReading, ...]) -> list[ClueReading]:
    """The labels whose first reading is no clue for their cage (nothing, or a target its
    cells cannot make): what a grid read the wrong way round is mostly made of."""
    return [rd for rd in readings if clue_for(rd.text, rd.cells, n) is None]


def _given_at_fault(n: int, readings: tuple[ClueReading, ...], opts: list[list[tuple[Cage | None, int]]],
                    best: Choice | None, time_limit: float, hidden: frozenset[Cell] = frozenset()
                    ) -> Unsolvable | None:
    """When the labels the user gave (--label) are what leaves no answer: the
    other labels read as a puzzle without them (labels an answer may hide,
    `hidden`, solved without as resolve allows), and with them the best reading
    had to read some otherwise or not at all and is still refused (exit 7,
    naming them; never dropped in silence).  None when none was given, or the
    other labels do not read as a puzzle either (that refusal stands)."""
    given = [i for i, rd in enumerate(readings) if rd.source == "given"]
    if not given:
        return None
    anything: list[tuple[Cage | None, int]] = [(None, 0)]  # a given label left free: it constrains nothing
    free = [anything if i in given else o for i, o in enumerate(opts)]
    alone = _best(n, free, time_limit)
    if alone is None or _trouble(n, readings, free, alone, hidden) is not None:
        return None
    if best is not None and all(best.picks[i] == alone.picks[i] for i in range(len(readings)) if i not in given):
        return None  # the given labels changed nothing else: the refusal is the picture's
    named = ", ".join(f"{cell_name(readings[i].cells[0])}={readings[i].text}" for i in given)
    return Unsolvable(f"--label {named}: the puzzle has no solution with {'these labels' if len(given) > 1 else 'it'}"
                      " and the other labels as read (without, it has one); check the label"
                      f"{'s' if len(given) > 1 else ''} given, or give the others it needs with --label",
                      cells=tuple(readings[i].cells[0] for i in given))


def _decision(rd: ClueReading, option: tuple[Cage | None, int], used: Cage, n: int) -> LabelDecision:
    cage, cost = option
    how = "not read" if cage is None else ("read" if cage == clue_for(rd.text, rd.cells, n) else "changed")
    if rd.source == "given" and how == "read":
        how = "given"
    p = math.exp(-cost / SCALE) * (UNREADABLE_SPREAD if cage is None else 1.0)
    return LabelDecision(rd.cells, rd.text, rd.probability, used, min(1.0, p), how)


def _unreadable(readings: list[ClueReading]) -> ClueUnreadable:
    where = ", ".join(f"{cell_name(rd.cells[0])} (read {_read_as(rd)})" for rd in readings[:6])
    return ClueUnreadable(f"cannot read the labels at {where}; try a sharper or closer picture,"
                          " or --debug-dir to see what was read" + FIX_HINT, cells=tuple(rd.cells[0] for rd in readings))


def _doubt(readings: tuple[ClueReading, ...], opts: list[list[tuple[Cage | None, int]]], best: Choice,
           rival: Choice) -> Ambiguous | ClueUnreadable | UncertainReading:
    """Why two solutions are nearly as likely: the same labels (the puzzle as
    read has several solutions), or labels that may be read two ways."""
    differ = [i for i, (a, b) in enumerate(zip(best.picks, rival.picks)) if a != b]
    cells = sum(a != b for ra, rb in zip(best.grid, rival.grid) for a, b in zip(ra, rb))
    if not differ:
        unread = [readings[i] for i, j in enumerate(best.picks) if opts[i][j][0] is None]
        if unread:
            return _unreadable(unread)
        return Ambiguous(f"the puzzle as read has more than one solution (two of them differ in {cells} cells);"
                         " check the cages and labels with --debug-dir" + FIX_HINT)
    odds = math.exp((rival.cost - best.cost) / SCALE)
    which = "; ".join(f"{cell_name(readings[i].cells[0])} {_said(opts[i][best.picks[i]][0])}"
                      f" or {_said(opts[i][rival.picks[i]][0])}" for i in differ[:8])
    return UncertainReading(f"unsure of the labels at {which}: the two readings give solutions that differ in"
                            f" {cells} cells, and the first is only {odds:.1f} times as likely;"
                            " check those labels with --debug-dir" + FIX_HINT,
                            cells=tuple(readings[i].cells[0] for i in differ))
