"""kkvision's whole job, top to bottom.

text  -> formats.read -> Puzzle -> solver.solve -> grid
image -> grid.find_grid -> cages.find_cages -> clues.read_clues
      -> reading.build_puzzle (solver checks the reading) -> solver.solve
      -> render.draw_solution onto the original image
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import formats
from .errors import InputError, InputImageError
from .puzzle import Puzzle
from .solver import DEFAULT_TIME_LIMIT, Solution, solve

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
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a puzzle file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror})") from None


def read_text_puzzle(path: Path, data: bytes, fmt: str | None) -> Puzzle:
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
