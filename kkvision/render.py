"""Draw the solution (or the wrong answers) into the ORIGINAL picture.

Labels the answer reads otherwise than the label reader's first choice (or
could not read) are drawn too, as the answer takes them, over the printed
label on a pale patch in orange; labels used as read but read with little
certainty in purple: the user can check them against the print, and the
output picture read again is the puzzle the answer solves.

The digits are drawn on a transparent layer in the straightened square,
where cells are upright and evenly sized; each cell of that layer is warped
back into the photo through the cell's own corners there, so the digits
follow the perspective, and a curved page cell by cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .errors import OutputError, OutputExists
from .puzzle import Grid
from .vision.stages import SIDE, GridGeometry, LabelDecision
from .vision.stats import grey_percentile, percentile
from .vocab import HIDDEN, Cell, label_display

FONT_NAMES = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "FreeSansBold.ttf")
SOLUTION = (20, 70, 220, 255)  # RGBA
SOLUTION_ON_DARK = (110, 200, 255, 255)  # the digits on a light-on-dark grid (a dark theme)
ANSWER_CONTRAST = 70  # grey levels the drawn digits stay darker than the paper of their cell: SOLUTION (grey 72)
                      # on a dim photo's paper (grey ~100) is hard to tell from it, for the user and for `check`
                      # reading the answer picture back; there the digits are drawn a darker blue
DARKEST = 0.35  # ... but never darker than this share of SOLUTION (still blue, not black print)
# An answer drawn over a player's pencil marks (an app's candidates, as dark as print, under and around where
# the answer goes) is hard to tell from them, for the user and for `check` reading the picture back: there the
# marks reaching into the answer's place (from ABOVE cells above the digit's top down to the cell's foot, across
# the cell inside its lines) are laid over with the cell's paper first, as an app clears its notes when an
# answer is entered (render._paper_under says what is a mark).
ABOVE = 0.05
PLACE = 128  # the place's level in the drawing's mask of places (255: where a note must reach, below)
MUST = (PLACE + 255) // 2  # a level of that mask, warped, above which a note must reach (halfway: either side)
CLEAR, CLEAR_FOOT = 0.04, 0.015  # the place stops this much of the cell from its side lines and its foot
NOTES_INK = 60  # grey levels below the cell's paper
NOTE_TOP = 0.25  # a mark starting higher in the cell is a label (labels start at ~0.1), never laid over
NOTE_SIZE = (0.08, 0.6)  # a mark's height, in cells: the smallest notes are ~0.1, a line spans the cell
NOTES_IN = (0.1, 0.9)  # a note's middle lies inside this share of the cell, across and down: the cell's lines
                       # lie outside it (a thick line in a noisy photo breaks into small pieces along them)
WRONG = (220, 20, 20, 255)
BLANK = (235, 140, 0, 255)  # `check`: a cell left empty
NOT_JUDGED = (160, 0, 170, 255)  # `check`: a written cell not read surely enough to judge: a dashed box and '?'
DASH = 0.08  # the dashed box's dashes, in cells
CHANGED = (235, 100, 0, 255)  # a label the answer reads otherwise than the reader's first choice, or not at all
UNSURE = (160, 0, 170, 255)  # a label used as read, but read with little certainty
CHANGED_BACK = (255, 240, 222, 255)  # the patch over a changed label's print: pale, as paper reads
UNSURE_BACK = (246, 232, 250, 255)  # the same for an unsure one
LABEL_SIZE = 0.2  # a drawn label's height, in cells (as printed labels are)
LABEL_AT = 0.08  # ... its top-left corner, in cells from the cell's
PATCH = (0.55, 0.36)  # the patch covers at least this much of the cell from its top left (a printed label)
# output picture formats by file name ending, with their encoder settings
OUTPUT_FORMATS: dict[str, list[int]] = {
    ".png": [cv2.IMWRITE_PNG_COMPRESSION, 1], ".jpg": [cv2.IMWRITE_JPEG_QUALITY, 92],
    ".jpeg": [cv2.IMWRITE_JPEG_QUALITY, 92], ".webp": [cv2.IMWRITE_WEBP_QUALITY, 92],
}


@dataclass(frozen=True)
class Drawing:
    """What to draw onto one puzzle of a picture: digits (0: none) and circles
    round cells written wrong (a hint), or with `check` the marks of wrong,
    blank and not judged cells; and the labels taken otherwise."""

    geometry: GridGeometry
    grid: Grid
    labels: tuple[LabelDecision, ...] = ()
    check: bool = False  # draw the marks of wrong, blank and not judged cells instead of digits
    wrong: frozenset[Cell] = frozenset()
    blank: frozenset[Cell] = frozenset()
    unsure: frozenset[Cell] = frozenset()  # written, but not read surely: not judged


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = _font_file()
    return ImageFont.truetype(path, size) if path else ImageFont.load_default(size)


@lru_cache(maxsize=1)
def _font_file() -> str | None:
    """The first of FONT_NAMES installed, looked for once per process (a walk of the font folders)."""
    for name in FONT_NAMES:
        for folder in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")):
            hits = list(folder.rglob(name)) if folder.exists() else []
            if hits:
                return str(hits[0])
    return None


def _layer(drawing: Drawing) -> tuple[np.ndarray, np.ndarray]:
    """The drawing's marks (RGBA) in the straightened square, and each answer digit's place (PLACE: from
    ABOVE the digit's top to the cell's foot, inside its lines; 255 in its lower middle, where a note
    must reach for any to be laid over), where pencil marks are laid over."""
    geom, grid, wrong, blank = drawing.geometry, drawing.grid, drawing.wrong, drawing.blank
    n = geom.size
    layer = Image.new("RGBA", (SIDE, SIDE), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    clear = Image.new("L", (SIDE, SIDE), 0)
    places = ImageDraw.Draw(clear)
    above = max(1, round(ABOVE * SIDE / n))
    font = _font(int(0.5 * SIDE / n))
    tops: dict[int, float] = {}
    for r in range(n):
        for c in range(n):
            x0, y0, x1, y1 = geom.cell_box(r, c)
            cx, cy = (x0 + x1) / 2, y0 + 0.62 * (y1 - y0)
            if (r, c) in wrong:  # check's wrong cell, or a hint's cell written wrong: circled, no digit
                m = 0.18 * (x1 - x0)
                d.ellipse([x0 + m, y0 + m, x1 - m, y1 - m], outline=WRONG, width=max(3, SIDE // (60 * n)))
            if drawing.check:
                if (r, c) in blank:
                    m = 0.3 * (x1 - x0)
                    d.rectangle([x0 + m, y0 + m, x1 - m, y1 - m], outline=BLANK, width=max(2, SIDE // (90 * n)))
                if (r, c) in drawing.unsure:
                    _not_judged(d, (x0, y0, x1, y1), _font(int(0.3 * SIDE / n)), max(2, SIDE // (90 * n)))
                continue
            if grid[r][c] and (r, c) not in wrong:  # 0: a cell left empty (hints show only some cells)
                d.text((cx, cy), str(grid[r][c]), font=font, fill=SOLUTION_ON_DARK if geom.light_on_dark else SOLUTION,
                       anchor="mm")
                if grid[r][c] not in tops:  # where a digit's top lies from its anchor: the same wherever it is drawn
                    tops[grid[r][c]] = d.textbbox((0, 0), str(grid[r][c]), font=font, anchor="mm")[1]
                top = cy + tops[grid[r][c]] - above
                places.rectangle([x0 + CLEAR * (x1 - x0), top, x1 - CLEAR * (x1 - x0), y1 - CLEAR_FOOT * (y1 - y0)],
                                 fill=PLACE)
                # where a note must be for any to be laid over: below the place's middle, away from the lines
                places.rectangle([x0 + NOTES_IN[0] * (x1 - x0), (top + y1) / 2, x0 + NOTES_IN[1] * (x1 - x0),
                                  y0 + NOTES_IN[1] * (y1 - y0)], fill=255)
    _labels(d, geom, drawing.labels)
    return np.asarray(layer), np.asarray(clear)


def _not_judged(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], font: ImageFont.FreeTypeFont
                | ImageFont.ImageFont, width: int) -> None:
    """A dashed box round where the answer is written (below the label) and a '?'
    at its bottom right: written, not read surely, not judged."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    a0, b0, a1, b1 = x0 + 0.15 * w, y0 + 0.32 * h, x1 - 0.15 * w, y1 - 0.08 * h
    dashed(d, [(a0, b0), (a1, b0), (a1, b1), (a0, b1)], NOT_JUDGED, width, DASH * w, closed=True)
    d.text((a1 - 0.03 * w, b1 - 0.03 * h), "?", font=font, fill=NOT_JUDGED, anchor="rs")


