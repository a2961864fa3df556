"""Draw the solution (or the wrong answers) into the ORIGINAL picture.

The digits are drawn on a transparent layer in the warped square, where
cells are upright and evenly sized, and that layer is warped back into the
photo with the inverse homography, so the digits follow the perspective.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .errors import OutputExists
from .puzzle import Grid
from .vision.grid import SIDE

FONT_NAMES = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "FreeSansBold.ttf")
SOLUTION = (20, 70, 220, 255)  # RGBA
WRONG = (220, 20, 20, 255)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in FONT_NAMES:
        for folder in (Path("/usr/share/fonts"), Path("/usr/local/share/fonts")):
            hits = list(folder.rglob(name)) if folder.exists() else []
            if hits:
                return ImageFont.truetype(str(hits[0]), size)
    return ImageFont.load_default(size)


def _layer(reading: Any, grid: Grid, wrong: set[tuple[int, int]] | None) -> np.ndarray:
    geom = reading.geometry
    n = geom.size
    layer = Image.new("RGBA", (SIDE, SIDE), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    font = _font(int(0.5 * SIDE / n))
    for r in range(n):
        for c in range(n):
            x0, y0, x1, y1 = geom.cell_box(r, c)
            cx, cy = (x0 + x1) / 2, y0 + 0.62 * (y1 - y0)
            if wrong is not None:
                if (r, c) in wrong:
                    m = 0.18 * (x1 - x0)
                    d.ellipse([x0 + m, y0 + m, x1 - m, y1 - m], outline=WRONG, width=max(3, SIDE // (60 * n)))
                continue
            d.text((cx, cy), str(grid[r][c]), font=font, fill=SOLUTION, anchor="mm")
    return np.asarray(layer)


def draw_solution(image: np.ndarray, reading: Any, grid: Grid,
                  wrong: set[tuple[int, int]] | None = None) -> np.ndarray:
    """The original BGR image with the digits (or circles round wrong cells) drawn in."""
    h, w = image.shape[:2]
    layer = _layer(reading, grid, wrong)
    inverse = np.linalg.inv(reading.geometry.homography)
    back = cv2.warpPerspective(layer, inverse, (w, h), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = back[..., 3:4].astype(np.float32) / 255.0
    colour = back[..., 2::-1].astype(np.float32)  # RGBA -> BGR
    base = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return (base.astype(np.float32) * (1 - alpha) + colour * alpha).astype(np.uint8)


def save_image(picture: np.ndarray, path: Path) -> None:
    """Write a PNG; refuses to replace an existing file."""
    ok, data = cv2.imencode(".png", picture)
    if not ok:
        raise OutputExists(f"could not encode the picture for {path}")
    try:
        with open(path, "xb") as fh:
            fh.write(data.tobytes())
    except FileExistsError:
        raise OutputExists(f"{path} exists; kkvision never overwrites files") from None
