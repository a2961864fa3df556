"""The user's own answers: read them and mark the wrong cells (`kkvision check`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ExitCode, InputError
from .puzzle import Grid, Puzzle
from .vision.stages import ClueReading, GridGeometry
from .vocab import Cell, cell_name

BLANK = 0
# A cell is wrong, to the cell reader, when its right digit is at most ONE_READER probable (below) and the
# other digits at least WRONG_SURE together (written, and not the right digit, at least that surely: a digit
# the grid cannot hold, read where the right one is written, counts as not the right one too), the two
# likeliest of the digits the grid can hold at least CONCENTRATED (a reading spread thin over many digits, or
# over digits no one writes in that grid, is a confused one, never a verdict); the framed-answer reader must
# agree (ONE_READER, JOINT).  WRONG_SURE and CONCENTRATED were set on bench/check.py's scenes of seeds
# 100..159 (bench/check_rules.py), apart from the seeds it reports: a right answer in a held-out hand was
# read 0.028 probable, its two likeliest others 0.9; counting the others over every digit for CONCENTRATED
# too, a right 2 of a held-out hand in a 6x6 read 9/1/6/7 was called wrong.
# A digit the cell reader gives NOT_RIGHT or less is not what is written (_maybe): with the calibrated
# reader of real hands a wrong answer's right digit is read at 0.001 or less as a rule, while right answers
# were read 0.008 (a flat-topped 3 read 7) and 0.018 (a 4 written over its label read 1).
NOT_RIGHT = 0.005
WRONG_SURE = 0.85
CONCENTRATED = 0.5
# A cell holds what a cell of its grid can (nothing, pencil marks, a digit 1..n): the reader's
# probabilities are for any digit 1..9 alike, so a right answer is judged by them given that (_in_grid),
# when those are at least IN_GRID together (a reading nearly all of digits the grid cannot hold is a
# confused one: judged as read).  On bench/check.py's working split, 4s written with an open top were
# read 9 0.65, 4 0.34 (an 8x8; in-grid 0.35: a 4 at 0.97) and 9 0.96, 4 0.03 (left unsure).
IN_GRID = 0.25
# The reader's probabilities say what a cell holds as if every digit were as likely written; a right
# answer is judged on the odds that what was written is the solution's digit, before reading, of ANSWERED
# (_right_given): a written answer as likely wrong as right (the other digits share the other half),
# nothing and notes each as likely as the right digit.  A user's answers are mostly right; even half
# wrong, they are judged honestly.  On bench/check.py's real hands of the working split, seeds 100..179
# (not the ones it reports): of 2416 right answers 2299 were SURE as read and 2353 on these odds; of
# 119 wrong answers none was either way (the most any wrong cell's right digit was read: 0.13).
ANSWERED = 0.5
# A cell is blank (nothing written, or only pencil marks) when nothing or notes are this probable together.
# Below digits.SURE: on the font scenes no written cell was read above 0.31 blank (3885 of them), while 185
# of 3666 blank ones were read 0.8-0.9 (a label's tail, a shadow, notes): at SURE they were unsure.  Real
# hands are read so less surely: on bench/check_rules.py's (seeds 100..259) 15 of the written cells were
# read 0.8 or more nothing or notes (the most 0.98; 10 at 0.9), all right answers, taken as blank: a gap
# (a wrong answer read so would be taken as blank too), that a higher bound does not close.
BLANK_SURE = 0.8
# A cell read surely as another digit (WRONG_SURE, CONCENTRATED) is called wrong only when the framed-answer
# reader (vision/framed.py: the answer's ink alone and its whole strokes, each framed as MNIST frames a
# digit) agrees: the cell reader's likeliest digit is its likeliest in one of its framings (two readers
# that see different digits see a shape between them: a thin 1 written through a label's '÷' read 7 by one
# and 4 by the other; pencil candidates '4 8 6' read 6 and 4), neither reader gives the right digit more
# than ONE_READER, and the two, taken as independent evidence, give it at most JOINT together (the product
# of the cell reader's probability and the framed reader's likelier framing's).  On bench/check_rules.py's
# real hands of the working split (seeds 100..259, not the ones bench/check.py reports): of 292 wrong
# answers this calls 276 and of 6153 right or pencil cells none; the nearest are a 3 read 2 by both
# (0.022 x 0.0014) and an 8 read 5 (0.0018 x 0.018), 3e-5 each.  JOINT 2e-5 called as many, 3e-6 four
# fewer, 1e-4 two more and three right cells; ONE_READER 0.02..0.1 the same.  The rule before (the cell
# reader's right digit at most NOT_RIGHT, the framed reader's under FRAMED_DOUBT, the likeliest steady
# with the box nudged) called 266 and two right cells (that 8 among them): each reader's bound alone is
# loose where the other is sure, and the nudges saved no right cell there once the framed reader is asked.
ONE_READER = 0.05
JOINT = 1e-5
# ... and only when the cell reader of its ink alone (contents.alone_in: the labels' and lines' ink painted
# out) reads an answer there too: nothing and notes together less than ALONE_ANSWER, a digit likelier than
# not.  A kids' site's big label '3-' in an empty cell was read a 5 by the cell reader and, its mask holding
# the label's strokes, by the framed reader: called wrong; its ink alone read notes 0.69, nothing 0.29.  On
# bench/check_rules.py's real hands (seeds 100..259) no wrong answer called was read so above 0.03 (of 276).
ALONE_ANSWER = 0.5
# A digit some reader of a cell gives more than NOT_RIGHT (the cell reader) or FRAMED_DOUBT (the framed-answer
# reader) may be what is written there (_maybe: the answers in the cells a grid read in part leaves open).
FRAMED_DOUBT = 0.1
# A right answer neither sure to the cell reader nor to its reading of the ink alone is right when the
# framed-answer reader is SURE of it in one framing, given the grid's digits; where that framing reads another
# digit likeliest of all nine (sure only with the digits the grid cannot hold set aside), only when its other
# framing (where it saw ink) does not rule it out, giving it more than ONE_READER (_framed_right).  A wrong 3
# of a real hand framed alone was read 7 0.61 and 2 (the right digit) 0.30, 0.91 of the 6x6's digits, and
# 3 0.86, 2 0.000 from its whole strokes: it had been taken as right (bench/check_rules.py, seeds 100..259).
# This loses 2 right answers of 6094 there; the other framing asked never to rule the right digit out, 10
# (a right 3 framed alone read 5 1.00, its strokes 3 0.99); asked to read it likeliest, 20.  Or right when
# the cell reader (of the cell or of its ink alone, the likelier) and the framed reader's likelier framing
# each give it more than TOGETHER (given the grid's digits) and their odds, multiplied as independent
# evidence's, reach SURE's (_together_right): a 5 read 0.90 as the cell and 0.88 framed, a 2 0.89 alone and
# 0.71 framed; 8 more right answers there.  No wrong answer there was read more than 0.2 right by the cell
# reader, either way, but one (0.79; framed 0.004), nor a pencil cell but two (0.50 and 0.45 framed; 0.78 and
# 0.07): each reader must favour the right digit.
TOGETHER = 0.5
# The answers are evidence of the puzzle too (reading.against_answers): an answer is the cell's digit
# WRITTEN_RIGHT of the time, else any other of the grid's n - 1 digits, so a grid that agrees with it is
# (n - 1) WRITTEN_RIGHT / (1 - WRITTEN_RIGHT) times likelier for it.  Most answers a user checks are right.
# Weighed so, a label misread surely where answers are written (a 9 over a '15+' read '16+'; a 5+ read '3+')
# no longer makes another puzzle's grid the answer unseen: the cells where the answers make the labels say
# otherwise are not judged.  On bench/check.py's real hands of the working split (seeds 100..179, and the
# big hands and photos of seeds 100..139 on held-out themes; not the ones it reports) puzzles checked against
# another grid 3 -> 0 of 180 (their right answers had been called wrong), wrong answers caught 187 -> 187,
# right verdicts 139 -> 139, cells not judged 675 -> 679; at 0.5 or 0.8 one stayed (a 4x4: an answer is
# only ln 3 nats at 0.5), 0.97 did as 0.9.  Its cost: a user who solved a misread puzzle of their own
# consistently is told those cells are not judged, not wrong (their answers are another grid's).
WRITTEN_RIGHT = 0.9
# in_one_hand: a cell called wrong whose misreading the page repeats is not judged when its framed answer
# correlates this much with one of the page's right answers of its right digit (1: the same shape).  On
# bench/check_rules.py's cells of the working split's real hands, seeds 300..459 (10 right answers called
# wrong, 223 wrong ones) and 100..259 (0 and 276): at 0.8, 5 of those 10 not judged and 0 + 1 wrong ones
# lost; 0.75: 6, 2 + 9 lost; 0.7: 6, 2 + 15; 0.6: 6, 6 + 23.  A wrong answer and the hand's right answers
# of its cell's digit correlate 0.67 at the median there, 0.80 at the 95th percentile
HAND_LIKE = 0.8
# in_one_hand: an answer left not judged is right when it looks like the hand's own sure answers of its cell's
# right digit (_written_alike): the likeness of two framed answers is the cosine of what the framed-answer
# network's last layer reads of each (framed.shapes: 0..1), the answer's likeness to a digit the most of its
# likenesses to the hand's sure right answers of that digit on the page.  Right when that is at least HAND_SAME
# for the right digit and HAND_APART more than for any other digit the page has in that hand, the digit the
# cell reader reads likeliest among them (a wrong answer is written as the hand writes its own digit: it is
# likest the hand's answers of that digit).  Set on the cells of bench/check.py's real hands of the working
# split at seeds 700..779 (not the ones it reports): of 85 answers left not judged with the hand's answers of
# their digit on the page, 13 of 63 right ones are judged right, 0 of 16 wrong ones and 0 of 6 pencil cells
# (the likest a wrong answer was to its right digit against its own: 0.05 less); looked at after, seeds
# 900..979: 24 of 70, 0 of 12, 0 of 3; 300..379: 15 of 50, 0 of 8, 0 of 7; 500..579: 7 of 58, 0 of 7, 0 of 6.
# Then seeds 1000..1079 judged a wrong 7 right where a 1 goes (like the hand's 1s 0.90, its 7s 0.57; read 7
# and, framed, 2): so a reader must read the right digit likeliest too (the cell reader, or the framed reader
# of the answer framed).  Of the answers judged right so at seeds 1000, 700 and 900, 16 of 19, 4 of 6 and 17
# of 28 still are (offline, per page), the wrong 7 not.
# Pixels' correlation (HAND_LIKE) had judged wrong answers and pencil cells right at every margin: the
# network's features are the shape without the pen's width and place.  (For a shape the reader reads surely
# as another digit it is the other way round: _misread_alike's pixels keep 6 of 8 such right answers from
# wrong on seeds 300..379 and 500..579, these features 1, being a 3's for a flat-topped 5 read 3.)  The
# hand's answers called wrong counted as its ways of writing their digit too: the same verdicts at seeds
# 700, 800 and 900.
HAND_SAME = 0.8
HAND_APART = 0.1
LIKE_BLUR = 1.0  # px of the 28-px frame: a stroke's width, so a pen's wobble is not a difference
LIKE_SHIFT = 2  # px of the 28-px frame: how far framing by the ink's mass may move one answer against another
DOUBT_TIME = 5.0  # s for that weighing: hundredths on the bench's 9x9s; past it, answers not the solution's are not judged
RULE_TIME = 5.0  # s to weigh the answers in the cells a grid read in part leaves open (_ruled_out); past it, left open


@dataclass(frozen=True)
class CheckResult:
    answers: Grid  # 0 where the user left a cell blank
    wrong: tuple[tuple[int, int], ...]
    blank: tuple[tuple[int, int], ...]

    @property
    def ok(self) -> bool:
        return not self.wrong


def read_answers(text: str, size: int) -> Grid:
    """n lines of n digits; spaces, commas and '|' are ignored; '.', '_' or 0 = blank."""
    rows = []
    for raw in text.splitlines():
        line = "".join(ch for ch in raw if ch not in " \t,|")
        if not line:
            continue
        row = []
        for ch in line:
            if ch in "._0":
                row.append(BLANK)
            elif ch in "123456789" and int(ch) <= size:  # ASCII only: '¹' or '٣' is a digit to isdigit()
                row.append(int(ch))
            else:
                raise InputError(f"answers: {ch!r} in line {raw.strip()!r} is not a digit 1..{size} or '.'")
        if len(row) != size:
            raise InputError(f"answers: line {raw.strip()!r} has {len(row)} cells, expected {size}")
        rows.append(tuple(row))
    if len(rows) != size:
        raise InputError(f"answers: {len(rows)} lines, expected {size}")
    return tuple(rows)


def check_answers(puzzle: Puzzle, solution: Grid, answers: Grid) -> CheckResult:
    n = puzzle.size
    wrong, blank = [], []
    for r in range(n):
        for c in range(n):
            if answers[r][c] == BLANK:
                blank.append((r, c))
            elif answers[r][c] != solution[r][c]:
                wrong.append((r, c))
    return CheckResult(answers, tuple(wrong), tuple(blank))


def verdict_of(check: CheckResult, unsure: tuple[Cell, ...] = ()) -> ExitCode:
    """`check`'s exit code: 0 only when every written cell was read surely and is
    right; 11 when some cell is wrong; else 15 when some written cell could not
    be read surely (not judged: never called right)."""
    if check.wrong:
        return ExitCode.ANSWERS_WRONG
    return ExitCode.ANSWERS_UNSURE if unsure else ExitCode.OK


@dataclass(frozen=True)
class Judged:
    """One puzzle's answers judged: the check, the written cells not read
    surely enough to judge (never called right or wrong), and the empty cells
    that hold pencil marks (notes: never an answer, counted blank)."""

    check: CheckResult
    unsure: tuple[Cell, ...] = ()
    pencil: tuple[Cell, ...] = ()
    left_open: tuple[Cell, ...] = ()  # of `unsure`, those whose digit labels hidden under answers decide (judge)
    doubted: tuple[Cell, ...] = ()  # cells whose digit the answers written make the labels say otherwise (judge)
    ruled_out: tuple[Cell, ...] = ()  # cells the labels leave open whose answer no reading of them allows (judge)

    @property
    def blank(self) -> tuple[Cell, ...]:
        """Cells left empty (a cell not read surely is written, not blank)."""
        return tuple(c for c in self.check.blank if c not in self.unsure)

    @property
    def verdict(self) -> ExitCode:
        return verdict_of(self.check, self.unsure)

    def record_fields(self, notes: tuple[str, ...]) -> dict[str, Any]:
        """This check's fields of the JSON record (report.outcome_record's extras), the puzzle's notes first."""
        unread = [c for c in self.unsure if c not in self.left_open]
        unsure = [f"unsure cells: {', '.join(map(cell_name, unread))}"] if unread else []
        ruled = ([f"of the cells the labels leave open, no reading of them allows the answer written in: "
                  f"{', '.join(map(cell_name, self.ruled_out))} (wrong)"] if self.ruled_out else [])
        return dict(exit_code=self.verdict, notes=list(notes) + ruled + unsure, wrong=[list(c) for c in self.check.wrong],
                    blank=[list(c) for c in self.blank], unsure=[list(c) for c in self.unsure],
                    pencil=[list(c) for c in self.pencil])


