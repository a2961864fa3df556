"""The README's three check verdicts, each with its picture (docs/check-*.jpg).

    .venv/bin/python docs/make_check_examples.py

From samples/photo-6x6.jpg: the solution written into a copy of the photo
(as kkvision draws answers), then one cell changed (exit 11), or one cell's
digit scribbled over so it cannot be read surely (exit 15); `kkvision check`
runs on each and its checked picture, shrunk, is kept.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kkvision.cli import main  # noqa: E402
from kkvision.pipeline import Options, read_source  # noqa: E402
from kkvision.render import Drawing, draw  # noqa: E402
from kkvision.sources import Source  # noqa: E402

WIDTH = 480  # px: the pictures as shown in README


def main_() -> None:
    src = ROOT / "samples" / "photo-6x6.jpg"
    result = read_source(Source(str(src), src), Options()).outcomes[0].result
    assert result is not None and result.geometry is not None
    picture = cv2.imread(str(src))
    solution = [list(row) for row in result.solution]
    wrong = [row[:] for row in solution]
    wrong[2][3] = solution[2][3] % 6 + 1  # D3 written wrong
    with tempfile.TemporaryDirectory() as tmp:
        for name, grid, scribble in (("ok", solution, None), ("wrong", wrong, None), ("unsure", solution, (4, 1))):
            filled = draw(picture, [Drawing(result.geometry, tuple(map(tuple, grid)), result.labels)])
            if scribble is not None:  # strokes over B5's digit: written, but not legible
                x0, y0, x1, y1 = result.geometry.cell_box(*scribble)
                pts = result.geometry.to_image(np.array([[x0 + 0.25 * (x1 - x0), y0 + 0.4 * (y1 - y0)],
                                                         [x1 - 0.2 * (x1 - x0), y0 + 0.75 * (y1 - y0)],
                                                         [x0 + 0.2 * (x1 - x0), y0 + 0.8 * (y1 - y0)],
                                                         [x1 - 0.25 * (x1 - x0), y0 + 0.45 * (y1 - y0)]]))
                cv2.polylines(filled, [pts.astype(np.int32)], False, (60, 40, 20), 9, cv2.LINE_AA)
            path = Path(tmp) / f"{name}.png"
            cv2.imwrite(str(path), filled)
            out = Path(tmp) / f"{name}.checked.png"
            code = main(["check", str(path), "-o", str(out)])
            print(f"check-{name}: exit {code}")
            checked = cv2.imread(str(out))
            h, w = checked.shape[:2]
            small = cv2.resize(checked, (WIDTH, round(h * WIDTH / w)), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(ROOT / "docs" / f"check-{name}.jpg"), small, [cv2.IMWRITE_JPEG_QUALITY, 85])


if __name__ == "__main__":
    main_()
