"""One request's work, run in a worker process: the picture (or text) read and
every puzzle in it solved, hinted or checked by the command line's own code
(commands.py), each puzzle's JSON record (schema kkvision/1), the drawn
picture (render.draw: the same marks as the command line's picture), and
what the page draws over it: the grid, the cages and each label as read.

Nothing here touches the file system: the upload arrives as bytes and leaves
as bytes.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .. import commands
from ..commands import PICTURE, READ_IN_PART, Wording, Work
from ..commands import parse_label as parse_label  # the form's label fields (app.py), as the command line's
from ..defaults import HINT_CELLS, MAX_PIXELS, TIME_LIMIT
from ..errors import ExitCode, InputError, KkvisionError, UsageError
from ..pipeline import Options, Outcome, Page, read_loaded
from ..sources import Loaded, load, of_bytes
from ..vision.stages import LABEL_SURE, GivenLabel, GridGeometry, LabelDecision
from ..vocab import HIDDEN, Cell, cell_name, label_display, output_name

COMMANDS = ("solve", "hint", "check")
MAX_CELLS = 81  # --cells beyond a 9x9's cells reveals nothing more
SHOWN_SIDE = 2400  # px: the picture sent back is shrunk to this (a phone's screen at 3x; a 50 MP photo is 8000)
EDGE_STEPS = 4  # points per cell edge in the overlay: a curved page's lines are followed within a cell
LABEL_BOX = (0.55, 0.36)  # the tappable patch over a label, in cells from the cell's top left (render.PATCH)
TEXT_SIZE = 0.62  # a label's text height, of its patch's height
GLYPH_WIDTH = 0.62  # a bold digit's width, of its height: the patch is widened to hold a long label
STATUS = {ExitCode.USAGE: 400, ExitCode.INPUT: 400, ExitCode.SOFTWARE: 500}  # else 200: the records say
WORDING = Wording(  # how the page names the answers and the puzzle a user gives, in refusals
    several="the picture holds {count} puzzles and {given} for one: name it with puzzle",
    answers="typed answers are", progress="typed progress is",
    no_answers="check a puzzle text against typed answers: give them in the answers field")


@dataclass(frozen=True)
class Job:
    """What one request asks: a picture's or a text's bytes and the command line's options."""

    command: str  # solve, hint or check
    data: bytes = field(repr=False)
    name: str  # the upload's file name, cleaned: for the records and the picture's name only
    labels: tuple[GivenLabel, ...] = ()
    puzzle: int | None = None
    cells: int = HINT_CELLS
    answers: str | None = None  # check: typed answers; hint: typed progress (None: read from the picture)
    time_limit: float = TIME_LIMIT
    max_pixels: int = MAX_PIXELS

    def __post_init__(self) -> None:
        if self.command not in COMMANDS:
            raise UsageError(f"no such command {self.command!r}: solve, hint or check")
        if not 1 <= self.cells <= MAX_CELLS:
            raise UsageError(f"cells must be 1..{MAX_CELLS}, not {self.cells}")
        commands.check_choice(self.puzzle, self.labels, dashes="")


@dataclass(frozen=True)
class LabelSpot:
    """One cage label as the page shows it over the picture, tappable."""

    cell: str  # the cage's first cell: 'B3'
    text: str  # the label shown: what the answer uses, or the likeliest reading of a refused puzzle ('?': none)
    read: str  # what the label reader saw first ('' : nothing legible)
    how: str  # 'sure', 'unsure' (purple), 'changed' or 'not read' (orange), 'given' (by the user)
    polygon: str  # the patch's corners in picture pixels, as SVG points
    at: tuple[float, float]  # where its text starts, in picture pixels
    size: float  # its text's height, in picture pixels


@dataclass(frozen=True)
class View:
    """What the page draws over one puzzle of the picture: its grid, cages and labels."""

    index: int | None
    size: int
    cell_lines: str  # SVG path of the thin lines inside cages
    cage_lines: str  # SVG path of the frame and the cage borders
    labels: tuple[LabelSpot, ...]
    badge: tuple[float, float]  # the puzzle's number goes here (its top-left corner)
    badge_size: float
    ask: tuple[str, ...] = ()  # a refused puzzle: the cells whose labels to check first (unsure or unread)


@dataclass(frozen=True)
class Answer:
    """The reply to one request: the records, the drawn picture and the page's views."""

    status: int  # HTTP status
    records: tuple[dict[str, Any], ...] = field(repr=False)
    picture: bytes | None = field(default=None, repr=False)  # the drawn (or plain) picture, encoded
    picture_type: str | None = None  # its MIME type
    picture_name: str | None = None  # the name to download it as: photo.solved.jpg
    width: int = 0  # the picture's size as read (the views' coordinates), before any shrinking
    height: int = 0
    views: tuple[View, ...] = ()
    seconds: float = 0.0