def judge(puzzle: Puzzle, solution: Grid, typed: str | None, picture: np.ndarray | None = None,
          geometry: GridGeometry | None = None, undetermined: frozenset[Cell] = frozenset(),
          clues: tuple[ClueReading, ...] = (), freed: frozenset[Cell] = frozenset(),
          written: Written | None = None) -> Judged:
    """The answers typed (an answers text), or else those written in the
    picture's cells, against the solution: `check`'s work for one puzzle.  An
    answer in a cell of `undetermined` (a grid read in part: the solution's
    digit there is one possibility of several) is not judged.  With the labels'
    readings (`clues`; `freed`: the anchors of those read in part without them),
    nor is an answer in a cell where the answers, weighed with the labels, make
    another grid likelier (_doubted), nor one read as another digit where its
    label was read with more digits than its clue (_under_own_label).  An answer in a cell of `undetermined`
    that no reading of the labels allows is wrong all the same (_ruled_out).
    `written`: the picture's cells as read_page read them with the page's other
    puzzles (the same hand's); else read here, this puzzle's alone."""
    unsure: tuple[Cell, ...] = ()
    pencil: tuple[Cell, ...] = ()
    if typed is not None:
        answers = read_answers(typed, puzzle.size)
    elif picture is None or geometry is None:
        raise InputError("no answers to check: give them typed, or check a picture with the answers written in")
    else:
        written = written or read_page(picture, [(geometry, solution)])[0]
        answers, unsure, pencil = written.answers, written.unsure, written.pencil
    ruled = _ruled_out(puzzle.size, solution, typed, picture, geometry, answers, unsure, clues, freed, undetermined)
    if ruled:
        answers = tuple(tuple(ruled.get((r, c), d) for c, d in enumerate(row)) for r, row in enumerate(answers))
        unsure = tuple(c for c in unsure if c not in ruled)
    doubted = _doubted(puzzle.size, solution, answers, clues, freed) - undetermined
    crossed = (_under_own_label(puzzle, solution, answers, clues) if typed is None else frozenset()
               ) - undetermined - doubted
    # a label read with an answer's digit added: its ink and the answer's mixed up, never wrong
    answers, unsure = _not_judged(answers, unsure, crossed)
    kept, unsure, left = _left_open(answers, unsure, (undetermined - ruled.keys()) | doubted)
    return Judged(check_answers(puzzle, solution, kept), unsure, pencil, left, tuple(sorted(doubted)),
                  tuple(sorted(ruled)))


