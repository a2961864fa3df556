"""Stage 1: find the puzzle's grid, its size, and straighten it to a square.

  candidates  where a frame might be (outlines of ink; rectangles of long lines),
              on a copy of the picture shrunk to FIND_SIDE;
  lattice     each candidate warped to a small square and judged: does an n x n
              lattice explain its straight ink, and which n; the largest
              grid that is one wins;
  rectify     a picture taken askew turned face on, when no whole grid is found
              as it is;
  trace       every line of the winner followed through the full picture, a
              smooth field fitted, and a mesh made that maps the straightened
              square back into the picture (curved pages included).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import cv2
import numpy as np

from ...vocab import PICTURE_SIZES
from ..contents import written_in_lattice
from ..stages import SIDE, GridGeometry
from .candidates import frame_candidates
from .lattice import FRAME_ONLY, Verdict, framed, ink, inked, judge, judge_or_inked
from .rectify import face_on
from .trace import trace

__all__ = ["LOW_CONTRAST", "NO_GRID", "SIDE", "STRETCH_TAILS", "GridGeometry", "find_grids", "searches", "to_gray", "tried_frames"]

NO_GRID = (f"no puzzle grid found: no square frame with evenly spaced lines for {PICTURE_SIZES[0]}..{PICTURE_SIZES[-1]}"
           " cells (crop closer, or photograph the grid straight on)")

FIND_SIDE = 1000  # candidates are looked for with the picture's longer side at most this
FINE_SIDE = 2 * FIND_SIDE  # ... and, when no look before gave a grid read, at most this: a phone's screenshot (2400-2800
                           # px tall) shrunk to FIND_SIDE loses its one-pixel faint cell lines, and cages drawn as
                           # dashed outlines inside the cells are no border joined to the frame
FINE_FROM = 1.5  # ... a picture that much bigger than FIND_SIDE (less shrunk, its lines are kept)
JUDGE_SIDE = 450  # candidates are judged warped to a square this big
JUDGE_PAD = 0.08  # ... with this fraction of the picture around it (a bowed frame bulges out of its quad)
CUT = 0.01  # a frame side this close to the picture's edge may have been cropped off
MAX_JUDGED = 40  # find_grids judges at most this many candidates (bounded time on a page of text)
LOOKS_AGAIN = 2  # ... and looks again at most this many (each reads every cell of its lattice: 0.05-0.25 s)
GUESS_SIZE = 6  # ... a frame with no lattice inked in it, with the cells' ink of this lattice taken out first: the
                # middle of the sizes, its cells within a factor of two of any grid's, so that a big answer lies
                # mostly in one or two of them and is taken out
OVERLAP = 0.1  # a candidate sharing more than this fraction of its area with a found grid is that grid or a part of it
BEYOND = (0.0, 0.5)  # outside a frame, this band (in cells from it) shows whether its lines go on (a part of a bigger grid): from the frame on, as a line goes on without a gap (text beside a grid starts after one)
CROSS = 0.85  # a line goes on through the band when inked along this fraction of it
PAST_CORNER = (0.2, 0.9)  # a frame side goes on past a corner when inked along this band (in cells from it): not
                         # from 0, as an upright frame fitted to a grid turned a degree or two has its sides stick out
                         # a little past its corners; to most of a cell, as a grid's line goes on to the next line
                         # while a title's letters above the frame are a quarter of a cell high
GOES_ON = 0.5  # a side whose inner lines go on, this share of them, while the cells between do not, is no frame
ENDS = 2  # ... and so is a frame with this many sides going on past its corners (a block of a bigger grid
          # has all four; one side going on, even past both its ends, is a rule or line touching the frame)
PART = 0.85  # within a grid or a part of one, candidates this much smaller are parts too (not the same frame fitted better)
FRAMED_SHARE = 0.6  # ... unless a whole grid of the part's cells, at least this share of its area (an 8x8 in a 9x9
                    # frame is 0.79; a 9x9 grid's 6x6 block in it, 0.44)
SAME_CELL = 1.25  # cells within this factor of each other's side are the same lattice's
SAME_ROW = 0.5  # grids whose heights overlap by this fraction of the shorter one are in one row of the page
POLARITY_SIDE = 200  # a grid's polarity is judged on it warped to a square this big
POLARITY_TAIL = 2  # ... from the percentiles this far into its darkest and brightest pixels (its ink)
LIGHT_INK = 1.5  # light-on-dark when the bright tail stands this many times further from the paper than the dark
POLARITY_SURE = 1.5  # ... surely when this many times more again; nearer, the frame's own ink decides
POLARITY_LOCAL = 0.075  # ... or against the paper this far round (of the side: over a 9x9's cell, past its strokes)
POLARITY_FRAME = 0.04  # the frame lies within this much of the side inside the frame's quad
LOW_CONTRAST = 128  # a picture whose grey levels (but STRETCH_TAILS) span less than this (of 255) is dim or washed
                    # out: a sharp print or screen spans 200 and more, a washed-out photo of a screen 80-120
STRETCH_TAILS = (0.5, 99.5)  # percentiles taken as black and white when stretching (specks and glare ignored)
CONTRAST_STEP = 4  # ... measured on every 4th pixel each way (a sixteenth of a 20 MP photo is plenty)


def to_gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)



def _shrunk(gray: np.ndarray, side: int = FIND_SIDE) -> tuple[np.ndarray, float]:
    """The picture with its longer side at most `side`, and the scale used."""
    scale = min(1.0, side / max(gray.shape[:2]))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    return small, scale


def _big(gray: np.ndarray) -> bool:
    """Is the picture big enough to be looked at again shrunk only to FINE_SIDE (FINE_FROM)?"""
    return max(gray.shape[:2]) > FINE_FROM * FIND_SIDE


def _cut(shape: tuple[int, ...], quad: np.ndarray) -> tuple[bool, bool, bool, bool]:
    """Top, bottom, left, right of the quad lie on the picture's edge."""
    h, w = shape[:2]
    edge = CUT * min(h, w)
    xs, ys = quad[:, 0], quad[:, 1]
    return (bool(ys[:2].max() < edge), bool(ys[2:].min() > h - 1 - edge),
            bool(xs[[0, 3]].max() < edge), bool(xs[1:3].min() > w - 1 - edge))