def failure(command: str, name: str, exc: KkvisionError, seconds: float = 0.0) -> Answer:
    """The reply when nothing of the request could be read: one record, as the command line's."""
    return Answer(STATUS.get(exc.exit_code, 200), (commands.failure(command, name, exc),), seconds=seconds)


def status_of(records: list[dict[str, Any]]) -> int:
    """The HTTP status of a reply: 400 when every puzzle failed on the request itself (exit 2, 3),
    500 on a bug (exit 1), else 200 (each record's exit code says what came of its puzzle)."""
    codes = {STATUS.get(ExitCode(r["exit_code"]), 200) for r in records}
    return 500 if 500 in codes else 400 if codes == {400} else 200


def run(job: Job) -> Answer:
    """The job done: never raises for anything a client can send."""
    t0 = time.perf_counter()
    loaded: Loaded | None = None
    try:
        opts = Options(time_limit=job.time_limit, max_pixels=job.max_pixels, puzzle=job.puzzle, labels=job.labels,
                       in_part=job.command in READ_IN_PART)
        loaded = load(of_bytes(job.data, job.name), job.max_pixels)
        page = read_loaded(loaded, opts)
        work = work_of(job, page)
        records, drawings = work.records(), work.drawings
    except KkvisionError as exc:
        answer = failure(job.command, job.name, exc, round(time.perf_counter() - t0, 3))
        if loaded is not None and loaded.picture is not None:  # the page still shows what was sent
            answer = _with_picture(answer, job, loaded.picture.shape, _sent(loaded.picture)[0], [])
        return answer
    answer = Answer(status_of(records), tuple(records))
    if page.picture is not None:
        from ..render import draw

        # drawn at the size it is sent back at: a phone's 12 MP photo is drawn over a third of its pixels
        shown, sx, sy = _sent(page.picture)
        drawn = draw(shown, [replace(d, geometry=d.geometry.resized(sx, sy)) for d in drawings]) if drawings else shown
        views = [view(o, o.geometry, {lb.cell for lb in job.labels if lb.puzzle in (None, o.index, job.puzzle)})
                 for o in page.outcomes if o.geometry is not None]
        answer = _with_picture(answer, job, page.picture.shape, drawn, views)
    seconds = round(time.perf_counter() - t0, 3)
    return Answer(answer.status, tuple(dict(r, seconds=seconds) for r in answer.records), answer.picture,
                  answer.picture_type, answer.picture_name, answer.width, answer.height, answer.views, seconds)


def work_of(job: Job, page: Page) -> Work[Any]:
    """The job's command on the page, as the command line does it (commands.py)."""
    if job.command == "solve":
        return commands.solve(page)
    if job.command == "check":
        return commands.check(page, job.answers, WORDING)
    return commands.hint(page, job.cells, job.answers, WORDING)


def view(outcome: Outcome, geom: GridGeometry, given: set[Cell]) -> View:
    """The grid, its cages and each label, in picture pixels, for the page to draw over the picture;
    a refused puzzle's labels to check first: those the refusal names as deciding (errors' cells),
    or else those read unsurely or not at all, and those given."""
    n = geom.size
    if outcome.result is not None:
        cages = [c.cells for c in outcome.result.puzzle.cages]
        decisions = {lb.cells[0]: lb for lb in outcome.result.labels}
        spots = _spots(geom, [(cells[0], _shown(decisions.get(cells[0]))) for cells in cages])
        ask: tuple[str, ...] = ()
    elif outcome.seen is not None:
        cages = [cells for cells, _, _ in outcome.seen.cages]
        spots = _spots(geom, [(cells[0], (label_display(cage.op, cage.target) if cage else "?", "",
                                          "given" if cells[0] in given else "sure" if cage and p >= LABEL_SURE
                                          else "unsure" if cage else "not read"))
                              for cells, cage, p in outcome.seen.cages])
        decide = {cell_name(c) for c in outcome.error.cells} if outcome.error is not None else set()
        # the labels that decide when the reading says which (exit 5, 13), else those read unsurely or not at all
        ask = tuple(s.cell for s in spots if (s.cell in decide or s.how == "given" if decide else s.how != "sure"))
    else:  # refused before the labels were read: the grid alone
        cages, spots, ask = [((r, c),) for r in range(n) for c in range(n)], [], ()
    cage_of = {cell: k for k, cells in enumerate(cages) for cell in cells}
    across, down = _lines(geom)
    thin: list[str] = []
    thick: list[str] = []
    for r in range(n + 1):  # the edge above row r, over column c (row n: the frame's bottom)
        for c in range(n):
            (thin if cage_of.get((r - 1, c), -1) == cage_of.get((r, c), -2) else thick).append(_path(across[r, c]))
    for c in range(n + 1):  # the edge left of column c, beside row r
        for r in range(n):
            (thin if cage_of.get((r, c - 1), -1) == cage_of.get((r, c), -2) else thick).append(_path(down[c, r]))
    corner = geom.to_image(np.array([geom.xs[0], geom.ys[0]]))
    return View(None if outcome.index is None else outcome.index, n, " ".join(thin), " ".join(thick), tuple(spots),
                (round(float(corner[0]), 1), round(float(corner[1]), 1)), round(_cell_px(geom) * 0.4, 1), ask)