def dashed(d: ImageDraw.ImageDraw, pts: list[tuple[float, float]], colour: tuple[int, ...], width: int, dash: float,
           closed: bool = False) -> None:
    """A polyline drawn dashed (dash on, dash off), the pattern running on round corners."""
    if closed:
        pts = pts + pts[:1]
    on, left = True, dash
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        seg = float(np.hypot(x1 - x0, y1 - y0))
        t = 0.0
        while t < seg - 1e-6:
            step = min(left, seg - t)
            if on:
                a, b = t / seg, (t + step) / seg
                d.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                       fill=colour, width=width)
            t += step
            left -= step
            if left <= 1e-6:
                on, left = not on, dash


def _labels(d: ImageDraw.ImageDraw, geom: GridGeometry, labels: tuple[LabelDecision, ...]) -> None:
    """The reading used for each changed or unsure label, in place of the
    printed one (top left of its cell), on a tinted patch, in its own colour:
    the picture shows the puzzle the answer solves, and reads back as it."""
    font = _font(int(LABEL_SIZE * SIDE / geom.size))
    for label in labels:
        if not label.unsure:
            continue
        x0, y0, x1, y1 = geom.cell_box(*label.used.anchor)
        w, h = x1 - x0, y1 - y0
        text = "?" if label.how == HIDDEN else label_display(label.used.op, label.used.target)
        colour, patch = (UNSURE, UNSURE_BACK) if label.how == "read" else (CHANGED, CHANGED_BACK)
        at = (x0 + LABEL_AT * w, y0 + LABEL_AT * h)
        right = min(x1 - LABEL_AT * w, max(x0 + PATCH[0] * w, d.textbbox(at, text, font=font)[2] + LABEL_AT * w))
        d.rectangle([x0 + 0.5 * LABEL_AT * w, y0 + 0.5 * LABEL_AT * h, right, y0 + PATCH[1] * h], fill=patch)
        d.text(at, text, font=font, fill=colour)