def _judge(small: np.ndarray, quad: np.ndarray, cut: tuple[bool, bool, bool, bool] | None = None,
           look: bool = True) -> tuple[Verdict | None, int | None]:
    """lattice.judge's verdict on the frame `quad` of `small` warped to a square, and where it refuses
    and `look`, the lattice whose every line is inked there (lattice.inked), or lattice.FRAME_ONLY where
    only the frame is (lattice.framed): _judge_again may look again."""
    square, pad = _warped(small, quad)
    mask = ink(square)
    cut = _cut(small.shape, quad) if cut is None else cut
    return judge_or_inked(mask, pad, cut) if look else (judge(mask, pad, cut), None)


def _judge_again(small: np.ndarray, quad: np.ndarray, cut: tuple[bool, bool, bool, bool], n: int) -> Verdict | None:
    """The frame `quad`, refused although every line of its n x n lattice is inked, judged again without
    the ink the content network calls written in its cells (no label's, no line's): strokes off the
    lattice's lines that big answers make (a 1's stem, a 2's foot, a column of answers written at one
    place in their cells).  Its verdict only when that lattice's lines are still all inked and it is that
    lattice (not another the look made).  With n FRAME_ONLY (a frame with no lattice inked in it: a grid
    drawn with cage borders only, big answers across them), the ink written in the cells of a GUESS_SIZE
    lattice is taken out first, and the verdict stands only when taking out the ink written in its own
    lattice's cells judges it the same.  A lattice inked that is not the grid once its cells' ink is out,
    in a frame that stands out (lattice.framed), is looked at as a frame alone too: big answers' strokes
    across a 7x7 drawn with cage borders only inked the lines of a 3x3 (bench/check.py's hand-big
    pages, the working split's seeds 800..879)."""
    square, pad = _warped(small, quad)
    raw = ink(square)
    cleaned: dict[int, np.ndarray] = {}  # by lattice: the frame alone may look at the lattice inked again

    def without_written(k: int) -> np.ndarray:
        if k not in cleaned:
            mask = raw.copy()
            inner = mask[pad:pad + JUDGE_SIDE, pad:pad + JUDGE_SIDE]
            inner[written_in_lattice(square[pad:pad + JUDGE_SIDE, pad:pad + JUDGE_SIDE], k) > 0] = 0
            cleaned[k] = mask
        return cleaned[k]

    if n != FRAME_ONLY:
        mask = without_written(n)
        if inked(mask, pad) == n:
            verdict = judge(mask, pad, cut)
            if verdict is not None and verdict.size == n:
                return verdict
        if not framed(raw, pad):
            return None  # its lines were taken out with the cells' ink, and no frame: rows of text taken for lines
    verdict = judge(without_written(GUESS_SIZE), pad, cut)
    if verdict is None or verdict.size == GUESS_SIZE:
        return verdict
    n = verdict.size
    again = judge(without_written(n), pad, cut)
    return again if again is not None and again.size == n else None


