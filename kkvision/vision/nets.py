"""The one module that runs learned models: the shipped ONNX networks, with
OpenCV's dnn module or onnxruntime (no training framework at run time).

Each model is read once per process from the package data (kkvision.models,
so an install outside the checkout finds it) and run under a lock: OpenCV's
Net is not safe to run from two threads at once.  For benchmarks and training
only, use_model makes a model name read another file (a model being trained
or compared); kkvision itself never calls it.

Two engines run them, with the same scores to ~1e-5 (tests/test_packaging.py):
OpenCV's dnn module by default, and onnxruntime in a process that runs the
networks many times and says so (use_runtime: the web server's workers, a
batch's).  onnxruntime's forward passes are quicker (the label network on a
9x9 grid's 81 crops: ~50 ms rather than ~88 on one core, ~27 rather than ~44
on two), but a new process pays ~50 ms for its import, its session and its
teardown, more than one picture's passes save, and a process is ~20 MB
bigger (the web server's two workers: 419 MB against 376): so a single `kkvision solve` stays on OpenCV (the 6x6 photo took ~25
ms longer with onnxruntime: 0.54 s against 0.51), while the server and a
batch, which pay it once, take it.  Its sessions are made for a thread count:
as many as OpenCV is set to use (cv2.setNumThreads, the one knob: the web
server's pool gives a job the cores no other job is running on; a batch's
workers are forked with their share).  Idle threads sleep rather than spin, so a worker's
network never takes a core from another worker.  Its import starts
Microsoft's telemetry unless ORT_DISABLE_TELEMETRY is set (it leaves a .ses
file in the temporary folder): runtime() sets it first.
"""

from __future__ import annotations

import logging
import os
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import MissingDependency

log = logging.getLogger("kkvision")
_LOCK = threading.Lock()
_FILES: dict[str, Path] = {}  # model name -> the file use_model put in its place
_generation = 0  # how many times use_model has changed a model (what a model name means)
# crops onnxruntime runs at once: its memory arena keeps room for the largest batch it ran (a 9x9 grid's 81
# label crops: ~80 MB more per worker); 16 at a time cost the same time per crop and ~25 MB
BATCH = 16
_engine = "opencv"  # what runs the networks in this process: "opencv" (its dnn module) or "onnxruntime"


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
        _session.cache_clear()
        _generation += 1


def generation() -> int:
    """A number that changes whenever use_model changes what a model name runs (results kept by
    model name are kept with it)."""
    return _generation


def use_runtime() -> bool:
    """For a process that runs the networks many times (the web server's workers, a batch's): run them
    with onnxruntime from now on, on as many threads as OpenCV is set to use at each run.  False, and
    OpenCV's dnn kept, when onnxruntime cannot be imported (a broken install: the answers are the same,
    only slower)."""
    global _engine
    try:
        runtime()
    except MissingDependency as exc:
        log.info("%s; the networks run with OpenCV's dnn", exc.message)
        return False
    with _LOCK:
        _engine = "onnxruntime"
    return True


def use_opencv() -> None:
    """Back to OpenCV's dnn for the networks, as a new process runs them (tests and benchmarks)."""
    global _engine
    with _LOCK:
        _engine = "opencv"


def engine() -> str:
    """The engine that runs the networks in this process: "opencv" or "onnxruntime"."""
    return _engine


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


def _model_bytes(model: str) -> bytes:
    try:
        return (_FILES[model].read_bytes() if model in _FILES
                else resources.files("kkvision.models").joinpath(model).read_bytes())
    except (FileNotFoundError, ModuleNotFoundError):
        script = "python -m devtools.train_" + model.split(".")[0]
        raise MissingDependency(f"model {model} is missing from the kkvision package;"
                                f" reinstall it, or run {script}") from None


@lru_cache(maxsize=8)  # four models
def _net(model: str) -> cv2.dnn.Net:
    return cv2.dnn.readNetFromONNX(np.frombuffer(_model_bytes(model), np.uint8))


@lru_cache(maxsize=16)  # four models, each on a thread count or two
def _session(model: str, threads: int) -> Any:
    ort = runtime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: no warnings about the graph on stderr
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # no memory pattern: the batches' sizes vary (a grid's labels), and a pattern kept for each size seen grew a
    # process by ~120 MB over 600 label batches (~30 with none; without the arena too, runs 1.5x slower)
    options.enable_mem_pattern = False
    return ort.InferenceSession(_model_bytes(model), options, providers=["CPUExecutionProvider"])


def scores(model: str, crops: list[np.ndarray], output: str = "scores") -> np.ndarray:
    """The network's raw output for a batch of single-channel crops (N, 1, h, w): its scores, or another
    output the model file has (`output`: 'features', devtools/export.py's with_features)."""
    blob = np.stack(crops).astype(np.float32)[:, None]
    with _LOCK:
        if _engine == "opencv":
            net = _net(model)
            net.setInput(blob)
            return net.forward() if output == "scores" else net.forward(output)
        session = _session(model, max(1, cv2.getNumThreads()))
    name = session.get_inputs()[0].name  # a session may run from several threads at once
    wanted = None if output == "scores" else [output]  # the scores are every model's first output
    return np.concatenate([session.run(wanted, {name: blob[i:i + BATCH]})[0] for i in range(0, len(blob), BATCH)])


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
