"""What surrounds a puzzle in a scene, and what happens to the picture on its way to kkvision.

Screen furniture (drawn with PIL at the screen's own scale `u`, one
density-independent pixel): status bars, toolbars and their icons, keypads of
digit buttons and tool buttons (rows, two rows, a 3x3 pad, a strip of cells,
bare digits), banners and ads, paragraphs of text.

Optics (numpy / OpenCV on RGB arrays; each geometric step maps the puzzles'
corners with it): print (paper tint, halftone, show-through), scanning (a small
turn, blur, noise), a camera (perspective, a curved page, a screen's pixel
grid that beats into moire, shadows, glare, defocus or motion blur, noise),
turning by quarter turns, dimming to a third of the brightness range or under
uneven light, and encoding as a user's file (PNG, JPEG).
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
from PIL import Image, ImageDraw

from devtools.scene_board import RGB, Corners, draw_sudoku, font

WORDS = ("the puzzle of the day is a grid of numbers and each cage shows a target with its operation "
         "fill every row and column with the digits once without repeating any digit in a row or column "
         "city council voted to approve a new budget for parks and roads on monday night while the "
         "weather stays mild with rain expected later in the week across the region").split()
TITLES = ("KenKen", "Mathdoku", "Calcudoku", "KenDoku", "Math Cages", "Numbers", "Daily Puzzle", "Inky",
          "Killer Math", "Cage Calc")
TOOLS = ("pencil", "eraser", "undo", "redo", "bulb", "check", "cross", "trash", "gear", "pause")
TOOL_WORDS = {"pencil": "Notes", "eraser": "Erase", "undo": "Undo", "redo": "Redo", "bulb": "Hint",
              "check": "Check", "cross": "Clear", "trash": "Delete", "gear": "Settings", "pause": "Pause"}
KEYPADS = ("row", "rows", "grid3", "strip", "plain", "outlined")


def jitter(c: RGB, rng: random.Random, by: int = 10) -> RGB:
    return tuple(max(0, min(255, v + rng.randint(-by, by))) for v in c)  # type: ignore[return-value]


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))  # type: ignore[return-value]


def words(rng: random.Random, k: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(k))


# ---------------------------------------------------------------- screen furniture

def icon(d: ImageDraw.ImageDraw, kind: str, box: tuple[float, float, float, float], colour: RGB,
         width: int) -> None:
    """A flat UI icon of its kind inside the box."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, min(w, h) / 2
    if kind == "menu":
        for k in (-1, 0, 1):
            d.line([(cx - r * 0.8, cy + k * r * 0.55), (cx + r * 0.8, cy + k * r * 0.55)], fill=colour, width=width)
    elif kind == "back":
        d.line([(cx - r * 0.8, cy), (cx + r * 0.8, cy)], fill=colour, width=width)
        d.line([(cx - r * 0.8, cy), (cx - r * 0.2, cy - r * 0.6)], fill=colour, width=width)
        d.line([(cx - r * 0.8, cy), (cx - r * 0.2, cy + r * 0.6)], fill=colour, width=width)
    elif kind == "dots":
        for k in (-1, 0, 1):
            d.ellipse([cx - r * 0.13, cy + k * r * 0.55 - r * 0.13, cx + r * 0.13, cy + k * r * 0.55 + r * 0.13],
                      fill=colour)
    elif kind == "gear":
        for a in range(8):
            t = a * math.pi / 4
            d.line([(cx + r * 0.5 * math.cos(t), cy + r * 0.5 * math.sin(t)),
                    (cx + r * 0.9 * math.cos(t), cy + r * 0.9 * math.sin(t))], fill=colour, width=width * 2)
        d.ellipse([cx - r * 0.62, cy - r * 0.62, cx + r * 0.62, cy + r * 0.62], outline=colour, width=width)
    elif kind in ("pencil", "eraser"):
        t, ln, th = -math.pi / 4, r * 0.95, r * 0.28
        ux, uy, vx, vy = math.cos(t), math.sin(t), -math.sin(t), math.cos(t)
        body = [(cx - ux * ln + vx * th, cy - uy * ln + vy * th), (cx + ux * ln * 0.6 + vx * th, cy + uy * ln * 0.6 + vy * th),
                (cx + ux * ln * 0.6 - vx * th, cy + uy * ln * 0.6 - vy * th), (cx - ux * ln - vx * th, cy - uy * ln - vy * th)]
        if kind == "pencil":
            d.polygon(body, outline=colour, width=width)
            d.polygon([body[1], (cx + ux * ln, cy + uy * ln), body[2]], fill=colour)
        else:
            d.polygon(body, fill=colour)
            mid = [(cx - ux * ln * 0.2 + vx * th, cy - uy * ln * 0.2 + vy * th),
                   (cx - ux * ln * 0.2 - vx * th, cy - uy * ln * 0.2 - vy * th)]
            d.line(mid, fill=(255, 255, 255) if sum(colour) < 380 else (0, 0, 0), width=width)
    elif kind in ("undo", "redo"):
        sgn = 1 if kind == "undo" else -1
        d.arc([cx - r * 0.7, cy - r * 0.5, cx + r * 0.7, cy + r * 0.8], 180 if sgn > 0 else 270,
              360 if sgn > 0 else 90, fill=colour, width=width)
        tip = (cx - sgn * r * 0.7, cy + r * 0.15)
        d.polygon([tip, (tip[0] - r * 0.3, tip[1] - r * 0.35), (tip[0] + r * 0.3, tip[1] - r * 0.35)], fill=colour)
    elif kind == "bulb":
        d.ellipse([cx - r * 0.55, cy - r * 0.85, cx + r * 0.55, cy + r * 0.25], outline=colour, width=width)
        d.rectangle([cx - r * 0.25, cy + r * 0.35, cx + r * 0.25, cy + r * 0.7], fill=colour)
    elif kind == "check":
        d.line([(cx - r * 0.7, cy), (cx - r * 0.2, cy + r * 0.5), (cx + r * 0.8, cy - r * 0.6)], fill=colour,
               width=width * 2, joint="curve")
    elif kind == "cross":
        d.line([(cx - r * 0.6, cy - r * 0.6), (cx + r * 0.6, cy + r * 0.6)], fill=colour, width=width * 2)
        d.line([(cx - r * 0.6, cy + r * 0.6), (cx + r * 0.6, cy - r * 0.6)], fill=colour, width=width * 2)
    elif kind == "trash":
        d.rectangle([cx - r * 0.5, cy - r * 0.5, cx + r * 0.5, cy + r * 0.85], outline=colour, width=width)
        d.line([(cx - r * 0.75, cy - r * 0.62), (cx + r * 0.75, cy - r * 0.62)], fill=colour, width=width)
    elif kind == "pause":
        d.rectangle([cx - r * 0.5, cy - r * 0.6, cx - r * 0.15, cy + r * 0.6], fill=colour)
        d.rectangle([cx + r * 0.15, cy - r * 0.6, cx + r * 0.5, cy + r * 0.6], fill=colour)
    elif kind == "star":
        pts = [(cx + r * (0.9 if k % 2 == 0 else 0.4) * math.sin(k * math.pi / 5),
                cy - r * (0.9 if k % 2 == 0 else 0.4) * math.cos(k * math.pi / 5)) for k in range(10)]
        d.polygon(pts, fill=colour)
    else:  # a circle with a hand: a timer
        d.ellipse([cx - r * 0.8, cy - r * 0.8, cx + r * 0.8, cy + r * 0.8], outline=colour, width=width)
        d.line([(cx, cy), (cx, cy - r * 0.55)], fill=colour, width=width)