def _warped(small: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, int]:
    """The frame `quad` of `small` warped to a JUDGE_SIDE square, with JUDGE_PAD of the picture round it,
    and that pad (px)."""
    pad = int(JUDGE_PAD * JUDGE_SIDE)
    dst = np.asarray([[0, 0], [JUDGE_SIDE, 0], [JUDGE_SIDE, JUDGE_SIDE], [0, JUDGE_SIDE]], np.float32) + pad
    H = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(small, H, (JUDGE_SIDE + 2 * pad,) * 2, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE), pad


def _goes_on(small: np.ndarray, quad: np.ndarray, n: int) -> bool:
    """Does the lattice go on beyond a side of the frame (the quad is a block of
    a bigger grid, e.g. one cut by the picture's edge, not a grid of its own)?"""
    cell = JUDGE_SIDE / n
    pad = int(max(BEYOND[1], PAST_CORNER[1]) * cell) + 2
    dst = np.asarray([[0, 0], [JUDGE_SIDE, 0], [JUDGE_SIDE, JUDGE_SIDE], [0, JUDGE_SIDE]], np.float32) + pad
    H = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    # Beyond the picture's edge nothing is known, and nothing there is ink: the picture is warped as it is at
    # its edge, pixel by pixel, so that no step at the edge looks a line (one grey for all beyond, against a
    # light margin, ran a frame flush with the edge on past its corners; white beyond made a dark theme's
    # background next to a frame ink), and what that smears past the edge (a frame's lines cut there) is
    # then dropped.
    size = (JUDGE_SIDE + 2 * pad,) * 2
    square = cv2.warpPerspective(small, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    seen = cv2.warpPerspective(np.full(small.shape[:2], 255, np.uint8), H, size, flags=cv2.INTER_NEAREST,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 0
    t = max(2, JUDGE_SIDE // 150)  # as the judge: close small gaps (dotted, faint lines)
    m = (cv2.dilate(ink(square), cv2.getStructuringElement(cv2.MORPH_RECT, (2 * t + 1, 2 * t + 1))) > 0) & seen
    a, b = int(BEYOND[0] * cell), int(BEYOND[1] * cell)
    # each band's first row touches the frame: a line going on is inked from there (a keypad
    # or a table under a grid, its lines in step with the cells, starts after a gap)
    bands = (m[pad - b:pad - a][::-1], m[pad + JUDGE_SIDE + a:pad + JUDGE_SIDE + b],
             m[:, pad - b:pad - a].T[::-1], m[:, pad + JUDGE_SIDE + a:pad + JUDGE_SIDE + b].T)
    half = max(1, int(0.12 * cell))
    off = 3 * half  # beside a line, off it: paper where a line goes on, ink where text, a tint or halftone does

    def most(cover: np.ndarray, at: float) -> float:
        return float(cover[int(at) - half:int(at) + half + 1].max())

    for band in bands:
        cover = np.cumprod(band, axis=0).mean(axis=0)  # along the side: how far into the band ink runs unbroken
        lines = [most(cover, pad + k * cell) >= CROSS and max(most(cover, pad + k * cell - off),
                                                              most(cover, pad + k * cell + off)) < CROSS / 2
                 for k in range(1, n)]
        cells = [most(cover, pad + (k + 0.5) * cell) >= CROSS for k in range(n)]
        if np.mean(lines) >= GOES_ON and np.mean(cells) < GOES_ON / 2:
            return True
    sides = 0  # the frame's sides going on past a corner (a + or T where a frame has an L)
    near, far = int(PAST_CORNER[0] * cell), int(PAST_CORNER[1] * cell)
    for p in (pad, pad + JUDGE_SIDE):
        for strip in (lambda lo, hi: m[lo:hi], lambda lo, hi: m[:, lo:hi].T):  # a horizontal, a vertical side
            across, beside = strip(p - half, p + half + 1), (strip(p - off - half, p - off + half + 1),
                                                               strip(p + off - half, p + off + half + 1))
            for lo, hi in ((pad - far, pad - near), (pad + JUDGE_SIDE + near, pad + JUDGE_SIDE + far)):
                line = across[:, lo:hi].mean(axis=1).max()  # one line, not text
                area = max(band[:, lo:hi].mean(axis=1).max() for band in beside)  # paper on both sides
                if line >= CROSS and area < CROSS / 2:
                    sides += 1
                    break
    return sides >= ENDS


def _framed_within(small: np.ndarray, quad: np.ndarray, n: int, cell: float, within: list[tuple[float, float]]) -> bool:
    """Is a grid found inside a part the whole grid that part was a wrong frame about: its cells the part's
    (neither finer nor coarser than SAME_CELL), most of the part's area (FRAMED_SHARE), and its lines going
    on nowhere past its own frame?  (A frame from a grid to a box ruled about it, with a rule from the grid
    through the box, is judged a lattice one cell bigger going on; a block of a bigger grid goes on.)"""
    return (all(c / SAME_CELL < cell < SAME_CELL * c and share >= FRAMED_SHARE for c, share in within)
            and not _goes_on(small, quad, n))


def _finish(gray: np.ndarray, quad: np.ndarray, scale: float, n: int) -> tuple[GridGeometry, np.ndarray]:
    """Trace the grid found at `quad` (in the shrunk picture's pixels) through the
    full picture, in its own polarity (a dark theme's light lines are traced in
    the negative), and straighten it."""
    quad = (quad + 0.5) / scale - 0.5
    light = light_on_dark(gray, quad)
    mesh = trace(255 - gray if light else gray, quad, n)
    lines = tuple(k * SIDE / n for k in range(n + 1))
    corners = tuple((float(x), float(y)) for x, y in (mesh[0, 0], mesh[0, -1], mesh[-1, -1], mesh[-1, 0]))
    geom = GridGeometry(n, corners, lines, lines, mesh=mesh, light_on_dark=light)
    return geom, geom.square(gray)


def light_on_dark(gray: np.ndarray, quad: np.ndarray) -> bool:
    """Is the grid inside `quad` (full-picture pixels) drawn light on dark: its
    brightest pixels stand further from the paper (the median) than its darkest?"""
    side = POLARITY_SIDE
    corners = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), corners)
    patch = cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_AREA)
    low, paper, high = np.percentile(patch, [POLARITY_TAIL, 50, 100 - POLARITY_TAIL])
    light = high - paper > LIGHT_INK * max(paper - low, 1.0)
    if light and _dark_ink_on_fills(patch):
        return False
    if not light or high - paper > LIGHT_INK * POLARITY_SURE * max(paper - low, 1.0):
        return bool(light)
    # a close call (light marks inside the cells, e.g. the label chips of kkvision's own answer
    # pictures): the frame decides, the one line every grid has all round.  Across a band on the
    # frame, the pixel farthest from the paper is the frame's ink: brighter than the paper or darker?
    band = max(2, int(POLARITY_FRAME * side))
    sides = (patch[:band], patch[-band:], patch[:, :band].T, patch[:, -band:].T)
    far = np.concatenate([np.take_along_axis(s - paper, np.abs(s - paper).argmax(axis=0)[None], 0)[0]
                          for s in (x.astype(np.float32) for x in sides)])
    return bool(np.mean(far > 0) > 0.5)


