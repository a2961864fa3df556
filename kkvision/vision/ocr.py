"""The one module that runs tesseract.

`read_numbers` reads many digit crops with ONE tesseract process: the crops
are scaled to a common height and stacked into a single page, one per line,
read with --psm 6 and a digit whitelist; each word found goes back to the
crop on whose line it sits.  PROCESSES counts the processes spawned (the
benchmark reports it).
"""

from __future__ import annotations

import shutil

import numpy as np

from ..errors import MissingDependency

PROCESSES = 0
LINE_HEIGHT = 40
CONFIG = "--psm 6 -c tessedit_char_whitelist=0123456789"


def available() -> bool:
    return shutil.which("tesseract") is not None


def _tesseract_words(page: np.ndarray, config: str) -> list[tuple[int, int, str]]:
    """(top, height, text) of every word tesseract finds on the page: one process."""
    global PROCESSES
    try:
        import pytesseract
    except ImportError:
        raise MissingDependency("the Python package pytesseract is missing: run ./scripts/setup.sh") from None
    if not available():
        raise MissingDependency("the tesseract binary is missing: apt install tesseract-ocr"
                                " (or run ./scripts/setup.sh)")
    PROCESSES += 1
    data = pytesseract.image_to_data(page, config=config, output_type=pytesseract.Output.DICT)
    return [(int(t), int(h), str(w)) for t, h, w in zip(data["top"], data["height"], data["text"]) if str(w).strip()]


def _normalise(crop: np.ndarray) -> np.ndarray:
    """Darkness crop (0 paper..1 ink) -> black-on-white uint8, LINE_HEIGHT tall."""
    import cv2

    h, w = crop.shape[:2]
    if h == 0 or w == 0:
        return np.full((LINE_HEIGHT, LINE_HEIGHT), 255, np.uint8)
    scale = LINE_HEIGHT / h
    img = cv2.resize(crop.astype(np.float32), (max(1, int(w * scale)), LINE_HEIGHT), interpolation=cv2.INTER_CUBIC)
    return np.clip(255 * (1 - img), 0, 255).astype(np.uint8)


def stack(crops: list[np.ndarray]) -> np.ndarray:
    lines = [_normalise(c) for c in crops]
    width = max(line.shape[1] for line in lines) + 2 * LINE_HEIGHT
    gap = LINE_HEIGHT
    page = np.full((gap + len(lines) * (LINE_HEIGHT + gap), width), 255, np.uint8)
    for i, line in enumerate(lines):
        y = gap + i * (LINE_HEIGHT + gap)
        page[y:y + LINE_HEIGHT, LINE_HEIGHT:LINE_HEIGHT + line.shape[1]] = line
    return page


def assign(words: list[tuple[int, int, str]], count: int) -> list[str]:
    """Put each word back on the crop whose line its centre falls on."""
    out = [""] * count
    pitch = 2 * LINE_HEIGHT
    for top, height, text in words:
        i = int((top + height / 2 - LINE_HEIGHT) // pitch)
        if 0 <= i < count:
            out[i] += "".join(ch for ch in text if ch.isdigit())
    return out


def read_numbers(crops: list[np.ndarray]) -> list[str]:
    """The digits in each crop ('' where none were read), with one tesseract process."""
    if not crops:
        return []
    return assign(_tesseract_words(stack(crops), CONFIG), len(crops))