def status_bar(d: ImageDraw.ImageDraw, w: int, h: float, u: float, bg: RGB, fg: RGB, ui: str,
               rng: random.Random) -> None:
    """A phone's status bar: the time, notification icons, signal, wifi, battery."""
    d.rectangle([0, 0, w, h], fill=bg)
    f = font(ui, int(h * 0.5))
    d.text((u * 16, h / 2), f"{rng.randint(1, 12)}:{rng.randint(0, 59):02d}", font=f, fill=fg, anchor="lm")
    x = u * 70
    for _ in range(rng.randint(0, 4)):  # notification icons
        d.rounded_rectangle([x, h * 0.3, x + h * 0.4, h * 0.7], radius=h * 0.08, fill=fg)
        x += h * 0.55
    x = w - u * 16
    if rng.random() < 0.6:
        pct = f"{rng.randint(5, 100)}%"
        d.text((x, h / 2), pct, font=f, fill=fg, anchor="rm")
        x -= f.getlength(pct) + u * 4
    d.rounded_rectangle([x - h * 0.55, h * 0.32, x, h * 0.68], radius=h * 0.06, outline=fg, width=max(1, int(u)))
    d.rectangle([x - h * 0.5, h * 0.36, x - h * 0.5 + h * 0.45 * rng.random(), h * 0.64], fill=fg)
    x -= h * 0.8
    for k in range(4):  # signal bars
        d.rectangle([x - (4 - k) * h * 0.12, h * (0.68 - 0.09 * (k + 1)), x - (4 - k) * h * 0.12 + h * 0.07, h * 0.68],
                    fill=fg)
    x -= h * 0.7
    for k in range(3):  # wifi arcs
        rr = h * (0.12 + 0.1 * k)
        d.arc([x - rr, h * 0.68 - rr, x + rr, h * 0.68 + rr], 225, 315, fill=fg, width=max(1, int(u * 1.5)))


