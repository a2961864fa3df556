"""The package's file list: every module of the source tree ships, with the models; the
dev-only code (devtools/) does not, and the runtime never imports it."""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python 3.11+")
def test_every_package_of_the_tree_is_listed_for_install():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "kkvision").rglob("__init__.py")}
    assert found | {"kkvision.models"} == listed
    assert config["package-dir"]["kkvision.models"] == "models"
    assert sorted(config["package-data"]["kkvision.models"]) == ["*.md", "*.onnx"]
    assert not any(name.split(".")[0] == "devtools" for name in listed)


def test_the_models_folder_holds_no_code():
    # every module in models/ would ship as kkvision.models.*; training code lives in devtools/
    assert [p.name for p in (ROOT / "models").glob("*.py")] == ["__init__.py"]


def test_the_runtime_never_imports_the_dev_only_code():
    for path in (ROOT / "kkvision").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            assert not any(n.split(".")[0] == "devtools" for n in names), f"{path} imports {names}"


def test_the_label_model_loads_as_package_data():
    from importlib import resources

    import cv2
    import numpy as np

    data = resources.files("kkvision.models").joinpath("labels.onnx").read_bytes()
    net = cv2.dnn.readNetFromONNX(np.frombuffer(data, np.uint8))
    net.setInput(np.zeros((2, 1, 40, 88), np.float32))
    assert net.forward().shape == (2, 15, 1, 22)


@pytest.fixture
def onnxruntime_engine():
    """The networks run by onnxruntime in this process (as in the web server's workers), OpenCV's after."""
    from kkvision.vision import nets

    assert nets.use_runtime()
    yield nets
    nets.use_opencv()


@pytest.mark.parametrize("model, crop", [("labels.onnx", (40, 88)), ("labels-second.onnx", (40, 88)),
                                         ("digits.onnx", (32, 32)), ("contents.onnx", (48, 48)),
                                         ("answers.onnx", (28, 28))])
@pytest.mark.parametrize("threads", [1, 2])
def test_onnxruntime_gives_what_opencv_dnn_gives(onnxruntime_engine, model, crop, threads):
    """The two engines of nets.py run each shipped network to the same scores (1e-4), on any thread count
    and in batches of nets.BATCH: a picture is read alike by `kkvision solve` (OpenCV's dnn) and by the
    web server or a batch (onnxruntime)."""
    import cv2
    import numpy as np

    nets = onnxruntime_engine
    rng = np.random.default_rng(5)
    crops = [rng.random(crop, dtype=np.float32) * rng.uniform(0.2, 1.0) for _ in range(nets.BATCH + 1)]  # two runs
    old = cv2.getNumThreads()
    cv2.setNumThreads(threads)
    try:
        assert nets.engine() == "onnxruntime"
        got = nets.scores(model, crops)
        assert nets._session.cache_info().currsize >= 1
    finally:
        cv2.setNumThreads(old)
    nets.use_opencv()
    assert nets.engine() == "opencv"
    want = nets.scores(model, crops)
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-4


def test_the_framed_answer_model_gives_its_features_alike_with_both_engines(onnxruntime_engine):
    """answers.onnx's second output, 'features' (framed.shapes; answers.in_one_hand compares answers by
    it), from either engine alike, as wide as its last layer's input; the scores stay its first output."""
    import numpy as np

    nets = onnxruntime_engine
    crops = [np.random.default_rng(k).random((28, 28), dtype=np.float32) for k in range(3)]
    got, scores = nets.scores("answers.onnx", crops, "features"), nets.scores("answers.onnx", crops)
    nets.use_opencv()
    want = nets.scores("answers.onnx", crops, "features")
    assert got.shape == want.shape == (3, 128) and scores.shape == (3, 9)
    assert np.abs(got - want).max() < 1e-4


def test_running_a_network_with_onnxruntime_leaves_no_file_and_sends_nothing(tmp_path):
    """onnxruntime's import starts Microsoft's telemetry unless ORT_DISABLE_TELEMETRY is set, and it leaves a
    session file (.ses) in the temporary folder; nets.runtime() turns it off before the import."""
    import os
    import subprocess

    code = ("import numpy as np; from kkvision.vision import nets; assert nets.use_runtime();"
            " print(nets.engine(), nets.scores('digits.onnx', [np.zeros((32, 32), np.float32)]).shape)")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("ORT_DISABLE_TELEMETRY", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "onnxruntime (1, 11)", out.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_single_picture_runs_its_networks_with_opencv_and_a_batch_with_onnxruntime(samples, tmp_path):
    """`kkvision solve PICTURE` pays no runtime's start (OpenCV's dnn); a batch's workers, which read many
    pictures, run the networks with onnxruntime (cli._run_many)."""
    import subprocess

    probe = ("import sys, runpy; from kkvision.vision import nets; import kkvision.cli as cli;"
             " orig = cli._run_many;"
             " cli._run_many = lambda *a: (orig(*a), print('engine', nets.engine(), file=sys.stderr));"
             " sys.argv = ['kkvision'] + sys.argv[1:]; sys.exit(cli.main())")
    one = subprocess.run([sys.executable, "-c", probe, "solve", str(samples / "hidden-ops-4x4.png"), "--no-image"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert one.returncode == 0 and "engine" not in one.stderr, one.stderr
    many = subprocess.run([sys.executable, "-c", probe, "solve", str(samples / "hidden-ops-4x4.png"),
                           str(samples / "screenshot-5x5.png"), "--no-image", "--jobs", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert many.returncode == 0 and "engine onnxruntime" in many.stderr, many.stderr



def test_a_server_worker_warms_up_onnxruntime_for_each_thread_count_a_job_may_get(monkeypatch):
    """kkvision serve's workers run the networks with onnxruntime, its sessions made and run once at start
    for one core and for all of them (a job gets the cores no other job is running on)."""
    import cv2

    from kkvision.serve.config import cores
    from kkvision.serve.pool import OPENCV_THREADS, warm_up
    from kkvision.vision import labels, nets

    made = []
    session = nets._session
    monkeypatch.setattr(nets, "_session", lambda model, threads: made.append((model, threads)) or session(model, threads))
    old = cv2.getNumThreads()
    try:
        warm_up()
        assert nets.engine() == "onnxruntime"
        assert {(labels.MODEL, t) for t in {OPENCV_THREADS, cores()}} <= set(made)
        assert {("digits.onnx", t) for t in {OPENCV_THREADS, cores()}} <= set(made)
        assert {("contents.onnx", t) for t in {OPENCV_THREADS, cores()}} <= set(made)
        assert {("answers.onnx", t) for t in {OPENCV_THREADS, cores()}} <= set(made)
    finally:
        nets.use_opencv()
        cv2.setNumThreads(old)
