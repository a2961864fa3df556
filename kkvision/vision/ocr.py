"""The one module that runs tesseract.

`read_numbers` reads many digit crops with ONE tesseract process: the crops
are scaled to a common height and laid out on a single page, one per line,
read with --psm 6 and a digit whitelist; each word found goes back to the
crop in whose slot it sits.  The process gets its own environment (one
OpenMP thread) and a timeout, as OCRmyPDF runs it: nothing of this process's
state is changed.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess

import numpy as np

from ..errors import MissingDependency, SolverTimeout

LINE_HEIGHT = 40
PITCH = 64  # line height plus the gap between lines
CONFIG = ("--psm", "6", "-c", "tessedit_char_whitelist=0123456789", "-c", "tessedit_do_invert=0")
# OpenMP threads make tesseract ~3x slower on a small page on this kind of
# machine (measured: 0.54 s vs 0.15 s for a 9x9's labels); one thread is best.
ENVIRONMENT = {"OMP_THREAD_LIMIT": "1"}
TIMEOUT = 30.0  # seconds: one page of a 9x9's labels takes ~0.2 s; a hung process is stopped
INSTALL = ("--ocr tesseract needs the tesseract binary: install it (apt install tesseract-ocr, dnf install"
           " tesseract, brew install tesseract), or use the default reader (--ocr model), which needs none")


def available() -> bool:
    return shutil.which("tesseract") is not None


def version() -> str | None:
    """The tesseract binary's version, or None when it is not installed."""
    exe = shutil.which("tesseract")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = (out.stdout or out.stderr).splitlines()
    return first[0].split()[-1] if first and first[0].split() else None


def _tesseract_words(page: np.ndarray) -> list[tuple[int, int, int, str]]:
    """(left, top, height, text) of every word tesseract finds on the page: one process."""
    import cv2

    exe = shutil.which("tesseract")
    if exe is None:
        raise MissingDependency(INSTALL)
    ok, png = cv2.imencode(".png", page)
    try:
        out = subprocess.run([exe, "stdin", "stdout", *CONFIG, "tsv"], input=png.tobytes(), capture_output=True,
                             timeout=TIMEOUT, env={**os.environ, **ENVIRONMENT}, check=False)
    except subprocess.TimeoutExpired:
        raise SolverTimeout(f"tesseract did not finish reading the labels within {TIMEOUT:g} s") from None
    except OSError as exc:
        raise MissingDependency(f"tesseract could not be started ({exc.strerror}); " + INSTALL) from None
    if out.returncode != 0:
        raise MissingDependency("tesseract failed: " + out.stderr.decode(errors="replace").strip()[-200:])
    rows = csv.DictReader(io.StringIO(out.stdout.decode(errors="replace")), delimiter="\t", quoting=csv.QUOTE_NONE)
    return [(int(r["left"]), int(r["top"]), int(r["height"]), r["text"]) for r in rows
            if (r.get("text") or "").strip()]


def _normalise(crop: np.ndarray) -> np.ndarray:
    """Darkness crop (0 paper..1 ink) -> black-on-white uint8, LINE_HEIGHT tall."""
    import cv2

    h, w = crop.shape[:2]
    if h == 0 or w == 0:
        return np.full((LINE_HEIGHT, LINE_HEIGHT), 255, np.uint8)
    scale = LINE_HEIGHT / h
    img = cv2.resize(crop.astype(np.float32), (max(1, int(w * scale)), LINE_HEIGHT), interpolation=cv2.INTER_CUBIC)
    return np.clip(255 * (1 - img), 0, 255).astype(np.uint8)


COLUMNS = 1


def _layout(count: int) -> tuple[int, int]:
    rows = (count + COLUMNS - 1) // COLUMNS
    return rows, COLUMNS if count > 1 else 1


def stack(crops: list[np.ndarray]) -> tuple[np.ndarray, int]:
    """One page: crops scaled to LINE_HEIGHT, in COLUMNS columns (a smaller
    page is a faster tesseract run); returns the page and the column width."""
    lines = [_normalise(c) for c in crops]
    rows, cols = _layout(len(lines))
    col_w = max(line.shape[1] for line in lines) + 3 * LINE_HEIGHT
    page = np.full((PITCH * rows + LINE_HEIGHT, col_w * cols), 255, np.uint8)
    for i, line in enumerate(lines):
        r, c = i % rows, i // rows
        y, x = LINE_HEIGHT // 2 + r * PITCH, c * col_w + LINE_HEIGHT
        page[y:y + LINE_HEIGHT, x:x + line.shape[1]] = line
    return page, col_w


def assign(words: list[tuple[int, int, int, str]], count: int, col_w: int) -> list[str]:
    """Put each word back on the crop whose slot its centre falls in."""
    out = [""] * count
    rows, _ = _layout(count)
    for left, top, height, text in words:
        r = int((top + height / 2 - LINE_HEIGHT // 2) // PITCH)
        i = (left // col_w) * rows + r
        if 0 <= r < rows and 0 <= i < count:
            out[i] += "".join(ch for ch in text if ch in "0123456789")
    return out


def read_numbers(crops: list[np.ndarray]) -> list[str]:
    """The digits in each crop ('' where none were read), with one tesseract process."""
    if not crops:
        return []
    page, col_w = stack(crops)
    return assign(_tesseract_words(page), len(crops), col_w)