def toolbar(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], u: float, bg: RGB, fg: RGB,
            ui: str, rng: random.Random, title: str) -> None:
    """An app bar: a menu or back icon, a title (and a subtitle), icons, a timer or score on the right."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    d.rectangle(box, fill=bg)
    icon(d, rng.choice(["menu", "back"]), (x0 + u * 12, y0 + h * 0.3, x0 + u * 12 + h * 0.4, y0 + h * 0.7), fg,
         max(1, int(u * 2)))
    f = font(ui, int(h * rng.uniform(0.3, 0.4)))
    if rng.random() < 0.4:
        d.text((x0 + u * 64, y0 + h * 0.36), title, font=f, fill=fg, anchor="lm")
        d.text((x0 + u * 64, y0 + h * 0.72), rng.choice(["Play a game", "Easy", "Medium", "Hard", "Daily"]),
               font=font(ui, int(h * 0.22)), fill=mix(fg, bg, 0.3), anchor="lm")
    else:
        d.text((x0 + u * 64, y0 + h / 2), title, font=f, fill=fg, anchor="lm")
    x = x1 - u * 12
    for _ in range(rng.randint(0, 3)):
        icon(d, rng.choice(["dots", "gear", "pause", "star", "timer", "bulb"]),
             (x - h * 0.45, y0 + h * 0.28, x, y0 + h * 0.72), fg, max(1, int(u * 2)))
        x -= h * 0.75
    if rng.random() < 0.6:
        text = rng.choice([f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}", str(rng.randint(100, 99999)),
                           f"Mistakes {rng.randint(0, 3)}/3"])
        d.text((x - u * 4, y0 + h / 2), text, font=font(ui, int(h * 0.3)), fill=fg, anchor="rm")


def keypad(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], digits: list[str], tools: list[str],
           style: str, u: float, key_bg: RGB, key_fg: RGB, line: RGB, ui: str, rng: random.Random,
           captions: bool, per: int | None = None) -> None:
    """Digit buttons (and tool buttons) in the box, laid out as `style` says:
    row: one row of buttons, then a row of tools; rows: rows of three to five;
    grid3: a 3x3 pad of cells sharing their lines; strip: one row of cells
    sharing lines; plain: bare digits; outlined: buttons drawn as outlines.
    `per` digits a row (a keypad beside the board); else the style's own."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    gap = u * rng.uniform(3, 10)
    radius = u * rng.choice([0, 4, 8, 14])
    tool_h = h * 0.3 if tools else 0
    if per is None:
        per = 3 if style == "grid3" else rng.choice([3, 4, 5]) if style == "rows" else len(digits)
    rows = math.ceil(len(digits) / per)
    dh = h - tool_h - (gap if tools else 0)
    kw = min((w - gap * (per - 1)) / per, 1.6 * (dh - gap * (rows - 1)) / rows)
    kh = min((dh - gap * (rows - 1)) / rows, kw * rng.uniform(0.8, 1.6))
    if style == "grid3":  # square cells sharing lines, as a calculator's pad
        kw = kh = min(kw, kh)
        gap = 0
    left = x0 + (w - (per * kw + (per - 1) * gap)) / 2
    f = font(ui, int(kh * rng.uniform(0.35, 0.55)))
    lw = max(1, int(u * rng.choice([1, 1.5, 2])))
    for i, digit in enumerate(digits):
        r, c = divmod(i, per)
        bx, by = left + c * (kw + gap), y0 + r * (kh + gap)
        rect = (bx, by, bx + kw, by + kh)
        if style in ("row", "rows"):
            d.rounded_rectangle(rect, radius=radius, fill=key_bg)
        elif style == "outlined":
            d.rounded_rectangle(rect, radius=radius, outline=line, width=lw)
        elif style in ("grid3", "strip"):
            d.rectangle(rect, outline=line, width=lw)
        d.text(((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2), digit, font=f,
               fill=key_fg if style in ("row", "rows") else line, anchor="mm")
    if not tools:
        return
    ty = y1 - tool_h
    tw = min(w / len(tools), tool_h * 2.2)
    tl = x0 + (w - tw * len(tools)) / 2
    cap = font(ui, int(tool_h * 0.18))
    for k, tool in enumerate(tools):
        bx = tl + k * tw
        if style in ("row", "rows") and rng.random() < 0.5:
            d.rounded_rectangle([bx + gap / 2, ty, bx + tw - gap / 2, y1], radius=radius, fill=key_bg)
        size = tool_h * (0.45 if captions else 0.6)
        cx = bx + tw / 2
        icon(d, tool, (cx - size / 2, ty + tool_h * 0.12, cx + size / 2, ty + tool_h * 0.12 + size),
             key_fg if style in ("row", "rows") else line, max(1, int(u * 2)))
        if captions:
            d.text((cx, ty + tool_h * 0.85), TOOL_WORDS[tool], font=cap, fill=line, anchor="mm")


def banner(img: Image.Image, box: tuple[float, float, float, float], u: float, ui: str, rng: random.Random
           ) -> None:
    """An ad: its own colours, an 'Ad' tag, a picture (sometimes another puzzle game's grid), a headline, a button."""
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = box
    h = y1 - y0
    bg = tuple(rng.randint(0, 255) for _ in range(3))
    fg = (255, 255, 255) if sum(bg) < 380 else (20, 20, 20)
    d.rectangle(box, fill=bg)
    d.rectangle([x0, y0, x0 + u * 18, y0 + u * 11], fill=(250, 200, 40))
    d.text((x0 + u * 9, y0 + u * 5.5), "Ad", font=font(ui, int(u * 8)), fill=(0, 0, 0), anchor="mm")
    pic = min(h * 0.8, (x1 - x0) * 0.3)
    px, py = x0 + u * 24, y0 + (h - pic) / 2
    if rng.random() < 0.3:
        draw_sudoku(img, px, py, pic, rng, (30, 30, 30), (250, 250, 250), ui)
    else:
        a, b = tuple(rng.randint(0, 255) for _ in range(3)), tuple(rng.randint(0, 255) for _ in range(3))
        for k in range(int(pic)):
            d.line([(px, py + k), (px + pic, py + k)], fill=mix(a, b, k / pic))  # type: ignore[arg-type]
    tx = px + pic + u * 10
    bw = min((x1 - tx) * 0.35, u * 90)
    room = x1 - bw - u * 20 - tx
    for text, size, at in ((rng.choice(["Play now!", "Brain Games", "Download free", "Sale 50% off", "Win big today",
                                        "Learn languages"]), 0.24, 0.32), (words(rng, 4), 0.16, 0.68)):
        f = font(ui, int(min(h * size, u * 30)))
        while f.getlength(text) > room and f.size > 7:
            f = font(str(f.path), f.size - 1)
        d.text((tx, y0 + h * at), text, font=f, fill=fg, anchor="lm")
    d.rounded_rectangle([x1 - bw - u * 10, y0 + h * 0.28, x1 - u * 10, y0 + h * 0.72], radius=u * 6,
                        fill=fg)
    d.text((x1 - bw / 2 - u * 10, y0 + h / 2), rng.choice(["INSTALL", "OPEN", "GET", "PLAY"]),
           font=font(ui, int(min(h * 0.16, bw * 0.16))), fill=bg, anchor="mm")


def paragraph(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], rng: random.Random, font_name: str,
              size: float, colour: RGB, spacing: float = 1.45) -> float:
    """Lines of words filling the box's width, down to its bottom; the y where the text ends."""
    x0, y0, x1, y1 = box
    f = font(font_name, int(size))
    y = y0
    while y + size <= y1:
        x = x0
        while True:
            w = rng.choice(WORDS)
            wl = f.getlength(w)
            if x + wl > x1:
                break
            d.text((x, y), w, font=f, fill=colour)
            x += wl + f.getlength(" ")
        y += size * spacing
        if rng.random() < 0.12:  # a paragraph ends
            break
    return y


