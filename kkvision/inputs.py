"""What the user named -> the puzzles' sources, one Source each.

A file is one source; a folder gives the pictures and puzzle texts in it
(sorted, not its subfolders, never kkvision's own outputs: *.solved.png ...);
a PDF gives each page, rasterised at `dpi` (pypdfium2); a multi-page TIFF
each page; `-` what is on standard input.  Sources are small, picklable and
load their bytes or pixels only when asked (in the worker that reads them).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .pipeline import MAX_FILE_BYTES, read_input

PICTURES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"}
TEXTS = {".txt", ".json", ".keen"}
OUR_OUTPUTS = re.compile(r"\.(solved|checked)(-\d+)?\.(png|jpe?g|webp)$", re.IGNORECASE)
DEFAULT_DPI = 300  # a PDF page is rasterised as a 300 dpi scan would be
MAX_PAGES = 500  # pages of one PDF or TIFF read at most (bounded work)


@dataclass(frozen=True)
class Source:
    name: str  # for messages, outputs and reports: 'page.pdf#2' for a document's page 2
    path: Path | None  # the file; None for standard input
    page: int | None = None  # 1-based page of a PDF or TIFF
    kind: str = "file"  # 'file', 'pdf', 'tiff' or 'stdin'
    data: bytes | None = None  # standard input's bytes, read once


def expand(named: list[Path], dpi: int = DEFAULT_DPI) -> list[Source]:
    """Every puzzle source the user named, in order."""
    out: list[Source] = []
    for path in named:
        if str(path) == "-":
            out.append(Source("-", None, kind="stdin", data=_stdin()))
        elif path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in PICTURES | TEXTS
                           and not OUR_OUTPUTS.search(p.name))
            if not found:
                raise InputError(f"{path}: a folder with no pictures or puzzle texts in it")
            out += [Source(str(p), p) for p in found]
        elif path.suffix.lower() == ".pdf":
            out += [Source(f"{path}#{k}", path, k, "pdf") for k in range(1, _pdf_pages(path) + 1)]
        elif path.suffix.lower() in (".tif", ".tiff") and path.is_file():
            pages = _tiff_pages(path)
            out += [Source(f"{path}#{k}" if pages > 1 else str(path), path, k if pages > 1 else None,
                           "tiff" if pages > 1 else "file") for k in range(1, pages + 1)]
        else:
            out.append(Source(str(path), path))
    return out


def load(source: Source, dpi: int = DEFAULT_DPI):  # type: ignore[no-untyped-def]
    """The source's bytes (a file, standard input), or its page's pixels (BGR array)."""
    if source.kind == "stdin":
        return source.data or b""
    assert source.path is not None
    if source.kind == "pdf":
        import pypdfium2 as pdfium

        try:
            pdf = pdfium.PdfDocument(str(source.path))
            page = pdf[(source.page or 1) - 1]
            return page.render(scale=dpi / 72).to_numpy()[..., :3].copy()
        except pdfium.PdfiumError as exc:
            raise InputError(f"{source.name}: cannot read this PDF page ({exc})") from None
    if source.kind == "tiff":
        import numpy as np
        from PIL import Image, ImageSequence

        with Image.open(source.path) as im:
            for k, frame in enumerate(ImageSequence.Iterator(im), 1):
                if k == source.page:
                    return np.asarray(frame.convert("RGB"))[..., ::-1].copy()
        raise InputError(f"{source.name}: no such page")
    return read_input(source.path)


def _stdin() -> bytes:
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"standard input: more than {MAX_FILE_BYTES / 1e6:g} MB")
    return data


def _pdf_pages(path: Path) -> int:
    import pypdfium2 as pdfium

    read_input(path)  # a regular file within the size limit
    try:
        count = len(pdfium.PdfDocument(str(path)))
    except pdfium.PdfiumError as exc:
        raise InputError(f"{path}: not a PDF kkvision can read ({exc})") from None
    if count == 0:
        raise InputError(f"{path}: a PDF with no pages")
    return min(count, MAX_PAGES)


def _tiff_pages(path: Path) -> int:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            return max(1, min(int(getattr(im, "n_frames", 1)), MAX_PAGES))
    except (UnidentifiedImageError, OSError):
        return 1  # not readable as a TIFF here: the picture stage says what is wrong
