"""The objects handed from stage to stage of the vision, in one place.

Every vision module imports its inputs and outputs from here, and nothing
here imports a stage, so the stages import downwards only:

  VisionOptions  what the caller asks of the vision (label reader, --label, time, debug pictures)
  GridGeometry   stage 1 (grid/): where the grid lies: its size, frame corners, line
                 positions in the straightened square, and the map back into the picture
  CageLayout     stage 2 (cages.py, agree.py): which cells form cages, each border's call
                 and how sure it is, the borders changed to agree with the labels
  LabelReading   stage 3a (labels.py): what the top of one cell may say, with probabilities
  ClueReading    stage 3b (clues.py): a cage's cells and what its label may say
  LabelDecision  stage 4 (reading.py): what one label was read as and what the answer uses
  Resolution     stage 4's result: the puzzle the labels most probably say, its solution, the odds
  Reading        everything read from one grid (vision/__init__.py's result)
  Refusal        why one grid gave no answer, with what had been read by then
  Reached        what each stage of one reading of a grid reached, an answered or a refused one's:
                 what read.py judges a refused reading by, the debug pictures draw and the
                 benchmarks score

Geometry: the square is SIDE x SIDE pixels; pixel (x, y) has square
coordinates (x, y).  Its map to the original picture is a mesh: the picture
points of a regular lattice of square points, MESH + 1 per side.  Between mesh
nodes the map is bilinear, so a grid on a curved page (bowed lines, uneven
cells) is followed cell by cell, and a flat grid (one perspective) is a mesh
made from its homography.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import KkvisionError, UsageError
from ..puzzle import Cage, Grid, Puzzle
from ..solver import DEFAULT_TIME_LIMIT
from ..vocab import Cell, canonical_label, cell_name, label_parts, parse_cell

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in the straightened square
LABEL_SURE = 0.9  # a label used with less probability than this is shown as unsure


LABEL_ARG = re.compile(r"^\s*(?:(\d{1,3})\s*:)?\s*([A-Za-z]\d{1,2})\s*=\s*(.+?)\s*$")  # [PUZZLE:]CELL=LABEL


@dataclass(frozen=True)
class GivenLabel:
    """A label the user gave (--label [PUZZLE:]CELL=LABEL) in place of what was read."""

    cell: Cell  # the first cell of its cage
    text: str  # in the model's spelling: '12*', '3'
    puzzle: int | None = None  # the puzzle on a page it is for (1-based); None: the only one, or --puzzle's

    def __str__(self) -> str:
        return (f"{self.puzzle}:" if self.puzzle else "") + f"{cell_name(self.cell)}={self.text}"

    @classmethod
    def parse(cls, text: str, what: str = "--label") -> GivenLabel:
        """'B3=12+' -> the label 12+ for the cage whose first cell is B3 (column
        letter, row number); '2:B3=12x' the same on the page's second puzzle; every
        operator spelling of vocab.SPELLINGS (x X × ÷ − – —) is read.  `what` names
        the option in the error (the command line's --label, the server's label)."""
        m = LABEL_ARG.match(text)
        cell = parse_cell(m[2]) if m else None
        label = canonical_label(m[3]) if m else None
        if m is None or cell is None or label is None or (m[1] is not None and int(m[1]) < 1):
            raise UsageError(f"{what} {text!r}: write it as CELL=LABEL, e.g. B3=12+ or A1=3 (column letter, row"
                             " number), or N:CELL=LABEL for the N-th puzzle of a page")
        return cls(cell, label, int(m[1]) if m[1] else None)


@dataclass(frozen=True)
class VisionOptions:
    """What a caller asks of the vision."""

    ocr: str = "model"  # the label reader's name (vision/readers.py READERS)
    time_limit: float = DEFAULT_TIME_LIMIT  # seconds for all the solver runs of one picture
    debug_dir: Path | None = None  # each stage's picture is written here
    labels: tuple[GivenLabel, ...] = ()  # labels the user gave
    # check: a grid whose written answers hide labels it cannot be read without is read in part
    # (read.py, reading.resolve_in_part): never for solve, hint or convert, whose answers need every cell
    in_part: bool = False


SIDE = 900  # straightened square side, px
MESH = 60  # mesh steps per side (a node every 15 px of the square): lines bend little within one step
SHRINK_TO = 1.5  # before remapping, shrink a picture whose grid spans more than this many SIDEs (no aliasing)


def _nodes(count: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """For square coordinates 0..count-1: the mesh node before each, and the fraction past it."""
    t = np.clip(np.arange(count, dtype=np.float64) * nodes / SIDE, 0, nodes)
    k = np.minimum(t.astype(int), nodes - 1)
    return k, t - k


def mesh_from_homography(homography: np.ndarray, nodes: int = MESH) -> np.ndarray:
    """Mesh of a flat grid: picture points of the square lattice under the inverse homography."""
    g = np.linspace(0, SIDE, nodes + 1)
    pts = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 1, 2)
    import cv2

    inv = np.linalg.inv(homography)
    return cv2.perspectiveTransform(pts, inv).reshape(nodes + 1, nodes + 1, 2)


@dataclass(frozen=True)
class GridGeometry:
    """A found grid.  Give `mesh` (picture points of square points (j, i) * SIDE / MESH, rows i)
    or, for a flat grid, `homography` (picture -> square); the other is derived or None."""

    size: int
    corners: tuple[tuple[float, float], ...]  # tl, tr, br, bl frame corners in the original image
    xs: tuple[float, ...]  # n+1 vertical line positions in the square
    ys: tuple[float, ...]  # n+1 horizontal line positions
    homography: np.ndarray | None = field(default=None, compare=False, repr=False)
    mesh: np.ndarray | None = field(default=None, compare=False, repr=False)
    light_on_dark: bool = False  # drawn in light ink on dark paper (a dark theme): its square is turned negative

    def __post_init__(self) -> None:
        n = self.size
        if not 1 <= n <= 20:
            raise ValueError(f"grid size {n} out of range")
        if len(self.corners) != 4 or any(len(p) != 2 for p in self.corners):
            raise ValueError("corners must be four (x, y) points")
        for name, lines in (("xs", self.xs), ("ys", self.ys)):
            if len(lines) != n + 1 or any(b <= a for a, b in zip(lines, lines[1:])):
                raise ValueError(f"{name} must be {n + 1} increasing line positions")
            if lines[0] < -0.1 * SIDE or lines[-1] > 1.1 * SIDE:
                raise ValueError(f"{name} lie outside the square")
        if self.mesh is None:
            if self.homography is None or np.asarray(self.homography).shape != (3, 3):
                raise ValueError("give a mesh or a 3x3 homography")
            object.__setattr__(self, "mesh", mesh_from_homography(np.asarray(self.homography, np.float64)))
        mesh = np.asarray(self.mesh, np.float64)
        if mesh.ndim != 3 or mesh.shape[0] != mesh.shape[1] or mesh.shape[2] != 2 or mesh.shape[0] < 2:
            raise ValueError("mesh must be (k+1, k+1, 2)")
        if not np.isfinite(mesh).all():
            raise ValueError("mesh has non-finite points")
        object.__setattr__(self, "mesh", mesh)

    def turned(self, k: int) -> GridGeometry:
        """The same grid with its square turned k quarter turns counterclockwise
        (as np.rot90 turns the straightened square): a puzzle photographed on its side."""
        k %= 4
        if k == 0:
            return self
        xs, ys = self.xs, self.ys
        for _ in range(k):  # a quarter turn: columns become rows, rows columns counted from the other side
            xs, ys = ys, tuple(SIDE - y for y in reversed(xs))
        assert self.mesh is not None
        return GridGeometry(self.size, self.corners[k:] + self.corners[:k], xs, ys,
                            mesh=np.rot90(self.mesh, k, axes=(0, 1)).copy(), light_on_dark=self.light_on_dark)

    def resized(self, sx: float, sy: float) -> GridGeometry:
        """The same grid in the picture resized sx times as wide and sy times as high (its pixels'
        centres kept in place, as cv2.resize keeps them: x -> (x + 0.5) * sx - 0.5)."""
        assert self.mesh is not None
        k = np.asarray([sx, sy])
        corners = tuple((float((x + 0.5) * sx - 0.5), float((y + 0.5) * sy - 0.5)) for x, y in self.corners)
        return GridGeometry(self.size, corners, self.xs, self.ys, mesh=(self.mesh + 0.5) * k - 0.5,
                            light_on_dark=self.light_on_dark)

    def cell_box(self, r: int, c: int) -> tuple[float, float, float, float]:
        return self.xs[c], self.ys[r], self.xs[c + 1], self.ys[r + 1]

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Square coordinates (..., 2) -> original picture coordinates (..., 2)."""
        assert self.mesh is not None
        pts = np.asarray(points, np.float64)
        nodes = self.mesh.shape[0] - 1
        t = np.clip(pts * nodes / SIDE, 0, nodes)
        k = np.minimum(t.astype(int), nodes - 1)
        f = t - k
        fx, fy = f[..., :1], f[..., 1:]
        m = self.mesh
        i, j = k[..., 1], k[..., 0]
        top = m[i, j] * (1 - fx) + m[i, j + 1] * fx
        bottom = m[i + 1, j] * (1 - fx) + m[i + 1, j + 1] * fx
        out = top * (1 - fy) + bottom * fy
        # beyond the square, continue along the border's slope (debug lines, digits near the frame)
        over = pts * nodes / SIDE - t
        if np.any(over):
            step_x = (m[i, j + 1] - m[i, j]) / (SIDE / nodes)
            step_y = (m[i + 1, j] - m[i, j]) / (SIDE / nodes)
            out = out + step_x * (over[..., :1] * SIDE / nodes) + step_y * (over[..., 1:] * SIDE / nodes)
        return out

    def maps(self) -> tuple[np.ndarray, np.ndarray]:
        """Picture x and y for every pixel of the square (float32 maps for cv2.remap)."""
        assert self.mesh is not None
        k, f = _nodes(SIDE, self.mesh.shape[0] - 1)
        after = f.astype(np.float32)
        before = 1 - after
        out = []
        for axis in (0, 1):  # x, then y: each a contiguous map made in place (a quarter of the time of both at once)
            m = np.ascontiguousarray(self.mesh[..., axis], np.float32)
            rows = m[k] * before[:, None] + m[k + 1] * after[:, None]  # (SIDE, nodes+1): along y
            full = np.take(rows, k, axis=1)  # (SIDE, SIDE): along x (C-ordered, as cv2.remap takes it)
            full *= before
            right = np.take(rows, k + 1, axis=1)
            right *= after
            full += right
            out.append(full)
        return out[0], out[1]

    def square(self, image: np.ndarray) -> np.ndarray:
        """The grey square every stage reads: the grid of `image` straightened,
        dark ink on light paper (a light-on-dark grid's negative)."""
        import cv2

        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        square = self.straighten(gray)
        return 255 - square if self.light_on_dark else square

    def colour_square(self, image: np.ndarray, every: int = 1) -> np.ndarray | None:
        """The grid of `image` straightened in its colours (as `square`, not turned negative), or None
        for a grey picture; `every`: only every so many of the square's pixels each way (a small
        square, quicker, for what is flat over a cell: its fill)."""
        return self.straighten(image, every) if image.ndim == 3 and image.shape[2] == 3 else None

    def straighten(self, image: np.ndarray, every: int = 1) -> np.ndarray:
        """The grid of `image` (the original picture, or one of its size) as the upright square (`every`:
        SIDE // every px a side, each the middle of a block of the full square's)."""
        import cv2

        mx, my = self.maps()
        if every > 1:
            mx, my = mx[every // 2::every, every // 2::every], my[every // 2::every, every // 2::every]
        side = mx.shape[0]
        x0, y0 = max(0, int(mx.min()) - 2), max(0, int(my.min()) - 2)
        x1 = min(image.shape[1], int(mx.max()) + 3)
        y1 = min(image.shape[0], int(my.max()) + 3)
        if x1 <= x0 or y1 <= y0:
            return np.zeros((side, side) + image.shape[2:], image.dtype)
        crop = image[y0:y1, x0:x1]
        f = min(1.0, SHRINK_TO * side / max(x1 - x0, y1 - y0))
        if f < 1.0:
            crop = cv2.resize(crop, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        # pixel centres: a shrunk pixel k covers original [k/f, (k+1)/f)
        mx = (mx - x0 + 0.5) * f - 0.5
        my = (my - y0 + 0.5) * f - 0.5
        return cv2.remap(crop, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)



@dataclass(frozen=True)
class Contents:
    """What the cells hold besides their labels, told apart before the labels and borders are read
    (vision/contents.py): the cells where an answer, pencil marks or a placeholder is written, and
    where that ink lies in the square (255; 0 elsewhere, labels and lines included)."""

    written: tuple[Cell, ...]
    ink: np.ndarray | None = field(default=None, repr=False, compare=False)  # uint8, the square's shape
    # float32, the square's shape: its grey with the print alone where colour told it (contents.by_colour), NaN
    # elsewhere; None for a grey picture
    printed: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.written and self.ink is None:
            raise ValueError(f"contents: cells {self.written} are written but no ink is given")


@dataclass(frozen=True)
class BorderChange:
    """A cage border changed to agree with where the labels are (agree.py)."""

    a: Cell
    b: Cell  # the cell right of or below a
    thick: bool  # the border is now a cage border

    @property
    def kind(self) -> str:
        return "down" if self.b[0] > self.a[0] else "right"

    def __str__(self) -> str:
        return f"{cell_name(self.a)}|{cell_name(self.b)} {'border' if self.thick else 'no border'}"


@dataclass(frozen=True)
class CageLayout:
    cages: tuple[tuple[Cell, ...], ...]  # each sorted; cages sorted by anchor
    right_thick: tuple[tuple[bool, ...], ...]  # [r][c]: border between (r,c) and (r,c+1)
    down_thick: tuple[tuple[bool, ...], ...]  # [r][c]: border between (r,c) and (r+1,c)
    threshold: float  # ink above which an edge is thick
    # how sure each call is: |log ink - log threshold| (0: on the threshold), same shape as the calls
    right_margin: tuple[tuple[float, ...], ...] = ()
    down_margin: tuple[tuple[float, ...], ...] = ()
    changed: tuple[BorderChange, ...] = ()  # borders changed to agree with the labels (agree.py)
    # the layout of the other split the lines' ink allows, when it falls into three kinds (cages._splits):
    # which split is right is told by where the labels are (agree.agree_with_labels)
    other: CageLayout | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class LabelReading:
    """What the top of one cell may say."""

    texts: tuple[tuple[str, float], ...]  # most probable first; probabilities sum to <= 1; '' = no label

    @property
    def best(self) -> str:
        return self.texts[0][0] if self.texts else ""

    @property
    def probability(self) -> float:
        return self.texts[0][1] if self.texts else 0.0

    @property
    def has_label(self) -> float:
        """The probability that the cell holds a label at all."""
        return 1.0 - sum(p for t, p in self.texts if t == "")


@dataclass(frozen=True)
class ClueReading:
    """A cage's cells and what its label may say."""

    cells: tuple[Cell, ...]
    texts: tuple[tuple[str, float], ...]  # what the label may say, most probable first ('' = nothing)
    source: str = "model"  # the reader's name, or 'given' (--label)

    @property
    def text(self) -> str:
        return self.texts[0][0] if self.texts else ""

    @property
    def probability(self) -> float:
        return self.texts[0][1] if self.texts else 0.0

    @property
    def op(self) -> str:
        return label_parts(self.text, len(self.cells))[0]

    @property
    def target(self) -> int | None:
        return label_parts(self.text, len(self.cells))[1]


@dataclass(frozen=True)
class LabelDecision:
    """What one label was read as, and what the answer takes it to say."""

    cells: tuple[Cell, ...]
    read: str  # the reader's first choice ('' when it saw nothing legible)
    read_probability: float
    used: Cage  # the clue the answer uses
    used_probability: float  # of that reading (for a label not read: the share left to unlisted texts)
    # 'read' (as read), 'changed' (another of its readings), 'not read' (solved without it), 'given', or 'hidden'
    # (check read in part: under a written answer, not read; `used` is its cage's clue in one solution of several)
    how: str

    @property
    def unsure(self) -> bool:
        return self.how != "read" or self.used_probability < LABEL_SURE


@dataclass(frozen=True)
class Resolution:
    """The puzzle the labels most probably say, with its one solution."""

    puzzle: Puzzle
    grid: Grid
    labels: tuple[LabelDecision, ...]
    odds: float  # nats by which the answer beats the likeliest reading with another solution (inf: none seen)
    notes: tuple[str, ...]
    # check only (reading.resolve_in_part): cells whose digit labels hidden under answers leave open
    undetermined: frozenset[Cell] = frozenset()


@dataclass(frozen=True)
class AsRead:
    """A grid's puzzle as its labels were read, solvable or not (for convert):
    each cage's cells, the most probable clue its label can be (None: none), and its probability."""

    size: int
    cages: tuple[tuple[tuple[Cell, ...], Cage | None, float], ...]


@dataclass(frozen=True)
class Reading:
    """Everything read from one grid of a picture, and the answer."""

    geometry: GridGeometry
    layout: CageLayout
    clues: tuple[ClueReading, ...]
    puzzle: Puzzle
    grid: Grid  # the one solution
    notes: tuple[str, ...]
    labels: tuple[LabelDecision, ...]  # per cage: what was read and what the answer uses
    odds: float  # nats by which the answer beats the likeliest reading with another solution
    undetermined: frozenset[Cell] = frozenset()  # check only: cells hidden labels leave open (Resolution's)


@dataclass(frozen=True)
class Refusal:
    """Why one grid of a picture gave no answer, and what had been read by then."""

    error: KkvisionError
    geometry: GridGeometry | None = None
    seen: AsRead | None = None  # the labels as read, when the reading got that far


@dataclass(frozen=True)
class Reached:
    """What each stage of one reading of a grid reached (None: not reached; a
    refused reading's too, up to the stage that refused it).  read.py judges a
    refused reading by it: whether the grid is a sudoku, a crossword or a
    keypad, which reading a grid is refused with, whether a turned or
    second-model reading is worth trying (read._clued), its cages as drawn
    (not found again) and the Refusal's `seen`.  The reading a grid is
    answered or refused with is drawn in the debug pictures and given to a
    caller that asks (read_page's `traces`: the benchmarks' per-stage scores)."""

    geometry: GridGeometry | None = None
    square: np.ndarray | None = field(default=None, repr=False, compare=False)
    contents: Contents | None = None  # what was written in the cells, taken out of `square` (vision/contents.py)
    layout: CageLayout | None = None
    drawn: CageLayout | None = None  # the cages as their borders were seen, before the labels changed any
    clues: tuple[ClueReading, ...] | None = None
    processes: int = 0  # helper processes the label reader started (tesseract)
