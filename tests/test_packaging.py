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
