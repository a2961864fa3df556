"""Render puzzles as images in many styles, for samples, training and benchmarks.

Styles: `clean` (flat render), `screenshot` (app colours), `scan` (paper tint,
slight rotation, noise, blur, JPEG), `photo` (perspective onto a background,
uneven light, blur, noise, JPEG) and `page` (the puzzle among columns of text
on a newspaper page, then scanned) and `lowres` (a small or distant picture:
labels 6..10 px high, blurred, JPEG quality 30..60).  Sizes follow real inputs: cells of 45..110
px (a 9x9 grid of 450..1000 px, as a 300 dpi scan gives), photos with the
grid 600..1200 px across (a phone camera at reading distance).  Fonts are split: TRAIN_FONTS teach the glyph
model, HELDOUT_FONTS are never shown to it and measure generalisation.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from kkvision.puzzle import Puzzle

FONT_DIRS = [Path("/usr/share/fonts"), Path("/usr/local/share/fonts")]
TRAIN_FONTS = [
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSansCondensed.ttf",
    "DejaVuSansMono.ttf", "DejaVuSerif-Bold.ttf", "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf",
    "LiberationSerif-Regular.ttf", "LiberationSerif-Bold.ttf", "LiberationMono-Regular.ttf",
    "FreeSans.ttf", "FreeSansBold.ttf", "FreeSerif.ttf", "FreeSerifBold.ttf", "FreeMono.ttf",
    "Roboto-Regular.ttf", "Roboto-Bold.ttf", "RobotoCondensed-Regular.ttf", "OpenSans-Regular.ttf",
    "OpenSans-Bold.ttf", "Lato-Regular.ttf", "Lato-Bold.ttf", "Lato-Italic.ttf", "Carlito-Regular.ttf",
    "Caladea-Regular.ttf", "Caladea-Bold.ttf", "Cantarell-Regular.ttf", "NotoMono-Regular.ttf",
]
HELDOUT_FONTS = [
    "NimbusSans-Regular.otf", "NimbusSans-Bold.otf", "NimbusRoman-Regular.otf", "URWGothic-Book.otf",
    "C059-Roman.otf", "P052-Roman.otf", "URWBookman-Light.otf", "NimbusMonoPS-Regular.otf",
]
STYLES = ("clean", "screenshot", "scan", "photo", "page", "lowres")
WORDS = "the city council voted to approve a new budget for parks and roads on monday night".split()


def find_font(name: str) -> Path | None:
    for d in FONT_DIRS:
        hits = list(d.rglob(name)) if d.exists() else []
        if hits:
            return hits[0]
    return None


def available(names: list[str]) -> list[Path]:
    return [p for p in (find_font(n) for n in names) if p is not None]


def _has_glyph(font: ImageFont.FreeTypeFont, ch: str) -> bool:
    missing = font.getmask("\uffff").getbbox()
    return font.getmask(ch).getbbox() != missing if missing else True


@dataclass(frozen=True)
class Look:
    cell: int
    thin: int
    thick: int
    thin_grey: int
    dotted: bool
    font: str
    font_frac: float
    ops: str  # 'unicode' (× ÷ −) or 'ascii' (x / -) or 'star' (* / -)
    ink: tuple[int, int, int]
    paper: tuple[int, int, int]
    margin_frac: float


def random_look(rng: random.Random, fonts: list[Path], n: int) -> Look:
    cell = rng.randint(max(45, 450 // n), max(70, 1000 // n))  # a 300 dpi scan: 9x9 cells of 50..110 px
    thin = rng.choice([1, 1, 2, 2, 3]) if cell > 50 else 1
    thick = max(thin + 2, int(cell * rng.uniform(0.05, 0.09)))
    return Look(
        cell=cell, thin=thin, thick=thick, thin_grey=rng.choice([0, 60, 110, 150]),
        dotted=rng.random() < 0.12, font=str(rng.choice(fonts)), font_frac=rng.uniform(0.2, 0.3),
        ops=rng.choice(["unicode", "unicode", "ascii", "star"]),
        ink=(0, 0, 0) if rng.random() < 0.7 else tuple(rng.randint(0, 70) for _ in range(3)),  # type: ignore[arg-type]
        paper=(255, 255, 255) if rng.random() < 0.6 else tuple(rng.randint(215, 255) for _ in range(3)),  # type: ignore[arg-type]
        margin_frac=rng.uniform(0.05, 0.12),
    )


def label_text(op: str, target: int, ops: str, font: ImageFont.FreeTypeFont) -> str:
    if op in "=?":
        return str(target)
    table = {"unicode": {"+": "+", "-": "−", "*": "×", "/": "÷"},
             "ascii": {"+": "+", "-": "-", "*": "x", "/": "/"},
             "star": {"+": "+", "-": "-", "*": "*", "/": "÷"}}[ops]
    ch = table[op]
    if not _has_glyph(font, ch):
        ch = {"−": "-", "×": "x", "÷": "/"}.get(ch, ch)
    return f"{target}{ch}"


def render_flat(puzzle: Puzzle, look: Look) -> Image.Image:
    n, s = puzzle.size, look.cell
    pad = look.thick * 2 + 6
    side = n * s + 2 * pad
    img = Image.new("RGB", (side, side), look.paper)
    d = ImageDraw.Draw(img)
    owner = {cell: k for k, cage in enumerate(puzzle.cages) for cell in cage.cells}
    grey = (look.thin_grey,) * 3 if look.thin_grey else look.ink

    def line(x0: float, y0: float, x1: float, y1: float, w: int, color: tuple, dotted: bool = False) -> None:
        if not dotted:
            d.line([(x0, y0), (x1, y1)], fill=color, width=w)
            return
        length = max(abs(x1 - x0), abs(y1 - y0))
        step = max(4, s // 12)
        for t in range(0, int(length), step * 2):
            a, b = t / length, min(1.0, (t + step) / length)
            d.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                   fill=color, width=w)

    for i in range(1, n):  # thin lines first, thick on top
        p = pad + i * s
        line(p, pad, p, pad + n * s, look.thin, grey, look.dotted)
        line(pad, p, pad + n * s, p, look.thin, grey, look.dotted)
    for r in range(n):
        for c in range(n):
            x, y = pad + c * s, pad + r * s
            if c + 1 < n and owner[(r, c)] != owner[(r, c + 1)]:
                line(x + s, y - look.thick / 2 + 1, x + s, y + s + look.thick / 2, look.thick, look.ink)
            if r + 1 < n and owner[(r, c)] != owner[(r + 1, c)]:
                line(x - look.thick / 2 + 1, y + s, x + s + look.thick / 2, y + s, look.thick, look.ink)
    half = look.thick // 2
    d.rectangle([pad - half, pad - half, pad + n * s + half, pad + n * s + half], outline=look.ink,
                width=look.thick)
    font = ImageFont.truetype(look.font, max(9, int(s * look.font_frac)))
    for cage in puzzle.cages:
        r, c = cage.anchor
        m = look.thick / 2 + s * look.margin_frac * 0.6
        d.text((pad + c * s + m, pad + r * s + m * 0.8), label_text(cage.op, cage.target, look.ops, font),
               font=font, fill=look.ink)
    return img


def _jpeg(img: Image.Image, quality: int) -> Image.Image:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return Image.open(io.BytesIO(buf.getvalue())).convert("RGB")


def _noise(img: Image.Image, rng: random.Random, sigma: float) -> Image.Image:
    a = np.asarray(img).astype(np.float32)
    a += np.random.default_rng(rng.randint(0, 2**31)).normal(0, sigma, a.shape)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def degrade(img: Image.Image, style: str, rng: random.Random) -> Image.Image:
    import cv2

    if style == "clean":
        return img
    if style == "screenshot":
        w, h = img.size
        bg = Image.new("RGB", (w + rng.randint(0, 200), h + rng.randint(40, 300)),
                       tuple(rng.randint(200, 255) for _ in range(3)))  # type: ignore[arg-type]
        bg.paste(img, (rng.randint(0, bg.size[0] - w), rng.randint(0, bg.size[1] - h)))
        return bg
    if style == "page":  # a newspaper page: columns of text around the puzzle, then scanned
        w, h = img.size
        page = Image.new("RGB", (2 * w + 200, h + rng.randint(500, 900)), (250, 248, 240))
        d = ImageDraw.Draw(page)
        font = ImageFont.truetype(str(find_font("DejaVuSerif.ttf") or find_font("DejaVuSans.ttf")), 18)
        for y in range(20, page.size[1] - 20, 26):
            d.text((20, y), " ".join(rng.choice(WORDS) for _ in range(50)), font=font, fill=(30, 30, 30))
        x0, y0 = rng.randint(w + 140, page.size[0] - w - 20), rng.randint(20, page.size[1] - h - 20)
        d.rectangle([x0 - 20, y0 - 20, x0 + w + 20, y0 + h + 20], fill=(250, 248, 240))
        page.paste(img, (x0, y0))
        return degrade(page, "scan", rng)
    if style == "scan":
        img = img.rotate(rng.uniform(-3, 3), resample=Image.Resampling.BICUBIC, expand=True, fillcolor=(235, 232, 220))
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0)))
        img = _noise(img, rng, rng.uniform(3, 10))
        return _jpeg(img, rng.randint(50, 90))
    # photo: perspective onto a bigger background, uneven light, blur, noise, JPEG
    a = np.asarray(img)
    h, w = a.shape[:2]
    scale = rng.uniform(0.8, 1.2) * max(1.0, 750 / w)  # a phone photo: the grid spans 600..1000+ px
    W, H = int(w * scale * rng.uniform(1.3, 1.7)), int(h * scale * rng.uniform(1.3, 1.7))
    cx, cy, half = W / 2 + rng.uniform(-0.1, 0.1) * W, H / 2 + rng.uniform(-0.1, 0.1) * H, w * scale / 2
    j = half * 0.18
    dst = np.asarray([[cx - half + rng.uniform(-j, j), cy - half + rng.uniform(-j, j)],
                      [cx + half + rng.uniform(-j, j), cy - half + rng.uniform(-j, j)],
                      [cx + half + rng.uniform(-j, j), cy + half + rng.uniform(-j, j)],
                      [cx - half + rng.uniform(-j, j), cy + half + rng.uniform(-j, j)]], dtype=np.float32)
    src = np.asarray([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    M = cv2.getPerspectiveTransform(src, dst)
    bgc = tuple(rng.randint(60, 200) for _ in range(3))
    out = cv2.warpPerspective(a, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=bgc)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = (np.cos(ang) * xx / W + np.sin(ang) * yy / H)
    light = 1.0 - rng.uniform(0.15, 0.45) * (grad - grad.min()) / (np.ptp(grad) + 1e-6)
    out = np.clip(out.astype(np.float32) * light[..., None], 0, 255).astype(np.uint8)
    img = Image.fromarray(out).filter(ImageFilter.GaussianBlur(rng.uniform(0.4, 1.4)))
    img = _noise(img, rng, rng.uniform(3, 9))
    return _jpeg(img, rng.randint(40, 85))


def lowres(img: Image.Image, look: Look, rng: random.Random) -> Image.Image:
    """Shrunk until the labels are 6..10 px high, blurred, and JPEG-compressed hard."""
    cap = look.font_frac * look.cell * 0.72  # a label's digit height, px
    scale = min(1.0, rng.uniform(6, 10) / cap)
    w, h = img.size
    img = img.resize((max(1, round(w * scale)), max(1, round(h * scale))), Image.Resampling.LANCZOS)
    img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 0.6)))
    return _jpeg(img, rng.randint(30, 60))


def render(puzzle: Puzzle, style: str, rng: random.Random, fonts: list[Path]) -> tuple[Image.Image, Look]:
    look = random_look(rng, fonts, puzzle.size)
    if style == "lowres":
        return lowres(render_flat(puzzle, look), look, rng), look
    return degrade(render_flat(puzzle, look), style, rng), look