def columns(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], rng: random.Random, font_name: str,
            size: float, colour: RGB, rule: RGB) -> None:
    """The box filled with columns of paragraphs (a newspaper's), maybe with rules between the columns."""
    x0, y0, x1, y1 = box
    k = max(1, min(int((x1 - x0) / (size * 22)), rng.choice([1, 2, 3, 4])))
    gap = size * 1.5
    w = (x1 - x0 - gap * (k - 1)) / k
    ruled = rng.random() < 0.5
    for i in range(k):
        cx = x0 + i * (w + gap)
        y = y0
        while y + size * 2 < y1:
            y = paragraph(d, (cx, y, cx + w, y1), rng, font_name, size, colour) + size * 0.6
        if ruled and i:
            d.line([(cx - gap / 2, y0), (cx - gap / 2, y1)], fill=rule, width=1)


# ---------------------------------------------------------------- optics

def map_points(M: np.ndarray, corners: list[Corners]) -> list[Corners]:
    """Corners through a 2x3 affine or 3x3 homography matrix."""
    out = []
    for cs in corners:
        pts = np.asarray(cs, np.float64).reshape(-1, 1, 2)
        if M.shape == (2, 3):
            res = cv2.transform(pts, M)
        else:
            res = cv2.perspectiveTransform(pts, M)
        out.append(tuple((float(x), float(y)) for x, y in res.reshape(-1, 2)))
    return out