def draw(image: np.ndarray, drawings: list[Drawing]) -> np.ndarray:
    """A copy of the original picture (BGR, or grey) with each puzzle's drawing in it."""
    out = (image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)).copy()
    for drawing in drawings:
        _draw_one(out, drawing)
    return out


def _draw_one(out: np.ndarray, drawing: Drawing) -> None:
    """The drawing's layer warped into the picture, cell by cell, in place."""
    h, w = out.shape[:2]
    geom = drawing.geometry
    layer, clear = _layer(drawing)
    alpha = np.ascontiguousarray(layer[..., 3])
    must = (clear > MUST).astype(np.uint8)  # where a note must reach for any to be laid over
    n = geom.size
    cells = [(r, c) for r in range(n) for c in range(n)]
    bounds = []  # each cell's box in whole layer pixels
    for r, c in cells:
        bx0, by0, bx1, by1 = geom.cell_box(r, c)
        bounds.append((int(np.floor(bx0)), int(np.floor(by0)), int(np.ceil(bx1)), int(np.ceil(by1))))
    corners = np.asarray([[[ix0, iy0], [ix1, iy0], [ix1, iy1], [ix0, iy1]] for ix0, iy0, ix1, iy1 in bounds],
                         np.float64)
    in_picture = geom.to_image(corners)  # every cell's corners at once (each point maps on its own)
    # the grid's grey levels, taken once before any cell is drawn (a cell's box reaches its neighbours'
    # lines only, where nothing is drawn): each cell's paper is the brighter quarter of its box's
    # (a light-on-dark grid's answers are drawn light, whatever its paper)
    gx0, gy0 = (max(0, int(v) - 1) for v in in_picture.reshape(-1, 2).min(axis=0))
    gx1, gy1 = (min(lim, int(v) + 2) for v, lim in zip(in_picture.reshape(-1, 2).max(axis=0), (w, h)))
    greys = None if geom.light_on_dark else cv2.cvtColor(out[gy0:max(gy0, gy1), gx0:max(gx0, gx1)],
                                                         cv2.COLOR_BGR2GRAY)
    for (ix0, iy0, ix1, iy1), src, dst in zip(bounds, corners, in_picture):
        left, top = max(0, ix0), max(0, iy0)
        inked = _inked(alpha[top:iy1, left:ix1])
        if inked is None:
            continue
        x0, y0 = (max(0, int(v) - 1) for v in dst.min(axis=0))
        x1, y1 = (min(lim, int(v) + 2) for v, lim in zip(dst.max(axis=0), (w, h)))
        if x1 <= x0 or y1 <= y0:
            continue
        # this cell's piece of the layer, through its own corners, into its box in the picture
        H = cv2.getPerspectiveTransform((src - [left, top]).astype(np.float32), (dst - [x0, y0]).astype(np.float32))
        part = _warped_part(layer[top:iy1, left:ix1], H, inked, (x1 - x0, y1 - y0))
        if part is None:
            continue
        (px, py), back = part
        roi = out[y0:y1, x0:x1]
        if greys is not None:
            grey = greys[y0 - gy0:y1 - gy0, x0 - gx0:x1 - gx0]
            paper = grey_percentile(grey, 75)
            place = clear[top:iy1, left:ix1]
            if _notes_reach(grey, paper, place, H, _inked(must[top:iy1, left:ix1])) and _paper_under(
                    roi, cv2.warpPerspective(place, H, (x1 - x0, y1 - y0)), grey, paper, dst, (x0, y0)):
                paper = grey_percentile(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), 75)  # the notes laid over: as it now is
            back = _contrasted(back, paper)
        under = roi[py:py + back.shape[0], px:px + back.shape[1]]  # where the part lies, in place
        a = back[..., 3:].astype(np.float32) / 255.0  # 0 outside the marks: those pixels stay as they are
        under[...] = (under * (1 - a) + back[..., 2::-1] * a).astype(np.uint8)  # RGBA -> BGR