def _ruled_out(n: int, solution: Grid, typed: str | None, picture: np.ndarray | None,
               geometry: GridGeometry | None, answers: Grid, unsure: tuple[Cell, ...],
               clues: tuple[ClueReading, ...], freed: frozenset[Cell], undetermined: frozenset[Cell]
               ) -> dict[Cell, int]:
    """Of the written cells a grid read in part leaves open, those whose answer is wrong whatever the
    hidden labels say (reading.ruled_out: no reading of the labels within the margin puts there any
    digit the answer may be), each with the likeliest digit it holds.  The digits an answer may be:
    the one typed, or from the picture every digit some reader of the cell gives more than NOT_RIGHT
    (the cell reader, with the box nudged too, and on its ink alone) or the framed-answer reader
    FRAMED_DOUBT (_maybe); none when the cell may be blank or its ink is too faint to tell.  Not
    ruled out either when the answers written in the other cells, weighed with the labels as in
    _doubted, make a reading likelier that allows it (a label misread surely must not make a right
    answer wrong).
    None without the labels' readings, or past RULE_TIME (the cells not weighed stay open)."""
    from .vision.reading import ruled_out

    cells = sorted(c for c in undetermined if answers[c[0]][c[1]] != BLANK or c in unsure)
    if not cells or not clues:
        return {}
    if typed is not None:
        maybe = {c: {answers[c[0]][c[1]]: 1.0} for c in cells}
    else:
        assert picture is not None and geometry is not None
        maybe = _maybe(picture, geometry, cells)
    maybe = {c: m for c, m in maybe.items() if m and solution[c[0]][c[1]] not in m}
    ruled = ruled_out(n, clues, {c: frozenset(m) for c, m in maybe.items()}, RULE_TIME, freed, *_priced(n, answers))
    return {c: max(maybe[c], key=maybe[c].__getitem__) for c in ruled}