# Print's dot screens, by the ruling of the press: cheap newsprint 65 lines per inch, papers 85-100,
# books and magazines 120-150.  At a scan's 150-200 pixels per inch that is a dot every 1-3 pixels.
SCREEN_LPI = (65.0, 150.0)
SOLID = 0.8  # ink covering more of a pixel than this is type or a rule in black ink: printed solid, not screened
SUPERSAMPLE_PERIOD = 4.0  # the screen is drawn with at least this many (finer) pixels per dot, then averaged down
STRIP = 128  # rows drawn at a time at the finer resolution (bounds the memory of a big page)
# a photographed screen: the blur of the camera's lens and pixels, in the photo's pixels (a Gaussian's
# sigma; a pixel's box is about 0.3).  A screen's pixel grid still beats into moire, at a tenth to a half
# of its depth, as phone photos of screens show it, not at the full depth of sampling points.
LENS_SPREAD = (0.2, 0.45)


def halftone(a: np.ndarray, rng: random.Random, colour: bool, ppi: float) -> np.ndarray:
    """Printed with a dot screen at the page's scale (`ppi`: the picture's pixels per inch of paper):
    mid-tones become dots (one screen for grey, one per ink at its own angle), type and rules in
    solid ink stay solid.  A screen finer than the pixels is drawn finer and averaged down: a tone
    with the moire a scan of a fine screen shows."""
    period = ppi / rng.uniform(*SCREEN_LPI)
    s = max(1, math.ceil(SUPERSAMPLE_PERIOD / period))
    h, w = a.shape[:2]
    angles = (15.0, 75.0, 45.0) if colour else (45.0,)
    out = np.empty_like(a)
    for y0 in range(0, h, STRIP):
        part = a[y0:y0 + STRIP]
        ph = part.shape[0]
        fine = cv2.resize(part, (w * s, ph * s), interpolation=cv2.INTER_LINEAR) if s > 1 else part
        yy, xx = np.mgrid[0:ph * s, 0:w * s].astype(np.float32)
        yy += y0 * s
        k = 2 * math.pi / (period * s)
        inks = [fine[..., ch] for ch in range(3)] if colour else [fine.mean(axis=2)]
        printed = []
        for ink, angle in zip(inks, angles):
            t = math.radians(angle)
            u = (xx * math.cos(t) + yy * math.sin(t)) * k
            v = (-xx * math.sin(t) + yy * math.cos(t)) * k
            cover = 1 - ink.astype(np.float32) / 255
            dots = (cover > (np.cos(u) + np.cos(v)) / 4 + 0.5) | (cover > SOLID)
            printed.append(np.where(dots, np.minimum(ink, 40), 255).astype(np.float32))
        fine_out = np.stack(printed * (1 if colour else 3), axis=2)
        out[y0:y0 + ph] = np.clip(cv2.resize(fine_out, (w, ph), interpolation=cv2.INTER_AREA) if s > 1
                                  else fine_out, 0, 255).astype(np.uint8)
    return out


