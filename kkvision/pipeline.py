"""kkvision's whole job, top to bottom.

file  -> read_input (regular file, size) -> image or text?
text  -> formats.read -> Puzzle -> solver.solve -> Result
image -> vision.decode (header limits) -> vision.read_picture:
         grid.find_grid -> cages.find_cages -> clues.read_cells -> agree.agree_with_labels
         -> clues.read_clues -> reading.resolve -> borders.check_borders -> Result
(the CLI then draws the Result onto the picture: render.draw_solution)
solve_text and solve_picture are the library API's engine (kkvision.api).
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import formats
from .errors import InputError, InputImageError, KkvisionError
from .puzzle import Grid, Puzzle
from .solver import DEFAULT_TIME_LIMIT, solve

MAX_FILE_BYTES = 200_000_000  # an input file's size limit (a 50 MP PNG is at most ~150 MB)
MAX_TEXT_BYTES = 1_000_000  # a puzzle text's size limit (a 12x12 puzzle in any format is a few KB)
IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM", b"II*\x00", b"MM\x00*", b"RIFF")
# label readers: the shipped label network, or the network with tesseract as
# a second witness of the digits (measured no better on real or synthetic
# pictures, and 0.1-0.2 s slower: bench/)
OCR_ENGINES = ("model", "tesseract")
OCR_ALIASES = {"auto": "model", "glyphs": "model"}  # older names of the default reader
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"}


@dataclass(frozen=True)
class Options:
    fmt: str | None = None
    time_limit: float = DEFAULT_TIME_LIMIT
    debug_dir: Path | None = None
    ocr: str = "model"  # label reader, one of OCR_ENGINES
    max_pixels: int = 50_000_000  # pictures declaring more pixels are refused before decoding
    labels: tuple[tuple[tuple[int, int], str], ...] = ()  # --label: (first cell of a cage, its text) given by the user


@dataclass(frozen=True)
class Result:
    """What kkvision made of one puzzle: the library API's result, and the CLI's."""

    puzzle: Puzzle
    solution: Grid
    unique: bool
    other: Grid | None = None  # a second grid when the puzzle has several (text puzzles)
    labels: tuple[Any, ...] = ()  # pictures: vision.reading.LabelDecision per cage
    corners: tuple[tuple[float, float], ...] | None = None  # pictures: grid corners tl, tr, br, bl, in pixels
    odds: float | None = None  # pictures: nats by which the answer beats any reading with another solution
    notes: tuple[str, ...] = ()
    geometry: Any = field(default=None, compare=False, repr=False)  # pictures: for drawing onto them


def is_image(path: Path, data: bytes) -> bool:
    return data.startswith(IMAGE_MAGIC) or path.suffix.lower() in IMAGE_SUFFIXES


def read_input(path: Path) -> bytes:
    """The file's bytes: only a regular file, and no more than MAX_FILE_BYTES
    (a device, a FIFO or a socket could be read without end)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a directory, not a puzzle file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: not a regular file (a device, pipe or socket); save it to a file first")
    if info.st_size > MAX_FILE_BYTES:
        raise InputError(f"{path}: file too large ({info.st_size / 1e6:.0f} MB; limit {MAX_FILE_BYTES / 1e6:g} MB)")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{path}: file too large (over {MAX_FILE_BYTES / 1e6:g} MB)")
    return data


def _text_of(path: Path, data: bytes) -> str:
    if len(data) > MAX_TEXT_BYTES:
        raise InputError(f"{path}: too large for a puzzle text ({len(data) / 1e6:.1f} MB; limit"
                         f" {MAX_TEXT_BYTES / 1e6:g} MB), and not an image")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputImageError(
            f"{path}: neither an image kkvision can decode nor a puzzle text file"
        ) from None


def solve_text(text: str, opts: Options) -> Result:
    """A puzzle text in any format (opts.fmt, or detected), solved."""
    puzzle = formats.read(text, opts.fmt)
    solution = solve(puzzle, opts.time_limit)
    return Result(puzzle, solution.grid, solution.unique, solution.other)


def solve_picture(image: Any, opts: Options, name: str = "picture") -> Result:
    """A decoded picture (BGR or grey numpy array), read and solved."""
    from .vision import read_picture

    return _result(read_picture(image, name, opts))


def solve_page(image: Any, opts: Options, name: str = "picture") -> list[Result | KkvisionError]:
    """Every puzzle in a decoded picture, in reading order: each one's Result,
    or the error that stopped it (GridNotFound when there is no puzzle at all)."""
    from .vision import read_page

    return [r if isinstance(r, KkvisionError) else _result(r) for r in read_page(image, name, opts)]


def _result(reading: Any) -> Result:
    return Result(reading.puzzle, reading.solution.grid, reading.solution.unique, None, reading.labels,
                  reading.geometry.corners, reading.odds, reading.notes, reading.geometry)


def run(path: Path, opts: Options) -> tuple[Result, Any]:
    """The puzzle in a file, image or text: the result, and the decoded picture (None for a text)."""
    return run_data(path, read_input(path), opts)


def run_data(path: Path, data: bytes, opts: Options) -> tuple[Result, Any]:
    """The same for a file's bytes already read (standard input); `path` names it."""
    if not is_image(path, data):
        return solve_text(_text_of(path, data), opts), None
    from .vision import decode

    image = decode(path, data, opts.max_pixels)
    return solve_picture(image, opts, str(path)), image