def _dark_ink_on_fills(patch: np.ndarray) -> bool:
    """Whether the grid's ink is dark against the paper round it (each pixel less the median of its
    neighbourhood, POLARITY_LOCAL of the side): cells in pastel fills of several greys (an app's cages told
    by colour alone) put the lightest fill in the bright tail and faint dark labels short of the dark one,
    and the whole-grid percentiles called such a grid light on dark."""
    k = int(POLARITY_LOCAL * patch.shape[0]) | 1
    ink = patch.astype(np.float32) - cv2.medianBlur(patch, k).astype(np.float32)
    low, high = np.percentile(ink, [POLARITY_TAIL, 100 - POLARITY_TAIL])
    return bool(-low > LIGHT_INK * max(float(high), 1.0))


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Area shared by two convex quads, as a fraction of a's."""
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area) / max(1e-9, float(cv2.contourArea(a.astype(np.float32))))


def reading_order(boxes: list[tuple[float, float, float, float]]) -> list[int]:
    """Indices of boxes (x0, y0, x1, y1) in reading order: rows of boxes top to
    bottom, left to right within a row.  A box joins a row when its height
    overlaps the row's by SAME_ROW of the shorter of the two."""
    rows: list[list[int]] = []
    spans: list[tuple[float, float]] = []
    for i in sorted(range(len(boxes)), key=lambda k: (boxes[k][1] + boxes[k][3]) / 2):
        _, y0, _, y1 = boxes[i]
        for r, (a, b) in enumerate(spans):
            if min(b, y1) - max(a, y0) >= SAME_ROW * min(b - a, y1 - y0):
                rows[r].append(i)
                spans[r] = (min(a, y0), max(b, y1))
                break
        else:
            rows.append([i])
            spans.append((y0, y1))
    order = sorted(range(len(rows)), key=lambda r: spans[r][0])
    return [i for r in order for i in sorted(rows[r], key=lambda k: boxes[k][0] + boxes[k][2])]


