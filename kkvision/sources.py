"""The one front door: what the user named -> sources -> each one a text or a picture.

`expand` turns the names on a command line into sources: a file is one; a
folder gives the pictures and puzzle texts in it (sorted, not its subfolders,
never kkvision's own outputs: *.solved.png ..., --debug-dir's 01_grid.png ...);
a PDF gives each page, rasterised at `dpi` (pypdfium2); a multi-page TIFF each
page; `-` what is on standard input.  The library and the web server make
sources of bytes (`of_bytes`) and of decoded arrays (`of_array`).  Sources are
small and picklable, and load their bytes or pixels only when asked, in the
worker that reads them.

`load` is the only place that says whether a source is a puzzle text or a
picture, and decodes pictures (within the pixel limit).
"""

from __future__ import annotations

import logging
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .defaults import DPI
from .errors import InputError, InputImageError
from .vocab import DEBUG_PICTURES, OUTPUT_NAME

PICTURES = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".webp"}
TEXTS = {".txt", ".json", ".keen"}
IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM", b"II*\x00", b"MM\x00*", b"RIFF")
MAX_FILE_BYTES = 200_000_000  # an input file's size limit (a 50 MP PNG is at most ~150 MB)
MAX_TEXT_BYTES = 1_000_000  # a puzzle text's size limit (a 12x12 puzzle in any format is a few KB)
MAX_PAGES = 500  # pages of one PDF or TIFF read at most (bounded work)


@dataclass(frozen=True)
class Source:
    name: str  # for messages, outputs and reports: 'page.pdf#2' for a document's page 2
    path: Path | None  # the file; None for standard input, bytes and arrays
    page: int | None = None  # 1-based page of a PDF or TIFF
    kind: str = "file"  # 'file', 'pdf', 'tiff', 'stdin', 'bytes', 'array', or 'empty' (a folder with none)
    data: bytes | None = field(default=None, repr=False)  # standard input's or the caller's bytes
    array: np.ndarray | None = field(default=None, repr=False, compare=False)  # a caller's decoded picture


@dataclass(frozen=True)
class Loaded:
    """A source's content: a puzzle text or a decoded picture (BGR or grey), never both."""

    name: str
    text: str | None = None
    picture: np.ndarray | None = field(default=None, repr=False)


def expand(named: list[Path], dpi: int = DPI, recursive: bool = False) -> list[Source]:
    """Every puzzle source the user named, in order: a folder's pictures and puzzle texts (with
    `recursive`, those of its folders below too, in path order).  kkvision's own output pictures
    (NAME.solved.png and the like, and the debug pictures: is_own) are skipped in folders and among
    several files named (`solve *.png` run twice), said once; one named alone is read."""
    out: list[Source] = []
    own = [p for p in named if len(named) > 1 and p.is_file() and is_own(p.name)]
    if own:
        logging.getLogger("kkvision").warning("skipped %d of kkvision's own output pictures (%s%s)", len(own),
                                              own[0].name, ", ..." if len(own) > 1 else "")
    for path in named:
        if path in own:
            continue
        if str(path) == "-":
            out.append(Source("-", None, kind="stdin", data=_stdin()))
        elif path.is_dir():
            found = sorted(p for p in (path.rglob("*") if recursive else path.iterdir())
                           if p.is_file() and p.suffix.lower() in PICTURES | TEXTS and not is_own(p.name))
            # an empty folder is a source that fails alone (one record), not a batch stopped before it starts
            out += [Source(str(p), p) for p in found] or [Source(str(path), path, kind="empty")]
        elif path.suffix.lower() == ".pdf":
            out += [Source(f"{path}#{k}", path, k, "pdf") for k in range(1, _pdf_pages(path) + 1)]
        elif path.suffix.lower() in (".tif", ".tiff") and path.is_file():
            pages = _tiff_pages(path)
            out += [Source(f"{path}#{k}" if pages > 1 else str(path), path, k if pages > 1 else None,
                           "tiff" if pages > 1 else "file") for k in range(1, pages + 1)]
        else:
            out.append(Source(str(path), path))
    return out