def _maybe(picture: np.ndarray, geometry: GridGeometry, cells: list[Cell]) -> dict[Cell, dict[int, float]]:
    """The digits each written cell's answer may be, each with the most any reader gives it (_ruled_out's);
    none for a cell that may be blank (nothing and notes more than 1 - WRONG_SURE to the cell reader),
    whose ink is too faint to be an answer, or whose readers do not agree on its likeliest digit (the
    cell reader's, also with its box nudged a few percent (digits.NUDGES: how far a photo's cell lines
    may be off), and the framed-answer reader's in one of its framings: a shape between digits is not
    judged)."""
    from .vision.contents import alone_in, written_ink
    from .vision.digits import FAINT_INK, NOTES, digit_crops, ink_contrast, read_digits

    n = geometry.size
    square = geometry.square(picture)
    boxes = [geometry.cell_box(r, c) for r, c in cells]
    first = read_digits(digit_crops(square, boxes))
    moved = _nudged_readings(square, geometry, cells)
    mask = written_ink(square, geometry, cells, geometry.colour_square(picture))
    alone = alone_in(square, mask)
    again = read_digits(digit_crops(alone, boxes))
    framings = _framed_readings(square, mask, alone, boxes)
    out: dict[Cell, dict[int, float]] = {}
    for cell, box, p, m, q, fs in zip(cells, boxes, first, moved, again, framings):
        likeliest = int(p[1:NOTES].argmax()) + 1
        seen = {int(f.argmax()) + 1 for f in fs if f.max() > 0}  # a framing of no ink sees none
        if (p[0] + p[NOTES] > 1 - WRONG_SURE or ink_contrast(square, box) < FAINT_INK
                or any(int(x[1:NOTES].argmax()) + 1 != likeliest for x in m) or likeliest not in seen):
            out[cell] = {}  # may be blank, too faint, or read otherwise as the box moves or by the framed reader
            continue
        most, f = np.maximum(np.maximum(p, q), m.max(0)), fs.max(0)
        out[cell] = {d: float(max(most[d], f[d - 1])) for d in range(1, n + 1)
                     if most[d] > NOT_RIGHT or f[d - 1] >= FRAMED_DOUBT}
    return out


def _doubted(n: int, solution: Grid, answers: Grid, clues: tuple[ClueReading, ...], freed: frozenset[Cell]
             ) -> frozenset[Cell]:
    """The cells where the labels' readings and the answers written, each answer WRITTEN_RIGHT likely its
    cell's digit, make a grid other than `solution` likelier (reading.against_answers); none without
    readings (a puzzle text) or when every answer is the solution's digit (that grid is then the
    likeliest: the labels' own, no answer priced).  When the solver cannot tell in time, every answer
    not the solution's."""
    from .errors import SolverTimeout
    from .vision.reading import against_answers

    written, price = _priced(n, answers)
    if not clues or all(d == solution[r][c] for (r, c), d in written.items()):
        return frozenset()  # no answer is evidence against the solution: nothing for the solver to weigh
    try:
        return against_answers(n, clues, solution, written, price, DOUBT_TIME, freed)
    except SolverTimeout:
        return frozenset(cell for cell, d in written.items() if d != solution[cell[0]][cell[1]])


def _under_own_label(puzzle: Puzzle, solution: Grid, answers: Grid, clues: tuple[ClueReading, ...]
                     ) -> frozenset[Cell]:
    """The cells read as holding another digit than the solution's that are the place of a label read
    as the digits of the clue taken for it and more (_more_digits: '99' for a single cell's '9'): its
    reader took ink that is no label's for the label's, an answer written beside it, whose reading then
    lacks that ink (a 9 whose loop went to the label, its tail read 1): no ground to call it wrong.  A
    label read with fewer digits (hidden under an answer: '1+' for '10+') or as another ('25+' where the
    grid's cage is one cell: a border missed) took none of the answer's: those cells are judged as read
    (on bench/check.py's working seeds 600..679, four wrong answers were caught there, and one typed).
    None without the labels' readings; a label the user gave (--label) is not read."""
    used = {min(cage.cells): str(cage.target) for cage in puzzle.cages}
    longer = {anchor for rd in clues if rd.source != "given" and (anchor := min(rd.cells)) in used
              and _more_digits(rd.text, used[anchor])}
    return frozenset((r, c) for r, c in longer if answers[r][c] not in (BLANK, solution[r][c]))


def _more_digits(text: str, number: str) -> bool:
    """Does a label read as `text` hold the digits of the clue's `number` and more besides ('99' for 9,
    '12' for 1; not '25+' for 7: that label was read as another, not with an answer's digit added)?"""
    read = "".join(ch for ch in text if ch.isdigit())
    return len(read) > len(number) and number in read


def _priced(n: int, answers: Grid) -> tuple[dict[Cell, int], float]:
    """The answers written (0: none) as evidence of their cells' digits, and what each costs, in nats,
    where a grid's digit is another: WRITTEN_RIGHT of the time an answer is its cell's digit, else any
    of the n - 1 others (_doubted, _ruled_out)."""
    written = {(r, c): d for r, row in enumerate(answers) for c, d in enumerate(row) if d != BLANK}
    return written, math.log((n - 1) * WRITTEN_RIGHT / (1 - WRITTEN_RIGHT))


def _not_judged(answers: Grid, unsure: tuple[Cell, ...], cells: set[Cell] | frozenset[Cell]
                ) -> tuple[Grid, tuple[Cell, ...]]:
    """The answers with those in `cells` taken out (0), and `unsure` with those cells named too."""
    if not cells:
        return answers, unsure
    return (tuple(tuple(BLANK if (r, c) in cells else d for c, d in enumerate(row)) for r, row in enumerate(answers)),
            tuple(sorted(set(unsure) | set(cells))))


