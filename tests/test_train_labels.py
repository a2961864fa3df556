"""devtools/train_labels.py's synthetic label crops: a label redrawn as a face that is not
installed (reshape) stays inside the room its cell gives it, and really changes its shape."""

import random

import numpy as np
import pytest
from PIL import Image, ImageDraw

from devtools.synth import find_font
from devtools.train_labels import draw_runs, reshape


def drawn(text: str = "48+", size: int = 60) -> np.ndarray:
    font = find_font("DejaVuSans.ttf")
    if font is None:
        pytest.skip("DejaVu Sans missing (run scripts/setup.sh)")
    layer = Image.new("L", (300, 200), 0)
    draw_runs(ImageDraw.Draw(layer), [(text, font, size)], 20, 30, 200, 120, 255, 0.0)  # type: ignore[arg-type]
    return np.asarray(layer)


def ink_box(mask: np.ndarray) -> tuple[int, int, int, int]:
    ys, xs = np.nonzero(mask > 127)
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


@pytest.mark.parametrize("seed", range(40))
def test_a_reshaped_label_stays_in_its_room(seed):
    mask = drawn()
    x0, y0, x1, y1 = ink_box(mask)
    out = reshape(mask, random.Random(seed), (20, 30), (200, 120), cap=float(y1 - y0))
    ox0, oy0, ox1, oy1 = ink_box(out)
    assert ox0 >= 20 - 2 and ox1 <= 20 + 200 + 2, (ox0, ox1)  # within the room across (a pixel or two of weight)
    assert abs(oy0 - y0) <= 8 and abs(oy1 - y1) <= 8  # the label keeps its line: same top and foot, but weight


def test_reshaping_changes_width_slant_and_weight():
    mask = drawn()
    x0, y0, x1, y1 = ink_box(mask)
    widths, inks = set(), set()
    for seed in range(30):
        out = reshape(mask, random.Random(seed), (20, 30), (200, 120), cap=float(y1 - y0))
        ox0, _, ox1, _ = ink_box(out)
        widths.add(round((ox1 - ox0) / (x1 - x0), 1))
        inks.add(round(float((out > 127).sum()) / float((mask > 127).sum()), 1))
    assert min(widths) <= 0.85 and max(widths) >= 1.15  # condensed and extended (or slanted) faces
    assert min(inks) <= 0.8 and max(inks) >= 1.2  # lighter and heavier faces