def find_grids(image: np.ndarray) -> list[tuple[GridGeometry, np.ndarray]]:
    """Every puzzle grid in the picture (a page of several), each as its
    geometry and straightened grey square, in reading order; [] when
    there is none.  Grids do not overlap: a grid inside another's frame is that
    grid or a part of it.  Only whole grids count: not one cut by the picture's
    edge (a frame side missing there), nor a block of a bigger grid (its lines
    go on past its frame), e.g. a neighbouring page's puzzle cut off beside the
    one photographed; when no grid is whole, the largest found.
    The grids of the first of `searches` that finds any: the first grids
    vision.read.read_page reads (it goes on to the later looks when those are
    no KenKen or refused)."""
    return next((grids for grids in searches(image) if grids), [])


def searches(image: np.ndarray) -> Iterator[list[tuple[GridGeometry, np.ndarray]]]:
    """The grids found by each way of looking at the picture, in the order
    they are tried: the picture; its negative (a dark theme's light lines);
    and, for a dim or washed-out picture (its grey levels spanning less than
    LOW_CONTRAST), both again with the contrast stretched, since ink is told
    from paper by a fixed step in grey (lattice.ink); then both turned face on
    (rectify.face_on: a grid photographed askew whose frame runs into its
    surroundings, where the looks before found no whole grid or only a block
    of its cages); and last, for a big picture, both shrunk less (FINE_SIDE: a
    phone screenshot's hairline cell lines fade when it is shrunk to
    FIND_SIDE).  The looks are made only as they are asked for: a reader that
    has what it wants stops asking (so the last looks cost only a picture
    whose grids so far were none, no KenKen, or refused).  find_grids takes the
    first that finds any; a page reader goes on to the next when those it
    found are no KenKen (a dark site's sudoku ads, dark on light, beside its
    light-on-dark KenKen).  A grid found once is not found again: a later
    look gives only grids apart from those found before (the negative of a
    sudoku left out shows its boxes and cells as frames).  A look that finds
    no whole grid, only a part (a block of a bigger grid, or a grid cut by the
    picture's edge), gives it only after the negative and the stretched looks
    found no whole grid (a dark theme's faint light lines may make a block of
    cells look like a grid in the picture as it is, while its whole grid
    shows in the negative), and before the face-on and finer looks: a
    screenshot's grid whose frame runs on into the screen's lines is most
    often such a part, and those looks cost it ~0.3-0.5 s.  A dark theme's grid
    found in the picture as it is is framed by the dark beside its light lines, a few pixels in: it
    is taken as the negative frames it, when the negative finds it."""
    gray = to_gray(image)
    before: list[np.ndarray] = []
    partial: list[tuple[GridGeometry, np.ndarray]] = []  # the first look's part of a grid, held back
    in_negative = cache(lambda: _grids(gray, 255 - gray))  # found once, when first needed

    def own(grid: tuple[GridGeometry, np.ndarray]) -> tuple[GridGeometry, np.ndarray]:
        """A dark theme's grid found in the picture as it is, framed by the dark beside its light lines (a
        few pixels inside its frame), is taken as the negative finds it, framed by its lines."""
        if not grid[0].light_on_dark:
            return grid
        return next((g for g in in_negative()[0] if g[0].light_on_dark
                     and _overlap(_quad(g[0]), _quad(grid[0])) > 1 - OVERLAP
                     and _overlap(_quad(grid[0]), _quad(g[0])) > 1 - OVERLAP), grid)

    def apart(found: tuple[list[tuple[GridGeometry, np.ndarray]], bool]) -> list[tuple[GridGeometry, np.ndarray]]:
        grids, whole = found
        fresh = [g for g in grids if not any(_found_before(_quad(g[0]), q) for q in before)]
        before.extend(_quad(geom) for geom, _ in grids)
        if whole or not fresh:
            return fresh
        if not partial:
            partial.extend(fresh)
        return []

    as_it_is, whole = _grids(gray, gray)
    yield apart(([own(g) for g in as_it_is], whole))
    yield apart(in_negative())
    lo, hi = np.percentile(gray[::CONTRAST_STEP, ::CONTRAST_STEP], STRETCH_TAILS)  # only when still needed
    base = gray
    if hi - lo < LOW_CONTRAST:
        base = np.clip((gray.astype(np.float32) - lo) * (255.0 / max(1.0, hi - lo)), 0, 255).astype(np.uint8)
        yield apart(_grids(gray, base))
        yield apart(_grids(gray, 255 - base))
    if partial:  # the part held back, read before the costlier looks (~0.3-0.5 s a screenshot): most often it is
        yield partial[:]  # the grid, its frame running on into the screen's lines or cut by its edge
        partial.clear()  # (a later look's part is held back to the end)
    for look in (base, 255 - base):  # no whole grid yet: a grid photographed askew, its frame run into its
        turned = _face_on(look)      # surroundings, is found with the picture turned face on
        if turned is not None:
            yield apart(_grids(gray, *turned))
    if _big(gray):  # a big screenshot's hairlines, faded when it is shrunk
        for look in (base, 255 - base):
            yield apart(_grids(gray, look, side=FINE_SIDE))
    yield partial