def _left_open(answers: Grid, unsure: tuple[Cell, ...], undetermined: frozenset[Cell]
               ) -> tuple[Grid, tuple[Cell, ...], tuple[Cell, ...]]:
    """The answers with those in `undetermined` cells taken out (0) and named not judged with `unsure`;
    and the written cells so left open (a cell read unsurely there among them)."""
    held = {(r, c) for r, row in enumerate(answers) for c, d in enumerate(row) if d != BLANK} | set(unsure)
    kept = tuple(tuple(BLANK if (r, c) in undetermined else d for c, d in enumerate(row)) for r, row in enumerate(answers))
    return kept, tuple(sorted(set(unsure) | (held & undetermined))), tuple(sorted(held & undetermined))


@dataclass(frozen=True)
class Written:
    """What the picture's cells hold: the answers (0: none), the cells read
    with too little certainty to judge (left 0), and the cells holding only
    pencil marks (left 0: notes are never an answer)."""

    answers: Grid
    unsure: tuple[Cell, ...]
    pencil: tuple[Cell, ...]
    # with the solution: each cell read as holding an answer, with the cell reader's likeliest digit of
    # the grid's (in_one_hand weighs those read as another than the solution's)
    likeliest: tuple[tuple[Cell, int], ...] = ()


def read_written(picture: np.ndarray, geometry: GridGeometry, solution: Grid | None = None) -> Written:
    """Read every cell of the grid: an answer surely, nothing (or only pencil marks) surely, or unsure.

    With the solution, a cell is judged as surely as its reading allows: right
    when the right digit is SURE given that the cell holds what the grid's
    cells can (_in_grid) and the odds before reading of ANSWERED (_right_given),
    unless it is SURE only on those odds and the framed-answer reader reads
    one other digit likeliest in every framing (_framed_other: not judged; a
    wrong 5 with a closed foot read 6 at 0.69 and 5 at 0.28 by the cell reader,
    5 at 0.83 framed, was taken as the right 6);
    wrong when the right digit is at most ONE_READER and the others are
    WRONG_SURE together (_surely_other), though which of them is less sure
    (the most probable is given), and the framed-answer reader sees that
    digit as its likeliest in one of its framings, gives the right digit at
    most ONE_READER, and the two readers' probabilities of it multiply to at
    most JOINT (the cell reader reading the cell's ink alone giving it at most
    ONE_READER too and the same digit likeliest, and with the box nudged
    reading neither the right digit nor notes WRONG_SURE: _other_every_way);
    else not judged, or, when the right digit is read more than NOT_RIGHT, as
    a cell read again.  Neither, it is read again
    from the cell's ink that is no label's alone (contents.alone_in: an answer
    written over its label's corner, or blurred in a photo, is read less
    surely with the label beside it, a 1 touching a label's '+' as a 7), by
    the cell reader and, framed as MNIST frames a digit, by the framed-answer
    reader (vision/framed.py), and is right when the right digit is SURE for
    either (a framing sure only given the grid's digits not ruled out by the
    other: _framed_right), or for the cell reader and the framed reader
    together (_together_right): _second_look_right; else not judged (never
    wrong from the second look).  On bench/check.py's real hands of the working split at
    seeds 100..259 (not the ones it reports), reading again the cells read
    less than likelier than not right as well made 20 more of 5137 right
    answers right, and no wrong answer's right digit was read above 0.19 so
    (of 252).
    Without the solution, a digit must be SURE on its own.  A cell with no ink
    where an answer goes (against its lines' darkness) is blank whatever the
    network says; ink too faint for an answer is never read as one."""
    from .vision.contents import alone_in, written_ink
    from .vision.digits import (
        EMPTY_INK_SHARE,
        FAINT_INK,
        NOTES,
        SURE,
        digit_crops,
        ink_contrast,
        line_contrast,
        read_digits,
    )

    n = geometry.size
    square = geometry.square(picture)
    cells = [(r, c) for r in range(n) for c in range(n)]
    probs = read_digits(digit_crops(square, [geometry.cell_box(r, c) for r, c in cells]))
    grid = [[BLANK] * n for _ in range(n)]
    unsure: list[Cell] = []
    pencil: list[Cell] = []
    confirm: list[Cell] = []  # cells right only on the odds that an answer is right: the framed reader asked too
    called: list[tuple[Cell, int, float]] = []  # cells called wrong: their likeliest digit, the right one's probability
    again: list[Cell] = []  # cells to read again from their ink alone
    first_given: dict[Cell, float] = {}  # the right digit's probability as the cell reader read each cell
    read_as: list[tuple[Cell, int]] = []  # each cell read as holding an answer: the cell reader's likeliest digit
    for (r, c), p in zip(cells, probs):
        notes = float(p[NOTES]) if len(p) > NOTES else 0.0
        k = int(p[1:n + 1].argmax()) + 1
        q = _in_grid(p, n, NOTES)
        right = _right_given(q, n, solution[r][c]) if solution is not None else 0.0  # how probable it is
        first_given[r, c] = right
        if p[0] + notes >= BLANK_SURE:  # no answer: nothing written, or only notes
            if notes > p[0]:
                pencil.append((r, c))
            continue
        box = geometry.cell_box(r, c)
        ink = ink_contrast(square, box)
        if ink < EMPTY_INK_SHARE * line_contrast(square, box):  # no ink at all where an answer goes
            continue
        if ink < FAINT_INK:  # too faint to be an answer
            unsure.append((r, c))
            continue
        read_as.append(((r, c), k))
        if solution is not None and right >= SURE:
            grid[r][c] = solution[r][c]
            if q[solution[r][c]] < SURE:  # sure only on the odds that an answer is right: asked again below
                confirm.append((r, c))
        elif solution is not None and _surely_other(p[1:NOTES], solution[r][c], n, ONE_READER):
            # surely not the right digit: the likeliest of the grid's others
            grid[r][c] = int(_other_digits(p[1:n + 1], solution[r][c]).argmax()) + 1
            called.append(((r, c), int(p[1:NOTES].argmax()) + 1, float(p[solution[r][c]])))
        elif solution is not None:
            again.append((r, c))  # neither surely right nor surely wrong: read again below
        elif q[k] >= SURE:
            grid[r][c] = k
        else:
            unsure.append((r, c))
    wrong = [cell for cell, _, _ in called]
    if (again or wrong or confirm) and solution is not None:
        looked = again + wrong + confirm
        boxes = [geometry.cell_box(r, c) for r, c in looked]
        mask = written_ink(square, geometry, looked, geometry.colour_square(picture))
        alone = alone_in(square, mask)
        firsts = read_digits(digit_crops(alone, boxes))  # the cell reader's of the ink alone
        seconds = _framed_readings(square, mask, alone, boxes)  # the framed-answer reader's two: (N, 2, 9)
        for (r, c), f in zip(confirm, seconds[len(again) + len(wrong):]):
            if _framed_other(f, n, solution[r][c]):  # a shape between the right digit and another: not judged
                grid[r][c] = BLANK
                unsure.append((r, c))
        firsts, seconds = firsts[:len(again) + len(wrong)], seconds[:len(again) + len(wrong)]
        second = []  # called wrong by the cell reader, not by the others: read as the cells read again
        moved = _nudged_readings(square, geometry, wrong) if wrong else np.zeros((0, 0, 0))
        for ((r, c), likeliest, first_right), p, f, m in zip(called, firsts[len(again):], seconds[len(again):],
                                                             moved):
            if not (_both_rule_out(solution[r][c], likeliest, first_right, p, f)
                    and _other_every_way(solution[r][c], m)):
                grid[r][c] = BLANK  # the framed reader sees another digit, or the right one too: not judged,
                if first_right > NOT_RIGHT:  # unless the right digit may be written and is SURE to another look
                    second.append(((r, c), p, f))
                else:  # never right (a wrong 4 framed was read its cell's right 2 surely)
                    unsure.append((r, c))
        for (r, c), p, f in list(zip(again, firsts, seconds)) + second:
            if _second_look_right(first_given[r, c], p, f, n, solution[r][c]):
                grid[r][c] = solution[r][c]
            else:
                unsure.append((r, c))
    return Written(tuple(tuple(row) for row in grid), tuple(sorted(unsure)), tuple(pencil), tuple(read_as))