def is_own(name: str) -> bool:
    """Whether a file name is one kkvision writes: an answer picture (NAME.solved.png, NAME.hint-2.jpg
    ...) or a debug picture (01_grid.png ..., written where --debug-dir says, maybe a folder of inputs)."""
    return bool(OUTPUT_NAME.search(name)) or name in DEBUG_PICTURES


def of_bytes(data: bytes, name: str = "<bytes>") -> Source:
    """A source of a file's bytes held in memory (an upload, the library's bytes)."""
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"{name}: more than {MAX_FILE_BYTES / 1e6:g} MB")
    return Source(name, None, kind="bytes", data=bytes(data))


def of_array(image: np.ndarray, name: str = "picture") -> Source:
    """A source of a decoded picture: uint8, grey (h, w) or colour (h, w, 3 or 4; BGR or BGRA)."""
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)) or image.dtype != np.uint8:
        raise InputImageError("a picture array must be uint8, grey (h, w) or colour (h, w, 3 or 4)")
    return Source(name, None, kind="array", array=image)


def load(source: Source, max_pixels: int, dpi: int = DPI) -> Loaded:
    """The source's puzzle text, or its picture decoded: said here, once."""
    from .vision.picture import check_size, decode

    if source.kind == "array":
        assert source.array is not None
        image = source.array
        check_size(source.name, image.shape[1], image.shape[0], max_pixels, raise_with="max_pixels=")
        if image.ndim == 3 and image.shape[2] == 4:
            import cv2

            image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        return Loaded(source.name, picture=np.ascontiguousarray(image))
    if source.kind == "empty":
        raise InputError(f"{source.name}: a folder with no pictures or puzzle texts in it")
    if source.kind == "pdf":
        return Loaded(source.name, picture=_pdf_page(source, dpi))
    if source.kind == "tiff":
        return Loaded(source.name, picture=_tiff_page(source))
    path = source.path or Path(source.name)
    data = source.data if source.kind in ("stdin", "bytes") else read_file(path)
    assert data is not None
    if is_image(path, data):
        return Loaded(source.name, picture=decode(Path(source.name), data, max_pixels))
    return Loaded(source.name, text=_text_of(source.name, data))


def is_image(path: Path, data: bytes) -> bool:
    return data.startswith(IMAGE_MAGIC) or path.suffix.lower() in PICTURES


def read_file(path: Path) -> bytes:
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


def read_text(path: Path) -> str:
    """A text file the user gave (an answers file), read the same bounded way."""
    return _text_of(str(path), read_file(path), "a text file")


def _text_of(name: str, data: bytes, what: str = "a puzzle text file") -> str:
    if len(data) > MAX_TEXT_BYTES:
        raise InputError(f"{name}: too large for a puzzle text ({len(data) / 1e6:.1f} MB; limit"
                         f" {MAX_TEXT_BYTES / 1e6:g} MB), and not an image")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputImageError(f"{name}: neither an image kkvision can decode nor {what}") from None


def _stdin() -> bytes:
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"standard input: more than {MAX_FILE_BYTES / 1e6:g} MB")
    return data


def _pdf_page(source: Source, dpi: int) -> np.ndarray:
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(source.path))
        page = pdf[(source.page or 1) - 1]
        return page.render(scale=dpi / 72).to_numpy()[..., :3].copy()
    except pdfium.PdfiumError as exc:
        raise InputError(f"{source.name}: cannot read this PDF page ({exc})") from None


def _tiff_page(source: Source) -> np.ndarray:
    from PIL import Image, ImageSequence

    with Image.open(source.path) as im:  # type: ignore[arg-type]
        for k, frame in enumerate(ImageSequence.Iterator(im), 1):
            if k == source.page:
                return np.asarray(frame.convert("RGB"))[..., ::-1].copy()
    raise InputError(f"{source.name}: no such page")


def _pdf_pages(path: Path) -> int:
    import pypdfium2 as pdfium

    read_file(path)  # a regular file within the size limit
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
