"""kkvision's whole job, top to bottom.

text  -> formats.read -> Puzzle -> solver.solve -> grid
image -> grid.find_grid -> cages.find_cages -> clues.read_clues
      -> reading.build_puzzle (solver checks the reading) -> solver.solve
      -> render.draw_solution onto the original image
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import formats
from .errors import InputError, InputImageError
from .puzzle import Puzzle
from .solver import DEFAULT_TIME_LIMIT, Solution, solve

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


@dataclass(frozen=True)
class Outcome:
    puzzle: Puzzle
    solution: Solution
    image: Any = None  # the decoded original (numpy BGR array) for images
    vision: Any = None  # vision.Reading for images
    notes: tuple[str, ...] = field(default_factory=tuple)


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


def read_text_puzzle(path: Path, data: bytes, fmt: str | None) -> Puzzle:
    if len(data) > MAX_TEXT_BYTES:
        raise InputError(f"{path}: too large for a puzzle text ({len(data) / 1e6:.1f} MB; limit"
                         f" {MAX_TEXT_BYTES / 1e6:g} MB), and not an image")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputImageError(
            f"{path}: neither an image kkvision can decode nor a puzzle text file"
        ) from None
    return formats.read(text, fmt)


def run(path: Path, opts: Options) -> Outcome:
    data = read_input(path)
    if not is_image(path, data):
        puzzle = read_text_puzzle(path, data, opts.fmt)
        return Outcome(puzzle, solve(puzzle, opts.time_limit))
    from .vision import read_image

    image, reading = read_image(path, data, opts)
    return Outcome(reading.puzzle, reading.solution, image, reading, reading.notes)
