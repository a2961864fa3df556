"""The one module that runs learned models: the shipped ONNX networks, with
OpenCV's dnn module (no training framework at run time).

Each model is read once per process from the package data (kkvision.models,
so an install outside the checkout finds it) and run under a lock: OpenCV's
Net is not safe to run from two threads at once.  For benchmarks and training
only, use_model makes a model name read another file (a model being trained
or compared); kkvision itself never calls it.

Why OpenCV's dnn and not onnxruntime (measured, and taken back out): on the
label network onnxruntime's forward passes of a 9x9 book photo take 53 ms
rather than 89 on one core (37 rather than 47 on two), with the same scores
to ~1e-5; but a new process pays ~50 ms for its import, its session and its
teardown, so `kkvision solve` of the 6x6 photo took ~25 ms longer (0.54 s
against 0.51, 8 alternating runs); the web server's p50 was 19 ms shorter
(272 ms against 291 back to back, with a faster tracer in too) and its
processes 59 MB bigger; and its import starts Microsoft's telemetry unless
ORT_DISABLE_TELEMETRY is set (it leaves a .ses file in the temporary
folder).  Not worth a 36 MB dependency.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from ..errors import MissingDependency

_LOCK = threading.Lock()
_FILES: dict[str, Path] = {}  # model name -> the file use_model put in its place
_generation = 0  # how many times use_model has changed a model (what a model name means)


def use_model(model: str, path: str | Path | None) -> None:
    """For benchmarks and training only: later loads of `model` (e.g.
    "labels.onnx") in this process read the ONNX file `path` instead of the
    shipped one; None goes back to the shipped one.  A process pool's
    workers must call it too (e.g. as the pool's initializer)."""
    global _generation
    with _LOCK:
        if path is None:
            _FILES.pop(model, None)
        else:
            path = Path(path)
            if not path.is_file():
                raise FileNotFoundError(f"no model file {path}")
            _FILES[model] = path
        _net.cache_clear()
        _generation += 1


def generation() -> int:
    """A number that changes whenever use_model changes what a model name runs (results kept by
    model name are kept with it)."""
    return _generation


@lru_cache(maxsize=4)
def _net(model: str) -> cv2.dnn.Net:
    try:
        data = (_FILES[model].read_bytes() if model in _FILES
                else resources.files("kkvision.models").joinpath(model).read_bytes())
    except (FileNotFoundError, ModuleNotFoundError):
        script = "python -m devtools.train_" + model.split(".")[0]
        raise MissingDependency(f"model {model} is missing from the kkvision package;"
                                f" reinstall it, or run {script}") from None
    return cv2.dnn.readNetFromONNX(np.frombuffer(data, np.uint8))


def scores(model: str, crops: list[np.ndarray]) -> np.ndarray:
    """The network's raw output for a batch of single-channel crops (N, 1, h, w)."""
    blob = np.stack(crops).astype(np.float32)[:, None]
    with _LOCK:
        net = _net(model)
        net.setInput(blob)
        return net.forward()


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