def read_page(picture: np.ndarray, grids: list[tuple[GridGeometry, Grid]]) -> list[Written]:
    """The cells of each of a page's grids (its geometry and solution) read (read_written) and weighed as
    one hand's (in_one_hand): what judge judges each by."""
    return in_one_hand(picture, [(geometry, solution, read_written(picture, geometry, solution))
                                 for geometry, solution in grids])


def in_one_hand(picture: np.ndarray, read: list[tuple[GridGeometry, Grid, Written]]) -> list[Written]:
    """The written cells of one page's puzzles (each its geometry, solution and read_written's reading)
    weighed as one hand's: those called wrong that may be the hand's own way of writing the right digit
    not judged (_misread_alike), and those left not judged that the hand writes as it writes the right
    digit judged right (_written_alike), where a reader reads the right digit likeliest too: the cell
    reader, or the framed-answer reader of its answer framed.  A hand writes its digits its own way, in
    every cell alike; but a wrong answer can be written as the hand writes the right digit too (a wrong 7
    with a flag and a foot, like the hand's 1s, read 7 and 2): the hand's likeness confirms a reader's
    reading, it never overrules them all."""
    unsure = []  # each grid's cells read as holding an answer and left not judged
    for _, _, written in read:
        doubt = set(written.unsure)
        unsure.append([cell for cell, _ in written.likeliest if cell in doubt])
    misread = _misread_alike(picture, read)
    if not any(unsure):
        return misread
    # the hand's answers the cell reader was sure of, right: what it writes for each digit
    right = [[(r, c) for r, row in enumerate(written.answers) for c, d in enumerate(row)
              if d == solution[r][c] != BLANK and (r, c) not in written.unsure] for _, solution, written in read]
    crops = [_framed_answers(picture, geometry, cells + held) for (geometry, _, _), cells, held in zip(read, unsure, right)]
    from .vision.framed import read_framed, shapes

    keys = [(i, cell) for i, found in enumerate(crops) for cell in found]
    seen = dict(zip(keys, shapes([crops[i][cell] for i, cell in keys]))) if keys else {}
    doubted = [(i, cell) for i, cells in enumerate(unsure) for cell in cells if crops[i][cell] is not None]
    framed_as = {key: int(np.argmax(probs)) + 1
                 for key, probs in zip(doubted, read_framed([crops[i][cell] for i, cell in doubted]) if doubted else [])}
    hand: dict[int, list[np.ndarray]] = {}
    for i, ((_, solution, _), held) in enumerate(zip(read, right)):
        for r, c in held:
            if crops[i][r, c] is not None:
                hand.setdefault(solution[r][c], []).append(seen[i, (r, c)])
    out = []
    for i, ((_, solution, written), cells, now) in enumerate(zip(read, unsure, misread)):
        likeliest = dict(written.likeliest)
        alike = {(r, c) for r, c in cells
                 if crops[i][r, c] is not None and solution[r][c] in (likeliest[r, c], framed_as[i, (r, c)])
                 and _written_alike(seen[i, (r, c)], solution[r][c], likeliest[r, c], hand)}
        if not alike:
            out.append(now)
            continue
        answers = tuple(tuple(solution[r][c] if (r, c) in alike else d for c, d in enumerate(row))
                        for r, row in enumerate(now.answers))
        out.append(Written(answers, tuple(cell for cell in now.unsure if cell not in alike), now.pencil, now.likeliest))
    return out


def _written_alike(shape: np.ndarray, right: int, likeliest: int, hand: dict[int, list[np.ndarray]]) -> bool:
    """Is an answer (`shape`: framed.shapes' of it) the hand's `right` digit: as like one of the hand's sure
    right answers of it as HAND_SAME, and HAND_APART likelier to them than to those of any other digit, the
    hand's way of writing the digit the cell reader reads likeliest (`likeliest`) among them?"""
    if right not in hand or likeliest not in hand:
        return False
    like = {digit: max(float(shape @ other) for other in shapes) for digit, shapes in hand.items()}
    apart = max((v for digit, v in like.items() if digit != right), default=0.0)
    return like[right] >= HAND_SAME and like[right] - apart >= HAND_APART


