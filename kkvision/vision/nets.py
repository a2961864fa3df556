"""The one module that runs learned models: the shipped ONNX networks, with
onnxruntime (an inference runtime only: no training framework at run time).

Why onnxruntime rather than OpenCV's dnn module, which ran them before: the
label network's forward passes of a 9x9 book photo take 53 ms rather than
89 on one core (47 -> 37 ms on two), the whole solve of the 6x6 photo sample
~30 ms less, and it gives the same scores to ~1e-5 (tests/test_packaging.py
checks each shipped model against OpenCV's dnn; every reading of real-dev and
the samples, to three decimals of each probability, is the same).

Each model is read once per process from the package data (kkvision.models,
so an install outside the checkout finds it), once for each thread count
asked for: a session runs on as many threads as OpenCV is set to use
(cv2.setNumThreads, the one knob: the web server's pool gives a job the cores
no other job is running on).  Idle threads sleep rather than spin, so a
worker's network never takes a core from another worker.  For benchmarks and
training only, use_model makes a model name read another file (a model being
trained or compared); kkvision itself never calls it.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import MissingDependency

_LOCK = threading.Lock()
# crops a network runs at once: the runtime's memory arena keeps room for the largest batch it ran (a 9x9
# grid's 81 label crops: ~80 MB more per worker); 16 at a time cost the same time per crop and ~25 MB
BATCH = 16
_FILES: dict[str, Path] = {}  # model name -> the file use_model put in its place


def use_model(model: str, path: str | Path | None) -> None:
    """For benchmarks and training only: later loads of `model` (e.g.
    "labels.onnx") in this process read the ONNX file `path` instead of the
    shipped one; None goes back to the shipped one.  A process pool's
    workers must call it too (e.g. as the pool's initializer)."""
    with _LOCK:
        if path is None:
            _FILES.pop(model, None)
        else:
            path = Path(path)
            if not path.is_file():
                raise FileNotFoundError(f"no model file {path}")
            _FILES[model] = path
        _session.cache_clear()


def runtime() -> Any:
    """The onnxruntime module, imported with its telemetry off: without ORT_DISABLE_TELEMETRY its import
    starts Microsoft's 1DS telemetry, which leaves a session file (.ses) in the temporary folder of every
    process that imports it; kkvision sends nothing anywhere and leaves no file behind."""
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"  # read when the module is first imported
    try:
        import onnxruntime
    except ImportError:
        raise MissingDependency("onnxruntime is missing; reinstall kkvision (./scripts/setup.sh)") from None
    return onnxruntime


@lru_cache(maxsize=32)  # three models, each on a few thread counts
def _session(model: str, threads: int) -> Any:
    ort = runtime()
    try:
        data = (_FILES[model].read_bytes() if model in _FILES
                else resources.files("kkvision.models").joinpath(model).read_bytes())
    except (FileNotFoundError, ModuleNotFoundError):
        script = "python -m devtools.train_" + model.split(".")[0]
        raise MissingDependency(f"model {model} is missing from the kkvision package;"
                                f" reinstall it, or run {script}") from None
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: no warnings about the graph on stderr
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # no memory pattern: the batches' sizes vary (a grid's labels), and a pattern kept for each size seen grew a
    # process by ~120 MB over 600 label batches (~30 with none; without the arena too, runs 1.5x slower)
    options.enable_mem_pattern = False
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def scores(model: str, crops: list[np.ndarray]) -> np.ndarray:
    """The network's raw output for a batch of single-channel crops (N, 1, h, w), run BATCH at a time."""
    blob = np.stack(crops).astype(np.float32)[:, None]
    with _LOCK:
        session = _session(model, max(1, cv2.getNumThreads()))
    name = session.get_inputs()[0].name
    return np.concatenate([session.run(None, {name: blob[i:i + BATCH]})[0] for i in range(0, len(blob), BATCH)])


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