def _face_on(look: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """`look` turned face on (rectify.face_on, found on it shrunk), and the homography from its
    pixels back to the picture's; None when it is face on already or shows no two families of lines."""
    small, scale = _shrunk(look)
    turn = face_on(_mask(small))
    if turn is None:
        return None
    to_small = np.diag([scale, scale, 1.0])
    turn = np.linalg.inv(to_small) @ turn @ to_small
    return (cv2.warpPerspective(look, turn, look.shape[1::-1], borderMode=cv2.BORDER_REPLICATE),
            np.linalg.inv(turn))


def _in_picture(quad: np.ndarray, scale: float, back: np.ndarray) -> np.ndarray:
    """A quad found in a face-on look's shrunk pixels, in the picture's own pixels."""
    return cv2.perspectiveTransform(((quad + 0.5) / scale - 0.5).reshape(-1, 1, 2), back).reshape(4, 2)


def _found_before(quad: np.ndarray, before: np.ndarray) -> bool:
    """Is a grid found in a later look one found before: sharing area with it, unless it holds
    all of it and is clearly bigger (the earlier one a block of it: a light-on-dark KenKen's
    dark cells make a smaller lattice of the picture as it is, its whole grid shows in the negative)?"""
    if _overlap(quad, before) <= OVERLAP:
        return False
    holds = _overlap(before, quad) >= 1 - OVERLAP
    return not (holds and PART * cv2.contourArea(quad.astype(np.float32)) > cv2.contourArea(before.astype(np.float32)))


def _quad(geom: GridGeometry) -> np.ndarray:
    return np.asarray(geom.corners, np.float32)


def tried_frames(image: np.ndarray) -> list[np.ndarray]:
    """The frames find_grids judges (the largest MAX_JUDGED candidates, of the
    picture and of its negative, as they are, shrunk less and turned face on), as quads in
    the picture's pixels: what a failed search looked at, for the debug picture."""
    gray = to_gray(image)
    out = []
    for look in (gray, 255 - gray):
        small, scale, quads = _page_candidates(look)
        out += [(q + 0.5) / scale - 0.5 for q in quads[:MAX_JUDGED]]
        if _big(gray):
            small, scale, quads = _page_candidates(look, side=FINE_SIDE)
            out += [(q + 0.5) / scale - 0.5 for q in quads[:MAX_JUDGED]]
        turned = _face_on(look)
        if turned is not None:
            small, scale, quads = _page_candidates(turned[0], loose=True)
            out += [_in_picture(q, scale, turned[1]) for q in quads[:MAX_JUDGED]]
    return out


def _page_candidates(look: np.ndarray, loose: bool = False, side: int = FIND_SIDE
                     ) -> tuple[np.ndarray, float, list[np.ndarray]]:
    """`look` shrunk (its longer side at most `side`), its scale, and the frame candidates of a page in
    it, largest first (`loose`: a picture turned face on, candidates.frame_candidates)."""
    small, scale = _shrunk(look, side)
    return small, scale, sorted(frame_candidates(_mask(small), page=True, loose=loose), key=cv2.contourArea,
                                reverse=True)


def _mask(small: np.ndarray) -> np.ndarray:
    """The ink of a shrunk picture, small gaps closed: where frames are looked for."""
    return cv2.morphologyEx(ink(small), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))


