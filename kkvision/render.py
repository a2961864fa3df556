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
    corners = np.asarray(reading.geometry.corners, dtype=np.float64)
    x0, y0 = (max(0, int(v) - 2) for v in corners.min(axis=0))
    x1, y1 = (min(lim, int(v) + 3) for v, lim in zip(corners.max(axis=0), (w, h)))
    out = (image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)).copy()
    if x1 <= x0 or y1 <= y0:
        return out
    # warp the layer back over the grid's bounding box only, then blend where it has ink
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64)
    inverse = shift @ np.linalg.inv(reading.geometry.homography)
    back = cv2.warpPerspective(layer, inverse, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    ink = back[..., 3] > 0
    alpha = back[..., 3][ink].astype(np.float32)[:, None] / 255.0
    roi = out[y0:y1, x0:x1]
    roi[ink] = (roi[ink] * (1 - alpha) + back[..., 2::-1][ink] * alpha).astype(np.uint8)  # RGBA -> BGR
    return out


def save_image(picture: np.ndarray, path: Path) -> None:
    """Write a PNG; refuses to replace an existing file."""
    ok, data = cv2.imencode(".png", picture, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if not ok:
        raise OutputExists(f"could not encode the picture for {path}")
    try:
        with open(path, "xb") as fh:
            fh.write(data.tobytes())
    except FileExistsError:
        raise OutputExists(f"{path} exists; kkvision never overwrites files") from None