def _inked(alpha: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box (x, y, width, height) of the pixels a cell's piece of the layer inks, widened by the one
    pixel round it that a linear warp reads them through; None when it inks none."""
    x, y, bw, bh = cv2.boundingRect(alpha)
    if not bw:
        return None
    x0, y0 = max(0, x - 1), max(0, y - 1)
    return x0, y0, min(alpha.shape[1], x + bw + 1) - x0, min(alpha.shape[0], y + bh + 1) - y0


def _warped_part(piece: np.ndarray, H: np.ndarray, inked: tuple[int, int, int, int], size: tuple[int, int]
                 ) -> tuple[tuple[int, int], np.ndarray] | None:
    """The inked box of a cell's piece of the layer warped by H into the cell's box in the picture (of
    `size`): where its part of that box starts, and the part, which holds every pixel the warp of the
    whole piece inks (outside the inked box the piece is clear, and reads as clear past its edge): a
    digit covers a sixth of its cell, so the warp does a sixth of the work.  None when it lies outside."""
    x, y, bw, bh = inked
    ends = cv2.perspectiveTransform(np.array([[[x, y], [x + bw, y], [x + bw, y + bh], [x, y + bh]]], np.float64), H)[0]
    px, py = (max(0, int(np.floor(v)) - 1) for v in ends.min(axis=0))
    qx, qy = (min(lim, int(np.ceil(v)) + 2) for v, lim in zip(ends.max(axis=0), size))
    if qx <= px or qy <= py:
        return None
    shift = np.array([[1, 0, -px], [0, 1, -py], [0, 0, 1]], np.float64) @ H @ np.array([[1, 0, x], [0, 1, y], [0, 0, 1]],
                                                                                     np.float64)
    back = cv2.warpPerspective(piece[y:y + bh, x:x + bw], shift, (qx - px, qy - py), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    return (px, py), back


def _grey(bgr: np.ndarray) -> np.ndarray:
    """Grey levels (float32) of BGR pixels, as the answer's contrast is measured."""
    f = bgr.astype(np.float32)
    return 0.299 * f[..., 2] + 0.587 * f[..., 1] + 0.114 * f[..., 0]


_SOLUTION_GREY = _grey(np.asarray(SOLUTION[2::-1], np.uint8))  # a float32, as the paper's grey levels
_SOLUTION_RGB = SOLUTION[0] | SOLUTION[1] << 8 | SOLUTION[2] << 16


def _notes_reach(grey: np.ndarray, paper: float, place: np.ndarray, H: np.ndarray,
                 must: tuple[int, int, int, int] | None) -> bool:
    """Does any ink of the cell's box (`grey`, NOTES_INK darker than its `paper`) lie where a note must reach
    for any to be laid over (`must`: that part's box in the cell's `place`, which H warps into `grey`)?
    _paper_under's first test, on the warp of that part alone (most cells: no)."""
    part = None if must is None else _warped_part(place, H, must, (grey.shape[1], grey.shape[0]))
    if part is None:
        return False
    (px, py), reach = part
    h, w = reach.shape
    return bool(((grey[py:py + h, px:px + w] < paper - NOTES_INK) & (reach > MUST)).any())


def _paper_under(roi: np.ndarray, place: np.ndarray, grey: np.ndarray, paper: float, corners: np.ndarray,
                 origin: tuple[int, int]) -> bool:
    """The pencil marks that reach into `place`, where the cell's answer digit goes, laid over with the
    cell's paper (`roi`, in place) before the digit is drawn, whole (no piece of one left to be read as a
    label's foot), when one of them reaches below the place's middle (where no label does); whether any
    was.  A mark is a note when it is ink NOTES_INK darker than the `paper`, its middle inside NOTES_IN of
    the cell (a photo's thick lines lie outside), starting below NOTE_TOP (a label starts higher),
    NOTE_SIZE of the cell high (a digit's size: not a speck of noise, a shadow, nor a line).
    place: 0..255 in roi's pixels; grey: roi's grey levels; corners: the cell's in the picture, whose
    pixel `origin` is roi's top left."""
    ink = grey < paper - NOTES_INK
    if not (ink & (place > MUST)).any():  # no ink where a note must reach: most cells
        return False
    inside = (place > 0) & ink
    left, top = float(corners[:, 0].min() - origin[0]), float(corners[:, 1].min() - origin[1])
    width, height = float(np.ptp(corners[:, 0])), float(np.ptp(corners[:, 1]))
    count, marks, stats, centres = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    rows = np.nonzero(place.any(axis=1))[0]
    middle = (rows[0] + rows[-1]) / 2
    notes, below = [], False
    for k in set(np.unique(marks[inside]).tolist()) - {0}:
        x, y, w, h, _ = stats[k]
        cu, cv_ = (centres[k, 0] + 0.5 - left) / width, (centres[k, 1] + 0.5 - top) / height
        if (NOTES_IN[0] <= cu <= NOTES_IN[1] and cv_ <= NOTES_IN[1] and y >= top + NOTE_TOP * height
                and NOTE_SIZE[0] * height <= h <= NOTE_SIZE[1] * height and w <= NOTE_SIZE[1] * width):
            notes.append(k)
            below = below or y + h > middle
    if not below:
        return False
    laid = cv2.dilate(np.isin(marks, notes).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0  # and their fringes
    roi[laid] = [round(percentile(roi[..., k].astype(np.float32), 75)) for k in range(3)]
    return True


def _contrasted(inked: np.ndarray, paper: float) -> np.ndarray:
    """The answer digits' pixels (SOLUTION's colour) of a cell's ink (RGBA, ... x 4) darkened, keeping
    their hue, to stand ANSWER_CONTRAST grey levels below the `paper` of the cell's box
    in the picture (its brighter quarter); the other marks as they are."""
    own = _SOLUTION_GREY
    if paper - own >= ANSWER_CONTRAST:
        return inked
    digits = (np.ascontiguousarray(inked).view("<u4")[..., 0] & 0xFFFFFF) == _SOLUTION_RGB  # RGBA as R | G<<8 | B<<16 | A<<24
    out = inked.copy()
    scale = max(DARKEST, float((paper - ANSWER_CONTRAST) / own))
    out[digits, :3] = (np.asarray(SOLUTION[:3], np.float32) * scale).astype(np.uint8)  # every such pixel is SOLUTION's colour
    return out


def save_image(picture: np.ndarray, path: Path) -> None:
    """Write the picture in the format its name asks for (PNG, JPEG or WebP);
    refuses to replace an existing file."""
    ext = path.suffix.lower()
    ok, data = cv2.imencode(ext if ext in OUTPUT_FORMATS else ".png", picture, OUTPUT_FORMATS.get(ext, []))
    if not ok:
        raise OutputExists(f"could not encode the picture for {path}")
    try:
        fh = open(path, "xb")
    except FileExistsError:
        raise OutputExists(f"{path} exists; kkvision never overwrites files") from None
    except OSError as exc:  # a read-only folder, a name too long
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with fh:
            fh.write(data.tobytes())
    except OSError as exc:  # disk full: the file this call made is removed, nothing half-written is left
        path.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
