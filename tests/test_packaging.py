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
    import numpy as np

    from kkvision.vision import nets

    assert nets.scores("labels.onnx", [np.zeros((40, 88), np.float32)] * 2).shape == (2, 15, 1, 22)


@pytest.mark.parametrize("model, crop", [("labels.onnx", (40, 88)), ("labels-second.onnx", (40, 88)),
                                         ("digits.onnx", (28, 28))])
@pytest.mark.parametrize("threads", [1, 2])
def test_the_runtime_gives_what_opencv_dnn_gives(model, crop, threads):
    """onnxruntime runs the shipped networks (nets.py); OpenCV's dnn module, which ran them before and
    which the training scripts check the export with, is the reference: the same scores to 1e-4."""
    from importlib import resources

    import cv2
    import numpy as np

    from kkvision.vision import nets

    rng = np.random.default_rng(5)
    crops = [rng.random(crop, dtype=np.float32) * rng.uniform(0.2, 1.0) for _ in range(nets.BATCH + 1)]  # two runs
    old = cv2.getNumThreads()
    cv2.setNumThreads(threads)
    try:
        got = nets.scores(model, crops)
    finally:
        cv2.setNumThreads(old)
    net = cv2.dnn.readNetFromONNX(np.frombuffer(resources.files("kkvision.models").joinpath(model).read_bytes(),
                                                np.uint8))
    net.setInput(np.stack(crops)[:, None])
    want = net.forward()
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-4


def test_running_a_network_leaves_no_file_and_sends_nothing(tmp_path):
    """onnxruntime's import starts Microsoft's telemetry unless ORT_DISABLE_TELEMETRY is set, and it leaves a
    session file (.ses) in the temporary folder; nets.runtime() turns it off before the import."""
    import os
    import subprocess

    code = ("import numpy as np; from kkvision.vision import nets;"
            " print(nets.scores('digits.onnx', [np.zeros((28, 28), np.float32)]).shape)")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("ORT_DISABLE_TELEMETRY", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "(1, 11)", out.stderr
    assert list(tmp_path.iterdir()) == []