def paper(a: np.ndarray, rng: random.Random, tint: RGB, fibre: float) -> np.ndarray:
    """Ink on paper of a tint, with the paper's blotchy texture."""
    h, w = a.shape[:2]
    g = np.random.default_rng(rng.randrange(2**31))
    blot = cv2.GaussianBlur(g.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32), (0, 0), 2)
    blot = cv2.resize(blot, (w, h))[..., None] * fibre
    return np.clip(a.astype(np.float32) * np.asarray(tint, np.float32) / 255 + blot, 0, 255).astype(np.uint8)


def show_through(a: np.ndarray, rng: random.Random) -> np.ndarray:
    """The other side of a thin page, mirrored, faint and soft."""
    back = cv2.GaussianBlur(a[:, ::-1], (0, 0), rng.uniform(1.5, 3))
    k = rng.uniform(0.05, 0.14)
    return np.clip(a.astype(np.float32) * (1 - k * (1 - back.astype(np.float32) / 255)), 0, 255).astype(np.uint8)


def noise(a: np.ndarray, rng: random.Random, sigma: float) -> np.ndarray:
    g = np.random.default_rng(rng.randrange(2**31))
    return np.clip(a.astype(np.float32) + g.normal(0, sigma, a.shape), 0, 255).astype(np.uint8)


def blur(a: np.ndarray, rng: random.Random, sigma: float, motion: bool = False) -> np.ndarray:
    """Defocus (Gaussian) or a shake along a line."""
    if not motion:
        return cv2.GaussianBlur(a, (0, 0), sigma) if sigma > 0.2 else a
    length = max(3, int(sigma * 4) | 1)
    k: np.ndarray = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
    k = cv2.warpAffine(k, rot, (length, length))
    return cv2.filter2D(a, -1, k / max(k.sum(), 1e-6))


def scan(a: np.ndarray, rng: random.Random, corners: list[Corners], lid: RGB) -> tuple[np.ndarray, list[Corners]]:
    """Laid a little askew on a scanner: turned up to 2.5 degrees, blurred, noisy."""
    h, w = a.shape[:2]
    angle = rng.uniform(-2.5, 2.5)
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    cos, sin = abs(M[0, 0]), abs(M[0, 1])
    W, H = int(h * sin + w * cos), int(h * cos + w * sin)
    M[0, 2] += W / 2 - w / 2
    M[1, 2] += H / 2 - h / 2
    out = cv2.warpAffine(a, M, (W, H), flags=cv2.INTER_LINEAR, borderValue=lid)
    out = blur(out, rng, rng.uniform(0.3, 1.0))
    return noise(out, rng, rng.uniform(2, 8)), map_points(M, corners)


