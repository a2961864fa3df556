"""A picture read for a benchmark as `kkvision solve` reads it: through the front door
(pipeline.read_source of its bytes), its largest puzzle scored (a picture's truth is of the one
KenKen in it; a page's other grids are ads, keypads or a neighbour cut off), with each stage's
result of that puzzle in a Trace, a refused one's too.

    from _read import read_largest

    trace = Trace()
    result = read_largest(path, data, Options(ocr="model"), trace)  # raises what it was refused with
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kkvision.pipeline import Options, Outcome, Result, read_source
from kkvision.sources import of_bytes
from kkvision.vision.stages import Trace


def read_largest(path: Path, data: bytes, opts: Options, trace: Trace) -> Result:
    """The largest puzzle of a picture file's bytes, read and solved; its stages in `trace`.  Raises the
    KkvisionError it was refused with, or the picture's own (no grid at all, not a picture)."""
    traces: dict[int, Trace] = {}
    page = read_source(of_bytes(data, str(path)), opts, traces=traces)
    outcome = max(page.outcomes, key=_area)
    if (outcome.index or 1) in traces:
        trace.__dict__.update(traces[outcome.index or 1].__dict__)
    if outcome.result is None:
        assert outcome.error is not None
        raise outcome.error
    return outcome.result


def _area(outcome: Outcome) -> float:
    geom = outcome.geometry
    return 0.0 if geom is None else float(cv2.contourArea(np.asarray(geom.corners, np.float32)))