def _misread_alike(picture: np.ndarray, read: list[tuple[GridGeometry, Grid, Written]]) -> list[Written]:
    """Each grid's reading with the cells called wrong that may be the hand's own way of writing the right
    digit not judged.

    A hand that writes some of its 5s flat-topped writes them so in several cells, and every reader reads
    each of them 3 at 0.999; called wrong, each is a right answer called wrong.  So a cell called wrong whose right digit R the
    cell reader reads as K is not judged when another cell of the page whose right digit is R reads K too
    (a misreading the page repeats) and its ink looks like the hand's R: its answer framed as MNIST frames
    a digit (vision/framed.py) correlates HAND_LIKE or more with that of a cell of the page judged right
    holding R (_resembles).  Two wrong answers of the same R and K written in one page look like the
    hand's K, seldom like its R; a misread hand's odd R looks like its other R's (the same hand).
    On bench/check.py's real hands of the working split at seeds 300..379 (not the ones it reports; the
    rule's own): right cells called wrong 9 -> 4, wrong cells caught 117 -> 116 of 127; at seeds 500..579
    (not looked at before): right cells called wrong 0 -> 0, caught 125 -> 124 of 135, right verdicts 93
    -> 93 of 104.  What it leaves: an odd shape the page does not repeat, or one unlike the hand's right
    answers of its digit (a hand whose every 5 reads 6 has none)."""
    from collections import Counter

    misread = Counter((solution[r][c], k) for _, solution, written in read
                      for (r, c), k in written.likeliest if k != solution[r][c])
    doubted = [[(r, c) for (r, c), k in written.likeliest
                if written.answers[r][c] not in (BLANK, solution[r][c]) and misread[solution[r][c], k] >= 2]
               for _, solution, written in read]
    if not any(doubted):
        return [written for _, _, written in read]
    wanted = {solution[r][c] for (_, solution, _), cells in zip(read, doubted) for r, c in cells}
    right = [[(r, c) for r, row in enumerate(written.answers) for c, d in enumerate(row)
              if d == solution[r][c] and d in wanted and (r, c) not in written.unsure]
             for _, solution, written in read]  # the hand's right answers of those digits
    crops = [_framed_answers(picture, geometry, cells + held)
             for (geometry, _, _), cells, held in zip(read, doubted, right)]
    hand = [(solution[r][c], found[r, c]) for (_, solution, _), held, found in zip(read, right, crops)
            for r, c in held]
    out = []
    for (_, solution, written), cells, found in zip(read, doubted, crops):
        like = {(r, c) for r, c in cells if _hands_own(found[r, c], solution[r][c], hand)}
        out.append(Written(*_not_judged(written.answers, written.unsure, like), written.pencil, written.likeliest)
                   if like else written)
    return out


def _hands_own(crop: np.ndarray | None, digit: int, hand: list[tuple[int, np.ndarray | None]]) -> bool:
    """Does a framed answer look like one of the hand's right answers of `digit` (HAND_LIKE)?"""
    return crop is not None and any(d == digit and other is not None and _resembles(crop, other) >= HAND_LIKE
                                    for d, other in hand)


def _framed_answers(picture: np.ndarray, geometry: GridGeometry, cells: list[Cell]) -> dict[Cell, np.ndarray | None]:
    """Each cell's answer, its ink that is no label's alone, framed as MNIST frames a digit (framed.framed_crops)."""
    from .vision.contents import alone_in, written_ink
    from .vision.framed import framed_crops

    if not cells:
        return {}
    square = geometry.square(picture)
    alone = alone_in(square, written_ink(square, geometry, cells, geometry.colour_square(picture)))
    return dict(zip(cells, framed_crops(alone, [geometry.cell_box(r, c) for r, c in cells])))


def _resembles(a: np.ndarray, b: np.ndarray) -> float:
    """How alike two framed answers are: their correlation (blurred LIKE_BLUR px; each moved up to
    LIKE_SHIFT px, the most), -1..1."""
    import cv2

    blur = [cv2.GaussianBlur(x.astype(np.float32), (0, 0), LIKE_BLUR) for x in (a, b)]
    room = cv2.copyMakeBorder(blur[1], LIKE_SHIFT, LIKE_SHIFT, LIKE_SHIFT, LIKE_SHIFT, cv2.BORDER_CONSTANT, value=0)
    return float(cv2.matchTemplate(room, blur[0], cv2.TM_CCOEFF_NORMED).max())


def _both_rule_out(right: int, likeliest: int, first_right: float, alone: np.ndarray, framings: np.ndarray,
                   one_reader: float = ONE_READER, joint: float = JOINT) -> bool:
    """Do the readers of a cell the cell reader calls surely another digit (`likeliest`, of 1..9) agree
    that its `right` digit is not written: the cell reader of the cell's ink alone (`alone`: nothing,
    1..9, notes) reads an answer there (nothing and notes less than ALONE_ANSWER), the same digit
    likeliest (read 7 as the cell is and 1 alone, which ink is the answer's is in doubt: a right 8 whose
    loop was under its label '336x'; on bench/check_rules.py's cells, seeds 100..259 and 600..879, 3 of
    649 wrong answers were read so, and were not judged), the framed-answer
    reader (`framings`: its two, (2, 9)) sees `likeliest` in one framing (one of no ink sees none),
    neither it nor the cell reader (the right digit's probability as read, `first_right`, and of the
    cell's ink alone) gives the right digit more than ONE_READER, and the two readers' probabilities of
    it multiply to at most JOINT."""
    from .vision.digits import NOTES

    seen = [int(framing.argmax()) + 1 for framing in framings if framing.max() > 0]
    framed_right = float(framings[:, right - 1].max())
    return (float(alone[0] + alone[NOTES]) < ALONE_ANSWER and int(alone[1:NOTES].argmax()) + 1 == likeliest
            and likeliest in seen and framed_right <= one_reader
            and float(alone[right]) <= one_reader and first_right * framed_right <= joint)


def _other_every_way(right: int, moved: np.ndarray) -> bool:
    """Does the cell reader read neither the `right` digit nor notes WRONG_SURE together with the box of a
    cell it calls wrong nudged every way (`moved`: digits.NUDGES, how far a photo's cell lines may be
    off), as it did as read?  Pencil candidates stacked touching ('2' over '5', beside a '4': a right 4's
    cell) were read 3 at 0.94 as read and by the framed reader, and notes 0.29 with the box nudged.
    Nothing read with a box nudged off a part of the answer speaks for no digit: a wrong 2 read 2 at 0.95
    by every reader was read nothing 0.15 with one box, and was not judged while only other digits
    counted.  On bench/check_rules.py's cells (seeds 100..259, 600..879) no wrong answer called (646)
    failed this."""
    from .vision.digits import NOTES

    return all(1.0 - float(q[right]) - float(q[NOTES]) >= WRONG_SURE for q in moved)


def _second_look_right(first: float, alone: np.ndarray, framings: np.ndarray, size: int, right: int) -> bool:
    """Is a cell read again right: the cell reader of its ink alone (`alone`: nothing, 1..9, notes) SURE
    of the right digit given the grid's digits and ANSWERED, the framed-answer reader (`framings`: its two,
    (2, 9)) SURE of it (_framed_right), or the two together (_together_right), the cell reader's likelier
    reading of the cell (`first`: as _right_given gave it) and of its ink alone counting?"""
    from .vision.digits import NOTES, SURE

    alone_right = _right_given(_in_grid(alone, size, NOTES), size, right)
    return (alone_right >= SURE or _framed_right(framings, size, right)
            or _together_right(max(first, alone_right), framings, size, right))