def screen_grid(a: np.ndarray, rng: random.Random) -> np.ndarray:
    """A screen's pixel grid (dark gaps between pixel rows and columns): it beats into moire once photographed."""
    h, w = a.shape[:2]
    pitch = rng.choice([2, 3, 3, 4])
    k = rng.uniform(0.06, 0.22)
    mask = np.ones((h, w), np.float32)
    mask[::pitch, :] -= k
    mask[:, ::pitch] -= k * rng.uniform(0.3, 1)
    return np.clip(a.astype(np.float32) * mask[..., None], 0, 255).astype(np.uint8)


def camera(a: np.ndarray, rng: random.Random, corners: list[Corners], screen: bool, size: tuple[int, int],
           whole: bool = True) -> tuple[np.ndarray, list[Corners]]:
    """A phone's photo of a page or a screen (`whole`: the device in its bezel, else a part of its screen):
    the picture seen in perspective (the page curved), on a table, in light that falls off, maybe a shadow
    and glare, out of focus or shaken, noisy."""
    h, w = a.shape[:2]
    W, H = size
    if screen:
        a = screen_grid(a, rng)
    if screen and whole:
        bezel = int(max(w, h) * rng.uniform(0.02, 0.06))
        a = cv2.copyMakeBorder(a, bezel, bezel, bezel, bezel, cv2.BORDER_CONSTANT, value=(12, 12, 14))
        corners = [tuple((x + bezel, y + bezel) for x, y in cs) for cs in corners]
        h, w = a.shape[:2]
    fill = rng.uniform(0.65, 1.0) if whole or not screen else rng.uniform(1.0, 1.3)  # a part of a screen fills it
    bend = 0.0 if screen or rng.random() < 0.4 else rng.uniform(0.005, 0.03) * h  # a page's bulge, px of source
    turn = math.radians(rng.uniform(-12, 12))
    src = np.asarray([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    jit = [(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(4)]
    shift = (rng.uniform(-0.08, 0.08), rng.uniform(-0.08, 0.08))
    pull = rng.uniform(0.02, 0.12)
    for _ in range(12):  # smaller until every puzzle is whole in the frame
        scale = min(W * fill / w, H * fill / h)
        cx, cy = W / 2 + shift[0] * W, H / 2 + shift[1] * H
        j = pull * min(w, h) * scale
        dst = np.asarray([[cx + (x - w / 2) * scale * math.cos(turn) - (y - h / 2) * scale * math.sin(turn) + a * j,
                           cy + (x - w / 2) * scale * math.sin(turn) + (y - h / 2) * scale * math.cos(turn) + b * j]
                          for (x, y), (a, b) in zip(src, jit)], np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        seen = map_points(M, [tuple((x, y + bend) for x, y in cs) for cs in corners] + corners)
        if all(4 <= x <= W - 4 and 4 <= y <= H - 4 for cs in seen for x, y in cs):
            break
        fill *= 0.9
        shift = (shift[0] * 0.7, shift[1] * 0.7)
    Minv = np.linalg.inv(M)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    den = Minv[2, 0] * xx + Minv[2, 1] * yy + Minv[2, 2]
    sx = (Minv[0, 0] * xx + Minv[0, 1] * yy + Minv[0, 2]) / den
    sy = (Minv[1, 0] * xx + Minv[1, 1] * yy + Minv[1, 2]) / den
    if bend:
        sy = sy - bend * np.sin(np.pi * np.clip(sx / w, 0, 1))
    sx, sy = sx.astype(np.float32), sy.astype(np.float32)
    table = np.asarray(jitter(rng.choice([(150, 110, 70), (200, 195, 185), (90, 90, 95), (235, 235, 230),
                                          (60, 45, 35), (170, 180, 190)]), rng, 25), np.float32)
    if screen:  # a camera's lens and pixels average the light over each of its pixels: a screen's pixel
        # grid beats into moire, but weakened (not point-sampled at full depth).  Drawn from a stream of
        # its own, so that the scene's other draws stay as they were
        spread = np.random.default_rng(int(pull * 1e9)).uniform(*LENS_SPREAD)
        a = cv2.GaussianBlur(a, (0, 0), spread / scale)
    out = cv2.remap(a, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inside = ((sx >= 0) & (sx < w) & (sy >= 0) & (sy < h))[..., None]
    tex = noise(np.broadcast_to(table, (H, W, 3)).astype(np.uint8), rng, 6)
    out = np.where(inside, out, tex).astype(np.float32)
    bent = []
    for cs in corners:
        bent.append(tuple((x, y + bend * math.sin(math.pi * min(1, max(0, x / w)))) for x, y in cs))
    corners = map_points(M, bent)
    # light: a fall-off across the frame, maybe a shadow, maybe glare
    ang = rng.uniform(0, 2 * math.pi)
    grad = np.cos(ang) * xx / W + np.sin(ang) * yy / H
    light = 1 - rng.uniform(0.1, 0.45) * (grad - grad.min()) / (np.ptp(grad) + 1e-6)
    if rng.random() < 0.4:
        sh: np.ndarray = np.zeros((H // 8, W // 8), np.float32)  # drawn small and soft, then enlarged: a soft shadow
        pts = np.asarray([[rng.uniform(-0.2, 1.2) * W / 8, rng.uniform(-0.2, 1.2) * H / 8] for _ in range(4)],
                         np.int32)
        cv2.fillPoly(sh, [cv2.convexHull(pts)], 1.0)
        sh = cv2.resize(cv2.GaussianBlur(sh, (0, 0), rng.uniform(0.02, 0.08) * W / 8), (W, H))
        light *= 1 - rng.uniform(0.2, 0.5) * sh
    out *= light[..., None]
    if rng.random() < (0.6 if screen else 0.25):
        gx, gy = rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H
        rx, ry = rng.uniform(0.05, 0.25) * W, rng.uniform(0.05, 0.2) * H
        glare = np.exp(-(((xx - gx) / rx) ** 2 + ((yy - gy) / ry) ** 2))
        out += rng.uniform(60, 160) * glare[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    out = blur(out, rng, rng.uniform(0.4, 1.8), motion=rng.random() < 0.2)
    return noise(out, rng, rng.uniform(2, 7)), corners


def quarter_turn(a: np.ndarray, k: int, corners: list[Corners]) -> tuple[np.ndarray, list[Corners]]:
    """Turned by k quarter turns counterclockwise (np.rot90), the corners with it."""
    h, w = a.shape[:2]

    def one(x: float, y: float) -> tuple[float, float]:
        return {1: (y, w - x), 2: (w - x, h - y), 3: (h - y, x)}[k]

    return np.ascontiguousarray(np.rot90(a, k)), [tuple(one(x, y) for x, y in cs) for cs in corners]


def dim(a: np.ndarray, rng: random.Random, how: str, grain: bool = True) -> np.ndarray:
    """A third of the brightness range (dark, or washed out), or light that falls off across the picture;
    with a camera's grain unless `grain` is False (a screenshot)."""
    out: np.ndarray = a.astype(np.float32)
    h, w = a.shape[:2]
    if how == "uneven":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        if rng.random() < 0.5:  # a vignette round a bright spot
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            r = np.hypot(xx - cx, yy - cy) / max(w, h)
            field = np.clip(1 - rng.uniform(0.8, 1.3) * r, 0.2, 1)
        else:  # light from one side
            ang = rng.uniform(0, 2 * math.pi)
            g = np.cos(ang) * xx / w + np.sin(ang) * yy / h
            field = 0.2 + 0.8 * (g - g.min()) / (np.ptp(g) + 1e-6)
        out = out * field[..., None] * rng.uniform(0.7, 1.0)
    else:
        span = 255 / 3 * rng.uniform(0.85, 1.1)
        low = rng.uniform(5, 40) if how == "dark" else rng.uniform(110, 160)
        out = low + out * span / 255
    out = np.clip(out, 0, 255).astype(np.uint8)
    return noise(out, rng, rng.uniform(1, 4)) if grain else out


def encode(a: np.ndarray, ext: str, quality: int = 90) -> bytes:
    """An RGB array as a user's file: PNG or JPEG bytes."""
    bgr = cv2.cvtColor(a, cv2.COLOR_RGB2BGR)
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if ext == ".jpg" else [cv2.IMWRITE_PNG_COMPRESSION, 3]
    ok, buf = cv2.imencode(ext, bgr, params)
    if not ok:
        raise ValueError(f"could not encode {ext}")
    return buf.tobytes()