def _grids(gray: np.ndarray, look: np.ndarray, back: np.ndarray | None = None, side: int = FIND_SIDE
           ) -> tuple[list[tuple[GridGeometry, np.ndarray]], bool]:
    """find_grids with the candidates looked for in `look` (the picture, or its negative, or
    either turned face on: then `back` is the homography from its pixels to the picture's)
    shrunk to `side`, and whether they are whole grids (not one grid cut by the edge or a block
    of a bigger one)."""
    small, scale, candidates = _page_candidates(look, loose=back is not None, side=side)
    found: list[tuple[np.ndarray, Verdict]] = []
    # grids cut by the edge, blocks of bigger grids, with their cell's side: nothing in them with cells of
    # that side or finer is a grid; one of clearly bigger cells is (a wrong frame about a grid, e.g. one
    # running from the grid to a box ruled round it, may be judged a lattice of finer cells going on)
    parts: list[tuple[np.ndarray, float]] = []
    first = None  # the largest grid, whole or not
    refused: list[tuple[np.ndarray, int]] = []  # frames refused whose every line of an n x n lattice is inked, and n
                                                # (or only the frame: lattice.FRAME_ONLY)

    def consider(quad: np.ndarray, again: int | None = None) -> bool:
        """Judge the frame `quad` (`again`: look again at it as that n x n lattice, _judge_again) and keep
        it if it is a grid; False when it was not judged (a part of a grid found)."""
        nonlocal first
        area = cv2.contourArea(quad)
        same = [i for i, (q, _) in enumerate(found) if _overlap(quad, q) > OVERLAP]
        if any(area < PART * cv2.contourArea(found[i][0]) for i in same):
            return False  # a part of a grid
        within = [(cell, area / cv2.contourArea(q)) for q, cell in parts
                  if _overlap(quad, q) > OVERLAP and area < PART * cv2.contourArea(q)]
        cut = _cut(small.shape, quad)
        if again is None:
            verdict, lattice = _judge(small, quad, cut)
            if lattice is not None:
                refused.append((quad, lattice))
        else:
            verdict = _judge_again(small, quad, cut, again)
        if verdict is None:
            return True
        cell = float(np.sqrt(area)) / verdict.size
        if any(cell < SAME_CELL * c for c, _ in within) and not _framed_within(small, quad, verdict.size, cell, within):
            return True  # a block of a part, or finer detail inside one (dashes, inset outlines, digits)
        first = first or (quad, verdict)
        if (any(cut) and _judge(small, quad, (False,) * 4, look=False)[0] is None) or _goes_on(small, quad, verdict.size):
            parts.append((quad, cell))
        elif not same:
            found.append((quad, verdict))
        elif len(same) == 1 and verdict.support > found[same[0]][1].support:
            found[same[0]] = (quad, verdict)  # the same frame, better fitted (its lines more fully inked)
        return True

    judged = 0
    for quad in candidates:
        if judged >= MAX_JUDGED:
            break
        judged += consider(quad)
    # a second look at the largest frames refused with every line of a lattice inked, where no grid or frame
    # looked at again lies (blocks of it may have been taken for parts of a grid going on): at most
    # LOOKS_AGAIN (each reads every cell of its lattice)
    looked: list[np.ndarray] = []
    for quad, n in sorted(refused, key=lambda qn: qn[1] == FRAME_ONLY):  # a lattice inked first, then frames alone
        if len(looked) >= LOOKS_AGAIN:
            break
        if not any(_overlap(quad, q) > OVERLAP for q in [*(q for q, _ in found), *looked]):
            looked.append(quad)
            consider(quad, again=n)
    whole = bool(found)
    if not found and first is not None:  # one grid, cut by the picture's edge: the largest is taken
        found = [first]
    if back is not None:  # each frame where it lies in the picture, in its shrunk pixels as _finish takes them
        found = [(((_in_picture(q, scale, back) + 0.5) * scale - 0.5).astype(np.float32), v) for q, v in found]
    boxes = [(float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())) for q, _ in found]
    return [_finish(gray, found[i][0], scale, found[i][1].size) for i in reading_order(boxes)], whole
