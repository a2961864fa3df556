"""Pictures of each vision stage, written only when --debug-dir is given."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from ..errors import OutputError
from ..vocab import DEBUG_PICTURES
from .stages import SIDE, Reached

SEARCH, GRID, WARPED, CONTENTS, CAGES, CLUES = DEBUG_PICTURES  # the file names, said once (vocab.py)

log = logging.getLogger("kkvision")


def _save(path: Path, picture: np.ndarray) -> None:
    """One debug picture as PNG (encoded here and written by Python: any file name, even
    one that is not UTF-8, and a clear error when the folder cannot be written)."""
    ok, data = cv2.imencode(".png", picture)
    try:
        path.write_bytes(data.tobytes())
    except OSError as exc:
        raise OutputError(f"--debug-dir: cannot write {path}: {exc.strerror or exc}") from None


def _folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--debug-dir: cannot make the folder {folder}: {exc.strerror or exc}") from None


def write_search(folder: Path, image: np.ndarray, quads: list[np.ndarray]) -> None:
    """00_search.png: the picture with every frame the grid stage tried (none was a
    grid), so a failed search shows what it looked at."""
    _folder(folder)
    tried = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    width = max(2, max(tried.shape[:2]) // 500)
    for quad in quads:
        cv2.polylines(tried, [np.round(quad).astype(np.int32)], True, (0, 140, 255), width, cv2.LINE_AA)
    _save(folder / SEARCH, tried)
    log.warning("debug image of the grid search (%d frames tried, none a grid) written to %s", len(quads), folder)


def _bgr(square: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(square, cv2.COLOR_GRAY2BGR) if square.ndim == 2 else square.copy()


def write_stages(folder: Path, image: np.ndarray, reached: Reached) -> None:
    """01_grid.png .. 05_clues.png: each stage a reading reached, drawn."""
    geom, square, layout, clues = reached.geometry, reached.square, reached.layout, reached.clues
    if geom is None or square is None:
        return
    _folder(folder)
    found = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    width = max(2, max(found.shape[:2]) // 500)
    along = np.linspace(0, SIDE, 61)
    for k, (x, y) in enumerate(zip(geom.xs, geom.ys)):  # every line as traced through the picture
        color = (0, 0, 255) if k in (0, geom.size) else (255, 0, 0)
        for pts in (np.column_stack([np.full_like(along, x), along]), np.column_stack([along, np.full_like(along, y)])):
            cv2.polylines(found, [np.round(geom.to_image(pts)).astype(np.int32)], False, color, width, cv2.LINE_AA)
    _save(folder / GRID, found)
    lines = _bgr(square)
    for x in geom.xs:
        cv2.line(lines, (int(x), 0), (int(x), lines.shape[0]), (255, 0, 0), 1)
    for y in geom.ys:
        cv2.line(lines, (0, int(y)), (lines.shape[1], int(y)), (255, 0, 0), 1)
    _save(folder / WARPED, lines)
    contents = reached.contents
    if contents is not None:  # the square as read, with the ink taken out of it shown in red
        written = _bgr(square)
        if contents.ink is not None:
            written[contents.ink > 0] = (0.5 * written[contents.ink > 0] + (0, 0, 127)).astype(np.uint8)
        for r, c in contents.written:
            x0, y0, x1, y1 = (int(v) for v in geom.cell_box(r, c))
            cv2.rectangle(written, (x0 + 2, y0 + 2), (x1 - 2, y1 - 2), (0, 0, 255), 1)
        _save(folder / CONTENTS, written)
    if layout is not None:
        cages = _bgr(square)
        n = geom.size
        for r in range(n):
            for c in range(n):
                x0, y0, x1, y1 = (int(v) for v in geom.cell_box(r, c))
                if c + 1 < n:
                    color = (0, 0, 255) if layout.right_thick[r][c] else (0, 200, 0)
                    cv2.line(cages, (x1, y0 + 4), (x1, y1 - 4), color, 3)
                if r + 1 < n:
                    color = (0, 0, 255) if layout.down_thick[r][c] else (0, 200, 0)
                    cv2.line(cages, (x0 + 4, y1), (x1 - 4, y1), color, 3)
        _save(folder / CAGES, cages)
    if clues is not None:
        read = _bgr(square)
        for cl in clues:
            r, c = cl.cells[0]
            bx0, by0, bx1, by1 = geom.cell_box(r, c)
            label = f"{cl.target}{cl.op}" if cl.target is not None else "??"
            cv2.putText(read, label, (int(bx0 + 0.1 * (bx1 - bx0)), int(by0 + 0.85 * (by1 - by0))),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.9 * 9 / max(geom.size, 4) * 0.6, (200, 0, 0), 2)
        _save(folder / CLUES, read)
    log.warning("debug images written to %s", folder)
