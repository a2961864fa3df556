"""A picture read for a benchmark as `kkvision solve` reads it: through the front door
(pipeline.read_source of its bytes), its largest puzzle scored (a picture's truth is of the one
KenKen in it; a page's other grids are ads, keypads or a neighbour cut off), with what each stage
of that puzzle's reading reached (stages.Reached), a refused one's too.

    from _read import read_largest

    got, reached = read_largest(path, data, Options(ocr="model"))  # a Result, or the KkvisionError
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kkvision.errors import KkvisionError
from kkvision.pipeline import Options, Outcome, Result, read_source
from kkvision.sources import of_bytes
from kkvision.vision.stages import Reached


def read_largest(path: Path, data: bytes, opts: Options) -> tuple[Result | KkvisionError, Reached]:
    """The largest puzzle of a picture file's bytes, read and solved, or the KkvisionError it was refused
    with (or the picture's own: no grid at all, not a picture, with nothing reached); and what its
    reading's stages reached."""
    traces: dict[int, Reached] = {}
    try:
        page = read_source(of_bytes(data, str(path)), opts, traces=traces)
    except KkvisionError as exc:
        return exc, Reached()
    outcome = max(page.outcomes, key=_area)
    reached = traces.get(outcome.index or 1, Reached())
    if outcome.result is None:
        assert outcome.error is not None
        return outcome.error, reached
    return outcome.result, reached


def _area(outcome: Outcome) -> float:
    geom = outcome.geometry
    return 0.0 if geom is None else float(cv2.contourArea(np.asarray(geom.corners, np.float32)))