def _framed_other(framings: np.ndarray, size: int, right: int) -> bool:
    """Does the framed-answer reader read one and the same other of the grid's digits likeliest in every
    framing that sees ink (and one at least see ink)?  Framings that read two different digits say the
    answer's ink is in doubt (its loop lost under a label: a right 9 read 7 alone, 4 with its strokes),
    not that another digit is written: on bench/check_rules.py's cells (seeds 100..259, 600..879) 10 more
    of 14,477 right answers were judged right so, and no wrong one."""
    seen = {int(np.argmax(f[:size])) + 1 for f in framings if f.max() > 0}
    return len(seen) == 1 and right not in seen


def _framed_share(probs: np.ndarray, size: int, digit: int) -> float:
    """The framed-answer reader's probability of `digit` in one framing (framed.read_framed: the digits
    1..9), given that the cell holds one of the grid's digits 1..size (0 where it saw no ink)."""
    held = float(probs[:size].sum())
    return float(probs[digit - 1]) / held if held > 0 else 0.0


def _framed_right(framings: np.ndarray, size: int, right: int) -> bool:
    """Is the right digit SURE for the framed-answer reader (`framings`: its two, (2, 9)), given that the
    cell holds one of the grid's digits 1..size, in one framing that reads it the likeliest of all nine
    digits too, or, sure of it only with the digits the grid cannot hold set aside, with the other framing
    (where it saw ink) not ruling it out (giving it more than ONE_READER of the grid's digits)?"""
    from .vision.digits import SURE

    seen = [framing for framing in framings if framing.max() > 0]
    sure = [framing for framing in seen if _framed_share(framing, size, right) >= SURE]
    return (any(int(framing.argmax()) + 1 == right for framing in sure)
            or bool(sure) and all(_framed_share(framing, size, right) > ONE_READER for framing in seen))


def _together_right(first: float, framings: np.ndarray, size: int, right: int) -> bool:
    """Do the cell reader (`first`: the right digit's probability as it read the cell or its ink alone,
    the likelier, _right_given) and the framed-answer reader (its likelier framing's, given the grid's
    digits) make the right digit SURE together (TOGETHER): each likelier than not, their odds multiplied
    as independent evidence's?"""
    from .vision.digits import SURE

    framed = max(_framed_share(framing, size, right) for framing in framings)
    if min(first, framed) <= TOGETHER:
        return False
    odds = first / max(1.0 - first, 1e-12) * framed / max(1.0 - framed, 1e-12)
    return odds >= SURE / (1.0 - SURE)


def _in_grid(probs: np.ndarray, size: int, notes: int) -> np.ndarray:
    """The reader's probabilities of a cell of a size x size grid given that it holds nothing, pencil
    marks (class `notes`) or a digit 1..size, when those are at least IN_GRID together; else as read."""
    held = np.asarray(probs, dtype=float).copy()
    held[size + 1:notes] = 0.0
    total = float(held.sum())
    return held / total if total >= IN_GRID else np.asarray(probs, dtype=float)


def _right_given(q: np.ndarray, size: int, right: int, answered: float = ANSWERED) -> float:
    """How probable the right digit is in a cell the reader read as q (nothing, 1..9, notes; as
    _in_grid gives it), with the odds before reading of ANSWERED: the right digit `answered`, the
    grid's other digits 1 - `answered` together, nothing and notes `answered` each."""
    from .vision.digits import NOTES

    others = max(0.0, 1.0 - float(q[right] + q[0] + q[NOTES]))  # any other digit (as _in_grid left them)
    held = answered * float(q[right])
    doubt = (1.0 - answered) / max(1, size - 1) * others + answered * float(q[0] + q[NOTES])
    return held / max(held + doubt, 1e-12)


def _nudged_readings(square: np.ndarray, geometry: GridGeometry, cells: list[Cell]) -> np.ndarray:
    """The cell reader's readings of each cell with its box nudged (digits.NUDGES): (cells, nudges, classes)."""
    from .vision.digits import NUDGES, digit_crops, nudged, read_digits

    crops = digit_crops(square, [box for r, c in cells for box in nudged(geometry.cell_box(r, c))])
    return read_digits(crops).reshape(len(cells), len(NUDGES), -1)


def _framed_readings(square: np.ndarray, mask: np.ndarray, alone: np.ndarray,
                     boxes: list[tuple[float, float, float, float]]) -> np.ndarray:
    """The framed-answer reader's readings of each box (vision/framed.py), of the ink alone and of its
    whole strokes: (boxes, 2, 9)."""
    from .vision.framed import framed_crops, read_framed, stroke_crops

    return np.stack([read_framed(framed_crops(alone, boxes)), read_framed(stroke_crops(square, mask, boxes))], 1)


def _surely_other(digit_probs: np.ndarray, right: int, size: int, not_right: float,
                  wrong_sure: float = WRONG_SURE, concentrated: float = CONCENTRATED) -> bool:
    """Whether a cell of a size x size grid surely holds a digit other than the right one, from the
    reader's probabilities of the digits 1..9: the right digit is at most `not_right` (read_written's
    ONE_READER, weighed with the framed-answer reader), the other digits (any of them) at least
    WRONG_SURE together, and the two likeliest of the grid's digits 1..size CONCENTRATED (other
    bounds: bench/check_rules.py weighs the rule's neighbours)."""
    others = _other_digits(digit_probs, right)
    return bool(digit_probs[right - 1] <= not_right and float(others.sum()) >= wrong_sure
                and float(np.sort(others[:size])[-2:].sum()) >= concentrated)


def _other_digits(digit_probs: np.ndarray, right: int) -> np.ndarray:
    """A reader's probabilities of the digits 1..k (index 0: the digit 1) with the `right` one's set to 0."""
    others = np.asarray(digit_probs, dtype=float).copy()
    others[right - 1] = 0.0
    return others


def written_answers(picture: np.ndarray, geometry: GridGeometry) -> tuple[Grid, tuple[Cell, ...]]:
    """The answers written in the picture's cells (0: nothing written, or only
    pencil marks), and the cells read with too little certainty to judge (left 0, listed)."""
    written = read_written(picture, geometry)
    return written.answers, written.unsure