def _shown(lb: LabelDecision | None) -> tuple[str, str, str]:
    """A solved puzzle's label: the text the answer uses, what was read, and how sure."""
    if lb is None or lb.how == HIDDEN:
        return "?", lb.read if lb else "", "not read"
    how = lb.how if lb.how in ("changed", "not read", "given") else "unsure" if lb.unsure else "sure"
    return label_display(lb.used.op, lb.used.target), lb.read, how


def _spots(geom: GridGeometry, labels: list[tuple[Cell, tuple[str, str, str]]]) -> list[LabelSpot]:
    """Each label's patch (wide enough for its text, within its cell) and text, in picture pixels
    (every patch's points through the mesh at once: each point maps on its own)."""
    squares = []
    for cell, shown in labels:
        x0, y0, x1, y1 = geom.cell_box(*cell)
        w, h = x1 - x0, y1 - y0
        size = TEXT_SIZE * LABEL_BOX[1] * h  # in the square
        right = min(0.95 * w, max(LABEL_BOX[0] * w, GLYPH_WIDTH * size * len(shown[0]) + 0.16 * w))
        squares.append([[x0, y0], [x0 + right, y0], [x0 + right, y0 + LABEL_BOX[1] * h],
                        [x0, y0 + LABEL_BOX[1] * h], [x0 + 0.08 * w, y0 + 0.5 * LABEL_BOX[1] * h]])
    if not squares:
        return []
    out = []
    for (cell, shown), pts in zip(labels, geom.to_image(np.array(squares))):
        polygon = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts[:4])
        out.append(LabelSpot(cell_name(cell), shown[0], shown[1], shown[2], polygon,
                             (round(float(pts[4][0]), 1), round(float(pts[4][1]), 1)),
                             round(float(np.hypot(*(pts[3] - pts[0]))) * TEXT_SIZE, 1)))
    return out


def _lines(geom: GridGeometry) -> tuple[np.ndarray, np.ndarray]:
    """Every cell edge of the square in picture pixels, EDGE_STEPS + 1 points each (a curved page's
    lines followed): across[r, c] the edge above row r over column c, down[c, r] left of column c."""
    t = np.linspace(0.0, 1.0, EDGE_STEPS + 1)
    xs, ys = np.asarray(geom.xs), np.asarray(geom.ys)
    along_x = xs[:-1, None] * (1 - t) + xs[1:, None] * t  # (n, steps): x along each column's edge
    along_y = ys[:-1, None] * (1 - t) + ys[1:, None] * t
    across = np.stack(np.broadcast_arrays(along_x[None], ys[:, None, None]), axis=-1)  # (n+1, n, steps, 2)
    down = np.stack(np.broadcast_arrays(xs[:, None, None], along_y[None]), axis=-1)
    return geom.to_image(across), geom.to_image(down)


def _path(points: np.ndarray) -> str:
    return "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)


def _cell_px(geom: GridGeometry) -> float:
    """A cell's side in picture pixels, roughly (the frame's mean side over n)."""
    c = np.asarray(geom.corners, np.float64)
    sides = [float(np.hypot(*(c[k] - c[(k + 1) % 4]))) for k in range(4)]
    return sum(sides) / 4 / geom.size


def _sent(picture: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The picture as it is sent back, shrunk to SHOWN_SIDE at most, and how much narrower and lower it is."""
    import cv2

    h, w = picture.shape[:2]
    scale = min(1.0, SHOWN_SIDE / max(h, w))
    if scale == 1.0:
        return picture, 1.0, 1.0
    shown = cv2.resize(picture, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return shown, shown.shape[1] / w, shown.shape[0] / h


def _with_picture(answer: Answer, job: Job, size: tuple[int, ...], shown: np.ndarray, views: list[View]) -> Answer:
    """The answer with its picture (as _sent sends it back, of a picture of `size`, (h, w)), encoded as
    the command line writes its answer picture for this input (a JPEG for a JPEG, else PNG: batch.output_suffix)."""
    import cv2

    from ..batch import output_suffix
    from ..render import OUTPUT_FORMATS

    h, w = size[:2]
    source = of_bytes(job.data, job.name)
    suffix = output_suffix(source)
    ok, data = cv2.imencode(suffix, shown, OUTPUT_FORMATS[suffix])
    if not ok:
        raise InputError("could not encode the answer picture")
    stem = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", job.name) or "picture"
    return Answer(answer.status, answer.records, data.tobytes(), "image/png" if suffix == ".png" else
                  "image/jpeg" if suffix == ".jpg" else "image/webp",
                  output_name(stem, PICTURE[job.command], 1, suffix), w, h, tuple(views), answer.seconds)
